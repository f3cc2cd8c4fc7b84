#!/bin/bash
# Boot the irqlab kernel in irqlab-vmm: banner, @boot, exit status, stats.
set -u
VMM=build/irqlab-vmm
K=build/kernel/irqlab.elf
T=build/tests/vmm-boot
mkdir -p $T
. tests/integration/guest-lib.bash
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
# Without a usable /dev/kvm, boot through tests/nested/run-in-kvm.sh: a
# Linux guest under QEMU TCG with emulated SVM gives irqlab-vmm a real one.
if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	RUN=()
else
	echo "note: no /dev/kvm here; irqlab-vmm runs on nested KVM (tests/nested/run-in-kvm.sh)"
	RUN=(tests/nested/run-in-kvm.sh -t 60 --)
	tests/nested/run-in-kvm.sh -t 30 -- --version >$T/probe.out 2>$T/probe.err
	rc=$?
	if [ $rc -eq 77 ]; then
		cat $T/probe.out
		exit 77
	elif [ $rc -ne 0 ]; then
		echo "FAIL: the nested-KVM rig does not work (status $rc):"
		cat $T/probe.out $T/probe.err
		exit 1
	fi
	export NESTED_NO_MAKE=1
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

boot() {	# boot NAME WANT-STATUS ARGS...
	local name=$1 want=$2; shift 2
	if [ ${#RUN[@]} -eq 0 ]; then
		timeout ${BOOT_TIMEOUT:-30} $VMM --stats --stats-json $T/$name.json "$@"
	else
		timeout 300 "${RUN[@]}" --stats --stats-json $T/$name.json "$@"
	fi >$T/$name.out 2>$T/$name.err
	local rc=$?
	[ $rc -eq "$want" ] && return 0
	[ -n "${BOOT_TRY:-}" ] && return $rc	# the caller decides
	fail "$name: status $rc, want $want"; cat $T/$name.out $T/$name.err
	return 1
}
has() {		# has NAME REGEX
	grep -qE -- "$2" $T/$1.out || { fail "$1: no line matching '$2'"; cat $T/$1.out; }
}

boot mb2 0 -a "hello world" $K
has mb2 '^irqlab kernel'
has mb2 '^@cpuid vendor=[^ ]+ '
has mb2 '^@boot proto=mb2 hv=[^ ]+ pv=1 .*argc=3'
has mb2 '^@ready '
grep -q 'irqlab-vmm exits:' $T/mb2.err || fail "mb2: no --stats table on stderr"
python3 - $T/mb2.json <<'PY' || fail "mb2: stats JSON"
import json, sys
j = json.load(open(sys.argv[1]))
e = j['exits']
for k in ('total', 'by_reason', 'by_port', 'by_mmio', 'by_msr', 'by_phase'):
    assert k in e, k
assert e['total'] == sum(e['by_reason'].values()), 'total != sum of reasons'
assert e['by_reason'].get('IO', 0) > 0
assert '0xed4' in e['by_port'], 'no power-off exit counted'
# 48 before issue 4, + 2: the 8259s masked at boot (kernel/pic.c)
assert e['total'] < 52, 'boot took %d exits' % e['total']
print('stats ok: %d exits' % e['total'])
PY

# Calibration (docs/CALIB.md): with the CPUID frequency leaves (the
# default) it takes no port I/O at all; with them zeroed it falls back to
# the PIT, and irqlab's count of port-I/O exits in the calib phase is the
# kernel's own count of its port accesses, exactly.
has mb2 '^@calib source=cpuid15 tsc_khz=[1-9][0-9]* .* polls=0 exits=[0-9]+ pio_exits=0 .*cpuid_bus_khz=1000000 '
boot calib-off 0 --cpuid-freq=off $K
has calib-off '^@calib source=pit tsc_khz=[1-9][0-9]* lapic_khz=[1-9][0-9]* '
python3 - $T/calib-off.out <<'PY' || fail "calib-off: pio_exits is not the kernel's port count"
import re, sys
kv = dict(re.findall(r'(\w+)=(\S+)', re.search(r'^@calib (.*)$', open(sys.argv[1]).read(), re.M).group(1)))
assert int(kv['polls']) > 0 and int(kv['pio_exits']) == int(kv['pio']) > int(kv['polls']), kv
print('calib-off: %s polls, %s port-I/O exits = the kernel\'s %s accesses' % (kv['polls'], kv['pio_exits'], kv['pio']))
# the bound drives the window (docs/CALIB.md): widened until the bound is
# within 1%, or said to be missed; either way the true rate is within it
b, t = int(kv['lapic_err_ppm']), int(kv['target_ppm'])
assert t == 10000 and kv['bound'] in ('met', 'missed'), kv
assert (kv['bound'] == 'met') == (b <= t), kv
assert int(kv['start_us']) <= int(kv['window_us']) <= int(kv['max_us']), kv
assert (int(kv['widened']) > 0) == (int(kv['window_us']) > int(kv['start_us'])), kv
e = abs(int(kv['lapic_khz']) - 1000000) * 1e6 / 1000000
assert e <= b + 1, ('APIC timer %d ppm off, outside its bound' % e, kv)
print('calib-off: window %s us (widened %s times), APIC timer %d ppm off, bound %d ppm: %s' %
      (kv['window_us'], kv['widened'], e, b, kv['bound']))
PY
boot calib-hv 0 --cpuid-freq=hv --irqchip=kernel $K
has calib-hv '^@calib source=hv .* pio_exits=0 '

# The APIC timer measured against the CPUID-given TSC: within 0.1% of the
# true 1 GHz (--apic-mhz's default, and KVM's), in both irqchips.  A boot
# whose vCPU thread is descheduled inside one of the timed reads is off by
# more (docs/CALIB.md), so the median of 5 boots is held to 0.1%; every
# boot must lie within its own reported bound, and APIC exits stay at the
# RDTSC method's 8 accesses plus the timer setup.
for chip in user kernel; do
	for i in 1 2 3 4 5; do
		boot calib-acc-$chip-$i 0 --irqchip=$chip $K
	done
	python3 - $chip $T/calib-acc-$chip-*.out <<'PY' || fail "calib-acc-$chip: APIC timer not within 0.1%"
import re, statistics, sys
errs = []
for f in sys.argv[2:]:
    kv = dict(re.findall(r'(\w+)=(\S+)', re.search(r'^@calib (.*)$', open(f).read(), re.M).group(1)))
    assert kv['source'] == 'cpuid15' and kv['pio_exits'] == '0', kv
    assert kv['apic_exits'] == 'na' or int(kv['apic_exits']) <= 10, kv
    e = abs(int(kv['lapic_khz']) - 1000000) * 1e6 / 1000000
    assert e <= int(kv['lapic_err_ppm']), (f, e, kv)
    errs.append(e)
m = statistics.median(errs)
print('calib-acc-%s: APIC timer error %s ppm, median %d' % (sys.argv[1], [int(e) for e in errs], m))
assert m <= 1000, m
PY
done

boot mb1 0 --multiboot 1 $K
has mb1 '^@boot proto=mb1 .*pv=1'

# SMP in both irqchips and both APIC modes: INIT/SIPI from the MADT, then
# check=ipi's fixed, self and broadcast IPIs, every one counted exactly.
# In user mode every IPI is handled by irqlab: one EOI write per interrupt
# received (the check's, the one wake-up IPI the BSP sends each AP to start
# it, and check=timer's), and the ICR writes are counted as sends.
for chip in user kernel split; do
	for apic in x2apic xapic; do
		n=smp-$chip-$apic
		trace=()
		[ $chip-$apic = user-x2apic ] && trace=(--trace=lapic)
		# A duplicated IPI has been seen once in CI (dup=1 in xAPIC mode,
		# on a loaded host) and never in hundreds of runs here since: it
		# is an open problem (docs/LAPIC.md), so one rerun is allowed for
		# a duplicate, loudly.  A lost IPI, or a duplicate twice, fails.
		args=(--irqchip=$chip "${trace[@]}" --cpus 4 -a "check=ipi,timer apic=$apic" $K)
		BOOT_TRY=1 boot $n 0 "${args[@]}"
		rc=$?
		if [ $rc -ne 0 ] && grep -qE '^@ipi_check .* lost=0 dup=[1-9]' $T/$n.out; then
			echo "FLAKE: $n: a duplicated IPI; its record and pairs:"
			grep -E '^(@ipi_check|ipi_check: cpu [0-9]+ ->)' $T/$n.out
			cp $T/$n.out $T/$n.flake.out
			cp $T/$n.err $T/$n.flake.err
			boot $n 0 "${args[@]}"
		elif [ $rc -ne 0 ]; then
			fail "$n: status $rc, want 0"; cat $T/$n.out $T/$n.err
		fi
		has $n 'fwcfg_cpus=4'
		has $n "^@smp online=4 apic=$apic cpus=4 "
		has $n '^@ipi_check sent=([0-9]+) received=\1 lost=0 dup=0 '
		# irqlab offers TSC-deadline; KVM 6.1's LAPIC does too only when
		# the CPUID bit is set, which KVM lists as emulated, not supported
		tdl=ok; [ $chip != user ] && tdl='(ok|absent)'
		has $n "^@timer_check oneshot=ok periodic=10 tsc_deadline=$tdl early=0 irqs="
		if [ ${#trace[@]} -gt 0 ]; then
			grep -qE '^t=[0-9]+\.[0-9]{6} vcpu=0 IPI start-up vector 0x8 physical dest 0x3$' $T/$n.err ||
				fail "$n: --trace=lapic: no decoded SIPI line"
			grep -qE '^t=[0-9.]+ vcpu=[0-3] wrmsr EOI = 0$' $T/$n.err ||
				fail "$n: --trace=lapic: no EOI line"
		fi
		[ $chip = user ] || continue
		python3 - $T/$n.json $T/$n.out $apic <<'PY' || fail "$n: APIC exit classes"
import json, re, sys
c = json.load(open(sys.argv[1]))['exits']['classes']
out = open(sys.argv[2]).read()
recv = int(re.search(r'@ipi_check sent=\d+ received=(\d+)', out).group(1))
recv += 3 + int(re.search(r'@timer_check .* irqs=(\d+)', out).group(1))
assert c['apic_eoi'] == recv, ('one EOI per interrupt', c['apic_eoi'], recv)
assert c['apic_send'] > 0 and c['apic'] >= c['apic_send'] + c['apic_eoi'], c
key = 'msr' if sys.argv[3] == 'x2apic' else 'mmio'
# sends and EOIs are MMIO in xAPIC mode, MSR in x2APIC mode (IA32_APIC_BASE
# and IA32_TSC_DEADLINE are MSR exits in both)
assert c[key] >= c['apic_send'] + c['apic_eoi'], ('LAPIC accesses are %s exits' % key, c)
assert c['mmio'] + c['msr'] >= c['apic'], c
print('%s: %d EOIs for %d interrupts, %d sends' % (sys.argv[3], c['apic_eoi'], recv, c['apic_send']))
PY
	done
done

# --irqchip=split: KVM's LAPIC, irqlab's PIT: the PIT calibration polls
# irqlab's channel 2 through port 0x61, every access an exit it counts
boot split-pit 0 --irqchip=split --trace=pit --cpuid-freq=off --cpus 2 -a calib=pit $K
has split-pit '^@calib source=pit tsc_khz=[1-9][0-9]* lapic_khz=[1-9][0-9]* '
grep -qE '^t=[0-9]+\.[0-9]{6} vcpu=0 pit: ch2 control 0x[0-9a-f]{2}: mode [0-5] rw [1-3]' $T/split-pit.err &&
	grep -qE '^t=[0-9.]+ vcpu=0 pit: read port 0x61 = 0x[0-9a-f]{2}: gate2 1 speaker [01] out2 [01] refresh [01]$' $T/split-pit.err ||
	fail "split-pit: --trace=pit: no decoded control word or port 0x61 line"
grep -qE '^ irqchip split: route_commits [0-9]+ for [0-9]+ IOAPIC redirection writes' $T/split-pit.err ||
	fail "split-pit: no split line in --stats"
python3 - $T/split-pit.out <<'PY' || fail "split-pit: pio_exits is not the kernel's port count"
import re, sys
kv = dict(re.findall(r'(\w+)=(\S+)', re.search(r'^@calib (.*)$', open(sys.argv[1]).read(), re.M).group(1)))
assert int(kv['polls']) > 0 and int(kv['pio_exits']) == int(kv['pio']), kv
print('split-pit: %s polls, %s port-I/O exits' % (kv['polls'], kv['pio_exits']))
PY

# ISA IRQ0 from irqlab's PIT through irqlab's IOAPIC (tests/integration/
# pit-irq.S): 50 interrupts, edge and level, in user and split mode.  In
# split mode each one is a KVM_SIGNAL_MSI; an edge entry needs no GSI
# route, a level one exactly one commit, and every level EOI comes back
# as KVM_EXIT_IOAPIC_EOI.
for trig in edge level; do
	def=(); [ $trig = level ] && def=(-DLEVEL)
	build_guest $T pit-$trig tests/integration/pit-irq.S "${def[@]}" ||
		{ fail "pit-irq.S ($trig) does not build"; continue; }
	boot pit-user-$trig 33 --irqchip=user --trace=ioapic $T/pit-$trig.elf
	# --trace=ioapic: the decoded entry and what the write classification
	# decided (a level vector's TMR bit goes to CPU 0 and no other)
	out='no cross-vCPU work'; [ $trig = level ] && out='TMR update of cpus 0x1, 0 kicks'
	grep -qE "^t=[0-9.]+ vcpu=0 ioapic: write pin 2 low = 0x0000[08]041: vector 0x41 fixed physical $trig unmasked dest 0x00: $out\$" $T/pit-user-$trig.err ||
		fail "pit-user-$trig: --trace=ioapic: no decoded redirection write"
	if [ $trig = level ]; then
		# docs/VMM.md: this host's KVM loses KVM_EXIT_IOAPIC_EOI when
		# the guest halts right after the EOI; known, reported, no fail
		BOOT_TIMEOUT=5 BOOT_TRY=1 boot pit-split-$trig 33 --irqchip=split $T/pit-$trig.elf || {
			echo "KNOWN: pit-split-level: no KVM_EXIT_IOAPIC_EOI from this host's KVM (docs/VMM.md)"
			continue
		}
	else
		boot pit-split-$trig 33 --irqchip=split $T/pit-$trig.elf || continue
	fi
	want=0; [ $trig = level ] && want=1
	grep -qE "^ irqchip split: route_commits $want for 2 IOAPIC redirection writes; 5[0-9] MSIs" $T/pit-split-$trig.err ||
		fail "pit-split-$trig: want $want route commits and ~50 MSIs: $(grep 'irqchip split' $T/pit-split-$trig.err)"
	[ $trig = edge ] || python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["exits"]["by_reason"]; assert r.get("IOAPIC_EOI", 0) >= 49, r' $T/pit-split-$trig.json ||
		fail "pit-split-$trig: the level EOIs did not exit"
done

# The Windows pattern in split mode (tests/integration/ioapic-rotate.S):
# 200 destination rotations of an edge entry commit no GSI route; with
# --ioapic=naive every one commits.
if build_guest $T rotate tests/integration/ioapic-rotate.S -DROTATIONS=200; then
	for p in optimized naive; do
		boot rotate-split-$p 33 --irqchip=split --ioapic=$p --cpus 4 $T/rotate.elf || continue
		want=0; [ $p = naive ] && want=200
		grep -qE "^ irqchip split: route_commits $want for 401 IOAPIC redirection writes" $T/rotate-split-$p.err ||
			fail "rotate-split-$p: want $want commits: $(grep 'irqchip split' $T/rotate-split-$p.err)"
	done
else
	fail "ioapic-rotate.S does not build"
fi

boot kirq 0 --irqchip=kernel --hlt=guest --cpus 2 $K
has kirq '^@boot proto=mb2 hv=irqlab pv=1 .*fwcfg_cpus=2'
# KVM_RUN returns EAGAIN once per AP when its SIPI arrives; only EINTR is a
# kick, and the teardown kick must not be counted at all
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["exits"]; assert e["classes"]["kick"] == 0, e' $T/kirq.json ||
	fail "kirq: the teardown kick was counted as an exit"

# Issue 4: the IOAPIC's pin rules from inside, through the pc-testdev
# lines, edge and level, each entry moved to each vCPU (docs/RECORDS.md
# @ioapic_check: 14 steps + 3 per CPU).  User mode (irqlab's LAPIC and
# IOAPIC) passes every step and its PIT follows the datasheet.  With KVM's
# LAPIC (split, kernel) a step that needs the vector held in service is
# skipped, loudly, only where the LAPIC showed its ISR bit clear in the
# handler (the kvm_pvm host EOIs every injected vector itself); every
# other step, level delivery to the right vCPU included, must pass.
boot ioapic-check 0 --cpus 2 -a check=ioapic $K
has ioapic-check '^@ioapic_check ok=20 fail=0 skip=0 cpus=2 pin=3 .* lapic_isr=held pit=ok pit_periodic=[1-9][0-9]* pit_after_stop=0 pit_oneshot=1 pit_ch2=ok$'
for m in split kernel; do
	boot ioapic-check-$m 0 --irqchip=$m --cpus 2 -a check=ioapic $K || continue
	r=$(grep -E '^@ioapic_check ' $T/ioapic-check-$m.out)
	case "$r" in
	"@ioapic_check ok=20 fail=0 skip=0 cpus=2 pin=3 "*" lapic_isr=held "*) ;;
	"@ioapic_check ok="*" fail=0 skip="[1-9]*" cpus=2 pin=3 "*" lapic_isr=clear "*)
		ok=${r#*ok=}; ok=${ok%% *}; sk=${r#*skip=}; sk=${sk%% *}
		[ $((ok + sk)) -eq 20 ] || fail "ioapic-check-$m: $ok ok + $sk skipped is not 20 steps: $r"
		echo "SKIP (host): ioapic-check-$m: $sk of 20 steps need the vector held in service, and KVM's LAPIC here showed its ISR bit clear in the handler:"
		grep 'SKIPPED' $T/ioapic-check-$m.out | sed 's/^/    /' ;;
	*) fail "ioapic-check-$m: $r"; cat $T/ioapic-check-$m.out ;;
	esac
done
# irqlab's PIT in split mode; KVM's PIT (kernel mode) is reported only: it
# keeps ticking after a control word (pit_after_stop, docs/RECORDS.md)
has ioapic-check-split ' pit=ok pit_periodic=[1-9][0-9]* pit_after_stop=0 pit_oneshot=1 '
grep -o ' pit=.*' $T/ioapic-check-kernel.out | sed 's/^/note: KVM PIT (--irqchip=kernel):/'

# The Windows-pattern rotation of an edge entry's destination: optimized
# does no cross-vCPU work, naive stops the other vCPUs on every change
# (docs/RECORDS.md @ioapic_rotate).  A budget of a minute, so that a slow
# host does all 50 (rot-budget below tests the budget).
boot rot-opt 0 --cpus 2 --ioapic=optimized -a "bench=ioapic_rotate iters=50 rotate_ms=60000" $K
has rot-opt '^@ioapic_rotate mode=edge cpus=2 rotations=50 writes=200 .* rte_writes=200 tmr_updates=0 kicks=0$'
has rot-opt '^@ioapic_rotate mode=level cpus=2 moves=50 writes=100 .* delivered_ok=50 wrong_cpu=0 lost=0 late=0 .*rte_writes=100 '
boot rot-naive 0 --cpus 2 --ioapic=naive -a "bench=ioapic_rotate iters=50 rotate_ms=60000" $K
has rot-naive '^@ioapic_rotate mode=edge cpus=2 rotations=50 writes=200 .* asked=50 budget_ms=60000 ended=iters rte_writes=200 tmr_updates=[1-9][0-9]* kicks=[1-9][0-9]*$'
has rot-naive '^@ioapic_rotate mode=level .* delivered_ok=50 wrong_cpu=0 lost=0 late=0 asked=50 budget_ms=60000 ended=iters '
# The time budget ends each mode: 65536 rotations asked, 300 ms each.
# The records say how many were done, and the counts are of those.
boot rot-budget 0 --cpus 2 --ioapic=naive -a "bench=ioapic_rotate iters=65536 rotate_ms=300" $K
python3 - $T/rot-budget.out <<'PY' || fail "rot-budget: the budget did not end the rotation"
import re, sys
text = open(sys.argv[1]).read()
def rec(name, key):
    m = re.search(r'^@%s %s (.*)$' % (name, key), text, re.M)
    assert m, 'no @%s %s' % (name, key)
    return dict(re.findall(r'(\w+)=(\S+)', m.group(1)))
edge, level = rec('ioapic_rotate', 'mode=edge'), rec('ioapic_rotate', 'mode=level')
for r, n in ((edge, 'rotations'), (level, 'moves')):
    assert r['asked'] == '65536' and r['budget_ms'] == '300' and r['ended'] == 'budget', r
    assert 1 <= int(r[n]) < 65536, r
assert int(edge['writes']) == 4 * int(edge['rotations']) == int(edge['rte_writes']), edge
assert int(level['writes']) == 2 * int(level['moves']) == int(level['rte_writes']), level
for case, r, n in (('ioapic_rotate.edge', edge, 'rotations'), ('ioapic_rotate.level', level, 'moves')):
    b = rec('bench', 'case=' + re.escape(case))
    assert b['ended'] == 'budget' and b['asked'] == '65536', b
    assert int(b['n']) <= int(r[n]), (b, r)
print('rot-budget: %s of 65536 rotations and %s moves in 300 ms each' % (edge['rotations'], level['moves']))
PY

# --halt-poll (docs/VMM.md): the wake-up comes while the target spins,
# and the exits are the same 3 per wake.  A 10 ms bound, so that the
# window reaches the ~100 us between ipi_wake's HLT and its IPI however
# slow the host is; whether it is faster is for docs/BENCHMARKS.md.
# ipi_wake refuses to run where the TSCs look skewed (@bench_skip
# reason=tsc-skew: where RDTSC traps and the host is loaded, the round
# trip of tsc_sync can look like skew); then no HLT is polled at all, so
# the boot is tried again, and after 3 such boots the check is skipped,
# loudly.
for try in 1 2 3; do
	boot halt-poll 0 --cpus 2 --stats --halt-poll 10000 -a "bench=ipi_wake iters=200" $K || break
	grep -q '^@bench_skip case=ipi_wake ' $T/halt-poll.out || break
done
if grep -q '^@bench_skip case=ipi_wake ' $T/halt-poll.out; then
	echo "SKIP (host): halt-poll: ipi_wake skipped itself in 3 boots: $(grep '^@bench_skip case=ipi_wake ' $T/halt-poll.out)"
else
	has halt-poll '^@bench case=ipi_wake .* exits_per_op=3\.00 send_exits=1\.00 kick_exits=0\.00 eoi_exits=1\.00 hlt_exits=1\.00 '
	grep -qE '^ halt-poll 10000 us: [1-9][0-9]* of [1-9][0-9]* polled HLTs woken while spinning$' $T/halt-poll.err ||
		fail "halt-poll: no HLT was woken while spinning: $(grep halt-poll $T/halt-poll.err)"
fi

boot crash 49 -a crash=ud $K
has crash '^@panic vector=6 '

# Guest failures, from tiny a.out-kludge multiboot images: ud2 with no IDT
# escalates to a triple fault; cli; hlt can never be woken.
mkimage() {	# mkimage FILE HEX-CODE
	python3 - "$1" "$2" <<'PY'
import struct, sys
flags = 0x00010000                      # a.out kludge: address fields valid
hdr = struct.pack('<8I', 0x1badb002, flags, (-(0x1badb002 + flags)) & 0xffffffff,
                  0x100000, 0x100000, 0, 0, 0x100020)
open(sys.argv[1], 'wb').write(hdr + bytes.fromhex(sys.argv[2]))
PY
}
mkimage $T/triple.bin 0f0b
boot triple 8 $T/triple.bin
grep -q 'vcpu0: triple fault' $T/triple.err || fail "triple: no 'triple fault' line"
# Intel keeps the faulting state; AMD's KVM resets the vCPU first, and says so
grep -qE 'RIP=0+100020 |these are reset values' $T/triple.err ||
	fail "triple: no register dump"
mkimage $T/halt.bin faf4
boot halt 16 $T/halt.bin
grep -q 'HLT with interrupts disabled' $T/halt.err || fail "halt: no explanation"

# ---- check=pic: the 8259A pair's INTR on the BSP's LINT0 as ExtINT ----
# kernel/pic_check.c, docs/RECORDS.md @pic_check.  irqlab-vmm always has
# the test device and a LAPIC, so a skip is a failure here.  What the
# mode's LAPIC does beyond the steps is pinned too: irqlab's (user) takes
# an IOAPIC ExtINT entry and the INTR waiting at a LINT0 unmask at once;
# KVM's LAPIC (split, kernel) ignores an ExtINT message, and in kernel
# mode sees the waiting INTR only at its next interrupt event ("late").
declare -A pic_want=([user]='lint0_unmask=ok ioapic_extint=ok'
		[split]='lint0_unmask=ok ioapic_extint=none'
		[kernel]='lint0_unmask=(ok|late) ioapic_extint=(ok|none)')
for m in user split kernel; do
	boot pic-$m 0 --cpus 2 --irqchip=$m -a check=pic $K || continue
	has pic-$m "^@pic_check ok=[1-9][0-9]* fail=0 cpus=2 line=5 slave_line=13 base=0x30 deliveries=[0-9]+ spurious=0 ${pic_want[$m]}\$"
	grep -q 'lint0_unmask=late' $T/pic-$m.out &&
		echo "KNOWN: pic-$m: KVM's LAPIC took the INTR waiting at the LINT0 unmask only at its next interrupt (docs/VMM.md)"
done
# the same through the xAPIC page (LINT0 by MMIO), and --trace=pic's INTA
boot pic-user-xapic 0 --cpus 2 --irqchip=user --trace=pic -a "check=pic apic=xapic" $K &&
	has pic-user-xapic '^@pic_check ok=[1-9][0-9]* fail=0 .* lint0_unmask=ok ioapic_extint=ok$'
grep -qE '^t=[0-9.]+ vcpu=[-0-9]+ pic: INTA: vector 0x35 ' $T/pic-user-xapic.err ||
	fail "pic-user-xapic: --trace=pic: no decoded INTA"
# The PIT through the PIC and LINT0 into a halted vCPU, 50 times
# (tests/integration/pit-pic.S): each one wakes it from HLT (user: the
# futex; split: a kick out of KVM's HLT, then KVM_INTERRUPT; kernel: KVM)
if build_guest $T pit-pic tests/integration/pit-pic.S; then
	for m in user split kernel; do
		boot pit-pic-$m 33 --irqchip=$m $T/pit-pic.elf
	done
else
	fail "pit-pic.S does not build"
fi
# A hostile guest (tests/integration/pic-hostile.S) holds the PIC's INTR
# high with IF=0: no crash and no stream of exits (no interrupt-window
# exit at all); with cli; hlt, user mode stops it as unwakeable (in split
# and kernel mode that HLT is KVM's, and waits forever, as any cli; hlt).
for v in spin halt; do
	def=(); [ $v = halt ] && def=(-DHALT)
	build_guest $T pic-hostile-$v tests/integration/pic-hostile.S "${def[@]}" ||
		{ fail "pic-hostile.S ($v) does not build"; continue; }
done
for m in user split kernel; do
	boot pic-hostile-$m 33 --irqchip=$m $T/pic-hostile-spin.elf || continue
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["exits"]["by_reason"]; assert sum(r.values()) < 40 and not r.get("IRQ_WINDOW_OPEN"), r' $T/pic-hostile-$m.json ||
		fail "pic-hostile-$m: exits: $(cat $T/pic-hostile-$m.json)"
done
boot pic-hostile-halt 16 --irqchip=user $T/pic-hostile-halt.elf &&
	{ grep -q 'HLT with interrupts disabled' $T/pic-hostile-halt.err ||
		fail "pic-hostile-halt: no explanation"; }
[ $fails -eq 0 ]
