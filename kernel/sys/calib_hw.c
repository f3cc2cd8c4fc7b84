// SPDX-License-Identifier: MIT
/*
 * Boot-time calibration: struct calib_clock bound to the hardware, the
 * choice of a source, and the @calib record.
 *
 * The sources, best first: the CPUID frequency leaves (no port I/O: the
 * APIC timer is then timed against the TSC with calib_lapic_rdtsc), PIT
 * channel 2, the ACPI PM timer; the HPET's main counter on request
 * (calib=hpet, calib=all).  Under irqlab-vmm the exit counters are
 * read through the port protocol around the calibration alone, so the
 * record says what it cost in VM exits.  docs/CALIB.md has the details.
 */
#include <stddef.h>
#include <stdint.h>

#include "boot/acpi_boot.h"
#include "calib.h"
#include "calib_hw.h"
#include "boot/cmdline.h"
#include "hw/hpet.h"
#include "hw/irqlab.h"
#include "lib/kstring.h"
#include "dev/lapic.h"
#include "boot/mbinfo.h"
#include "lib/printf.h"
#include "dev/pv.h"
#include "arch/x86.h"


static uint64_t tsc_khz, lapic_khz;

uint64_t calib_tsc_khz(void)
{
	return tsc_khz;
}

uint64_t calib_lapic_khz(void)
{
	return lapic_khz;
}

/* ---- the clock ops ---- */

static void hw_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf,
		     uint32_t regs[4])
{
	(void)ctx;
	cpuid(leaf, subleaf, regs);
}

/* LFENCE: RDTSC may not run before the port access it stamps (SDM
 * vol. 2B, RDTSC: "If software requires RDTSC to be executed only after
 * all previous instructions have executed ... LFENCE") */
static uint64_t hw_rdtsc(void *ctx)
{
	(void)ctx;
	asm volatile("lfence" : : : "memory");
	return rdtsc();
}

static uint32_t hw_in(void *ctx, uint16_t port, unsigned size)
{
	(void)ctx;
	if (size == 1)
		return inb(port);
	if (size == 2)
		return inw(port);
	return inl(port);
}

static void hw_out(void *ctx, uint16_t port, unsigned size, uint32_t val)
{
	(void)ctx;
	if (size == 1)
		outb(port, val);
	else if (size == 2)
		outw(port, val);
	else
		outl(port, val);
}

static void hw_lapic_arm(void *ctx, uint32_t count)
{
	(void)ctx;
	lapic_timer_oneshot_masked(count);
}

static uint32_t hw_lapic_read(void *ctx)
{
	(void)ctx;
	return lapic_timer_current();
}

/* ---- the PM timer's port: ACPI FADT PM_TMR_BLK (ACPI 6.5 5.2.9) ---- */

static void find_pm_timer(const struct mbinfo *mbi, struct calib_clock *clk)
{
	const struct acpi_info *acpi;
	const char *from;
	int err;

	acpi = acpi_boot(mbi, &err, &from);
	if (!acpi)
		return;
	clk->pm_port = acpi->pm_tmr_port;
	clk->pm_32bit = acpi->pm_tmr_32bit;
}

/* ---- the HPET: its ACPI table's block (IA-PC HPET 1.0a 3.2.4) ---- */

static volatile uint8_t *hpet;

static uint64_t hw_hpet_read(void *ctx)
{
	(void)ctx;
	return *(volatile uint64_t *)(hpet + HPET_MAIN_CNT);
}

/* Its counter runs for the calibration (2.3.5 ENABLE_CNF), and is left
 * as it was after: hpet_stop() */
static uint64_t hpet_conf;

static void find_hpet(const struct mbinfo *mbi, struct calib_clock *clk)
{
	const struct acpi_info *acpi;
	const char *from;
	uint64_t cap;
	int err;

	acpi = acpi_boot(mbi, &err, &from);
	if (!acpi || !acpi->hpet_addr || acpi->hpet_addr >= 0x100000000ull)
		return;			/* none, or above the identity map */
	hpet = (volatile uint8_t *)(uintptr_t)acpi->hpet_addr;
	cap = *(volatile uint64_t *)(hpet + HPET_GCAP_ID);
	if (cap == ~0ull) {
		hpet = NULL;		/* nothing answers there */
		return;
	}
	hpet_conf = *(volatile uint64_t *)(hpet + HPET_GEN_CONF);
	*(volatile uint64_t *)(hpet + HPET_GEN_CONF) =
		hpet_conf | HPET_CONF_ENABLE;
	clk->hpet_read = hw_hpet_read;
	clk->hpet_period_fs = (uint32_t)(cap >> HPET_CAP_PERIOD_SHIFT);
}

static void hpet_stop(void)
{
	if (hpet)
		*(volatile uint64_t *)(hpet + HPET_GEN_CONF) = hpet_conf;
}

/* ---- methods ---- */

enum method { M_CPUID, M_CPUID15, M_CPUID16, M_HV, M_PIT, M_PMTIMER,
	      M_HPET };

static const char *const method_names[] = {
	[M_CPUID] = "cpuid", [M_CPUID15] = "cpuid15", [M_CPUID16] = "cpuid16",
	[M_HV] = "hv", [M_PIT] = "pit", [M_PMTIMER] = "pmtimer",
	[M_HPET] = "hpet",
};

/* The windows asked: calib_us= (the first), calib_max_us= (the widest). */
struct window {
	uint32_t start_us, max_us;
};

/* One calibration: what it found and what it cost. */
struct outcome {
	enum calib_source source;	/* of the TSC frequency; NONE: failed */
	uint64_t tsc_hz, tsc_err, lapic_hz, lapic_err, bus_hz, window_ns;
	uint32_t polls, pio, apic, mmio, tries, spins, widened, target_ppm;
	const char *bound;		/* met, missed, fixed (CPUID), none */
	struct calib_fit fit;		/* a polled reference's */
	char failed[96];		/* "stage:error,..." */
};

static void note_failure(struct outcome *o, const char *stage, int err)
{
	size_t n = strlen(o->failed);

	ksnprintf(o->failed + n, sizeof(o->failed) - n, "%s%s:%s",
		  n ? "," : "", stage, calib_strerror(err));
}

static void add_cost(struct outcome *o, const struct calib_result *r)
{
	o->polls += r->polls;
	o->pio += r->pio;
	o->apic += r->apic;
	o->spins += r->spins;
}

static void take_lapic(struct outcome *o, const struct calib_result *r)
{
	o->lapic_hz = r->hz;
	o->lapic_err = r->err_hz;
}

/*
 * A window in which the RDTSC spin ran fewer than this many times was
 * spent away from the CPU (a descheduled vCPU, an SMI): nothing watched
 * the two clocks over it, and the nested rig under load once gave 38%
 * off with a 2% bound so.  It is timed again, up to RDTSC_TRIES times.
 */
#define RDTSC_MIN_SPINS	3
#define RDTSC_TRIES	3

static void run_cpuid(const struct calib_clock *clk, enum method m,
		      const struct window *win, struct outcome *o)
{
	static const enum calib_source leaf[] = {
		[M_CPUID15] = CALIB_SRC_CPUID15, [M_CPUID16] = CALIB_SRC_CPUID16,
		[M_HV] = CALIB_SRC_HV,
	};
	struct calib_cpuid c;
	struct calib_result r;
	unsigned t;
	int err;

	err = m == M_CPUID ? calib_tsc_from_cpuid(clk, &c) :
			     calib_cpuid_leaf(clk, leaf[m], &c);
	if (err) {
		note_failure(o, method_names[m], err);	/* not a measurement */
		return;
	}
	o->tries++;
	o->source = c.source;
	o->tsc_hz = c.tsc_hz;
	o->tsc_err = c.tsc_err_hz;
	o->bus_hz = c.bus_hz;
	o->bound = "fixed";	/* the RDTSC spin's window is not widened */
	if (!clk->lapic_arm)
		return;			/* no local APIC: lapic_khz=0 */
	for (t = 1;; t++) {
		err = calib_lapic_rdtsc(clk, c.tsc_hz, c.tsc_err_hz,
					win->start_us, &r);
		add_cost(o, &r);
		if (err || r.spins >= RDTSC_MIN_SPINS || t >= RDTSC_TRIES)
			break;
		o->tries++;
	}
	o->window_ns = r.window_ns;
	if (err)
		note_failure(o, "rdtsc", err);
	else
		take_lapic(o, &r);
}

/*
 * A polled reference: the window is widened until the bound is within
 * 1%, and a result spoiled by one slow exit is measured again
 * (calib_fit(), docs/CALIB.md).  Every measurement's cost is counted.
 */
static void run_ref(const struct calib_clock *clk, enum method m,
		    const struct window *win, struct outcome *o)
{
	struct calib_fit f = {
		.start_us = win->start_us, .max_us = win->max_us,
	};
	struct calib_result tsc, lapic;
	int err;

	static const enum calib_source ref[] = {
		[M_PIT] = CALIB_SRC_PIT, [M_PMTIMER] = CALIB_SRC_PMTIMER,
		[M_HPET] = CALIB_SRC_HPET,
	};

	err = calib_fit(clk, ref[m], &f, &tsc,
			clk->lapic_arm ? &lapic : NULL);
	o->polls += f.polls;
	o->pio += f.pio;
	o->mmio += f.mmio;
	o->apic += f.apic;
	o->tries += f.tries;
	if (!tsc.hz) {
		note_failure(o, method_names[m], err);
		return;
	}
	o->source = tsc.source;
	o->tsc_hz = tsc.hz;
	o->tsc_err = tsc.err_hz;
	o->window_ns = tsc.window_ns;
	o->widened = f.widened;
	o->target_ppm = f.target_ppm;
	o->bound = f.met ? "met" : "missed";
	o->fit = f;
	if (err)
		note_failure(o, "lapic", err);	/* the TSC part is good */
	else if (clk->lapic_arm)
		take_lapic(o, &lapic);
}

static void run(const struct calib_clock *clk, enum method m,
		const struct window *win, struct outcome *o)
{
	if (m == M_PIT || m == M_PMTIMER || m == M_HPET)
		run_ref(clk, m, win, o);
	else
		run_cpuid(clk, m, win, o);
}

/* ---- the record ---- */

static uint64_t khz(uint64_t hz)
{
	return (hz + 500) / 1000;
}

/* counter @i of s1 - s0 as a record value, "na" without the protocol */
static const char *exits(char *buf, size_t len, int have,
			 const struct irqlab_snapshot *s0,
			 const struct irqlab_snapshot *s1, unsigned i)
{
	if (!have || s0->count <= i || s1->count <= i)
		return "na";
	ksnprintf(buf, len, "%lu", s1->counter[i] - s0->counter[i]);
	return buf;
}

static void print(const struct outcome *o, const struct window *win,
		  int have, const struct irqlab_snapshot *s0,
		  const struct irqlab_snapshot *s1, uint64_t ticks, int use)
{
	char e[4][24];

	kprintf("@calib source=%s tsc_khz=%lu lapic_khz=%lu window_us=%lu "
		"took_us=%lu polls=%u exits=%s pio_exits=%s apic_exits=%s "
		"mmio_exits=%s pio=%u apic=%u mmio=%u tsc_err_ppm=%lu "
		"lapic_err_ppm=%lu "
		"cpuid_bus_khz=%lu use=%d tries=%u spins=%u start_us=%u "
		"max_us=%u widened=%u target_ppm=%u bound=%s%s%s\n",
		calib_source_name(o->source), khz(o->tsc_hz),
		khz(o->lapic_hz), (o->window_ns + 500) / 1000,
		o->tsc_hz ? calib_muldiv(ticks, 1000000, o->tsc_hz) : 0,
		o->polls,
		exits(e[0], sizeof(e[0]), have, s0, s1, IRQLAB_CNT_TOTAL),
		exits(e[1], sizeof(e[1]), have, s0, s1, IRQLAB_CNT_PIO),
		exits(e[2], sizeof(e[2]), have, s0, s1, IRQLAB_CNT_APIC),
		exits(e[3], sizeof(e[3]), have, s0, s1, IRQLAB_CNT_MMIO),
		o->pio, o->apic, o->mmio, calib_ppm(o->tsc_err, o->tsc_hz),
		calib_ppm(o->lapic_err, o->lapic_hz), khz(o->bus_hz), use,
		o->tries, o->spins, win->start_us, win->max_us, o->widened,
		o->target_ppm,
		o->bound ? o->bound : "none",
		o->failed[0] ? (o->source ? " failed=" : " reason=") : "",
		o->failed);
}

/*
 * Try @ms in order until one gives the TSC frequency, between two
 * snapshots, and print one record for them all.  Returns 1 if it kept
 * the result (the first success of the boot).
 */
static int group(const struct calib_clock *clk, const enum method *ms,
		 unsigned n, const struct window *win, int *chosen)
{
	static struct irqlab_snapshot s0, s1;
	struct outcome o;
	uint64_t t0, t1;
	unsigned i;
	int have, use;

	memset(&o, 0, sizeof(o));
	have = !pv_snapshot(&s0);
	t0 = hw_rdtsc(NULL);
	for (i = 0; i < n && !o.source; i++)
		run(clk, ms[i], win, &o);
	t1 = hw_rdtsc(NULL);
	have = have && !pv_snapshot(&s1);
	use = o.source && !*chosen;
	if (use) {
		*chosen = 1;
		tsc_khz = khz(o.tsc_hz);
		lapic_khz = khz(o.lapic_hz);
	}
	if (o.bound && !strcmp(o.bound, "missed"))	/* after the timing */
		kprintf("calib: %s: bound %lu ppm, above the %u ppm target: "
			"window %u us of at most %u, %u tries\n",
			calib_source_name(o.source), o.fit.bound_ppm,
			o.fit.target_ppm, o.fit.window_us, o.fit.max_us,
			o.fit.tries);
	print(&o, win, have, &s0, &s1, t1 - t0, use);
	return use;
}

static void windows(struct window *w)
{
	w->start_us = cmdline_uint("calib_us", CALIB_WINDOW_US, 1,
				   CALIB_MAX_WINDOW_US);
	w->max_us = cmdline_uint("calib_max_us", CALIB_MAX_WINDOW_US, 1,
				 CALIB_MAX_WINDOW_US);
	if (w->max_us < w->start_us) {
		kprintf("calib: calib_max_us=%u is below calib_us: using %u\n",
			w->max_us, w->start_us);
		w->max_us = w->start_us;
	}
}

void calib_boot(const struct mbinfo *mbi)
{
	static const enum method autos[] = { M_CPUID, M_PIT, M_PMTIMER };
	static const enum method every[] = {
		M_CPUID15, M_CPUID16, M_HV, M_PIT, M_PMTIMER, M_HPET,
	};
	struct calib_clock clk = {
		.cpuid = hw_cpuid, .rdtsc = hw_rdtsc,
		.inp = hw_in, .outp = hw_out,
	};
	const char *want = cmdline_get("calib");
	struct window win;
	int chosen = 0;
	unsigned i;

	if (lapic_init() != LAPIC_NONE) {
		clk.lapic_arm = hw_lapic_arm;
		clk.lapic_read = hw_lapic_read;
	}
	find_pm_timer(mbi, &clk);
	windows(&win);
	kprintf("calib: %s, PM timer %s0x%x, window %u us (up to %u us)\n",
		clk.lapic_arm ? "local APIC" : "no local APIC",
		clk.pm_port ? "at port " : "none, ", clk.pm_port, win.start_us,
		win.max_us);
	if (want && (!strcmp(want, "hpet") || !strcmp(want, "all")))
		find_hpet(mbi, &clk);	/* only asked: MMIO exits otherwise */

	pv_phase(IRQLAB_PHASE_CALIB);
	if (!want || !strcmp(want, "auto")) {
		group(&clk, autos, 3, &win, &chosen);
	} else if (!strcmp(want, "all")) {
		for (i = 0; i < sizeof(every) / sizeof(every[0]); i++)
			group(&clk, &every[i], 1, &win, &chosen);
	} else {
		for (i = 0; i < sizeof(method_names) / sizeof(method_names[0]);
		     i++)
			if (!strcmp(want, method_names[i]))
				break;
		if (i == sizeof(method_names) / sizeof(method_names[0])) {
			kprintf("calib: unknown calib=%s (auto, cpuid, pit, "
				"pmtimer, hpet, all): using auto\n", want);
			group(&clk, autos, 3, &win, &chosen);
		} else {
			enum method m = i;

			group(&clk, &m, 1, &win, &chosen);
		}
	}
	hpet_stop();
	pv_phase(IRQLAB_PHASE_EARLY);
}
