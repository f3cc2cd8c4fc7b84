#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Boot the irqlab kernel under QEMU TCG on several CPUs and check the SMP
# records (docs/RECORDS.md): every AP online (@smp), and check=ipi's
# counts exact (@ipi_check): 4 CPUs, 1 CPU, and apic=x2apic on 2 CPUs;
# check=timer's LAPIC timer modes on 4 CPUs
# (QEMU 7.2 TCG has no x2APIC: the kernel must warn and use xAPIC).
#
# Integration test conventions: run from the repo root; exit 0 = pass,
# 77 = skip (after "SKIP: <reason>"), anything else = fail ("FAIL: ...").
set -u

OUT=build/tests/integration/qemu-tcg-smp
QEMU_TIMEOUT=120
# shellcheck source=qemu-lib.bash
. "$(dirname "$0")/qemu-lib.bash"

# expect_count N ERE WHAT: exactly N whole lines match ERE
expect_count() {
	local n

	n=$(grep -Ec -- "^($2)\$" "$OUT/$name.log")
	[ "$n" = "$1" ] || fail "$n $3 lines, want $1"
}

# ipi_sent N K: what @ipi_check must count on N CPUs: each sends K to each
# of the N-1 others, K to itself, and K broadcasts that reach N-1 CPUs.
ipi_sent() {
	echo $(($1 * $2 * (2 * ($1 - 1) + 1)))
}

# check_ipi N K: @ipi_check exact for N CPUs and K, the kernel went on
check_ipi() {
	local s

	s=$(ipi_sent "$1" "$2")
	expect_line "@ipi_check sent=$s received=$s lost=0 dup=0 cpus=$1 k=$2 \
stalls=0 tsc=[0-9]+" "exact @ipi_check for $1 CPUs, k=$2"
	expect_line '@ready tsc=[0-9]+' "@ready"
	reject_line '@panic.*' "@panic"
	expect_status 1 "kernel exit status 0"
}

boot smp4-ipi -smp 4 -append "check=ipi,timer"
expect_line '@smp online=4 apic=(xapic|x2apic) cpus=4 bsp=0 source=acpi' \
	"@smp with 4 CPUs online"
expect_count 3 'smp: cpu [1-3] online, APIC ID [1-3]' "AP online"
check_ipi 4 100
# QEMU TCG's LAPIC offers no TSC-deadline mode without -cpu flags for it
expect_line '@timer_check oneshot=ok periodic=10 tsc_deadline=(ok|absent) early=0 irqs=[0-9]+ stale=[0-9]+' \
	"check=timer: one-shot, periodic and TSC-deadline"

boot smp1-ipi -smp 1 -append "check=ipi"
expect_line '@smp online=1 apic=(xapic|x2apic) cpus=1 bsp=0 source=acpi' \
	"@smp with 1 CPU"
reject_line 'smp: cpu .*' "AP"
check_ipi 1 100

boot smp2-x2apic -smp 2 -append "check=ipi apic=x2apic ipi_k=10"
if grep -q '^@smp .*apic=xapic' "$OUT/$name.log"; then
	expect_line 'lapic: warning: apic=x2apic, but CPUID.1:ECX.21. .*' \
		"warning for apic=x2apic without x2APIC"
fi
expect_line '@smp online=2 apic=(xapic|x2apic) cpus=2 bsp=0 source=acpi' \
	"@smp with 2 CPUs online"
check_ipi 2 10

if [ "$failed" != 0 ]; then
	exit 1
fi
echo "PASS: qemu-tcg-smp (smp4-ipi, smp1-ipi, smp2-x2apic)"
exit 0
