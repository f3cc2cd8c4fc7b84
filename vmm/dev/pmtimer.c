// SPDX-License-Identifier: MIT
/* The ACPI PM timer (pmtimer.h). */
#include "pmtimer.h"

void pmtimer_init(struct pmtimer *t, uint64_t (*now_ns)(void *), void *ctx)
{
	t->now_ns = now_ns;
	t->ctx = ctx;
	t->start_ns = now_ns(ctx);
	t->bad_accesses = 0;
}

/* ACPI 6.5 sec. 4.8.3.3: it counts at 3.579545 MHz and wraps at 2^24 */
uint32_t pmtimer_count(struct pmtimer *t)
{
	unsigned __int128 ticks = (unsigned __int128)(t->now_ns(t->ctx) -
						      t->start_ns) * PMTIMER_HZ;

	return (uint32_t)(ticks / 1000000000ull) & PMTIMER_MASK;
}

/* The register is 32 bits (PM_TMR_LEN 4); narrower reads see its bytes. */
uint64_t pmtimer_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct pmtimer *t = opaque;

	(void)cpu;
	if (off + size > 4 || (size != 1 && size != 2 && size != 4)) {
		t->bad_accesses++;
		return ~0ull;
	}
	return (pmtimer_count(t) >> (off * 8)) &
	       (size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1);
}

/* ACPI: the timer is read-only */
void pmtimer_bus_write(void *opaque, uint64_t off, unsigned size,
		       uint64_t val, int cpu)
{
	struct pmtimer *t = opaque;

	(void)off, (void)size, (void)val, (void)cpu;
	t->bad_accesses++;
}
