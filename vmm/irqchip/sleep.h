/* SPDX-License-Identifier: MIT */
/* --irqchip=user: a vCPU asleep in the VMM (sleep.c). */
#ifndef VMM_IRQCHIP_SLEEP_H
#define VMM_IRQCHIP_SLEEP_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* Sleep until woken.  halt: a guest HLT; false when the VM stops. */
bool irq_halt(struct vcpu *v);
/* wait-for-SIPI; false when the VM stops, else *vector is set */
bool irq_wait_sipi(struct vcpu *v, uint8_t *vector);

#endif
