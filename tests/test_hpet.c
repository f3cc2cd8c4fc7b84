// SPDX-License-Identifier: MIT
/*
 * The HPET model (vmm/pc/hpet.c) against a fake clock, rule by rule of
 * the IA-PC HPET specification 1.0a (sections in each test's comment).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pc/hpet.h"

#define T0	1000000000ull

static struct {
	uint64_t now;
	uint64_t armed;
	unsigned narms;
	int gsi[24];		/* level of each IOAPIC input */
	int isa[16];
	unsigned gsi_edges[24];	/* rising edges */
	unsigned isa_edges[16];
	int legacy;		/* -1: never told */
	uint64_t slow_ns;	/* a raise takes this long (a slow host) */
} f;

static struct hpet h;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return f.now;
}

static void fake_gsi(void *ctx, unsigned gsi, int level)
{
	(void)ctx;
	cr_assert_lt(gsi, 24);
	f.gsi_edges[gsi] += level && !f.gsi[gsi];
	f.gsi[gsi] = level;
}

static void fake_isa(void *ctx, unsigned irq, int level)
{
	(void)ctx;
	cr_assert_lt(irq, 16);
	f.isa_edges[irq] += level && !f.isa[irq];
	f.isa[irq] = level;
	f.now += level ? f.slow_ns : 0;
}

static void fake_legacy(void *ctx, bool on)
{
	(void)ctx;
	f.legacy = on;
}

static void fake_arm(void *ctx, uint64_t deadline)
{
	(void)ctx;
	f.armed = deadline;
	f.narms++;
}

static const struct hpet_ops ops = {
	.now_ns = fake_now, .set_gsi = fake_gsi, .set_isa = fake_isa,
	.legacy = fake_legacy, .timer_arm = fake_arm,
};

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	f.now = T0;
	f.legacy = -1;
	hpet_init(&h, &ops, NULL);
}

TestSuite(hpet, .init = setup);

static uint64_t rd(uint64_t off)
{
	return hpet_bus_read(&h, off, 8, 0);
}

static void wr(uint64_t off, uint64_t v)
{
	hpet_bus_write(&h, off, 8, v, 0);
}

static void wr32(uint64_t off, uint32_t v)
{
	hpet_bus_write(&h, off, 4, v, 0);
}

/* the host timer fires at its deadline */
static void fire(void)
{
	cr_assert(f.armed, "no host timer armed");
	f.now = f.armed;
	f.armed = 0;
	hpet_timer_expired(&h);
}

static const uint64_t ROUTE20 = 20ull << HPET_TN_ROUTE_SHIFT;

Test(hpet, capabilities_say_what_the_model_is)
{
	uint64_t cap = rd(HPET_GCAP_ID);

	/* 2.3.4: period in fs (<= 100 ns), 3 timers, 64-bit, legacy
	 * replacement, a revision that is not 0 */
	cr_expect_eq(cap >> 32, 10000000, "10 ns a tick: 100 MHz");
	cr_expect_eq((cap & HPET_CAP_NUM_TIM_MASK) >> 8, 2, "3 timers");
	cr_expect(cap & HPET_CAP_COUNT_SIZE);
	cr_expect(cap & HPET_CAP_LEG_RT);
	cr_expect_neq(cap & HPET_CAP_REV_ID, 0);
	cr_expect_eq(hpet_bus_read(&h, HPET_GCAP_ID + 4, 4, 0), 10000000);
	/* 2.3.8: each timer 64-bit, periodic-capable, GSIs 20-23, no FSB */
	cr_expect_eq(rd(HPET_TN_CONF(2)) >> 32, 0x00f00000);
	cr_expect(rd(HPET_TN_CONF(0)) & HPET_TN_PER_INT_CAP);
	cr_expect(rd(HPET_TN_CONF(0)) & HPET_TN_SIZE_CAP);
	cr_expect_not(rd(HPET_TN_CONF(0)) & HPET_TN_FSB_CAP);
	/* 2.3.9: the comparators reset to all ones */
	cr_expect_eq(rd(HPET_TN_CMP(1)), ~0ull);
	/* the read-only bits stay what they are */
	wr(HPET_GCAP_ID, 0);
	wr(HPET_TN_CONF(0), 0);
	cr_expect_eq(rd(HPET_GCAP_ID), cap);
	cr_expect(rd(HPET_TN_CONF(0)) & HPET_TN_PER_INT_CAP);
}

Test(hpet, the_counter_runs_only_while_enabled)
{
	/* 2.3.5 ENABLE_CNF: 0 halts the main counter */
	f.now += 1000000;
	cr_expect_eq(rd(HPET_MAIN_CNT), 0, "halted at reset");
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	f.now += 1000000;			/* 1 ms: 100,000 ticks */
	cr_expect_eq(rd(HPET_MAIN_CNT), 100000);
	wr(HPET_GEN_CONF, 0);
	f.now += 5000000;
	cr_expect_eq(rd(HPET_MAIN_CNT), 100000, "frozen while halted");
	/* 2.3.7: written while halted, it counts on from there */
	wr(HPET_MAIN_CNT, 0xfffffff0ull);
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	f.now += 200;				/* 20 ticks */
	cr_expect_eq(rd(HPET_MAIN_CNT), 0x100000004ull);
	cr_expect_eq(hpet_bus_read(&h, HPET_MAIN_CNT, 4, 0), 4, "low half");
	cr_expect_eq(hpet_bus_read(&h, HPET_MAIN_CNT + 4, 4, 0), 1,
		     "high half");
}

Test(hpet, one_shot_edge_on_its_route)
{
	/* 2.3.9: one-shot, the interrupt when the counter equals the
	 * comparator; edge: a pulse, no status bit (2.3.6) */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CMP(0), 1000);		/* 10 us from the start */
	cr_expect_eq(f.armed, T0 + 10000);
	fire();
	cr_expect_eq(f.gsi_edges[20], 1);
	cr_expect_eq(f.gsi[20], 0, "an edge, not a level");
	cr_expect_eq(rd(HPET_GINTR_STA), 0);
	cr_expect_eq(rd(HPET_TN_CMP(0)), 1000, "one-shot: unchanged");
	cr_expect_eq(f.armed, 0, "a 64-bit one-shot matches once");
	cr_expect_eq(h.stats.irqs[0], 1);
}

Test(hpet, a_comparator_behind_the_counter_waits_for_the_wrap)
{
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	f.now += 1000000;			/* counter 100,000 */
	wr(HPET_TN_CONF(1), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CMP(1), 50000);
	cr_expect_eq(f.armed, 0, "64-bit: not before 2^64 ticks");
	hpet_timer_expired(&h);			/* a stray expiry */
	cr_expect_eq(f.gsi_edges[20], 0);
}

Test(hpet, periodic_adds_the_period_at_each_match)
{
	/* 2.3.9.2.2 and Tn_VAL_SET_CNF: the first write sets the first
	 * match and the period, the second only the period */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | HPET_TN_TYPE | HPET_TN_VAL_SET |
	   ROUTE20);
	wr(HPET_TN_CMP(0), 5000);
	cr_expect_not(rd(HPET_TN_CONF(0)) & HPET_TN_VAL_SET, "cleared");
	wr(HPET_TN_CMP(0), 1000);
	cr_expect_eq(rd(HPET_TN_CMP(0)), 5000, "the first match stays");
	fire();
	cr_expect_eq(f.now, T0 + 50000);
	cr_expect_eq(rd(HPET_TN_CMP(0)), 6000, "advanced by the period");
	fire();
	fire();
	cr_expect_eq(f.now, T0 + 70000);
	cr_expect_eq(f.gsi_edges[20], 3);
	/* a host timer 3.5 periods late: one interrupt, 3 coalesced, the
	 * comparator on the next period ahead */
	f.now = f.armed + 35000;
	hpet_timer_expired(&h);
	cr_expect_eq(f.gsi_edges[20], 4);
	cr_expect_eq(h.stats.coalesced[0], 3);
	cr_expect_eq(rd(HPET_TN_CMP(0)), 12000);
	cr_expect_eq(f.armed, T0 + 120000);
}

Test(hpet, periodic_32_bit_wraps_its_comparator)
{
	/* Tn_32MODE_CNF: the comparator and its accumulator are 32 bits;
	 * the match compares the counter's low 32 bits */
	wr(HPET_MAIN_CNT, 0xffffff00ull);
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(2), HPET_TN_INT_ENB | HPET_TN_TYPE | HPET_TN_VAL_SET |
	   HPET_TN_32MODE | ROUTE20);
	wr32(HPET_TN_CMP(2), 0xffffff80u);
	wr32(HPET_TN_CMP(2), 0x100);
	cr_expect_eq(rd(HPET_TN_CMP(2)), 0xffffff80u);
	fire();
	cr_expect_eq(rd(HPET_MAIN_CNT), 0xffffff80ull);
	cr_expect_eq(rd(HPET_TN_CMP(2)), 0x80, "0xffffff80 + 0x100 mod 2^32");
	fire();
	cr_expect_eq(rd(HPET_MAIN_CNT), 0x100000080ull);
	cr_expect_eq(f.gsi_edges[20], 2);
	/* the upper half of a 32-bit timer's comparator is not written */
	hpet_bus_write(&h, HPET_TN_CMP(2) + 4, 4, 5, 0);
	cr_expect_eq(rd(HPET_TN_CMP(2)) >> 32, 0);
}

Test(hpet, one_shot_32_bit_matches_the_low_half)
{
	/* a 32-bit comparator below the counter's low half matches after
	 * the low half wraps, and again every 2^32 ticks */
	wr(HPET_MAIN_CNT, 0x1000ull);
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(1), HPET_TN_INT_ENB | HPET_TN_32MODE | ROUTE20);
	wr32(HPET_TN_CMP(1), 0x800);
	fire();
	cr_expect_eq(rd(HPET_MAIN_CNT), 0x100000800ull);
	cr_expect_eq(f.gsi_edges[20], 1);
	cr_expect_eq(f.armed, ((0x200000800ull - 0x1000) * 10) + T0);
}

Test(hpet, level_status_stays_until_written_1)
{
	/* 2.3.6: level mode sets the status bit, the line stays asserted
	 * until software writes 1 to it; writing 0 does nothing */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(1), HPET_TN_INT_ENB | HPET_TN_INT_TYPE |
	   HPET_TN_TYPE | HPET_TN_VAL_SET | (21ull << HPET_TN_ROUTE_SHIFT));
	wr(HPET_TN_CMP(1), 100);
	wr(HPET_TN_CMP(1), 100);
	fire();
	cr_expect_eq(rd(HPET_GINTR_STA), 2);
	cr_expect_eq(f.gsi[21], 1);
	fire();					/* matched again, still set */
	cr_expect_eq(f.gsi_edges[21], 1, "asserted once");
	wr(HPET_GINTR_STA, 0);
	cr_expect_eq(rd(HPET_GINTR_STA), 2, "0 does nothing");
	wr(HPET_GINTR_STA, 2);
	cr_expect_eq(rd(HPET_GINTR_STA), 0);
	cr_expect_eq(f.gsi[21], 0, "cleared: the line drops");
	fire();
	cr_expect_eq(f.gsi_edges[21], 2);
	/* turning its interrupt off drops the line */
	wr(HPET_TN_CONF(1), HPET_TN_INT_TYPE | HPET_TN_TYPE |
	   (21ull << HPET_TN_ROUTE_SHIFT));
	cr_expect_eq(f.gsi[21], 0);
}

Test(hpet, disabled_interrupt_still_sets_the_status)
{
	/* 2.3.8 Tn_INT_ENB_CNF = 0: "the timer will still operate and
	 * generate appropriate status bits, but will not cause an
	 * interrupt" */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_TYPE | ROUTE20);
	wr(HPET_TN_CMP(0), 10);
	fire();
	cr_expect_eq(rd(HPET_GINTR_STA), 1);
	cr_expect_eq(f.gsi_edges[20], 0);
	cr_expect_eq(h.stats.irqs[0], 0);
}

Test(hpet, legacy_replacement_takes_irq0_and_irq8)
{
	/* 2.3.5 LEG_RT_CNF: timer 0 to IRQ0, timer 1 to IRQ8, whatever
	 * their routes say; timer 2 keeps its own; the 8254 and the RTC
	 * are cut off */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE | HPET_CONF_LEG_RT);
	cr_expect_eq(f.legacy, 1);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CONF(1), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CONF(2), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CMP(0), 100);
	wr(HPET_TN_CMP(1), 200);
	wr(HPET_TN_CMP(2), 300);
	fire();
	fire();
	fire();
	cr_expect_eq(f.isa_edges[0], 1);
	cr_expect_eq(f.isa_edges[8], 1);
	cr_expect_eq(f.gsi_edges[20], 1, "timer 2 only");
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	cr_expect_eq(f.legacy, 0);
}

Test(hpet, a_route_the_capability_lacks_is_not_taken)
{
	/* 2.3.8 Tn_INT_ROUTE_CNF: "If the value is not supported by this
	 * particular timer, then the value read back will not match what
	 * is written" */
	wr(HPET_TN_CONF(0), ROUTE20);
	wr(HPET_TN_CONF(0), 2ull << HPET_TN_ROUTE_SHIFT);
	cr_expect_eq((rd(HPET_TN_CONF(0)) & HPET_TN_ROUTE_MASK) >>
		     HPET_TN_ROUTE_SHIFT, 20);
	/* no FSB delivery: its enable does not stick */
	wr(HPET_TN_CONF(0), HPET_TN_FSB_EN);
	cr_expect_not(rd(HPET_TN_CONF(0)) & HPET_TN_FSB_EN);
}

Test(hpet, halting_stops_the_matches)
{
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CMP(0), 1000);
	cr_expect_neq(f.armed, 0);
	wr(HPET_GEN_CONF, 0);
	cr_expect_eq(f.armed, 0, "no host timer while halted");
	f.now += 1000000;
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	cr_expect_eq(f.armed, f.now + 10000, "the match on from where it was");
}

Test(hpet, bad_accesses_read_all_ones_and_are_counted)
{
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	cr_expect_eq(hpet_bus_read(&h, HPET_GEN_CONF, 2, 0), ~0ull, "2 bytes");
	cr_expect_eq(hpet_bus_read(&h, HPET_GEN_CONF + 4, 8, 0), ~0ull,
		     "misaligned");
	cr_expect_eq(hpet_bus_read(&h, HPET_LEN, 4, 0), ~0ull, "past it");
	hpet_bus_write(&h, HPET_GEN_CONF, 1, 0, 0);
	cr_expect_eq(rd(HPET_GEN_CONF), HPET_CONF_ENABLE, "unchanged");
	cr_expect_eq(h.stats.bad_accesses, 4);
	cr_expect_eq(rd(0x0f8), 0, "reserved reads 0");
	cr_expect_eq(rd(HPET_TN_CONF(3)), 0, "no timer 3");
}

Test(hpet, timers_on_one_line_are_wired_together)
{
	/* two level timers on GSI 22: the line is high while either holds
	 * it; an edge timer there gives no edge while it is high */
	const uint64_t lvl = HPET_TN_INT_ENB | HPET_TN_INT_TYPE |
			     (22ull << HPET_TN_ROUTE_SHIFT);

	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), lvl);
	wr(HPET_TN_CONF(1), lvl);
	wr(HPET_TN_CONF(2), HPET_TN_INT_ENB | (22ull << HPET_TN_ROUTE_SHIFT));
	wr(HPET_TN_CMP(0), 10);
	wr(HPET_TN_CMP(1), 20);
	wr(HPET_TN_CMP(2), 30);
	fire();
	fire();
	fire();
	cr_expect_eq(f.gsi_edges[22], 1);
	cr_expect_eq(h.stats.irqs[2], 0, "no edge on a line held high");
	wr(HPET_GINTR_STA, 1);
	cr_expect_eq(f.gsi[22], 1, "timer 1 still holds it");
	wr(HPET_GINTR_STA, 2);
	cr_expect_eq(f.gsi[22], 0);
}

Test(hpet, a_timer_never_routed_interrupts_no_one)
{
	/* Tn_INT_ROUTE_CNF resets to 0, which Tn_INT_ROUTE_CAP (20-23) does
	 * not offer: its matches set the status, and raise no line */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | HPET_TN_INT_TYPE);
	wr(HPET_TN_CMP(0), 10);
	fire();
	cr_expect_eq(rd(HPET_GINTR_STA), 1);
	cr_expect_eq(h.stats.irqs[0], 0);
	/* routed afterwards, the pending level goes out on its route */
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | HPET_TN_INT_TYPE | ROUTE20);
	cr_expect_eq(f.gsi[20], 1);
}

Test(hpet, the_counter_wraps_at_2_to_the_64)
{
	/* 2.3.7: a 64-bit main counter rolls over to 0; a comparator past
	 * the wrap matches after it, one behind the counter before it does
	 * not match now */
	wr(HPET_MAIN_CNT, ~0ull - 99);
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | ROUTE20);
	wr(HPET_TN_CMP(0), 100);
	cr_expect_eq(f.armed, T0 + 2000, "200 ticks on");
	fire();
	cr_expect_eq(rd(HPET_MAIN_CNT), 100);
	cr_expect_eq(f.gsi_edges[20], 1);
	hpet_timer_expired(&h);
	cr_expect_eq(f.gsi_edges[20], 1, "once");
}

Test(hpet, an_access_finds_the_matches_a_late_host_timer_has_not_run)
{
	/* 2.3.9.2.2: the comparator moves at each match, by the counter,
	 * not when the host's timer gets round to it */
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | HPET_TN_TYPE | HPET_TN_VAL_SET |
	   ROUTE20);
	wr(HPET_TN_CMP(0), 1000);
	wr(HPET_TN_CMP(0), 1000);
	f.now = T0 + 45000;		/* 4.5 periods; the host timer not run */
	cr_expect_eq(rd(HPET_TN_CMP(0)), 5000, "on the next period ahead");
	cr_expect_eq(f.gsi_edges[20], 1, "one interrupt for the 4 matches");
	cr_expect_eq(h.stats.coalesced[0], 3);
	cr_expect_eq(f.armed, T0 + 50000, "the host timer moved on");
	/* a level one-shot: its status is set before a write that would
	 * have come after the match */
	wr(HPET_TN_CONF(1), HPET_TN_INT_ENB | HPET_TN_INT_TYPE | ROUTE20);
	wr(HPET_TN_CMP(1), 4600);
	f.now = T0 + 47000;
	wr(HPET_TN_CONF(1), HPET_TN_INT_TYPE | ROUTE20);	/* off, late */
	cr_expect(rd(HPET_GINTR_STA) & 2, "it matched before the write");
}

/*
 * Linux 6.1's sequence (arch/x86/kernel/hpet.c), all 32-bit accesses:
 * hpet_enable() stops, zeroes and starts the counter and sets LEG_RT;
 * hpet_clkevt_set_state_periodic() stops the counter, reads its low
 * half, sets Tn_CFG (ENABLE, PERIODIC, SETVAL, 32BIT), writes the first
 * match and then the period to Tn_CMP, and starts the counter.  Timer 0
 * must then interrupt on IRQ0 every period.
 */
Test(hpet, linux_legacy_periodic_tick)
{
	uint32_t cfg, now, delta = 400000;	/* HZ=250 at 100 MHz */
	unsigned i;

	cfg = hpet_bus_read(&h, HPET_GEN_CONF, 4, 0);
	wr32(HPET_GEN_CONF, cfg & ~1u);			/* stop */
	wr32(HPET_MAIN_CNT, 0);
	wr32(HPET_MAIN_CNT + 4, 0);
	wr32(HPET_GEN_CONF, cfg | 1u);			/* start */
	f.now += 5000000;
	cfg = hpet_bus_read(&h, HPET_GEN_CONF, 4, 0);
	wr32(HPET_GEN_CONF, cfg | HPET_CONF_LEG_RT);	/* legacy */
	f.now += 20000000;
	/* set_state_periodic */
	cfg = hpet_bus_read(&h, HPET_GEN_CONF, 4, 0);
	wr32(HPET_GEN_CONF, cfg & ~1u);
	now = hpet_bus_read(&h, HPET_MAIN_CNT, 4, 0);
	cfg = hpet_bus_read(&h, HPET_TN_CONF(0), 4, 0);
	cfg |= HPET_TN_INT_ENB | HPET_TN_TYPE | HPET_TN_VAL_SET |
	       HPET_TN_32MODE;
	wr32(HPET_TN_CONF(0), cfg);
	wr32(HPET_TN_CMP(0), now + delta);
	f.now += 1000;
	wr32(HPET_TN_CMP(0), delta);
	cfg = hpet_bus_read(&h, HPET_GEN_CONF, 4, 0);
	wr32(HPET_GEN_CONF, cfg | 1u);
	cr_assert(f.armed, "a host timer for the first tick");
	for (i = 0; i < 10; i++)
		fire();
	cr_expect_eq(f.isa_edges[0], 10, "ten ticks on IRQ0");
	cr_expect_eq(f.armed - f.now, 4000000, "4 ms apart");
}

/*
 * The host timer thread raised a periodic match and took longer than a
 * period doing it (the nested rig under load: 1.25 ms against Linux's
 * 1 ms): the next match, passed by then, is due at once, not after the
 * counter wraps.  Before this, the HPET never interrupted again, and
 * Linux's check_timer() panicked ("IO-APIC + timer doesn't work!").
 */
Test(hpet, a_match_passed_while_raising_is_due_at_once)
{
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE | HPET_CONF_LEG_RT);
	wr(HPET_TN_CONF(0), HPET_TN_INT_ENB | HPET_TN_TYPE | HPET_TN_VAL_SET |
	   HPET_TN_32MODE);
	wr32(HPET_TN_CMP(0), 100000);		/* 1 ms */
	wr32(HPET_TN_CMP(0), 100000);
	f.slow_ns = 1250000;
	fire();
	cr_assert_eq(f.isa_edges[0], 1);
	cr_assert(f.armed, "the host timer is armed again");
	cr_assert_leq(f.armed, f.now, "at once: the match has passed");
	f.slow_ns = 0;
	fire();
	cr_expect_eq(f.isa_edges[0], 2, "the next tick came");
	cr_expect_gt(f.armed, f.now, "and the one after is ahead again");
}
