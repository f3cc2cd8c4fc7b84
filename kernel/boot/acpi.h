/* SPDX-License-Identifier: MIT */
/*
 * A pure ACPI table parser: finds the RSDP and reads the MADT and FADT.
 * Like mbinfo.c it builds on the host too: it uses no kernel code or
 * globals and reaches physical memory only through the caller's @phys.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stddef.h>
#include <stdint.h>

#include "hw/acpi.h"

#define ACPI_MAX_CPUS		64	/* more processors are dropped */
#define ACPI_MAX_ISO		16	/* more overrides are dropped */
#define ACPI_MAX_TABLES		128	/* root entries; more is an error */
#define ACPI_MAX_TABLE_LEN	(4u << 20)	/* a longer table is an error */

/* acpi_parse() errors; acpi_strerror() says more. */
#define ACPI_ENORSDP		(-1)	/* no RSDP, or no "RSD PTR " signature */
#define ACPI_ERSDP		(-2)	/* RSDP checksum or length wrong */
#define ACPI_ENOTABLE		(-3)	/* a table address is 0 or not in memory */
#define ACPI_ELENGTH		(-4)	/* a table's Length too small, too big,
					   past memory, or not whole entries */
#define ACPI_ECHECKSUM		(-5)	/* a table's bytes do not sum to 0 */
#define ACPI_ESIG		(-6)	/* RSDT/XSDT/DSDT/FACS signature wrong */
#define ACPI_ENOMADT		(-7)	/* no MADT in the root table */
#define ACPI_EMADT		(-8)	/* an MADT entry too short or past the end */
#define ACPI_ETOOMANY		(-9)	/* more than ACPI_MAX_TABLES tables */

struct acpi_cpu {
	uint32_t apic_id;
	uint32_t uid;			/* ACPI processor UID */
	int x2apic;			/* 1 if from a Processor Local x2APIC entry */
};

struct acpi_iso {
	uint8_t bus_irq;		/* ISA IRQ */
	uint32_t gsi;
	uint16_t flags;			/* MPS INTI flags (ACPI_INTI_*) */
};

struct acpi_info {
	int rsdp_rev;			/* 0: ACPI 1.0, 2: 2.0 and later */
	uint64_t rsdp_addr;		/* where the RSDP parsed was (see below) */
	unsigned nr_cpus;
	struct acpi_cpu cpus[ACPI_MAX_CPUS];	/* enabled (or online-capable) only */
	uint64_t lapic_addr;		/* after any address override */
	int has_ioapic;
	uint8_t ioapic_id;		/* of the IOAPIC with the lowest GSI base */
	uint64_t ioapic_addr;
	uint32_t ioapic_gsi_base;
	unsigned nr_iso;
	struct acpi_iso iso[ACPI_MAX_ISO];
	int nmi_lint;			/* LINT pin of the local APIC NMI entry, -1 if none */
	uint16_t pm_tmr_port;		/* from the FADT, 0 if none */
	int pm_tmr_32bit;		/* FADT TMR_VAL_EXT: 32-bit, else 24-bit */
	uint32_t madt_flags;		/* ACPI_MADT_PCAT_COMPAT */
	uint64_t hpet_addr;		/* the HPET table's block, 0 if none */
	uint32_t hpet_block_id;		/* its GCAP_ID low half, as the table says */
};

/* @phys maps a physical range to a pointer, or NULL; never read outside it. */
typedef const void *(*acpi_phys_fn)(void *ctx, uint64_t addr, uint64_t len);

/*
 * ACPI 6.5 5.2.5.1: scan the first 1 KiB of the EBDA (segment at 0x40e)
 * and then 0xe0000-0xfffff, on 16-byte boundaries, for "RSD PTR " with a
 * valid checksum (and, for revision 2 and later, extended checksum).
 * Returns the RSDP, mapped for at least its 20 or 36 bytes, or NULL.
 */
const void *acpi_find_rsdp(acpi_phys_fn phys, void *ctx);

#define ACPI_MMAP_SCAN_MAX	(16u << 20)	/* bytes scanned per region */

struct mbinfo_mmap;

/*
 * Where a UEFI firmware keeps the RSDP (ACPI 6.5 5.2.5.2: the EFI
 * configuration table points at it, and multiboot 1 passes neither that
 * table nor the RSDP): in memory the map reports as ACPI reclaimable or
 * ACPI NVS (table 15.1; 15.3: UEFI's EfiACPIReclaimMemory and
 * EfiACPIMemoryNVS, where its firmware puts the ACPI tables).  Scans
 * each such region of the @n entries of @map, at every byte (UEFI sets no
 * alignment) of at most its first ACPI_MMAP_SCAN_MAX bytes, for a valid
 * RSDP, as acpi_find_rsdp() checks one.  A firmware may keep an ACPI 1.0
 * RSDP beside the 2.0 one (for its ACPI 1.0 configuration table): returns
 * the first of revision 2 or later, else the first, else NULL.  A region
 * @phys cannot map whole (above 4 GiB in the kernel) is skipped.
 */
const void *acpi_find_rsdp_mmap(acpi_phys_fn phys, void *ctx,
				const struct mbinfo_mmap *map, unsigned n);

/*
 * Parse the tables from @rsdp on (from acpi_find_rsdp() or a multiboot2
 * ACPI tag; 20 bytes, or 36 if its revision is 2 or more): the XSDT if
 * the revision is >= 2 and its address non-zero, else the RSDT; every
 * table they list, the DSDT and FACS are checked (signature where known,
 * Length, checksum) and the MADT and FADT read.  Returns 0 or a negative
 * ACPI_E* code; on error *@out is only partly filled.
 *
 * @rsdp_addr is the address of @rsdp itself: its physical address in the
 * identity-mapped kernel, the copy's if it came from a multiboot2 tag.
 */
int acpi_parse(const void *rsdp, acpi_phys_fn phys, void *ctx,
	       struct acpi_info *out);

/* A short human description of an ACPI_E* code. */
const char *acpi_strerror(int err);

#endif
