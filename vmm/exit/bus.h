/* SPDX-License-Identifier: MIT */
/*
 * One address-range registry and dispatch path, used twice: once for port
 * I/O and once for MMIO.  A device claims [base, base + len) with a read
 * and a write callback; overlapping claims are refused.  Accesses nobody
 * claimed read as all-ones and drop writes, like an ISA/PCI bus with no
 * device to answer, and they are counted.
 */
#ifndef VMM_BUS_H
#define VMM_BUS_H

#include <stdbool.h>
#include <stdint.h>

#define BUS_MAX_DEVS	32

struct bus_dev {
	const char *name;
	uint64_t base;
	uint64_t len;
	void *opaque;
	/* @off is relative to @base; @size is 1, 2, 4 or 8; @cpu is the vCPU */
	uint64_t (*read)(void *opaque, uint64_t off, unsigned size, int cpu);
	void (*write)(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu);
};

struct bus {
	const char *name;		/* "pio" or "mmio" */
	unsigned nr_devs;
	struct bus_dev devs[BUS_MAX_DEVS];	/* sorted by base */
	uint64_t unclaimed_reads;	/* written with relaxed atomics */
	uint64_t unclaimed_writes;
};

void bus_init(struct bus *bus, const char *name);

/* 0, or -EEXIST on overlap, -EINVAL on an empty or wrapping range,
 * -ENOSPC when the table is full. */
int bus_register(struct bus *bus, const struct bus_dev *dev);

/* The device claiming @addr, or NULL.  Also gives its index for stats. */
const struct bus_dev *bus_find(const struct bus *bus, uint64_t addr, int *idx);

/* Dispatch one access; they return whether a device claimed it. */
bool bus_read(struct bus *bus, uint64_t addr, unsigned size, uint64_t *val,
	      int cpu);
bool bus_write(struct bus *bus, uint64_t addr, unsigned size, uint64_t val,
	       int cpu);

#endif
