// SPDX-License-Identifier: MIT
/*
 * calib/: the CPUID frequency leaves and the RDTSC method against the
 * simulated PC of calib_sim.c.
 */
#include <criterion/criterion.h>

#include "calib.h"
#include "calib_sim.h"

static void setup(void)
{
	sim_reset();
}

TestSuite(calib_cpuid, .init = setup);
TestSuite(calib_rdtsc, .init = setup);
TestSuite(calib_math);

#define HV_SIG(l)	sim_leaf(0x40000000u, (l), 0x6c717269, 0x72696261, \
				 0x62616c71)	/* "irqlabirqlab" */

/* The Skylake case: a 24 MHz crystal, TSC = 24 MHz * 0xd8 / 2 = 2592 MHz */
static void full_cpu(void)
{
	sim_cpu(0x16, true);
	sim_leaf(0x15, 2, 0xd8, 24000000, 0);
	sim_leaf(0x16, 2600, 3900, 100, 0);
	HV_SIG(0x40000010u);
	sim_leaf(0x40000010u, 2592000, 24000, 0, 0);
}

Test(calib_cpuid, leaf_15_first_and_exact)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID15);
	cr_assert_eq(c.tsc_hz, 2592000000ull);
	cr_assert_eq(c.bus_hz, 24000000, "the crystal is the APIC clock");
	cr_assert_leq(c.tsc_err_hz, 1);
	cr_assert(!sim_read_leaf(0x16), "0x16 not needed");
	cr_assert(!sim_read_leaf(0x40000010u));
	cr_assert_eq(sim.subleaf_or, 0, "ECX = 0 for every leaf");
	cr_assert_eq(c.cpuid_calls, sim.nleaf_log);
}

Test(calib_cpuid, leaf_15_ratio_not_reduced)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	/* irqlab-vmm's style: crystal = APIC 1 GHz, TSC 2095.077 MHz */
	sim_cpu(0x16, false);
	sim_leaf(0x15, 1000000, 2095077, 1000000000, 0);
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID15);
	cr_assert_eq(c.tsc_hz, 2095077000ull);
	cr_assert_eq(c.bus_hz, 1000000000ull);
}

Test(calib_cpuid, leaf_15_without_crystal_falls_to_16)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	sim_leaf(0x15, 2, 0xd8, 0, 0);		/* ECX = 0: no crystal */
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID16);
	cr_assert_eq(c.tsc_hz, 2600000000ull);
	cr_assert_eq(c.bus_hz, 100000000ull);
	cr_assert_eq(c.tsc_err_hz, 1000000);
	cr_assert(sim_read_leaf(0x15));
	cr_assert(!sim_read_leaf(0x40000010u));
}

Test(calib_cpuid, leaf_15_zero_ratio_falls_to_16)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	sim_leaf(0x15, 0, 0, 0, 0);		/* Hyper-V's zeroed leaf */
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID16);
}

Test(calib_cpuid, leaf_16_zero_falls_to_hv)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	sim_leaf(0x15, 0, 0, 0, 0);
	sim_leaf(0x16, 0, 0, 0, 0);
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_HV);
	cr_assert_eq(c.tsc_hz, 2592000000ull);
	cr_assert_eq(c.bus_hz, 24000000ull);
	cr_assert_eq(c.max_hv, 0x40000010u);
}

/* max basic leaf 0x14: neither 0x15 nor 0x16 may be read, though the
 * table has them (a CPU would return leaf 0x14's data for them) */
Test(calib_cpuid, max_leaf_below_15_reads_neither)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	sim_cpu(0x14, true);
	sim_leaf(0x14, 1, 0x77, 0x88, 0x99);
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_HV);
	cr_assert(!sim_read_leaf(0x15));
	cr_assert(!sim_read_leaf(0x16));
	cr_assert_eq(c.max_basic, 0x14);
}

Test(calib_cpuid, max_leaf_15_reads_15_not_16)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	sim_cpu(0x15, false);
	sim_leaf(0x15, 2, 0xd8, 0, 0);		/* no crystal */
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), CALIB_ENODEV);
	cr_assert_eq(c.source, CALIB_SRC_NONE);
	cr_assert_eq(c.tsc_hz, 0);
	cr_assert(sim_read_leaf(0x15));
	cr_assert(!sim_read_leaf(0x16), "max basic leaf 0x15: 0x16 not read");
	cr_assert(!sim_read_leaf(0x40000000u), "no hypervisor bit");
}

Test(calib_cpuid, no_hypervisor_bit_no_hv_leaves)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	sim_cpu(0xd, false);
	HV_SIG(0x40000010u);
	sim_leaf(0x40000010u, 2592000, 24000, 0, 0);
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), CALIB_ENODEV);
	cr_assert(!sim_read_leaf(0x40000000u));
	cr_assert(!sim_read_leaf(0x40000010u));
	cr_assert_eq(c.max_hv, 0);
}

Test(calib_cpuid, kvm_max_hv_leaf_below_10)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	sim_cpu(0xd, true);
	sim_leaf(0x40000000u, 0x40000001u, 0x4b4d564b, 0x564b4d56, 0x4d);
	sim_leaf(0x40000010u, 2592000, 24000, 0, 0);
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), CALIB_ENODEV);
	cr_assert(sim_read_leaf(0x40000000u));
	cr_assert(!sim_read_leaf(0x40000010u));
	cr_assert_eq(c.max_hv, 0x40000001u);
}

/* a hypervisor max leaf of basic-leaf garbage is not believed */
Test(calib_cpuid, hv_max_garbage)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	sim_cpu(0xd, true);
	sim_leaf(0x40000000u, 0x0d, 0, 0, 0);
	cr_assert_eq(calib_cpuid_leaf(&clk, CALIB_SRC_HV, &c), CALIB_ENODEV);
	cr_assert_eq(c.max_hv, 0);
}

Test(calib_cpuid, each_leaf_alone)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	full_cpu();
	cr_assert_eq(calib_cpuid_leaf(&clk, CALIB_SRC_CPUID16, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID16);
	cr_assert_eq(c.tsc_hz, 2600000000ull);
	cr_assert(!sim_read_leaf(0x15));
	cr_assert_eq(calib_cpuid_leaf(&clk, CALIB_SRC_HV, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_HV);
	cr_assert_eq(c.tsc_hz, 2592000000ull);
	cr_assert_eq(calib_cpuid_leaf(&clk, CALIB_SRC_CPUID15, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID15);
	cr_assert_eq(calib_cpuid_leaf(&clk, CALIB_SRC_PIT, &c), CALIB_EINVAL);
}

Test(calib_cpuid, nothing_at_all)
{
	struct calib_clock clk = sim_clock();
	struct calib_cpuid c;

	sim_cpu(0, false);		/* leaf 0 says 0: not even leaf 1 */
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), CALIB_ENODEV);
	cr_assert_eq(sim.nleaf_log, 1);
	clk.cpuid = NULL;
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), CALIB_ENODEV);
	cr_assert_eq(calib_tsc_from_cpuid(NULL, &c), CALIB_EINVAL);
}

/* ---- the APIC timer against a known TSC ---- */

static void check_within(uint64_t got, uint64_t err, uint64_t want,
			 uint64_t ppm, const char *what)
{
	uint64_t diff = got > want ? got - want : want - got;

	cr_assert_leq(diff, err, "%s: %lu Hz, true %lu, bound %lu", what,
		      (unsigned long)got, (unsigned long)want,
		      (unsigned long)err);
	if (ppm)
		cr_assert_leq(diff, want / 1000000 * ppm,
			      "%s: %lu Hz, true %lu: off by more than %lu ppm",
			      what, (unsigned long)got, (unsigned long)want,
			      (unsigned long)ppm);
}

static const uint64_t tsc_freqs[] = {
	1000000000ull, 2095077000ull, 2592000000ull, 3600000000ull,
	4200000000ull,
};
static const uint64_t apic_freqs[] = {
	1000000000ull, 100000000ull, 25000000ull, 24000000ull,
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

Test(calib_rdtsc, accurate_at_each_frequency)
{
	struct calib_result r;
	unsigned i, j;

	for (i = 0; i < N(tsc_freqs); i++) {
		for (j = 0; j < N(apic_freqs); j++) {
			struct calib_clock clk;

			sim_reset();
			sim.tsc_hz = tsc_freqs[i];
			sim.apic_hz = apic_freqs[j];
			clk = sim_clock();
			cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0,
						       &r), 0);
			cr_assert_eq(r.source, CALIB_SRC_RDTSC);
			check_within(r.hz, r.err_hz, sim.apic_hz, 1000,
				     "lapic");
			/* 1 ms window, 2 + 1 us ops: the bound is < 0.5% */
			cr_assert_lt(r.err_hz, sim.apic_hz / 200);
			cr_assert_eq(r.pio, 0);
			cr_assert_eq(sim.pio, 0, "no port I/O at all");
			cr_assert_eq(r.apic, 8, "arm, 3 + 3 reads, stop");
			cr_assert_eq(sim.apic_ops, 8);
			cr_assert_eq(sim.apic_init, 0, "timer stopped");
			cr_assert_geq(r.window_ns, 1000000);
			cr_assert_lt(r.window_ns, 1010000);
		}
	}
}

/*
 * A trapped write that takes effect at the end of a 40 us exit, reads in
 * the middle of theirs (as on a host where exits are slow): timing from
 * the arm would be 2% off; reading the count at both ends cancels it.
 */
Test(calib_rdtsc, asymmetric_exits_cancel)
{
	struct calib_clock clk;
	struct calib_result r;

	sim.cost_apic = 40000000;	/* ps */
	sim.apic_write_late = true;
	clk = sim_clock();
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, &r), 0);
	check_within(r.hz, r.err_hz, sim.apic_hz, 1000, "lapic");
}

/* the whole fast path: CPUID 0x16 (an integral MHz TSC), then RDTSC */
Test(calib_rdtsc, after_cpuid_16)
{
	struct calib_clock clk;
	struct calib_cpuid c;
	struct calib_result r;

	sim.tsc_hz = 3600000000ull;
	sim.apic_hz = 100000000ull;
	sim_cpu(0x16, false);
	sim_leaf(0x16, 3600, 4500, 100, 0);
	clk = sim_clock();
	cr_assert_eq(calib_tsc_from_cpuid(&clk, &c), 0);
	cr_assert_eq(c.source, CALIB_SRC_CPUID16);
	cr_assert_eq(calib_lapic_rdtsc(&clk, c.tsc_hz, c.tsc_err_hz, 1000,
				       &r), 0);
	check_within(r.hz, r.err_hz, sim.apic_hz, 1000, "lapic");
	/* the bound carries 0x16's 1 MHz: 278 ppm of 3600 MHz */
	cr_assert_geq(r.err_hz, sim.apic_hz / 1000000 * 277);
	cr_assert_eq(sim.pio, 0);
}

/* with no op jitter and cheap ops the method is near exact */
Test(calib_rdtsc, quiet_machine_is_near_exact)
{
	struct calib_clock clk;
	struct calib_result r;

	sim.cost_apic = 100000;
	sim.jitter = 0;
	clk = sim_clock();
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, &r), 0);
	check_within(r.hz, r.err_hz, sim.apic_hz, 150, "lapic");
	cr_assert_lt(r.err_hz, sim.apic_hz / 1000000 * 200);
}

Test(calib_rdtsc, longer_window_tighter_bound)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r1, r10;

	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 1000, &r1), 0);
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 10000, &r10), 0);
	check_within(r10.hz, r10.err_hz, sim.apic_hz, 100, "lapic 10 ms");
	cr_assert_lt(r10.err_hz * 5, r1.err_hz);
}

Test(calib_rdtsc, stopped_tsc_fires_the_guard)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	sim.tsc_stop = sim.now + 10000000;	/* stops 10 us from now */
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, &r),
		     CALIB_ESTUCK);
	cr_assert_eq(r.hz, 0);
	cr_assert_leq(r.spins, 2100000 + CALIB_SPIN_STALLS);
	cr_assert_eq(sim.apic_init, 0, "the timer is stopped");
}

Test(calib_rdtsc, apic_that_does_not_count)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	sim.apic_stuck = true;
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, &r),
		     CALIB_ESTUCK);
}

Test(calib_rdtsc, apic_count_runs_out)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	/* 0xffffffff ticks at 100 GHz: 43 ms, in a 50 ms window */
	sim.apic_hz = 100000000000ull;
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 50000, &r),
		     CALIB_ERANGE);
}

Test(calib_rdtsc, bad_arguments)
{
	struct calib_clock clk = sim_clock();
	struct calib_result r;

	cr_assert_eq(calib_lapic_rdtsc(&clk, 0, 0, 0, &r), CALIB_EINVAL);
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0,
				       CALIB_MAX_WINDOW_US + 1, &r),
		     CALIB_EINVAL);
	cr_assert_eq(calib_lapic_rdtsc(NULL, sim.tsc_hz, 0, 0, &r),
		     CALIB_EINVAL);
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, NULL),
		     CALIB_EINVAL);
	clk.lapic_read = NULL;
	cr_assert_eq(calib_lapic_rdtsc(&clk, sim.tsc_hz, 0, 0, &r),
		     CALIB_ENODEV);
	cr_assert_eq(sim.apic_ops, 0);
}

/* ---- arithmetic ---- */

Test(calib_math, muldiv)
{
	cr_assert_eq(calib_muldiv(6, 7, 2), 21);
	cr_assert_eq(calib_muldiv(0xffffffffull, 10000000000ull, 1000000000ull),
		     42949672950ull);
	/* a product of 2^64 * 3 */
	cr_assert_eq(calib_muldiv(1ull << 63, 6, 4), 3ull << 62);
	cr_assert_eq(calib_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX),
		     UINT64_MAX);
	cr_assert_eq(calib_muldiv(UINT64_MAX, 2, 1), UINT64_MAX, "overflow");
	cr_assert_eq(calib_muldiv(1, 1, 0), UINT64_MAX, "divide by 0");
	cr_assert_eq(calib_muldiv(123456789012345ull, 987654321ull,
				  987654321ull), 123456789012345ull);
}

Test(calib_math, ppm_and_names)
{
	cr_assert_eq(calib_ppm(1, 1000000), 1);
	cr_assert_eq(calib_ppm(1, 3000000), 1, "rounded up");
	cr_assert_eq(calib_ppm(2100, 2100000000ull), 1);
	cr_assert_eq(calib_ppm(5, 0), 0);
	cr_assert_str_eq(calib_source_name(CALIB_SRC_CPUID15), "cpuid15");
	cr_assert_str_eq(calib_source_name(CALIB_SRC_PMTIMER), "pmtimer");
	cr_assert_str_eq(calib_source_name(99), "none");
	cr_assert_str_eq(calib_strerror(CALIB_ESTUCK), "stuck");
	cr_assert_str_eq(calib_strerror(-99), "unknown");
}
