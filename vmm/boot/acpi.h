/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tables of irqlab-vmm: a pure builder from a machine description
 * to bytes in a buffer the caller maps at a guest-physical address.  No KVM,
 * no files; the unit tests run it on a fake guest RAM.  docs/ACPI.md says
 * what the tables contain.
 */
#ifndef VMM_ACPI_H
#define VMM_ACPI_H

#include <stddef.h>
#include <stdint.h>

#include "hw/acpi.h"

/* Where the VMM puts the tables: the BIOS area the loader leaves alone. */
#define ACPI_AREA_GPA		ACPI_BIOS_START		/* 0xe0000 */
#define ACPI_AREA_LEN		(ACPI_BIOS_END - ACPI_BIOS_START)

#define ACPI_BUILD_MAX_CPUS	1024	/* x2APIC entries from ID 255 on */

struct acpi_config {
	unsigned ncpus;			/* vCPU i has APIC ID i and UID i */
	uint32_t lapic_addr;		/* MADT local APIC address */
	uint32_t ioapic_addr;
	uint8_t ioapic_id;		/* its GSI base is 0 */
	uint8_t sci_irq;		/* FADT SCI_INT */
	uint16_t pm1a_evt_port;		/* 4-byte PM1a event block */
	uint16_t pm1a_cnt_port;		/* 2-byte PM1a control block */
	uint16_t pm_tmr_port;		/* 4-byte PM timer; 0 = none */
	uint16_t iapc_boot_arch;	/* FADT ACPI_IAPC_* flags */
	uint64_t hpet_addr;		/* an HPET table for it; 0 = none */
	uint32_t hpet_block_id;		/* its GCAP_ID's low 32 bits */
};

struct acpi_result {
	uint64_t rsdp_gpa;
	/* copies for the multiboot2 ACPI tags (Multiboot2 3.6.12, 3.6.13) */
	uint8_t rsdp_v1[ACPI_RSDP_V1_LEN];	/* revision 0, RSDT only */
	uint8_t rsdp_v2[ACPI_RSDP_V2_LEN];	/* revision 2, RSDT and XSDT */
	uint64_t rsdt_gpa, xsdt_gpa, fadt_gpa, facs_gpa, dsdt_gpa, madt_gpa;
	uint64_t hpet_gpa;		/* 0 without cfg->hpet_addr */
	size_t used;			/* bytes written from the area's start */
};

/*
 * The irqlab machine with @ncpus vCPUs: local APIC at 0xfee00000, IOAPIC
 * ID 0 at 0xfec00000, SCI on IRQ 9, the PM blocks at 0x600 (PM1a event),
 * 0x604 (PM1a control) and 0x608 (PM timer), ISA devices, no VGA, no
 * 8042, no CMOS RTC.
 */
void acpi_default_config(struct acpi_config *cfg, unsigned ncpus);

/*
 * Write RSDP, RSDT, XSDT, FACS, DSDT, FADT and MADT into @area, which the
 * guest sees at @area_gpa.  The RSDP goes first, at @area_gpa, which must
 * be 16-byte aligned inside 0xe0000-0xfffff (where ACPI 6.5 5.2.5.1 scans);
 * the area must end below 4 GiB (the RSDT holds 32-bit addresses).
 * Returns 0, -EINVAL for a bad @cfg or placement, or -ENOSPC if @area_len
 * is too small; on error nothing is written.
 */
int acpi_build(uint8_t *area, uint64_t area_gpa, size_t area_len,
	       const struct acpi_config *cfg, struct acpi_result *out);

#endif
