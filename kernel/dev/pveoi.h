/* SPDX-License-Identifier: MIT */
/*
 * Paravirtual EOI (docs/LAPIC.md, "PV EOI"): irqlab's own flag word
 * (IRQLAB_PORT_PV_EOI, under --irqchip=user) or KVM's
 * (MSR_KVM_PV_EOI_EN, with KVM's LAPIC), one 4-byte word per CPU.
 */
#ifndef KERNEL_PVEOI_H
#define KERNEL_PVEOI_H

#include <stdint.h>

enum pveoi_kind {
	PVEOI_NONE,
	PVEOI_IRQLAB,		/* CPUID 0x40000001 EAX bit 0 */
	PVEOI_KVM,		/* KVM_FEATURE_PV_EOI in KVM's leaves */
};

/* This CPU: register its word if the hypervisor offers PV EOI and the
 * command line does not say pveoi=off.  The BSP decides, and prints
 * @pveoi (docs/RECORDS.md); call after the LAPIC is enabled. */
void pveoi_cpu_init(void);
enum pveoi_kind pveoi_kind(void);
/* @pveoi_stats: the EOIs each way, summed over the CPUs (docs/RECORDS.md) */
void pveoi_print_stats(void);

/*
 * The EOI path: 1 if the hypervisor had set this CPU's flag and the
 * locked test-and-clear took it (then the EOI is done, no register
 * write), else 0.
 */
static inline int pveoi_take(volatile uint32_t *word)
{
	uint8_t was;

	asm volatile("lock btrl $0, %0; setc %1"
		     : "+m"(*word), "=q"(was) : : "memory", "cc");
	return was;
}

#endif
