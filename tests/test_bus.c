// SPDX-License-Identifier: MIT
/* The bus: registration, overlap rejection, dispatch, unclaimed accesses. */
#include <criterion/criterion.h>
#include <errno.h>

#include "exit/bus.h"

struct rec {
	uint64_t off, val;
	unsigned size;
	int cpu, reads, writes;
};

static uint64_t rec_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct rec *r = opaque;

	r->off = off;
	r->size = size;
	r->cpu = cpu;
	r->reads++;
	return 0x1122334455667788ull;
}

static void rec_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu)
{
	struct rec *r = opaque;

	r->off = off;
	r->size = size;
	r->val = val;
	r->cpu = cpu;
	r->writes++;
}

static struct bus_dev dev(const char *name, uint64_t base, uint64_t len,
			  struct rec *r)
{
	return (struct bus_dev){ name, base, len, r, rec_read, rec_write };
}

Test(bus, overlap_rejected)
{
	static struct bus b;
	struct rec r = { 0 };
	struct bus_dev d;

	bus_init(&b, "pio");
	d = dev("a", 0x100, 0x10, &r);
	cr_assert_eq(bus_register(&b, &d), 0);
	d = dev("inside", 0x108, 1, &r);
	cr_assert_eq(bus_register(&b, &d), -EEXIST);
	d = dev("straddle-low", 0xf8, 0x9, &r);
	cr_assert_eq(bus_register(&b, &d), -EEXIST);
	d = dev("straddle-high", 0x10f, 0x2, &r);
	cr_assert_eq(bus_register(&b, &d), -EEXIST);
	d = dev("covering", 0x0, 0x1000, &r);
	cr_assert_eq(bus_register(&b, &d), -EEXIST);
	d = dev("adjacent-low", 0xf0, 0x10, &r);
	cr_assert_eq(bus_register(&b, &d), 0);
	d = dev("adjacent-high", 0x110, 0x10, &r);
	cr_assert_eq(bus_register(&b, &d), 0);
	cr_assert_eq(b.nr_devs, 3);
}

Test(bus, bad_ranges_and_full_table)
{
	static struct bus b;
	struct rec r = { 0 };
	struct bus_dev d;
	unsigned i;

	bus_init(&b, "mmio");
	d = dev("empty", 0x100, 0, &r);
	cr_assert_eq(bus_register(&b, &d), -EINVAL);
	d = dev("wraps", ~0ull - 1, 4, &r);
	cr_assert_eq(bus_register(&b, &d), -EINVAL);
	for (i = 0; i < BUS_MAX_DEVS; i++) {
		d = dev("n", 0x1000 * (BUS_MAX_DEVS - i), 0x10, &r);
		cr_assert_eq(bus_register(&b, &d), 0);
	}
	d = dev("one-too-many", 0x100000, 1, &r);
	cr_assert_eq(bus_register(&b, &d), -ENOSPC);
	/* registered out of order; lookups still find each one */
	for (i = 1; i <= BUS_MAX_DEVS; i++)
		cr_assert_not_null(bus_find(&b, 0x1000 * i + 0xf, NULL));
	cr_assert_null(bus_find(&b, 0x1010, NULL));
}

Test(bus, dispatch_offset_size_cpu)
{
	static struct bus b;
	struct rec r1 = { 0 }, r2 = { 0 };
	struct bus_dev d;
	uint64_t v;

	bus_init(&b, "pio");
	d = dev("one", 0x3f8, 8, &r1);
	bus_register(&b, &d);
	d = dev("two", 0x510, 2, &r2);
	bus_register(&b, &d);

	cr_assert(bus_write(&b, 0x3fd, 1, 0x1ff, 3));
	cr_assert_eq(r1.writes, 1);
	cr_assert_eq(r1.off, 5);
	cr_assert_eq(r1.val, 0xff, "the value is truncated to the access size");
	cr_assert_eq(r1.cpu, 3);
	cr_assert_eq(r2.writes, 0);

	cr_assert(bus_read(&b, 0x511, 2, &v, 1));
	cr_assert_eq(r2.reads, 1);
	cr_assert_eq(r2.off, 1);
	cr_assert_eq(r2.size, 2);
	cr_assert_eq(v, 0x7788);
	cr_assert_eq(b.unclaimed_reads, 0);
	cr_assert_eq(b.unclaimed_writes, 0);
}

Test(bus, unclaimed_reads_all_ones_and_counts)
{
	static struct bus b;
	struct rec r = { 0 };
	struct bus_dev d;
	uint64_t v = 0;

	bus_init(&b, "pio");
	d = dev("com1", 0x3f8, 8, &r);
	bus_register(&b, &d);

	cr_assert_not(bus_read(&b, 0x400, 1, &v, 0));
	cr_assert_eq(v, 0xff);
	cr_assert_not(bus_read(&b, 0x3f7, 2, &v, 0));
	cr_assert_eq(v, 0xffff);
	cr_assert_not(bus_read(&b, 0x80, 4, &v, 0));
	cr_assert_eq(v, 0xffffffff);
	cr_assert_not(bus_read(&b, 0x80, 8, &v, 0));
	cr_assert_eq(v, ~0ull);
	cr_assert_not(bus_write(&b, 0x80, 1, 0x12, 0));
	cr_assert_eq(b.unclaimed_reads, 4);
	cr_assert_eq(b.unclaimed_writes, 1);
	cr_assert_eq(r.reads + r.writes, 0);
}

Test(bus, write_only_device_floats_on_read)
{
	static struct bus b;
	struct rec r = { 0 };
	struct bus_dev d = { "exit", 0xf4, 4, &r, NULL, rec_write };
	uint64_t v;

	bus_init(&b, "pio");
	bus_register(&b, &d);
	cr_assert_not(bus_read(&b, 0xf4, 1, &v, 0));
	cr_assert_eq(v, 0xff);
	cr_assert(bus_write(&b, 0xf4, 1, 7, 0));
	cr_assert_eq(r.val, 7);
}
