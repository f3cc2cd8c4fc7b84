/* SPDX-License-Identifier: MIT */
/*
 * The timeline of every IPI (--timeline FILE, docs/ANATOMY.md).
 *
 * Each vCPU thread stamps its part of an IPI into its own ring, with the
 * host TSC: fixed-size records, no lock, no stdio.  Another thread only
 * stores the IPI id it posted into the target's @pending.  The guest
 * stamps its part into rings in guest RAM (hw/irqlab.h, struct
 * irqlab_tl_ring).  When the run ends, tl_join() ties both by IPI id into
 * phases on one clock, the guest's TSC (host TSC + KVM's TSC offset), and
 * tl_write_json() writes them in the Chrome Trace Event format.
 *
 * Off (no --timeline), @ev is NULL and each hook is one predictable
 * branch: tl_on().
 */
#ifndef VMM_TIMELINE_H
#define VMM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hw/irqlab.h"

enum tl_kind {
	TL_ICR_HI,	/* xAPIC: the ICR_HI write reached userspace; @seq */
	TL_EXIT,	/* the ICR (ICR_LO) or doorbell write did; @seq */
	TL_POST,	/* @vector posted to vCPU @peer as IPI @id */
	TL_KICK,	/* @peer was in KVM_RUN: signalled out of it */
	TL_WAKE,	/* @peer slept in HLT: futex woken */
	TL_QUIET,	/* @peer was outside the guest: nothing to do */
	TL_KICKED,	/* this vCPU's KVM_RUN returned for a kick */
	TL_WOKE,	/* this vCPU's HLT sleep ended */
	TL_INJECT,	/* KVM_INTERRUPT of @vector, IPI @id */
	TL_ENTRY,	/* the KVM_RUN that takes it in */
	TL_EOI,		/* an EOI write reached userspace, @id in service */
	TL_TIMER,	/* the PIT's timer thread: its host timer fired */
	TL_NR_KINDS
};

struct tl_event {
	uint64_t tsc;		/* host TSC */
	uint32_t id;		/* IPI id (1, 2, ...), 0: none */
	uint32_t seq;		/* the sender's irqlab_tl_ring.sends */
	uint8_t kind;		/* enum tl_kind */
	uint8_t vector;
	uint16_t peer;		/* TL_POST..TL_QUIET: the target vCPU */
	uint32_t gcount;	/* the guest ring's count then: its stamps
				 * before this point (exits), or after
				 * (an entry's next stamp is the first) */
};

#define TL_EVENTS	65536	/* per vCPU: 1.5 MiB, touched as it fills */
/* an event's gcount where nothing read the guest ring (KVM's tracepoints) */
#define TL_GCOUNT_UNKNOWN	UINT32_MAX

struct tl_vcpu {
	struct tl_event *ev;	/* NULL: off */
	uint32_t n;		/* events written */
	uint64_t dropped;	/* events past TL_EVENTS */
	uint64_t exit_tsc;	/* host TSC at KVM_RUN's last return */
	bool entry_due;		/* the next KVM_RUN gets a TL_ENTRY */
	uint32_t pending[256];	/* IPI id posted at each vector (atomic) */
	uint32_t notified;	/* the IPI id of the last sender that woke or
				 * kicked it, stored before it did (atomic):
				 * its TL_WOKE or TL_KICKED carries it */
	uint32_t isr[256];	/* IPI id taken in at each vector */
	/* the guest's ring: its host address and the size it registered */
	struct irqlab_tl_ring *guest;
	uint32_t guest_size;
};

static inline bool tl_on(const struct tl_vcpu *t)
{
	return __builtin_expect(t->ev != NULL, 0);
}

static inline uint64_t tl_tsc(void)
{
	return __builtin_ia32_rdtsc();
}

bool tl_alloc(struct tl_vcpu *t);
void tl_free(struct tl_vcpu *t);
void tl_add(struct tl_vcpu *t, enum tl_kind k, uint64_t tsc, uint32_t id,
	    uint32_t seq, unsigned vector, unsigned peer);

/* Woken from a HLT sleep, or kicked out of KVM_RUN: the id of the last
 * sender that notified it, read before the time is taken, so that sender
 * began to notify before this event (timeline.c out_event()). */
static inline void tl_woke(struct tl_vcpu *t, enum tl_kind k)
{
	uint32_t by = __atomic_load_n(&t->notified, __ATOMIC_ACQUIRE);

	tl_add(t, k, tl_tsc(), by, 0, 0, 0);
}

/* the guest's irqlab_tl_ring.sends now (0: no ring) */
uint32_t tl_guest_sends(const struct tl_vcpu *t);

/* One vCPU's input to the join: its events, its guest stamps (a copy),
 * and its TSC offset (guest TSC = host TSC + @tsc_offset). */
struct tl_cpu {
	const struct tl_event *ev;
	uint32_t n;
	uint64_t dropped;
	const struct irqlab_tl_stamp *st;
	uint32_t nst;
	uint32_t st_dropped;	/* the guest's count past its size */
	int64_t tsc_offset;
	const int64_t *fix;	/* the join's own: per event, added to it */
};

/* The points of one IPI, in order; a point the run did not have is 0. */
enum tl_point {
	TP_SEND,	/* guest: before the ICR write */
	TP_ICR_HI,	/* xAPIC ICR_HI exit */
	TP_EXIT,	/* the ICR (ICR_LO) or doorbell exit */
	TP_POST,	/* decoded and posted */
	TP_NOTIFY,	/* kick sent, wake sent, or nothing needed */
	TP_OUT,		/* target out of KVM_RUN, or awake */
	TP_INJECT,	/* KVM_INTERRUPT */
	TP_ENTRY,	/* KVM_RUN */
	TP_HANDLER,	/* guest: the handler's first line */
	TP_EOI,		/* guest: before the EOI */
	TP_EOI_EXIT,	/* the EOI exit */
	TP_NR
};

struct tl_ipi {
	uint32_t id;
	uint16_t from, to;
	uint8_t vector;
	uint8_t notify;		/* TL_KICK, TL_WAKE or TL_QUIET */
	bool backwards;		/* a point before the one ahead of it */
	uint64_t t[TP_NR];	/* guest TSC; 0: absent */
};

struct tl_result {
	struct tl_ipi *ipi;
	/* per CPU: the least and most the join added to its TSC offset,
	 * in guest TSC cycles (0 where KVM's offset agrees with the order
	 * of events), and its stretches whose bounds crossed */
	int64_t (*fix)[2];
	uint32_t *unsure;
	uint32_t n;
	uint32_t complete;	/* with send and handler, and with post
				 * and injection where irqlab-vmm posts */
	uint32_t backwards;
};

const char *tl_phase_name(enum tl_point p, const struct tl_ipi *ipi);
int tl_join(const struct tl_cpu *cpu, unsigned ncpu, struct tl_result *r);
void tl_result_free(struct tl_result *r);
/* @meta: the "otherData" object's members, already JSON ("k":v,...);
 * @pit: the PIT timer thread's events, a track of their own (NULL: none) */
void tl_write_json(FILE *f, const struct tl_cpu *cpu, unsigned ncpu,
		   const struct tl_result *r, uint64_t tsc_khz,
		   const char *meta, const struct tl_cpu *pit);
void tl_json_string(FILE *f, const char *s);

#endif
