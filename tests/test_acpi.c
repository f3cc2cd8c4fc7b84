// SPDX-License-Identifier: MIT
/*
 * Both ends of ACPI: the VMM's builder (vmm/boot/acpi.c) writes the tables into
 * a fake guest TA_RAM, the kernel's parser (kernel/boot/acpi.c, built for the
 * host) reads them back.  Then the tables are broken one way at a time,
 * and each break must give its own error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "acpi_fixture.h"

TestSuite(acpi, .init = ta_setup, .fini = ta_teardown);

/* A table's bytes sum to 0; returns its length. */
static uint32_t assert_table(uint64_t addr, const char *sig)
{
	uint32_t len = ta_get32(addr + 4);

	cr_assert_eq(memcmp(ta_gpa(addr, 4), sig, 4), 0, "signature %s", sig);
	cr_assert_geq(len, sizeof(struct acpi_sdt_header));
	cr_assert_eq(ta_sum(ta_gpa(addr, len), len), 0, "%s checksum", sig);
	cr_assert(addr >= ACPI_AREA_GPA && addr + len <= ACPI_BIOS_END);
	return len;
}

/* ---- what the builder writes ---- */

static void check_rsdp(unsigned ncpus)
{
	const uint8_t *p = ta_gpa(ta_res.rsdp_gpa, ACPI_RSDP_V2_LEN);
	struct acpi_rsdp r, v1;

	(void)ncpus;
	cr_assert_eq(ta_res.rsdp_gpa, ACPI_BIOS_START);
	memcpy(&r, p, sizeof(r));
	cr_assert_eq(memcmp(r.signature, "RSD PTR ", 8), 0);
	cr_assert_eq(ta_sum(p, 20), 0, "RSDP checksum (first 20 bytes)");
	cr_assert_eq(ta_sum(p, 36), 0, "RSDP extended checksum");
	cr_assert_eq(r.revision, 2);
	cr_assert_eq(r.length, 36);
	cr_assert_eq(r.rsdt_addr, ta_res.rsdt_gpa);
	cr_assert_eq(r.xsdt_addr, ta_res.xsdt_gpa);
	cr_assert_eq(memcmp(ta_res.rsdp_v2, p, 36), 0, "the copy for MB2 tag 15");

	memcpy(&v1, ta_res.rsdp_v1, 20);
	cr_assert_eq(ta_sum(ta_res.rsdp_v1, 20), 0, "ACPI 1.0 copy checksum");
	cr_assert_eq(memcmp(v1.signature, "RSD PTR ", 8), 0);
	cr_assert_eq(v1.revision, 0);
	cr_assert_eq(v1.rsdt_addr, ta_res.rsdt_gpa);
}

static void check_roots(void)
{
	cr_assert_eq(assert_table(ta_res.rsdt_gpa, "RSDT"), 36 + 2 * 4);
	cr_assert_eq(assert_table(ta_res.xsdt_gpa, "XSDT"), 36 + 2 * 8);
	cr_assert_eq(ta_get32(ta_res.rsdt_gpa + 36), ta_res.fadt_gpa);
	cr_assert_eq(ta_get32(ta_res.rsdt_gpa + 40), ta_res.madt_gpa);
	cr_assert_eq(ta_get32(ta_res.xsdt_gpa + 36), ta_res.fadt_gpa);
	cr_assert_eq(ta_get32(ta_res.xsdt_gpa + 40), 0);
	cr_assert_eq(ta_get32(ta_res.xsdt_gpa + 44), ta_res.madt_gpa);
	cr_assert_eq(ta_get32(ta_res.xsdt_gpa + 48), 0);
	cr_assert_eq(assert_table(ta_res.dsdt_gpa, "DSDT"), 36 + 14, "\\_S5 only");
	/* Name (_S5, Package (4) { 5, 5, 0, 0 }) */
	cr_assert_eq(memcmp(ta_gpa(ta_res.dsdt_gpa + 36, 14),
			    "\x08_S5_\x12\x08\x04\x0a\x05\x0a\x05\x00\x00", 14), 0);
	cr_assert_eq(memcmp(ta_gpa(ta_res.facs_gpa, 4), "FACS", 4), 0);
	cr_assert_eq(ta_get32(ta_res.facs_gpa + 4), 64);
	cr_assert_eq(ta_res.facs_gpa % 64, 0);
}

static void check_fadt(void)
{
	struct acpi_fadt f;

	cr_assert_eq(assert_table(ta_res.fadt_gpa, "FACP"), sizeof(f));
	memcpy(&f, ta_gpa(ta_res.fadt_gpa, sizeof(f)), sizeof(f));
	cr_assert_eq(f.hdr.revision, 6);
	cr_assert_eq(f.minor_version, 5);
	cr_assert_eq(f.pm_tmr_blk, 0x608);
	cr_assert_eq(f.pm_tmr_len, 4);
	cr_assert_eq(f.x_pm_tmr_blk.space_id, ACPI_AS_IO);
	cr_assert_eq(f.x_pm_tmr_blk.bit_width, 32);
	cr_assert_eq(f.x_pm_tmr_blk.access_size, ACPI_ACCESS_DWORD);
	cr_assert_eq(f.x_pm_tmr_blk.address, 0x608);
	cr_assert_eq(f.flags & ACPI_FADT_TMR_VAL_EXT, 0, "24-bit timer");
	cr_assert_eq(f.flags & ACPI_FADT_HW_REDUCED, 0);
	cr_assert_eq(f.sci_int, 9);
	cr_assert_eq(f.pm1a_evt_blk, 0x600);
	cr_assert_eq(f.pm1_evt_len, 4);
	cr_assert_eq(f.pm1a_cnt_blk, 0x604);
	cr_assert_eq(f.pm1_cnt_len, 2);
	cr_assert_eq(f.smi_cmd, 0);
	cr_assert_eq(f.iapc_boot_arch & ACPI_IAPC_8042, 0);
	cr_assert(f.iapc_boot_arch & ACPI_IAPC_LEGACY_DEVICES);
	cr_assert_eq(f.dsdt, ta_res.dsdt_gpa);
	cr_assert_eq(f.x_dsdt, ta_res.dsdt_gpa);
	cr_assert_eq(f.firmware_ctrl, ta_res.facs_gpa);
	cr_assert_eq(f.x_firmware_ctrl, 0, "only one FACS address is set");
	cr_assert_eq(memcmp(f.hdr.oem_table_id,
			    ta_gpa(ta_res.rsdt_gpa + 16, 8), 8), 0,
		     "5.2.9: FADT and RSDT OEM Table IDs match");
}

static void check_madt(unsigned ncpus)
{
	uint32_t len = assert_table(ta_res.madt_gpa, "APIC");
	const uint8_t *p = ta_gpa(ta_res.madt_gpa, len);
	unsigned lapic = 0, x2apic = 0, io = 0, iso = 0, nmi = 0, x2nmi = 0;
	struct acpi_madt m;
	uint32_t off;

	memcpy(&m, p, sizeof(m));
	cr_assert_eq(m.hdr.revision, 6);
	cr_assert_eq(m.lapic_addr, 0xfee00000);
	cr_assert_eq(m.flags, ACPI_MADT_PCAT_COMPAT);
	for (off = sizeof(m); off < len; off += p[off + 1]) {
		cr_assert_geq(p[off + 1], 2);
		cr_assert_leq(off + p[off + 1], len);
		switch (p[off]) {
		case ACPI_MADT_LAPIC: {
			struct acpi_madt_lapic e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 8);
			cr_assert_eq(e.apic_id, lapic, "in vCPU order");
			cr_assert_eq(e.uid, lapic);
			cr_assert_eq(e.flags, ACPI_LAPIC_ENABLED);
			cr_assert_eq(x2apic + io + iso + nmi, 0, "CPUs first");
			lapic++;
			break;
		}
		case ACPI_MADT_X2APIC: {
			struct acpi_madt_x2apic e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 16);
			cr_assert_eq(e.x2apic_id, 255 + x2apic);
			cr_assert_eq(e.uid, 255 + x2apic);
			cr_assert_eq(e.flags, ACPI_LAPIC_ENABLED);
			cr_assert_eq(lapic, 255, "IDs below 255 use type 0");
			x2apic++;
			break;
		}
		case ACPI_MADT_IOAPIC: {
			struct acpi_madt_ioapic e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 12);
			cr_assert_eq(e.id, 0);
			cr_assert_eq(e.addr, 0xfec00000);
			cr_assert_eq(e.gsi_base, 0);
			io++;
			break;
		}
		case ACPI_MADT_ISO: {
			struct acpi_madt_iso e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 10);
			cr_assert_eq(e.bus, 0);
			cr_assert_eq(e.source, 0);
			cr_assert_eq(e.gsi, 2);
			cr_assert_eq(e.flags, 0);
			iso++;
			break;
		}
		case ACPI_MADT_LAPIC_NMI: {
			struct acpi_madt_lapic_nmi e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 6);
			cr_assert_eq(e.uid, 0xff);
			cr_assert_eq(e.flags, 0);
			cr_assert_eq(e.lint, 1);
			nmi++;
			break;
		}
		case ACPI_MADT_X2APIC_NMI: {
			struct acpi_madt_x2apic_nmi e;

			memcpy(&e, p + off, sizeof(e));
			cr_assert_eq(e.h.length, 12);
			cr_assert_eq(e.uid, 0xffffffff);
			cr_assert_eq(e.lint, 1);
			x2nmi++;
			break;
		}
		default:
			cr_assert_fail("unexpected MADT entry type %u", p[off]);
		}
	}
	cr_assert_eq(off, len, "entries fill the MADT exactly");
	cr_assert_eq(lapic, ncpus < 255 ? ncpus : 255);
	cr_assert_eq(x2apic, ncpus < 255 ? 0 : ncpus - 255);
	cr_assert_eq(io, 1);
	cr_assert_eq(iso, 1);
	cr_assert_eq(nmi, 1);
	cr_assert_eq(x2nmi, ncpus > 255);
}

/* What the parser must read back from the builder's tables. */
static void check_info(const struct acpi_info *ai, unsigned ncpus, int rev)
{
	unsigned i, n = ncpus < ACPI_MAX_CPUS ? ncpus : ACPI_MAX_CPUS;

	cr_assert_eq(ai->rsdp_rev, rev);
	cr_assert_eq(ai->nr_cpus, n);
	for (i = 0; i < n; i++) {
		cr_assert_eq(ai->cpus[i].apic_id, i);
		cr_assert_eq(ai->cpus[i].uid, i);
		cr_assert_eq(ai->cpus[i].x2apic, 0);
	}
	cr_assert_eq(ai->lapic_addr, 0xfee00000);
	cr_assert(ai->has_ioapic);
	cr_assert_eq(ai->ioapic_id, 0);
	cr_assert_eq(ai->ioapic_addr, 0xfec00000);
	cr_assert_eq(ai->ioapic_gsi_base, 0);
	cr_assert_eq(ai->nr_iso, 1);
	cr_assert_eq(ai->iso[0].bus_irq, 0);
	cr_assert_eq(ai->iso[0].gsi, 2);
	cr_assert_eq(ai->iso[0].flags, 0);
	cr_assert_eq(ai->nmi_lint, 1);
	cr_assert_eq(ai->pm_tmr_port, 0x608);
	cr_assert_eq(ai->pm_tmr_32bit, 0);
	cr_assert_eq(ai->madt_flags, ACPI_MADT_PCAT_COMPAT);
}

static void build_and_check(unsigned ncpus)
{
	struct acpi_info ai;
	int ret;

	ta_build(ncpus);
	check_rsdp(ncpus);
	check_roots();
	check_fadt();
	check_madt(ncpus);

	ret = ta_parse(&ai);
	cr_assert_eq(ret, 0, "%s", acpi_strerror(ret));
	check_info(&ai, ncpus, 2);
	cr_assert_eq(ai.rsdp_addr, (uintptr_t)ta_gpa(ta_res.rsdp_gpa, 36));
	/* the copies the multiboot2 tags carry lead to the same tables */
	ret = acpi_parse(ta_res.rsdp_v2, ta_phys, &ta_mem, &ai);
	cr_assert_eq(ret, 0, "%s", acpi_strerror(ret));
	check_info(&ai, ncpus, 2);
	ret = acpi_parse(ta_res.rsdp_v1, ta_phys, &ta_mem, &ai);
	cr_assert_eq(ret, 0, "RSDT path: %s", acpi_strerror(ret));
	check_info(&ai, ncpus, 0);
}

Test(acpi, one_cpu) { build_and_check(1); }
Test(acpi, four_cpus) { build_and_check(4); }
Test(acpi, sixty_four_cpus) { build_and_check(64); }
Test(acpi, x2apic_ids_from_255) { build_and_check(300); }

Test(acpi, builder_rejects)
{
	uint8_t *area = ta_gpa(ACPI_AREA_GPA, ACPI_AREA_LEN);
	struct acpi_config cfg;
	size_t i;

	acpi_default_config(&cfg, 0);
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA, ACPI_AREA_LEN, &cfg, &ta_res),
		     -EINVAL, "no CPUs");
	acpi_default_config(&cfg, ACPI_BUILD_MAX_CPUS + 1);
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA, ACPI_AREA_LEN, &cfg, &ta_res),
		     -EINVAL);
	acpi_default_config(&cfg, 4);
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA + 8, 0x1000, &cfg, &ta_res),
		     -EINVAL, "RSDP not on a 16-byte boundary");
	cr_assert_eq(acpi_build(ta_gpa(0x80000, 0x1000), 0x80000, 0x1000, &cfg,
				&ta_res), -EINVAL, "RSDP outside the BIOS area");
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA, 0x100, &cfg, &ta_res),
		     -ENOSPC);
	cr_assert_eq(acpi_build(ta_gpa(0xffff0, 16), 0xffff0, 16, &cfg, &ta_res),
		     -EINVAL, "a 36-byte RSDP does not fit below 1 MiB");
	for (i = 0; i < ACPI_AREA_LEN; i++)
		cr_assert_eq(area[i], 0, "a failed build writes nothing");
}

/* ---- finding the RSDP (5.2.5.1) ---- */

static const void *find(void)
{
	return acpi_find_rsdp(ta_phys, &ta_mem);
}

Test(acpi, find_in_bios_area)
{
	ta_build(4);
	cr_assert_eq(find(), ta_gpa(ACPI_BIOS_START, 36));
}

Test(acpi, find_moved_and_skips_bad)
{
	uint8_t *orig, copy[36];

	ta_build(4);
	orig = ta_gpa(ta_res.rsdp_gpa, 36);
	memcpy(copy, orig, 36);
	orig[8] ^= 1;			/* bad checksum: not an RSDP */
	cr_assert_null(find());

	memcpy(ta_gpa(0xf0010, 36), copy, 36);
	cr_assert_eq(find(), ta_gpa(0xf0010, 36));
	memcpy(ta_gpa(0xe8000, 36), copy, 36);
	ta_gpa(0xe8000, 36)[33] = 1;	/* extended checksum now wrong */
	cr_assert_eq(find(), ta_gpa(0xf0010, 36), "skips a bad 2.0 RSDP");
	memcpy(ta_gpa(0xe8008, 36), copy, 36);
	cr_assert_eq(find(), ta_gpa(0xf0010, 36), "only 16-byte boundaries");
}

Test(acpi, find_in_ebda_first)
{
	uint16_t seg = 0x9fc0;		/* the EBDA at 0x9fc00 */

	ta_build(1);
	memcpy(ta_gpa(0x9fc00 + 0x40, 36), ta_gpa(ta_res.rsdp_gpa, 36), 36);
	memcpy(ta_gpa(ACPI_BDA_EBDA_SEG, 2), &seg, 2);
	cr_assert_eq(find(), ta_gpa(0x9fc40, 36));
	/* past the first KiB of the EBDA is not scanned */
	memset(ta_gpa(0x9fc40, 36), 0, 36);
	memcpy(ta_gpa(0x9fc00 + 0x400, 36), ta_gpa(ta_res.rsdp_gpa, 36), 36);
	cr_assert_eq(find(), ta_gpa(ACPI_BIOS_START, 36));
}

Test(acpi, find_nothing)
{
	cr_assert_null(find(), "all-zero memory");
}

/* A phys() that maps only [0, 1 MiB): the scan must not need more. */
static const void *phys_1m(void *ctx, uint64_t addr, uint64_t len)
{
	if (addr >= 0x100000 || len > 0x100000 - addr)
		return NULL;
	return mem_ptr(ctx, addr, len);
}

Test(acpi, find_at_the_edge)
{
	uint8_t copy[36];

	ta_build(1);
	memcpy(copy, ta_gpa(ta_res.rsdp_gpa, 36), 36);
	memset(ta_gpa(ta_res.rsdp_gpa, 36), 0, 36);
	/* a 36-byte RSDP at 0xffff0 would end past 1 MiB */
	memcpy(ta_gpa(0xffff0, 36), copy, 36);
	cr_assert_null(acpi_find_rsdp(phys_1m, &ta_mem));
	cr_assert_eq(acpi_find_rsdp(ta_phys, &ta_mem), ta_gpa(0xffff0, 36));
	/* a 20-byte ACPI 1.0 one at the last boundary it fits below 1 MiB */
	memset(ta_gpa(0xffff0, 36), 0, 36);
	memcpy(ta_gpa(0xfffe0, 20), ta_res.rsdp_v1, 20);
	cr_assert_eq(acpi_find_rsdp(phys_1m, &ta_mem), ta_gpa(0xfffe0, 20));
}

Test(acpi, an_hpet_table_when_asked)
{
	uint8_t *area = ta_gpa(ACPI_AREA_GPA, ACPI_AREA_LEN);
	struct acpi_config cfg;
	struct acpi_hpet h;
	struct acpi_info ai;
	int ret;

	/* HPET spec 1.0a, 3.2.4: the block's address in system memory, the
	 * table listed by both roots after the FADT and the MADT */
	acpi_default_config(&cfg, 2);
	cfg.hpet_addr = 0xfed00000;
	cfg.hpet_block_id = 0x8086a201;
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA, ACPI_AREA_LEN, &cfg,
				&ta_res), 0);
	cr_assert_eq(assert_table(ta_res.hpet_gpa, "HPET"), sizeof(h));
	memcpy(&h, ta_gpa(ta_res.hpet_gpa, sizeof(h)), sizeof(h));
	cr_assert_eq(h.hdr.revision, 1);
	cr_assert_eq(h.base.space_id, ACPI_AS_MEMORY);
	cr_assert_eq(h.base.bit_width, 64);
	cr_assert_eq(h.base.address, 0xfed00000);
	cr_assert_eq(h.block_id, 0x8086a201);
	cr_assert_eq(assert_table(ta_res.rsdt_gpa, "RSDT"), 36 + 3 * 4);
	cr_assert_eq(ta_get32(ta_res.rsdt_gpa + 44), ta_res.hpet_gpa);
	cr_assert_eq(assert_table(ta_res.xsdt_gpa, "XSDT"), 36 + 3 * 8);
	/* and the kernel's parser finds it, by either root */
	ret = acpi_parse(ta_res.rsdp_v2, ta_phys, &ta_mem, &ai);
	cr_assert_eq(ret, 0, "%s", acpi_strerror(ret));
	cr_assert_eq(ai.hpet_addr, 0xfed00000);
	cr_assert_eq(ai.hpet_block_id, 0x8086a201);
	ret = acpi_parse(ta_res.rsdp_v1, ta_phys, &ta_mem, &ai);
	cr_assert_eq(ret, 0, "%s", acpi_strerror(ret));
	cr_assert_eq(ai.hpet_addr, 0xfed00000);
	/* none by default */
	acpi_default_config(&cfg, 2);
	cr_assert_eq(acpi_build(area, ACPI_AREA_GPA, ACPI_AREA_LEN, &cfg,
				&ta_res), 0);
	cr_assert_eq(ta_res.hpet_gpa, 0);
	cr_assert_eq(acpi_parse(ta_res.rsdp_v2, ta_phys, &ta_mem, &ai), 0);
	cr_assert_eq(ai.hpet_addr, 0);
}
