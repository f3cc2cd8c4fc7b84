// SPDX-License-Identifier: MIT
/*
 * --irqchip=user's wiring (vmm/irqchip/user.c) on a machine with no threads: NMI
 * messages sent through the real ICR path are counted, not merged (SDM
 * 6.7.1), an INIT drops them (SDM 11.4.7.3), and the rule that holds a
 * maskable interrupt back behind KVM's NMI (SDM 6.9).
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "hw/apic.h"
#include "irqchip/user.h"
#include "vm.h"

static struct vm vm;
static struct vmm_config cfg = { .irqchip = IRQCHIP_USER };
static struct vcpu vcpus[2];
static struct kvm_run runs[2];

static void setup(void)
{
	unsigned i;

	memset(&vm, 0, sizeof(vm));
	memset(vcpus, 0, sizeof(vcpus));
	memset(runs, 0, sizeof(runs));
	vm.cfg = &cfg;
	vm.nr_vcpus = 2;
	vm.vcpus = vcpus;
	vm.phys_bits = 48;
	for (i = 0; i < 2; i++)
		vcpus[i] = (struct vcpu){ .id = i, .run = &runs[i], .vm = &vm };
	irq_init(&vm);
}

TestSuite(irq, .init = setup);

/* an xAPIC ICR write by @from, as its MMIO exit does it */
static void icr(unsigned from, uint32_t dest, uint32_t lo)
{
	uint64_t hi = dest << 24, v = lo;

	cr_assert(irq_mmio(&vcpus[from], APIC_DEFAULT_BASE + APIC_ICR_HI, 4,
			   true, &hi));
	cr_assert(irq_mmio(&vcpus[from], APIC_DEFAULT_BASE + APIC_ICR_LO, 4,
			   true, &v));
}

#define NMI	(APIC_ICR_DM_NMI | APIC_ICR_ASSERT)

Test(irq, nmi_messages_are_counted_not_merged)
{
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 0);
	icr(0, 1, NMI);				/* a remote NMI */
	icr(1, 0, NMI | APIC_ICR_DEST_SELF);	/* and a self NMI, close by */
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 2, "two NMIs, not one");
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 0, "taken once");
	cr_assert_eq(irq_take_nmi(&vcpus[0]), 0, "none for the sender");
	icr(0, 1, NMI);
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 1);
}

Test(irq, ioapic_nmi_counts_too)
{
	struct lapic_ipi m = { .delivery = APIC_ICR_DM_NMI };

	irq_post(&vcpus[0], &m);
	irq_post(&vcpus[0], &m);
	cr_assert_eq(irq_take_nmi(&vcpus[0]), 2);
}

Test(irq, init_drops_pending_nmis)
{
	icr(0, 1, NMI);
	icr(0, 1, NMI);
	icr(0, 1, APIC_ICR_DM_INIT | APIC_ICR_ASSERT);
	cr_assert(irq_take_init(&vcpus[1]));
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 0, "SDM 11.4.7.3: gone with INIT");
	icr(0, 1, NMI);
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 1, "a later NMI still counts");
}

/* SDM 6.9: NMI before INTR; SDM 6.7.1: a blocked NMI waits for the IRET */
Test(irq, nmi_ahead_of_a_maskable_interrupt)
{
	struct kvm_vcpu_events ev;

	memset(&ev, 0, sizeof(ev));
	cr_assert_not(irq_nmi_ahead(&ev), "no NMI: inject");
	ev.nmi.pending = 1;
	cr_assert(irq_nmi_ahead(&ev), "pending and deliverable: wait");
	ev.nmi.masked = 1;
	cr_assert_not(irq_nmi_ahead(&ev), "blocked by an NMI handler: "
		      "the interrupt may go first, as on a CPU");
	ev.nmi.pending = 0;
	ev.nmi.injected = 1;
	cr_assert(irq_nmi_ahead(&ev), "being delivered: wait");
}

/* ---- the PV IPI doorbell (irq_pv_ipi) ---- */

#define DOORBELL	0x1000u

static struct irqlab_pv_ipi *doorbell(uint32_t icr, uint64_t dest)
{
	struct irqlab_pv_ipi *r;

	if (!vm.mem.host)
		cr_assert_eq(mem_init(&vm.mem, 1 << 20), 0);
	r = mem_ptr(&vm.mem, DOORBELL, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->icr = icr;
	r->dest[0] = dest;
	return r;
}

static uint32_t esr(unsigned cpu)
{
	uint64_t v = 0;

	/* SDM 11.5.3: a write latches the errors, then a read shows them */
	cr_assert(irq_mmio(&vcpus[cpu], APIC_DEFAULT_BASE + APIC_ESR, 4,
			   true, &v));
	cr_assert(irq_mmio(&vcpus[cpu], APIC_DEFAULT_BASE + APIC_ESR, 4,
			   false, &v));
	return v;
}

Test(irq, doorbell_posts_to_each_target)
{
	uint64_t svr = APIC_SVR_ENABLE | 0xff;

	/* SDM 11.4.7.2: a software-disabled APIC accepts no fixed IPI */
	cr_assert(irq_mmio(&vcpus[0], APIC_DEFAULT_BASE + APIC_SVR, 4, true,
			   &svr));
	doorbell(0x40, 0x3);			/* APIC IDs 0 and 1 */
	irq_pv_ipi(&vcpus[0], DOORBELL);
	cr_assert_eq(vm.pv_ipi_status[PVIPI_OK], 1);
	cr_assert(pir_pending(&vcpus[1].irq.pir), "posted to vCPU 1");
	cr_assert_not(pir_pending(&vcpus[0].irq.pir),
		      "the sender's own is accepted at once, not posted");
	cr_assert_eq(vcpus[0].irq.lapic.irr[0x40 / 32], 1u << (0x40 % 32));
	mem_free(&vm.mem);
}

Test(irq, doorbell_nmi_is_counted)
{
	doorbell(APIC_ICR_DM_NMI, 0x2);
	irq_pv_ipi(&vcpus[0], DOORBELL);
	irq_pv_ipi(&vcpus[0], DOORBELL);
	cr_assert_eq(irq_take_nmi(&vcpus[1]), 2);
	mem_free(&vm.mem);
}

Test(irq, doorbell_illegal_vector_sets_the_senders_esr)
{
	doorbell(0x0f, 0x2);
	irq_pv_ipi(&vcpus[0], DOORBELL);
	cr_assert_eq(vm.pv_ipi_status[PVIPI_ILLEGAL_VECTOR], 1);
	cr_assert_not(pir_pending(&vcpus[1].irq.pir), "nothing sent");
	cr_assert_eq(esr(0), APIC_ESR_SEND_ILLEGAL, "SDM 11.5.3: bit 5");
	cr_assert_eq(esr(1), 0, "the target's ESR is untouched");
	mem_free(&vm.mem);
}

Test(irq, doorbell_refusals_send_nothing)
{
	doorbell(0x40, 1u << 2);		/* APIC ID 2 of a 2-vCPU VM */
	irq_pv_ipi(&vcpus[0], DOORBELL);
	doorbell(0x40, 0);
	irq_pv_ipi(&vcpus[0], DOORBELL);
	irq_pv_ipi(&vcpus[0], 1 << 20);		/* past the end of RAM */
	cr_assert_eq(vm.pv_ipi_status[PVIPI_OUT_OF_RANGE], 1);
	cr_assert_eq(vm.pv_ipi_status[PVIPI_EMPTY], 1);
	cr_assert_eq(vm.pv_ipi_status[PVIPI_BAD_ADDR], 1);
	cr_assert_eq(vm.pv_ipi_status[PVIPI_OK], 0);
	cr_assert_not(pir_pending(&vcpus[1].irq.pir));
	cr_assert_eq(esr(0), 0);
	mem_free(&vm.mem);
}
