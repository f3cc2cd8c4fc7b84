// SPDX-License-Identifier: MIT
/*
 * The boot information the kernel finds through EBX: Multiboot 0.6.96
 * section 3.3 or Multiboot2 2.0 section 3.6, plus the flat GDT that the
 * entry segment selectors refer to.  It is assembled in a host buffer as if
 * it sat at its guest address, then loader.c copies it in one piece.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/multiboot.h"
#include "loader_internal.h"

/* ACPI 6.5 5.2.5.3: an ACPI 1.0 RSDP is 20 bytes, a 2.0+ one at least 36. */
#define RSDP_V1_LEN	20
#define RSDP_V2_LEN	36

/* ---- the boot information buffer ---- */

/* Room for @size bytes at the next multiple of @align; returns its offset. */
static size_t ib_reserve(struct info_buf *b, size_t size, size_t align)
{
	size_t off = loader_align_up(b->len, align), cap;
	uint8_t *nb;

	if (b->nomem || size > SIZE_MAX / 4 - off) {
		b->nomem = true;
		return 0;
	}
	if (off + size > b->cap) {
		for (cap = b->cap ? b->cap : 4096; cap < off + size; cap *= 2)
			;
		nb = realloc(b->buf, cap);
		if (!nb) {
			b->nomem = true;
			return 0;
		}
		memset(nb + b->cap, 0, cap - b->cap);	/* padding is zero */
		b->buf = nb;
		b->cap = cap;
	}
	b->len = off + size;
	return off;
}

static void ib_write(struct info_buf *b, size_t off, const void *data, size_t len)
{
	if (!b->nomem && len)
		memcpy(b->buf + off, data, len);
}

static size_t ib_put(struct info_buf *b, const void *data, size_t len,
		     size_t align)
{
	size_t off = ib_reserve(b, len, align);

	ib_write(b, off, data, len);
	return off;
}

/* Guest-physical address of @off; the caller checks that it is below 4 GiB. */
static uint32_t ib_addr(const struct info_buf *b, size_t off)
{
	return (uint32_t)(b->base + off);
}

static uint32_t ib_str(struct info_buf *b, const char *s)
{
	return ib_addr(b, ib_put(b, s, strlen(s) + 1, 1));
}

/* QEMU's convention: argv[0] is the kernel's path, then the -append text. */
static uint32_t ib_cmdline(struct loader *ld)
{
	const char *path = ld->p->image_path ? ld->p->image_path : "";
	const char *append = ld->p->append;
	size_t off = ib_put(&ld->info, path, strlen(path), 1);

	if (append && *append) {
		ib_put(&ld->info, " ", 1, 1);
		ib_put(&ld->info, append, strlen(append), 1);
	}
	ib_put(&ld->info, "", 1, 1);
	return ib_addr(&ld->info, off);
}

static const char *mod_string(const struct boot_module *m)
{
	return m->string ? m->string : "";
}

/* ---- memory map ---- */

/*
 * The guest's memory map: low RAM with the BIOS area [0x9fc00, 0x100000)
 * cut out (its EBDA and ROM parts reserved, the VGA/option ROM window
 * 0xa0000-0xe0000 a hole), then the RAM above 4 GiB.  Fills at most
 * LOADER_MMAP_MAX.  The Linux loader gives the same map as e820.
 */
unsigned loader_mmap_ranges(const struct guest_mem *mem, struct mem_range *r)
{
	uint64_t low = mem->low_size;
	unsigned n = 0;

	r[n++] = (struct mem_range){ 0, low < LOADER_RESERVED_START ?
				     low : LOADER_RESERVED_START,
				     MB_MEMORY_AVAILABLE };
	r[n++] = (struct mem_range){ LOADER_RESERVED_START,
				     0xa0000 - LOADER_RESERVED_START,
				     MB_MEMORY_RESERVED };
	r[n++] = (struct mem_range){ 0xe0000, LOADER_RESERVED_END - 0xe0000,
				     MB_MEMORY_RESERVED };
	if (low > LOADER_RESERVED_END)
		r[n++] = (struct mem_range){ LOADER_RESERVED_END,
					     low - LOADER_RESERVED_END,
					     MB_MEMORY_AVAILABLE };
	if (mem_high_size(mem))
		r[n++] = (struct mem_range){ MEM_HIGH_START, mem_high_size(mem),
					     MB_MEMORY_AVAILABLE };
	return n;
}

/* Multiboot 3.3: KiB of lower memory (from 0, at most 640). */
static uint32_t mem_lower_kb(const struct guest_mem *mem)
{
	uint64_t low = mem->low_size;

	return (low < LOADER_RESERVED_START ? low : LOADER_RESERVED_START) >> 10;
}

/* Multiboot 3.3: KiB of upper memory: from 1 MiB to the first hole. */
static uint32_t mem_upper_kb(const struct guest_mem *mem)
{
	if (mem->low_size <= LOADER_RESERVED_END)
		return 0;
	return (mem->low_size - LOADER_RESERVED_END) >> 10;
}

/* ---- Multiboot 1 boot information ---- */

/* Multiboot 3.3: mmap_addr points at entries, each preceded by its size. */
static uint32_t mb1_mmap(struct loader *ld, uint32_t *length)
{
	struct mem_range r[LOADER_MMAP_MAX];
	struct mb1_mmap_entry e;
	unsigned i, n = loader_mmap_ranges(ld->mem, r);
	size_t off = ib_reserve(&ld->info, 0, 8);

	for (i = 0; i < n; i++) {
		e.size = sizeof(e) - sizeof(e.size);
		e.addr = r[i].addr;
		e.len = r[i].len;
		e.type = r[i].type;
		ib_put(&ld->info, &e, sizeof(e), 1);
	}
	*length = ld->info.len - off;
	return ib_addr(&ld->info, off);
}

/* Multiboot 3.3: mods_addr points at an array of struct mb1_module. */
static uint32_t mb1_mods(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	size_t i, off = ib_reserve(&ld->info, sizeof(struct mb1_module) * p->nr_mods, 8);
	struct mb1_module m = { 0 };

	for (i = 0; i < p->nr_mods; i++) {
		m.mod_start = ld->mod_addr[i];
		m.mod_end = ld->mod_addr[i] + p->mods[i].len;
		m.string = ib_str(&ld->info, mod_string(&p->mods[i]));
		ib_write(&ld->info, off + i * sizeof(m), &m, sizeof(m));
	}
	return ib_addr(&ld->info, off);
}

/* Multiboot 3.3: the info structure, then what its fields point at. */
static uint32_t mb1_build(struct loader *ld)
{
	struct mb1_info mi = { 0 };
	uint32_t mmap_length;
	size_t off = ib_reserve(&ld->info, sizeof(mi), 8);

	mi.flags = MB1_INFO_MEMORY | MB1_INFO_CMDLINE | MB1_INFO_MODS |
		   MB1_INFO_MEM_MAP | MB1_INFO_LOADER_NAME;
	mi.mem_lower = mem_lower_kb(ld->mem);
	mi.mem_upper = mem_upper_kb(ld->mem);
	mi.cmdline = ib_cmdline(ld);
	mi.boot_loader_name = ib_str(&ld->info, LOADER_NAME);
	mi.mmap_addr = mb1_mmap(ld, &mmap_length);
	mi.mmap_length = mmap_length;
	mi.mods_count = ld->p->nr_mods;
	mi.mods_addr = mb1_mods(ld);
	ib_write(&ld->info, off, &mi, sizeof(mi));
	return ib_addr(&ld->info, off);
}

/* ---- Multiboot 2 boot information ---- */

/* Multiboot2 3.6.2: a tag starts 8-byte aligned with its type and size. */
static size_t tag_begin(struct info_buf *b)
{
	return ib_reserve(b, sizeof(struct mb2_tag), 8);
}

/* The size excludes the padding to the next tag. */
static void tag_end(struct info_buf *b, size_t off, uint32_t type)
{
	struct mb2_tag t = { type, b->len - off };

	ib_write(b, off, &t, sizeof(t));
}

static void mb2_string_tag(struct info_buf *b, uint32_t type, const char *s)
{
	size_t off = tag_begin(b);

	ib_str(b, s);
	tag_end(b, off, type);
}

/* Multiboot2 3.6.5: the command line, the same text as Multiboot 1's. */
static void mb2_cmdline_tag(struct loader *ld)
{
	size_t off = tag_begin(&ld->info);

	ib_cmdline(ld);
	tag_end(&ld->info, off, MB2_TAG_CMDLINE);
}

/* Multiboot2 3.6.6: one tag per module. */
static void mb2_module_tags(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	uint32_t range[2];
	size_t i, off;

	for (i = 0; i < p->nr_mods; i++) {
		off = tag_begin(&ld->info);
		range[0] = ld->mod_addr[i];
		range[1] = ld->mod_addr[i] + p->mods[i].len;
		ib_put(&ld->info, range, sizeof(range), 1);
		ib_str(&ld->info, mod_string(&p->mods[i]));
		tag_end(&ld->info, off, MB2_TAG_MODULE);
	}
}

/* Multiboot2 3.6.3 (basic memory information) and 3.6.8 (memory map). */
static void mb2_mem_tags(struct loader *ld)
{
	struct mb2_tag_basic_meminfo bm = {
		MB2_TAG_BASIC_MEMINFO, sizeof(bm),
		mem_lower_kb(ld->mem), mem_upper_kb(ld->mem)
	};
	struct mem_range r[LOADER_MMAP_MAX];
	struct mb2_mmap_entry e = { 0 };
	uint32_t hdr[2] = { sizeof(e), 0 };	/* entry_size, entry_version */
	unsigned i, n = loader_mmap_ranges(ld->mem, r);
	size_t off;

	ib_put(&ld->info, &bm, sizeof(bm), 8);
	off = tag_begin(&ld->info);
	ib_put(&ld->info, hdr, sizeof(hdr), 1);
	for (i = 0; i < n; i++) {
		e.addr = r[i].addr;
		e.len = r[i].len;
		e.type = r[i].type;
		ib_put(&ld->info, &e, sizeof(e), 1);
	}
	tag_end(&ld->info, off, MB2_TAG_MMAP);
}

/* Multiboot2 3.6.16/3.6.17: copies of the RSDPs, when the VMM has them. */
static void mb2_acpi_tag(struct info_buf *b, uint32_t type, const void *rsdp,
			 size_t len)
{
	size_t off;

	if (!rsdp)
		return;
	off = tag_begin(b);
	ib_put(b, rsdp, len, 1);
	tag_end(b, off, type);
}

/* Multiboot2 3.6.1: total_size, reserved, the tags, an end tag. */
static uint32_t mb2_build(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	struct info_buf *b = &ld->info;
	size_t start = ib_reserve(b, sizeof(struct mb2_info_header), 8);
	struct mb2_info_header ih = { 0 };

	mb2_cmdline_tag(ld);
	mb2_string_tag(b, MB2_TAG_LOADER_NAME, LOADER_NAME);
	mb2_module_tags(ld);
	mb2_mem_tags(ld);
	mb2_acpi_tag(b, MB2_TAG_ACPI_OLD, p->rsdp_old, RSDP_V1_LEN);
	mb2_acpi_tag(b, MB2_TAG_ACPI_NEW, p->rsdp_new, p->rsdp_new_len);
	tag_end(b, tag_begin(b), MB2_TAG_END);
	ih.total_size = b->len - start;
	ib_write(b, start, &ih, sizeof(ih));
	return ib_addr(b, start);
}

/* ---- both ---- */

void mb_free_info(struct loader *ld)
{
	free(ld->info.buf);
	memset(&ld->info, 0, sizeof(ld->info));
}

int mb_build_info(struct loader *ld, uint64_t base)
{
	static const uint64_t gdt[LOADER_GDT_ENTRIES] = {
		0, LOADER_GDT_CODE, LOADER_GDT_DATA
	};
	const struct boot_params *p = ld->p;

	if (p->rsdp_new && p->rsdp_new_len < RSDP_V2_LEN)
		return loader_fail(ld, "ACPI 2.0 RSDP of %zu bytes, want at least %u",
				   p->rsdp_new_len, RSDP_V2_LEN);
	mb_free_info(ld);
	ld->info.base = base;
	ld->gdt_addr = ib_addr(&ld->info, ib_put(&ld->info, gdt, sizeof(gdt), 8));
	if (ld->hdr.protocol == 1)
		ld->mbi_addr = mb1_build(ld);
	else
		ld->mbi_addr = mb2_build(ld);
	if (ld->info.nomem)
		return loader_fail(ld, "out of host memory for the boot information");
	return 0;
}
