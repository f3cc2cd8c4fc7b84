#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Boot the irqlab kernel under QEMU TCG and check its records
# (docs/RECORDS.md): a plain boot, a 2-CPU boot (fw_cfg CPU count), and a
# deliberate #UD (crash=ud) for the @panic path.
#
# Integration test conventions: run from the repo root; exit 0 = pass,
# 77 = skip (after "SKIP: <reason>"), anything else = fail ("FAIL: ...").
set -u

QEMU=${QEMU:-qemu-system-x86_64}
KERNEL=build/kernel/irqlab32.elf
OUT=build/tests/integration/qemu-tcg-boot

if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "SKIP: $QEMU is not installed"
	exit 77
fi
if ! command -v timeout >/dev/null 2>&1; then
	echo "SKIP: timeout(1) is not installed"
	exit 77
fi
if [ ! -f "$KERNEL" ]; then
	echo "FAIL: $KERNEL is missing (make build/kernel/irqlab32.elf)"
	exit 1
fi
mkdir -p "$OUT" || { echo "FAIL: cannot create $OUT"; exit 1; }

failed=0
name=
status=

# boot NAME QEMU-ARGS...: serial output in $OUT/NAME.log (CRs dropped),
# QEMU's own messages in $OUT/NAME.err, exit status in $status.
boot() {
	name=$1
	shift
	timeout 60 "$QEMU" -accel tcg -m 64 -kernel "$KERNEL" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-serial stdio -display none -no-reboot -nodefaults "$@" \
		</dev/null >"$OUT/$name.raw" 2>"$OUT/$name.err"
	status=$?
	tr -d '\r' <"$OUT/$name.raw" >"$OUT/$name.log"
}

fail() {
	echo "FAIL: $name: $*"
	if [ "$failed" != "$name" ]; then
		echo "---- $OUT/$name.log ----"
		cat "$OUT/$name.log"
		echo "---- $OUT/$name.err ----"
		cat "$OUT/$name.err"
		echo "----"
	fi
	failed=$name
}

# expect_line ERE WHAT: some whole line of the output matches ERE
expect_line() {
	grep -Eq -- "^($1)\$" "$OUT/$name.log" || fail "no $2 line"
}

reject_line() {
	! grep -Eq -- "^($1)\$" "$OUT/$name.log" || fail "unexpected $2 line"
}

# QEMU's isa-debug-exit turns the kernel's status V into (V << 1) | 1.
expect_status() {
	if [ "$status" = 124 ]; then
		fail "timed out after 60 s"
	elif [ "$status" != "$1" ]; then
		fail "QEMU exit status $status, want $1 ($2)"
	fi
}

HEX='0x[0-9a-f]+'
CPUID="@cpuid vendor=[^ ]+ family=$HEX model=$HEX stepping=[0-9]+"
CPUID="$CPUID max_basic=$HEX max_ext=$HEX hv=(TCGTCGTCGTCG|none)"
BOOT='@boot proto=mb1 hv=(TCGTCGTCGTCG|none) pv=0 mem_kb=[0-9]+ mmap=[0-9]+'
BOOT="$BOOT mods=0 fwcfg_cpus=%d argc=3"

boot plain -append "hello world"
expect_status 1 "kernel exit status 0"
expect_line 'irqlab kernel [^ ]+' "banner"
expect_line "$CPUID" "@cpuid"
# shellcheck disable=SC2059
expect_line "$(printf "$BOOT" 1)" "@boot (1 CPU)"
expect_line '@ready tsc=[0-9]+' "@ready"
reject_line '@panic.*' "@panic"

boot smp2 -smp 2 -append "hello world"
expect_status 1 "kernel exit status 0"
# shellcheck disable=SC2059
expect_line "$(printf "$BOOT" 2)" "@boot with fwcfg_cpus=2"
expect_line '@ready tsc=[0-9]+' "@ready"

boot crash-ud -append "crash=ud"
expect_status 99 "kernel panic status 0x31"
expect_line "@panic vector=6 name=#UD error=0x0 rip=$HEX cr2=$HEX rsp=$HEX" \
	"@panic for #UD"
reject_line '@ready.*' "@ready"

if [ "$failed" != 0 ]; then
	exit 1
fi
echo "PASS: qemu-tcg-boot (plain, smp2, crash-ud)"
exit 0
