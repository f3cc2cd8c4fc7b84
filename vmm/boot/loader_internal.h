/* SPDX-License-Identifier: MIT */
/*
 * Inside the multiboot loader.  multiboot.c finds and checks the
 * image's multiboot header, bootinfo.c builds the boot information,
 * loader.c loads the kernel's segments (ELF or a.out kludge), lays out
 * guest memory and drives the whole.  This is what they tell each other.
 */
#ifndef VMM_LOADER_INTERNAL_H
#define VMM_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loader.h"

#define LOADER_PAGE_SIZE	0x1000ull
#define LOADER_MAX_SEGS		32	/* PT_LOAD segments we accept */
#define LOADER_GDT_ENTRIES	3	/* null, code, data */

/* What the image's multiboot header asks of us (filled by mb_parse_header). */
struct mb_header {
	int protocol;		/* 1 or 2 */
	size_t offset;		/* of the header in the file */
	/* Multiboot 3.1.3 a.out kludge / Multiboot2 3.1.5 address tag */
	bool has_addr;
	uint32_t header_addr;
	uint32_t load_addr;
	uint32_t load_end_addr;
	uint32_t bss_end_addr;
	/* the kludge's entry_addr / Multiboot2 3.1.6 entry address tag */
	bool has_entry;
	uint32_t entry_addr;
};

/* One guest-physical range of the kernel: filesz bytes of file, then zeros. */
struct load_seg {
	uint64_t paddr;
	uint64_t vaddr;		/* ELF p_vaddr; paddr for the kludge */
	uint64_t memsz;
	uint64_t offset;	/* in the file */
	uint64_t filesz;
};

/*
 * The boot information area, assembled in host memory as if it sat at
 * guest-physical @base, then copied into the guest in one piece.
 */
struct info_buf {
	uint8_t *buf;
	size_t len;
	size_t cap;
	uint64_t base;
	bool nomem;		/* an allocation failed; the contents are junk */
};

/* One load in progress. */
struct loader {
	const struct guest_mem *mem;
	const struct boot_params *p;
	char *err;
	size_t errlen;

	struct mb_header hdr;
	struct load_seg seg[LOADER_MAX_SEGS];
	unsigned nr_segs;
	uint64_t load_start;	/* [start, end): all segments */
	uint64_t load_end;
	uint64_t entry;		/* physical */

	uint64_t *mod_addr;	/* guest-physical address of each module */
	uint64_t initrd_addr;	/* PVH: where the initrd (module 0) goes */
	struct info_buf info;
	uint32_t gdt_addr;
	uint32_t mbi_addr;	/* what EBX points to */
};

/* One range of the guest's memory map (type: MB_MEMORY_*, as e820's). */
struct mem_range {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
};

#define LOADER_MMAP_MAX	5

/* bootinfo.c: the guest's memory map, in @r; returns how many ranges. */
unsigned loader_mmap_ranges(const struct guest_mem *mem, struct mem_range *r);

static inline uint64_t loader_align_down(uint64_t v, uint64_t align)
{
	return v & ~(align - 1);
}

static inline uint64_t loader_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* Put a one-line reason into ld->err; returns -1 for "return loader_fail()". */
int loader_fail(struct loader *ld, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* multiboot.c: choose the protocol, parse its header into ld->hdr; 0 or -1. */
int mb_parse_header(struct loader *ld);

/*
 * bootinfo.c: build the GDT and the boot information into ld->info as if placed at
 * @base (page aligned), given ld->mod_addr; sets gdt_addr and mbi_addr.
 * The length does not depend on @base.  0 or -1.
 */
int mb_build_info(struct loader *ld, uint64_t base);
void mb_free_info(struct loader *ld);

/* pvh.c: the PVH entry (XEN_ELFNOTE_PHYS32_ENTRY) of an ELF64 image */
bool pvh_find_entry(const uint8_t *img, size_t len, uint64_t *entry);
/* pvh.c: GDT + struct hvm_start_info at @base, as mb_build_info; 0 or -1 */
int pvh_build_info(struct loader *ld, uint64_t base);

/* linux.c: load a bzImage (boot.rst, 64-bit entry) and fill @out; 0 or -1. */
int linux_load(struct loader *ld, struct boot_entry *out);

#endif
