// SPDX-License-Identifier: MIT
/*
 * KVM's tracepoints as the timeline's events, where KVM's LAPIC does the
 * host's part of an IPI (--irqchip=split and kernel): the text of
 * tracefs's "trace" file, read with trace_clock x86-tsc (the host's TSC,
 * the clock irqlab-vmm's own stamps use), turned into the same per-vCPU
 * streams of struct tl_event that --irqchip=user records, so one join
 * serves both (docs/ANATOMY.md).  kvm/tracefs.c sets tracefs up and reads
 * it; this file only parses, so the unit tests feed it lines.
 *
 *   kvm_exit: vcpu N reason R ...        the exit a later event belongs to;
 *                                        R "interrupt" (AMD) or
 *                                        "EXTERNAL_INTERRUPT" (Intel): a
 *                                        kick took the vCPU out
 *   kvm_apic: apic_write APIC_ICR2 = ..  xAPIC ICR_HI
 *   kvm_apic_ipi: dst D vec V (M|...)    an ICR write: the sender's exit
 *   kvm_apic_accept_irq: apicid A vec V  after it on the sender's thread:
 *                                        posted to APIC ID A
 *   kvm_vcpu_wakeup: wait|poll ...       the target left its halt
 *   kvm_inj_virq: IRQ 0xV                injected (not "[reinjected]")
 *   kvm_entry: vcpu N, ...               the entry after it
 *   kvm_eoi: apicid A vector V           the EOI, at the exit before it,
 *                                        unless kvm_pv_eoi follows (KVM's
 *                                        PV EOI: no exit)
 *
 * Each line names its thread (comm-TID); kvm_exit and kvm_entry name the
 * vCPU, so the threads are mapped to vCPUs as the lines come.  irqlab's
 * vCPU n has APIC ID n.  A sender's n-th ICR write is the guest's n-th
 * send (its ring's seq).  Nothing here knows the guest ring's count at an
 * event: gcount is TL_GCOUNT_UNKNOWN, and the join goes by time there.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/irqlab.h"
#include "tl_trace.h"

static struct tl_stream *cpu_of_tid(struct tl_trace *t, long tid)
{
	unsigned i;

	for (i = 0; i < t->ntid; i++)
		if (t->tid[i] == tid)
			return &t->cpu[t->tid_cpu[i]];
	return NULL;
}

static void map_tid(struct tl_trace *t, long tid, unsigned cpu)
{
	unsigned i;

	for (i = 0; i < t->ntid; i++)
		if (t->tid[i] == tid) {
			t->tid_cpu[i] = cpu;
			return;
		}
	if (t->ntid < TL_TRACE_TIDS) {
		t->tid[t->ntid] = tid;
		t->tid_cpu[t->ntid++] = cpu;
	}
}

static int add(struct tl_stream *s, enum tl_kind k, uint64_t tsc,
	       uint32_t id, uint32_t seq, unsigned vector, unsigned peer)
{
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 1024;
		struct tl_event *ev = realloc(s->ev, cap * sizeof(*ev));

		if (!ev)
			return -1;
		s->ev = ev;
		s->cap = cap;
	}
	s->ev[s->n++] = (struct tl_event){ .tsc = tsc, .id = id, .seq = seq,
		.kind = (uint8_t)k, .vector = (uint8_t)vector,
		.peer = (uint16_t)peer, .gcount = TL_GCOUNT_UNKNOWN };
	return 0;
}

/* "comm-TID [CPU] flags TSC: event: rest": the TID, TSC, event, rest */
static int split_line(const char *line, long *tid, uint64_t *tsc,
		      const char **event, const char **rest)
{
	const char *br = strstr(line, " ["), *p, *colon, *num;
	char *end;

	if (!br)
		return -1;
	while (br > line && br[-1] == ' ')	/* "comm-TID     [001]" */
		br--;
	for (p = br; p > line && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == br || p == line || p[-1] != '-')
		return -1;
	*tid = strtol(p, NULL, 10);
	br = strchr(br, '[');
	p = strchr(br, ']');
	if (!p)
		return -1;
	/* the flags, then the timestamp and ": " */
	colon = strstr(p, ": ");
	if (!colon)
		return -1;
	for (num = colon; num > line && num[-1] >= '0' && num[-1] <= '9'; num--)
		;
	if (num == colon)
		return -1;	/* not x86-tsc: "123.456789" has a dot */
	if (num > line && num[-1] == '.')
		return -1;
	*tsc = strtoull(num, &end, 10);
	*event = colon + 2;
	p = strstr(*event, ": ");
	if (!p)
		return -1;
	*rest = p + 2;
	return 0;
}

static bool starts(const char *s, const char *with)
{
	return !strncmp(s, with, strlen(with));
}

/* a kvm_eoi waiting to see whether kvm_pv_eoi follows */
static int eoi_flush(struct tl_stream *s)
{
	if (!s->eoi_held)
		return 0;
	s->eoi_held = false;
	return add(s, TL_EOI, s->eoi_tsc, s->isr[s->eoi_vec], 0, s->eoi_vec,
		   0);
}

static int eoi_hold(struct tl_stream *s, unsigned vec)
{
	if (eoi_flush(s))
		return -1;
	s->eoi_held = true;
	s->eoi_vec = (uint8_t)vec;
	s->eoi_tsc = s->last_exit;
	return 0;
}

static int on_kvm_exit(struct tl_trace *t, long tid, uint64_t tsc,
		   const char *rest)
{
	unsigned vcpu;
	char reason[32];
	struct tl_stream *s;

	if (sscanf(rest, "vcpu %u reason %31s", &vcpu, reason) != 2 ||
	    vcpu >= t->ncpu)
		return 0;
	map_tid(t, tid, vcpu);
	s = &t->cpu[vcpu];
	if (eoi_flush(s))
		return -1;
	s->last_exit = tsc;
	s->ipi_vec = -1;
	if (!strcmp(reason, "interrupt") ||
	    !strcmp(reason, "EXTERNAL_INTERRUPT"))
		return add(s, TL_KICKED, tsc, 0, 0, 0, 0);
	return 0;
}

static int on_kvm_entry(struct tl_trace *t, long tid, uint64_t tsc,
		    const char *rest)
{
	unsigned vcpu;
	struct tl_stream *s;

	if (sscanf(rest, "vcpu %u", &vcpu) != 1 || vcpu >= t->ncpu)
		return 0;
	map_tid(t, tid, vcpu);
	s = &t->cpu[vcpu];
	s->ipi_vec = -1;
	if (eoi_flush(s))
		return -1;
	if (!s->entry_due)
		return 0;
	s->entry_due = false;
	return add(s, TL_ENTRY, tsc, 0, 0, 0, 0);
}

/* the ICR write's exit; its accepts follow until the thread goes on */
static int on_ipi(struct tl_stream *s, const char *rest)
{
	unsigned dst, vec;

	if (sscanf(rest, "dst %x vec %u", &dst, &vec) != 2)
		return 0;
	s->sends++;
	s->ipi_vec = strstr(rest, "(Fixed") || strstr(rest, "(LowPrio") ?
		     (int)(vec & 0xff) : -1;
	s->entry_due = true;	/* the entry back bounds the clock */
	return add(s, TL_EXIT, s->last_exit, 0, s->sends, vec & 0xff, 0);
}

static int on_accept(struct tl_trace *t, struct tl_stream *s, uint64_t tsc,
		     const char *rest)
{
	unsigned apicid, vec;
	uint32_t id;

	if (sscanf(rest, "apicid %x vec %u", &apicid, &vec) != 2 ||
	    s->ipi_vec != (int)(vec & 0xff) || apicid >= t->ncpu)
		return 0;	/* not an IPI's (a timer's, an MSI's) */
	id = ++t->next_id;
	t->cpu[apicid].pending[vec & 0xff] = id;
	if (add(s, TL_POST, tsc, id, s->sends, vec & 0xff, apicid))
		return -1;
	/* tl_trace_finish() says which: kick, wake or none */
	return add(s, TL_QUIET, tsc, id, 0, vec & 0xff, apicid);
}

static int on_inject(struct tl_stream *s, uint64_t tsc, const char *rest)
{
	unsigned vec;

	if (strstr(rest, "reinjected"))
		return 0;
	if (sscanf(rest, "IRQ 0x%x", &vec) != 1 &&
	    sscanf(rest, "irq %u", &vec) != 1)
		return 0;
	vec &= 0xff;
	s->isr[vec] = s->pending[vec];
	s->pending[vec] = 0;
	s->entry_due = true;
	return add(s, TL_INJECT, tsc, s->isr[vec], 0, vec, 0);
}

int tl_trace_line(struct tl_trace *t, const char *line)
{
	const char *event, *rest;
	struct tl_stream *s;
	uint64_t tsc;
	unsigned a, v;
	long tid;

	if (split_line(line, &tid, &tsc, &event, &rest))
		return 0;	/* a comment, or another clock */
	if (starts(event, "kvm_exit:"))
		return on_kvm_exit(t, tid, tsc, rest);
	if (starts(event, "kvm_entry:"))
		return on_kvm_entry(t, tid, tsc, rest);
	s = cpu_of_tid(t, tid);
	if (!s)
		return 0;	/* a thread not yet seen in a vCPU */
	if (starts(event, "kvm_apic_ipi:"))
		return on_ipi(s, rest);
	if (starts(event, "kvm_apic_accept_irq:"))
		return on_accept(t, s, tsc, rest);
	if (starts(event, "kvm_inj_virq:"))
		return on_inject(s, tsc, rest);
	if (starts(event, "kvm_vcpu_wakeup:"))
		return add(s, TL_WOKE, tsc, 0, 0, 0, 0);
	if (starts(event, "kvm_apic:") && strstr(rest, "apic_write APIC_ICR2"))
		return add(s, TL_ICR_HI, s->last_exit, 0, s->sends + 1, 0, 0);
	/* held until the thread goes on: a kvm_pv_eoi after it says KVM's
	 * PV EOI took that EOI (the guest's flag, no exit; KVM saw it at
	 * some later exit) */
	if (starts(event, "kvm_eoi:") &&
	    sscanf(rest, "apicid %x vector %u", &a, &v) == 2)
		return eoi_hold(s, v & 0xff);
	if (starts(event, "kvm_pv_eoi:") &&
	    sscanf(rest, "apicid %x vector %u", &a, &v) == 2 &&
	    s->eoi_held && s->eoi_vec == (v & 0xff))
		s->eoi_held = false;
	return 0;
}

/*
 * How each posted IPI reached its target: woken from its halt (TL_WAKE),
 * kicked out of the guest (TL_KICK), or neither, by what the target's
 * thread did between the injection before and the IPI's own.
 */
void tl_trace_finish(struct tl_trace *t)
{
	unsigned c, k;
	uint32_t i;
	int j;

	for (c = 0; c < t->ncpu; c++)
		eoi_flush(&t->cpu[c]);
	for (c = 0; c < t->ncpu; c++)
		for (i = 0; i + 1 < t->cpu[c].n; i++) {
			struct tl_event *p = &t->cpu[c].ev[i];
			struct tl_stream *x;

			if (p->kind != TL_POST || p->peer >= t->ncpu)
				continue;
			x = &t->cpu[p->peer];
			for (k = 0; k < x->n; k++)
				if (x->ev[k].kind == TL_INJECT &&
				    x->ev[k].id == p->id)
					break;
			for (j = (int)k - 1; k < x->n && j >= 0; j--) {
				if (x->ev[j].kind == TL_INJECT)
					break;
				if (x->ev[j].kind == TL_WOKE) {
					p[1].kind = TL_WAKE;
					x->ev[j].id = p->id;
					break;
				}
				if (x->ev[j].kind == TL_KICKED) {
					p[1].kind = TL_KICK;
					x->ev[j].id = p->id;
					break;
				}
			}
		}
}

/*
 * Where each event falls among the guest's stamps (its gcount), which the
 * clock's bounds and the join read, from what pairs up exactly:
 *  - an ICR exit and the guest's send of the same number (seq): the send
 *    came before it, the guest's next stamp after the entry that follows;
 *  - the k-th injection of a vector and the guest's k-th handler of it:
 *    every stamp before that handler came before the injection, and the
 *    handler right after its entry;
 *  - the EOI exit of that vector and the guest's EOI stamp after that
 *    handler, which came before it.
 */
static int seq_index(const struct tl_cpu *c, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < c->nst; i++)
		if (c->st[i].kind == IRQLAB_TL_SEND && c->st[i].seq == seq)
			return (int)i;
	return -1;
}

void tl_trace_gcounts(struct tl_event *ev, uint32_t n, const struct tl_cpu *c)
{
	uint32_t next[256] = { 0 }, handler[256], i, k;
	uint32_t after = TL_GCOUNT_UNKNOWN;	/* for the next TL_ENTRY */
	int j;

	memset(handler, 0xff, sizeof(handler));

	for (i = 0; i < n; i++) {
		struct tl_event *e = &ev[i];

		switch (e->kind) {
		case TL_EXIT:
		case TL_ICR_HI:
			j = seq_index(c, e->seq);
			e->gcount = after = j < 0 ? TL_GCOUNT_UNKNOWN :
				    (uint32_t)j + 1;
			break;
		case TL_INJECT:
			for (k = next[e->vector]; k < c->nst; k++)
				if (c->st[k].kind == IRQLAB_TL_HANDLER &&
				    c->st[k].vector == e->vector)
					break;
			next[e->vector] = k + 1;
			e->gcount = after = k < c->nst ? k : TL_GCOUNT_UNKNOWN;
			handler[e->vector] = e->gcount;
			break;
		case TL_EOI:
			/* the EOI write came after the guest's EOI stamp
			 * that followed this vector's handler */
			for (k = handler[e->vector]; k < c->nst; k++)
				if (c->st[k].kind == IRQLAB_TL_EOI &&
				    c->st[k].vector == e->vector)
					break;
			e->gcount = k < c->nst ? k + 1 : TL_GCOUNT_UNKNOWN;
			handler[e->vector] = TL_GCOUNT_UNKNOWN;
			break;
		case TL_ENTRY:
			e->gcount = after;
			after = TL_GCOUNT_UNKNOWN;
			break;
		default:
			break;
		}
	}
}

void tl_trace_free(struct tl_trace *t)
{
	unsigned c;

	for (c = 0; c < TL_TRACE_CPUS; c++)
		free(t->cpu[c].ev);
	memset(t, 0, sizeof(*t));
}
