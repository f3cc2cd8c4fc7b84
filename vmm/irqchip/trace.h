/* SPDX-License-Identifier: MIT */
/* --trace=ioapic,pit,pic (trace.c): around one access, under isa_lock. */
#ifndef VMM_IRQCHIP_TRACE_H
#define VMM_IRQCHIP_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "apic/ioapic.h"

struct vm;
struct isa_dev;

/* the IOAPIC as it was before the access */
struct isa_trace_snap {
	uint32_t regsel;
	struct ioapic_stats stats;
	uint64_t commits;
	uint32_t tmr[IOAPIC_MAX_CPUS][8];
};

void isa_trace_line(struct vm *vm, const char *line);
void isa_trace_begin(struct vm *vm, const struct isa_dev *d, int cpu,
		     struct isa_trace_snap *s);
void isa_trace_end(struct vm *vm, const struct isa_dev *d,
		   const struct isa_trace_snap *s, uint64_t off, unsigned size,
		   uint64_t val, bool write);

#endif
