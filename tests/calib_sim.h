/* SPDX-License-Identifier: MIT */
/*
 * A simulated PC for the calib/ tests: a TSC, a local APIC timer, PIT
 * channel 2 behind port 0x61, an ACPI PM timer and a CPUID table, all
 * driven by one clock in picoseconds.  Every op the library calls takes
 * simulated time (its cost plus random jitter), and a device samples its
 * state at a random instant inside the op, as an emulated access in a VM
 * exit does.
 */
#ifndef TESTS_CALIB_SIM_H
#define TESTS_CALIB_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "calib.h"

#define SIM_PS		1000000000000ull	/* ps per second */
#define SIM_MAX_LEAVES	32
#define SIM_LOG		64

struct sim_leaf {
	uint32_t leaf;
	uint32_t r[4];
};

struct calib_sim {
	uint64_t now;			/* ps */
	uint64_t seed;

	/*
	 * Op costs in ps.  An op takes cost + [0, jitter) (RDTSC: 1/100 of
	 * the jitter), and the device acts at cost / 2 +- sample_jitter / 2.
	 */
	uint64_t cost_rdtsc, cost_port, cost_apic, cost_cpuid, jitter;
	uint64_t sample_jitter;
	/* a slow moment: port access number stall_pio (1 = the first)
	 * acts stall_ps late, as when the vCPU thread is descheduled */
	unsigned stall_pio;
	uint64_t stall_ps;

	uint64_t tsc_hz;
	uint64_t tsc_stop;		/* ps; the TSC stops there (0: never) */

	uint64_t apic_hz;
	bool apic_stuck;		/* the count never moves */
	bool apic_write_late;		/* a write acts at the end of its op */
	uint32_t apic_init;
	uint64_t apic_load;

	bool pit_absent;		/* 0x42/0x43/0x61 unclaimed: all-ones */
	bool pit_stuck;			/* OUT2 never rises */
	bool pit_edge;			/* 8254 data sheet: load on the next CLK */
	uint8_t sysb;			/* port 0x61 bits 0 and 1 */
	bool pit_lsb_next;		/* after the control word */
	uint8_t pit_lsb;
	uint32_t pit_count;
	bool pit_loaded;
	uint64_t pit_load;		/* ps */
	uint8_t pit_cw;			/* the last control word for channel 2 */
	bool speaker_on;		/* bit 1 was ever set */

	bool pm_absent, pm_stuck;
	bool pm_32bit;			/* a 32-bit counter (TMR_VAL_EXT) */
	uint32_t pm_offset;		/* counter value at time 0 */
	uint32_t hpet_period_fs;	/* the HPET's; 0: none */
	bool hpet_stuck;
	uint64_t hpet_offset;		/* its counter at time 0 */
	unsigned mmio;			/* HPET reads */

	struct sim_leaf leaves[SIM_MAX_LEAVES];
	unsigned nleaves;
	uint32_t leaf_log[SIM_LOG];	/* leaves read, in order */
	uint32_t subleaf_or;		/* OR of every subleaf passed */
	unsigned nleaf_log;

	/* counts */
	unsigned pio, pio_61_in, pio_unclaimed, apic_ops, rdtscs;
};

extern struct calib_sim sim;

/*
 * Reset to: time 1 s, TSC 2.1 GHz, APIC 1 GHz, PIT and PM timer present
 * (PM timer 24-bit at 0x608), costs 20 ns RDTSC, 2 us port, 2 us APIC,
 * 1 us CPUID, jitter 1 us, sample jitter 0.4 us; a CPUID table with only
 * leaf 0 (max basic leaf 0).
 */
void sim_reset(void);
/* Set (or add) a CPUID leaf. */
void sim_leaf(uint32_t leaf, uint32_t eax, uint32_t ebx, uint32_t ecx,
	      uint32_t edx);
/* Leaf 0 with max basic leaf @max, leaf 1 with ECX[31] = @hv. */
void sim_cpu(uint32_t max, bool hv);
/* true if leaf @leaf was read */
bool sim_read_leaf(uint32_t leaf);

/* A calib_clock bound to the simulation; pm_port 0x608 (24-bit). */
struct calib_clock sim_clock(void);

#endif
