// SPDX-License-Identifier: MIT
/*
 * One ACPI parse for the whole boot: calibration wants the FADT's PM
 * timer, SMP the MADT's CPUs.  kernel/acpi.c is the pure parser; this
 * binds it to the identity map of [0, 4 GiB) that entry.S builds.
 */
#include <stdint.h>

#include "acpi_boot.h"
#include "mbinfo.h"

#define IDENTITY_END	0x100000000ull	/* entry.S maps [0, 4 GiB) */

/* acpi_phys_fn for the identity map */
static const void *phys_identity(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	if (addr == 0 || addr >= IDENTITY_END || len > IDENTITY_END - addr)
		return NULL;
	return (const void *)(uintptr_t)addr;
}

static struct acpi_info acpi;
static int parsed, parse_err;
static const char *rsdp_from;

const struct acpi_info *acpi_boot(const struct mbinfo *mbi, int *err,
				  const char **from)
{
	const void *rsdp;

	if (!parsed) {
		parsed = 1;
		rsdp = mbi->rsdp;
		rsdp_from = "the multiboot2 ACPI tag";
		if (!rsdp) {
			rsdp = acpi_find_rsdp(phys_identity, NULL);
			rsdp_from = "the BIOS area";
		}
		parse_err = rsdp ? acpi_parse(rsdp, phys_identity, NULL, &acpi) : 0;
		if (!rsdp)
			rsdp_from = NULL;
	}
	*err = parse_err;
	*from = rsdp_from;
	return rsdp_from && !parse_err ? &acpi : NULL;
}
