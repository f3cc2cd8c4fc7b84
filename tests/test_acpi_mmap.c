// SPDX-License-Identifier: MIT
/*
 * The RSDP in the memory map's ACPI regions (kernel/boot/acpi.c,
 * acpi_find_rsdp_mmap()): where a UEFI firmware keeps it, and where the
 * kernel looks under multiboot 1, which passes none.  The VMM's builder
 * writes the tables (acpi_fixture); the tests move the RSDP out of the
 * BIOS area, as OVMF places it: an ACPI 1.0 one, and the 2.0 one right
 * after its 20 bytes, not on a 16-byte boundary.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "acpi_fixture.h"
#include "../kernel/boot/mbinfo.h"

TestSuite(acpi_mmap, .init = ta_setup, .fini = ta_teardown);

#define REGION		0x700000ull	/* the map's "ACPI" region */
#define REGION_LEN	0x12000ull

static struct mbinfo_mmap map[4];

/* The map: RAM, the region of @type, RAM; the BIOS area's RSDP gone. */
static void setup(uint32_t type)
{
	ta_build(2);
	memset(ta_gpa(ta_res.rsdp_gpa, ACPI_RSDP_V2_LEN), 0, ACPI_RSDP_V2_LEN);
	cr_assert_null(acpi_find_rsdp(ta_phys, &ta_mem));
	map[0] = (struct mbinfo_mmap){ 0, 0x9fc00, MB_MEMORY_AVAILABLE };
	map[1] = (struct mbinfo_mmap){ 0x100000, REGION - 0x100000,
				       MB_MEMORY_AVAILABLE };
	map[2] = (struct mbinfo_mmap){ REGION, REGION_LEN, type };
	map[3] = (struct mbinfo_mmap){ REGION + REGION_LEN,
				       TA_RAM - REGION - REGION_LEN,
				       MB_MEMORY_AVAILABLE };
}

static const void *find(void)
{
	return acpi_find_rsdp_mmap(ta_phys, &ta_mem, map, 4);
}

static void put_v1(uint64_t addr)
{
	memcpy(ta_gpa(addr, ACPI_RSDP_V1_LEN), ta_res.rsdp_v1,
	       ACPI_RSDP_V1_LEN);
}

static void put_v2(uint64_t addr)
{
	memcpy(ta_gpa(addr, ACPI_RSDP_V2_LEN), ta_res.rsdp_v2,
	       ACPI_RSDP_V2_LEN);
}

/* OVMF's layout: a 1.0 RSDP at a page's start, the 2.0 one after it. */
Test(acpi_mmap, ovmf_layout_prefers_revision_2)
{
	struct acpi_info ai;
	const uint8_t *p;

	setup(MB_MEMORY_ACPI);
	put_v1(REGION + 0x11000);
	put_v2(REGION + 0x11000 + ACPI_RSDP_V1_LEN);
	p = find();
	cr_assert_eq(p, ta_gpa(REGION + 0x11014, ACPI_RSDP_V2_LEN));
	cr_assert_eq(p[15], ACPI_RSDP_REV2);
	cr_assert_eq(acpi_parse(p, ta_phys, &ta_mem, &ai), 0);
	cr_assert_eq(ai.nr_cpus, 2, "the MADT it leads to");
}

Test(acpi_mmap, revision_0_alone)
{
	const uint8_t *p;

	setup(MB_MEMORY_ACPI);
	put_v1(REGION + 3);	/* any byte: UEFI sets no alignment */
	p = find();
	cr_assert_eq(p, ta_gpa(REGION + 3, ACPI_RSDP_V1_LEN));
	cr_assert_eq(p[15], 0);
}

/* A 1.0 RSDP in an early region, the 2.0 one in a later: the 2.0. */
Test(acpi_mmap, revision_2_in_a_later_region)
{
	setup(MB_MEMORY_ACPI);
	map[1].len -= 0x10000;
	map[1].type = MB_MEMORY_AVAILABLE;
	map[0] = (struct mbinfo_mmap){ REGION - 0x10000, 0x10000,
				       MB_MEMORY_NVS };
	put_v1(REGION - 0x10000 + 0x40);
	map[2].type = MB_MEMORY_NVS;
	put_v2(REGION + 0x100);
	cr_assert_eq(find(), ta_gpa(REGION + 0x100, ACPI_RSDP_V2_LEN));
}

Test(acpi_mmap, nvs_region)
{
	setup(MB_MEMORY_NVS);
	put_v2(REGION);
	cr_assert_eq(find(), ta_gpa(REGION, ACPI_RSDP_V2_LEN));
}

/* Available, reserved or bad memory is not where ACPI tables live. */
Test(acpi_mmap, other_types_not_searched)
{
	static const uint32_t types[] = {
		MB_MEMORY_AVAILABLE, MB_MEMORY_RESERVED, MB_MEMORY_BADRAM, 20,
	};
	unsigned i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		setup(types[i]);
		put_v2(REGION + 0x40);
		cr_assert_null(find(), "type %u", types[i]);
	}
}

Test(acpi_mmap, bad_checksums_skipped)
{
	uint8_t *p;

	setup(MB_MEMORY_ACPI);
	put_v2(REGION + 0x40);
	p = ta_gpa(REGION + 0x40, ACPI_RSDP_V2_LEN);
	p[8] ^= 1;				/* the 20-byte checksum */
	cr_assert_null(find());
	p[8] ^= 1;
	p[32] ^= 1;				/* the extended one */
	cr_assert_null(find());
	put_v2(REGION + 0x80);			/* a good one after */
	cr_assert_eq(find(), ta_gpa(REGION + 0x80, ACPI_RSDP_V2_LEN));
}

/* The RSDP's first 20 bytes lie in the region, or it is not there. */
Test(acpi_mmap, region_edges)
{
	setup(MB_MEMORY_ACPI);
	put_v1(REGION + REGION_LEN - ACPI_RSDP_V1_LEN);
	cr_assert_eq(find(), ta_gpa(REGION + REGION_LEN - ACPI_RSDP_V1_LEN,
				    ACPI_RSDP_V1_LEN));
	memset(ta_gpa(REGION + REGION_LEN - ACPI_RSDP_V1_LEN, 20), 0, 20);
	put_v1(REGION + REGION_LEN - ACPI_RSDP_V1_LEN + 1);
	cr_assert_null(find(), "one byte past the region's end");
	put_v1(REGION - 1);
	cr_assert_null(find(), "starts before the region");
}

/* A region past the memory @phys maps is skipped, not read. */
Test(acpi_mmap, region_outside_memory)
{
	setup(MB_MEMORY_ACPI);
	put_v2(REGION + 0x40);
	map[2].len = TA_RAM;		/* runs past the fixture's RAM */
	cr_assert_null(find());
	map[2] = (struct mbinfo_mmap){ ~0ull - 0xfff, 0x1000, MB_MEMORY_ACPI };
	cr_assert_null(find());
	map[2] = (struct mbinfo_mmap){ REGION, 0, MB_MEMORY_ACPI };
	cr_assert_null(find());
	cr_assert_null(acpi_find_rsdp_mmap(ta_phys, &ta_mem, map, 0));
}
