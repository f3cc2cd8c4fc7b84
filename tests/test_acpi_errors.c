// SPDX-License-Identifier: MIT
/*
 * Broken and hostile ACPI tables: the builder's tables with one thing
 * wrong at a time, hand-made MADTs, and random corruption.  Each break
 * must give its own error, and nothing may read outside what phys() maps.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "acpi_fixture.h"

TestSuite(acpi_errors, .init = ta_setup, .fini = ta_teardown);

/* ---- broken tables ---- */

Test(acpi_errors, rsdp_missing)
{
	struct acpi_info ai;

	cr_assert_eq(acpi_parse(NULL, ta_phys, &ta_mem, &ai), ACPI_ENORSDP);
	ta_build(4);
	ta_gpa(ta_res.rsdp_gpa, 1)[0] = 'X';
	ta_expect(ACPI_ENORSDP);
}

Test(acpi_errors, rsdp_checksums)
{
	ta_build(4);
	ta_gpa(ta_res.rsdp_gpa, 36)[8] ^= 0x40;
	ta_expect(ACPI_ERSDP);
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(0);
	ta_gpa(ta_res.rsdp_gpa, 36)[32] ^= 0x40;	/* only the extended one */
	ta_expect(ACPI_ERSDP);
	ta_put32(ta_res.rsdp_gpa + 20, 20);		/* Length < 36 in a 2.0 RSDP */
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(ACPI_ERSDP);
}

Test(acpi_errors, table_checksums)
{
	uint64_t t[] = { 0, 0, 0, 0 };
	unsigned i;

	ta_build(4);
	t[0] = ta_res.xsdt_gpa;
	t[1] = ta_res.madt_gpa;
	t[2] = ta_res.fadt_gpa;
	t[3] = ta_res.dsdt_gpa;
	for (i = 0; i < 4; i++) {
		ta_gpa(t[i] + 20, 1)[0] ^= 0x10;	/* an OEM Table ID byte */
		ta_expect(ACPI_ECHECKSUM);
		ta_fix(t[i]);
		ta_expect(0);
	}
	/* the RSDT is checked when it is the one used */
	ta_put64(ta_res.rsdp_gpa + 24, 0);
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(0);
	ta_gpa(ta_res.rsdt_gpa + 20, 1)[0] ^= 0x10;
	ta_expect(ACPI_ECHECKSUM);
}

Test(acpi_errors, signatures)
{
	ta_build(4);
	memcpy(ta_gpa(ta_res.xsdt_gpa, 4), "RSDT", 4);
	ta_fix(ta_res.xsdt_gpa);
	ta_expect(ACPI_ESIG);
	memcpy(ta_gpa(ta_res.xsdt_gpa, 4), "XSDT", 4);
	ta_fix(ta_res.xsdt_gpa);
	memcpy(ta_gpa(ta_res.dsdt_gpa, 4), "SSDT", 4);
	ta_fix(ta_res.dsdt_gpa);
	ta_expect(ACPI_ESIG);
	memcpy(ta_gpa(ta_res.dsdt_gpa, 4), "DSDT", 4);
	ta_fix(ta_res.dsdt_gpa);
	memcpy(ta_gpa(ta_res.facs_gpa, 4), "FACT", 4);
	ta_expect(ACPI_ESIG);
}

Test(acpi_errors, table_addresses)
{
	ta_build(4);
	ta_put64(ta_res.rsdp_gpa + 24, 0xf0000000);	/* in the MMIO hole */
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(ACPI_ENOTABLE);
	ta_put64(ta_res.rsdp_gpa + 24, TA_RAM - 8);	/* header runs off TA_RAM */
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(ACPI_ENOTABLE);
	ta_put64(ta_res.rsdp_gpa + 24, ta_res.xsdt_gpa);
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_put64(ta_res.xsdt_gpa + 44, 0);		/* an empty slot is skipped */
	ta_fix(ta_res.xsdt_gpa);
	ta_expect(ACPI_ENOMADT);
	ta_put64(ta_res.xsdt_gpa + 44, 0xfec00000);
	ta_fix(ta_res.xsdt_gpa);
	ta_expect(ACPI_ENOTABLE);
}

Test(acpi_errors, lengths)
{
	uint32_t madt;

	ta_build(4);
	madt = ta_get32(ta_res.madt_gpa + 4);
	ta_set_len(ta_res.madt_gpa, madt - 3);	/* cuts the last entry */
	ta_expect(ACPI_EMADT);
	ta_set_len(ta_res.madt_gpa, 40);		/* shorter than its fixed part */
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.madt_gpa, 20);		/* shorter than a header */
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.madt_gpa, TA_RAM);		/* past the end of TA_RAM */
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.madt_gpa, 0xffffffff);
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.madt_gpa, ACPI_MAX_TABLE_LEN + 1);
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.madt_gpa, madt);
	ta_expect(0);

	ta_set_len(ta_res.xsdt_gpa, 36 + 12);		/* not whole 8-byte entries */
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.xsdt_gpa, 36 + 8);		/* the FADT only */
	ta_expect(ACPI_ENOMADT);
	ta_set_len(ta_res.xsdt_gpa, 36 + 16);
	ta_set_len(ta_res.fadt_gpa, 100);		/* not even an ACPI 1.0 FADT */
	ta_expect(ACPI_ELENGTH);
	ta_set_len(ta_res.fadt_gpa, ACPI_FADT_V1_LEN);	/* 1.0: no X_ fields */
	ta_expect(0);
	ta_set_len(ta_res.fadt_gpa, sizeof(struct acpi_fadt));
	ta_put32(ta_res.facs_gpa + 4, 32);		/* the FACS has no checksum */
	ta_expect(ACPI_ELENGTH);
}

Test(acpi_errors, too_many_tables)
{
	unsigned i, n = ACPI_MAX_TABLES + 1;

	ta_build(1);
	/* a new XSDT in the spare bytes, listing the MADT n times */
	memcpy(ta_gpa(TA_SPARE, 36), ta_gpa(ta_res.xsdt_gpa, 36), 36);
	ta_put32(TA_SPARE + 4, 36 + 8 * n);
	for (i = 0; i < n; i++)
		ta_put64(TA_SPARE + 36 + 8 * i, ta_res.madt_gpa);
	ta_fix(TA_SPARE);
	ta_put64(ta_res.rsdp_gpa + 24, TA_SPARE);
	ta_fix_rsdp(ta_res.rsdp_gpa);
	ta_expect(ACPI_ETOOMANY);
	ta_put32(TA_SPARE + 4, 36 + 8 * (n - 1));
	ta_fix(TA_SPARE);
	ta_expect(0);
}

/* ---- hand-made MADTs ---- */

/*
 * A MADT at TA_SPARE with the built one's fixed part and these entries;
 * both roots now point to it instead.
 */
static void madt_with(const void *entries, size_t len)
{
	memcpy(ta_gpa(TA_SPARE, 44), ta_gpa(ta_res.madt_gpa, 44), 44);
	memcpy(ta_gpa(TA_SPARE + 44, len), entries, len);
	ta_put32(TA_SPARE + 4, 44 + len);
	ta_fix(TA_SPARE);
	ta_put32(ta_res.rsdt_gpa + 40, TA_SPARE);
	ta_fix(ta_res.rsdt_gpa);
	ta_put64(ta_res.xsdt_gpa + 44, TA_SPARE);
	ta_fix(ta_res.xsdt_gpa);
}

#define E(...)	__VA_ARGS__

/* Processor Local APIC (8 bytes), Local x2APIC (16) */
#define LAPIC(uid, id, fl)	0, 8, uid, id, fl, 0, 0, 0
#define X2APIC(id, uid, fl)	9, 16, 0, 0, (id) & 0xff, (id) >> 8, 0, 0, \
				fl, 0, 0, 0, (uid) & 0xff, (uid) >> 8, 0, 0
#define IOAPIC(id, a1, gsi)	1, 12, id, 0, 0, a1, 0xc0, 0xfe, gsi, 0, 0, 0
#define ISO(bus, irq, gsi, fl)	2, 10, bus, irq, gsi, 0, 0, 0, fl, 0
#define NMI(uid, lint)		4, 6, uid, 0, 0, lint

Test(acpi_errors, madt_entries)
{
	static const uint8_t e[] = {
		LAPIC(0, 0, 1),
		LAPIC(1, 1, 0),		/* neither enabled nor online capable */
		LAPIC(2, 2, 2),		/* online capable */
		LAPIC(3, 0, 1),		/* APIC ID 0 again */
		0, 10, 4, 4, 1, 0, 0, 0, 0xaa, 0xbb,	/* a longer LAPIC */
		X2APIC(300, 301, 1),
		0x7f, 5, 1, 2, 3,	/* an unknown type */
		IOAPIC(5, 0x10, 24),
		IOAPIC(4, 0x00, 0),	/* the lowest GSI base wins */
		ISO(0, 9, 9, 0xd),
		ISO(1, 3, 3, 0),	/* not ISA: ignored */
		NMI(1, 0),
		NMI(0xff, 1),		/* for all processors: wins */
		5, 12, 0, 0, 0, 0, 0xe0, 0xfe, 1, 0, 0, 0,	/* address override */
	};
	struct acpi_info ai;
	int ret;

	ta_build(1);
	madt_with(e, sizeof(e));
	ret = ta_parse(&ai);
	cr_assert_eq(ret, 0, "%s", acpi_strerror(ret));
	cr_assert_eq(ai.nr_cpus, 4);
	cr_assert_eq(ai.cpus[0].apic_id, 0);
	cr_assert_eq(ai.cpus[1].apic_id, 2);
	cr_assert_eq(ai.cpus[1].uid, 2);
	cr_assert_eq(ai.cpus[2].apic_id, 4);
	cr_assert_eq(ai.cpus[3].apic_id, 300);
	cr_assert_eq(ai.cpus[3].uid, 301);
	cr_assert(ai.cpus[3].x2apic);
	cr_assert_not(ai.cpus[0].x2apic);
	cr_assert_eq(ai.ioapic_id, 4);
	cr_assert_eq(ai.ioapic_addr, 0xfec00000);
	cr_assert_eq(ai.ioapic_gsi_base, 0);
	cr_assert_eq(ai.nr_iso, 1);
	cr_assert_eq(ai.iso[0].bus_irq, 9);
	cr_assert_eq(ai.iso[0].flags, ACPI_INTI_ACTIVE_HIGH | ACPI_INTI_LEVEL);
	cr_assert_eq(ai.nmi_lint, 1);
	cr_assert_eq(ai.lapic_addr, 0x1fee00000ull);
}

Test(acpi_errors, madt_limits)
{
	uint8_t e[100 * 10];
	struct acpi_info ai;
	unsigned i;

	ta_build(1);
	for (i = 0; i < 100; i++)
		memcpy(e + 8 * i, (uint8_t[]){ LAPIC(i, i, 1) }, 8);
	madt_with(e, 8 * 100);
	cr_assert_eq(ta_parse(&ai), 0);
	cr_assert_eq(ai.nr_cpus, ACPI_MAX_CPUS, "the rest are dropped");
	cr_assert_eq(ai.cpus[63].apic_id, 63);
	cr_assert_not(ai.has_ioapic);
	cr_assert_eq(ai.nmi_lint, -1);

	for (i = 0; i < 100; i++)
		memcpy(e + 10 * i, (uint8_t[]){ ISO(0, i, i, 0) }, 10);
	madt_with(e, 10 * 100);
	cr_assert_eq(ta_parse(&ai), 0);
	cr_assert_eq(ai.nr_iso, ACPI_MAX_ISO);
	cr_assert_eq(ai.nr_cpus, 0);
}

Test(acpi_errors, madt_bad_entries)
{
	static const struct {
		const char *what;
		uint8_t e[16];
		size_t len;
	} bad[] = {
		{ "length 0", { 0, 0 }, 8 },
		{ "length 1", { 0x7f, 1 }, 8 },
		{ "past the end", { LAPIC(0, 0, 1) }, 7 },
		{ "one byte left", { LAPIC(0, 0, 1), 0 }, 9 },
		{ "short LAPIC", { 0, 6, 0, 0, 1, 0 }, 6 },
		{ "short x2APIC", { 9, 12 }, 12 },
		{ "short IOAPIC", { 1, 8 }, 8 },
		{ "short ISO", { 2, 8 }, 8 },
		{ "short NMI", { 4, 5 }, 5 },
		{ "NMI on LINT2", { NMI(0xff, 2) }, 6 },
		{ "short override", { 5, 8 }, 8 },
	};
	unsigned i;

	ta_build(1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct acpi_info ai;

		madt_with(bad[i].e, bad[i].len);
		cr_assert_eq(ta_parse(&ai), ACPI_EMADT, "%s", bad[i].what);
	}
}

/* A phys() that maps only [0, 1 MiB). */
static const void *phys_1m(void *ctx, uint64_t addr, uint64_t len)
{
	if (addr >= 0x100000 || len > 0x100000 - addr)
		return NULL;
	return mem_ptr(ctx, addr, len);
}

Test(acpi_errors, length_past_memory)
{
	const void *rsdp;
	struct acpi_info ai;

	ta_build(1);
	rsdp = ta_gpa(ta_res.rsdp_gpa, 36);
	cr_assert_eq(acpi_parse(rsdp, phys_1m, &ta_mem, &ai), 0);
	/* under 4 MiB, and in RAM, but not in what phys() maps */
	ta_set_len(ta_res.madt_gpa, 0x30000);
	cr_assert_eq(acpi_parse(rsdp, phys_1m, &ta_mem, &ai), ACPI_ELENGTH);
}

/* ---- the FADT's PM timer (5.2.9) ---- */

static struct acpi_fadt *fadt(void)
{
	return (struct acpi_fadt *)ta_gpa(ta_res.fadt_gpa,
					  sizeof(struct acpi_fadt));
}

static void expect_timer(uint16_t port, int ext)
{
	struct acpi_info ai;

	ta_fix(ta_res.fadt_gpa);
	cr_assert_eq(ta_parse(&ai), 0);
	cr_assert_eq(ai.pm_tmr_port, port);
	cr_assert_eq(ai.pm_tmr_32bit, ext);
}

Test(acpi_errors, pm_timer)
{
	ta_build(1);
	expect_timer(0x608, 0);
	fadt()->flags |= ACPI_FADT_TMR_VAL_EXT;
	expect_timer(0x608, 1);
	fadt()->x_pm_tmr_blk.address = 0xb008;	/* X_ wins */
	expect_timer(0xb008, 1);
	fadt()->x_pm_tmr_blk.space_id = ACPI_AS_MEMORY;
	expect_timer(0, 0);
	fadt()->x_pm_tmr_blk.address = 0;	/* back to PM_TMR_BLK */
	expect_timer(0x608, 1);
	fadt()->pm_tmr_len = 3;			/* must be 4 */
	expect_timer(0, 0);
	fadt()->pm_tmr_len = 4;
	fadt()->flags |= ACPI_FADT_HW_REDUCED;	/* no fixed hardware */
	expect_timer(0, 0);
}

/* ---- random corruption ---- */

static uint8_t *fuzz_area;	/* exactly the BIOS area: overreads hit ASan */

static const void *phys_area(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	if (addr < ACPI_BIOS_START || addr >= ACPI_BIOS_END ||
	    len > ACPI_BIOS_END - addr)
		return NULL;
	return fuzz_area + (addr - ACPI_BIOS_START);
}

/* Re-checksum a table if its (maybe mutated) Length stays in the area. */
static void fuzz_fix(uint64_t addr)
{
	uint8_t *p = fuzz_area + (addr - ACPI_BIOS_START);
	uint32_t len;

	memcpy(&len, p + 4, 4);
	if (len < 10 || len > ACPI_BIOS_END - addr)
		return;
	p[9] = 0;
	p[9] = -ta_sum(p, len);
}

Test(acpi_errors, fuzz)
{
	unsigned iter, ok = 0;

	srand(1234);
	fuzz_area = malloc(ACPI_AREA_LEN);
	cr_assert_not_null(fuzz_area);
	for (iter = 0; iter < 6000; iter++) {
		unsigned ncpus = iter % 3 ? 4 : 300, n, k;
		struct acpi_info ai;
		const void *rsdp;
		int ret;

		ta_build(ncpus);
		memcpy(fuzz_area, ta_gpa(ACPI_AREA_GPA, ACPI_AREA_LEN),
		       ACPI_AREA_LEN);
		n = 1 + rand() % 8;
		for (k = 0; k < n; k++) {
			size_t at = rand() % ta_res.used;

			fuzz_area[at] = rand() % 3 ? rand() : 0xff;
		}
		/* most of the time fix the checksums, to get past them */
		if (iter % 4) {
			fuzz_fix(ta_res.rsdt_gpa);
			fuzz_fix(ta_res.xsdt_gpa);
			fuzz_fix(ta_res.fadt_gpa);
			fuzz_fix(ta_res.dsdt_gpa);
			fuzz_fix(ta_res.madt_gpa);
			fuzz_area[8] = 0;
			fuzz_area[8] = -ta_sum(fuzz_area, 20);
			fuzz_area[32] = 0;
			fuzz_area[32] = -ta_sum(fuzz_area, 36);
		}
		rsdp = acpi_find_rsdp(phys_area, NULL);
		if (!rsdp)
			continue;
		ret = acpi_parse(rsdp, phys_area, NULL, &ai);
		cr_assert(ret <= 0 && ret >= ACPI_ETOOMANY, "ret %d", ret);
		cr_assert_neq(strcmp(acpi_strerror(ret), "unknown error"), 0);
		if (ret)
			continue;
		ok++;
		cr_assert_leq(ai.nr_cpus, ACPI_MAX_CPUS);
		cr_assert_leq(ai.nr_iso, ACPI_MAX_ISO);
		cr_assert(ai.nmi_lint >= -1 && ai.nmi_lint <= 1);
	}
	free(fuzz_area);
	cr_assert_gt(ok, 100, "some mutations still parse (%u)", ok);
}
