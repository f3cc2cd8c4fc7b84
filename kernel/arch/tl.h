/* SPDX-License-Identifier: MIT */
/*
 * The timeline's guest stamps (docs/ANATOMY.md, hw/irqlab.h): the CPU's
 * TSC at the send, at an interrupt's first C line and before its EOI,
 * into this CPU's ring.  No exit: irqlab-vmm reads the rings when the run
 * ends; elsewhere dev/timeline.c prints them as @tl records.  Off (the
 * ring pointer NULL) a stamp is one load and one predictable branch.
 */
#ifndef KERNEL_ARCH_TL_H
#define KERNEL_ARCH_TL_H

#include <stdint.h>

#include "hw/irqlab.h"
#include "percpu.h"
#include "x86.h"

/*
 * Interrupts off while stamping: a handler's own stamp must not take the
 * same slot.  The TSC is read last, next to the event.  A SEND counts in
 * @sends even when the ring is full, since the VMM numbers the ICR exits
 * by it.
 */
static inline void tl_stamp(unsigned kind, unsigned vector, unsigned dest)
{
	struct irqlab_tl_ring *r = this_cpu()->tl;
	struct irqlab_tl_stamp *s;
	uint64_t flags;
	uint32_t i;

	if (__builtin_expect(!r, 1))
		return;
	flags = irq_save();
	i = r->count;
	if (kind == IRQLAB_TL_SEND)
		r->sends++;
	if (i < r->size) {
		s = &r->stamp[i];
		s->seq = kind == IRQLAB_TL_SEND ? r->sends : 0;
		s->kind = (uint8_t)kind;
		s->vector = (uint8_t)vector;
		s->dest = (uint16_t)dest;
		s->tsc = rdtsc();
	}
	if (i != UINT32_MAX)
		r->count = i + 1;
	irq_restore(flags);
}

#endif
