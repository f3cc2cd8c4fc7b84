/* SPDX-License-Identifier: MIT */
/*
 * calib/: calibrate the TSC and the local APIC timer against the clocks a
 * PC has.  Freestanding: the kernel (build/guest) and the unit tests
 * (build/host) compile the same files.  The library never touches
 * hardware: every CPUID, RDTSC, port access and APIC timer access goes
 * through struct calib_clock, which the kernel binds to the machine
 * (kernel/sys/calib_hw.c) and the tests bind to simulated clocks
 * (tests/calib_sim.c).  docs/CALIB.md describes the methods and their
 * error bounds.
 *
 *   calib/calib.c       CPUID frequency leaves, the RDTSC spin, arithmetic
 *   calib/calib_ref.c   the polled references: PIT channel 2, PM timer
 *   calib/calib_fit.c   a polled reference's window, widened by its bound
 */
#ifndef CALIB_H
#define CALIB_H

#include <stdint.h>

#define CALIB_WINDOW_US		1000u	/* the default window: 1 ms */
#define CALIB_MAX_WINDOW_US	50000u	/* the PIT's 16-bit count: 54.9 ms */

#define CALIB_PIT_HZ		1193182u	/* 8254 input: 14.31818 MHz / 12 */
#define CALIB_PM_HZ		3579545u	/* ACPI 6.5 4.8.3.3: 14.31818 MHz / 4 */

/* The port-I/O side of the references (8254 data sheet; IBM PC AT). */
#define CALIB_PORT_PIT_CH2	0x42
#define CALIB_PORT_PIT_CMD	0x43
#define CALIB_PORT_SYS_B	0x61	/* bit 0 gate 2, bit 1 speaker, bit 5 OUT2 */

/*
 * Guards.  A polling loop gives up after CALIB_POLLS_PER_US polls per
 * microsecond of window plus CALIB_POLLS_SLACK: no port read on any PC
 * takes less than 10 ns, so a reference that still has not reached its end
 * by then is not counting.  The RDTSC spin gives up after the window's TSC
 * ticks plus CALIB_SPIN_STALLS iterations in which the TSC did not move.
 */
#define CALIB_POLLS_PER_US	100u
#define CALIB_POLLS_SLACK	1000u
#define CALIB_SPIN_STALLS	1000000u

/*
 * A polled reference's window is driven by its error bound (calib_fit):
 * widened until the bound is within CALIB_TARGET_PPM, up to the widest
 * window asked (CALIB_MAX_WINDOW_US by default).  A result looser than
 * CALIB_REF_GOOD_PPM was spoiled by one slow exit at an edge (a vCPU
 * thread descheduled) and is measured again at the same window, at most
 * CALIB_REF_TRIES times per window; CALIB_FIT_TRIES caps the
 * measurements in all.
 */
#define CALIB_TARGET_PPM	10000u	/* 1% */
#define CALIB_REF_GOOD_PPM	100000u	/* 10% */
#define CALIB_REF_TRIES		3u
#define CALIB_FIT_TRIES		8u

/* Errors: 0 or one of these, negative. */
#define CALIB_EINVAL	(-1)	/* bad argument (window, frequency) */
#define CALIB_ENODEV	(-2)	/* no such clock: op missing, port reads
				   all-ones, CPUID leaf absent or zero */
#define CALIB_ESTUCK	(-3)	/* the guard fired: a clock did not advance */
#define CALIB_ESLOW	(-4)	/* the reference ran out before the first
				   poll: polling is slower than the window */
#define CALIB_ERANGE	(-5)	/* a count too small or a result too big */

enum calib_source {
	CALIB_SRC_NONE,
	CALIB_SRC_CPUID15,	/* leaf 0x15: crystal Hz * EBX / EAX, exact */
	CALIB_SRC_CPUID16,	/* leaf 0x16: EAX in MHz */
	CALIB_SRC_HV,		/* leaf 0x40000010: EAX in kHz (VMware's) */
	CALIB_SRC_PIT,		/* 8254 channel 2, one-shot, polled */
	CALIB_SRC_PMTIMER,	/* ACPI PM timer, polled */
	CALIB_SRC_RDTSC,	/* the APIC timer against a known TSC */
	CALIB_SRC_HPET,		/* the HPET's main counter, polled (MMIO) */
	CALIB_NR_SRC
};

/*
 * The machine.  Every op gets @ctx.  cpuid and rdtsc are required; a
 * method whose other ops are NULL fails with CALIB_ENODEV.  The polled
 * methods drive the hardware through inp/outp themselves, so they count
 * every port access exactly (struct calib_result.pio).
 */
struct calib_clock {
	void *ctx;
	/* regs[0..3] = EAX, EBX, ECX, EDX of CPUID(@leaf, @subleaf) */
	void (*cpuid)(void *ctx, uint32_t leaf, uint32_t subleaf,
		      uint32_t regs[4]);
	uint64_t (*rdtsc)(void *ctx);
	/* port I/O, @size 1, 2 or 4 bytes */
	uint32_t (*inp)(void *ctx, uint16_t port, unsigned size);
	void (*outp)(void *ctx, uint16_t port, unsigned size, uint32_t val);
	/*
	 * The local APIC timer: arm a masked one-shot with divide-by-1
	 * (SDM 11.5.4) and initial count @count, 0 stopping it; read the
	 * current count.
	 */
	void (*lapic_arm)(void *ctx, uint32_t count);
	uint32_t (*lapic_read)(void *ctx);
	/* the PM timer's port (FADT PM_TMR_BLK), 0 if none; 32-bit counter */
	uint16_t pm_port;
	int pm_32bit;
	/*
	 * The HPET's main counter, running (IA-PC HPET 1.0a 2.3.7), read
	 * as 64 bits; NULL if none.  Its period in femtoseconds (GCAP_ID,
	 * 2.3.4: at most 100 ns).  A read is an MMIO access, counted in
	 * calib_result.mmio.
	 */
	uint64_t (*hpet_read)(void *ctx);
	uint32_t hpet_period_fs;
};

/* What the CPUID frequency leaves say. */
struct calib_cpuid {
	enum calib_source source;	/* CPUID15, CPUID16, HV or NONE */
	uint64_t tsc_hz;
	uint64_t tsc_err_hz;		/* how far the leaf's unit may be off */
	/*
	 * The APIC timer's input clock if a leaf gives it, else 0: 0x15's
	 * crystal (SDM 11.5.4: the timer runs at the crystal clock when
	 * 0x15 enumerates it), 0x16's bus MHz, 0x40000010's EBX kHz.
	 */
	uint64_t bus_hz;
	uint32_t max_basic;		/* leaf 0 EAX */
	uint32_t max_hv;		/* leaf 0x40000000 EAX, 0 if no hypervisor */
	unsigned cpuid_calls;		/* CPUID ops made */
};

/* A measurement. */
struct calib_result {
	enum calib_source source;	/* the reference: PIT, PMTIMER, RDTSC */
	uint64_t hz;			/* the clock's frequency */
	uint64_t err_hz;		/* |hz - true| <= err_hz, see CALIB.md */
	uint64_t window_ns;		/* how long the measurement ran */
	uint64_t ticks;			/* the clock's ticks in that interval */
	uint32_t polls;			/* reference reads in the wait loop */
	uint32_t pio;			/* port accesses, setup included */
	uint32_t mmio;			/* HPET reads */
	uint32_t apic;			/* APIC timer ops (arm, reads, stop) */
	uint32_t spins;			/* RDTSC loop iterations */
};

/*
 * The TSC frequency from CPUID: leaf 0x15 (exact), else 0x16 (MHz), else
 * 0x40000010 (kHz).  Each leaf is read only if leaf 0 (or 0x40000000, and
 * only with CPUID.1:ECX[31] set) says it exists, with ECX = 0.  Returns
 * 0, or CALIB_ENODEV with @out->source = CALIB_SRC_NONE.
 */
int calib_tsc_from_cpuid(const struct calib_clock *clk,
			 struct calib_cpuid *out);
/* The same for one leaf: @which is CPUID15, CPUID16 or HV. */
int calib_cpuid_leaf(const struct calib_clock *clk, enum calib_source which,
		     struct calib_cpuid *out);

/*
 * The APIC timer against the TSC, whose frequency is known to within
 * @tsc_err_hz: arm it with 0xffffffff, spin on RDTSC for @window_us
 * (0: CALIB_WINDOW_US), read the current count.  No port I/O.
 */
int calib_lapic_rdtsc(const struct calib_clock *clk, uint64_t tsc_hz,
		      uint64_t tsc_err_hz, uint32_t window_us,
		      struct calib_result *out);

/*
 * PIT channel 2 in mode 0 over @window_us (0: 1 ms), polling port 0x61
 * bit 5 (OUT2).  calib_pit() measures the TSC into @tsc and, if @lapic is
 * not NULL, the APIC timer into @lapic, in the same window (the APIC is
 * timed with the TSC, which the PIT times).  @tsc is required.
 */
int calib_pit(const struct calib_clock *clk, uint32_t window_us,
	      struct calib_result *tsc, struct calib_result *lapic);
int calib_tsc_pit(const struct calib_clock *clk, uint32_t window_us,
		  struct calib_result *out);
int calib_lapic_pit(const struct calib_clock *clk, uint32_t window_us,
		    struct calib_result *out);

/* The same against the ACPI PM timer (24 or 32 bits, wrap handled). */
int calib_pmtimer(const struct calib_clock *clk, uint32_t window_us,
		  struct calib_result *tsc, struct calib_result *lapic);
int calib_tsc_pmtimer(const struct calib_clock *clk, uint32_t window_us,
		      struct calib_result *out);
int calib_lapic_pmtimer(const struct calib_clock *clk, uint32_t window_us,
			struct calib_result *out);
/*
 * The HPET's main counter as the reference, polled as the PM timer is:
 * the TSC (and, with @lapic, the APIC timer) against GCAP_ID's period.
 */
int calib_hpet(const struct calib_clock *clk, uint32_t window_us,
	       struct calib_result *tsc, struct calib_result *lapic);

/*
 * A polled reference whose window its error bound drives.  The inputs
 * may be 0 for the defaults; calib_fit() fills the rest.
 */
struct calib_fit {
	uint32_t start_us;	/* the first window: CALIB_WINDOW_US */
	uint32_t max_us;	/* the widest: CALIB_MAX_WINDOW_US */
	uint32_t target_ppm;	/* the bound wanted: CALIB_TARGET_PPM */

	uint32_t window_us;	/* the window the kept result was asked */
	uint32_t widened;	/* windows tried after the first */
	uint32_t tries;		/* measurements, every window */
	uint64_t bound_ppm;	/* the kept result's: the APIC timer's if
				   measured, else the TSC's */
	int met;		/* bound_ppm <= target_ppm */
	uint32_t polls, pio, apic, mmio;	/* summed over every
						   measurement */
};

/*
 * Measure the TSC (and the APIC timer, if @lapic is not NULL) against
 * @ref (CALIB_SRC_PIT, CALIB_SRC_PMTIMER or CALIB_SRC_HPET), starting at @f->start_us and
 * widening the window until the bound is within @f->target_ppm or the
 * window is @f->max_us (docs/CALIB.md).  Keeps the tightest result.
 * Returns what the kept measurement returned (nonzero with @tsc->hz set:
 * the TSC is good, the APIC timer is not); @tsc->hz is 0 if none gave a
 * result.
 */
int calib_fit(const struct calib_clock *clk, enum calib_source ref,
	      struct calib_fit *f, struct calib_result *tsc,
	      struct calib_result *lapic);

/* "cpuid15", "cpuid16", "hv", "pit", "pmtimer", "rdtsc", "none" */
const char *calib_source_name(enum calib_source s);
/* "ok", "invalid", "absent", "stuck", "slow", "range" */
const char *calib_strerror(int err);

/* floor(@a * @b / @c) without overflow; UINT64_MAX if it does not fit
 * or @c is 0.  Also for the kernel's own arithmetic. */
uint64_t calib_muldiv(uint64_t a, uint64_t b, uint64_t c);
/* @err_hz of @hz in parts per million, rounded up */
uint64_t calib_ppm(uint64_t err_hz, uint64_t hz);

#endif
