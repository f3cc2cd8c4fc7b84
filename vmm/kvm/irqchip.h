/* SPDX-License-Identifier: MIT */
/*
 * The interrupt side of the KVM glue (irqchip.c): injection for
 * --irqchip=user and split, KVM's own controllers for --irqchip=kernel,
 * KVM_SIGNAL_MSI and the IOAPIC's routes for --irqchip=split.
 */
#ifndef VMM_KVM_IRQCHIP_H
#define VMM_KVM_IRQCHIP_H

#include <stdbool.h>

#include "vm.h"		/* enum vcpu_state */

void kvm_inject_irq(struct vcpu *v, int vector);
void kvm_inject_nmi(struct vcpu *v);
bool kvm_nmi_ahead(struct vcpu *v);	/* irq_nmi_ahead() of KVM's state */
void kvm_init_events(struct vcpu *v);	/* INIT: drop KVM's NMI, interrupt */
void kvm_inject_extint(struct vcpu *v, int vector);	/* split */
/* each vCPU's LAPIC state on stderr, the vCPU threads stopped (--timeout);
 * @was: each vCPU's state before they were stopped */
void kvm_dump_lapics(struct vm *vm, const enum vcpu_state *was);
void kvm_testdev_init(struct vm *vm);	/* --irqchip=kernel */
/* --irqchip=kernel: ISA line @line of KVM's PIC and IOAPIC (GSI @line) */
void kvm_isa_line(struct vm *vm, unsigned line, int level);
/* --hpet=on's legacy replacement: KVM's 8254 off IRQ0 (on) or back */
void kvm_pit_hpet_legacy(struct vm *vm, bool on);

/* for kvm.c, while it creates the VM */
void kvm_pc_routing(struct vm *vm);	/* --irqchip=kernel */
void kvm_enable_split(struct vm *vm);	/* --irqchip=split, before vCPUs */

#endif
