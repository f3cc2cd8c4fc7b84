#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The boot benchmark's part inside the nested guest (runner/bootbench.py
# copies it into build/bench/guest.sh after the lines that set RUNS,
# QEMU_ARGS, CPU_CANDIDATES, VMM_KERNEL and TI).  It is sh, not Python:
# the guest's busybox initramfs has no python3.  Its lines on stdout are
# the protocol bootbench.py reads: @guest, @qemu_cpu_try, @qemu_cpu,
# @skip, @run, @vmmjson, @timeout, @diag, @error, @output, @out, @err.
T=/sys/kernel/tracing
fail=0
# the rig's /init mounts it already (tests/nested/init)
[ -d $T/events ] || mount -t tracefs nodev $T ||
	{ echo "@error cannot mount tracefs"; exit 1; }
echo 0 >$T/tracing_on
echo 32768 >$T/buffer_size_kb
echo 1 >$T/events/kvm/kvm_userspace_exit/enable || { echo "@error no kvm_userspace_exit"; exit 1; }
echo "@guest uname=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) npt=$(cat /sys/module/kvm_amd/parameters/npt) nested=$(cat /sys/module/kvm_amd/parameters/nested) avic=$(cat /sys/module/kvm_amd/parameters/avic) buffer_size_kb=$(cat $T/buffer_size_kb)"
echo "@guest_cpu $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "@qemu_version $(qemu-system-x86_64 --version | head -1)"

# The -cpu model QEMU/KVM starts with on this KVM (scripts/qemu-kvm-cpu's
# rule): @ready, and status 1 (the kernel's 0 through isa-debug-exit).
QEMU_CPU=
for m in $CPU_CANDIDATES; do
	timeout -s KILL 60 qemu-system-x86_64 -cpu $m $QEMU_ARGS </dev/null >/tmp/probe.out 2>/tmp/probe.err
	rc=$?
	ready=$(grep -c '^@ready' /tmp/probe.out)
	echo "@qemu_cpu_try $m status=$rc ready=$ready $(grep -m1 . /tmp/probe.err)"
	if [ $rc = 1 ] && [ "$ready" != 0 ]; then
		QEMU_CPU=$m
		break
	fi
done
if [ -z "$QEMU_CPU" ]; then
	echo "@skip QEMU/KVM starts with no CPU model in the guest (tried: $CPU_CANDIDATES)"
	exit 77
fi
echo "@qemu_cpu $QEMU_CPU"

# run KIND MODE INDEX [timeit options]: one run of irqlab-vmm or QEMU
run() {
	kind=$1 mode=$2 i=$3
	shift 3
	case $kind in
	vmm) set -- "$@" -o /tmp/vmm.out -e /tmp/vmm.err -- \
		irqlab-vmm --stats-json /tmp/vmm.json $VMM_KERNEL ;;
	qemu) set -- "$@" -o /tmp/qemu.out -e /tmp/qemu.err -- \
		qemu-system-x86_64 -cpu $QEMU_CPU $QEMU_ARGS ;;
	esac
	# A run that has not ended after 60 s is stuck (they take ~0.1 and
	# ~2 s): timeit prints where its threads are, kills it, and it is run
	# again, once.
	for attempt in 1 2; do
		rm -f /tmp/vmm.json
		line=$($TI -n 1 -t 60 "$@" 2>/tmp/diag) || { echo "@error timeit failed"; fail=1; }
		sed "s/^/@diag $kind $mode $i $attempt /" /tmp/diag
		case $line in
		*'"timeout":1'*)
			echo "@timeout $kind $mode $i $attempt $line"
			[ "$mode" = traced ] && tail -5 $T/trace | sed "s/^/@diag $kind $mode $i $attempt trace: /"
			continue ;;
		esac
		echo "@run $kind $mode $i $line"
		[ -f /tmp/vmm.json ] && echo "@vmmjson $mode $i $(cat /tmp/vmm.json)"
		return
	done
	fail=1
}

# Warm-up, then interleaved: timed with the tracepoint off, then counted
# with it on.
run vmm warmup 0
run qemu warmup 0
i=1
while [ $i -le $RUNS ]; do
	run vmm plain $i
	run qemu plain $i
	i=$((i + 1))
done
echo 1 >$T/tracing_on
i=1
while [ $i -le $RUNS ]; do
	run vmm traced $i -T $T
	run qemu traced $i -T $T
	i=$((i + 1))
done
echo 0 >$T/tracing_on
for k in vmm qemu; do
	echo "@output $k $(wc -l </tmp/$k.out) lines"
	sed "s/^/@out $k /" /tmp/$k.out
	sed "s/^/@err $k /" /tmp/$k.err
done
exit $fail
