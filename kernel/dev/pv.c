// SPDX-License-Identifier: MIT
/*
 * The irqlab protocol client.  Each call is one 32-bit port access; the
 * ones taking a buffer pass its guest-physical address, which is its
 * address in the kernel (identity map, and the kernel lies below 4 GiB).
 */
#include <stdint.h>

#include "hw/irqlab.h"
#include "pv.h"
#include "arch/x86.h"

static int present = -1;		/* -1: not probed yet */

int pv_present(void)
{
	/* an unclaimed ISA port reads all-ones, never the signature */
	if (present < 0)
		present = inl(IRQLAB_PORT_SIG) == IRQLAB_SIGNATURE;
	return present;
}

uint32_t pv_version(void)
{
	return pv_present() ? inl(IRQLAB_PORT_VERSION) : 0;
}

void pv_phase(enum irqlab_phase phase)
{
	if (pv_present())
		outl(IRQLAB_PORT_PHASE, phase);
}

void pv_console_write(const char *s)
{
	if (pv_present())
		outl(IRQLAB_PORT_CONSOLE, (uint32_t)(uintptr_t)s);
}

int pv_snapshot(struct irqlab_snapshot *snap)
{
	if (!pv_present())
		return -1;
	snap->size = sizeof(*snap);
	snap->count = 0;
	outl(IRQLAB_PORT_SNAPSHOT, (uint32_t)(uintptr_t)snap);
	return 0;
}

void pv_poweroff(uint32_t status)
{
	if (pv_present())
		outl(IRQLAB_PORT_POWEROFF, status);
}
