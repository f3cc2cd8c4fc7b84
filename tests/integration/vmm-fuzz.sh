#!/bin/bash
# Hostile guests against irqlab-vmm (the standard: a guest that pokes
# nonsense into a device never crashes or corrupts the VMM).
#
# - tests/integration/fuzz-guest.S: SEEDS x 3 irqchip modes, 2 vCPUs,
#   ITERS random port, LAPIC, IOAPIC and MSR accesses each, half of the
#   seeds with interrupts taken.  The VMM
#   must end with a status of its own: 33 (the guest finished), 8 (it
#   broke itself: triple fault) or 16 (it halted for good).  A signal, a
#   timeout or any other status fails, with the seed to replay it.
# - tests/integration/timer-storm.S: a 1 ns periodic LAPIC timer must not
#   stop the guest (docs/LAPIC.md), IF=0 and IF=1.
#
# The runs use an irqlab-vmm built with AddressSanitizer and UBSan
# (make SAN=1 B=build/san), which turn a stray access into a failure;
# where the compiler cannot build it, the plain build, said loudly.
set -u
T=build/tests/vmm-fuzz
mkdir -p $T
. tests/integration/guest-lib.bash
if ! [ -c /dev/kvm ] || ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
	echo "SKIP: no usable /dev/kvm here (the fuzz needs many quick boots;"
	echo "      tests/nested/run-in-kvm.sh is too slow for it)"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }
SEEDS=${SEEDS:-12}
ITERS=${ITERS:-3000}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

export ASAN_OPTIONS=exitcode=97:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1
if make -s SAN=1 B=build/san build/san/irqlab-vmm >$T/san-build.log 2>&1 &&
	build/san/irqlab-vmm --version >>$T/san-build.log 2>&1; then
	VMM=build/san/irqlab-vmm
	echo "note: irqlab-vmm with AddressSanitizer and UBSan ($VMM)"
else
	VMM=build/irqlab-vmm
	echo "note: the sanitizer build does not build or run here ($T/san-build.log):"
	echo "      the plain $VMM instead"
	tail -3 $T/san-build.log
fi

declare -A seen
for seed in $(seq 1 $SEEDS); do
	# odd seeds run with IF=1 and a full IDT (-DIRQS), even ones with IF=0
	irqs=(); [ $((seed % 2)) -eq 1 ] && irqs=(-DIRQS)
	build_guest $T fuzz-$seed tests/integration/fuzz-guest.S -DSEED=$((seed * 2654435761)) -DITERS=$ITERS "${irqs[@]}" ||
		{ fail "fuzz-guest.S (seed $seed) does not build"; continue; }
	for m in user split kernel; do
		n=fuzz-$m-$seed
		timeout 60 $VMM --cpus 2 --irqchip=$m --stats $T/fuzz-$seed.elf >$T/$n.out 2>$T/$n.err
		rc=$?
		seen[$m-$rc]=$(( ${seen[$m-$rc]:-0} + 1 ))
		case $rc in
		33|8|16) ;;
		*)	fail "$n: status $rc (replay: fuzz-guest.S -DSEED=$((seed * 2654435761)) ${irqs[*]}, --irqchip=$m --cpus 2)"
			tail -20 $T/$n.err ;;
		esac
		if grep -qE 'runtime error|AddressSanitizer' $T/$n.err; then
			fail "$n: a sanitizer report"; grep -A15 -E 'runtime error|AddressSanitizer' $T/$n.err | head -30
		fi
	done
done
for m in user split kernel; do
	line="fuzz $m:"
	for rc in 33 8 16; do line="$line status $rc x${seen[$m-$rc]:-0},"; done
	echo "${line%,} of $SEEDS seeds, $ITERS accesses each"
done

for v in cli sti; do
	def=(); [ $v = sti ] && def=(-DSTI)
	build_guest $T storm-$v tests/integration/timer-storm.S "${def[@]}" ||
		{ fail "timer-storm.S ($v) does not build"; continue; }
	timeout 30 $VMM --stats-json $T/storm-$v.json $T/storm-$v.elf >$T/storm-$v.out 2>$T/storm-$v.err
	rc=$?
	[ $rc -eq 33 ] || { fail "timer-storm ($v): status $rc, want 33"; tail $T/storm-$v.err; continue; }
	python3 - $T/storm-$v.json $v <<'PY' || fail "timer-storm ($v): exits"
import json, sys
e = json.load(open(sys.argv[1]))['exits']
r = e['by_reason']
assert r.get('IO', 0) >= 20000, r
print('timer-storm %s: 20000 port writes done, %d exits, %d kicks by the timer' %
      (sys.argv[2], e['total'], r.get('INTR', 0)))
PY
done

[ $fails -eq 0 ] || { echo "vmm-fuzz: $fails failures"; exit 1; }
echo "PASS: vmm-fuzz"
