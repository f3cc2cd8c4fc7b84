// SPDX-License-Identifier: MIT
/*
 * One ACPI parse for the whole boot: calibration wants the FADT's PM
 * timer, SMP the MADT's CPUs.  kernel/boot/acpi.c is the pure parser; this
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
static const char *rsdp_from, *rsdp_src = "none";

/*
 * The loader's RSDP (multiboot2 tags 14 and 15), else the BIOS areas'
 * (ACPI 6.5 5.2.5.1), else one in the memory map's ACPI regions (a UEFI
 * firmware's, under multiboot 1: acpi_find_rsdp_mmap()).
 */
static const void *find_rsdp(const struct mbinfo *mbi)
{
	const void *rsdp;

	if (mbi->rsdp) {
		if (mbi->proto == MBINFO_PROTO_PVH) {
			rsdp_from = "the PVH start info";
			rsdp_src = "pvh";
		} else {
			rsdp_from = "the multiboot2 ACPI tag";
			rsdp_src = "mb2";
		}
		return mbi->rsdp;
	}
	rsdp = acpi_find_rsdp(phys_identity, NULL);
	if (rsdp) {
		rsdp_from = "the BIOS area";
		rsdp_src = "bios";
		return rsdp;
	}
	rsdp = acpi_find_rsdp_mmap(phys_identity, NULL, mbi->mmap,
				   mbi->nr_mmap);
	if (rsdp) {
		rsdp_from = "an ACPI region of the memory map";
		rsdp_src = "mmap";
	}
	return rsdp;
}

const struct acpi_info *acpi_boot(const struct mbinfo *mbi, int *err,
				  const char **from)
{
	const void *rsdp;

	if (!parsed) {
		parsed = 1;
		rsdp = find_rsdp(mbi);
		parse_err = rsdp ? acpi_parse(rsdp, phys_identity, NULL, &acpi) : 0;
	}
	*err = parse_err;
	*from = rsdp_from;
	return rsdp_from && !parse_err ? &acpi : NULL;
}

const char *acpi_boot_source(void)
{
	return rsdp_src;
}
