// SPDX-License-Identifier: MIT
/*
 * broadcast.shorthand and broadcast.unicast, TLB-shootdown style: CPU0
 * interrupts every other online CPU (each spinning with interrupts on)
 * and waits until every handler acknowledged.  The shorthand case is one
 * ICR write with destination "all excluding self" (SDM 11.6.1); the
 * unicast one is an ICR write per target; the multicast one names the
 * set (lapic_send_mask): one paravirtual send where the hypervisor offers
 * it (pv_ipi.h), else an ICR write per target.  A sample is one broadcast.
 */
#include <stdint.h>

#include "bench.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "smp/smp.h"
#include "arch/x86.h"

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

enum bcast_how { BCAST_SHORTHAND, BCAST_UNICAST, BCAST_MULTICAST };

static void send(enum bcast_how how)
{
	uint64_t mask[NR_CPUS / 64] = { 0 };
	unsigned t;

	if (how == BCAST_SHORTHAND) {
		lapic_send_others(BENCH_VEC_BCAST);
		return;
	}
	for (t = 1; t < NR_CPUS; t++) {
		if (!__atomic_load_n(&cpus[t].online, __ATOMIC_ACQUIRE))
			continue;
		if (how == BCAST_UNICAST)
			lapic_send_ipi(cpus[t].apic_id, BENCH_VEC_BCAST);
		else
			mask[t / 64] |= 1ull << (t % 64);
	}
	if (how == BCAST_MULTICAST)
		lapic_send_mask(mask, BENCH_VEC_BCAST);
}

static void broadcast(const char *name, enum bcast_how how)
{
	unsigned i, n = bench_iters(), others = smp_nr_online() - 1;
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
		send(how);
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
	broadcast("broadcast.shorthand", BCAST_SHORTHAND);
}

void case_broadcast_unicast(void)
{
	broadcast("broadcast.unicast", BCAST_UNICAST);
}

void case_broadcast_multicast(void)
{
	broadcast("broadcast.multicast", BCAST_MULTICAST);
}
