// SPDX-License-Identifier: MIT
/*
 * check=lapic, part "timer" (lapic_check.h): what check=timer
 * (timer_check.c: one interrupt per mode, TMCCT counting down) leaves
 * out.
 *
 *   mode change while counting (SDM 11.5.4): one-shot -> periodic
 *     reloads at 0, periodic -> one-shot stops at 0, and neither
 *     restarts the count; an expired one-shot made periodic stays at 0.
 *     Seen through TMCCT, with the LVT masked.
 *   TSC-deadline (SDM 11.5.4.1, when CPUID.1:ECX[24]): a write of 0
 *     disarms; a deadline already passed fires at once (pending in IRR
 *     right after the WRMSR) and clears the MSR; in that mode a TMICT
 *     write is ignored and TMCCT reads 0; a write to the LVT timer that
 *     changes the mode into or out of it disarms the timer.
 *
 * Every wait is bounded by the TSC (lapic_check_util.h): a timer
 * interrupt that never comes is a failed step.  A step that armed the
 * timer and took longer than the arm time to disarm it, or that never
 * saw the count below half before it ran out (the vCPU was descheduled:
 * other VMs share the host CPUs), proves nothing and is run again, up to
 * TRIES times.
 */
#include <stddef.h>
#include <stdint.h>

#include "sys/calib_hw.h"
#include "hw/apic.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define VEC		VEC_TIMER_CHECK	/* check=timer's: never both at once */
#define TDCR_DIV1	0xb		/* SDM figure 11-10: divide by 1 */
#define PERIOD_US	50000		/* the mode changes' counts */
#define ARM_US		10000		/* a disarmed timer's distance */
#define FIRE_US		100000		/* the longest wait for one to fire */
#define TRIES		5
#define CPUID_1_ECX_TSC_DEADLINE (1u << 24)

static volatile unsigned fired;
static volatile uint64_t fired_tsc;	/* of the last interrupt */

static void handler(struct trap_frame *tf)
{
	(void)tf;
	fired_tsc = rdtsc();
	fired++;
	lapic_eoi();
}

/* Timer ticks in @us at divide by 1 (calibration's rate, else 1 GHz) */
static uint32_t ticks(uint64_t us)
{
	uint64_t khz = calib_lapic_khz();

	return (uint32_t)(us * (khz ? khz : 1000000) / 1000);
}

/*
 * SDM 11.5.4.1: in xAPIC mode "software must order the memory-mapped
 * write to the LVT entry that enables TSC-deadline mode and any
 * subsequent WRMSR to the IA32_TSC_DEADLINE MSR" with MFENCE.
 */
static void lvt(uint32_t v)
{
	lapic_write(APIC_LVT_TIMER, v);
	asm volatile("mfence" : : : "memory");
}

static uint32_t tmcct(void)
{
	return lapic_read(APIC_TMCCT);
}

/* Poll TMCCT for @us: 0 once it reads in (0, @below), -1 if never */
static int wait_below(uint32_t below, uint64_t us, uint32_t *c)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us);

	do {
		*c = tmcct();
		if (*c && *c < below)
			return 0;
	} while (rdtsc() - t0 < n);
	return -1;
}

/* Poll TMCCT for @us: 1 if it ever read above @c (a reload), else 0 */
static int rose_above(uint32_t c, uint64_t us, uint32_t *last)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us);

	do {
		*last = tmcct();
		if (*last > c)
			return 1;
		c = *last ? *last : c;
	} while (rdtsc() - t0 < n);
	return 0;
}

/* Poll TMCCT for @us: 1 if it read 0 throughout */
static int stays_zero(uint64_t us, uint32_t *last)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us);

	do {
		*last = tmcct();
		if (*last)
			return 0;
	} while (rdtsc() - t0 < n);
	return 1;
}

/* Poll TMCCT for @us: 1 once it reads 0 */
static int reaches_zero(uint64_t us, uint32_t *last)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us);

	do {
		*last = tmcct();
		if (!*last)
			return 1;
	} while (rdtsc() - t0 < n);
	return 0;
}

#define MASKED_ONESHOT	(APIC_LVT_MASKED | APIC_TIMER_ONESHOT | VEC)
#define MASKED_PERIODIC	(APIC_LVT_MASKED | APIC_TIMER_PERIODIC | VEC)

/*
 * SDM 11.5.4: in periodic mode "the current-count register is
 * automatically reloaded from the initial-count register when the count
 * reaches 0"; in one-shot mode it stays at 0.  A change of mode writes
 * no count, and only a TMICT write starts one.  (The SDM's "a write to
 * the LVT Timer Register that changes the timer mode disarms the local
 * APIC timer", in its TSC-deadline section, is taken as KVM and
 * hardware do: between one-shot and periodic the count runs on.)
 */
static void mode_change(void)
{
	uint32_t n = ticks(PERIOD_US), c, c1, last = 0;
	unsigned t;
	int good;

	lapic_write(APIC_TDCR, TDCR_DIV1);
	c = c1 = 0;
	/* c1 = 0: it ran out before the change; try again */
	for (t = 0; t < TRIES && !c1; t++) {
		uint64_t t0;

		lvt(MASKED_ONESHOT);
		lapic_write(APIC_TMICT, n);
		if (wait_below(n / 2, 3 * PERIOD_US, &c))
			continue;	/* descheduled past it: again */
		t0 = rdtsc();
		lvt(MASKED_PERIODIC);
		c1 = tmcct();
		/* away past the count's end since it read c (a loaded host):
		 * periodic wrapped, as it should, so c1 says nothing; again.
		 * A reload at the change itself comes sooner than c ticks. */
		if (c1 > c && ticks(lc_tsc_us(rdtsc() - t0)) >= c)
			c1 = 0;
	}
	if (!c1) {
		lc_rule("timer", "one-shot -> periodic while counting", 0,
			"TMICT %u: TMCCT %u before the change, %u after, %u "
			"tries", n, c, c1, t);
	} else if (c1 > n / 2) {
		/* it was below n/2 before: a reload at the change itself */
		lc_rule("timer", "one-shot -> periodic while counting", 0,
			"TMICT %u: TMCCT %u before the change, %u after (want "
			"the count going on, not reloaded)", n, c, c1);
	} else {
		good = rose_above(c1, 2 * PERIOD_US, &last);
		lc_rule("timer", "one-shot -> periodic while counting", good,
			"TMICT %u: TMCCT %u after the change, then %u "
			"(want a reload to at most TMICT)", n, c1, last);
	}

	c = c1 = 0;
	for (t = 0; t < TRIES && !c1; t++) {
		lvt(MASKED_PERIODIC);
		lapic_write(APIC_TMICT, n);
		if (wait_below(n / 2, 3 * PERIOD_US, &c))
			continue;
		lvt(MASKED_ONESHOT);
		c1 = tmcct();
	}
	good = c1 && c1 <= n / 2 && reaches_zero(2 * PERIOD_US, &last) &&
	       stays_zero(PERIOD_US * 3 / 2, &last);
	lc_rule("timer", "periodic -> one-shot while counting", good,
		"TMICT %u: TMCCT %u before the change, %u after, then %u "
		"(want counting on to 0, staying 0), %u tries", n, c, c1, last,
		t);

	lvt(MASKED_PERIODIC);
	good = stays_zero(PERIOD_US * 3 / 2, &last);
	lc_rule("timer", "expired one-shot -> periodic stays at 0", good,
		"TMICT %u: TMCCT %u after the change (want 0)", n, last);
	lapic_write(APIC_TMICT, 0);
	lvt(MASKED_ONESHOT);
}

/* SDM 11.5.4.1: "Software can disarm the timer at any time by writing 0
 * to the IA32_TSC_DEADLINE MSR." */
static void deadline_zero(void)
{
	uint64_t arm = lc_us_to_tsc(ARM_US), t0, msr = 0;
	unsigned t;

	for (t = 0; t < TRIES; t++) {
		fired = 0;
		lvt(APIC_TIMER_TSCDEADLINE | VEC);
		t0 = rdtsc();
		wrmsr(MSR_IA32_TSC_DEADLINE, t0 + arm);
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
		msr = rdmsr(MSR_IA32_TSC_DEADLINE);
		if (rdtsc() - t0 < arm)
			break;
	}
	lc_delay_us_sti(2 * ARM_US);
	lc_rule("timer", "TSC deadline 0 disarms", !fired && !msr &&
		t < TRIES, "%u interrupts in %u us, MSR reads 0x%lx, try %u",
		fired, 2 * ARM_US, msr, t + 1);
}

/*
 * SDM 11.5.4.1: "An interrupt is generated when the logical processor's
 * time-stamp counter equals or exceeds the target value"; "When the
 * timer generates an interrupt, it disarms itself and clears the
 * IA32_TSC_DEADLINE MSR."  A deadline already passed: it fires, and at
 * once: pending in IRR (or already in service) at the next instruction.
 */
static void deadline_past(void)
{
	uint64_t msr, t0;
	int pending;

	fired = 0;
	lvt(APIC_TIMER_TSCDEADLINE | VEC);
	t0 = rdtsc();
	wrmsr(MSR_IA32_TSC_DEADLINE, t0);
	pending = lc_irr(VEC) || lc_isr(VEC);
	lc_wait_ge_sti(&fired, 1, FIRE_US);
	msr = rdmsr(MSR_IA32_TSC_DEADLINE);
	lc_rule("timer", "TSC deadline passed fires", fired == 1 && !msr,
		"%u interrupts in %u us; MSR then 0x%lx (want 1, 0)", fired,
		FIRE_US, msr);
	lc_rule("timer", "TSC deadline passed: pending at once",
		pending || !fired, "not pending in IRR right after the WRMSR; "
		"the interrupt came %lu TSC ticks after it",
		fired_tsc - t0);
}

/* SDM 11.5.4.1: "In TSC-deadline mode, writes to the initial-count
 * register are ignored; and current-count register always reads 0." */
static void deadline_tmict(void)
{
	uint32_t c;

	fired = 0;
	lvt(APIC_TIMER_TSCDEADLINE | VEC);
	lapic_write(APIC_TMICT, ticks(ARM_US / 10));
	c = tmcct();
	lc_delay_us_sti(ARM_US);
	lc_rule("timer", "TSC-deadline mode ignores TMICT", !c && !fired,
		"TMCCT %u after TMICT %u, %u interrupts in %u us", c,
		ticks(ARM_US / 10), fired, ARM_US);
}

/*
 * SDM 11.5.4.1: "A write to the LVT Timer Register that changes the
 * timer mode disarms the local APIC timer."  Into TSC-deadline mode
 * TMCCT then reads 0 ("current-count register always reads 0"); out of
 * it, the armed deadline never fires.  TMICT is reported, not judged:
 * KVM (and irqlab, which keeps KVM's rule) zero it on the change, Bochs
 * keeps the old count, and the SDM says neither (docs/LAPIC.md
 * "Where Bochs reads the SDM otherwise").
 */
static void into_deadline(const char *step, uint32_t from)
{
	uint64_t arm = ticks(ARM_US), t0 = 0, took = 0;
	uint32_t tmict = 0, c = 0;
	unsigned t;

	for (t = 0; t < TRIES; t++) {
		fired = 0;
		lvt(from | VEC);
		t0 = rdtsc();
		lapic_write(APIC_TMICT, (uint32_t)arm);
		lvt(APIC_TIMER_TSCDEADLINE | VEC);
		took = rdtsc() - t0;
		tmict = lapic_read(APIC_TMICT);
		c = tmcct();
		if (took < lc_us_to_tsc(ARM_US))
			break;
	}
	lc_delay_us_sti(2 * ARM_US);
	lc_rule("timer", step, !fired && !c && t < TRIES,
		"%u interrupts in %u us; TMCCT %u after the change (want 0), "
		"TMICT %u; try %u", fired, 2 * ARM_US, c, tmict, t + 1);
}

static void out_of_deadline(const char *step, uint32_t to)
{
	uint64_t arm = lc_us_to_tsc(ARM_US), t0 = 0;
	unsigned t;

	lvt(APIC_LVT_MASKED | to | VEC);
	lapic_write(APIC_TMICT, 0);	/* no count of the new mode's */
	for (t = 0; t < TRIES; t++) {
		fired = 0;
		lvt(APIC_TIMER_TSCDEADLINE | VEC);
		t0 = rdtsc();
		wrmsr(MSR_IA32_TSC_DEADLINE, t0 + arm);
		lvt(to | VEC);
		if (rdtsc() - t0 < arm)
			break;
	}
	lc_delay_us_sti(2 * ARM_US);
	lc_rule("timer", step, !fired && t < TRIES, "%u interrupts in %u us "
		"after the change, try %u", fired, 2 * ARM_US, t + 1);
}

static void tsc_deadline(void)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	if (!(r[2] & CPUID_1_ECX_TSC_DEADLINE)) {
		lc_step("timer", "TSC-deadline", LC_SKIP, "no TSC-deadline "
			"mode (CPUID.1:ECX[24] clear)");
		return;
	}
	deadline_zero();
	deadline_past();
	deadline_tmict();
	into_deadline("one-shot -> TSC-deadline disarms", APIC_TIMER_ONESHOT);
	into_deadline("periodic -> TSC-deadline disarms", APIC_TIMER_PERIODIC);
	out_of_deadline("TSC-deadline -> one-shot disarms", APIC_TIMER_ONESHOT);
	out_of_deadline("TSC-deadline -> periodic disarms",
			APIC_TIMER_PERIODIC);
}

void lapic_check_timer(void)
{
	cli();
	if (!lc_part_start("timer"))
		return;
	idt_set_handler(VEC, handler);
	mode_change();
	tsc_deadline();
	/* stopped, masked; whatever is still pending is taken here */
	lapic_write(APIC_TMICT, 0);
	lvt(MASKED_ONESHOT);
	lc_delay_us_sti(1000);
	idt_set_handler(VEC, NULL);
}
