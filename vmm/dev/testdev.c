// SPDX-License-Identifier: MIT
/*
 * QEMU's pc-testdev IRQ lines (hw/misc/pc-testdev.c, test_irq_line():
 * qemu_set_irq(isa_get_irq(dev, addr), !!data)).  Every write calls
 * set_irq, even if the level did not change: the line is a wire, and the
 * interrupt controller decides what a repeated level means (an edge
 * entry ignores it, a level entry with remote IRR clear delivers).
 */
#include "testdev.h"

void testdev_init(struct testdev *t,
		  void (*set_irq)(void *ctx, unsigned line, int level),
		  void *ctx)
{
	*t = (struct testdev){ .set_irq = set_irq, .ctx = ctx };
}

uint64_t testdev_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct testdev *t = opaque;

	(void)cpu;
	if (size != 1 || off >= TESTDEV_NR_LINES) {
		__atomic_add_fetch(&t->bad_accesses, 1, __ATOMIC_RELAXED);
		return ~0ull;
	}
	return __atomic_load_n(&t->level[off], __ATOMIC_RELAXED);
}

void testdev_bus_write(void *opaque, uint64_t off, unsigned size,
		       uint64_t val, int cpu)
{
	struct testdev *t = opaque;
	int level = (val & 0xff) != 0;

	(void)cpu;
	if (size != 1 || off >= TESTDEV_NR_LINES) {
		__atomic_add_fetch(&t->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&t->level[off], (uint8_t)level, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->writes, 1, __ATOMIC_RELAXED);
	t->set_irq(t->ctx, (unsigned)off, level);
}
