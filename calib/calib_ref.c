// SPDX-License-Identifier: MIT
/*
 * The polled references: PIT channel 2, the ACPI PM timer and the HPET's
 * main counter.  Each
 * measures the TSC against the reference and, on request, the APIC timer
 * against the TSC in the same window.  Every port access goes through
 * clk->inp/outp and every HPET read through clk->hpet_read, and each is
 * counted.
 *
 * The TSC is the stopwatch: each event (the PIT count loaded, OUT2 seen
 * high, a PM timer or APIC read) is bracketed by TSC reads, and the
 * bracket's half width is that event's timing error (docs/CALIB.md).
 */
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "calib_int.h"
#include "hw/pit.h"

/* 8254 control word (8254 data sheet, "Control Word Format"): counter 2
 * (SC = 10), LSB then MSB (RW = 11), mode 0 (M = 000), binary: 0xb0.
 * kernel/dev/pit.c's pit_ch2_start() is the same sequence, untimed. */
#define PIT_CW_CH2_MODE0	(PIT_SC(2) | PIT_RW_BOTH | PIT_MODE(0))
#define SYSB_GATE2		SYS_B_GATE2
#define SYSB_SPEAKER		SYS_B_SPKR
#define SYSB_OUT2		SYS_B_OUT2

static uint32_t in8(const struct calib_clock *clk, struct calib_result *r,
		    uint16_t port)
{
	r->pio++;
	return clk->inp(clk->ctx, port, 1) & 0xff;
}

static void out8(const struct calib_clock *clk, struct calib_result *r,
		 uint16_t port, uint8_t v)
{
	r->pio++;
	clk->outp(clk->ctx, port, 1, v);
}

static int prepare(const struct calib_clock *clk, uint32_t *window_us,
		   struct calib_result *tsc, struct calib_result *lapic,
		   enum calib_source src)
{
	if (!tsc)
		return CALIB_EINVAL;
	calib_clear(tsc, src);
	if (lapic)
		calib_clear(lapic, src);
	if (!clk || *window_us > CALIB_MAX_WINDOW_US)
		return CALIB_EINVAL;
	if (!*window_us)
		*window_us = CALIB_WINDOW_US;
	if (!clk->rdtsc || (src != CALIB_SRC_HPET && !clk->inp))
		return CALIB_ENODEV;
	if (lapic && (!clk->lapic_arm || !clk->lapic_read))
		return CALIB_ENODEV;
	return 0;
}

static void lapic_sample(const struct calib_clock *clk,
			 struct calib_result *lapic, struct calib_stamp *s,
			 uint32_t *count)
{
	s->before = calib_tsc(clk);
	*count = clk->lapic_read(clk->ctx);
	s->after = calib_tsc(clk);
	lapic->apic++;
}

static void lapic_stop(const struct calib_clock *clk,
		       struct calib_result *lapic)
{
	if (lapic) {
		clk->lapic_arm(clk->ctx, 0);
		lapic->apic++;
	}
}

/*
 * The TSC over @ref reference ticks at @ref_hz, between events @s and
 * @e; the reference count itself is good to one tick.
 */
static int tsc_result(struct calib_result *tsc, const struct calib_stamp *s,
		      const struct calib_stamp *e, uint64_t ref,
		      uint64_t ref_hz)
{
	uint64_t d = stamp_mid(e) - stamp_mid(s);

	if (e->after <= s->before || !d)
		return CALIB_ESTUCK;	/* the TSC did not move */
	tsc->hz = calib_muldiv(d, ref_hz, ref);
	tsc->err_hz = calib_err(tsc->hz, 0, 0, stamp_half(s) +
				stamp_half(e) + 1, d, ref);
	tsc->window_ns = calib_muldiv(ref, NS_PER_S, ref_hz);
	tsc->ticks = d;
	return 0;
}

/* The APIC timer between two samples, timed by the TSC just measured. */
static int lapic_result(struct calib_result *lapic,
			const struct calib_result *tsc,
			const struct calib_stamp *s0, uint32_t c0,
			const struct calib_stamp *s1, uint32_t c1)
{
	uint64_t d = stamp_mid(s1) - stamp_mid(s0), n = (uint64_t)c0 - c1;

	if (c1 >= c0 || !d)
		return CALIB_ESTUCK;
	if (!c1)
		return CALIB_ERANGE;	/* the count ran out */
	lapic->hz = calib_muldiv(n, tsc->hz, d);
	lapic->err_hz = calib_err(lapic->hz, tsc->err_hz, tsc->hz,
				  stamp_half(s0) + stamp_half(s1) + 1, d, n);
	lapic->window_ns = calib_muldiv(d, NS_PER_S, tsc->hz);
	lapic->ticks = n;
	return 0;
}

/*
 * PIT channel 2, mode 0 ("interrupt on terminal count", 8254 data
 * sheet): writing the control word sets OUT low; the count is loaded
 * with its MSB, and OUT goes high when it reaches 0.  Port 0x61 bit 0
 * gates channel 2 and bit 5 reads its OUT (IBM PC AT technical reference,
 * port B).  We count N = window * 1193182 Hz ticks from the MSB write.
 *
 * The data sheet loads the count on the next CLK pulse, so OUT rises
 * N to N + 1 periods after the write; the VMMs (KVM, QEMU, irqlab's)
 * load it at the write and take exactly N.  We use N, and the bound
 * covers the one extra period (the reference's 1/N term).
 *
 * OUT rose after poll k-1 read it low and before poll k read it high:
 * between the TSC stamp before poll k-1 and the one after poll k.
 */
int calib_pit(const struct calib_clock *clk, uint32_t window_us,
	      struct calib_result *tsc, struct calib_result *lapic)
{
	struct calib_stamp s, e, l0, l1;
	uint64_t t, t_prev, t_prev2;
	uint32_t sysb, latch, limit, c0 = 0, c1 = 0;
	int err;

	err = prepare(clk, &window_us, tsc, lapic, CALIB_SRC_PIT);
	if (err)
		return err;
	if (!clk->outp)
		return CALIB_ENODEV;
	latch = (uint32_t)calib_muldiv(CALIB_PIT_HZ, window_us, US_PER_S);
	if (latch < 2)
		return CALIB_EINVAL;

	sysb = in8(clk, tsc, CALIB_PORT_SYS_B);
	if (sysb == 0xff)
		return CALIB_ENODEV;	/* nothing answers: all-ones */
	out8(clk, tsc, CALIB_PORT_SYS_B, (sysb & ~SYSB_SPEAKER) | SYSB_GATE2);
	out8(clk, tsc, CALIB_PORT_PIT_CMD, PIT_CW_CH2_MODE0);
	out8(clk, tsc, CALIB_PORT_PIT_CH2, latch & 0xff);
	if (lapic) {
		clk->lapic_arm(clk->ctx, 0xffffffffu);
		lapic->apic++;
	}
	s.before = calib_tsc(clk);
	out8(clk, tsc, CALIB_PORT_PIT_CH2, latch >> 8);
	s.after = calib_tsc(clk);
	if (lapic)
		lapic_sample(clk, lapic, &l0, &c0);
	t_prev = t_prev2 = calib_tsc(clk);

	limit = calib_max_polls(window_us);
	for (;;) {
		uint32_t v = in8(clk, tsc, CALIB_PORT_SYS_B);

		t = calib_tsc(clk);
		tsc->polls++;
		if (v & SYSB_OUT2)
			break;
		t_prev2 = t_prev;
		t_prev = t;
		if (tsc->polls >= limit) {
			err = CALIB_ESTUCK;	/* OUT2 never rose */
			goto out;
		}
	}
	if (tsc->polls == 1) {
		err = CALIB_ESLOW;	/* high at once: no time to measure */
		goto out;
	}
	e.before = t_prev2;
	e.after = t;
	if (lapic)
		lapic_sample(clk, lapic, &l1, &c1);
	err = tsc_result(tsc, &s, &e, latch, CALIB_PIT_HZ);
	if (!err && lapic)
		err = lapic_result(lapic, tsc, &l0, c0, &l1, c1);
out:
	lapic_stop(clk, lapic);
	out8(clk, tsc, CALIB_PORT_SYS_B, sysb);		/* gate as it was */
	if (lapic) {
		lapic->polls = tsc->polls;
		lapic->pio = tsc->pio;
	}
	return err;
}

int calib_tsc_pit(const struct calib_clock *clk, uint32_t window_us,
		  struct calib_result *out)
{
	return calib_pit(clk, window_us, out, NULL);
}

int calib_lapic_pit(const struct calib_clock *clk, uint32_t window_us,
		    struct calib_result *out)
{
	struct calib_result tsc;

	return calib_pit(clk, window_us, &tsc, out);
}

/*
 * The ACPI PM timer (ACPI 6.5 4.8.3.3): a free-running 24-bit (or, with
 * FADT TMR_VAL_EXT, 32-bit) up-counter at 3.579545 MHz, read with a
 * 32-bit IN.  We read it, then poll it until the window's ticks passed;
 * the difference is taken modulo the counter's width, so one wrap (every
 * 4.69 s for 24 bits) in the window is harmless.  Each value read is good
 * to one tick, and each read happened inside its TSC bracket.
 */
static uint32_t pm_read(const struct calib_clock *clk, struct calib_result *r)
{
	r->pio++;
	return clk->inp(clk->ctx, clk->pm_port, 4);
}

int calib_pmtimer(const struct calib_clock *clk, uint32_t window_us,
		  struct calib_result *tsc, struct calib_result *lapic)
{
	struct calib_stamp s, e, l0, l1;
	uint32_t mask, p0, v, need, limit, c0 = 0, c1 = 0;
	uint64_t t_prev;
	int err;

	err = prepare(clk, &window_us, tsc, lapic, CALIB_SRC_PMTIMER);
	if (err)
		return err;
	if (!clk->pm_port)
		return CALIB_ENODEV;
	mask = clk->pm_32bit ? 0xffffffffu : 0xffffffu;
	need = (uint32_t)((uint64_t)window_us * CALIB_PM_HZ / US_PER_S) + 1;

	if (lapic) {
		clk->lapic_arm(clk->ctx, 0xffffffffu);
		lapic->apic++;
	}
	s.before = calib_tsc(clk);
	p0 = pm_read(clk, tsc);
	s.after = calib_tsc(clk);
	if (p0 == 0xffffffffu) {
		/* all-ones twice: no device answers (a real counter moved) */
		s.before = s.after;
		p0 = pm_read(clk, tsc);
		s.after = calib_tsc(clk);
		if (p0 == 0xffffffffu) {
			err = CALIB_ENODEV;
			goto out;
		}
	}
	p0 &= mask;
	if (lapic)
		lapic_sample(clk, lapic, &l0, &c0);
	t_prev = calib_tsc(clk);

	limit = calib_max_polls(window_us);
	for (;;) {
		v = pm_read(clk, tsc) & mask;
		e.after = calib_tsc(clk);
		tsc->polls++;
		if (((v - p0) & mask) >= need)
			break;
		t_prev = e.after;
		if (tsc->polls >= limit) {
			err = CALIB_ESTUCK;	/* the counter does not count */
			goto out;
		}
	}
	e.before = t_prev;
	if (lapic)
		lapic_sample(clk, lapic, &l1, &c1);
	err = tsc_result(tsc, &s, &e, (v - p0) & mask, CALIB_PM_HZ);
	if (!err && lapic)
		err = lapic_result(lapic, tsc, &l0, c0, &l1, c1);
out:
	lapic_stop(clk, lapic);
	if (lapic) {
		lapic->polls = tsc->polls;
		lapic->pio = tsc->pio;
	}
	return err;
}

int calib_tsc_pmtimer(const struct calib_clock *clk, uint32_t window_us,
		      struct calib_result *out)
{
	return calib_pmtimer(clk, window_us, out, NULL);
}

int calib_lapic_pmtimer(const struct calib_clock *clk, uint32_t window_us,
			struct calib_result *out)
{
	struct calib_result tsc;

	return calib_pmtimer(clk, window_us, &tsc, out);
}

/*
 * The HPET (IA-PC HPET 1.0a): a 64-bit up-counter (2.3.7) at GCAP_ID's
 * COUNTER_CLK_PERIOD femtoseconds (2.3.4), read with one 64-bit MMIO
 * load.  Polled as the PM timer is: read, then poll until the window's
 * ticks passed; each value read is good to one tick, and each read
 * happened inside its TSC bracket.  The kernel enables the counter.
 */
static uint64_t hpet_read(const struct calib_clock *clk,
			  struct calib_result *r)
{
	r->mmio++;
	return clk->hpet_read(clk->ctx);
}

int calib_hpet(const struct calib_clock *clk, uint32_t window_us,
	       struct calib_result *tsc, struct calib_result *lapic)
{
	struct calib_stamp s, e, l0, l1;
	uint64_t p0, v, need, hz, t_prev;
	uint32_t limit, c0 = 0, c1 = 0;
	int err;

	err = prepare(clk, &window_us, tsc, lapic, CALIB_SRC_HPET);
	if (err)
		return err;
	/* 2.3.4: a period of 0 or above 100 ns (10^8 fs) is not an HPET */
	if (!clk->hpet_read || !clk->hpet_period_fs ||
	    clk->hpet_period_fs > 100000000u)
		return CALIB_ENODEV;
	hz = (1000000000000000ull + clk->hpet_period_fs / 2) /
	     clk->hpet_period_fs;
	need = calib_muldiv(window_us, hz, US_PER_S) + 1;

	if (lapic) {
		clk->lapic_arm(clk->ctx, 0xffffffffu);
		lapic->apic++;
	}
	s.before = calib_tsc(clk);
	p0 = hpet_read(clk, tsc);
	s.after = calib_tsc(clk);
	if (lapic)
		lapic_sample(clk, lapic, &l0, &c0);
	t_prev = calib_tsc(clk);

	limit = calib_max_polls(window_us);
	for (;;) {
		v = hpet_read(clk, tsc);
		e.after = calib_tsc(clk);
		tsc->polls++;
		if (v - p0 >= need)
			break;
		t_prev = e.after;
		if (tsc->polls >= limit) {
			err = CALIB_ESTUCK;	/* the counter does not count */
			goto out;
		}
	}
	e.before = t_prev;
	if (lapic)
		lapic_sample(clk, lapic, &l1, &c1);
	err = tsc_result(tsc, &s, &e, v - p0, hz);
	if (!err && lapic)
		err = lapic_result(lapic, tsc, &l0, c0, &l1, c1);
out:
	lapic_stop(clk, lapic);
	if (lapic) {
		lapic->polls = tsc->polls;
		lapic->mmio = tsc->mmio;
	}
	return err;
}
