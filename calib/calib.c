// SPDX-License-Identifier: MIT
/*
 * The TSC frequency from the CPUID frequency leaves, the APIC timer
 * against a known TSC, and the arithmetic every method shares.
 *
 * CPUID leaves are as Intel SDM vol. 2A, "CPUID", describes them: leaf
 * 0x15 "Time Stamp Counter and Nominal Core Crystal Clock Information",
 * leaf 0x16 "Processor Frequency Information".  Leaf 0x40000010 is the
 * VMware timing leaf that QEMU, illumos and Linux (vmware.c) also read.
 */
#include <stdint.h>

#include "calib.h"
#include "calib_int.h"

#define CPUID_1_ECX_HYPERVISOR	(1u << 31)
#define CPUID_HV_BASE		0x40000000u
#define CPUID_HV_TIMING		0x40000010u
#define CPUID_HV_END		0x4000ffffu	/* a max above this is garbage */

uint64_t calib_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p, q = 0, r = hi;
	int i;

	if (!c || hi >= c)
		return UINT64_MAX;
	if (!hi)
		return lo / c;
	/* long division of hi:lo by c, one bit at a time: no libgcc call */
	for (i = 63; i >= 0; i--) {
		uint64_t top = r >> 63;

		r = r << 1 | (lo >> i & 1);
		if (top || r >= c) {
			r -= c;
			q |= 1ull << i;
		}
	}
	return q;
}

uint64_t calib_ppm(uint64_t err_hz, uint64_t hz)
{
	uint64_t p;

	if (!hz)
		return 0;
	p = calib_muldiv(err_hz, US_PER_S, hz);
	if (p != UINT64_MAX && calib_muldiv(p, hz, US_PER_S) < err_hz)
		p++;
	return p;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

uint64_t calib_err(uint64_t hz, uint64_t ef, uint64_t f, uint64_t u,
		   uint64_t d, uint64_t n)
{
	uint64_t e = 1;		/* the rounding of @hz itself */

	if (ef && f)
		e = sat_add(e, calib_muldiv(hz, ef, f) + 1);
	if (d)
		e = sat_add(e, calib_muldiv(hz, u, d) + 1);
	if (n)
		e = sat_add(e, hz / n + 1);
	return e;
}

const char *calib_source_name(enum calib_source s)
{
	static const char *const names[CALIB_NR_SRC] = {
		[CALIB_SRC_NONE] = "none",
		[CALIB_SRC_CPUID15] = "cpuid15",
		[CALIB_SRC_CPUID16] = "cpuid16",
		[CALIB_SRC_HV] = "hv",
		[CALIB_SRC_PIT] = "pit",
		[CALIB_SRC_PMTIMER] = "pmtimer",
		[CALIB_SRC_RDTSC] = "rdtsc",
		[CALIB_SRC_HPET] = "hpet",
	};

	return (unsigned)s < CALIB_NR_SRC ? names[s] : "none";
}

const char *calib_strerror(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case CALIB_EINVAL:
		return "invalid";
	case CALIB_ENODEV:
		return "absent";
	case CALIB_ESTUCK:
		return "stuck";
	case CALIB_ESLOW:
		return "slow";
	case CALIB_ERANGE:
		return "range";
	default:
		return "unknown";
	}
}

/* ---- CPUID ---- */

struct leaves {
	const struct calib_clock *clk;
	struct calib_cpuid *out;
	int have_basic, have_hv;
};

static void leaf(struct leaves *l, uint32_t fn, uint32_t r[4])
{
	/* ECX = 0: leaves 0x15 and 0x16 have no subleaves, but a CPU
	 * reads ECX for some leaves, so it is never left undefined */
	r[0] = r[1] = r[2] = r[3] = 0;
	l->clk->cpuid(l->clk->ctx, fn, 0, r);
	l->out->cpuid_calls++;
}

static uint32_t max_basic(struct leaves *l)
{
	uint32_t r[4];

	if (!l->have_basic) {
		leaf(l, 0, r);
		l->out->max_basic = r[0];
		l->have_basic = 1;
	}
	return l->out->max_basic;
}

/*
 * The hypervisor leaves exist only if CPUID.1:ECX[31] says a hypervisor
 * is there; without one, Intel CPUs answer 0x40000000 with the data of the
 * highest basic leaf (SDM vol. 2A, CPUID: "If a value entered for CPUID.EAX
 * is higher than the maximum input value ... the data for the highest
 * basic information leaf is returned").
 */
static uint32_t max_hv(struct leaves *l)
{
	uint32_t r[4];

	if (!l->have_hv) {
		l->have_hv = 1;
		l->out->max_hv = 0;
		if (max_basic(l) < 1)
			return 0;
		leaf(l, 1, r);
		if (!(r[2] & CPUID_1_ECX_HYPERVISOR))
			return 0;
		leaf(l, CPUID_HV_BASE, r);
		if (r[0] >= CPUID_HV_BASE && r[0] <= CPUID_HV_END)
			l->out->max_hv = r[0];
	}
	return l->out->max_hv;
}

/*
 * Leaf 0x15: TSC = crystal Hz (ECX) * EBX / EAX.  EBX = 0 means the ratio
 * is not enumerated, ECX = 0 that the crystal is not; then the leaf gives
 * no frequency (Linux would look up the crystal by CPU model; we fall back
 * to leaf 0x16).  The product is exact; the only error is the rounding
 * of the division.  That is the leaf's precision, not the VMM's: a VMM
 * may round the ratio it encodes (irqlab-vmm does, by up to 27 ppm with
 * its 1 GHz crystal, so that Linux's 32-bit arithmetic holds it:
 * docs/CALIB.md), and no leaf says so.
 */
static int leaf_15(struct leaves *l)
{
	/* LAB calib: begin
	 * CPUID leaf 0x15 (SDM vol. 2A, CPUID, "Time Stamp Counter and
	 * Nominal Core Crystal Clock Information Leaf"): EAX the ratio's
	 * denominator, EBX its numerator, ECX the crystal in Hz.  The TSC
	 * runs at ECX * EBX / EAX Hz (calib_muldiv(): no overflow); any of
	 * the three 0 means the leaf gives no rate (CALIB_ENODEV), as does a
	 * maximum basic leaf below 0x15 (max_basic()).  Fill l->out->tsc_hz,
	 * its error tsc_err_hz (the division's rounding: 1 Hz) and bus_hz
	 * (the crystal, which clocks the APIC timer).  Read it with leaf().
	 * Graded by the calib_cpuid tests and @calib in a boot.
	 * stub: (void)l;
	 * stub: return CALIB_ENODEV;
	 */
	uint32_t r[4];

	if (max_basic(l) < 0x15)
		return CALIB_ENODEV;
	leaf(l, 0x15, r);
	if (!r[0] || !r[1] || !r[2])
		return CALIB_ENODEV;
	l->out->tsc_hz = calib_muldiv(r[2], r[1], r[0]);
	l->out->tsc_err_hz = 1;
	l->out->bus_hz = r[2];
	return 0;
	/* LAB calib: end */
}

/*
 * Leaf 0x16: EAX[15:0] the base frequency in MHz, ECX[15:0] the bus
 * (reference) frequency in MHz.  The SDM does not say whether the MHz
 * value is rounded or truncated, so it is good to 1 MHz.
 */
static int leaf_16(struct leaves *l)
{
	/* LAB calib: begin
	 * CPUID leaf 0x16 ("Processor Frequency Information Leaf"): EAX[15:0]
	 * the base frequency in MHz, ECX[15:0] the bus (reference) frequency
	 * in MHz; 0 in EAX, or a maximum basic leaf below 0x16, means none.
	 * It is good to 1 MHz (tsc_err_hz).
	 * stub: (void)l;
	 * stub: (void)max_basic;
	 * stub: return CALIB_ENODEV;
	 */
	uint32_t r[4];

	if (max_basic(l) < 0x16)
		return CALIB_ENODEV;
	leaf(l, 0x16, r);
	if (!(r[0] & 0xffff))
		return CALIB_ENODEV;
	l->out->tsc_hz = (uint64_t)(r[0] & 0xffff) * 1000000;
	l->out->tsc_err_hz = 1000000;
	l->out->bus_hz = (uint64_t)(r[2] & 0xffff) * 1000000;
	return 0;
	/* LAB calib: end */
}

/* Leaf 0x40000010: EAX the TSC in kHz, EBX the APIC bus in kHz. */
static int leaf_hv(struct leaves *l)
{
	uint32_t r[4];

	if (max_hv(l) < CPUID_HV_TIMING)
		return CALIB_ENODEV;
	leaf(l, CPUID_HV_TIMING, r);
	if (!r[0])
		return CALIB_ENODEV;
	l->out->tsc_hz = (uint64_t)r[0] * 1000;
	l->out->tsc_err_hz = 1000;
	l->out->bus_hz = (uint64_t)r[1] * 1000;
	return 0;
}

static int read_leaf(struct leaves *l, enum calib_source which)
{
	int err;

	switch (which) {
	case CALIB_SRC_CPUID15:
		err = leaf_15(l);
		break;
	case CALIB_SRC_CPUID16:
		err = leaf_16(l);
		break;
	case CALIB_SRC_HV:
		err = leaf_hv(l);
		break;
	default:
		return CALIB_EINVAL;
	}
	if (err) {
		l->out->tsc_hz = l->out->tsc_err_hz = l->out->bus_hz = 0;
		return err;
	}
	l->out->source = which;
	return 0;
}

static int cpuid_start(const struct calib_clock *clk, struct calib_cpuid *out,
		       struct leaves *l)
{
	if (!clk || !out)
		return CALIB_EINVAL;
	*out = (struct calib_cpuid){ .source = CALIB_SRC_NONE };
	*l = (struct leaves){ .clk = clk, .out = out };
	return clk->cpuid ? 0 : CALIB_ENODEV;
}

int calib_cpuid_leaf(const struct calib_clock *clk, enum calib_source which,
		     struct calib_cpuid *out)
{
	struct leaves l;
	int err = cpuid_start(clk, out, &l);

	return err ? err : read_leaf(&l, which);
}

int calib_tsc_from_cpuid(const struct calib_clock *clk,
			 struct calib_cpuid *out)
{
	static const enum calib_source order[] = {
		CALIB_SRC_CPUID15, CALIB_SRC_CPUID16, CALIB_SRC_HV,
	};
	struct leaves l;
	unsigned i;
	int err = cpuid_start(clk, out, &l);

	if (err)
		return err;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!read_leaf(&l, order[i]))
			return 0;
	return CALIB_ENODEV;
}

/* ---- the APIC timer against the TSC ---- */

/* LAB calib: begin
 * calib_lapic_rdtsc() (calib.h says what it returns): the APIC timer's
 * rate against the TSC, whose rate the CPUID leaves gave, with no port
 * I/O at all.  Arm the timer at 0xffffffff (clk->lapic_arm), read its
 * current count (clk->lapic_read) at both ends of a window of
 * @window_us of TSC time (0: CALIB_WINDOW_US; at most
 * CALIB_MAX_WINDOW_US), and bracket each read between two TSC stamps
 * (calib_tsc()), so that the interval is known to the stamps' spread.
 * The spin must end even if the TSC stands still: give up after the
 * window's TSC ticks plus CALIB_SPIN_STALLS spins (CALIB_ESTUCK; the
 * nanvix hang).  A count that does not move or goes up is CALIB_ESTUCK,
 * one that ran out is CALIB_ERANGE.  Fill out->hz, err_hz (calib_err()),
 * window_ns, ticks, and count the APIC accesses in out->apic.
 * Graded by the calib_rdtsc tests and @calib in a boot.
 * stub: int calib_lapic_rdtsc(const struct calib_clock *clk, uint64_t tsc_hz,
 * stub: 		      uint64_t tsc_err_hz, uint32_t window_us,
 * stub: 		      struct calib_result *out)
 * stub: {
 * stub: 	(void)clk;
 * stub: 	(void)tsc_hz;
 * stub: 	(void)tsc_err_hz;
 * stub: 	(void)window_us;
 * stub: 	if (out)
 * stub: 		calib_clear(out, CALIB_SRC_RDTSC);
 * stub: 	return CALIB_ENODEV;
 * stub: }
 */
static int window_ok(uint32_t *window_us)
{
	if (!*window_us)
		*window_us = CALIB_WINDOW_US;
	return *window_us <= CALIB_MAX_WINDOW_US;
}

/*
 * Arm the timer at 0xffffffff (one-shot, masked, divide by 1), let the
 * TSC run @window_us, read the current count (SDM 11.5.4).  The count
 * started somewhere inside the arm op and was sampled somewhere inside
 * the read op: the TSC stamps around each op bound both, so the interval
 * is known to +- half of each op's length.
 */
/*
 * The current count, bracketed by two TSC stamps: the narrowest of
 * CALIB_COUNT_READS reads, as the one least stretched by a slow exit.
 */
#define CALIB_COUNT_READS	3

static uint32_t read_count(const struct calib_clock *clk,
			   struct calib_stamp *best, struct calib_result *out)
{
	struct calib_stamp s;
	uint32_t v, keep = 0;
	unsigned i;

	for (i = 0; i < CALIB_COUNT_READS; i++) {
		s.before = calib_tsc(clk);
		v = clk->lapic_read(clk->ctx);
		s.after = calib_tsc(clk);
		out->apic++;
		if (!i || s.after - s.before < best->after - best->before) {
			*best = s;
			keep = v;
		}
	}
	return keep;
}

int calib_lapic_rdtsc(const struct calib_clock *clk, uint64_t tsc_hz,
		      uint64_t tsc_err_hz, uint32_t window_us,
		      struct calib_result *out)
{
	struct calib_stamp a, b;
	uint64_t need, limit, t, d, n;
	uint32_t start, cur;

	if (!out)
		return CALIB_EINVAL;
	calib_clear(out, CALIB_SRC_RDTSC);
	if (!clk || !window_ok(&window_us) || !tsc_hz)
		return CALIB_EINVAL;
	if (!clk->rdtsc || !clk->lapic_arm || !clk->lapic_read)
		return CALIB_ENODEV;
	need = calib_muldiv(tsc_hz, window_us, US_PER_S);
	if (!need || need == UINT64_MAX)
		return CALIB_EINVAL;
	limit = need + CALIB_SPIN_STALLS;

	/*
	 * Both ends of the window are current-count reads, so the two
	 * stamps bracket accesses of one kind: under a hypervisor that
	 * traps them, where in its round trip the count is sampled is the
	 * same at both ends and cancels in the difference.  Timing from
	 * the arm (a write, handled differently) gave 0.65% on a host
	 * where a trapped access costs tens of microseconds; one read at
	 * each end, 0.05-0.35%; the narrowest of three, 0.01-0.11%.
	 */
	clk->lapic_arm(clk->ctx, 0xffffffffu);
	out->apic++;
	start = read_count(clk, &a, out);
	for (;;) {
		t = calib_tsc(clk);
		out->spins++;
		if (t >= a.after && t - a.after >= need)
			break;
		if (out->spins >= limit) {
			clk->lapic_arm(clk->ctx, 0);
			out->apic++;
			return CALIB_ESTUCK;
		}
	}
	cur = read_count(clk, &b, out);
	clk->lapic_arm(clk->ctx, 0);
	out->apic++;

	if (cur > start)
		return CALIB_ESTUCK;	/* counting up: not an APIC timer */
	n = start - cur;
	if (!n)
		return CALIB_ESTUCK;	/* the APIC timer does not count */
	if (!cur)
		return CALIB_ERANGE;	/* it ran out: n is a lower bound */
	d = stamp_mid(&b) - stamp_mid(&a);
	out->hz = calib_muldiv(n, tsc_hz, d);
	out->err_hz = calib_err(out->hz, tsc_err_hz, tsc_hz,
				stamp_half(&a) + stamp_half(&b) + 1, d, n);
	out->window_ns = calib_muldiv(d, NS_PER_S, tsc_hz);
	out->ticks = n;
	return 0;
}
/* LAB calib: end */
