// SPDX-License-Identifier: MIT
/*
 * The timeline of every IPI: recording, the join, the Chrome Trace Event
 * JSON (docs/ANATOMY.md has the phase model).  No KVM call: kvm/, exit/
 * and irqchip/ hand it the stamps, so the join is tested on its own
 * (tests/unit/test_timeline.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "timeline.h"

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

static uint64_t gtsc(const struct tl_cpu *c, uint64_t host)
{
	return host + (uint64_t)c->tsc_offset;
}

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

/* the first event of @kind on @c at index >= @i with a TSC >= @tsc */
static int event_after(const struct tl_cpu *c, uint32_t i, unsigned kind,
		       uint64_t tsc, uint32_t id)
{
	for (; i < c->n; i++)
		if (c->ev[i].kind == kind && c->ev[i].tsc >= tsc &&
		    (!id || c->ev[i].id == id))
			return (int)i;
	return -1;
}

struct tl_where {
	uint16_t cpu;
	uint32_t inject, eoi;	/* index + 1, 0: none */
};

static void join_target(const struct tl_cpu *t, const struct tl_where *w,
			const struct tl_event *notify, struct tl_ipi *ipi)
{
	const struct tl_event *inj;
	int i, h, e;

	if (!w->inject)
		return;
	inj = &t->ev[w->inject - 1];
	if (notify && (notify->kind == TL_KICK || notify->kind == TL_WAKE)) {
		/* the kick's (or wake's) end: the first after it, before the
		 * injection, on the target's thread */
		i = event_after(t, 0, notify->kind == TL_KICK ? TL_KICKED :
				TL_WOKE, notify->tsc, 0);
		if (i >= 0 && (uint32_t)i < w->inject - 1)
			ipi->t[TP_OUT] = gtsc(t, t->ev[i].tsc);
	}
	ipi->t[TP_INJECT] = gtsc(t, inj->tsc);
	i = event_after(t, w->inject, TL_ENTRY, inj->tsc, 0);
	if (i >= 0)
		ipi->t[TP_ENTRY] = gtsc(t, t->ev[i].tsc);
	/* the handler: the guest's first of the vector after that entry
	 * (its stamps then numbered @gcount on), by order, not by time */
	h = stamp_after(t, i >= 0 ? t->ev[i].gcount : inj->gcount,
			IRQLAB_TL_HANDLER, ipi->vector, 0);
	if (h < 0)
		return;
	ipi->t[TP_HANDLER] = t->st[h].tsc;
	e = stamp_after(t, (uint32_t)h + 1, IRQLAB_TL_EOI, ipi->vector, 0);
	if (e >= 0)
		ipi->t[TP_EOI] = t->st[e].tsc;
	if (w->eoi)
		ipi->t[TP_EOI_EXIT] = gtsc(t, t->ev[w->eoi - 1].tsc);
}

static void join_sender(const struct tl_cpu *s, uint32_t k,
			struct tl_ipi *ipi)
{
	const struct tl_event *p = &s->ev[k];
	int i;

	ipi->t[TP_POST] = gtsc(s, p->tsc);
	/* the exit (and ICR_HI's) just before the post, same seq */
	for (i = (int)k - 1; i >= 0; i--) {
		const struct tl_event *e = &s->ev[i];

		if (e->kind == TL_EXIT && e->seq == p->seq &&
		    !ipi->t[TP_EXIT]) {
			ipi->t[TP_EXIT] = gtsc(s, e->tsc);
		} else if (e->kind == TL_ICR_HI && e->seq == p->seq) {
			ipi->t[TP_ICR_HI] = gtsc(s, e->tsc);
			break;
		} else if (e->kind == TL_EXIT || e->kind == TL_ICR_HI) {
			break;		/* an earlier send's */
		}
	}
	i = send_stamp(s, p->seq);
	if (i >= 0)
		ipi->t[TP_SEND] = s->st[i].tsc;
}

static void check_order(struct tl_ipi *ipi)
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
}

/*
 * One clock.  KVM's TSC offset puts the VMM's stamps on the guest's TSC
 * exactly where the host's TSC is one clock (the offset is KVM's own
 * arithmetic).  In the nested rig it is not: QEMU TCG's TSC under nested
 * SVM leaves each vCPU's stamps some milliseconds off.  The order of
 * events bounds the error e of each vCPU's offset: the guest's last stamp
 * before an exit came before it (g <= h + e), its first stamp after an
 * entry came after it (h + e <= g); @gcount says which stamps those are.
 * The join keeps e = 0 where the bounds allow it, else takes the nearest
 * bound (the least move), and where they cross, their middle (unsure).
 */
static void clock_fix(const struct tl_cpu *c, int64_t *fix, bool *unsure)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX, d;
	uint32_t i;

	for (i = 0; i < c->n; i++) {
		const struct tl_event *e = &c->ev[i];
		uint64_t h = gtsc(c, e->tsc);

		if (e->gcount > c->nst + c->st_dropped)
			continue;		/* the guest lied: no bound */
		if (e->kind == TL_ENTRY) {
			if (e->gcount < c->nst) {
				d = (int64_t)(c->st[e->gcount].tsc - h);
				hi = d < hi ? d : hi;
			}
		} else if (e->kind == TL_EXIT || e->kind == TL_ICR_HI ||
			   e->kind == TL_EOI) {
			if (e->gcount && e->gcount <= c->nst) {
				d = (int64_t)(c->st[e->gcount - 1].tsc - h);
				lo = d > lo ? d : lo;
			}
		}
	}
	*unsure = lo > hi;
	if (lo > hi)
		*fix = lo / 2 + hi / 2;
	else if (lo > 0)
		*fix = lo;
	else if (hi < 0)
		*fix = hi;
	else
		*fix = 0;
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
			ipi = &r->ipi[r->n++];
			ipi->id = r->n;
			ipi->from = (uint16_t)c;
			ipi->to = s->dest;
			ipi->vector = s->vector;
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
			check_order(ipi);
			r->backwards += ipi->backwards;
			r->complete += !!ipi->t[TP_HANDLER];
		}
}

/*
 * Every TL_POST is one IPI (one sender, one target).  Its id finds the
 * target's injection and EOI exit; the points between come from the
 * target's thread and its guest ring by time.  Returns -1 without memory.
 */
static int join(const struct tl_cpu *cpu, unsigned ncpu,
		struct tl_result *r);

int tl_join(const struct tl_cpu *in, unsigned ncpu, struct tl_result *r)
{
	struct tl_cpu *cpu = calloc(ncpu ? ncpu : 1, sizeof(*cpu));
	int64_t *fix = calloc(ncpu ? ncpu : 1, sizeof(*fix));
	bool *unsure = calloc(ncpu ? ncpu : 1, sizeof(*unsure));
	unsigned c;
	int err = -1;

	memset(r, 0, sizeof(*r));
	if (cpu && fix && unsure) {
		for (c = 0; c < ncpu; c++) {
			cpu[c] = in[c];
			clock_fix(&cpu[c], &fix[c], &unsure[c]);
			cpu[c].tsc_offset += fix[c];
		}
		err = join(cpu, ncpu, r);
	}
	free(cpu);
	if (err) {
		free(fix);
		free(unsure);
		return err;
	}
	r->fix = fix;
	r->unsure = unsure;
	return 0;
}

static int join(const struct tl_cpu *cpu, unsigned ncpu, struct tl_result *r)
{
	struct tl_where *w;
	uint32_t maxid = 0, n = 0, i;
	unsigned c;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].n; i++) {
			if (cpu[c].ev[i].kind == TL_POST)
				n++;
			if (cpu[c].ev[i].id > maxid)
				maxid = cpu[c].ev[i].id;
		}
	if (!n) {
		r->ipi = calloc(count_guest_ipis(cpu, ncpu) + 1,
				sizeof(*r->ipi));
		if (!r->ipi)
			return -1;
		join_guest(cpu, ncpu, r);
		return 0;
	}
	w = calloc((size_t)maxid + 1, sizeof(*w));
	r->ipi = calloc(n, sizeof(*r->ipi));
	if (!w || !r->ipi) {
		free(w);
		free(r->ipi);
		r->ipi = NULL;
		return -1;
	}
	for (c = 0; c < ncpu; c++)
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
	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpu[c].n; i++) {
			const struct tl_event *p = &cpu[c].ev[i], *nt = NULL;
			struct tl_ipi *ipi;

			if (p->kind != TL_POST)
				continue;
			ipi = &r->ipi[r->n++];
			ipi->id = p->id;
			ipi->from = (uint16_t)c;
			ipi->to = p->peer;
			ipi->vector = p->vector;
			if (i + 1 < cpu[c].n && cpu[c].ev[i + 1].id == p->id &&
			    cpu[c].ev[i + 1].kind >= TL_KICK &&
			    cpu[c].ev[i + 1].kind <= TL_QUIET) {
				nt = &cpu[c].ev[i + 1];
				ipi->notify = nt->kind;
				ipi->t[TP_NOTIFY] = gtsc(&cpu[c], nt->tsc);
			}
			join_sender(&cpu[c], i, ipi);
			if (p->peer < ncpu && w[p->id].inject &&
			    w[p->id].cpu == p->peer)
				join_target(&cpu[p->peer], &w[p->id], nt, ipi);
			check_order(ipi);
			r->backwards += ipi->backwards;
			r->complete += ipi->t[TP_SEND] && ipi->t[TP_POST] &&
				       ipi->t[TP_INJECT] && ipi->t[TP_HANDLER];
		}
	free(w);
	return 0;
}

void tl_result_free(struct tl_result *r)
{
	free(r->ipi);
	free(r->fix);
	free(r->unsure);
	memset(r, 0, sizeof(*r));
}

/* ---- the Chrome Trace Event format ----------------------------------- */

/*
 * A phase is named after what happens in it, and ends at its point.
 * docs/ANATOMY.md lists them with the code and the SDM section behind.
 */
const char *tl_phase_name(enum tl_point p, const struct tl_ipi *ipi)
{
	switch (p) {
	case TP_ICR_HI:
		return "ICR_HI exit";
	case TP_EXIT:
		return ipi->t[TP_ICR_HI] ? "ICR_HI to ICR_LO exit" : "ICR exit";
	case TP_POST:
		return "decode and post";
	case TP_NOTIFY:
		return ipi->notify == TL_KICK ? "kick" :
		       ipi->notify == TL_WAKE ? "wake" : "no kick";
	case TP_OUT:
		return ipi->notify == TL_KICK ? "out of KVM_RUN" : "awake";
	case TP_INJECT:
		return "to injection";
	case TP_ENTRY:
		return "KVM_INTERRUPT";
	case TP_HANDLER:
		return "entry to handler";
	case TP_EOI:
		return "handler";
	case TP_EOI_EXIT:
		return "EOI exit";
	default:
		return "send";
	}
}

void tl_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* the track of a point: the target's from the notify's end on */
static unsigned point_cpu(enum tl_point p, const struct tl_ipi *ipi)
{
	return p >= TP_OUT ? ipi->to : ipi->from;
}

static double us(uint64_t t, uint64_t t0, uint64_t khz)
{
	return (double)(t - t0) * 1000.0 / (double)khz;
}

static void write_ipi(FILE *f, const struct tl_ipi *ipi, uint64_t t0,
		      uint64_t khz)
{
	unsigned p, prev = TP_NR, last = TP_NR, points = 0, nslices = 0;

	for (p = 0; p < TP_NR; p++)
		if (ipi->t[p]) {
			last = p;
			points++;
		}
	for (p = 0; p < TP_NR; p++) {
		double ts, dur;

		if (!ipi->t[p])
			continue;
		if (prev == TP_NR) {
			prev = p;
			continue;
		}
		ts = us(ipi->t[prev], t0, khz);
		dur = us(ipi->t[p], t0, khz) - ts;
		fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
			"\"dur\":%.3f,\"cat\":\"ipi\",\"name\":",
			point_cpu(p, ipi), ts, dur);
		tl_json_string(f, tl_phase_name(p, ipi));
		fprintf(f, ",\"args\":{\"ipi\":%u,\"vector\":%u,\"from\":%u,"
			"\"to\":%u,\"from_point\":%u,\"to_point\":%u}}",
			ipi->id, ipi->vector, ipi->from, ipi->to, prev, p);
		/* a flow joins the slices: s, t..., f (bound to the slice
		 * that encloses its ts: the phase just written); one slice
		 * alone has none */
		if (points > 2)
			fprintf(f, ",\n{\"ph\":\"%s\",\"pid\":1,\"tid\":%u,"
				"\"ts\":%.3f,\"cat\":\"ipi\",\"name\":\"ipi\","
				"\"id\":%u%s}",
				nslices == 0 ? "s" : p == last ? "f" : "t",
				point_cpu(p, ipi), ts, ipi->id,
				p == last ? ",\"bp\":\"e\"" : "");
		nslices++;
		prev = p;
	}
}

void tl_write_json(FILE *f, const struct tl_cpu *cpu, unsigned ncpu,
		   const struct tl_result *r, uint64_t tsc_khz,
		   const char *meta)
{
	uint64_t t0 = UINT64_MAX, dropped = 0, st_dropped = 0;
	unsigned c, p;
	uint32_t i;

	if (!tsc_khz)
		tsc_khz = 1000000;	/* no rate known: 1 GHz, said below */
	for (i = 0; i < r->n; i++)
		for (p = 0; p < TP_NR; p++)
			if (r->ipi[i].t[p] && r->ipi[i].t[p] < t0)
				t0 = r->ipi[i].t[p];
	if (t0 == UINT64_MAX)
		t0 = 0;
	for (c = 0; c < ncpu; c++) {
		dropped += cpu[c].dropped;
		st_dropped += cpu[c].st_dropped;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{%s%s"
		"\"tsc_khz\":%" PRIu64 ",\"t0_tsc\":%" PRIu64 ",\"ipis\":%u,"
		"\"complete\":%u,\"backwards\":%u,\"vmm_dropped\":%" PRIu64
		",\"guest_dropped\":%" PRIu64 ",\"clock_fix_cyc\":[",
		meta ? meta : "", meta && *meta ? "," : "", tsc_khz, t0,
		r->n, r->complete, r->backwards, dropped, st_dropped);
	for (c = 0; c < ncpu; c++)
		fprintf(f, "%s%" PRId64, c ? "," : "", r->fix ? r->fix[c] : 0);
	fputs("],\"clock_unsure\":[", f);
	for (c = 0; c < ncpu; c++)
		fprintf(f, "%s%s", c ? "," : "",
			r->unsure && r->unsure[c] ? "true" : "false");
	fprintf(f, "]},\n\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"ts\":0,\"name\":\"process_name\","
		"\"args\":{\"name\":\"irqlab-vmm (guest TSC)\"}}");
	for (c = 0; c < ncpu; c++)
		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"ts\":0,\"name\":"
			"\"thread_name\",\"args\":{\"name\":\"vcpu%u\"}}", c, c);
	for (i = 0; i < r->n; i++)
		write_ipi(f, &r->ipi[i], t0, tsc_khz);
	fputs("\n]}\n", f);
}
