/* SPDX-License-Identifier: MIT */
/*
 * guest-bench: the kernel's benchmark cases (bench=NAME[,NAME...] or
 * bench=all, iters=N), run by kmain after SMP bring-up and the checks,
 * in phase IRQLAB_PHASE_BENCH.  Each case prints one @bench record, or
 * @bench_skip (docs/RECORDS.md, docs/BENCHMARKS.md "Guest cases").
 */
#ifndef GUEST_BENCH_BENCH_H
#define GUEST_BENCH_BENCH_H

#include <stdint.h>

#include "hw/irqlab.h"

#define BENCH_ITERS_DEFAULT	1000
#define BENCH_ITERS_MAX		65536

/* Vectors of the cases' IPIs: above check=ipi's, below VEC_TIMER_CHECK. */
#define BENCH_VEC_PING		0xd0	/* CPU0 -> target */
#define BENCH_VEC_PONG		0xd1	/* target -> CPU0 */
#define BENCH_VEC_WAKE		0xd2	/* ipi_wake */
#define BENCH_VEC_SELF		0xd3	/* self_ipi, exit_cost.hlt */
#define BENCH_VEC_BCAST		0xd4	/* broadcast.* */
#define BENCH_VEC_TIMER		0xd5	/* timer.*: the LAPIC timer's LVT */

/* ioapic_rotate's entries (case_ioapic.c); 0xd5-0xd7 are left for others */
#define BENCH_VEC_IOAPIC_EDGE	0xd8	/* mode=edge */
#define BENCH_VEC_IOAPIC_LEVEL	0xd9	/* mode=level */

/*
 * A bound on one wait: BENCH_WAIT_MS by the calibrated TSC, and at most
 * BENCH_WAIT_LOOPS PAUSE iterations (the only bound without a TSC rate).
 * Both, because PAUSE can trap: under a hypervisor with pause-loop
 * exiting 10^7 of them took about a minute (QEMU on this host's PVM KVM).
 */
#define BENCH_WAIT_LOOPS	10000000ul
#define BENCH_WAIT_MS		1000u

/* The exit counters around a sample loop (pv present), per operation. */
struct bench_exits {
	int valid;
	struct irqlab_snapshot before, after;
	uint64_t poll_before, poll_after;	/* idle_poll_cycles() */
};

/* Run the cases the command line names; no-op without bench=. */
void bench_run(void);

/* ---- for the cases ---- */
unsigned bench_iters(void);
/* Two sample buffers of BENCH_ITERS_MAX cycles counts each. */
uint64_t *bench_buf(unsigned which);
/* Snapshots right before and after the sample loop. */
void bench_exits_begin(struct bench_exits *e);
void bench_exits_end(struct bench_exits *e);
/* Sums over several loops: zero @sum, then add each loop's pair. */
void bench_exits_zero(struct bench_exits *sum);
void bench_exits_add(struct bench_exits *sum, const struct bench_exits *one);
/*
 * Sort @s (@n samples, cycles) and print @bench for @name; the exit
 * counts of @e (may be NULL) are divided by @n * @ops_per_sample.
 */
void bench_report(const char *name, uint64_t *s, unsigned n,
		  const struct bench_exits *e, unsigned ops_per_sample);
/* The same with @more ("key=value ...", may be NULL) at the end. */
void bench_report_more(const char *name, uint64_t *s, unsigned n,
		       const struct bench_exits *e, unsigned ops_per_sample,
		       const char *more);
void bench_skip(const char *name, const char *reason);
/* Spin until *@p >= @want; 0, or -1 after the bound above. */
int bench_wait(const uint32_t *p, uint32_t want);
/* every other online CPU in its idle HLT, before a window of the BSP's */
void bench_settle_aps(void);
/* The same with @us microseconds (from the 256th spin) for the TSC bound */
int bench_wait_us(const uint32_t *p, uint32_t want, uint64_t us);

/*
 * The APs' side: bench_aps_start(fn, want) makes the APs run @fn and
 * waits until @want of them called bench_ap_enter(); 0, or -1 (then it
 * stops them again).  @fn loops while !bench_ap_stopping() and calls
 * bench_ap_leave() last; bench_aps_stop() ends it and waits for that.
 */
int bench_aps_start(void (*fn)(void), unsigned want);
void bench_aps_stop(void);
void bench_ap_enter(void);
void bench_ap_leave(void);
int bench_ap_stopping(void);

/*
 * tsc_sync.c: CPU0 and AP @cpu compare TSCs; the AP runs tsc_sync_ap()
 * while CPU0 runs tsc_sync_bsp(), after a tsc_sync_reset() before the AP
 * starts.  tsc_sync_bsp prints @tsc_sync and returns 0 (|skew| <=
 * TSC_SKEW_MAX + rtt / 2), 1 (skewed, or rtt > TSC_RTT_MAX) or -1 (the
 * AP did not answer).
 */
#define TSC_SKEW_MAX	2000		/* cycles */
#define TSC_RTT_MAX	500000		/* cycles: ~0.2 ms at 2-3 GHz */
void tsc_sync_reset(void);
void tsc_sync_ap(void);
int tsc_sync_bsp(unsigned cpu, int64_t *skew);

/* The cases (case_*.c): each prints its records. */
void case_ipi_pingpong(void);
void case_ipi_wake(void);
void case_self_ipi(void);
void case_broadcast_shorthand(void);
void case_broadcast_unicast(void);
void case_broadcast_multicast(void);
void case_exit_cpuid(void);
void case_exit_pio(void);
void case_exit_apic_read(void);
void case_exit_mmio(void);
void case_exit_hlt(void);
void case_timer(void);	/* timer.oneshot, timer.tsc_deadline */
void case_futex_wake(void);
void case_ioapic_rotate(void);	/* ioapic_rotate.edge, .read; case_ioapic.c */

#endif
