// SPDX-License-Identifier: MIT
/* The simulated PC of calib_sim.h. */
#include <string.h>

#include "calib_sim.h"

struct calib_sim sim;

#define SIM_PM_PORT	0x608
#define REFRESH_PS	15085000ull	/* port 0x61 bit 4 toggles every 15 us */

static uint64_t rnd(void)
{
	/* xorshift64 */
	sim.seed ^= sim.seed << 13;
	sim.seed ^= sim.seed >> 7;
	sim.seed ^= sim.seed << 17;
	return sim.seed;
}

static uint64_t scale(uint64_t ps, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ps * hz / SIM_PS);
}

/*
 * One op of @cost plus [0, @jitter): returns the instant the device acts.
 * That is half-way through the cost, give or take sample_jitter (the
 * emulation point of an exit moves little); the jitter comes after it
 * (the way back to the guest: host scheduling, interrupts).
 */
static uint64_t op_j(uint64_t cost, uint64_t jitter)
{
	uint64_t len = cost + (jitter ? rnd() % jitter : 0);
	uint64_t at = sim.now + cost / 2;

	if (sim.sample_jitter && cost)
		at += rnd() % (sim.sample_jitter + 1) - sim.sample_jitter / 2;
	if (at < sim.now)
		at = sim.now;
	if (at > sim.now + len)
		at = sim.now + len;
	sim.now += len;
	return at;
}

static uint64_t op(uint64_t cost)
{
	return op_j(cost, sim.jitter);
}

void sim_reset(void)
{
	memset(&sim, 0, sizeof(sim));
	sim.now = SIM_PS;
	sim.seed = 0x9e3779b97f4a7c15ull;
	sim.cost_rdtsc = 20000;
	sim.cost_port = 2000000;
	sim.cost_apic = 2000000;
	sim.cost_cpuid = 1000000;
	sim.jitter = 1000000;
	sim.sample_jitter = 400000;
	sim.tsc_hz = 2100000000ull;
	sim.apic_hz = 1000000000ull;
	sim_leaf(0, 0, 0x756e6547, 0x6c65746e, 0x49656e69);
}

void sim_leaf(uint32_t leaf, uint32_t eax, uint32_t ebx, uint32_t ecx,
	      uint32_t edx)
{
	unsigned i;

	for (i = 0; i < sim.nleaves; i++)
		if (sim.leaves[i].leaf == leaf)
			break;
	if (i == SIM_MAX_LEAVES)
		return;
	if (i == sim.nleaves)
		sim.nleaves++;
	sim.leaves[i] = (struct sim_leaf){ leaf, { eax, ebx, ecx, edx } };
}

void sim_cpu(uint32_t max, bool hv)
{
	sim_leaf(0, max, 0x756e6547, 0x6c65746e, 0x49656e69);
	sim_leaf(1, 0x50654, 0, hv ? 0x80000000u : 0, 0x200);
}

static const struct sim_leaf *find(uint32_t leaf)
{
	unsigned i;

	for (i = 0; i < sim.nleaves; i++)
		if (sim.leaves[i].leaf == leaf)
			return &sim.leaves[i];
	return NULL;
}

bool sim_read_leaf(uint32_t leaf)
{
	unsigned i;

	for (i = 0; i < sim.nleaf_log; i++)
		if (sim.leaf_log[i] == leaf)
			return true;
	return false;
}

/*
 * Intel's rule: a leaf above the maximum of its range, or a hypervisor
 * leaf with no hypervisor range, returns the highest basic leaf's data.
 */
static void sim_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf,
		      uint32_t r[4])
{
	const struct sim_leaf *l, *max = find(0);
	uint32_t max_basic = max ? max->r[0] : 0;

	(void)ctx;
	op(sim.cost_cpuid);
	if (sim.nleaf_log < SIM_LOG)
		sim.leaf_log[sim.nleaf_log++] = leaf;
	sim.subleaf_or |= subleaf;
	if (leaf < 0x40000000u && leaf > max_basic)
		leaf = max_basic;
	if (leaf >= 0x40000000u && leaf < 0x80000000u) {
		const struct sim_leaf *hv = find(0x40000000u);

		if (!hv)
			leaf = max_basic;
		else if (leaf > hv->r[0])
			leaf = max_basic;
	}
	l = find(leaf);
	r[0] = l ? l->r[0] : 0;
	r[1] = l ? l->r[1] : 0;
	r[2] = l ? l->r[2] : 0;
	r[3] = l ? l->r[3] : 0;
}

static uint64_t sim_rdtsc(void *ctx)
{
	uint64_t at = op_j(sim.cost_rdtsc, sim.jitter / 100);

	(void)ctx;
	sim.rdtscs++;
	if (sim.tsc_stop && at > sim.tsc_stop)
		at = sim.tsc_stop;
	return scale(at, sim.tsc_hz);
}

static void sim_lapic_arm(void *ctx, uint32_t count)
{
	(void)ctx;
	sim.apic_ops++;
	sim.apic_load = op(sim.cost_apic);
	if (sim.apic_write_late)
		sim.apic_load = sim.now;
	sim.apic_init = count;
}

static uint32_t sim_lapic_read(void *ctx)
{
	uint64_t at = op(sim.cost_apic), n;

	(void)ctx;
	sim.apic_ops++;
	if (!sim.apic_init || sim.apic_stuck)
		return sim.apic_init;
	n = scale(at - sim.apic_load, sim.apic_hz);
	return n >= sim.apic_init ? 0 : sim.apic_init - (uint32_t)n;
}

static bool pit_out(uint64_t at)
{
	if (!sim.pit_loaded || sim.pit_stuck || !(sim.sysb & 1))
		return false;
	return at >= sim.pit_load &&
	       scale(at - sim.pit_load, CALIB_PIT_HZ) >= sim.pit_count;
}

/* A port access: the stalled one waits before it acts. */
static uint64_t port_op(void)
{
	if (sim.stall_pio && sim.pio + 1 == sim.stall_pio)
		sim.now += sim.stall_ps;
	return op(sim.cost_port);
}

static uint32_t sim_inp(void *ctx, uint16_t port, unsigned size)
{
	uint64_t at = port_op(), v;

	(void)ctx;
	sim.pio++;
	if (port == SIM_PM_PORT && size == 4) {
		if (sim.pm_absent)
			return 0xffffffffu;
		v = sim.pm_stuck ? 12345 : scale(at, CALIB_PM_HZ);
		v += sim.pm_offset;
		return sim.pm_32bit ? (uint32_t)v : (uint32_t)v & 0xffffff;
	}
	if (port == CALIB_PORT_SYS_B && size == 1 && !sim.pit_absent) {
		sim.pio_61_in++;
		return (sim.sysb & 3) | ((at / REFRESH_PS) & 1) << 4 |
		       (pit_out(at) ? 0x20 : 0);
	}
	sim.pio_unclaimed++;
	return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

/* The HPET's main counter: a 64-bit load, an MMIO access as slow as a
 * port's (both exit to the VMM) */
static uint64_t sim_hpet_read(void *ctx)
{
	uint64_t at = port_op();

	(void)ctx;
	sim.mmio++;
	if (sim.hpet_stuck)
		return sim.hpet_offset;
	/* ps to fs: x 1000 */
	return sim.hpet_offset +
	       (uint64_t)((unsigned __int128)at * 1000 / sim.hpet_period_fs);
}

/* 8254 writes: only what channel 2 in mode 0 needs (8254 data sheet). */
static void sim_outp(void *ctx, uint16_t port, unsigned size, uint32_t val)
{
	uint64_t at = port_op(), period = SIM_PS / CALIB_PIT_HZ;

	(void)ctx;
	sim.pio++;
	if (sim.pit_absent || size != 1) {
		sim.pio_unclaimed++;
		return;
	}
	if (port == CALIB_PORT_SYS_B) {
		sim.sysb = val & 3;
		sim.speaker_on |= !!(val & 2);
	} else if (port == CALIB_PORT_PIT_CMD && (val >> 6) == 2) {
		sim.pit_cw = val;
		sim.pit_loaded = false;		/* mode 0: OUT goes low */
		sim.pit_lsb_next = true;
	} else if (port == CALIB_PORT_PIT_CH2 && sim.pit_cw == 0xb0) {
		if (sim.pit_lsb_next) {
			sim.pit_lsb = val;
			sim.pit_lsb_next = false;
			return;
		}
		sim.pit_count = sim.pit_lsb | (val & 0xff) << 8;
		sim.pit_load = at;
		if (sim.pit_edge)	/* the next CLK edge loads it */
			sim.pit_load = (at / period + 1) * period;
		sim.pit_loaded = true;
		sim.pit_lsb_next = true;
	} else {
		sim.pio_unclaimed++;
	}
}

struct calib_clock sim_clock(void)
{
	return (struct calib_clock){
		.ctx = &sim,
		.cpuid = sim_cpuid,
		.rdtsc = sim_rdtsc,
		.inp = sim_inp,
		.outp = sim_outp,
		.lapic_arm = sim_lapic_arm,
		.lapic_read = sim_lapic_read,
		.pm_port = SIM_PM_PORT,
		.pm_32bit = sim.pm_32bit,
		.hpet_read = sim.hpet_period_fs ? sim_hpet_read : NULL,
		.hpet_period_fs = sim.hpet_period_fs,
	};
}
