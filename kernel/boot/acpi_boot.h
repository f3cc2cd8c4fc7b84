/* SPDX-License-Identifier: MIT */
/* The machine's ACPI tables, found and parsed once at boot (acpi_boot.c). */
#ifndef KERNEL_ACPI_BOOT_H
#define KERNEL_ACPI_BOOT_H

#include "acpi.h"

struct mbinfo;

/*
 * The tables from the multiboot2 ACPI tag's RSDP, else from the BIOS-area
 * scan, else from a scan of the memory map's ACPI regions; parsed on the
 * first call, the same answer after.  NULL when there is no usable ACPI:
 * then *@err is the acpi_parse() error (0: no RSDP).  *@from says in words
 * where the RSDP came from (NULL: nowhere).
 */
const struct acpi_info *acpi_boot(const struct mbinfo *mbi, int *err,
				  const char **from);
/* The same, as the @smp record's rsdp=: mb2, bios, mmap or none. */
const char *acpi_boot_source(void);

#endif
