// SPDX-License-Identifier: MIT
/*
 * calib/calib_fit.c: a polled reference's window, widened by its error
 * bound, against the simulated PC of calib_sim.c.  A slow reference (a
 * 15 us exit per port read, with jitter, as on a kvm_pvm host) must end
 * within 1% and within the bound it reports, in a wider window; a fast
 * one must not widen; a slow moment at an edge is measured again.
 */
#include <criterion/criterion.h>

#include "calib.h"
#include "calib_sim.h"

static void setup(void)
{
	sim_reset();
}

TestSuite(calib_fit, .init = setup);

#define US	1000000ull	/* ps */

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* within the reported bound, and the bound is what the fit says */
static void check_honest(const struct calib_result *r, uint64_t want,
			 const char *what)
{
	cr_assert_leq(diff(r->hz, want), r->err_hz,
		      "%s: %lu Hz, true %lu, bound %lu", what,
		      (unsigned long)r->hz, (unsigned long)want,
		      (unsigned long)r->err_hz);
}

/* within 1% */
static void check_1pct(const struct calib_result *r, uint64_t want,
		       const char *what)
{
	cr_assert_leq(diff(r->hz, want) * 100, want, "%s: %lu Hz, true %lu",
		      what, (unsigned long)r->hz, (unsigned long)want);
}

/*
 * The kvm_pvm host: every port read a 15 us userspace exit plus up to
 * 15 us more, APIC timer accesses 20 us, and RDTSC either cheap or
 * trapped (10 us).
 */
static void slow_host(unsigned seed, int rdtsc_traps)
{
	sim_reset();
	sim.seed += seed * 0x9e37u;
	sim.tsc_hz = 2596122000ull;
	sim.cost_port = 15 * US;
	sim.cost_apic = 20 * US;
	sim.jitter = 15 * US;
	sim.sample_jitter = 2 * US;
	if (rdtsc_traps)
		sim.cost_rdtsc = 10 * US;
}

static const enum calib_source refs[] = { CALIB_SRC_PIT, CALIB_SRC_PMTIMER };

Test(calib_fit, slow_reference_widens_to_one_percent)
{
	unsigned seed, traps, k;

	for (k = 0; k < 2; k++)
	for (traps = 0; traps < 2; traps++)
	for (seed = 0; seed < 40; seed++) {
		struct calib_fit f = { 0 };
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		slow_host(seed, traps);
		clk = sim_clock();
		cr_assert_eq(calib_fit(&clk, refs[k], &f, &tsc, &lapic), 0);
		cr_assert_eq(tsc.source, refs[k]);
		check_honest(&tsc, sim.tsc_hz, "tsc");
		check_honest(&lapic, sim.apic_hz, "lapic");
		check_1pct(&tsc, sim.tsc_hz, "tsc");
		check_1pct(&lapic, sim.apic_hz, "lapic");
		cr_assert(f.met, "bound %lu ppm", (unsigned long)f.bound_ppm);
		cr_assert_leq(f.bound_ppm, CALIB_TARGET_PPM);
		cr_assert_eq(f.bound_ppm, calib_ppm(lapic.err_hz, lapic.hz),
			     "the APIC timer's bound decides");
		/* a 1 ms window cannot meet 1% with 15 us edges */
		cr_assert_geq(f.widened, 1);
		cr_assert_gt(f.window_us, CALIB_WINDOW_US);
		cr_assert_leq(f.window_us, CALIB_MAX_WINDOW_US);
		cr_assert_geq(tsc.window_ns, f.window_us * 1000ull * 99 / 100);
		cr_assert_eq(f.tries, f.widened + 1, "no slow moment here");
		/* every port access of every try is counted */
		cr_assert_eq(f.pio, sim.pio);
		cr_assert_eq(f.apic, sim.apic_ops);
		cr_assert_eq(f.start_us, CALIB_WINDOW_US);
		cr_assert_eq(f.target_ppm, CALIB_TARGET_PPM);
	}
}

/* a PIT read that costs 0.3 us meets 1% in the first 1 ms window */
Test(calib_fit, fast_reference_keeps_the_window)
{
	struct calib_fit f = { 0 };
	struct calib_result tsc, lapic;
	struct calib_clock clk;

	sim.cost_port = 300000;
	sim.cost_apic = 300000;
	sim.jitter = 150000;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic), 0);
	cr_assert(f.met);
	cr_assert_eq(f.widened, 0);
	cr_assert_eq(f.tries, 1);
	cr_assert_eq(f.window_us, CALIB_WINDOW_US);
	cr_assert_eq(sim.pit_count, 1193);
	check_honest(&lapic, sim.apic_hz, "lapic");
}

/*
 * The widest window allowed cannot meet the target: the fit says so
 * (met = 0) and the bound it reports still holds the true rate.
 */
Test(calib_fit, widest_window_misses_and_says_so)
{
	unsigned k;

	for (k = 0; k < 2; k++) {
		struct calib_fit f = { .max_us = 2000 };
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		slow_host(k, 1);
		clk = sim_clock();
		cr_assert_eq(calib_fit(&clk, refs[k], &f, &tsc, &lapic), 0);
		cr_assert(!f.met);
		cr_assert_gt(f.bound_ppm, CALIB_TARGET_PPM);
		cr_assert_eq(f.window_us, 2000);
		cr_assert_eq(f.widened, 1);
		cr_assert_eq(f.tries, 2);
		check_honest(&tsc, sim.tsc_hz, "tsc");
		check_honest(&lapic, sim.apic_hz, "lapic");
	}
}

/*
 * The retry policy stays: a result looser than 10% (here the PIT's MSB
 * write, the window's first edge, waits 600 us) is measured again at the
 * same window before any widening.
 */
Test(calib_fit, slow_moment_is_measured_again)
{
	struct calib_fit f = { 0 };
	struct calib_result tsc, lapic;
	struct calib_clock clk;

	sim.cost_port = 300000;
	sim.cost_apic = 300000;
	sim.jitter = 150000;
	sim.stall_pio = 5;		/* in 0x61, out 0x61, 0x43, LSB, MSB */
	sim.stall_ps = 600 * US;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic), 0);
	cr_assert_eq(f.tries, 2);
	cr_assert_eq(f.widened, 0, "a slow moment does not widen");
	cr_assert(f.met);
	cr_assert_eq(f.window_us, CALIB_WINDOW_US);
	check_honest(&tsc, sim.tsc_hz, "tsc");
	check_honest(&lapic, sim.apic_hz, "lapic");
}

/*
 * Exits slower than the window (the nested rig: ~300 us, and more when a
 * vCPU waits for its host CPU): a 1.2 ms port read finds the 1 ms PIT
 * window already run out at the first poll.  That is no result, and the
 * window is doubled until there is one, honest to its bound.
 */
Test(calib_fit, window_shorter_than_one_read_is_widened)
{
	struct calib_fit f = { 0 };
	struct calib_result tsc;
	struct calib_clock clk;

	sim.cost_port = 1200 * US;
	sim.jitter = 10 * US;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, NULL), 0);
	cr_assert_geq(f.widened, 1);
	cr_assert_geq(f.window_us, 2 * CALIB_WINDOW_US);
	cr_assert_leq(f.tries, CALIB_FIT_TRIES);
	check_honest(&tsc, sim.tsc_hz, "tsc");
}

/* ... and at the widest window it is an error, said so (no result) */
Test(calib_fit, window_shorter_than_one_read_at_the_widest)
{
	struct calib_fit f = { .max_us = 1000 };
	struct calib_result tsc;
	struct calib_clock clk;

	sim.cost_port = 1200 * US;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, NULL),
		     CALIB_ESLOW);
	cr_assert_eq(f.tries, 1);
	cr_assert_eq(tsc.hz, 0);
}

/* a slow moment, then a result that is merely slow at the widest window */
Test(calib_fit, slow_moment_at_the_widest_window)
{
	struct calib_fit f = { .max_us = 1000 };
	struct calib_result tsc;
	struct calib_clock clk;

	sim.cost_port = 15 * US;
	sim.jitter = 15 * US;
	sim.stall_pio = 5;
	sim.stall_ps = 900 * US;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, NULL), 0);
	cr_assert_eq(f.tries, 2);
	cr_assert(!f.met);
	check_honest(&tsc, sim.tsc_hz, "tsc");
	cr_assert_lt(f.bound_ppm, CALIB_REF_GOOD_PPM, "the tighter is kept");
}

/* every try looser than 10%: CALIB_REF_TRIES at one window, no more */
Test(calib_fit, retries_are_bounded)
{
	struct calib_fit f = { .max_us = 1000 };
	struct calib_result tsc;
	struct calib_clock clk;

	sim.cost_port = 120 * US;
	sim.jitter = 20 * US;
	clk = sim_clock();
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, NULL), 0);
	cr_assert_eq(f.tries, CALIB_REF_TRIES);
	cr_assert_gt(f.bound_ppm, CALIB_REF_GOOD_PPM);
	cr_assert(!f.met);
	check_honest(&tsc, sim.tsc_hz, "tsc");
}

/* the bound holds over many runs with much jitter, met or not */
Test(calib_fit, bound_is_honest)
{
	unsigned seed, k;

	for (k = 0; k < 2; k++)
	for (seed = 0; seed < 200; seed++) {
		struct calib_fit f = { .max_us = 1000 + seed * 100 };
		struct calib_result tsc, lapic;
		struct calib_clock clk;

		slow_host(seed, seed & 1);
		sim.jitter = 40 * US;
		sim.sample_jitter = 10 * US;
		sim.apic_hz = seed & 2 ? 1000000000ull : 25000000ull;
		clk = sim_clock();
		cr_assert_eq(calib_fit(&clk, refs[k], &f, &tsc, &lapic), 0);
		check_honest(&tsc, sim.tsc_hz, "tsc");
		check_honest(&lapic, sim.apic_hz, "lapic");
		cr_assert_leq(f.tries, CALIB_FIT_TRIES);
		cr_assert_leq(f.window_us, f.max_us);
	}
}

Test(calib_fit, failures)
{
	struct calib_fit f = { 0 };
	struct calib_result tsc, lapic;
	struct calib_clock clk = sim_clock();

	cr_assert_eq(calib_fit(&clk, CALIB_SRC_RDTSC, &f, &tsc, &lapic),
		     CALIB_EINVAL);
	f = (struct calib_fit){ .start_us = 2000, .max_us = 1000 };
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic),
		     CALIB_EINVAL);
	f = (struct calib_fit){ .max_us = CALIB_MAX_WINDOW_US + 1 };
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic),
		     CALIB_EINVAL);
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, NULL, &tsc, &lapic),
		     CALIB_EINVAL);
	cr_assert_eq(sim.pio, 0);

	/* no PIT: one try, no result, the error of it */
	sim.pit_absent = true;
	f = (struct calib_fit){ 0 };
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic),
		     CALIB_ENODEV);
	cr_assert_eq(f.tries, 1);
	cr_assert_eq(tsc.hz, 0);
	cr_assert(!f.met);

	/* the guard: OUT2 never rises, one try */
	sim_reset();
	sim.pit_stuck = true;
	sim.cost_port = 10000;
	sim.jitter = 0;
	clk = sim_clock();
	f = (struct calib_fit){ 0 };
	cr_assert_eq(calib_fit(&clk, CALIB_SRC_PIT, &f, &tsc, &lapic),
		     CALIB_ESTUCK);
	cr_assert_eq(f.tries, 1);
	cr_assert_eq(f.polls, 1000 * CALIB_POLLS_PER_US + CALIB_POLLS_SLACK);
}
