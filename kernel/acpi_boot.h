/* SPDX-License-Identifier: MIT */
/* The machine's ACPI tables, found and parsed once at boot (acpi_boot.c). */
#ifndef KERNEL_ACPI_BOOT_H
#define KERNEL_ACPI_BOOT_H

#include "acpi.h"

struct mbinfo;

/*
 * The tables from the multiboot2 ACPI tag's RSDP, else from the BIOS-area
 * scan; parsed on the first call, the same answer after.  NULL when there
 * is no usable ACPI: then *@err is the acpi_parse() error (0: no RSDP).
 * *@from says where the RSDP came from.
 */
const struct acpi_info *acpi_boot(const struct mbinfo *mbi, int *err,
				  const char **from);

#endif
