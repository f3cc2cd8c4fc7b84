// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>

#include "dev/pmtimer.h"

static uint64_t fake_ns;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return fake_ns;
}

static struct pmtimer t;

static void setup(void)
{
	fake_ns = 5000000000ull;
	pmtimer_init(&t, fake_now, NULL);
}

TestSuite(pmtimer, .init = setup);

Test(pmtimer, counts_at_3579545_hz)
{
	cr_expect_eq(pmtimer_count(&t), 0);
	fake_ns += 1000000;			/* 1 ms: 3579.545 ticks */
	cr_expect_eq(pmtimer_count(&t), 3579);
	fake_ns += 999000000;			/* 1 s in all */
	cr_expect_eq(pmtimer_count(&t), 3579545);
}

Test(pmtimer, wraps_at_24_bits)
{
	/* 2^24 ticks = 4.687 s: just after that the count starts again */
	fake_ns += 4687000000ull + 100000000ull;
	cr_expect_lt(pmtimer_count(&t), 1u << 24);
	cr_expect_eq(pmtimer_count(&t),
		     (uint32_t)((4787000000ull * 3579545ull / 1000000000ull) &
				0xffffff));
}

Test(pmtimer, bus_widths)
{
	fake_ns += 1000000000ull;		/* 3579545 = 0x369e99 */
	cr_expect_eq(pmtimer_bus_read(&t, 0, 4, 0), 0x369e99);
	cr_expect_eq(pmtimer_bus_read(&t, 0, 1, 0), 0x99);
	cr_expect_eq(pmtimer_bus_read(&t, 1, 2, 0), 0x369e);
	cr_expect_eq(pmtimer_bus_read(&t, 2, 4, 0), ~0ull, "past the register");
	cr_expect_eq(pmtimer_bus_read(&t, 0, 3, 0), ~0ull, "odd width");
	pmtimer_bus_write(&t, 0, 4, 0, 0);
	cr_expect_eq(pmtimer_bus_read(&t, 0, 4, 0), 0x369e99, "read-only");
	cr_expect_eq(t.bad_accesses, 3);
}
