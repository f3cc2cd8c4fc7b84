// SPDX-License-Identifier: MIT
/*
 * ipi_pingpong and self_ipi: fixed IPIs between spinning CPUs, timed
 * with CPU0's TSC only.
 *
 * ipi_pingpong: CPU0 sends BENCH_VEC_PING to CPU1, which spins with
 * interrupts on; CPU1's handler answers with BENCH_VEC_PONG to CPU0,
 * which also spins with interrupts on.  A sample is half the round trip,
 * so the exit counts are divided by 2n: per one-way IPI.
 *
 * self_ipi: CPU0 sends itself BENCH_VEC_SELF with interrupts on; a
 * sample ends when its handler ran (SDM 11.6.1: destination shorthand
 * "self").
 */
#include <stdint.h>

#include "bench.h"
#include "arch/halt.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "smp/smp.h"
#include "arch/x86.h"

static uint32_t pongs, selfs;

static void ping_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_send_ipi(cpus[0].apic_id, BENCH_VEC_PONG);
	lapic_eoi();
}

static void pong_handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&pongs, 1, __ATOMIC_RELEASE);
	lapic_eoi();
}

static void self_handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&selfs, 1, __ATOMIC_RELEASE);
	lapic_eoi();
}

/* CPU1: spin with interrupts on (the idle loop runs us with IF = 1). */
static void responder(void)
{
	if (this_cpu()->index != 1)
		return;
	bench_ap_enter();
	while (!bench_ap_stopping())
		cpu_relax();
	bench_ap_leave();
}

void case_ipi_pingpong(void)
{
	const char *name = "ipi_pingpong";
	uint64_t *s = bench_buf(0), t0;
	unsigned i, n = bench_iters();
	struct bench_exits e;
	uint32_t want;

	if (lapic_mode() == LAPIC_NONE || !cpus[1].online) {
		bench_skip(name, lapic_mode() == LAPIC_NONE ? "no-apic" :
			   "one-cpu");
		return;
	}
	idt_set_handler(BENCH_VEC_PING, ping_handler);
	idt_set_handler(BENCH_VEC_PONG, pong_handler);
	if (bench_aps_start(responder, 1)) {
		bench_skip(name, "ap-timeout");
		return;
	}
	sti();
	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		want = __atomic_load_n(&pongs, __ATOMIC_ACQUIRE) + 1;
		t0 = rdtsc();
		lapic_send_ipi(cpus[1].apic_id, BENCH_VEC_PING);
		if (bench_wait(&pongs, want))
			break;
		s[i] = (rdtsc() - t0) / 2;
	}
	bench_exits_end(&e);
	cli();
	bench_aps_stop();
	if (i < n)
		bench_skip(name, "timeout");
	else
		bench_report(name, s, n, &e, 2);
}

static int self_once(uint64_t *out)
{
	uint32_t want = __atomic_load_n(&selfs, __ATOMIC_ACQUIRE) + 1;
	uint64_t t0 = rdtsc();

	lapic_send_self(BENCH_VEC_SELF);
	if (bench_wait(&selfs, want))
		return -1;
	*out = rdtsc() - t0;
	return 0;
}

void case_self_ipi(void)
{
	const char *name = "self_ipi";
	uint64_t *s = bench_buf(0);
	unsigned i, n = bench_iters();
	struct bench_exits e;

	if (lapic_mode() == LAPIC_NONE) {
		bench_skip(name, "no-apic");
		return;
	}
	idt_set_handler(BENCH_VEC_SELF, self_handler);
	sti();
	bench_exits_begin(&e);
	for (i = 0; i < n && !self_once(&s[i]); i++)
		;
	bench_exits_end(&e);
	cli();
	if (i < n)
		bench_skip(name, "timeout");
	else
		bench_report(name, s, n, &e, 1);
}

/*
 * exit_cost.hlt: with IF = 0, send a self IPI (it waits in IRR), then
 * STI; HLT.  STI's one-instruction shadow lets HLT run (SDM vol. 2B,
 * STI), and the pending interrupt ends it at once (SDM vol. 3 8.10.2's
 * wake events): a sample is HLT plus taking the interrupt.
 */
void case_exit_hlt(void)
{
	const char *name = "exit_cost.hlt";
	uint64_t *s = bench_buf(0), t0;
	unsigned i, n = bench_iters();
	struct bench_exits e;
	uint32_t want;

	if (lapic_mode() == LAPIC_NONE) {
		bench_skip(name, "no-apic");
		return;
	}
	idt_set_handler(BENCH_VEC_SELF, self_handler);
	/* the counters are the whole VM's: the other CPUs' HLTs go first */
	bench_settle_aps();
	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		want = __atomic_load_n(&selfs, __ATOMIC_ACQUIRE) + 1;
		lapic_send_self(BENCH_VEC_SELF);
		t0 = rdtsc();
		sti_hlt();
		cli();
		s[i] = rdtsc() - t0;
		if (__atomic_load_n(&selfs, __ATOMIC_ACQUIRE) < want)
			break;
	}
	bench_exits_end(&e);
	if (i < n)
		bench_skip(name, "no-interrupt");
	else
		bench_report(name, s, n, &e, 1);
}
