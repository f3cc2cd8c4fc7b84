// SPDX-License-Identifier: MIT
/*
 * The ACPI table builder (see acpi.h).  Section numbers refer to ACPI 6.5.
 *
 * Layout, from the area's start; each table is 16-byte aligned, the FACS
 * 64-byte aligned (5.2.10):
 *
 *	RSDP  RSDT  XSDT  FACS  DSDT  FADT  MADT
 *
 * First every offset is computed and checked against the area, then the
 * used bytes are zeroed and each table is written and checksummed.
 */
#include <errno.h>
#include <string.h>

#include "acpi.h"

#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~(uint64_t)((a) - 1))

/* 5.2.6: OEM Table ID of the FADT must match the RSDT's (and XSDT's). */
#define OEM_ID		"IRQLAB"	/* 6 bytes */
#define OEM_TABLE_ID	"IRQLABVM"	/* 8 bytes */
#define OEM_REVISION	1
#define CREATOR_ID	0x4c515249	/* "IRQL", little-endian */
#define CREATOR_REV	1

/*
 * The DSDT's AML body (ACPI 6.5 19.6.90 Name, 19.6.102 Package, 20.2):
 * Name (_S5, Package (4) { 5, 5, 0, 0 }).  \_S5 gives SLP_TYPa/b 5 for
 * the soft-off state (7.4.2); writing SLP_TYP 5 with SLP_EN to PM1a_CNT
 * powers the machine off (vmm/dev/acpipm.c).
 */
static const uint8_t dsdt_aml[] = {
	0x08, '_', 'S', '5', '_',	/* NameOp, NameSeg */
	0x12, 0x08, 0x04,		/* PackageOp, PkgLength 8, 4 elements */
	0x0a, ACPI_SLP_TYP_S5,		/* BytePrefix 5: SLP_TYPa */
	0x0a, ACPI_SLP_TYP_S5,		/* SLP_TYPb */
	0x00, 0x00,			/* ZeroOp x2: reserved */
};

/* What the MADT of @ncpus vCPUs holds, in bytes. */
static size_t madt_len(unsigned ncpus)
{
	unsigned xapic = ncpus < ACPI_X2APIC_MIN_ID ? ncpus : ACPI_X2APIC_MIN_ID;
	size_t len = sizeof(struct acpi_madt);

	len += xapic * sizeof(struct acpi_madt_lapic);
	len += (ncpus - xapic) * sizeof(struct acpi_madt_x2apic);
	len += sizeof(struct acpi_madt_ioapic);
	len += sizeof(struct acpi_madt_iso);
	len += sizeof(struct acpi_madt_lapic_nmi);
	if (ncpus > xapic)
		len += sizeof(struct acpi_madt_x2apic_nmi);
	return len;
}

/* 5.2.5.3, 5.2.6: the bytes of a table sum to 0 (mod 256). */
static uint8_t checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return (uint8_t)-sum;
}

static void sdt_header(void *table, const char *sig, uint32_t len,
		       uint8_t rev)
{
	struct acpi_sdt_header *h = table;

	memcpy(h->signature, sig, ACPI_SIG_LEN);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, OEM_ID, sizeof(h->oem_id));
	memcpy(h->oem_table_id, OEM_TABLE_ID, sizeof(h->oem_table_id));
	h->oem_revision = OEM_REVISION;
	h->creator_id = CREATOR_ID;
	h->creator_revision = CREATOR_REV;
}

/* Call when the whole table is written: the checksum field is still 0. */
static void sdt_finish(void *table)
{
	struct acpi_sdt_header *h = table;

	h->checksum = checksum(table, h->length);
}

/* 5.2.3.2: a block of @bytes I/O ports, read @access at a time. */
static struct acpi_gas io_gas(uint16_t port, unsigned bytes, uint8_t access)
{
	if (!port)
		return (struct acpi_gas){ 0 };
	return (struct acpi_gas){
		.space_id = ACPI_AS_IO, .bit_width = bytes * 8,
		.access_size = access, .address = port,
	};
}

/* 5.2.9: the fixed hardware (PM blocks, SCI) and the FACS and DSDT. */
static void build_fadt(struct acpi_fadt *f, const struct acpi_config *cfg,
		       uint64_t facs, uint64_t dsdt)
{
	sdt_header(f, ACPI_SIG_FADT, sizeof(*f), ACPI_FADT_REV);
	f->minor_version = ACPI_FADT_MINOR;
	/* only one of FIRMWARE_CTRL and X_FIRMWARE_CTRL may be non-zero */
	f->firmware_ctrl = facs;
	/* DSDT and X_DSDT agree; a 64-bit OSPM reads X_DSDT */
	f->dsdt = dsdt;
	f->x_dsdt = dsdt;
	f->sci_int = cfg->sci_irq;
	/* SMI_CMD 0: no SMM; the hardware is in ACPI mode from reset */
	f->smi_cmd = 0;

	f->pm1a_evt_blk = cfg->pm1a_evt_port;
	f->pm1_evt_len = cfg->pm1a_evt_port ? 4 : 0;
	f->x_pm1a_evt_blk = io_gas(cfg->pm1a_evt_port, 4, ACPI_ACCESS_WORD);
	f->pm1a_cnt_blk = cfg->pm1a_cnt_port;
	f->pm1_cnt_len = cfg->pm1a_cnt_port ? 2 : 0;
	f->x_pm1a_cnt_blk = io_gas(cfg->pm1a_cnt_port, 2, ACPI_ACCESS_WORD);
	/* 4.8.3.3: the PM timer is accessed as 32 bits; PM_TMR_LEN is 4 */
	f->pm_tmr_blk = cfg->pm_tmr_port;
	f->pm_tmr_len = cfg->pm_tmr_port ? ACPI_PM_TMR_LEN : 0;
	f->x_pm_tmr_blk = io_gas(cfg->pm_tmr_port, ACPI_PM_TMR_LEN,
				 ACPI_ACCESS_DWORD);

	/* 5.2.9: a latency above 100 (C2) or 1000 (C3) means "none" */
	f->p_lvl2_lat = 101;
	f->p_lvl3_lat = 1001;
	f->iapc_boot_arch = cfg->iapc_boot_arch;
	/*
	 * WBINVD works, HLT (C1) works on every CPU, no fixed power or
	 * sleep button, no RTC wake status, no display or keyboard.
	 * TMR_VAL_EXT stays 0: the PM timer counts 24 bits.
	 */
	f->flags = ACPI_FADT_WBINVD | ACPI_FADT_PROC_C1 | ACPI_FADT_PWR_BUTTON |
		   ACPI_FADT_SLP_BUTTON | ACPI_FADT_FIX_RTC |
		   ACPI_FADT_HEADLESS;
	memcpy(&f->hypervisor_vendor, OEM_TABLE_ID, sizeof(f->hypervisor_vendor));
	sdt_finish(f);
}

static void put(uint8_t *p, size_t *off, const void *entry, size_t len)
{
	memcpy(p + *off, entry, len);
	*off += len;
}

/* 5.2.12: one entry per vCPU, the IOAPIC, IRQ0 -> GSI 2, NMI on LINT1. */
static void build_madt(uint8_t *p, const struct acpi_config *cfg)
{
	struct acpi_madt *m = (struct acpi_madt *)p;
	struct acpi_madt_lapic lapic = {
		.h = { ACPI_MADT_LAPIC, sizeof(lapic) },
		.flags = ACPI_LAPIC_ENABLED,
	};
	struct acpi_madt_x2apic x2apic = {
		.h = { ACPI_MADT_X2APIC, sizeof(x2apic) },
		.flags = ACPI_LAPIC_ENABLED,
	};
	/* 5.2.12.3: one IOAPIC, its inputs are GSIs 0-23 */
	struct acpi_madt_ioapic io = {
		.h = { ACPI_MADT_IOAPIC, sizeof(io) },
		.id = cfg->ioapic_id, .addr = cfg->ioapic_addr, .gsi_base = 0,
	};
	/*
	 * 5.2.12.5: the PIT is ISA IRQ 0 but IOAPIC input 2 (input 0 is the
	 * 8259's INTR); flags 0: ISA's own polarity and trigger (high, edge).
	 */
	struct acpi_madt_iso iso = {
		.h = { ACPI_MADT_ISO, sizeof(iso) },
		.bus = 0, .source = 0, .gsi = 2, .flags = 0,
	};
	/* 5.2.12.7: NMI on LINT1 of every processor (UID 0xff) */
	struct acpi_madt_lapic_nmi nmi = {
		.h = { ACPI_MADT_LAPIC_NMI, sizeof(nmi) },
		.uid = ACPI_NMI_ALL_CPUS, .flags = 0, .lint = 1,
	};
	/* 5.2.12.13: the same for the processors with x2APIC IDs >= 255 */
	struct acpi_madt_x2apic_nmi x2nmi = {
		.h = { ACPI_MADT_X2APIC_NMI, sizeof(x2nmi) },
		.flags = 0, .uid = ACPI_X2APIC_NMI_ALL_CPUS, .lint = 1,
	};
	size_t off = sizeof(*m);
	unsigned i;

	sdt_header(m, ACPI_SIG_MADT, madt_len(cfg->ncpus), ACPI_MADT_REV);
	m->lapic_addr = cfg->lapic_addr;
	m->flags = ACPI_MADT_PCAT_COMPAT;

	/* 5.2.12.1: the boot processor (vCPU 0) comes first */
	for (i = 0; i < cfg->ncpus; i++) {
		if (i < ACPI_X2APIC_MIN_ID) {
			lapic.uid = i;
			lapic.apic_id = i;
			put(p, &off, &lapic, sizeof(lapic));
		} else {
			/* 5.2.12.12: APIC IDs from 255 on need x2APIC entries */
			x2apic.x2apic_id = i;
			x2apic.uid = i;
			put(p, &off, &x2apic, sizeof(x2apic));
		}
	}
	put(p, &off, &io, sizeof(io));
	put(p, &off, &iso, sizeof(iso));
	put(p, &off, &nmi, sizeof(nmi));
	if (cfg->ncpus > ACPI_X2APIC_MIN_ID)
		put(p, &off, &x2nmi, sizeof(x2nmi));
	sdt_finish(m);
}

void acpi_default_config(struct acpi_config *cfg, unsigned ncpus)
{
	*cfg = (struct acpi_config){
		.ncpus = ncpus,
		.lapic_addr = 0xfee00000,
		.ioapic_addr = 0xfec00000,
		.ioapic_id = 0,
		.sci_irq = 9,
		.pm1a_evt_port = 0x600,
		.pm1a_cnt_port = 0x604,
		.pm_tmr_port = 0x608,
		.iapc_boot_arch = ACPI_IAPC_LEGACY_DEVICES |
				  ACPI_IAPC_VGA_NOT_PRESENT |
				  ACPI_IAPC_CMOS_RTC_NOT_PRESENT,
	};
}

/* HPET spec 1.0a, 3.2.4: the block in system memory, 64 bits wide */
static void build_hpet(struct acpi_hpet *h, const struct acpi_config *cfg)
{
	sdt_header(h, ACPI_SIG_HPET, sizeof(*h), ACPI_HPET_REV);
	h->block_id = cfg->hpet_block_id;
	h->base.space_id = ACPI_AS_MEMORY;
	h->base.bit_width = 64;
	h->base.address = cfg->hpet_addr;
	h->number = 0;
	h->min_tick = 128;	/* what Linux and QEMU use */
	sdt_finish(h);
}

int acpi_build(uint8_t *area, uint64_t area_gpa, size_t area_len,
	       const struct acpi_config *cfg, struct acpi_result *out)
{
	/* the roots list the FADT, the MADT and, with one, the HPET */
	const unsigned nr_tables = cfg->hpet_addr ? 3 : 2;
	uint64_t rsdt, xsdt, facs, dsdt, fadt, madt, hpet, end;
	struct acpi_rsdp rsdp;
	struct acpi_rsdt *rt;
	struct acpi_xsdt *xt;
	struct acpi_facs *fc;

	if (!cfg->ncpus || cfg->ncpus > ACPI_BUILD_MAX_CPUS)
		return -EINVAL;
	/* 5.2.5.1: a legacy scan looks at 16-byte boundaries of 0xe0000-0xfffff */
	if (area_gpa % ACPI_RSDP_ALIGN || area_gpa < ACPI_BIOS_START ||
	    area_gpa + ACPI_RSDP_V2_LEN > ACPI_BIOS_END)
		return -EINVAL;

	rsdt = ALIGN_UP(ACPI_RSDP_V2_LEN, 16);
	xsdt = ALIGN_UP(rsdt + sizeof(*rt) + nr_tables * 4, 16);
	facs = ALIGN_UP(xsdt + sizeof(*xt) + nr_tables * 8, ACPI_FACS_ALIGN);
	dsdt = ALIGN_UP(facs + sizeof(*fc), 16);
	fadt = ALIGN_UP(dsdt + sizeof(struct acpi_sdt_header) + sizeof(dsdt_aml),
			16);
	madt = ALIGN_UP(fadt + sizeof(struct acpi_fadt), 16);
	hpet = ALIGN_UP(madt + madt_len(cfg->ncpus), 16);
	end = cfg->hpet_addr ? hpet + sizeof(struct acpi_hpet) :
			       madt + madt_len(cfg->ncpus);
	if (end > area_len)
		return -ENOSPC;
	/* 5.2.7: the RSDT holds 32-bit addresses */
	if (area_gpa + end > 0x100000000ull)
		return -EINVAL;
	memset(area, 0, end);

	/* 5.2.11.1: the DSDT, with \_S5 only */
	sdt_header(area + dsdt, ACPI_SIG_DSDT,
		   sizeof(struct acpi_sdt_header) + sizeof(dsdt_aml),
		   ACPI_DSDT_REV);
	memcpy(area + dsdt + sizeof(struct acpi_sdt_header), dsdt_aml,
	       sizeof(dsdt_aml));
	sdt_finish(area + dsdt);

	/* 5.2.10: the FACS has no checksum; firmware owns no field of it */
	fc = (struct acpi_facs *)(area + facs);
	memcpy(fc->signature, ACPI_SIG_FACS, ACPI_SIG_LEN);
	fc->length = sizeof(*fc);
	fc->version = ACPI_FACS_VERSION;

	build_fadt((struct acpi_fadt *)(area + fadt), cfg, area_gpa + facs,
		   area_gpa + dsdt);
	build_madt(area + madt, cfg);
	if (cfg->hpet_addr)
		build_hpet((struct acpi_hpet *)(area + hpet), cfg);

	/* 5.2.7, 5.2.8: Length implies the number of entries */
	rt = (struct acpi_rsdt *)(area + rsdt);
	sdt_header(rt, ACPI_SIG_RSDT, sizeof(*rt) + nr_tables * 4, ACPI_RSDT_REV);
	rt->entry[0] = area_gpa + fadt;
	rt->entry[1] = area_gpa + madt;
	if (cfg->hpet_addr)
		rt->entry[2] = area_gpa + hpet;
	sdt_finish(rt);
	xt = (struct acpi_xsdt *)(area + xsdt);
	sdt_header(xt, ACPI_SIG_XSDT, sizeof(*xt) + nr_tables * 8, ACPI_XSDT_REV);
	xt->entry[0] = area_gpa + fadt;
	xt->entry[1] = area_gpa + madt;
	if (cfg->hpet_addr)
		xt->entry[2] = area_gpa + hpet;
	sdt_finish(xt);

	/* 5.2.5.3: checksum over the first 20 bytes, then over all 36 */
	memset(&rsdp, 0, sizeof(rsdp));
	memcpy(rsdp.signature, ACPI_RSDP_SIG, sizeof(rsdp.signature));
	memcpy(rsdp.oem_id, OEM_ID, sizeof(rsdp.oem_id));
	rsdp.revision = ACPI_RSDP_REV2;
	rsdp.rsdt_addr = area_gpa + rsdt;
	rsdp.length = sizeof(rsdp);
	rsdp.xsdt_addr = area_gpa + xsdt;
	rsdp.checksum = checksum(&rsdp, ACPI_RSDP_V1_LEN);
	rsdp.ext_checksum = checksum(&rsdp, sizeof(rsdp));
	memcpy(area, &rsdp, sizeof(rsdp));
	memcpy(out->rsdp_v2, &rsdp, sizeof(rsdp));

	/* the ACPI 1.0 copy: revision 0, so a reader takes the RSDT */
	rsdp.revision = ACPI_RSDP_REV1;
	rsdp.checksum = 0;
	rsdp.checksum = checksum(&rsdp, ACPI_RSDP_V1_LEN);
	memcpy(out->rsdp_v1, &rsdp, ACPI_RSDP_V1_LEN);

	out->rsdp_gpa = area_gpa;
	out->rsdt_gpa = area_gpa + rsdt;
	out->xsdt_gpa = area_gpa + xsdt;
	out->facs_gpa = area_gpa + facs;
	out->dsdt_gpa = area_gpa + dsdt;
	out->fadt_gpa = area_gpa + fadt;
	out->madt_gpa = area_gpa + madt;
	out->hpet_gpa = cfg->hpet_addr ? area_gpa + hpet : 0;
	out->used = end;
	return 0;
}
