#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The guest-bench cases exit_cost.mmio, timer.* and futex_wake under
# irqlab-vmm, --irqchip=user and kernel, x2APIC and xAPIC, --cpus 2 (and
# futex_wake once on 4): each prints a well-formed @bench record
# (docs/RECORDS.md) or an explained @bench_skip, with the exit counts
# irqlab can vouch for.  Outcomes only: no timing is checked.
#
# Integration test conventions: run from the repo root; exit 0 = pass,
# 77 = skip (after "SKIP: <reason>"), anything else = fail ("FAIL: ...").
set -u
VMM=build/irqlab-vmm
K=build/kernel/irqlab.elf
T=build/tests/vmm-bench-cases
N=50
mkdir -p $T
if ! [ -c /dev/kvm ] || ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
	echo "SKIP: no usable /dev/kvm (the nested rig is vmm-boot.sh's)"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

run() {		# run NAME VMM-ARGS...: boot, status 0 wanted
	local name=$1; shift
	timeout 120 $VMM --stats --stats-json $T/$name.json "$@" \
		>$T/$name.out 2>$T/$name.err
	local rc=$?
	[ $rc -eq 0 ] && return 0
	fail "$name: status $rc, want 0"; cat $T/$name.out $T/$name.err
	return 1
}

# check NAME CHIP CPUS [futex]: the records of one boot (python: docs/RECORDS.md)
check() {
	python3 - $T/$1.out $T/$1.json "$2" "$3" $N "${4:-}" <<'PY' || fail "$1: records"
import json, re, sys
out, js, chip, cpus, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
text = open(out).read()
recs, skips = {}, {}
for m in re.finditer(r'^@bench case=(\S+) (.*)$', text, re.M):
    assert m.group(1) not in recs, ('two records', m.group(1))
    recs[m.group(1)] = dict(re.findall(r'(\w+)=(\S+)', m.group(2)))
for m in re.finditer(r'^@bench_skip case=(\S+) reason=([a-z0-9-]+)$', text, re.M):
    skips[m.group(1)] = m.group(2)

def sane(c, want_n=n):
    r = recs[c]
    assert int(r['cpus']) == cpus and r['apic'] in ('xapic', 'x2apic'), r
    assert int(r['n']) == want_n, (c, r['n'])
    for u in ('cyc', 'ns'):
        v = [int(r[k + '_' + u]) for k in ('min', 'p50', 'p90', 'p99', 'max')]
        assert v == sorted(v), (c, u, v)
        assert v[0] <= int(r['mean_' + u]) <= v[-1], (c, u, r)
    for k in ('exits_per_op', 'send_exits', 'kick_exits', 'eoi_exits',
              'hlt_exits', 'other_exits'):
        assert re.fullmatch(r'\d+\.\d\d', r[k]), (c, k, r.get(k))
    return {k: float(v) for k, v in r.items() if k.endswith('exits') or k == 'exits_per_op'}

# futex_wake: the perf-style summary, and wake-to-run latency per woken
# thread (10 runs of threads wake-ups), unless the TSCs disagree
if 'futex' in sys.argv[6:]:
  m = re.search(r'^Wokeup (\d+) of (\d+) threads in (\d+\.\d+) ms \(\+-(\d+\.\d+)%\)$', text, re.M)
  assert m and m.group(1) == m.group(2), 'no Wokeup line'
  threads = int(m.group(1))
  if 'futex_wake' in recs:
    e = sane('futex_wake', 10 * threads)
    if chip == 'user':
        # one send per wake; IPIs that find the target busy merge in its
        # IRR, so fewer EOIs
        assert e['send_exits'] >= 1.0 and e['eoi_exits'] > 0, e
  else:
    # this host's TSC sync estimates are noisy (docs/BENCHMARKS.md)
    assert skips.get('futex_wake') in ('tsc-skew', 'tsc-sync-timeout'), skips
if 'exit_cost.mmio' not in recs:
  print('%s: %s' % (out, ', '.join(sorted(recs))))
  sys.exit(0)
# exit_cost.mmio: one userspace MMIO exit per load, in both irqchips,
# answered as an unclaimed read
e = sane('exit_cost.mmio')
assert e['exits_per_op'] == 1.0 and e['other_exits'] == 1.0, e
unc = json.load(open(js))['exits']
assert '0xfeb00000' in json.dumps(unc['by_mmio']), 'no exit at 0xfeb00000'

# timer.*: in user mode irqlab arms, halts, injects and takes the EOI:
# at least the HLT and the EOI per fire; in kernel mode KVM does it all
for c in ('timer.oneshot', 'timer.tsc_deadline'):
    if c not in recs:
        assert chip == 'kernel' and skips.get(c) == 'no-tsc-deadline', (c, skips.get(c))
        continue
    e = sane(c)
    if chip == 'user':
        assert e['eoi_exits'] == 1.0 and e['hlt_exits'] >= 1.0, (c, e)
        assert e['exits_per_op'] >= 3.0, (c, e)
    else:
        assert e['exits_per_op'] < 1.0, (c, e)

print('%s: %s' % (out, ', '.join(sorted(recs))))
PY
}

for chip in user kernel; do
	for apic in x2apic xapic; do
		name=$chip-$apic
		run $name --irqchip=$chip --cpus 2 \
			-a "bench=exit_cost.mmio,timer,futex_wake iters=$N apic=$apic" $K &&
			check $name $chip 2 futex
	done
	# futex_wake on 4 CPUs: its 4 threads on CPUs 1, 2, 3, 1
	run $chip-4cpus --irqchip=$chip --cpus 4 -a "bench=futex_wake" $K &&
		check $chip-4cpus $chip 4 futex
done

[ $fails -eq 0 ] || exit 1
echo "PASS: vmm-bench-cases"
