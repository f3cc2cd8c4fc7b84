// SPDX-License-Identifier: MIT
/*
 * The timeline of every IPI: recording and the join (docs/ANATOMY.md has
 * the phase model); tl_clock.c puts the stamps on one clock, tl_json.c
 * writes them.  No KVM call: kvm/, exit/ and irqchip/ hand it the stamps,
 * so the join is tested on its own (tests/test_timeline.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tl_internal.h"

bool tl_alloc(struct tl_vcpu *t)
{
	/* mmap: a page counts in the RSS only once an event lands on it */
	void *p = mmap(NULL, TL_EVENTS * sizeof(struct tl_event),
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return false;
	/* no transparent huge page: the first event would make 2 MiB of
	 * it resident, past irqlab-vmm's 5 MiB of its own */
	madvise(p, TL_EVENTS * sizeof(struct tl_event), MADV_NOHUGEPAGE);
	t->ev = p;
	return true;
}

void tl_free(struct tl_vcpu *t)
{
	if (t->ev)
		munmap(t->ev, TL_EVENTS * sizeof(struct tl_event));
	t->ev = NULL;
}

/* Only the vCPU's own thread writes its ring. */
void tl_add(struct tl_vcpu *t, enum tl_kind k, uint64_t tsc, uint32_t id,
	    uint32_t seq, unsigned vector, unsigned peer)
{
	struct tl_event *e;

	if (t->n >= TL_EVENTS) {
		t->dropped++;
		return;
	}
	e = &t->ev[t->n++];
	*e = (struct tl_event){ .tsc = tsc, .id = id, .seq = seq,
				.kind = (uint8_t)k, .vector = (uint8_t)vector,
				.peer = (uint16_t)peer,
				.gcount = t->guest ? __atomic_load_n(
					&t->guest->count, __ATOMIC_RELAXED) : 0 };
	/* the entry after an exit or an injection bounds the clock too */
	if (k == TL_ICR_HI || k == TL_EXIT || k == TL_EOI || k == TL_INJECT)
		t->entry_due = true;
}

uint32_t tl_guest_sends(const struct tl_vcpu *t)
{
	return t->guest ? __atomic_load_n(&t->guest->sends, __ATOMIC_RELAXED)
			: 0;
}

/* ---- the join ------------------------------------------------------- */

/* the first guest stamp of @kind and @vector from index @i on, at or
 * after @tsc */
static int stamp_after(const struct tl_cpu *c, uint32_t i, unsigned kind,
		       unsigned vector, uint64_t tsc)
{
	for (; i < c->nst; i++)
		if (c->st[i].kind == kind && c->st[i].vector == vector &&
		    c->st[i].tsc >= tsc)
			return (int)i;
	return -1;
}

/* the guest's SEND stamp numbered @seq (stamps go in seq order) */
static int send_stamp(const struct tl_cpu *c, uint32_t seq)
{
	uint32_t lo = 0, hi = c->nst, i;

	/* a SEND's seq only grows along the ring: bisect on the SENDs */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, j = mid;

		while (j < hi && c->st[j].kind != IRQLAB_TL_SEND)
			j++;
		if (j == hi) {
			hi = mid;
			continue;
		}
		if (c->st[j].seq < seq)
			lo = j + 1;
		else
			hi = mid;
	}
	for (i = lo; i < c->nst; i++)
		if (c->st[i].kind == IRQLAB_TL_SEND)
			return c->st[i].seq == seq ? (int)i : -1;
	return -1;
}

/* the first event of @kind on @c at index >= @i, -1 if none */
static int next_event(const struct tl_cpu *c, uint32_t i, unsigned kind)
{
	for (; i < c->n; i++)
		if (c->ev[i].kind == kind)
			return (int)i;
	return -1;
}

struct tl_where {
	uint16_t cpu;
	uint32_t inject, eoi;	/* index + 1, 0: none */
};

/*
 * The kick's (or wake's) end on the target's thread: the last KVM_RUN
 * that returned for a kick (or HLT sleep that ended) before the IPI's
 * injection and after the injection before it, and for this IPI: the
 * sender stored its id before it notified, the target read it after, so
 * the notification began before this event (a timer that woke the target
 * first, or another sender, leaves no pair).  By order, not by time.
 */
static int out_event(const struct tl_cpu *t, uint32_t inject,
		     const struct tl_event *notify)
{
	unsigned want;
	int i;

	if (!notify || (notify->kind != TL_KICK && notify->kind != TL_WAKE))
		return -1;
	want = notify->kind == TL_KICK ? TL_KICKED : TL_WOKE;
	for (i = (int)inject - 1; i >= 0; i--) {
		if (t->ev[i].kind == want && t->ev[i].id == notify->id)
			return i;
		if (t->ev[i].kind == TL_INJECT)
			break;
	}
	return -1;
}

static const struct tl_event *notify_of(const struct tl_cpu *s, uint32_t k)
{
	const struct tl_event *n = k + 1 < s->n ? &s->ev[k + 1] : NULL;

	return n && n->id == s->ev[k].id && n->kind >= TL_KICK &&
	       n->kind <= TL_QUIET ? n : NULL;
}

static void join_target(const struct tl_cpu *t, const struct tl_where *w,
			const struct tl_event *notify, struct tl_ipi *ipi)
{
	const struct tl_event *inj;
	uint32_t g;
	int i, h, e;

	if (!w->inject)
		return;
	inj = &t->ev[w->inject - 1];
	i = out_event(t, w->inject - 1, notify);
	if (i >= 0)
		ipi->t[TP_OUT] = tl_ev_time(t, &t->ev[i]);
	ipi->t[TP_INJECT] = tl_ev_time(t, inj);
	i = next_event(t, w->inject, TL_ENTRY);
	if (i >= 0)
		ipi->t[TP_ENTRY] = tl_ev_time(t, &t->ev[i]);
	/* the handler: the guest's first of the vector after that entry
	 * (its stamps then numbered @gcount on), by order, not by time;
	 * from KVM's tracepoints (no gcount), the first at or after it */
	g = i >= 0 ? t->ev[i].gcount : inj->gcount;
	h = g != TL_GCOUNT_UNKNOWN ?
	    stamp_after(t, g, IRQLAB_TL_HANDLER, ipi->vector, 0) :
	    stamp_after(t, 0, IRQLAB_TL_HANDLER, ipi->vector,
			ipi->t[TP_ENTRY] ? ipi->t[TP_ENTRY] :
			ipi->t[TP_INJECT]);
	if (h < 0)
		return;
	ipi->t[TP_HANDLER] = t->st[h].tsc;
	e = stamp_after(t, (uint32_t)h + 1, IRQLAB_TL_EOI, ipi->vector, 0);
	if (e >= 0)
		ipi->t[TP_EOI] = t->st[e].tsc;
	if (w->eoi)
		ipi->t[TP_EOI_EXIT] = tl_ev_time(t, &t->ev[w->eoi - 1]);
}

static void join_sender(const struct tl_cpu *s, uint32_t k,
			struct tl_ipi *ipi)
{
	const struct tl_event *p = &s->ev[k];
	int i;

	ipi->t[TP_POST] = tl_ev_time(s, p);
	/* the exit (and ICR_HI's) just before the post, same seq */
	for (i = (int)k - 1; i >= 0; i--) {
		const struct tl_event *e = &s->ev[i];

		if (e->kind == TL_EXIT && e->seq == p->seq &&
		    !ipi->t[TP_EXIT]) {
			ipi->t[TP_EXIT] = tl_ev_time(s, e);
		} else if (e->kind == TL_ICR_HI && e->seq == p->seq) {
			ipi->t[TP_ICR_HI] = tl_ev_time(s, e);
			break;
		} else if (e->kind == TL_EXIT || e->kind == TL_ICR_HI) {
			break;		/* an earlier send's */
		}
	}
	i = send_stamp(s, p->seq);
	if (i >= 0)
		ipi->t[TP_SEND] = s->st[i].tsc;
}

/* the next IPI of @r, from vCPU @from to vCPU @to */
static struct tl_ipi *ipi_new(struct tl_result *r, uint32_t id, unsigned from,
			      unsigned to, unsigned vector)
{
	struct tl_ipi *ipi = &r->ipi[r->n++];

	ipi->id = id;
	ipi->from = (uint16_t)from;
	ipi->to = (uint16_t)to;
	ipi->vector = (uint8_t)vector;
	return ipi;
}

/* its points all in: out of order?  counted in @r, and @complete too */
static void ipi_done(struct tl_result *r, struct tl_ipi *ipi, bool complete)
{
	uint64_t last = 0;
	unsigned p;

	for (p = 0; p < TP_NR; p++) {
		if (!ipi->t[p])
			continue;
		if (ipi->t[p] < last)
			ipi->backwards = true;
		last = ipi->t[p];
	}
	r->backwards += ipi->backwards;
	r->complete += complete;
}

/*
 * With KVM's LAPIC (split, kernel) irqlab-vmm posts nothing: an IPI is
 * the guest's send to one APIC ID (irqlab's vCPU n has ID n) and the
 * target's first handler of that vector after it, then its EOI.  The
 * send's seq gives the id, so a run's ids stay apart per sender.
 */
static uint32_t count_guest_ipis(const struct tl_cpu *cpu, unsigned ncpu)
{
	uint32_t n = 0, i;
	unsigned c;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].nst; i++)
			n += cpu[c].st[i].kind == IRQLAB_TL_SEND &&
			     cpu[c].st[i].dest < ncpu;
	return n;
}

static void join_guest(const struct tl_cpu *cpu, unsigned ncpu,
		       struct tl_result *r)
{
	uint32_t i;
	unsigned c;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].nst; i++) {
			const struct irqlab_tl_stamp *s = &cpu[c].st[i];
			const struct tl_cpu *t;
			struct tl_ipi *ipi;
			int h, e;

			if (s->kind != IRQLAB_TL_SEND || s->dest >= ncpu)
				continue;
			ipi = ipi_new(r, r->n + 1, c, s->dest, s->vector);
			ipi->t[TP_SEND] = s->tsc;
			t = &cpu[s->dest];
			h = stamp_after(t, 0, IRQLAB_TL_HANDLER, s->vector,
					s->tsc);
			if (h >= 0) {
				ipi->t[TP_HANDLER] = t->st[h].tsc;
				e = stamp_after(t, (uint32_t)h + 1,
						IRQLAB_TL_EOI, s->vector,
						t->st[h].tsc);
				if (e >= 0)
					ipi->t[TP_EOI] = t->st[e].tsc;
			}
			ipi_done(r, ipi, ipi->t[TP_HANDLER]);
		}
}

/* each IPI's injection and EOI exit, by id; NULL without memory */
static struct tl_where *where(const struct tl_cpu *cpu, unsigned ncpu,
			      uint32_t maxid)
{
	struct tl_where *w = calloc((size_t)maxid + 1, sizeof(*w));
	uint32_t i;
	unsigned c;

	for (c = 0; w && c < ncpu; c++)
		for (i = 0; i < cpu[c].n; i++) {
			const struct tl_event *e = &cpu[c].ev[i];

			if (e->kind == TL_INJECT && e->id && !w[e->id].inject) {
				w[e->id].cpu = (uint16_t)c;
				w[e->id].inject = i + 1;
			} else if (e->kind == TL_EOI && e->id &&
				   w[e->id].inject && w[e->id].cpu == c &&
				   !w[e->id].eoi) {
				w[e->id].eoi = i + 1;
			}
		}
	return w;
}

/* what came before what across threads, for tl_clock() */
static uint32_t pairs(const struct tl_cpu *cpu, unsigned ncpu,
		      const struct tl_where *w, struct tl_pair *p)
{
	uint32_t i, n = 0;
	unsigned c;
	int o;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].n; i++) {
			const struct tl_event *e = &cpu[c].ev[i], *nt;
			const struct tl_where *x = &w[e->id];

			if (e->kind != TL_POST || !x->inject ||
			    x->cpu != e->peer || e->peer >= ncpu ||
			    e->peer == c)
				continue;
			p[n++] = (struct tl_pair){ (uint16_t)c, x->cpu, i,
						   x->inject - 1 };
			nt = notify_of(&cpu[c], i);
			o = out_event(&cpu[x->cpu], x->inject - 1, nt);
			if (o >= 0)
				p[n++] = (struct tl_pair){ (uint16_t)c, x->cpu,
					i + 1, (uint32_t)o };
		}
	return n;
}

static void assemble(const struct tl_cpu *cpu, unsigned ncpu,
		     const struct tl_where *w, struct tl_result *r)
{
	uint32_t i;
	unsigned c;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].n; i++) {
			const struct tl_event *p = &cpu[c].ev[i];
			const struct tl_event *nt = notify_of(&cpu[c], i);
			struct tl_ipi *ipi;

			if (p->kind != TL_POST)
				continue;
			ipi = ipi_new(r, p->id, c, p->peer, p->vector);
			if (nt) {
				ipi->notify = nt->kind;
				ipi->t[TP_NOTIFY] = tl_ev_time(&cpu[c], nt);
			}
			join_sender(&cpu[c], i, ipi);
			if (p->peer < ncpu && w[p->id].inject &&
			    w[p->id].cpu == p->peer)
				join_target(&cpu[p->peer], &w[p->id], nt, ipi);
			ipi_done(r, ipi, ipi->t[TP_SEND] && ipi->t[TP_POST] &&
					 ipi->t[TP_INJECT] && ipi->t[TP_HANDLER]);
		}
}

/*
 * Every TL_POST is one IPI (one sender, one target).  Its id finds the
 * target's injection and EOI exit; the points between come from the
 * target's thread and its guest ring by order.  Returns -1 without memory.
 */
int tl_join(const struct tl_cpu *in, unsigned ncpu, struct tl_result *r)
{
	struct tl_cpu *cpu = calloc(ncpu ? ncpu : 1, sizeof(*cpu));
	struct tl_where *w = NULL;
	struct tl_pair *p = NULL;
	uint32_t maxid = 0, n = 0, np, i;
	bool stamped = false;
	unsigned c;
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->fix = calloc(ncpu ? ncpu : 1, sizeof(*r->fix));
	r->unsure = calloc(ncpu ? ncpu : 1, sizeof(*r->unsure));
	if (!cpu || !r->fix || !r->unsure)
		goto out;
	for (c = 0; c < ncpu; c++)
		stamped |= in[c].nst != 0;
	for (c = 0; c < ncpu; c++) {
		cpu[c] = in[c];
		cpu[c].fix = NULL;
		/* a guest that stamps nothing (Linux): the host's events are
		 * on one clock already, so one offset for all, not each
		 * vCPU's (they differ where KVM found the TSCs unsynced) */
		if (!stamped)
			cpu[c].tsc_offset = in[0].tsc_offset;
		for (i = 0; i < cpu[c].n; i++) {
			n += cpu[c].ev[i].kind == TL_POST;
			if (cpu[c].ev[i].id > maxid)
				maxid = cpu[c].ev[i].id;
		}
	}
	if (!n) {
		r->ipi = calloc(count_guest_ipis(cpu, ncpu) + 1,
				sizeof(*r->ipi));
		if (r->ipi) {
			join_guest(cpu, ncpu, r);
			err = 0;
		}
		goto out;
	}
	w = where(cpu, ncpu, maxid);
	p = calloc(2 * (size_t)n, sizeof(*p));
	r->ipi = calloc(n, sizeof(*r->ipi));
	if (!w || !p || !r->ipi)
		goto out;
	np = pairs(cpu, ncpu, w, p);
	if (tl_clock(cpu, ncpu, p, np, r->fix, r->unsure))
		goto out;
	assemble(cpu, ncpu, w, r);
	err = 0;
out:
	for (c = 0; cpu && c < ncpu; c++)
		free((void *)cpu[c].fix);
	free(cpu);
	free(w);
	free(p);
	if (err)
		tl_result_free(r);
	return err;
}

void tl_result_free(struct tl_result *r)
{
	free(r->ipi);
	free(r->fix);
	free(r->unsure);
	memset(r, 0, sizeof(*r));
}

