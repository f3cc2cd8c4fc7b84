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

#endif
