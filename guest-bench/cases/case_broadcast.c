// SPDX-License-Identifier: MIT
/*
 * broadcast.shorthand and broadcast.unicast, TLB-shootdown style: CPU0
 * interrupts every other online CPU (each spinning with interrupts on)
 * and waits until every handler acknowledged.  The shorthand case is one
 * ICR write with destination "all excluding self" (SDM 11.6.1); the
 * unicast one is an ICR write per target.  A sample is one broadcast.
 */
#include <stdint.h>

#include "bench.h"
#include "idt.h"
#include "lapic.h"
#include "smp.h"
#include "x86.h"

static uint32_t acks;

static void bcast_handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&acks, 1, __ATOMIC_RELEASE);
	lapic_eoi();
}

static void spinner(void)
{
	bench_ap_enter();
	while (!bench_ap_stopping())
		cpu_relax();
	bench_ap_leave();
}

static void broadcast(const char *name, int shorthand)
{
	unsigned i, t, n = bench_iters(), others = smp_nr_online() - 1;
	uint64_t *s = bench_buf(0), t0;
	struct bench_exits e;
	uint32_t want;

	if (lapic_mode() == LAPIC_NONE || !others) {
		bench_skip(name, lapic_mode() == LAPIC_NONE ? "no-apic" :
			   "one-cpu");
		return;
	}
	idt_set_handler(BENCH_VEC_BCAST, bcast_handler);
	if (bench_aps_start(spinner, others)) {
		bench_skip(name, "ap-timeout");
		return;
	}
	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		want = __atomic_load_n(&acks, __ATOMIC_ACQUIRE) + others;
		t0 = rdtsc();
		if (shorthand) {
			lapic_send_others(BENCH_VEC_BCAST);
		} else {
			for (t = 1; t < NR_CPUS; t++)
				if (__atomic_load_n(&cpus[t].online,
						    __ATOMIC_ACQUIRE))
					lapic_send_ipi(cpus[t].apic_id,
						       BENCH_VEC_BCAST);
		}
		if (bench_wait(&acks, want))
			break;
		s[i] = rdtsc() - t0;
	}
	bench_exits_end(&e);
	bench_aps_stop();
	if (i < n)
		bench_skip(name, "timeout");
	else
		bench_report(name, s, n, &e, 1);
}

void case_broadcast_shorthand(void)
{
	broadcast("broadcast.shorthand", 1);
}

void case_broadcast_unicast(void)
{
	broadcast("broadcast.unicast", 0);
}
