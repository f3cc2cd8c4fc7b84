// SPDX-License-Identifier: MIT
/*
 * timer.oneshot and timer.tsc_deadline: how late the local APIC timer
 * fires (SDM 11.5.4).  CPU0 arms the timer TIMER_DELAY_US ahead and waits
 * in STI; HLT, as an idle kernel waits for its next tick, so a VMM must
 * wake the halted vCPU from its own host timer.  The handler reads the
 * TSC first thing; a sample is that TSC minus the deadline, in TSC cycles
 * (bench_report converts them to ns with @calib's tsc_khz).
 *
 *   oneshot       TDCR divide by 1, LVT one-shot, TMICT = the delay in
 *                 APIC ticks (@calib's lapic_khz).  The deadline is the
 *                 TSC read right before the TMICT write plus the delay in
 *                 TSC cycles: the write's own exit, if any, counts as
 *                 lateness (the timer may only start once it lands).
 *   tsc_deadline  CPUID.1:ECX[24]; LVT in TSC-deadline mode, then
 *                 IA32_TSC_DEADLINE = now + the delay (SDM 11.5.4.1): the
 *                 deadline is the MSR value itself.
 *
 * A fire before the deadline would break the SDM's promise: such samples
 * are counted (a human line says how many) and recorded as 0.
 */
#include <stdint.h>

#include "bench.h"
#include "sys/calib_hw.h"
#include "arch/halt.h"
#include "hw/apic.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lib/printf.h"
#include "arch/x86.h"

#define TIMER_DELAY_US		100
#define TDCR_DIV1		0xb		/* SDM figure 11-10: 1011b */
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)

static volatile uint32_t fired;
static volatile uint64_t fired_tsc;

static void timer_handler(struct trap_frame *tf)
{
	fired_tsc = rdtsc();
	(void)tf;
	fired++;
	lapic_eoi();
}

/* STI; HLT until the timer interrupt came (HLT resumes after any other). */
static void wait_fire(uint32_t want)
{
	while (fired < want) {
		sti_hlt();
		cli();
	}
}

/* One sample: the lateness of a fire against @deadline, or 0 if early. */
static uint64_t late(uint64_t deadline, unsigned *early)
{
	if (fired_tsc < deadline) {
		(*early)++;
		return 0;
	}
	return fired_tsc - deadline;
}

static void run(const char *name, int tscdl, uint64_t delay_tsc,
		uint32_t delay_apic)
{
	uint64_t *s = bench_buf(0), t0;
	unsigned i, n = bench_iters(), early = 0;
	struct bench_exits e;

	fired = 0;
	if (tscdl) {
		lapic_write(APIC_LVT_TIMER, APIC_TIMER_TSCDEADLINE |
			    BENCH_VEC_TIMER);
		/* SDM 11.5.4.1: order the LVT write before the WRMSR */
		asm volatile("mfence" : : : "memory");
	} else {
		lapic_write(APIC_TDCR, TDCR_DIV1);
		lapic_write(APIC_LVT_TIMER, APIC_TIMER_ONESHOT |
			    BENCH_VEC_TIMER);
	}
	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		t0 = rdtsc() + delay_tsc;
		if (tscdl)
			wrmsr(MSR_IA32_TSC_DEADLINE, t0);
		else
			lapic_write(APIC_TMICT, delay_apic);
		wait_fire(i + 1);
		s[i] = late(t0, &early);
	}
	bench_exits_end(&e);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	if (early)
		kprintf("bench: %s: %u of %u fired before the deadline "
			"(counted as 0)\n", name, early, n);
	bench_report(name, s, n, &e, 1);
}

void case_timer(void)
{
	uint64_t tsc_khz = calib_tsc_khz(), apic_khz = calib_lapic_khz();
	uint64_t delay_tsc = tsc_khz * TIMER_DELAY_US / 1000;
	uint32_t r[4];

	if (lapic_mode() == LAPIC_NONE) {
		bench_skip("timer.oneshot", "no-apic");
		bench_skip("timer.tsc_deadline", "no-apic");
		return;
	}
	idt_set_handler(BENCH_VEC_TIMER, timer_handler);
	if (!tsc_khz || !apic_khz)
		bench_skip("timer.oneshot", "no-calib");
	else
		run("timer.oneshot", 0, delay_tsc,
		    (uint32_t)(apic_khz * TIMER_DELAY_US / 1000));
	cpuid(1, 0, r);
	if (!(r[2] & CPUID_1_ECX_TSC_DEADLINE))
		bench_skip("timer.tsc_deadline", "no-tsc-deadline");
	else if (!tsc_khz)
		bench_skip("timer.tsc_deadline", "no-calib");
	else
		run("timer.tsc_deadline", 1, delay_tsc, 0);
}
