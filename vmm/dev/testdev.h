/* SPDX-License-Identifier: MIT */
/*
 * The IRQ-line part of QEMU's pc-testdev (hw/misc/pc-testdev.c): a byte
 * written to port 0x2000 + n sets ISA line n (0-23) to !!value, so a
 * guest can drive the interrupt controllers' input pins from inside and
 * test their edge, level and remote-IRR rules.  Pure: it only calls
 * set_irq, which the machine binds to its ISA lines (irqchip/isa.c) or to
 * KVM_IRQ_LINE (--irqchip=kernel).
 */
#ifndef VMM_TESTDEV_H
#define VMM_TESTDEV_H

#include <stdint.h>

#include "hw/testdev.h"		/* TESTDEV_IRQ_BASE, TESTDEV_NR_LINES */

struct testdev {
	void (*set_irq)(void *ctx, unsigned line, int level);
	void *ctx;
	uint8_t level[TESTDEV_NR_LINES];	/* last set (relaxed atomic) */
	uint64_t writes;			/* lines set */
	uint64_t bad_accesses;			/* wider than a byte */
};

void testdev_init(struct testdev *t,
		  void (*set_irq)(void *ctx, unsigned line, int level),
		  void *ctx);
/*
 * struct bus_dev callbacks, @off from TESTDEV_IRQ_BASE.  A write must be
 * one byte (QEMU's valid.max_access_size = 1): anything else is counted
 * in bad_accesses and ignored.  A read gives the line's level as last
 * set (0 or 1): QEMU's device has no read, so guests must not rely on it.
 */
uint64_t testdev_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void testdev_bus_write(void *opaque, uint64_t off, unsigned size,
		       uint64_t val, int cpu);

#endif
