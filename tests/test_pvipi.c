// SPDX-License-Identifier: MIT
/*
 * The PV IPI doorbell: its request's decoding and bounds (dev/pvipi.c),
 * its port (dev/pvport.c) and its routing (apic_route_set, apic_bus.c).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "apic/apic_bus.h"
#include "dev/pvipi.h"
#include "dev/pvport.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "lapic_fake.h"

#define RAM	(1u << 20)
#define GPA	0x3000u

static struct guest_mem mem;

static void setup(void)
{
	cr_assert_eq(mem_init(&mem, RAM), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

TestSuite(pvipi, .init = setup, .fini = teardown);

static struct irqlab_pv_ipi *at(uint64_t gpa)
{
	struct irqlab_pv_ipi *r = mem_ptr(&mem, gpa, sizeof(*r));

	cr_assert_not_null(r);
	memset(r, 0, sizeof(*r));
	return r;
}

Test(pvipi, fixed_ipi_to_a_set)
{
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;

	r->icr = APIC_ICR_DM_FIXED | 0xd4;
	r->dest[0] = 0x0e;			/* APIC IDs 1, 2, 3 */
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_OK);
	cr_assert_eq(q.vector, 0xd4);
	cr_assert_eq(q.delivery, APIC_ICR_DM_FIXED);
	cr_assert_eq(q.dest[0], 0x0e);
	cr_assert_eq(q.nr_dest, 3);
}

Test(pvipi, nmi_has_no_vector)
{
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;

	r->icr = APIC_ICR_DM_NMI;		/* vector 0: ignored for NMI */
	r->dest[0] = 1;
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_OK);
	cr_assert_eq(q.delivery, APIC_ICR_DM_NMI);
}

Test(pvipi, bad_addresses)
{
	struct pvipi_req q;

	cr_assert_eq(pvipi_decode(&mem, RAM, 4, &q), PVIPI_BAD_ADDR,
		     "past the end of RAM");
	cr_assert_eq(pvipi_decode(&mem, RAM - 8, 4, &q), PVIPI_BAD_ADDR,
		     "straddles the end of RAM");
	cr_assert_eq(pvipi_decode(&mem, 0xfee00000u, 4, &q), PVIPI_BAD_ADDR,
		     "in the MMIO hole");
	cr_assert_eq(pvipi_decode(&mem, ~0ull - 4, 4, &q), PVIPI_BAD_ADDR,
		     "wraps around");
	cr_assert_eq(q.nr_dest, 0, "nothing decoded");
}

Test(pvipi, bad_formats)
{
	static const uint32_t dms[] = { APIC_ICR_DM_LOWEST, APIC_ICR_DM_SMI,
		APIC_ICR_DM_INIT, APIC_ICR_DM_STARTUP, 3u << 8, 7u << 8 };
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;
	unsigned i;

	r->dest[0] = 2;
	for (i = 0; i < sizeof(dms) / sizeof(dms[0]); i++) {
		r->icr = dms[i] | 0x40;
		cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_BAD_FORMAT,
			     "delivery mode %#x", dms[i]);
	}
	r->icr = APIC_ICR_DM_FIXED | APIC_ICR_LOGICAL | 0x40;
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_BAD_FORMAT,
		     "bits above 10 are reserved");
	r->icr = 0x40;
	r->reserved = 1;
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_BAD_FORMAT);
}

Test(pvipi, empty_set)
{
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;

	r->icr = 0x40;
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_EMPTY);
	r->icr = 0x05;		/* an empty set outranks the illegal vector */
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_EMPTY);
}

Test(pvipi, ids_out_of_range)
{
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;

	r->icr = 0x40;
	r->dest[0] = 1ull << 4;			/* APIC ID 4 of a 4-CPU machine */
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_OUT_OF_RANGE);
	r->dest[0] = 0x3;
	r->dest[3] = 1ull << 63;		/* APIC ID 255 */
	cr_assert_eq(pvipi_decode(&mem, GPA, 64, &q), PVIPI_OUT_OF_RANGE);
	cr_assert_eq(pvipi_decode(&mem, GPA, 256, &q), PVIPI_OK,
		     "every ID exists on a 256-CPU machine");
	cr_assert_eq(pvipi_decode(&mem, GPA, 1000, &q), PVIPI_OK);
	r->dest[3] = 0;
	r->dest[1] = 1;				/* ID 64: the 65th CPU */
	cr_assert_eq(pvipi_decode(&mem, GPA, 64, &q), PVIPI_OUT_OF_RANGE);
	cr_assert_eq(pvipi_decode(&mem, GPA, 65, &q), PVIPI_OK);
}

Test(pvipi, illegal_vector)
{
	struct irqlab_pv_ipi *r = at(GPA);
	struct pvipi_req q;
	unsigned v;

	r->dest[0] = 2;
	for (v = 0; v < 16; v++) {
		r->icr = APIC_ICR_DM_FIXED | v;
		cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q),
			     PVIPI_ILLEGAL_VECTOR, "vector %u", v);
	}
	r->icr = 16;
	cr_assert_eq(pvipi_decode(&mem, GPA, 4, &q), PVIPI_OK);
}

Test(pvipi, status_names)
{
	cr_assert_str_eq(pvipi_status_name(PVIPI_OK), "ok");
	cr_assert_str_eq(pvipi_status_name(PVIPI_ILLEGAL_VECTOR),
			 "illegal-vector");
	cr_assert_str_eq(pvipi_status_name(PVIPI_NR_STATUS), "?");
}

/* ---- the port ---- */

static int rang_cpu = -1;
static uint64_t rang_gpa;

static void ring(void *ctx, int cpu, uint64_t gpa)
{
	(void)ctx;
	rang_cpu = cpu;
	rang_gpa = gpa;
}

Test(pvipi, port_without_doorbell_counts_a_bad_access)
{
	struct pvport pv = { .mem = &mem };

	pvport_write(&pv, IRQLAB_PORT_PV_IPI - IRQLAB_PORT_BASE, 4, GPA, 1);
	cr_assert_eq(pv.bad_accesses, 1);
}

Test(pvipi, port_rings_the_doorbell)
{
	struct pvport pv = { .mem = &mem, .pv_ipi = ring };

	pvport_write(&pv, IRQLAB_PORT_PV_IPI - IRQLAB_PORT_BASE, 4, GPA, 2);
	cr_assert_eq(rang_cpu, 2);
	cr_assert_eq(rang_gpa, GPA);
	rang_cpu = -1;
	pvport_write(&pv, IRQLAB_PORT_PV_IPI - IRQLAB_PORT_BASE, 2, GPA, 2);
	cr_assert_eq(rang_cpu, -1, "a 16-bit write is not a doorbell");
	cr_assert_eq(pv.bad_accesses, 1);
	cr_assert_eq(pvport_read(&pv, IRQLAB_PORT_PV_IPI - IRQLAB_PORT_BASE,
				 4, 0), ~0ull, "write-only");
}

/* ---- routing ---- */

Test(pvipi, route_set_by_physical_id)
{
	struct lapic apic[FAKE_CPUS];
	struct lapic *const cpus[FAKE_CPUS] = { &apic[0], &apic[1], &apic[2],
						&apic[3] };
	uint64_t ids[4] = { 0 }, mask;
	unsigned i;

	fake_reset();
	for (i = 0; i < FAKE_CPUS; i++) {
		fake_lapic(&apic[i], i, 3 - i);		/* IDs 3, 2, 1, 0 */
		fake_sw_enable(&apic[i]);
	}
	ids[0] = 1u << 0 | 1u << 3;			/* APIC IDs 0 and 3 */
	apic_route_set(cpus, FAKE_CPUS, ids, 256, &mask);
	cr_assert_eq(mask, 1u << 3 | 1u << 0, "CPUs 3 and 0");
	ids[0] = 0xff;
	apic_route_set(cpus, FAKE_CPUS, ids, 2, &mask);
	cr_assert_eq(mask, 1u << 3 | 1u << 2, "only IDs below nr_ids");
	fake_x2apic(&apic[1]);
	ids[0] = 1u << 2;
	apic_route_set(cpus, FAKE_CPUS, ids, 256, &mask);
	cr_assert_eq(mask, 1u << 1, "an x2APIC's ID, in its own mode");
}
