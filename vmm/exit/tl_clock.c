// SPDX-License-Identifier: MIT
/*
 * The timeline's one clock: the guest's TSC.
 *
 * KVM's TSC offset puts irqlab-vmm's stamps on the guest's TSC exactly
 * where the host's TSC is stable: guest TSC = host TSC + offset is KVM's
 * own arithmetic (no scaling for irqlab).  Where the host marked its TSC
 * unstable, KVM resets the offset at every vcpu_load and catches it up
 * (kvm_arch_vcpu_load()), and the one read at the end is milliseconds
 * off (tests/nested/README.md "The rig's TSC").  So the order of events
 * is checked, and where the clock contradicts it, the clock is moved,
 * never the order:
 *
 *  - a vCPU's thread acts only while its vCPU is out of the guest, so the
 *    guest's last stamp before (index gcount - 1) came before each of its
 *    events, and its next stamp (index gcount) after: g <= h + e <= g';
 *  - a kick or wake came before the target took it, a post before its
 *    injection (struct tl_pair): h_s + e_s <= h_t + e_t.
 *
 * e, the error of a vCPU's offset, is taken over stretches of TL_SPAN
 * events.  The pairs are difference constraints (e_t - e_s >= h_s - h_t),
 * so the bounds flow both ways until they settle: a target's lower bound
 * from its sender's, and a sender's upper bound from its target's (a
 * sender whose next guest stamp is far away is held by where its target
 * stood).  Then, in each stretch, the least move from the stretch before
 * (from 0 at the start) that meets its bounds, so a right clock stays as
 * it is; where the bounds cross, their middle, counted unsure.  Last,
 * each event is held between its two guest stamps (tl_ev_time()).
 */
#include <stdlib.h>

#include "tl_internal.h"

#define TL_SPAN		32
#define TL_ROUNDS	3	/* the chosen offsets feed each other */
#define TL_SETTLE	16	/* passes for the bounds to settle */

struct span {
	int64_t lo, hi;		/* this round's bounds on e */
	int64_t own_lo, own_hi;	/* the vCPU's own */
};

static uint64_t raw(const struct tl_cpu *c, uint32_t i)
{
	return c->ev[i].tsc + (uint64_t)c->tsc_offset;
}

static void own_bounds(const struct tl_cpu *c, struct span *sp)
{
	uint32_t i, n = (c->n + TL_SPAN - 1) / TL_SPAN;
	int64_t d;

	for (i = 0; i < n; i++) {
		sp[i].own_lo = INT64_MIN;
		sp[i].own_hi = INT64_MAX;
	}
	for (i = 0; i < c->n; i++) {
		const struct tl_event *e = &c->ev[i];
		struct span *s = &sp[i / TL_SPAN];

		if (e->gcount > c->nst)
			continue;	/* dropped stamps, or a lie: no bound */
		if (e->gcount < c->nst) {
			d = (int64_t)(c->st[e->gcount].tsc - raw(c, i));
			s->own_hi = d < s->own_hi ? d : s->own_hi;
		}
		if (e->gcount) {
			d = (int64_t)(c->st[e->gcount - 1].tsc - raw(c, i));
			s->own_lo = d > s->own_lo ? d : s->own_lo;
		}
	}
}

/* raw(t) - raw(s) for pair @q: e_s - e_t may be at most this */
static int64_t gap(const struct tl_cpu *cpu, const struct tl_pair *q)
{
	return (int64_t)(raw(&cpu[q->t], q->kt) - raw(&cpu[q->s], q->ks));
}

/* Each pair's bounds both ways until none moves: e_t >= e_s - g and
 * e_s <= e_t + g.  A stretch whose bounds crossed passes nothing on. */
static void settle(const struct tl_cpu *cpu, struct span **sp,
		   const struct tl_pair *p, uint32_t np)
{
	unsigned pass;
	uint32_t i;
	int moved = 1;

	for (pass = 0; moved && pass < TL_SETTLE; pass++) {
		moved = 0;
		for (i = 0; i < np; i++) {
			struct span *s = &sp[p[i].s][p[i].ks / TL_SPAN];
			struct span *t = &sp[p[i].t][p[i].kt / TL_SPAN];
			int64_t g = gap(cpu, &p[i]);

			if (s->lo > s->hi || t->lo > t->hi)
				continue;
			if (s->lo != INT64_MIN && s->lo - g > t->lo) {
				t->lo = s->lo - g;
				moved = 1;
			}
			if (t->hi != INT64_MAX && t->hi + g < s->hi) {
				s->hi = t->hi + g;
				moved = 1;
			}
		}
	}
}

/* e per stretch, the least move from the one before; @fix per event */
static void choose(const struct tl_cpu *c, const struct span *sp,
		   int64_t *fix, int64_t range[2], uint32_t *unsure)
{
	int64_t e = 0;
	uint32_t i;

	range[0] = c->n ? INT64_MAX : 0;
	range[1] = c->n ? INT64_MIN : 0;
	*unsure = 0;
	for (i = 0; i < c->n; i++) {
		const struct span *s = &sp[i / TL_SPAN];

		if (i % TL_SPAN == 0) {
			if (s->lo > s->hi) {
				e = s->lo / 2 + s->hi / 2;
				(*unsure)++;
			} else if (e < s->lo) {
				e = s->lo;
			} else if (e > s->hi) {
				e = s->hi;
			}
			range[0] = e < range[0] ? e : range[0];
			range[1] = e > range[1] ? e : range[1];
		}
		fix[i] = e;
	}
}

int tl_clock(struct tl_cpu *cpu, unsigned ncpu, const struct tl_pair *p,
	     uint32_t np, int64_t (*range)[2], uint32_t *unsure)
{
	struct span **sp = calloc(ncpu ? ncpu : 1, sizeof(*sp));
	int64_t **fix = calloc(ncpu ? ncpu : 1, sizeof(*fix));
	unsigned c, round;
	uint32_t i;
	int err = 0;

	for (c = 0; sp && fix && c < ncpu; c++) {
		sp[c] = calloc(cpu[c].n / TL_SPAN + 1, sizeof(**sp));
		fix[c] = calloc(cpu[c].n + 1, sizeof(**fix));
		if (!sp[c] || !fix[c])
			break;
		own_bounds(&cpu[c], sp[c]);
	}
	if (!sp || !fix || c < ncpu) {
		err = -1;
		goto out;
	}
	for (round = 0; round < TL_ROUNDS; round++) {
		for (c = 0; c < ncpu; c++)
			for (i = 0; i <= cpu[c].n / TL_SPAN; i++) {
				sp[c][i].lo = sp[c][i].own_lo;
				sp[c][i].hi = sp[c][i].own_hi;
			}
		settle(cpu, sp, p, np);
		/* the target's event no earlier than the sender's, as chosen */
		for (i = 0; round && i < np; i++) {
			struct span *s = &sp[p[i].t][p[i].kt / TL_SPAN];
			int64_t d = (int64_t)(raw(&cpu[p[i].s], p[i].ks) +
					      (uint64_t)fix[p[i].s][p[i].ks] -
					      raw(&cpu[p[i].t], p[i].kt));

			s->lo = d > s->lo ? d : s->lo;
		}
		for (c = 0; c < ncpu; c++)
			choose(&cpu[c], sp[c], fix[c], range[c], &unsure[c]);
	}
	for (c = 0; c < ncpu; c++) {
		cpu[c].fix = fix[c];
		fix[c] = NULL;
	}
out:
	for (c = 0; c < ncpu; c++) {
		if (sp)
			free(sp[c]);
		if (fix)
			free(fix[c]);
	}
	free(sp);
	free(fix);
	return err;
}

uint64_t tl_ev_time(const struct tl_cpu *c, const struct tl_event *e)
{
	uint64_t t = e->tsc + (uint64_t)c->tsc_offset +
		     (c->fix ? (uint64_t)c->fix[e - c->ev] : 0);

	if (e->gcount > c->nst)
		return t;	/* dropped stamps, or a lie: no window */
	if (e->gcount && t < c->st[e->gcount - 1].tsc)
		t = c->st[e->gcount - 1].tsc;
	if (e->gcount < c->nst && t > c->st[e->gcount].tsc)
		t = c->st[e->gcount].tsc;
	return t;
}
