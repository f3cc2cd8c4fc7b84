// SPDX-License-Identifier: MIT
/* The pc-testdev IRQ lines, alone and driving the IOAPIC model. */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/ioapic.h"
#include "apic/ioapic.h"
#include "dev/testdev.h"

#define LOG	32

static struct testdev td;
static struct {
	unsigned n;
	unsigned line[LOG];
	int level[LOG];
} calls;

static void record_irq(void *ctx, unsigned line, int level)
{
	(void)ctx;
	if (calls.n < LOG) {
		calls.line[calls.n] = line;
		calls.level[calls.n] = level;
	}
	calls.n++;
}

static void setup(void)
{
	memset(&calls, 0, sizeof(calls));
	testdev_init(&td, record_irq, NULL);
}

TestSuite(testdev, .init = setup);

Test(testdev, byte_write_sets_the_line_to_not_not_value)
{
	testdev_bus_write(&td, 10, 1, 1, 0);
	testdev_bus_write(&td, 10, 1, 0x80, 0);
	testdev_bus_write(&td, 23, 1, 0, 1);
	testdev_bus_write(&td, 0, 1, 0x100, 0);	/* the low byte counts */
	cr_assert_eq(calls.n, 4);
	cr_assert_eq(calls.line[0], 10);
	cr_assert_eq(calls.level[0], 1);
	cr_assert_eq(calls.level[1], 1, "!!0x80 is 1");
	cr_assert_eq(calls.line[2], 23);
	cr_assert_eq(calls.level[2], 0);
	cr_assert_eq(calls.line[3], 0);
	cr_assert_eq(calls.level[3], 0);
	cr_assert_eq(td.writes, 4);
	cr_assert_eq(testdev_bus_read(&td, 10, 1, 0), 1);
	cr_assert_eq(testdev_bus_read(&td, 23, 1, 0), 0);
}

Test(testdev, every_write_reaches_the_line_even_unchanged)
{
	testdev_bus_write(&td, 5, 1, 1, 0);
	testdev_bus_write(&td, 5, 1, 1, 0);
	cr_assert_eq(calls.n, 2);
}

Test(testdev, wide_and_out_of_range_accesses_are_ignored)
{
	testdev_bus_write(&td, 3, 2, 1, 0);
	testdev_bus_write(&td, 3, 4, 1, 0);
	testdev_bus_write(&td, TESTDEV_NR_LINES, 1, 1, 0);
	testdev_bus_write(&td, ~0ull, 1, 1, 0);
	cr_assert_eq(calls.n, 0);
	cr_assert_eq(testdev_bus_read(&td, 3, 4, 0), ~0ull);
	cr_assert_eq(testdev_bus_read(&td, 99, 1, 0), ~0ull);
	cr_assert_eq(td.bad_accesses, 6);
	cr_assert_eq(td.writes, 0);
}

/* ---- through the IOAPIC: the lines the guest's check=ioapic uses ---- */

static struct ioapic io;
static unsigned delivered;
static struct lapic_ipi last;

static int count_deliver(void *ctx, const struct lapic_ipi *msg)
{
	(void)ctx;
	delivered++;
	last = *msg;
	return 1;
}

static uint64_t one_cpu(void *ctx, uint32_t dest, bool logical)
{
	(void)ctx, (void)dest, (void)logical;
	return 1;
}

static void no_tmr(void *ctx, unsigned cpu, const uint32_t *tmr)
{
	(void)ctx, (void)cpu, (void)tmr;
}

static const struct ioapic_ops io_ops = {
	.deliver = count_deliver, .dest_mask = one_cpu, .tmr_update = no_tmr,
};

/* irqchip/isa.c's mapping: ISA line 0 is pin 2, line n > 0 is pin n */
static void to_ioapic(void *ctx, unsigned line, int level)
{
	ioapic_set_irq(ctx, line == 0 ? 2 : line, level);
}

static void setup_io(void)
{
	delivered = 0;
	cr_assert_eq(ioapic_init(&io, 1, 0, IOAPIC_OPTIMIZED, &io_ops, NULL),
		     0);
	testdev_init(&td, to_ioapic, &io);
}

static void rte(unsigned pin, uint32_t low)
{
	cr_assert_eq(ioapic_reg_write(&io, -1, IOAPIC_REG_REDTBL + 2 * pin + 1,
				      0), 0);
	cr_assert_eq(ioapic_reg_write(&io, -1, IOAPIC_REG_REDTBL + 2 * pin,
				      low), 0);
}

Test(testdev, drives_edge_and_level_pins, .init = setup_io)
{
	rte(10, 0x41);				/* edge, vector 0x41 */
	testdev_bus_write(&td, 10, 1, 1, 0);
	testdev_bus_write(&td, 10, 1, 1, 0);	/* still high: no edge */
	cr_assert_eq(delivered, 1);
	cr_assert_eq(last.vector, 0x41);
	testdev_bus_write(&td, 10, 1, 0, 0);
	testdev_bus_write(&td, 10, 1, 1, 0);
	cr_assert_eq(delivered, 2);

	rte(11, 0x42 | IOAPIC_RTE_LEVEL);
	testdev_bus_write(&td, 11, 1, 1, 0);
	cr_assert_eq(delivered, 3);
	cr_assert(ioapic_rte(&io, 11) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_eoi(&io, 0x42);		/* still asserted: again */
	cr_assert_eq(delivered, 4);
	testdev_bus_write(&td, 11, 1, 0, 0);
	ioapic_eoi(&io, 0x42);
	cr_assert_eq(delivered, 4, "deasserted before the EOI: no more");

	rte(2, 0x43);				/* line 0 is pin 2 */
	testdev_bus_write(&td, 0, 1, 1, 0);
	cr_assert_eq(delivered, 5);
	cr_assert_eq(last.vector, 0x43);
}
