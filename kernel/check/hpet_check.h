/* SPDX-License-Identifier: MIT */
/* check=hpet: the HPET through its ACPI table (hpet_check.c,
 * docs/RECORDS.md @hpet_check). */
#ifndef KERNEL_HPET_CHECK_H
#define KERNEL_HPET_CHECK_H

/* Prints @hpet_check; check_failed() if a step failed, SKIPPED without
 * an HPET table.  Interrupts off after, the HPET halted. */
void hpet_check(void);

#endif
