// SPDX-License-Identifier: MIT
/*
 * calib/: the polled references, PIT channel 2 and the ACPI PM timer,
 * against the simulated PC of calib_sim.c: accuracy within the bound each
 * result reports, exact port-access counts, and the guards.
 */
#include <criterion/criterion.h>

#include "calib.h"
#include "calib_sim.h"

static void setup(void)
{
	sim_reset();
}

TestSuite(calib_pit, .init = setup);
TestSuite(calib_pm, .init = setup);

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static void check_within(const struct calib_result *r, uint64_t want,
			 const char *what)
{
	uint64_t diff = r->hz > want ? r->hz - want : want - r->hz;

	cr_assert_leq(diff, r->err_hz, "%s: %lu Hz, true %lu, bound %lu",
		      what, (unsigned long)r->hz, (unsigned long)want,
		      (unsigned long)r->err_hz);
}

static const uint64_t tsc_freqs[] = {
	1000000000ull, 2095077000ull, 3600000000ull, 4200000000ull,
};
static const uint64_t apic_freqs[] = { 1000000000ull, 25000000ull };
/* port exit costs in ps: a fast in-kernel PIT, a user-space one, nested */
static const uint64_t port_costs[] = { 300000, 2000000, 10000000 };

/* PIT 8254 channel 2: 6 setup accesses and the polls */
#define PIT_SETUP_PIO	6

Test(calib_pit, tsc_and_lapic_within_bound)
{
	unsigned i, j, k, edge;

	for (i = 0; i < N(tsc_freqs); i++)
	for (j = 0; j < N(apic_freqs); j++)
	for (k = 0; k < N(port_costs); k++)
	for (edge = 0; edge < 2; edge++) {
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		sim_reset();
		sim.seed += i * 7 + j * 3 + k + edge;
		sim.tsc_hz = tsc_freqs[i];
		sim.apic_hz = apic_freqs[j];
		sim.cost_port = port_costs[k];
		sim.jitter = port_costs[k] / 2;
		sim.pit_edge = edge;
		clk = sim_clock();
		cr_assert_eq(calib_pit(&clk, 0, &tsc, &lapic), 0);
		cr_assert_eq(tsc.source, CALIB_SRC_PIT);
		check_within(&tsc, sim.tsc_hz, "tsc");
		check_within(&lapic, sim.apic_hz, "lapic");
		/* the bound is honest but not vacuous: < 4.5% even nested */
		cr_assert_lt(tsc.err_hz, sim.tsc_hz / 1000 * 45);
		/* exact counts: every port access is the library's */
		cr_assert_eq(tsc.pio, PIT_SETUP_PIO + tsc.polls);
		cr_assert_eq(sim.pio, tsc.pio);
		cr_assert_eq(sim.pio_61_in, tsc.polls + 1);
		cr_assert_eq(sim.pio_unclaimed, 0);
		cr_assert_eq(lapic.polls, tsc.polls);
		cr_assert_eq(lapic.apic, 4, "arm, 2 reads, stop");
		cr_assert_eq(sim.apic_ops, 4);
		cr_assert_eq(sim.pit_cw, 0xb0, "channel 2, lo/hi, mode 0");
		cr_assert_eq(sim.pit_count, 1193, "1 ms of 1.193182 MHz");
		cr_assert(!sim.speaker_on, "the speaker stays off");
		cr_assert_eq(sim.sysb, 0, "port 0x61 restored");
		cr_assert_eq(tsc.window_ns, 999847);
	}
}

Test(calib_pit, bound_shrinks_with_the_window)
{
	struct calib_clock clk = sim_clock();
	struct calib_result t1, t10;

	cr_assert_eq(calib_tsc_pit(&clk, 1000, &t1), 0);
	cr_assert_eq(calib_tsc_pit(&clk, 10000, &t10), 0);
	check_within(&t1, sim.tsc_hz, "1 ms");
	check_within(&t10, sim.tsc_hz, "10 ms");
	cr_assert_lt(t10.err_hz * 5, t1.err_hz);
	cr_assert_eq(sim.pit_count, 11931);
}

/* a 2 us exit per poll: ~1 ms / 2.5 us polls, all of them counted */
Test(calib_pit, counts_its_polls)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	cr_assert_eq(calib_tsc_pit(&clk, 0, &r), 0);
	cr_assert_geq(r.polls, 350);
	cr_assert_leq(r.polls, 510);
	cr_assert_eq(r.pio, PIT_SETUP_PIO + r.polls);
	cr_assert_eq(r.apic, 0);
	cr_assert_eq(sim.apic_ops, 0, "no APIC without a request");
}

Test(calib_pit, lapic_alone)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	sim.apic_hz = 24000000;
	cr_assert_eq(calib_lapic_pit(&clk, 0, &r), 0);
	check_within(&r, 24000000, "lapic");
	cr_assert_eq(r.source, CALIB_SRC_PIT);
}

/* nothing at port 0x61: it reads 0xff, and the method stops at once */
Test(calib_pit, absent)
{
	struct calib_clock clk = sim_clock();
	struct calib_result tsc, lapic;

	sim.pit_absent = true;
	cr_assert_eq(calib_pit(&clk, 0, &tsc, &lapic), CALIB_ENODEV);
	cr_assert_eq(tsc.pio, 1);
	cr_assert_eq(sim.pio, 1);
	cr_assert_eq(sim.apic_ops, 0);
}

Test(calib_pit, out_never_rises)
{
	struct calib_clock clk = sim_clock();
	struct calib_result tsc, lapic;

	sim.pit_stuck = true;
	sim.cost_port = 10000;		/* fast polls reach the guard */
	sim.jitter = 0;
	cr_assert_eq(calib_pit(&clk, 0, &tsc, &lapic), CALIB_ESTUCK);
	cr_assert_eq(tsc.polls, 1000 * CALIB_POLLS_PER_US + CALIB_POLLS_SLACK);
	cr_assert_eq(tsc.pio, PIT_SETUP_PIO + tsc.polls);
	cr_assert_eq(tsc.hz, 0);
	cr_assert_eq(sim.apic_init, 0, "APIC timer stopped");
	cr_assert_eq(sim.sysb, 0, "port 0x61 restored");
}

/* a poll slower than the window: OUT2 is high at the first look */
Test(calib_pit, polling_too_slow)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	sim.cost_port = 1500000000ull;	/* 1.5 ms per port access */
	cr_assert_eq(calib_tsc_pit(&clk, 0, &r), CALIB_ESLOW);
	cr_assert_eq(r.polls, 1);
}

Test(calib_pit, bad_arguments)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	cr_assert_eq(calib_pit(&clk, 0, NULL, &r), CALIB_EINVAL);
	cr_assert_eq(calib_tsc_pit(&clk, CALIB_MAX_WINDOW_US + 1, &r),
		     CALIB_EINVAL);
	clk.outp = NULL;
	cr_assert_eq(calib_tsc_pit(&clk, 0, &r), CALIB_ENODEV);
	clk = sim_clock();
	clk.lapic_arm = NULL;
	cr_assert_eq(calib_lapic_pit(&clk, 0, &r), CALIB_ENODEV);
	cr_assert_eq(sim.pio, 0);
}

/* ---- ACPI PM timer ---- */

Test(calib_pm, tsc_and_lapic_within_bound)
{
	unsigned i, j, k;

	for (i = 0; i < N(tsc_freqs); i++)
	for (j = 0; j < N(apic_freqs); j++)
	for (k = 0; k < N(port_costs); k++) {
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		sim_reset();
		sim.seed += i * 5 + j * 11 + k;
		sim.tsc_hz = tsc_freqs[i];
		sim.apic_hz = apic_freqs[j];
		sim.cost_port = port_costs[k];
		sim.jitter = port_costs[k] / 2;
		clk = sim_clock();
		cr_assert_eq(calib_pmtimer(&clk, 0, &tsc, &lapic), 0);
		cr_assert_eq(tsc.source, CALIB_SRC_PMTIMER);
		check_within(&tsc, sim.tsc_hz, "tsc");
		check_within(&lapic, sim.apic_hz, "lapic");
		cr_assert_lt(tsc.err_hz, sim.tsc_hz / 1000 * 45);
		cr_assert_eq(tsc.pio, 1 + tsc.polls, "one start read");
		cr_assert_eq(sim.pio, tsc.pio);
		cr_assert_eq(lapic.apic, 4);
		cr_assert_geq(tsc.window_ns, 1000000);
	}
}

Test(calib_pm, wraps_at_24_bits)
{
	struct calib_clock clk;
	struct calib_result r;

	/* the counter passes 0xffffff -> 0 half-way through the window */
	sim.pm_offset = 0x1000000u - 1790 -
			(uint32_t)((sim.now / 1000000) * 3579545 / 1000000);
	clk = sim_clock();
	cr_assert_eq(calib_tsc_pmtimer(&clk, 0, &r), 0);
	check_within(&r, sim.tsc_hz, "tsc across the wrap");
	cr_assert_lt(r.window_ns, 1100000, "one window, not 4.7 s");
}

Test(calib_pm, thirty_two_bits)
{
	struct calib_clock clk;
	struct calib_result r;

	sim.pm_32bit = true;
	sim.pm_offset = 0xffffffffu - 1000 -
			(uint32_t)((sim.now / 1000000) * 3579545 / 1000000);
	clk = sim_clock();
	cr_assert_eq(calib_tsc_pmtimer(&clk, 0, &r), 0);
	check_within(&r, sim.tsc_hz, "tsc across the 32-bit wrap");
}

Test(calib_pm, absent_port_reads_all_ones)
{
	struct calib_clock clk = sim_clock();
	struct calib_result tsc, lapic;

	sim.pm_absent = true;
	cr_assert_eq(calib_pmtimer(&clk, 0, &tsc, &lapic), CALIB_ENODEV);
	cr_assert_eq(tsc.pio, 2, "read twice");
	cr_assert_eq(sim.apic_init, 0);
}

Test(calib_pm, stuck_counter)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	sim.pm_stuck = true;
	sim.cost_port = 10000;
	sim.jitter = 0;
	cr_assert_eq(calib_tsc_pmtimer(&clk, 0, &r), CALIB_ESTUCK);
	cr_assert_eq(r.polls, 1000 * CALIB_POLLS_PER_US + CALIB_POLLS_SLACK);
}

Test(calib_pm, no_port)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	clk.pm_port = 0;
	cr_assert_eq(calib_lapic_pmtimer(&clk, 0, &r), CALIB_ENODEV);
	cr_assert_eq(sim.pio, 0);
}

/* ---- the HPET's main counter (IA-PC HPET 1.0a 2.3.4, 2.3.7) ---- */

TestSuite(calib_hpet, .init = setup);

Test(calib_hpet, tsc_and_lapic_within_bound)
{
	/* irqlab's and QEMU's 10 ns, and a chipset's 14.31818 MHz */
	static const uint32_t periods[] = { 10000000u, 69841279u };
	unsigned i, k;

	for (i = 0; i < N(periods); i++)
	for (k = 0; k < N(port_costs); k++) {
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		sim_reset();
		sim.seed += i * 7 + k;
		sim.hpet_period_fs = periods[i];
		sim.hpet_offset = 0xfffffffffff00000ull;	/* wraps 2^64 */
		sim.cost_port = port_costs[k];
		sim.jitter = port_costs[k] / 2;
		clk = sim_clock();
		cr_assert_eq(calib_hpet(&clk, 0, &tsc, &lapic), 0);
		cr_assert_eq(tsc.source, CALIB_SRC_HPET);
		check_within(&tsc, sim.tsc_hz, "tsc");
		check_within(&lapic, sim.apic_hz, "lapic");
		cr_assert_eq(tsc.mmio, 1 + tsc.polls, "one start read");
		cr_assert_eq(sim.mmio, tsc.mmio);
		cr_assert_eq(tsc.pio, 0, "no port I/O");
		cr_assert_eq(sim.pio, 0);
		cr_assert_eq(lapic.apic, 4);
		cr_assert_geq(tsc.window_ns, 1000000);
	}
}

Test(calib_hpet, absent_stuck_or_not_an_hpet)
{
	struct calib_result r;
	struct calib_clock clk;

	clk = sim_clock();		/* sim_reset(): no HPET */
	cr_assert_eq(calib_hpet(&clk, 1000, &r, NULL), CALIB_ENODEV);
	sim.hpet_period_fs = 100000001u;	/* 2.3.4: <= 100 ns */
	clk = sim_clock();
	cr_assert_eq(calib_hpet(&clk, 1000, &r, NULL), CALIB_ENODEV);
	sim.hpet_period_fs = 10000000u;
	sim.hpet_stuck = true;		/* ENABLE_CNF clear: it never counts */
	clk = sim_clock();
	cr_assert_eq(calib_hpet(&clk, 1000, &r, NULL), CALIB_ESTUCK);
	cr_assert_eq(r.hz, 0);
}

Test(calib_hpet, calib_fit_takes_it_as_a_reference)
{
	struct calib_fit f = { 0 };
	struct calib_result tsc, lapic;
	struct calib_clock clk;

	sim.hpet_period_fs = 10000000u;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_HPET, &f, &tsc, &lapic), 0);
	cr_assert_eq(tsc.source, CALIB_SRC_HPET);
	check_within(&tsc, sim.tsc_hz, "tsc");
	cr_assert(f.met);
	cr_assert_eq(f.mmio, sim.mmio);
	cr_assert_eq(f.pio, 0);
}
