/* SPDX-License-Identifier: MIT */
/*
 * The KVM side of the machine (kvm.c): /dev/kvm, the VM, guest RAM, the
 * vCPUs and their registers.  vmm/kvm/ is the only place that calls
 * ioctl(); the rest of the VMM builds with it poisoned (Makefile).
 */
#ifndef VMM_KVM_H
#define VMM_KVM_H

#include <stdint.h>

struct vm;
struct vcpu;
struct boot_entry;

void kvm_init(struct vm *vm);
void kvm_setup_memory(struct vm *vm);
void kvm_create_vcpus(struct vm *vm);
/* vCPU 0's registers as the loader's entry state says */
void kvm_set_boot_state(struct vcpu *v, const struct boot_entry *e);
/* the vCPU's registers on stderr, after a failure @why */
void kvm_dump_vcpu(struct vcpu *v, const char *why);
void kvm_set_sipi_state(struct vcpu *v, uint8_t vector);
/* IA32_APIC_BASE as irqlab's LAPIC has it, into KVM (--irqchip=user) */
void kvm_sync_apic_base(struct vcpu *v);

/* for vmm/kvm/ only: a VM ioctl, and KVM_CHECK_EXTENSION (0 if absent) */
int kvm_vm_ioctl(struct vm *vm, unsigned long req, void *arg);
int kvm_check(struct vm *vm, long cap);

/* re-read @v's TSC offset into v->irq.tsc_offset (--timeline) */
void kvm_tsc_offset_now(struct vcpu *v);

#endif
