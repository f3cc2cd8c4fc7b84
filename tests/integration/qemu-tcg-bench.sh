#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Boot the irqlab kernel under QEMU TCG on 2 CPUs with bench=all iters=50
# and check that every guest-bench case (docs/BENCHMARKS.md "Guest
# cases") printed one well-formed @bench record (n=50, min <= p50 <= p99
# <= max, the _ns fields when @calib found the TSC frequency) or an
# @bench_skip with a reason; and @tsc_sync before ipi_wake.  Outcomes
# only: no timing is checked.
#
# Integration test conventions: run from the repo root; exit 0 = pass,
# 77 = skip (after "SKIP: <reason>"), anything else = fail ("FAIL: ...").
set -u

OUT=build/tests/integration/qemu-tcg-bench
QEMU_TIMEOUT=120
# shellcheck source=qemu-lib.bash
. "$(dirname "$0")/qemu-lib.bash"

CASES="ipi_pingpong ipi_wake ipi_wake.send self_ipi broadcast.shorthand
broadcast.unicast exit_cost.cpuid exit_cost.pio exit_cost.apic_read
exit_cost.mmio exit_cost.hlt timer.oneshot timer.tsc_deadline futex_wake"
N=50
# futex_wake's samples: one per woken thread, 4 threads (the default) in
# each of its 10 runs, whatever iters= says
N_FUTEX=40

# field LINE KEY: the value of KEY=... in LINE
field() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

# check_case CASE: one @bench (sane) or one explained @bench_skip
check_case() {
	local c=$1 re line k v prev n=$N
	local stat='min_cyc=[0-9]+ p50_cyc=[0-9]+ p90_cyc=[0-9]+ p99_cyc=[0-9]+ max_cyc=[0-9]+ mean_cyc=[0-9]+'

	[ "$c" = futex_wake ] && n=$N_FUTEX
	re="@bench case=${c//./\\.} cpus=2 apic=(xapic|x2apic) n=$n $stat"
	re="$re( min_ns=[0-9]+ p50_ns=[0-9]+ p90_ns=[0-9]+ p99_ns=[0-9]+ max_ns=[0-9]+ mean_ns=[0-9]+)?"
	if grep -Eq "^@bench_skip case=${c//./\\.} reason=[a-z0-9-]+\$" \
		"$OUT/$name.log"; then
		echo "note: $c skipped: $(grep "^@bench_skip case=$c " \
			"$OUT/$name.log")"
		return
	fi
	[ "$(grep -Ec "^@bench case=${c//./\\.} " "$OUT/$name.log")" = 1 ] ||
		{ fail "not exactly one @bench for $c"; return; }
	line=$(grep -E "^@bench case=${c//./\\.} " "$OUT/$name.log")
	grep -Eq "^($re)\$" <<<"$line" || { fail "malformed: $line"; return; }
	# TCG: no irqlab protocol, so no exit counts
	grep -q exits_per_op <<<"$line" && fail "exit counts without irqlab: $line"
	prev=0
	for k in min p50 p90 p99 max; do
		v=$(field "$line" ${k}_cyc)
		[ "$v" -ge "$prev" ] || fail "$c: ${k}_cyc=$v below $prev"
		prev=$v
	done
	v=$(field "$line" mean_cyc)
	[ "$v" -ge "$(field "$line" min_cyc)" ] &&
		[ "$v" -le "$(field "$line" max_cyc)" ] ||
		fail "$c: mean_cyc=$v outside [min, max]"
}

boot bench2 -smp 2 -append "bench=all iters=$N"
for c in $CASES; do
	check_case "$c"
done
expect_line '@tsc_sync cpus=0,1 skew_cyc=-?[0-9]+ ok=[01] rtt_cyc=[0-9]+' "@tsc_sync"
# futex_wake's perf-style lines, whether or not its @bench was skipped
expect_line '\[Run 10\]: Wokeup 4 of 4 threads in [0-9]+\.[0-9]{4} ms' "futex_wake run"
expect_line 'Wokeup 4 of 4 threads in [0-9]+\.[0-9]{4} ms \(\+-[0-9]+\.[0-9]{2}%\)' "futex_wake summary"
reject_line '@bench_skip case=.* reason=unknown' "unknown case"
expect_line '@ready tsc=[0-9]+' "@ready"
reject_line '@panic.*' "@panic"
expect_status 1 "kernel exit status 0"

# one CPU: the cross-CPU cases skip with a reason, an unknown name says so
boot bench1 -smp 1 -append "bench=ipi_pingpong,ipi_wake,broadcast.unicast,futex_wake,self_ipi,bogus iters=5"
for c in ipi_pingpong ipi_wake broadcast.unicast futex_wake; do
	expect_line "@bench_skip case=${c//./\\.} reason=one-cpu" "$c skip"
done
expect_line '@bench case=self_ipi cpus=1 apic=xapic n=5 .*' "self_ipi on 1 CPU"
expect_line '@bench_skip case=bogus reason=unknown' "unknown case skip"
expect_status 1 "kernel exit status 0"

if [ "$failed" != 0 ]; then
	exit 1
fi
echo "PASS: qemu-tcg-bench (bench2, bench1)"
exit 0
