/* SPDX-License-Identifier: MIT */
/*
 * ExtINT (extint.c): the 8259A pair's INTR to a CPU, and IOAPIC messages
 * with delivery mode ExtINT, for --irqchip=user and split.
 */
#ifndef VMM_IRQCHIP_EXTINT_H
#define VMM_IRQCHIP_EXTINT_H

#include <stdbool.h>

struct vm;
struct vcpu;

/* isa.c: the PIC's INTR output changed (pic_ops.intr, under isa_lock) */
void extint_pic_intr(struct vm *vm, int level);

/* --irqchip=user (user.c, sleep.c) */
void irq_post_extint(struct vcpu *t);	/* an IOAPIC ExtINT message */
void irq_extint_seen(struct vcpu *v);	/* clear extint_kick, then look */
bool irq_extint_waiting(struct vcpu *v);
int irq_extint_ack(struct vcpu *v);	/* the INTA: the vector to inject */

/* --irqchip=split, the vCPU before KVM_RUN: an ExtINT vector to inject
 * with KVM_INTERRUPT (the INTA is done), or -1; sets the window request */
int split_extint_before_run(struct vcpu *v);

#endif
