// SPDX-License-Identifier: MIT
/*
 * The HPET (hpet.h): IA-PC HPET specification 1.0a.  Sections cited are
 * that document's.
 *
 * Nothing ticks: the main counter is base_cnt plus the ticks since
 * base_ns while ENABLE_CNF is set, and frozen at base_cnt while it is
 * clear; it wraps at 2^64 (2.3.7).  Each timer keeps the counter value
 * of its next match (@due) and the value it was counted from (@from), so
 * "reached" survives the wrap; the host timer is armed for the earliest.
 */
#include <string.h>

#include "hpet.h"

#define NS_PER_S	1000000000ull
#define LOW32		0xffffffffull

static uint64_t ticks_of(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * HPET_HZ / NS_PER_S);
}

uint64_t hpet_counter(struct hpet *h)
{
	if (!(h->conf & HPET_CONF_ENABLE))
		return h->base_cnt;
	return h->base_cnt + ticks_of(h->ops->now_ns(h->ctx) - h->base_ns);
}

/* the host time at which the counter, now at @c, reaches @cnt (ahead of
 * it, modulo 2^64), rounded up; UINT64_MAX past what a host clock will
 * reach */
static uint64_t ns_at(const struct hpet *h, uint64_t c, uint64_t cnt)
{
	unsigned __int128 ticks = (unsigned __int128)(c - h->base_cnt) +
				  (cnt - c);
	unsigned __int128 ns = (ticks * NS_PER_S + HPET_HZ - 1) / HPET_HZ +
			       h->base_ns;

	return ns >= UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* timer @t's match has come, the counter at @c */
static bool reached(const struct hpet_timer *t, uint64_t c)
{
	return t->due_valid && t->due - t->from <= c - t->from;
}

static bool is32(const struct hpet_timer *t)
{
	return t->conf & HPET_TN_32MODE;
}

/* ---- interrupt lines ---------------------------------------------------- */

/* 2.3.5 LEG_RT_CNF: timer 0 on IRQ0 (IOAPIC input 2 through the MADT's
 * override), timer 1 on IRQ8; else 2.3.8 Tn_INT_ROUTE_CNF.  -1: nowhere,
 * for the reset value 0, which Tn_INT_ROUTE_CAP does not offer (a timer
 * never routed interrupts no one, as in bhyve) */
static int route(const struct hpet *h, unsigned n, bool *isa)
{
	unsigned r = (unsigned)((h->t[n].conf & HPET_TN_ROUTE_MASK) >>
				HPET_TN_ROUTE_SHIFT);

	*isa = (h->conf & HPET_CONF_LEG_RT) && n < 2;
	if (*isa)
		return n == 0 ? 0 : 8;
	return HPET_ROUTE_CAP & (1u << r) ? (int)r : -1;
}

static void set_line(struct hpet *h, bool isa, unsigned line, int level)
{
	if (isa)
		h->ops->set_isa(h->ctx, line, level);
	else
		h->ops->set_gsi(h->ctx, line, level);
}

/* another timer than @n holds @line asserted (a level): timers that
 * share a line are wired together, so it stays high */
static bool held(const struct hpet *h, unsigned n, bool isa, unsigned line)
{
	unsigned i;

	for (i = 0; i < HPET_TIMERS; i++)
		if (i != n && h->t[i].line == (int)line &&
		    h->t[i].line_isa == isa)
			return true;
	return false;
}

static void lower(struct hpet *h, unsigned n)
{
	struct hpet_timer *t = &h->t[n];

	if (t->line < 0)
		return;
	if (!held(h, n, t->line_isa, (unsigned)t->line))
		set_line(h, t->line_isa, (unsigned)t->line, 0);
	t->line = -1;
}

/* A level timer's line follows its status bit while its interrupt is
 * enabled, on its route as it is now (after a change of either). */
static void relevel(struct hpet *h, unsigned n)
{
	struct hpet_timer *t = &h->t[n];
	bool isa;
	int line = route(h, n, &isa);
	bool want = (t->conf & HPET_TN_INT_TYPE) &&
		    (t->conf & HPET_TN_INT_ENB) && (h->isr & (1ull << n)) &&
		    line >= 0;

	if (t->line >= 0 && (!want || t->line != line || t->line_isa != isa))
		lower(h, n);
	if (want && t->line < 0) {
		if (!held(h, n, isa, (unsigned)line))
			set_line(h, isa, (unsigned)line, 1);
		t->line = line;
		t->line_isa = isa;
	}
}

/*
 * A match of timer n.  2.3.8 Tn_INT_ENB_CNF: "If this bit is 0, the timer
 * will still operate and generate appropriate status bits, but will not
 * cause an interrupt."  2.3.6: in level mode the status bit is set and
 * stays until software writes 1 to it; the line stays asserted as long.
 * In edge mode the status bit is not used.
 */
static void raise(struct hpet *h, unsigned n)
{
	struct hpet_timer *t = &h->t[n];
	bool isa;
	int line = route(h, n, &isa);

	if (t->conf & HPET_TN_INT_TYPE) {
		h->isr |= 1ull << n;
		if (!(t->conf & HPET_TN_INT_ENB) || t->line >= 0 || line < 0)
			return;		/* not enabled, asserted, no route */
		if (!held(h, n, isa, (unsigned)line))
			set_line(h, isa, (unsigned)line, 1);
		t->line = line;
		t->line_isa = isa;
	} else {
		if (!(t->conf & HPET_TN_INT_ENB) || line < 0 ||
		    held(h, n, isa, (unsigned)line))
			return;		/* off, no route, or high already */
		set_line(h, isa, (unsigned)line, 1);
		set_line(h, isa, (unsigned)line, 0);
	}
	h->stats.irqs[n]++;
}

/* ---- matches ------------------------------------------------------------ */

/*
 * The next match from counter value @c on.  2.3.9: the comparator matches
 * when the main counter equals it; a 32-bit timer (Tn_32MODE_CNF, or a
 * 32-bit timer) compares the counter's low 32 bits, so it matches once
 * every 2^32 ticks.  A 64-bit comparator behind the counter matches after
 * the counter wraps (ns_at(): beyond any host deadline).  A match nobody
 * can see (edge, interrupt off, one-shot: no line, no status, no
 * comparator that moves) needs no host timer.
 */
static void plan(struct hpet *h, unsigned n, uint64_t c)
{
	struct hpet_timer *t = &h->t[n];

	t->due_valid = (h->conf & HPET_CONF_ENABLE) &&
		       (t->conf & (HPET_TN_INT_ENB | HPET_TN_INT_TYPE |
				   HPET_TN_TYPE));
	t->from = c;
	if (is32(t))
		t->due = c + (uint32_t)((uint32_t)t->cmp - (uint32_t)c);
	else
		t->due = t->cmp;
}

static void arm(struct hpet *h)
{
	uint64_t when = 0, c = hpet_counter(h);
	unsigned n;

	for (n = 0; n < HPET_TIMERS; n++) {
		uint64_t ns;

		if (!h->t[n].due_valid)
			continue;
		/* a match the counter passed since it was planned (a slow host
		 * between the last catch-up and now) is due at once, not
		 * after the wrap: the host timer fires and catches it up */
		if (reached(&h->t[n], c))
			ns = ns_at(h, c, c);
		else
			ns = ns_at(h, c, h->t[n].due);
		if (ns != UINT64_MAX && (!when || ns < when))
			when = ns;
	}
	if (when == h->deadline)
		return;
	h->deadline = when;
	if (when)
		h->stats.timer_arms++;
	h->ops->timer_arm(h->ctx, when);
}

/*
 * Timer n matched at t->due, the counter now at @c.  2.3.9.2.2: in
 * periodic mode the comparator is increased by the value last written to
 * it at each match.  A host timer that fired late can find several
 * periods gone: one interrupt for them, the rest counted as coalesced,
 * and the comparator on the next period still ahead (as the PIT model
 * does).  A one-shot 32-bit timer matches again when the low 32 bits
 * come round.  A period of 0 would match at once again: it stops there.
 */
static void fire(struct hpet *h, unsigned n, uint64_t c)
{
	struct hpet_timer *t = &h->t[n];
	uint64_t p = is32(t) ? t->period & LOW32 : t->period, k;

	raise(h, n);
	if (!(t->conf & HPET_TN_TYPE) && is32(t))
		p = 1ull << 32;
	else if (!(t->conf & HPET_TN_TYPE) || !p) {
		t->due_valid = false;
		return;
	}
	k = (c - t->due) / p + 1;	/* c is at or past due */
	h->stats.coalesced[n] += k - 1;
	if (t->conf & HPET_TN_TYPE)
		t->cmp = (t->cmp + k * p) & (is32(t) ? LOW32 : ~0ull);
	t->due += k * p;
	t->from = c;
}

/*
 * Every match due by now.  The host timer's expiry calls it, and so does
 * every register access first: a host timer running late (a loaded host)
 * must not show the guest a comparator, a status or a line that stood
 * still past its match, nor let a write land before a match that, by the
 * counter, came first.
 */
static void catch_up(struct hpet *h)
{
	uint64_t c = hpet_counter(h);
	unsigned n;

	for (n = 0; n < HPET_TIMERS; n++)
		if (reached(&h->t[n], c))
			fire(h, n, c);
}

void hpet_timer_expired(struct hpet *h)
{
	h->deadline = 0;
	catch_up(h);
	arm(h);
}

/* ---- registers ---------------------------------------------------------- */

uint64_t hpet_cap_id(void)
{
	return HPET_PERIOD_FS << HPET_CAP_PERIOD_SHIFT |
	       0x8086ull << HPET_CAP_VENDOR_SHIFT | HPET_CAP_LEG_RT |
	       HPET_CAP_COUNT_SIZE |
	       (uint64_t)(HPET_TIMERS - 1) << HPET_CAP_NUM_TIM_SHIFT | 1;
}

void hpet_init(struct hpet *h, const struct hpet_ops *ops, void *ctx)
{
	unsigned n;

	memset(h, 0, sizeof(*h));
	h->ops = ops;
	h->ctx = ctx;
	h->base_ns = ops->now_ns(ctx);
	for (n = 0; n < HPET_TIMERS; n++) {
		h->t[n].conf = (uint64_t)HPET_ROUTE_CAP <<
			       HPET_TN_ROUTE_CAP_SHIFT | HPET_TN_SIZE_CAP |
			       HPET_TN_PER_INT_CAP;
		h->t[n].cmp = ~0ull;	/* 2.3.9: the default */
		h->t[n].line = -1;
	}
}

/* a 4-byte access changes one half of a 64-bit register */
static uint64_t merge(uint64_t old, uint64_t val, uint64_t off, unsigned size)
{
	if (size == 8)
		return val;
	if (off & 4)
		return (old & LOW32) | (val << 32);
	return (old & ~LOW32) | (val & LOW32);
}

static uint64_t reg_read(struct hpet *h, uint64_t reg)
{
	unsigned n = (unsigned)((reg - 0x100) / 0x20);

	switch (reg) {
	case HPET_GCAP_ID:
		return hpet_cap_id();
	case HPET_GEN_CONF:
		return h->conf;
	case HPET_GINTR_STA:
		return h->isr;
	case HPET_MAIN_CNT:
		return hpet_counter(h);
	}
	if (reg < 0x100 || n >= HPET_TIMERS)
		return 0;		/* reserved */
	switch (reg - 0x100 - 0x20 * n) {
	case 0x00:
		return h->t[n].conf;
	case 0x08:
		return h->t[n].cmp;
	default:
		return 0;		/* FSB route: no FSB delivery */
	}
}

static void gen_conf(struct hpet *h, uint64_t v)
{
	uint64_t c = hpet_counter(h), old = h->conf;
	unsigned n;

	h->conf = v & (HPET_CONF_ENABLE | HPET_CONF_LEG_RT);
	if ((old ^ h->conf) & HPET_CONF_LEG_RT) {
		if (h->ops->legacy && (h->conf & HPET_CONF_LEG_RT))
			h->ops->legacy(h->ctx, true);
		for (n = 0; n < 2; n++)
			relevel(h, n);	/* a pending level moves with it */
		if (h->ops->legacy && !(h->conf & HPET_CONF_LEG_RT))
			h->ops->legacy(h->ctx, false);
	}
	if ((old ^ h->conf) & HPET_CONF_ENABLE) {
		/* 2.3.5 ENABLE_CNF: halted, the counter and the comparisons
		 * stop; it goes on from the value it stopped at */
		h->base_cnt = c;
		h->base_ns = h->ops->now_ns(h->ctx);
		for (n = 0; n < HPET_TIMERS; n++)
			plan(h, n, c);
	}
}

/*
 * 2.3.8 Tn_CONF: what software may write; the capabilities are read-only,
 * a route the capability does not offer is not taken ("the value read
 * back will not match what is written"), and Tn_FSB_EN_CNF needs
 * Tn_FSB_INT_DEL_CAP, which is 0.
 */
static void tn_conf(struct hpet *h, unsigned n, uint64_t v)
{
	struct hpet_timer *t = &h->t[n];
	const uint64_t rw = HPET_TN_INT_TYPE | HPET_TN_INT_ENB | HPET_TN_TYPE |
			    HPET_TN_VAL_SET | HPET_TN_32MODE |
			    HPET_TN_ROUTE_MASK;
	uint64_t old = t->conf, r;

	t->conf = (old & ~rw) | (v & rw);
	r = (t->conf & HPET_TN_ROUTE_MASK) >> HPET_TN_ROUTE_SHIFT;
	if (!(HPET_ROUTE_CAP & (1u << r)))
		t->conf = (t->conf & ~HPET_TN_ROUTE_MASK) |
			  (old & HPET_TN_ROUTE_MASK);
	if (!(t->conf & HPET_TN_INT_TYPE))
		h->isr &= ~(1ull << n);	/* edge: no status */
	relevel(h, n);
	if (is32(t)) {
		t->cmp &= LOW32;
		t->period &= LOW32;
	}
	plan(h, n, hpet_counter(h));
}

/*
 * 2.3.9 Tn_COMPARATOR.  One-shot: the value to match.  Periodic: the
 * value written is the period, added at each match; with Tn_VAL_SET_CNF
 * set the write also sets the comparator itself, and clears that bit
 * (Linux: VAL_SET, the first match, then the period).  A 32-bit timer
 * keeps only the low half.
 */
static void tn_cmp(struct hpet *h, unsigned n, uint64_t off, unsigned size,
		   uint64_t v)
{
	struct hpet_timer *t = &h->t[n];
	uint64_t keep = is32(t) ? LOW32 : ~0ull;

	if (is32(t) && size == 4 && (off & 4))
		return;			/* the upper half of a 32-bit timer */
	if (!(t->conf & HPET_TN_TYPE) || (t->conf & HPET_TN_VAL_SET))
		t->cmp = merge(t->cmp, v, off, size) & keep;
	if (t->conf & HPET_TN_TYPE)
		t->period = merge(t->period, v, off, size) & keep;
	t->conf &= ~HPET_TN_VAL_SET;
	plan(h, n, hpet_counter(h));
}

static void reg_write(struct hpet *h, uint64_t off, unsigned size,
		      uint64_t v)
{
	uint64_t reg = off & ~7ull;
	unsigned n = (unsigned)((reg - 0x100) / 0x20);

	switch (reg) {
	case HPET_GEN_CONF:
		gen_conf(h, merge(h->conf, v, off, size));
		return;
	case HPET_GINTR_STA:
		/* 2.3.6: writing 1 clears a level status; 0 does nothing */
		v = merge(0, v, off, size) & h->isr;
		for (n = 0; n < HPET_TIMERS; n++)
			if (v & (1ull << n))
				lower(h, n);
		h->isr &= ~v;
		return;
	case HPET_MAIN_CNT:
		/* 2.3.7: written while halted, as software should; taken at
		 * any time, counting on from the value written */
		h->base_cnt = merge(hpet_counter(h), v, off, size);
		h->base_ns = h->ops->now_ns(h->ctx);
		for (n = 0; n < HPET_TIMERS; n++)
			plan(h, n, h->base_cnt);
		return;
	}
	if (reg < 0x100 || n >= HPET_TIMERS)
		return;			/* read-only or reserved */
	switch (reg - 0x100 - 0x20 * n) {
	case 0x00:
		tn_conf(h, n, merge(h->t[n].conf, v, off, size));
		break;
	case 0x08:
		tn_cmp(h, n, off, size, v);
		break;
	default:
		break;			/* FSB route: no FSB delivery */
	}
}

static bool access_ok(struct hpet *h, uint64_t off, unsigned size)
{
	if ((size == 4 || size == 8) && !(off & (size - 1)) &&
	    off + size <= HPET_LEN)
		return true;
	h->stats.bad_accesses++;
	return false;
}

uint64_t hpet_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct hpet *h = opaque;
	uint64_t v;

	(void)cpu;
	if (!access_ok(h, off, size))
		return ~0ull;
	catch_up(h);
	arm(h);
	v = reg_read(h, off & ~7ull);
	if (size == 4)
		v = (off & 4) ? v >> 32 : v & LOW32;
	return v;
}

void hpet_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu)
{
	struct hpet *h = opaque;

	(void)cpu;
	if (!access_ok(h, off, size))
		return;
	catch_up(h);
	reg_write(h, off, size, size == 4 ? val & LOW32 : val);
	arm(h);
}
