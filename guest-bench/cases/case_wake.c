// SPDX-License-Identifier: MIT
/*
 * ipi_wake, the futex-wake analogue at the APIC level.  CPU1 waits in
 * STI; HLT.  CPU0 writes its TSC into send_tsc and sends BENCH_VEC_WAKE;
 * CPU1's handler reads its own TSC first thing.  Latency = wake TSC -
 * send TSC, which is only meaningful if the two TSCs agree: a sync
 * check first measures their skew (@tsc_sync, tsc_sync.c) and the case
 * refuses to report above TSC_SKEW_MAX.  The sender's cost of the send
 * (the TSC around lapic_send_ipi) is the separate record ipi_wake.send.
 *
 * The exit counts of the window are exact: n sends, n EOIs and n HLTs,
 * however the two CPUs' timing falls.
 */
#include <stdint.h>

#include "bench.h"
#include "sys/calib_hw.h"
#include "smp/idle.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

static uint64_t send_tsc;	/* CPU0's TSC right before the send */
static uint32_t wakes, idles, go, n_wakes;
static unsigned negative;	/* wake TSC before send TSC */

static void wake_handler(struct trap_frame *tf)
{
	/* LAB ipi-bench: begin
	 * CPU1's handler of BENCH_VEC_WAKE.  The sample: the TSC at the
	 * handler's start less send_tsc, CPU0's TSC right before the send
	 * (0, counted in @negative, if the TSCs disagree that way), in
	 * bench_buf(0)[wakes] while under BENCH_ITERS_MAX.  It EOIs
	 * (lapic_eoi(), SDM 11.8.5) and counts the wake in @wakes, which
	 * CPU0 waits on; CPU0 reads the exit counters as soon as it sees the
	 * last wake, and they must hold every EOI of the window.
	 * stub: (void)tf;
	 * stub: (void)send_tsc;
	 */
	uint64_t t = rdtsc();
	uint64_t s = __atomic_load_n(&send_tsc, __ATOMIC_ACQUIRE);
	uint32_t i = __atomic_load_n(&wakes, __ATOMIC_RELAXED);

	(void)tf;
	if (i < BENCH_ITERS_MAX) {
		if ((int64_t)(t - s) < 0)
			negative++;
		bench_buf(0)[i] = (int64_t)(t - s) < 0 ? 0 : t - s;
	}
	lapic_eoi();
	__atomic_store_n(&wakes, i + 1, __ATOMIC_RELEASE);
	/* LAB ipi-bench: end */
}

/* CPU1: the sync check, then STI; HLT until stopped, saying when. */
static void target(void)
{
	if (this_cpu()->index != 1)
		return;
	bench_ap_enter();
	tsc_sync_ap();
	while (!bench_ap_stopping()) {
		if (!__atomic_load_n(&go, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&wakes, __ATOMIC_ACQUIRE) >= n_wakes) {
			cpu_relax();
			continue;
		}
		cli();
		__atomic_fetch_add(&idles, 1, __ATOMIC_RELEASE);
		/* the interrupt comes only once HLT runs (STI shadow), or
		 * during idle.c's poll with haltpoll= */
		idle_wait(NULL, NULL);
	}
	bench_ap_leave();
}

/* LAB ipi-bench: begin
 * wake_loop(): CPU0's side, @n wakes of CPU1 (target(), below) between
 * bench_exits_begin(@e) and bench_exits_end(@e), whose difference must
 * be irqlab-vmm's counters for exactly n sends, n EOIs and n HLTs.
 * target() halts only once @go is set and counts each idle in @idles.
 * For each wake: CPU1 must be in its HLT when the IPI comes (what tells
 * you it is about to halt, and how long may the rest take?); send_tsc
 * holds the TSC right before the send of BENCH_VEC_WAKE to
 * cpus[1].apic_id (lapic_send_ipi()), and bench_buf(1)[i] the send's
 * own cost.  A wait that times out (bench_wait()) ends the loop:
 * return -1.  Graded by the ipi_wake record (p50, p99) and its exits
 * per wake against irqlab-vmm's own counters (--stats-json).
 * stub: static int wake_loop(unsigned n, struct bench_exits *e)
 * stub: {
 * stub: 	(void)n;
 * stub: 	(void)e;
 * stub: 	return -1;
 * stub: }
 */
/* Spin @cyc cycles: time for CPU1 to get from its flag into HLT. */
static void settle(uint64_t cyc)
{
	uint64_t t0 = rdtsc();

	while (rdtsc() - t0 < cyc)
		cpu_relax();
}

static int wake_loop(unsigned n, struct bench_exits *e)
{
	uint64_t *cost = bench_buf(1), t0, khz = calib_tsc_khz();
	uint64_t wait = khz ? khz / 10 : 200000;	/* 100 us */
	unsigned i;

	bench_exits_begin(e);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		if (bench_wait(&idles, i + 1))
			break;
		settle(wait);
		t0 = rdtsc();
		__atomic_store_n(&send_tsc, t0, __ATOMIC_RELEASE);
		lapic_send_ipi(cpus[1].apic_id, BENCH_VEC_WAKE);
		cost[i] = rdtsc() - t0;
		if (bench_wait(&wakes, i + 1))
			break;
	}
	bench_exits_end(e);
	return i < n ? -1 : 0;
}
/* LAB ipi-bench: end */

/* ipi_wake.send comes from ipi_wake's loop: it skips with it */
static void skip(const char *reason)
{
	bench_skip("ipi_wake", reason);
	bench_skip("ipi_wake.send", reason);
}

void case_ipi_wake(void)
{
	unsigned n = bench_iters();
	struct bench_exits e;
	int64_t skew;
	int ok;

	if (lapic_mode() == LAPIC_NONE || !cpus[1].online) {
		skip(lapic_mode() == LAPIC_NONE ? "no-apic" :
			   "one-cpu");
		return;
	}
	idt_set_handler(BENCH_VEC_WAKE, wake_handler);
	wakes = idles = negative = go = 0;
	n_wakes = n;
	tsc_sync_reset();
	if (bench_aps_start(target, 1)) {
		skip("ap-timeout");
		return;
	}
	ok = tsc_sync_bsp(1, &skew);
	if (ok) {
		bench_aps_stop();
		skip(ok < 0 ? "tsc-sync-timeout" : "tsc-skew");
		return;
	}
	ok = !wake_loop(n, &e);
	bench_aps_stop();
	if (!ok) {
		skip("timeout");
		return;
	}
	if (negative)
		kprintf("bench: ipi_wake: %u wakes read a TSC before the "
			"send's (counted as 0)\n", negative);
	bench_report("ipi_wake", bench_buf(0), n, &e, 1);
	bench_report("ipi_wake.send", bench_buf(1), n, &e, 1);
}
