// SPDX-License-Identifier: MIT
/* The APIC timer against a fake clock (SDM 11.5.4). */
#include <criterion/criterion.h>

#include "hw/apic.h"
#include "apic/lapic.h"
#include "lapic_fake.h"

#define T0	1000000000ull		/* the fake clock's start */
#define VEC	0x40

static struct lapic l;

static void setup(void)
{
	fake_reset();
	fake_lapic(&l, 0, 0);		/* 1 GHz: one tick per ns, before TDCR */
	fake_sw_enable(&l);
}

TestSuite(lapic_timer, .init = setup);

static uint32_t rd(uint32_t off)
{
	uint32_t v;

	cr_assert_eq(lapic_mmio_read(&l, off, 4, &v), 0);
	return v;
}

static void wr(uint32_t off, uint32_t val)
{
	cr_assert_eq(lapic_mmio_write(&l, off, 4, val), 0);
}

/* the timer interrupt arrived: take it and EOI it */
static bool fired(void)
{
	if (lapic_pending_vector(&l) != VEC)
		return false;
	lapic_ack(&l, VEC);
	wr(APIC_EOI, 0);
	return true;
}

/* let the host timer fire at the armed deadline */
static void run_to_deadline(void)
{
	cr_assert_neq(fake.armed[0], 0, "a deadline is armed");
	fake.now = fake.armed[0];
	lapic_timer_expired(&l);
}

static const struct {
	uint32_t tdcr;
	unsigned div;
} dividers[] = {
	{ 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
	{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
};

Test(lapic_timer, tmcct_with_each_divider)
{
	unsigned i, d;

	for (i = 0; i < sizeof(dividers) / sizeof(dividers[0]); i++) {
		d = dividers[i].div;
		fake.now = T0;
		wr(APIC_TDCR, dividers[i].tdcr);
		wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
		wr(APIC_TMICT, 1000);
		cr_assert_eq(fake.armed[0], T0 + 1000ull * d, "divide by %u", d);
		cr_assert_eq(rd(APIC_TMCCT), 1000);
		fake.now = T0 + 10ull * d - 1;
		cr_assert_eq(rd(APIC_TMCCT), 1000 - 9, "divide by %u", d);
		fake.now = T0 + 10ull * d;
		cr_assert_eq(rd(APIC_TMCCT), 1000 - 10);
		fake.now = T0 + 999ull * d;
		cr_assert_eq(rd(APIC_TMCCT), 1);
		fake.now = T0 + 1000ull * d;
		cr_assert_eq(rd(APIC_TMCCT), 0, "reached 0, host timer not yet in");
		fake.now = T0 + 5000ull * d;
		cr_assert_eq(rd(APIC_TMCCT), 0, "one-shot stays at 0");
		wr(APIC_TMICT, 0);
	}
}

Test(lapic_timer, other_input_clock)
{
	lapic_init(&l, 0, 0, true, 100000000, &fake_ops, NULL);	/* 100 MHz */
	fake_sw_enable(&l);
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, VEC);
	wr(APIC_TMICT, 3);
	cr_assert_eq(fake.armed[0], T0 + 30, "10 ns per tick");
	fake.now = T0 + 15;
	cr_assert_eq(rd(APIC_TMCCT), 2);
}

Test(lapic_timer, one_shot_fires_once)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	wr(APIC_TMICT, 500);
	fake.now = T0 + 499;
	lapic_timer_expired(&l);		/* an early host timer */
	cr_assert_not(fired(), "not before the deadline");
	cr_assert_eq(fake.armed[0], T0 + 500, "re-armed at the same deadline");
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(rd(APIC_TMCCT), 0);
	cr_assert_eq(rd(APIC_TMICT), 500, "TMICT keeps its value");
	fake.now += 10000;
	lapic_timer_expired(&l);		/* a stale host timer */
	cr_assert_not(fired(), "one-shot: once");
	wr(APIC_TMICT, 100);			/* a new write re-arms */
	cr_assert_eq(fake.armed[0], fake.now + 100);
	run_to_deadline();
	cr_assert(fired());
}

Test(lapic_timer, periodic_rearms_without_drift)
{
	wr(APIC_TDCR, 0x0);			/* divide by 2 */
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000000);		/* 2 ms */
	cr_assert_eq(fake.armed[0], T0 + 2000000);
	fake.now = T0 + 2000003;			/* the host is 3 ns late */
	lapic_timer_expired(&l);
	cr_assert(fired());
	cr_assert_eq(fake.armed[0], T0 + 4000000, "start + 2 periods, not now + period");
	cr_assert_eq(rd(APIC_TMCCT), 1000000 - 1, "reloaded and counting");
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(fake.armed[0], T0 + 6000000);
	fake.now = T0 + 11000000;			/* 2.5 periods late */
	lapic_timer_expired(&l);
	cr_assert(fired());
	cr_assert_not(fired(), "missed periods raise one interrupt");
	cr_assert_eq(fake.armed[0], T0 + 12000000);
	cr_assert_eq(rd(APIC_TMCCT), 500000);
	wr(APIC_TMICT, 0);
	cr_assert_eq(fake.armed[0], 0, "TMICT 0 stops the timer");
	cr_assert_eq(rd(APIC_TMCCT), 0);
}

Test(lapic_timer, periodic_tmcct_reloads)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 100);
	fake.now = T0 + 250;			/* the host timer has not come */
	cr_assert_eq(rd(APIC_TMCCT), 50);
}

/* KVM's floor (min_timer_period_us): a 1 ns period fires every 200 us */
Test(lapic_timer, periodic_floor_merges_periods)
{
	wr(APIC_TDCR, 0xb);			/* divide by 1: 1 ns a tick */
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1);
	cr_assert_eq(fake.armed[0], T0 + 1, "the first period is the count's");
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(fake.armed[0], T0 + 1 + 200000, "then the floor");
	fake.now = T0 + 1000;
	cr_assert_eq(rd(APIC_TMCCT), 1, "the count runs at its own rate");
	run_to_deadline();
	cr_assert(fired());
	cr_assert_not(fired(), "200000 periods, one interrupt");
	cr_assert_eq(fake.armed[0], T0 + 1 + 400000);
	wr(APIC_TMICT, 300000);			/* 300 us: above the floor */
	cr_assert_eq(fake.armed[0], fake.now + 300000);
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(fake.armed[0], T0 + 200001 + 600000, "start + 2 periods");
}

Test(lapic_timer, masked_counts_but_delivers_nothing)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000000);
	fake.now = T0 + 400000;
	cr_assert_eq(rd(APIC_TMCCT), 600000, "a masked timer counts");
	run_to_deadline();
	cr_assert_not(fired());
	cr_assert_eq(fake.armed[0], T0 + 2000000, "and keeps its period");
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	run_to_deadline();
	cr_assert(fired(), "unmasked: the next expiry is delivered");
}

Test(lapic_timer, one_shot_periodic_switch_keeps_count)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	wr(APIC_TMICT, 1000000);
	fake.now = T0 + 300000;
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	cr_assert_eq(rd(APIC_TMCCT), 700000);
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(fake.armed[0], T0 + 2000000, "it now reloads");
}

Test(lapic_timer, divider_change_mid_count)
{
	wr(APIC_TDCR, 0xb);			/* 1 ns per tick */
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	wr(APIC_TMICT, 1000);
	fake.now = T0 + 400;
	wr(APIC_TDCR, 0x1);			/* divide by 4 */
	cr_assert_eq(rd(APIC_TMCCT), 600, "goes on from where it was");
	cr_assert_eq(fake.armed[0], T0 + 400 + 600 * 4);
	fake.now = T0 + 400 + 4 * 100;
	cr_assert_eq(rd(APIC_TMCCT), 500, "at the new rate");
}

Test(lapic_timer, tsc_deadline)
{
	struct lapic_caps caps = { .x2apic = true, .tsc_khz = 2000000 };	/* 2 GHz */
	uint64_t v;

	lapic_set_caps(&l, &caps);
	wr(APIC_LVT_TIMER, APIC_TIMER_TSCDEADLINE | VEC);
	wr(APIC_TMICT, 1000);
	cr_assert_eq(rd(APIC_TMICT), 0, "TMICT writes are ignored");
	cr_assert_eq(rd(APIC_TMCCT), 0);
	cr_assert_eq(fake.arms[0], 0);

	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc + 2000), 0);
	cr_assert_eq(fake.armed[0], T0 + 1000, "2000 TSC ticks at 2 GHz");
	cr_assert_eq(lapic_msr_read(&l, MSR_IA32_TSC_DEADLINE, &v), 0);
	cr_assert_eq(v, fake.tsc + 2000);
	fake.tsc += 2000;
	run_to_deadline();
	cr_assert(fired());
	cr_assert_eq(lapic_msr_read(&l, MSR_IA32_TSC_DEADLINE, &v), 0);
	cr_assert_eq(v, 0, "firing clears the deadline");
	lapic_timer_expired(&l);
	cr_assert_not(fired(), "once");

	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc + 9999), 0);
	cr_assert_neq(fake.armed[0], 0);
	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, 0), 0);
	cr_assert_eq(fake.armed[0], 0, "0 disarms");
	fake.now += 1000000;
	lapic_timer_expired(&l);
	cr_assert_not(fired());

	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc - 1), 0);
	cr_assert(fired(), "a deadline in the past fires at once");
	cr_assert_eq(fake.armed[0], 0);
	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc), 0);
	cr_assert(fired(), "so does the present");
}

Test(lapic_timer, mode_switch_disarms)
{
	struct lapic_caps caps = { .x2apic = true, .tsc_khz = 1000000 };
	uint64_t v;

	lapic_set_caps(&l, &caps);
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc + 5), 0);
	cr_assert_eq(lapic_msr_read(&l, MSR_IA32_TSC_DEADLINE, &v), 0);
	cr_assert_eq(v, 0, "other modes: reads 0, writes ignored");
	cr_assert_eq(fake.arms[0], 0);
	wr(APIC_TMICT, 1000);
	cr_assert_neq(fake.armed[0], 0);
	wr(APIC_LVT_TIMER, APIC_TIMER_TSCDEADLINE | VEC);
	cr_assert_eq(fake.armed[0], 0, "SDM 11.5.4.1: the switch disarms");
	cr_assert_eq(rd(APIC_TMCCT), 0);
	cr_assert_eq(lapic_msr_write(&l, MSR_IA32_TSC_DEADLINE, fake.tsc + 1000), 0);
	cr_assert_eq(fake.armed[0], T0 + 1000);
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	cr_assert_eq(fake.armed[0], 0, "and back");
	fake.now += 5000;
	lapic_timer_expired(&l);
	cr_assert_not(fired());
}

Test(lapic_timer, software_disable_masks_the_timer)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000000);
	wr(APIC_SVR, 0xff);
	run_to_deadline();
	cr_assert_eq(lapic_pending_vector(&l), -1);
	cr_assert_eq(fake.armed[0], T0 + 2000000, "the count runs on");
}

/*
 * SDM 11.5.1: the LVT mask "inhibits reception of the interrupt"; an
 * interrupt already accepted into IRR (SDM 11.8.4) stays and is
 * delivered.  One not yet accepted when the entry is masked, or moved to
 * another vector, never comes with the old entry.
 */
#define VEC_B	0x41

Test(lapic_timer, mask_keeps_an_accepted_interrupt)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000);
	run_to_deadline();			/* accepted: in IRR */
	wr(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_PERIODIC | VEC);
	cr_assert(fired(), "the interrupt in IRR stays");
	run_to_deadline();
	cr_assert_not(fired(), "masked: nothing more");
}

Test(lapic_timer, mask_drops_one_not_yet_due)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000);
	fake.now = T0 + 999;
	wr(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_PERIODIC | VEC);
	cr_assert_not(fired());
	run_to_deadline();			/* the host timer comes */
	cr_assert_not(fired(), "the count reached 0 after the mask");
}

/* The host timer had not been taken when the write came: the count had
 * reached 0 before it, under the unmasked entry, so IRR has it. */
Test(lapic_timer, write_takes_a_due_expiry_first)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000);
	fake.now = T0 + 1500;			/* due at T0 + 1000 */
	wr(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_PERIODIC | VEC);
	cr_assert(fired(), "accepted at T0 + 1000, before the mask");
	cr_assert_not(fired(), "once");
	lapic_timer_expired(&l);		/* the late host timer */
	cr_assert_not(fired(), "not a second time");
	run_to_deadline();
	cr_assert_not(fired(), "masked since");
}

Test(lapic_timer, new_vector_rules_only_later_expiries)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC);
	wr(APIC_TMICT, 1000);
	fake.now = T0 + 1000;			/* due, not taken yet */
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | VEC_B);
	cr_assert_eq(lapic_pending_vector(&l), VEC, "the old vector, once");
	lapic_ack(&l, VEC);
	wr(APIC_EOI, 0);
	lapic_timer_expired(&l);
	cr_assert_eq(lapic_pending_vector(&l), -1);
	run_to_deadline();
	cr_assert_eq(lapic_pending_vector(&l), VEC_B, "then the new one");
	lapic_ack(&l, VEC_B);
	wr(APIC_EOI, 0);
	cr_assert_eq(lapic_pending_vector(&l), -1, "never the old one again");
}

/* TMICT and TDCR writes, and a software disable, take a due expiry first */
Test(lapic_timer, tmict_tdcr_svr_take_a_due_expiry_first)
{
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_ONESHOT | VEC);
	wr(APIC_TMICT, 1000);
	fake.now = T0 + 1200;
	wr(APIC_TMICT, 0);
	cr_assert(fired(), "TMICT 0 after the count ran out");
	wr(APIC_TMICT, 1000);
	fake.now += 1000;
	wr(APIC_TDCR, 0x0);
	cr_assert(fired(), "TDCR after the count ran out");
	wr(APIC_TMICT, 1000);
	fake.now += 2000;			/* divide by 2 now */
	wr(APIC_SVR, 0xff);
	cr_assert_eq(lapic_pending_vector(&l), VEC,
		     "accepted before the software disable (SDM 11.4.7.2: "
		     "IRR is kept)");
}
