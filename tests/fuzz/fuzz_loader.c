// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the multiboot loader (vmm/boot/) fed a kernel file.
 *
 * Input: the bytes of the image file, exactly what irqlab-vmm would read
 * from disk.  The load's other parameters come from the input's length
 * (so any input is one deterministic load):
 *
 *	len % 3		the protocol asked for: 0 auto, 1 Multiboot, 2 Multiboot2
 *	len / 3 % 2	guest RAM: 0: 8 MiB, 1: 2 MiB (irqlab.elf needs > 4 MiB)
 *
 * Always with a command line, one 5000-byte module and both RSDP copies.
 * Guest RAM is a heap buffer of exactly its size, so ASan catches a write
 * past it; the image is libFuzzer's own exact-size copy, so a read past
 * the file is caught too.  Checked, abort() on violation:
 *  - failure: a one-line reason (no newline), non-empty, and guest RAM
 *    as it was (a canary in the first 8 bytes of every page stays);
 *  - success: the entry state Multiboot 3.2 / Multiboot2 3.3 say (magic in
 *    EAX, EIP in the loaded image), the kernel, the module and the boot
 *    information in RAM, apart and out of the BIOS area, the GDT the
 *    loader promises, and the boot information walkable: its module entry
 *    points at the module's bytes and the command line is NUL-terminated
 *    inside it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/loader.h"
#include "hw/multiboot.h"

#define RAM_BIG		(8u << 20)
#define RAM_SMALL	(2u << 20)
#define MOD_LEN		5000
#define PAGE		4096
#define CANARY		0x5a17c0de5a17c0deull

static uint8_t *ram_big, *ram_small;
static uint8_t mod_data[MOD_LEN];
static const uint8_t rsdp_old[20] = "RSD PTR fuzz-old....";
static const uint8_t rsdp_new[36] = "RSD PTR fuzz-new....................";

#define check(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_loader: invariant failed: %s (line %d)\n", \
			#cond, __LINE__); \
		abort(); \
	} \
} while (0)

/* The first 8 bytes of every page: a failed load must leave them. */
static void canaries_set(uint8_t *ram, size_t size)
{
	const uint64_t c = CANARY;
	size_t a;

	for (a = 0; a < size; a += PAGE)
		memcpy(ram + a, &c, sizeof(c));
}

static int canaries_intact(const uint8_t *ram, size_t size)
{
	uint64_t c;
	size_t a;

	for (a = 0; a < size; a += PAGE) {
		memcpy(&c, ram + a, sizeof(c));
		if (c != CANARY)
			return 0;
	}
	return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned i;

	(void)argc, (void)argv;
	ram_big = malloc(RAM_BIG);
	ram_small = malloc(RAM_SMALL);
	if (!ram_big || !ram_small)
		abort();
	for (i = 0; i < MOD_LEN; i++)
		mod_data[i] = (uint8_t)(i * 7 + 1);
	canaries_set(ram_big, RAM_BIG);
	canaries_set(ram_small, RAM_SMALL);
	return 0;
}

/* [a, a + n) inside [lo, hi) */
static int inside(uint64_t a, uint64_t n, uint64_t lo, uint64_t hi)
{
	return a >= lo && a <= hi && n <= hi - a;
}

static int apart(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a1 <= b0 || b1 <= a0;
}

static int out_of_bios(uint64_t s, uint64_t e)
{
	return apart(s, e, LOADER_RESERVED_START, LOADER_RESERVED_END);
}

/* The module's bytes at [start, end), apart from the kernel and the info. */
static void check_module(const struct guest_mem *m, const struct boot_entry *e,
			 uint32_t start, uint32_t end)
{
	check(start < end && end - start == MOD_LEN);
	check(inside(start, MOD_LEN, 0, m->low_size));
	check(out_of_bios(start, end));
	check(apart(start, end, e->load_start, e->load_end));
	check(apart(start, end, e->info_start, e->info_end));
	check(memcmp(m->host + start, mod_data, MOD_LEN) == 0);
}

/* A NUL-terminated string at @a inside the boot information. */
static void check_string(const struct guest_mem *m, const struct boot_entry *e,
			 uint64_t a)
{
	check(inside(a, 1, e->info_start, e->info_end));
	check(memchr(m->host + a, 0, e->info_end - a) != NULL);
}

static void check_mb1(const struct guest_mem *m, const struct boot_entry *e)
{
	struct mb1_info mi;
	struct mb1_module mod;

	check(inside(e->ebx, sizeof(mi), e->info_start, e->info_end));
	memcpy(&mi, m->host + e->ebx, sizeof(mi));
	check(mi.flags & MB1_INFO_MODS);
	check(mi.mods_count == 1);
	check(inside(mi.mods_addr, sizeof(mod), e->info_start, e->info_end));
	memcpy(&mod, m->host + mi.mods_addr, sizeof(mod));
	check_module(m, e, mod.mod_start, mod.mod_end);
	check_string(m, e, mod.string);
	check(mi.flags & MB1_INFO_CMDLINE);
	check_string(m, e, mi.cmdline);
}

static void check_mb2(const struct guest_mem *m, const struct boot_entry *e)
{
	struct mb2_info_header h;
	struct mb2_tag_module mod;
	struct mb2_tag t;
	uint64_t a, end;
	int mods = 0, ended = 0;

	check(e->ebx % 8 == 0);
	check(inside(e->ebx, sizeof(h), e->info_start, e->info_end));
	memcpy(&h, m->host + e->ebx, sizeof(h));
	check(h.total_size >= sizeof(h) + sizeof(t));
	check(inside(e->ebx, h.total_size, e->info_start, e->info_end));
	end = e->ebx + h.total_size;
	/* Multiboot2 3.6: tags 8-byte aligned, the list ends with type 0 */
	for (a = e->ebx + sizeof(h); !ended; a += (t.size + 7) & ~7u) {
		check(inside(a, sizeof(t), e->ebx, end));
		memcpy(&t, m->host + a, sizeof(t));
		check(t.size >= sizeof(t) && inside(a, t.size, e->ebx, end));
		if (t.type == MB2_TAG_END)
			ended = 1;
		if (t.type != MB2_TAG_MODULE)
			continue;
		check(t.size > sizeof(mod));
		memcpy(&mod, m->host + a, sizeof(mod));
		check_module(m, e, mod.mod_start, mod.mod_end);
		check(m->host[a + t.size - 1] == 0);
		mods++;
	}
	check(mods == 1);
}

static void check_success(const struct guest_mem *m, const struct boot_entry *e)
{
	uint64_t gdt[3];

	check(e->protocol == 1 || e->protocol == 2);
	check(e->eax == (e->protocol == 1 ? MB1_BOOT_MAGIC : MB2_BOOT_MAGIC));
	check(e->load_start < e->load_end && e->load_end <= m->low_size);
	check(e->eip >= e->load_start && e->eip < e->load_end);
	check(e->info_start < e->info_end && e->info_end <= m->low_size);
	check(e->info_start % 0x1000 == 0);
	check(out_of_bios(e->info_start, e->info_end));
	check(apart(e->load_start, e->load_end, e->info_start, e->info_end));
	check(e->gdt_limit == sizeof(gdt) - 1);
	check(inside(e->gdt_addr, sizeof(gdt), e->info_start, e->info_end));
	memcpy(gdt, m->host + e->gdt_addr, sizeof(gdt));
	check(gdt[0] == 0 && gdt[LOADER_GDT_CS / 8] == LOADER_GDT_CODE &&
	      gdt[LOADER_GDT_DS / 8] == LOADER_GDT_DATA);
	if (e->protocol == 1)
		check_mb1(m, e);
	else
		check_mb2(m, e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct boot_module mod = { mod_data, MOD_LEN, "fuzz-module arg=1" };
	struct boot_params p = {
		.image = data, .image_len = len,
		.image_path = "/fuzz/irqlab.elf", .append = "console=ttyS0 check=ipi",
		.mods = &mod, .nr_mods = 1, .protocol = len % 3,
		.rsdp_old = rsdp_old, .rsdp_new = rsdp_new,
		.rsdp_new_len = sizeof(rsdp_new),
	};
	struct guest_mem m;
	struct boot_entry e;
	char err[256];
	int rc;

	m.size = m.low_size = len / 3 % 2 ? RAM_SMALL : RAM_BIG;
	m.host = len / 3 % 2 ? ram_small : ram_big;
	memset(err, 'x', sizeof(err));
	rc = loader_load(&m, &p, &e, err, sizeof(err));
	check(rc == 0 || rc == -1);
	check(memchr(err, 0, sizeof(err)) != NULL);
	if (rc) {
		check(err[0] != '\0' && !strchr(err, '\n'));
		/* loader.c: all is checked before the first byte is written */
		check(canaries_intact(m.host, m.size));
		return 0;
	}
	check(err[0] == '\0');
	check_success(&m, &e);
	canaries_set(m.host, m.size);
	return 0;
}
