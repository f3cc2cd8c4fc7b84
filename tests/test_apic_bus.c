// SPDX-License-Identifier: MIT
/* ICR messages and their destinations (SDM 11.6.1, 11.6.2, 11.12.10). */
#include <criterion/criterion.h>

#include "apic/apic_bus.h"
#include "apic/lapic.h"
#include "hw/apic.h"
#include "lapic_fake.h"

static struct lapic apic[FAKE_CPUS];
static struct lapic *const cpus[FAKE_CPUS] = { &apic[0], &apic[1], &apic[2], &apic[3] };

/* four CPUs with APIC IDs 0, 1, 2, 3, all software-enabled */
static void setup(void)
{
	unsigned i;

	fake_reset();
	for (i = 0; i < FAKE_CPUS; i++) {
		fake_lapic(&apic[i], i, i);
		fake_sw_enable(&apic[i]);
	}
}

TestSuite(apic_bus, .init = setup);

static uint64_t route(int src, uint32_t delivery, bool logical, uint32_t shorthand,
		      uint32_t dest)
{
	struct lapic_ipi ipi = {
		.vector = 0x40, .delivery = delivery, .logical = logical,
		.shorthand = shorthand, .dest = dest,
	};
	uint64_t mask = ~0ull;

	apic_route(cpus, FAKE_CPUS, src, &ipi, &mask);
	return mask;
}

static uint64_t fixed(bool logical, uint32_t dest)
{
	return route(0, APIC_ICR_DM_FIXED, logical, APIC_ICR_DEST_FIELD, dest);
}

static uint64_t lowest(bool logical, uint32_t dest)
{
	return route(-1, APIC_ICR_DM_LOWEST, logical, APIC_ICR_DEST_FIELD, dest);
}

static void mmio(unsigned cpu, uint32_t off, uint32_t val)
{
	cr_assert_eq(lapic_mmio_write(&apic[cpu], off, 4, val), 0);
}

Test(apic_bus, xapic_physical_and_broadcast)
{
	cr_assert_eq(fixed(false, 2), 1u << 2);
	cr_assert_eq(fixed(false, 7), 0, "no such ID");
	cr_assert_eq(fixed(false, 0xff), 0xf, "broadcast");
	cr_assert_eq(fixed(false, 0x102), 1u << 2, "xAPIC targets see 8 bits");
	mmio(1, APIC_ID, 9u << 24);
	cr_assert_eq(fixed(false, 9), 1u << 1, "the ID register as written");
	cr_assert_eq(lapic_msr_write(&apic[3], MSR_IA32_APIC_BASE, APIC_DEFAULT_BASE), 0);
	cr_assert_eq(fixed(false, 0xff), 0x7, "a disabled APIC is off the bus");
	cr_assert_eq(fixed(false, 3), 0);
}

Test(apic_bus, xapic_logical_flat)
{
	mmio(0, APIC_LDR, 0x01u << 24);
	mmio(1, APIC_LDR, 0x02u << 24);
	mmio(2, APIC_LDR, 0x06u << 24);
	cr_assert_eq(fixed(true, 0x02), 0x6, "every APIC sharing a bit");
	cr_assert_eq(fixed(true, 0x05), 0x5);
	cr_assert_eq(fixed(true, 0x80), 0);
	cr_assert_eq(fixed(true, 0xff), 0xf, "broadcast, LDR 0 included");
}

Test(apic_bus, xapic_logical_cluster)
{
	unsigned i;

	for (i = 0; i < FAKE_CPUS; i++)
		mmio(i, APIC_DFR, APIC_DFR_CLUSTER);
	mmio(0, APIC_LDR, 0x11u << 24);		/* cluster 1, member 0 */
	mmio(1, APIC_LDR, 0x12u << 24);		/* cluster 1, member 1 */
	mmio(2, APIC_LDR, 0x21u << 24);		/* cluster 2, member 0 */
	mmio(3, APIC_LDR, 0x22u << 24);
	cr_assert_eq(fixed(true, 0x13), 0x3, "cluster 1, members 0 and 1");
	cr_assert_eq(fixed(true, 0x21), 0x4);
	cr_assert_eq(fixed(true, 0x31), 0, "no cluster 3");
	cr_assert_eq(fixed(true, 0x10), 0, "no member");
	cr_assert_eq(fixed(true, 0xff), 0xf, "broadcast");
	mmio(3, APIC_DFR, 0x5fffffff);
	cr_assert_eq(fixed(true, 0x22), 0, "an undefined model matches nothing");
}

Test(apic_bus, x2apic_physical_cluster_broadcast)
{
	unsigned i;

	fake_reset();
	for (i = 0; i < FAKE_CPUS; i++) {
		fake_lapic(&apic[i], i, 0x10 * i + i);	/* 0x00, 0x11, 0x22, 0x33 */
		fake_x2apic(&apic[i]);
		fake_sw_enable(&apic[i]);
	}
	cr_assert_eq(fixed(false, 0x22), 1u << 2);
	cr_assert_eq(fixed(false, 0xff), 0, "0xff is an ID in x2APIC mode");
	cr_assert_eq(fixed(false, 0xffffffff), 0xf, "broadcast");
	/* LDRs: 0x00000001, 0x00010002, 0x00020004, 0x00030008 */
	cr_assert_eq(fixed(true, 0x00010002), 1u << 1);
	cr_assert_eq(fixed(true, 0x0001ffff), 1u << 1, "cluster 1, any member");
	cr_assert_eq(fixed(true, 0x00020002), 0, "cluster 2 has only bit 2");
	cr_assert_eq(fixed(true, 0x00000001), 1u << 0);
	cr_assert_eq(fixed(true, 0xffffffff), 0xf, "logical broadcast");
}

Test(apic_bus, shorthands)
{
	cr_assert_eq(route(2, APIC_ICR_DM_FIXED, false, APIC_ICR_DEST_SELF, 0), 1u << 2);
	cr_assert_eq(route(2, APIC_ICR_DM_FIXED, false, APIC_ICR_DEST_ALL, 0), 0xf);
	cr_assert_eq(route(2, APIC_ICR_DM_INIT, false, APIC_ICR_DEST_OTHERS, 0), 0xb);
	cr_assert_eq(route(-1, APIC_ICR_DM_FIXED, false, APIC_ICR_DEST_SELF, 0), 0,
		     "no sender, no self");
	fake_x2apic(&apic[1]);
	cr_assert_eq(route(1, APIC_ICR_DM_NMI, true, APIC_ICR_DEST_OTHERS, 1), 0xd,
		     "the destination field is ignored");
	cr_assert_eq(route(1, APIC_ICR_DM_FIXED, false, APIC_ICR_DEST_SELF, 0), 0x2);
}

Test(apic_bus, many_cpus)
{
	static struct lapic big[70];
	struct lapic *p[70];
	struct lapic_ipi ipi = { .vector = 0x40, .dest = 0xff };
	uint64_t mask[2];
	unsigned i;

	for (i = 0; i < 70; i++) {
		fake_lapic(&big[i], 0, i);
		p[i] = &big[i];
	}
	apic_route(p, 70, 0, &ipi, mask);
	cr_assert_eq(mask[0], ~0ull);
	cr_assert_eq(mask[1], 0x3f, "bits 64-69 in the second word");
	ipi.dest = 66;
	apic_route(p, 70, 0, &ipi, mask);
	cr_assert_eq(mask[0], 0);
	cr_assert_eq(mask[1], 1u << 2);
}

Test(apic_bus, lowest_priority_lowest_apr)
{
	mmio(0, APIC_TPR, 0x40);
	mmio(1, APIC_TPR, 0x20);
	mmio(2, APIC_TPR, 0x30);
	mmio(3, APIC_TPR, 0x10);
	cr_assert_eq(lowest(false, 0xff), 1u << 3, "TPR 0x10 is lowest");
	cr_assert_eq(lowest(false, 0xff), 1u << 3, "a strict winner wins again");
	cr_assert_eq(lowest(false, 2), 1u << 2, "a single target");
	mmio(1, APIC_TPR, 0);
	mmio(3, APIC_TPR, 0);
	lapic_accept(&apic[3], 0x80, false);	/* IRRV class 8 raises its APR */
	cr_assert_eq(lowest(false, 0xff), 1u << 1);
	mmio(1, APIC_SVR, 0xff);
	cr_assert_eq(lowest(false, 0xff), 1u << 2, "software-disabled: not a candidate");
	cr_assert_eq(lowest(false, 1), 0, "no candidate: no one");
}

Test(apic_bus, lowest_priority_ties_round_robin)
{
	cr_assert_eq(lowest(false, 0xff), 1u << 0, "never won: lowest index");
	cr_assert_eq(lowest(false, 0xff), 1u << 1);
	cr_assert_eq(lowest(false, 0xff), 1u << 2);
	cr_assert_eq(lowest(false, 0xff), 1u << 3);
	cr_assert_eq(lowest(false, 0xff), 1u << 0, "least recently won");
	cr_assert_eq(lowest(false, 3), 1u << 3);
	cr_assert_eq(lowest(false, 0xff), 1u << 1, "CPU 3 just won");
	cr_assert_eq(lowest(false, 0xff), 1u << 2);
	cr_assert_eq(lowest(false, 0xff), 1u << 0);
}

Test(apic_bus, xapic_icr_builds_the_message)
{
	uint64_t mask;
	uint32_t v;

	mmio(0, APIC_ICR_HI, 2u << 24);
	cr_assert_eq(fake.nipi, 0, "ICR_HI does not send");
	mmio(0, APIC_ICR_LO, APIC_ICR_LOGICAL | APIC_ICR_DM_LOWEST | 0x61);
	cr_assert_eq(fake.nipi, 1);
	cr_assert_eq(fake.ipi_src[0], 0);
	cr_assert_eq(fake.ipi[0].vector, 0x61);
	cr_assert_eq(fake.ipi[0].delivery, APIC_ICR_DM_LOWEST);
	cr_assert(fake.ipi[0].logical);
	cr_assert_eq(fake.ipi[0].dest, 2);
	cr_assert_eq(fake.ipi[0].shorthand, APIC_ICR_DEST_FIELD);
	cr_assert_eq(lapic_mmio_read(&apic[0], APIC_ICR_LO, 4, &v), 0);
	cr_assert_eq(v & APIC_ICR_BUSY, 0, "delivery status: idle");

	mmio(0, APIC_ICR_HI, 1u << 24);
	mmio(0, APIC_ICR_LO, APIC_ICR_DM_FIXED | 0x50);
	fake_deliver(cpus, FAKE_CPUS, 0, &fake.ipi[1], &mask);
	cr_assert_eq(mask, 1u << 1);
	cr_assert_eq(lapic_pending_vector(&apic[1]), 0x50, "delivered");
}

Test(apic_bus, icr_special_cases)
{
	uint32_t v;

	mmio(0, APIC_ICR_LO, APIC_ICR_LEVEL | APIC_ICR_ASSERT | APIC_ICR_DM_INIT);
	cr_assert_eq(fake.nipi, 1, "INIT level assert");
	cr_assert_eq(fake.ipi[0].delivery, APIC_ICR_DM_INIT);
	mmio(0, APIC_ICR_LO, APIC_ICR_LEVEL | APIC_ICR_DM_INIT);
	cr_assert_eq(fake.nipi, 1, "INIT level de-assert: a no-op");
	mmio(0, APIC_ICR_LO, APIC_ICR_DM_STARTUP | 0x09);
	cr_assert_eq(fake.nipi, 2);
	cr_assert_eq(fake.ipi[1].vector, 0x09, "a start-up vector may be below 16");
	mmio(0, APIC_ICR_LO, APIC_ICR_LEVEL | APIC_ICR_ASSERT | 0x70);
	cr_assert_eq(fake.nipi, 3);
	cr_assert_not(fake.ipi[2].level, "a level IPI goes as edge");
	mmio(0, APIC_ICR_LO, APIC_ICR_DM_LOWEST | 0x0e);
	mmio(0, APIC_ICR_LO, (3u << 8) | 0x70);	/* remote read: reserved */
	cr_assert_eq(fake.nipi, 3);
	mmio(0, APIC_ESR, 0);
	cr_assert_eq(lapic_mmio_read(&apic[0], APIC_ESR, 4, &v), 0);
	cr_assert_eq(v, APIC_ESR_SEND_ILLEGAL);
	mmio(0, APIC_ICR_LO, APIC_ICR_DM_NMI | APIC_ICR_DEST_SELF);
	cr_assert_eq(fake.nipi, 4, "NMI ignores the vector");
	mmio(0, APIC_ICR_LO, APIC_ICR_DM_SMI | APIC_ICR_DEST_OTHERS);
	cr_assert_eq(fake.ipi[4].delivery, APIC_ICR_DM_SMI, "SMI: the machine drops it");
}
