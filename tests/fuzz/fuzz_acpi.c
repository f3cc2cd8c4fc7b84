// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the kernel's ACPI parser (kernel/boot/acpi.c, built for
 * the host) fed raw bytes and the VMM's own tables mutated.  Memory is
 * heap blocks of exactly the bytes given (ASan sees a read past them),
 * each mapped at a guest address; phys() maps nothing else.  The first
 * input byte picks the mode:
 *
 *   even: raw.  Bit 1: the rest goes at the EBDA, 0x9fc00, with a BDA
 *	whose word at 0x40e points there (ACPI 6.5 5.2.5.1); else at the
 *	BIOS area, 0xe0000.  Bits 2-7, times 16: how far the memory map's
 *	ACPI region runs past the bytes (a region phys() cannot map whole).
 *	The rest of the input is the memory.
 *   odd: patched.  The tables vmm/boot/acpi.c built at 0xe0000 for
 *	byte 1's vCPU count (NCPUS[byte 1 % 8]); byte 2 bit 0: re-checksum
 *	every table and the RSDP after patching (so the parser gets past
 *	the checksums), bit 1: parse from a heap copy of the RSDP (as the
 *	multiboot2 tags give it, 36 bytes) rather than from memory, bit 2:
 *	also look for the RSDP both ways and parse from there; byte 3
 *	cuts that many bytes off the end; then patches, each u16 offset
 *	(mod the length) and a byte n, then n % 16 + 1 bytes written there.
 *
 * A raw input (a patched one with byte 2 bit 2) runs acpi_find_rsdp(),
 * acpi_find_rsdp_mmap() over a map with the region, and acpi_parse()
 * from each RSDP found.  Invariants,
 * abort() on violation: a found RSDP lies inside memory with its 20
 * bytes (36 from revision 2 on) and has the signature; the result is 0 or
 * an ACPI_E* code acpi_strerror() knows; at most ACPI_MAX_CPUS CPUs, all
 * of distinct APIC IDs, at most ACPI_MAX_ISO overrides, NMI on LINT0,
 * LINT1 or none; the tables as built, untouched, parse to the machine
 * acpi_default_config() describes.
 *
 * Seeds: IRQLAB_FUZZ_SEEDS=DIR build/fuzz/fuzz_acpi writes the built
 * tables as raw-mode seeds (and a patch-mode seed of each count) into DIR
 * and exits; tests/fuzz/corpus/acpi/ was made so (docs/FUZZING.md).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernel/boot/acpi.h"
#include "../../kernel/boot/mbinfo.h"
#include "boot/acpi.h"
#include "fuzz_patch.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_acpi: %s:%d: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} \
} while (0)

#define NR_BUILT	8
#define EBDA		0x9fc00u
static const unsigned ncpus_of[NR_BUILT] = { 1, 2, 4, 8, 64, 65, 255, 300 };

struct built {
	uint8_t *bytes;
	size_t len;
	struct acpi_config cfg;
	struct acpi_result res;
};

static struct built built[NR_BUILT];

/* the memory phys() maps: up to two blocks */
static struct {
	const uint8_t *p;
	uint64_t base, len;
} blk[2];
static unsigned nr_blk;

static const void *phys(void *ctx, uint64_t addr, uint64_t len)
{
	unsigned i;

	(void)ctx;
	for (i = 0; i < nr_blk; i++)
		if (addr >= blk[i].base && addr - blk[i].base <= blk[i].len &&
		    len <= blk[i].len - (addr - blk[i].base))
			return blk[i].p + (addr - blk[i].base);
	return NULL;
}

static bool inside(const void *p, uint64_t len)
{
	const uint8_t *b = p;
	unsigned i;

	for (i = 0; i < nr_blk; i++)
		if (b >= blk[i].p && b <= blk[i].p + blk[i].len &&
		    len <= (uint64_t)(blk[i].p + blk[i].len - b))
			return true;
	return false;
}

static void build(struct built *b, unsigned ncpus)
{
	static uint8_t area[ACPI_AREA_LEN];

	acpi_default_config(&b->cfg, ncpus);
	CHECK(!acpi_build(area, ACPI_AREA_GPA, sizeof(area), &b->cfg,
			  &b->res));
	b->len = b->res.used;
	b->bytes = malloc(b->len);
	CHECK(b->bytes);
	memcpy(b->bytes, area, b->len);
}

/* IRQLAB_FUZZ_SEEDS=DIR: the built tables as raw seeds, and patch seeds */
static void write_seeds(const char *dir)
{
	uint8_t mode, patch[4];
	char name[64];
	unsigned i;

	for (i = 0; i < NR_BUILT; i++) {
		/* the raw ones at the BIOS area, the map's region 64 longer */
		mode = 4 << 2;
		snprintf(name, sizeof(name), "raw-%ucpus", ncpus_of[i]);
		fuzz_write_seed(dir, name, &mode, 1, built[i].bytes, built[i].len);
		patch[0] = 1;
		patch[1] = i;
		patch[2] = 1 | 4;	/* re-checksum, find the RSDP */
		patch[3] = 0;
		snprintf(name, sizeof(name), "patch-%ucpus", ncpus_of[i]);
		fuzz_write_seed(dir, name, patch, sizeof(patch), NULL, 0);
	}
	printf("fuzz_acpi: %u raw and %u patch seeds in %s\n", NR_BUILT,
	       NR_BUILT, dir);
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("IRQLAB_FUZZ_SEEDS");
	unsigned i;

	(void)argc;
	(void)argv;
	for (i = 0; i < NR_BUILT; i++)
		build(&built[i], ncpus_of[i]);
	if (dir)
		write_seeds(dir);
	return 0;
}

static void check_rsdp(const uint8_t *r)
{
	if (!r)
		return;
	CHECK(inside(r, ACPI_RSDP_V1_LEN));
	CHECK(!memcmp(r, ACPI_RSDP_SIG, 8));
	if (r[15] >= ACPI_RSDP_REV2)
		CHECK(inside(r, ACPI_RSDP_V2_LEN));
}

static void check_info(int ret, const struct acpi_info *ai)
{
	unsigned i, j;

	CHECK(ret <= 0 && ret >= ACPI_ETOOMANY);
	CHECK(strcmp(acpi_strerror(ret), "unknown error"));
	CHECK(ai->nr_cpus <= ACPI_MAX_CPUS);
	CHECK(ai->nr_iso <= ACPI_MAX_ISO);
	CHECK(ai->nmi_lint >= -1 && ai->nmi_lint <= 1);
	for (i = 0; i < ai->nr_cpus; i++)
		for (j = 0; j < i; j++)
			CHECK(ai->cpus[i].apic_id != ai->cpus[j].apic_id);
	CHECK(!ai->pm_tmr_32bit || ai->pm_tmr_port);
}

static int parse(const void *rsdp, struct acpi_info *ai)
{
	int ret = acpi_parse(rsdp, phys, NULL, ai);

	check_info(ret, ai);
	return ret;
}

/* Look for the RSDP both ways, parse from what is found. */
static void find_and_parse(uint64_t base, uint64_t map_len)
{
	struct mbinfo_mmap map[2] = {
		{ .addr = 0, .len = 0x9fc00, .type = MB_MEMORY_AVAILABLE },
		{ .addr = base, .len = map_len, .type = MB_MEMORY_ACPI },
	};
	struct acpi_info ai;
	const void *r;

	r = acpi_find_rsdp(phys, NULL);
	check_rsdp(r);
	if (r)
		parse(r, &ai);
	r = acpi_find_rsdp_mmap(phys, NULL, map, 2);
	check_rsdp(r);
	if (r)
		parse(r, &ai);
}

static int fuzz_raw(const uint8_t *data, size_t size)
{
	static uint8_t bda[0x100];
	bool ebda = data[0] & 2;
	uint8_t *copy = malloc(size - 1 ? size - 1 : 1);
	uint16_t seg = EBDA >> 4;

	CHECK(copy);
	memcpy(copy, data + 1, size - 1);
	nr_blk = 0;
	blk[nr_blk++] = (typeof(blk[0])){ copy, ebda ? EBDA : ACPI_AREA_GPA,
					 size - 1 };
	if (ebda) {
		memcpy(bda + (ACPI_BDA_EBDA_SEG - 0x400), &seg, 2);
		blk[nr_blk++] = (typeof(blk[0])){ bda, 0x400, sizeof(bda) };
	}
	find_and_parse(blk[0].base, size - 1 + (data[0] >> 2) * 16);
	free(copy);
	return 0;
}

static void fix(uint8_t *p, size_t len, uint64_t gpa)
{
	uint64_t off = gpa - ACPI_AREA_GPA;
	uint32_t tlen;
	uint8_t s = 0;
	uint32_t i;

	if (off + 10 > len)
		return;
	memcpy(&tlen, p + off + 4, 4);
	if (tlen < 10 || tlen > len - off)
		return;
	p[off + 9] = 0;
	for (i = 0; i < tlen; i++)
		s += p[off + i];
	p[off + 9] = -s;
}

static void fix_rsdp(uint8_t *p, size_t len)
{
	uint8_t s = 0;
	unsigned i;

	if (len < ACPI_RSDP_V2_LEN)
		return;
	p[8] = 0;
	for (i = 0; i < ACPI_RSDP_V1_LEN; i++)
		s += p[i];
	p[8] = -s;
	p[32] = 0;
	for (s = 0, i = 0; i < ACPI_RSDP_V2_LEN; i++)
		s += p[i];
	p[32] = -s;
}

/* The untouched tables: the machine of acpi_default_config() */
static void check_pristine(const struct built *b, int ret,
			   const struct acpi_info *ai)
{
	unsigned i, n = b->cfg.ncpus < ACPI_MAX_CPUS ? b->cfg.ncpus :
			ACPI_MAX_CPUS;

	CHECK(ret == 0);
	CHECK(ai->nr_cpus == n);
	for (i = 0; i < n; i++)
		CHECK(ai->cpus[i].apic_id == i && ai->cpus[i].uid == i);
	CHECK(ai->lapic_addr == b->cfg.lapic_addr);
	CHECK(ai->has_ioapic && ai->ioapic_addr == b->cfg.ioapic_addr);
	CHECK(ai->ioapic_id == b->cfg.ioapic_id && !ai->ioapic_gsi_base);
	CHECK(ai->pm_tmr_port == b->cfg.pm_tmr_port);
	CHECK(ai->nmi_lint == 1);
	CHECK(ai->madt_flags & ACPI_MADT_PCAT_COMPAT);
}

static int fuzz_patch(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data + 4, *end = data + size;
	const struct built *b;
	uint8_t *copy, rsdp[ACPI_RSDP_V2_LEN];
	struct acpi_info ai;
	bool touched;
	size_t len;
	int ret;

	if (size < 4)
		return 0;
	b = &built[data[1] % NR_BUILT];
	copy = fuzz_patched(b->bytes, b->len, data[3], ip, end, &len, &touched);
	CHECK(copy);
	if (data[2] & 1) {
		fix(copy, len, b->res.dsdt_gpa);
		fix(copy, len, b->res.madt_gpa);
		fix(copy, len, b->res.fadt_gpa);
		fix(copy, len, b->res.rsdt_gpa);
		fix(copy, len, b->res.xsdt_gpa);
		fix_rsdp(copy, len);
	}
	nr_blk = 1;
	blk[0] = (typeof(blk[0])){ copy, ACPI_AREA_GPA, len };
	/* acpi_parse() is given 36 bytes (its contract); the finders below
	 * look at shorter memory themselves */
	if (len >= sizeof(rsdp)) {
		/* bit 1: a multiboot2 tag's copy, outside guest memory */
		memcpy(rsdp, copy, sizeof(rsdp));
		ret = parse(data[2] & 2 ? rsdp : copy, &ai);
		if (!touched)
			check_pristine(b, ret, &ai);
	}
	/* the BIOS-area scan costs 8192 lookups: only when asked */
	if (data[2] & 4)
		find_and_parse(ACPI_AREA_GPA, len);
	free(copy);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	return data[0] & 1 ? fuzz_patch(data, size) : fuzz_raw(data, size);
}
