/* SPDX-License-Identifier: MIT */
/*
 * The irqlab guest side of the port protocol (include/hw/irqlab.h,
 * docs/PROTOCOL.md).  Every call but pv_present() is a no-op, or fails,
 * when the kernel does not run under irqlab-vmm.
 */
#ifndef KERNEL_PV_H
#define KERNEL_PV_H

#include <stdint.h>

#include "hw/irqlab.h"

/* 1 if the signature port reads IRQLAB_SIGNATURE (checked once). */
int pv_present(void);
/* The protocol version the VMM speaks, 0 if absent. */
uint32_t pv_version(void);
/* Count the following exits in @phase. */
void pv_phase(enum irqlab_phase phase);
/* Print the NUL-terminated @s (at most IRQLAB_CONSOLE_MAX bytes): one exit. */
void pv_console_write(const char *s);
/* Fill @snap with the exit counters; 0, or -1 if absent. */
int pv_snapshot(struct irqlab_snapshot *snap);
/* Stop the VM; irqlab-vmm exits with @status & 0xff.  Returns if absent. */
void pv_poweroff(uint32_t status);

#endif
