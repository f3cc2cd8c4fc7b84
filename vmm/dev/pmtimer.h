/* SPDX-License-Identifier: MIT */
/*
 * The ACPI power-management timer (ACPI 6.5 sec. 4.8.3.3): a 24-bit
 * counter at 3.579545 MHz, read at PM_TMR_BLK (port 0x608 in irqlab's
 * FADT).  Pure: the count is computed from ops time when read.
 */
#ifndef VMM_PMTIMER_H
#define VMM_PMTIMER_H

#include <stdint.h>

#define PMTIMER_HZ	3579545ull
#define PMTIMER_MASK	0xffffffu	/* TMR_VAL_EXT = 0: 24 bits */

struct pmtimer {
	uint64_t (*now_ns)(void *ctx);
	void *ctx;
	uint64_t start_ns;
	uint64_t bad_accesses;
};

void pmtimer_init(struct pmtimer *t, uint64_t (*now_ns)(void *), void *ctx);
uint32_t pmtimer_count(struct pmtimer *t);
/* struct bus_dev callbacks: reads of 1, 2 or 4 bytes; writes are ignored */
uint64_t pmtimer_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pmtimer_bus_write(void *opaque, uint64_t off, unsigned size,
		       uint64_t val, int cpu);

#endif
