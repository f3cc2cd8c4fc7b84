/* SPDX-License-Identifier: MIT */
/*
 * Paravirtual multicast IPIs: one hypervisor exit for a destination set.
 * Under irqlab-vmm --irqchip=user, irqlab's doorbell (CPUID 0x40000001
 * EAX bit 1, IRQLAB_PORT_PV_IPI); under KVM's LAPIC, KVM's
 * KVM_HC_SEND_IPI hypercall (KVM_FEATURE_PV_SEND_IPI, bit 11 of the KVM
 * leaf's EAX).  pvipi=off on the command line uses neither (for A/B).
 */
#ifndef KERNEL_PV_IPI_H
#define KERNEL_PV_IPI_H

#include <stdint.h>

enum pv_ipi_kind {
	PV_IPI_NONE,	/* nothing offered */
	PV_IPI_OFF,	/* offered, pvipi=off */
	PV_IPI_IRQLAB,
	PV_IPI_KVM,
};

/* BSP, after smp_init(): find what the hypervisor offers; says it once */
void pv_ipi_init(void);
enum pv_ipi_kind pv_ipi_kind(void);
/* "none", "off", "irqlab" or "kvm": the @bench pv_ipi= value */
const char *pv_ipi_name(void);
/*
 * A fixed, edge IPI with @vector to the CPUs whose bit (cpus[] index) is
 * set in @mask: 0 when sent, -1 when no PV path is in use (the caller
 * sends an ICR write each).
 */
int pv_ipi_send(const uint64_t *mask, unsigned vector);

#endif
