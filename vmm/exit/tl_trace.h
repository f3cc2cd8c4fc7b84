/* SPDX-License-Identifier: MIT */
/*
 * KVM's tracepoints as the timeline's events (tl_trace.c): with KVM's
 * LAPIC, the host's points of each IPI come from tracefs's text.
 */
#ifndef VMM_TL_TRACE_H
#define VMM_TL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

#define TL_TRACE_CPUS	64	/* as VMM_MAX_CPUS */
#define TL_TRACE_TIDS	256

/* one vCPU's events, as --irqchip=user's thread would have recorded */
struct tl_stream {
	struct tl_event *ev;
	uint32_t n, cap;
	uint64_t last_exit;	/* the TSC of its last kvm_exit */
	uint32_t sends;		/* its ICR writes: the guest's seq */
	int ipi_vec;		/* the vector of the ICR write now handled */
	bool entry_due;
	bool eoi_held;		/* a kvm_eoi, unless kvm_pv_eoi follows */
	uint8_t eoi_vec;
	uint64_t eoi_tsc;
	uint32_t pending[256];	/* the IPI id accepted at each vector */
	uint32_t isr[256];	/* and injected */
};

struct tl_trace {
	unsigned ncpu;
	struct tl_stream cpu[TL_TRACE_CPUS];
	long tid[TL_TRACE_TIDS];
	unsigned tid_cpu[TL_TRACE_TIDS];
	unsigned ntid;
	uint32_t next_id;
};

/* One line of the trace file; -1 without memory.  Lines of other events,
 * other clocks and unknown threads are skipped. */
int tl_trace_line(struct tl_trace *t, const char *line);
/* After the last line: how each IPI reached its target. */
void tl_trace_finish(struct tl_trace *t);
/* Each event's place among @c's guest stamps, where it pairs up exactly
 * (an ICR exit with its send, an injection with its handler). */
void tl_trace_gcounts(struct tl_event *ev, uint32_t n, const struct tl_cpu *c);
void tl_trace_free(struct tl_trace *t);

#endif
