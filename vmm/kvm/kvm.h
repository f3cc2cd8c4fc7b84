/* SPDX-License-Identifier: MIT */
/* Shared between kvm.c and kvm_irqchip.c: nothing else calls KVM. */
#ifndef VMM_KVM_INT_H
#define VMM_KVM_INT_H

struct vm;

int kvm_vm_ioctl(struct vm *vm, unsigned long req, void *arg);
int kvm_check(struct vm *vm, long cap);	/* 0 if absent */
void kvm_pc_routing(struct vm *vm);	/* --irqchip=kernel */
void kvm_enable_split(struct vm *vm);	/* --irqchip=split, before vCPUs */

#endif
