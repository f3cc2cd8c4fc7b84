#!/bin/bash
# Boot the irqlab kernel in irqlab-vmm: banner, @boot, exit status, stats.
set -u
VMM=build/irqlab-vmm
K=build/kernel/irqlab.elf
T=build/tests/vmm-boot
mkdir -p $T
if [ ! -c /dev/kvm ] || ! [ -r /dev/kvm -a -w /dev/kvm ]; then
	echo "SKIP: /dev/kvm is not available on this host; irqlab-vmm cannot boot a guest here"
	exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

boot() {	# boot NAME WANT-STATUS ARGS...
	local name=$1 want=$2; shift 2
	timeout 30 $VMM --stats --stats-json $T/$name.json "$@" >$T/$name.out 2>$T/$name.err
	local rc=$?
	[ $rc -eq "$want" ] || { fail "$name: status $rc, want $want"; cat $T/$name.out $T/$name.err; }
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
assert e['total'] < 50, 'boot took %d exits' % e['total']
print('stats ok: %d exits' % e['total'])
PY

boot mb1 0 --multiboot 1 $K
has mb1 '^@boot proto=mb1 .*pv=1'

boot smp 0 --cpus 2 $K
has smp 'fwcfg_cpus=2'

boot crash 49 -a crash=ud $K
has crash '^@panic vector=6 '
[ $fails -eq 0 ]
