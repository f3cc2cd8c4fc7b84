/* SPDX-License-Identifier: MIT */
/* check=ioapic: IOAPIC pin semantics through pc-testdev lines
 * (ioapic_check.c, docs/RECORDS.md @ioapic_check). */
#ifndef KERNEL_IOAPIC_CHECK_H
#define KERNEL_IOAPIC_CHECK_H

/* Prints @ioapic_check; panics if a step failed.  Interrupts off after. */
void ioapic_check(void);

#endif
