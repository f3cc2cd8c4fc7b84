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

OUT=build/tests/integration/qemu-tcg-boot
QEMU_TIMEOUT=60
# shellcheck source=qemu-lib.bash
. "$(dirname "$0")/qemu-lib.bash"

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
