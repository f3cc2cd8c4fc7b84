/* SPDX-License-Identifier: MIT */
/* Shared between irq.c and irq_sleep.c, the two halves of --irqchip=user. */
#ifndef VMM_IRQ_INT_H
#define VMM_IRQ_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct vcpu;

void futex_wait(uint32_t *word, uint32_t val, const struct timespec *rel);
bool timer_due(struct vcpu *v);		/* its APIC timer's deadline passed */
void irq_collect(struct vcpu *v);	/* fold the PIR, take due timers */
bool requests_pending(struct vcpu *v);	/* PIR, NMI, INIT or rendezvous */
/* a request was stored for @t: kick or wake it (@self: the sender, or -1) */
void irq_notify(struct vcpu *t, int self);

/* irq_extint.c: the PIC's INTR and IOAPIC ExtINT messages */
void irq_post_extint(struct vcpu *t);
void irq_extint_seen(struct vcpu *v);	/* clear extint_kick, then look */
bool irq_extint_waiting(struct vcpu *v);
int irq_extint_ack(struct vcpu *v);	/* the INTA: the vector to inject */

#endif
