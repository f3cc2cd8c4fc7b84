// SPDX-License-Identifier: MIT
/*
 * A polled reference's window, driven by its error bound.
 *
 * The bound of a polled measurement (calib_err(), docs/CALIB.md) is the
 * sum of: the timing error of the window's two edges (the half widths
 * of the TSC brackets around the reference's and the APIC timer's edge
 * events, which is what reading the reference, the TSC and the APIC
 * timer costs there) over the window; one reference tick over the
 * reference's count (the PIT's or PM timer's granularity); one tick of
 * the measured clock over its count; and, for the APIC timer, the TSC's
 * own bound.  While the edges cost what they cost, every term falls as
 * 1/window.  So a result with bound b at window W says that the window
 * W * b / target meets the target: we ask a quarter more, as the edges'
 * cost varies from one measurement to the next, and at least twice W,
 * so that the widest window is reached in a few steps.
 *
 * A window that runs out before its first poll (CALIB_ESLOW: the host's
 * port reads take longer than it) gives no result, and is doubled.
 *
 * A result looser than CALIB_REF_GOOD_PPM is not a slow reference but a
 * slow moment (a vCPU thread descheduled inside an edge's access): it is
 * measured again at the same window, as often as CALIB_REF_TRIES allows,
 * before the window is widened on its account.
 */
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "calib_int.h"

static int measure(const struct calib_clock *clk, enum calib_source ref,
		   uint32_t window_us, struct calib_result *tsc,
		   struct calib_result *lapic)
{
	if (ref == CALIB_SRC_PIT)
		return calib_pit(clk, window_us, tsc, lapic);
	if (ref == CALIB_SRC_HPET)
		return calib_hpet(clk, window_us, tsc, lapic);
	return calib_pmtimer(clk, window_us, tsc, lapic);
}

/* The bound that decides: the APIC timer's (it holds the TSC's) when it
 * was measured, else the TSC's. */
static uint64_t decisive_ppm(const struct calib_result *tsc,
			     const struct calib_result *lapic, int err)
{
	if (lapic && !err && lapic->hz)
		return calib_ppm(lapic->err_hz, lapic->hz);
	return calib_ppm(tsc->err_hz, tsc->hz);
}

/* W * b / target, a quarter more, at least 2 W, at most @max_us */
static uint32_t next_window(uint32_t w, uint64_t b, uint32_t target,
			    uint32_t max_us)
{
	uint64_t want = calib_muldiv(w, b, target);

	if (want >= max_us)
		return max_us;
	want += want / 4 + 1;
	if (want < 2ull * w)
		want = 2ull * w;
	return want > max_us ? max_us : (uint32_t)want;
}

static int fit_start(struct calib_fit *f, enum calib_source ref)
{
	*f = (struct calib_fit){
		.start_us = f->start_us ? f->start_us : CALIB_WINDOW_US,
		.max_us = f->max_us ? f->max_us : CALIB_MAX_WINDOW_US,
		.target_ppm = f->target_ppm ? f->target_ppm : CALIB_TARGET_PPM,
	};
	if (ref != CALIB_SRC_PIT && ref != CALIB_SRC_PMTIMER &&
	    ref != CALIB_SRC_HPET)
		return CALIB_EINVAL;
	if (f->max_us > CALIB_MAX_WINDOW_US || f->start_us > f->max_us)
		return CALIB_EINVAL;
	return 0;
}

int calib_fit(const struct calib_clock *clk, enum calib_source ref,
	      struct calib_fit *f, struct calib_result *tsc,
	      struct calib_result *lapic)
{
	struct calib_result t, a, *l = lapic ? &a : NULL;
	uint64_t b, kept = UINT64_MAX, here = UINT64_MAX, here_tsc = 0;
	uint32_t w, at_w = 0;
	int err, e;

	if (!f || !tsc)
		return CALIB_EINVAL;
	calib_clear(tsc, ref);
	if (lapic)
		calib_clear(lapic, ref);
	err = fit_start(f, ref);
	if (err)
		return err;
	for (w = f->start_us; f->tries < CALIB_FIT_TRIES;) {
		e = measure(clk, ref, w, &t, l);
		f->tries++;
		at_w++;
		f->polls += t.polls;
		f->pio += t.pio;
		f->mmio += t.mmio;
		f->apic += l ? a.apic : 0;
		if (!t.hz && e == CALIB_ESLOW && w < f->max_us) {
			/* the window ran out before its first poll: on this
			 * host a port read takes longer than it; twice as wide */
			w = next_window(w, 0, f->target_ppm, f->max_us);
			f->widened++;
			at_w = 0;
			here = UINT64_MAX;
			continue;
		}
		if (!t.hz) {		/* no result: a clock absent or stuck */
			if (!tsc->hz)
				err = e;
			break;
		}
		b = decisive_ppm(&t, l, e);
		/* keep the tightest, a result with a good APIC timer first */
		if (!tsc->hz || (!e && err) || (!e == !err && b < kept)) {
			*tsc = t;
			if (lapic)
				*lapic = a;
			err = e;
			kept = b;
			f->window_us = w;
		}
		if (kept <= f->target_ppm)
			break;
		if (b < here) {
			here = b;
			here_tsc = calib_ppm(t.err_hz, t.hz);
		}
		if (here_tsc > CALIB_REF_GOOD_PPM && at_w < CALIB_REF_TRIES)
			continue;	/* a slow moment: again, same window */
		if (w >= f->max_us)
			break;		/* the widest window: the bound stays */
		w = next_window(w, here, f->target_ppm, f->max_us);
		f->widened++;
		at_w = 0;
		here = UINT64_MAX;
	}
	if (tsc->hz) {
		f->bound_ppm = kept;
		f->met = kept <= f->target_ppm;
	}
	return err;
}
