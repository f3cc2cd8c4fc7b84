/* SPDX-License-Identifier: MIT */
/* The irqlab protocol device (include/hw/irqlab.h, docs/PROTOCOL.md). */
#ifndef VMM_PVPORT_H
#define VMM_PVPORT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/irqlab.h"
#include "boot/mem.h"

struct pvport {
	const struct guest_mem *mem;
	void (*out)(void *ctx, const char *buf, size_t len);
	void (*poweroff)(void *ctx, int status);
	void (*set_phase)(void *ctx, unsigned phase);
	void (*snapshot)(void *ctx, struct irqlab_snapshot *snap);
	/* vCPU @cpu's PV EOI word (host address, aligned) or NULL: off;
	 * -1 when PV EOI is not offered.  Optional. */
	int (*pv_eoi)(void *ctx, int cpu, uint32_t *word);
	void *ctx;
	uint64_t bad_accesses;	/* wrong size, bad address, bad phase,
				 * a doorbell that is not there */
	/* IRQLAB_PORT_PV_IPI from vCPU @cpu; NULL: no doorbell (--pv-ipi) */
	void (*pv_ipi)(void *ctx, int cpu, uint64_t gpa);
	/* IRQLAB_PORT_TIMELINE from vCPU @cpu: its ring (host address,
	 * checked to lie in RAM with @size stamps), NULL: off; NULL
	 * callback: no --timeline */
	void (*tl_ring)(void *ctx, int cpu, struct irqlab_tl_ring *ring,
			uint32_t size);
};

uint64_t pvport_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pvport_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		  int cpu);

#endif
