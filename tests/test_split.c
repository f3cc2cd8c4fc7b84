// SPDX-License-Identifier: MIT
/*
 * --irqchip=split (vmm/irqchip/split.c) with a fake KVM: IOAPIC messages become
 * MSIs, and the GSI routes are committed only when a pin's effective
 * route changed (or on any change, with --ioapic=naive).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/ioapic.h"
#include "irqchip/isa.h"
#include "irqchip/split.h"
#include "vm.h"

#define LOG 64

static struct vm vm;
static struct vmm_config cfg;
static struct {
	unsigned nmsi, ncommit;
	struct split_msi msi[LOG];
	struct split_msi routes[IOAPIC_NR_PINS];
	unsigned nroutes;
	int took;
} f;

static int fake_signal_msi(struct vm *v, const struct split_msi *m)
{
	(void)v;
	cr_assert_lt(f.nmsi, LOG);
	f.msi[f.nmsi++] = *m;
	return f.took;
}

static int fake_set_routes(struct vm *v, const struct split_msi *r, unsigned n)
{
	unsigned i;

	(void)v;
	cr_assert_eq(n, IOAPIC_NR_PINS);
	memcpy(f.routes, r, sizeof(f.routes));
	f.nroutes = 0;
	for (i = 0; i < n; i++)
		f.nroutes += r[i].addr != 0;
	f.ncommit++;
	return 0;
}

static const struct split_ops fake_ops = {
	.signal_msi = fake_signal_msi,
	.set_routes = fake_set_routes,
};

static unsigned start_trace;	/* cfg.trace for the next start() */

static void start(enum ioapic_policy policy)
{
	memset(&f, 0, sizeof(f));
	memset(&vm, 0, sizeof(vm));
	memset(&cfg, 0, sizeof(cfg));
	f.took = 1;
	cfg.irqchip = IRQCHIP_SPLIT;
	cfg.ioapic_policy = policy;
	cfg.trace = start_trace;
	cfg.cpus = 4;
	vm.cfg = &cfg;
	vm.nr_vcpus = 4;
	vm.split.ops = &fake_ops;
	bus_init(&vm.pio, "pio");
	bus_init(&vm.mmio, "mmio");
	isa_init(&vm);
}

static void setup(void)
{
	start(IOAPIC_OPTIMIZED);
}

TestSuite(split, .init = setup);

static void reg_write(unsigned index, uint32_t val)
{
	bus_write(&vm.mmio, IOAPIC_DEFAULT_BASE + IOAPIC_IOREGSEL, 4, index, 0);
	bus_write(&vm.mmio, IOAPIC_DEFAULT_BASE + IOAPIC_IOWIN, 4, val, 0);
}

static void rte(unsigned pin, uint32_t lo, uint8_t dest)
{
	reg_write(IOAPIC_REG_REDTBL + 2 * pin, lo);
	reg_write(IOAPIC_REG_REDTBL + 2 * pin + 1,
		  (uint32_t)dest << IOAPIC_RTE_DEST_SHIFT);
}

Test(split, edge_destination_rotation_commits_nothing)
{
	unsigned i;

	rte(4, 0x31, 0);
	for (i = 0; i < 32; i++) {
		/* the Windows pattern: low dword unchanged, then the high */
		reg_write(IOAPIC_REG_REDTBL + 8, 0x31);
		reg_write(IOAPIC_REG_REDTBL + 9, (i % 4) << 24);
	}
	cr_assert_eq(vm.split.route_commits, 0);
	cr_assert_eq(f.ncommit, 0);
	isa_set_line(&vm, 4, 1);
	cr_assert_eq(f.nmsi, 1);
	cr_assert_eq(f.msi[0].addr, 0xfee00000u | 3 << 12, "dest 3, physical");
	cr_assert_eq(f.msi[0].data, 0x31 | 1u << 14, "edge, fixed");
}

Test(split, level_entry_route_commits_once_per_change)
{
	rte(9, 0x41 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED, 1);
	/* the low write made the route; the high write moved it */
	cr_assert_eq(f.ncommit, 2);
	cr_assert_eq(f.nroutes, 1);
	cr_assert_eq(f.routes[9].addr, 0xfee00000u | 1 << 12);
	cr_assert_eq(f.routes[9].data, 0x41 | 1u << 14 | 1u << 15);
	/* unmask: not part of the route */
	reg_write(IOAPIC_REG_REDTBL + 18, 0x41 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.ncommit, 2);
	/* the same destination again: nothing */
	reg_write(IOAPIC_REG_REDTBL + 19, 1u << 24);
	cr_assert_eq(f.ncommit, 2);
	/* a new vector, a new destination: one commit each */
	reg_write(IOAPIC_REG_REDTBL + 18, 0x42 | IOAPIC_RTE_LEVEL);
	reg_write(IOAPIC_REG_REDTBL + 19, 2u << 24);
	cr_assert_eq(f.ncommit, 4);
	cr_assert_eq(vm.split.route_commits, 4);
	/* back to edge: the route goes */
	reg_write(IOAPIC_REG_REDTBL + 18, 0x42);
	cr_assert_eq(f.ncommit, 5);
	cr_assert_eq(f.nroutes, 0);
}

Test(split, level_delivery_and_eoi)
{
	rte(9, 0x41 | IOAPIC_RTE_LEVEL, 2);
	isa_set_line(&vm, 9, 1);
	cr_assert_eq(f.nmsi, 1);
	cr_assert_eq(f.msi[0].data, 0x41 | 1u << 14 | 1u << 15, "level");
	cr_assert(ioapic_rte(&vm.ioapic, 9) & IOAPIC_RTE_REMOTE_IRR);
	isa_set_line(&vm, 9, 1);
	cr_assert_eq(f.nmsi, 1, "remote IRR holds it");
	/* KVM_EXIT_IOAPIC_EOI: still asserted, so delivered again */
	isa_eoi(&vm, 0x41);
	cr_assert_eq(f.nmsi, 2);
	isa_set_line(&vm, 9, 0);
	isa_eoi(&vm, 0x41);
	cr_assert_eq(f.nmsi, 2);
	cr_assert_not(ioapic_rte(&vm.ioapic, 9) & IOAPIC_RTE_REMOTE_IRR);
	/* a message no LAPIC took leaves remote IRR clear */
	f.took = 0;
	isa_set_line(&vm, 9, 1);
	cr_assert_not(ioapic_rte(&vm.ioapic, 9) & IOAPIC_RTE_REMOTE_IRR);
}

Test(split, lowest_priority_logical_and_extint)
{
	rte(5, 0x51 | IOAPIC_RTE_DM_LOWEST | IOAPIC_RTE_LOGICAL, 0x0f);
	isa_set_line(&vm, 5, 1);
	cr_assert_eq(f.msi[0].addr, 0xfee00000u | 0x0f << 12 | 1 << 3 | 1 << 2);
	cr_assert_eq(f.msi[0].data, 0x51 | 0x100 | 1u << 14);
	rte(6, IOAPIC_RTE_DM_EXTINT, 0);
	isa_set_line(&vm, 6, 1);
	cr_assert_eq(f.nmsi, 1, "ExtINT is dropped, not sent");
	cr_assert(vm.split.extint_warned);
}

Test(split, naive_commits_on_every_change)
{
	unsigned i;

	start(IOAPIC_NAIVE);
	rte(4, 0x31, 0);
	cr_assert_eq(f.ncommit, 1, "the low dword changed; the high did not");
	for (i = 1; i <= 8; i++) {
		reg_write(IOAPIC_REG_REDTBL + 8, 0x31);
		reg_write(IOAPIC_REG_REDTBL + 9, (i % 4) << 24);
	}
	cr_assert_eq(f.ncommit, 9, "one per destination change");
	cr_assert_eq(f.nroutes, 0, "an edge entry still needs no route");
	/* remote IRR is not part of what the guest wrote */
	rte(9, 0x41 | IOAPIC_RTE_LEVEL, 0);
	isa_set_line(&vm, 9, 1);
	cr_assert(ioapic_rte(&vm.ioapic, 9) & IOAPIC_RTE_REMOTE_IRR);
	f.ncommit = 0;
	reg_write(IOAPIC_REG_REDTBL + 18, 0x41 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.ncommit, 0, "the same value again: no commit");
}

Test(split, traced_accesses_do_the_same)
{
	unsigned i;

	start_trace = TRACE_ISA;
	start(IOAPIC_OPTIMIZED);
	cr_assert_not_null(vm.ioapic.ops->trace, "the models trace too");
	rte(9, 0x41 | IOAPIC_RTE_LEVEL, 2);
	cr_assert_eq(f.ncommit, 2);
	/* bad widths and offsets, PIT and PIC ports: traced, never fatal */
	bus_write(&vm.mmio, IOAPIC_DEFAULT_BASE + 0x20, 4, 1, 0);
	bus_write(&vm.mmio, IOAPIC_DEFAULT_BASE, 2, 1, 0);
	for (i = 0; i < 4; i++)
		bus_write(&vm.pio, 0x40 + i, 1, 0x34, 0);
	bus_write(&vm.pio, 0x43, 1, 0xc2, 0);	/* read-back */
	bus_write(&vm.pio, 0x43, 1, 0x80, 0);	/* ch2 latch */
	bus_write(&vm.pio, 0x61, 1, 0x01, 0);
	bus_write(&vm.pio, 0x20, 1, 0x11, 0);
	bus_write(&vm.pio, 0x21, 1, 0x20, 0);
	cr_assert_eq(vm.ioapic.stats.bad_accesses, 2);
	isa_set_line(&vm, 9, 1);
	cr_assert_eq(f.nmsi, 1);
}

/*
 * Issue 35's scenario: a level entry moved while its message is in
 * flight keeps the route it delivered by until its EOI, so the CPU that
 * has the vector keeps its EOI-exit bit (KVM before 6.2 drops it: split.c,
 * split_sync()); its EOI then moves the route, before any new message.
 */
Test(split, a_level_entry_moved_in_flight_keeps_its_route_until_the_eoi)
{
	rte(13, 0x64 | IOAPIC_RTE_LEVEL, 0);
	rte(14, 0x84 | IOAPIC_RTE_LEVEL, 0);
	isa_set_line(&vm, 13, 1);
	isa_set_line(&vm, 14, 1);
	cr_assert_eq(f.nmsi, 2);
	/* the handler moves both, by their high dwords only */
	reg_write(IOAPIC_REG_REDTBL + 2 * 13 + 1, 1u << IOAPIC_RTE_DEST_SHIFT);
	reg_write(IOAPIC_REG_REDTBL + 2 * 14 + 1, 1u << IOAPIC_RTE_DEST_SHIFT);
	cr_assert_eq(f.routes[13].addr, 0xfee00000u, "still CPU 0's");
	cr_assert_eq(f.routes[14].addr, 0xfee00000u, "still CPU 0's");
	/* 0x64's EOI, its line low: its route moves, 14's stays */
	isa_set_line(&vm, 13, 0);
	isa_eoi(&vm, 0x64);
	cr_assert_eq(f.routes[13].addr, 0xfee00000u | 1 << 12, "CPU 1's");
	cr_assert_eq(f.routes[14].addr, 0xfee00000u, "0x84 still in flight");
	/* 0x84's EOI with its line still high: the route moves first, then
	 * the message goes to CPU 1 */
	isa_eoi(&vm, 0x84);
	cr_assert_eq(f.nmsi, 3);
	cr_assert_eq(f.msi[2].addr, 0xfee00000u | 1 << 12);
	cr_assert_eq(f.routes[14].addr, 0xfee00000u | 1 << 12);
}
