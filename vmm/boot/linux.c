// SPDX-License-Identifier: MIT
/*
 * The Linux/x86 boot protocol, 64-bit entry (Documentation/arch/x86/
 * boot.rst; "boot.rst" below): a bzImage's protected-mode kernel at its
 * preferred address, the zero page (struct boot_params, zero-page.rst)
 * with the setup header, an e820 map, the command line and the initrd,
 * and the state "64-bit BOOT PROTOCOL" asks for: identity-mapped page
 * tables over the kernel, zero page and command line, a GDT with
 * __BOOT_CS 0x10 and __BOOT_DS 0x18, RSI the zero page, entry at the
 * kernel's start + 0x200, interrupts off.
 *
 * Guest memory layout (linux.h):
 *
 *	0x1000	GDT			0x7000	zero page (RSP below it)
 *	0x9000	PML4, PDPT, 4 PDs	0x20000	command line
 *	pref_address (16 MiB for Debian's)	the kernel, init_size bytes
 *	top of low RAM, below initrd_addr_max	the initrd
 *
 * As in loader.c, everything is checked before the first byte is written.
 */
#include <stdio.h>
#include <string.h>

#include "linux.h"
#include "loader_internal.h"

/* What the setup header says, and where the pieces go. */
struct linux_img {
	uint16_t version;
	uint8_t loadflags;
	uint16_t xloadflags;
	size_t setup_len;	/* (setup_sects + 1) * 512: the real-mode part */
	size_t hdr_end;		/* 0x202 + the jump's offset byte */
	uint32_t initrd_addr_max, kernel_alignment, cmdline_size;
	uint64_t pref_address, init_size;
	bool relocatable;
	uint64_t kernel_len;	/* the protected-mode kernel's bytes in the file */
	uint64_t load;		/* where it goes */
	const char *cmdline;
	size_t cmdline_len;
	uint64_t initrd_addr;
};

static uint16_t get16(const uint8_t *p, size_t off)
{
	return p[off] | (uint16_t)p[off + 1] << 8;
}

static uint32_t get32(const uint8_t *p, size_t off)
{
	return get16(p, off) | (uint32_t)get16(p, off + 2) << 16;
}

static uint64_t get64(const uint8_t *p, size_t off)
{
	return get32(p, off) | (uint64_t)get32(p, off + 4) << 32;
}

static void put16(uint8_t *p, size_t off, uint16_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

bool linux_is_image(const uint8_t *img, size_t len)
{
	if (len >= LH_HEADER + 4 && get32(img, LH_HEADER) == LH_HEADER_MAGIC)
		return true;
	return len >= LH_BOOT_FLAG + 2 &&
	       get16(img, LH_BOOT_FLAG) == LH_BOOT_FLAG_MAGIC;
}

/* boot.rst "THE REAL-MODE KERNEL HEADER": the fields up to 2.12's. */
static int linux_parse(struct loader *ld, struct linux_img *k)
{
	const uint8_t *img = ld->p->image;
	size_t len = ld->p->image_len;
	unsigned sects;

	if (len < LH_HEADER + 4)
		return loader_fail(ld, "truncated file: Linux setup header past the end (%zu bytes)",
				   len);
	if (get32(img, LH_HEADER) != LH_HEADER_MAGIC)
		return loader_fail(ld, "Linux boot sector without the \"HdrS\" magic at 0x202 (boot protocol older than 2.00, or not a bzImage)");
	k->version = get16(img, LH_VERSION);
	if (k->version < LH_MIN_VERSION)
		return loader_fail(ld, "Linux boot protocol %u.%02u is too old: irqlab-vmm needs 2.12 or later",
				   k->version >> 8, k->version & 0xff);
	k->hdr_end = LH_JUMP + 2 + img[LH_JUMP + 1];
	if (len < LH_END_212 || k->hdr_end < LH_END_212)
		return loader_fail(ld, "truncated file: Linux setup header ends before the 2.12 fields (file %zu bytes, header to 0x%zx)",
				   len, k->hdr_end);
	sects = img[LH_SETUP_SECTS] ? img[LH_SETUP_SECTS] : 4;
	k->setup_len = (sects + 1) * 512u;
	if (k->setup_len >= len)
		return loader_fail(ld, "truncated file: no protected-mode kernel after the %zu bytes of setup",
				   k->setup_len);
	k->kernel_len = len - k->setup_len;
	k->loadflags = img[LH_LOADFLAGS];
	k->xloadflags = get16(img, LH_XLOADFLAGS);
	if (!(k->loadflags & LH_LOADED_HIGH))
		return loader_fail(ld, "a zImage (loaded below 1 MiB, LOADED_HIGH clear) is not supported");
	if (!(k->xloadflags & LH_XLF_KERNEL_64))
		return loader_fail(ld, "no 64-bit entry point: xloadflags 0x%x lacks XLF_KERNEL_64 (a 32-bit kernel)",
				   k->xloadflags);
	k->initrd_addr_max = get32(img, LH_INITRD_ADDR_MAX);
	k->kernel_alignment = get32(img, LH_KERNEL_ALIGNMENT);
	k->relocatable = img[LH_RELOCATABLE] != 0;
	k->cmdline_size = get32(img, LH_CMDLINE_SIZE);
	k->pref_address = get64(img, LH_PREF_ADDRESS);
	k->init_size = get32(img, LH_INIT_SIZE);
	if (k->init_size < k->kernel_len)	/* it needs at least its bytes */
		k->init_size = k->kernel_len;
	if (k->relocatable && (k->kernel_alignment < LOADER_PAGE_SIZE ||
			       (k->kernel_alignment & (k->kernel_alignment - 1))))
		return loader_fail(ld, "bad kernel_alignment 0x%x (want a power of two, at least 4 KiB)",
				   k->kernel_alignment);
	return 0;
}

/* boot.rst, pref_address: load there; a relocatable kernel may go to
 * any kernel_alignment boundary instead: the lowest from 1 MiB. */
static int linux_place_kernel(struct loader *ld, struct linux_img *k)
{
	const struct guest_mem *m = ld->mem;
	uint64_t a = k->pref_address;

	if (a >= LINUX_KERNEL_MIN && mem_ptr(m, a, k->init_size)) {
		k->load = a;
		return 0;
	}
	if (k->relocatable) {
		a = loader_align_up(LINUX_KERNEL_MIN, k->kernel_alignment);
		if (mem_ptr(m, a, k->init_size)) {
			k->load = a;
			return 0;
		}
	}
	return loader_fail(ld, "Linux kernel too large for guest RAM: init_size 0x%llx bytes at 0x%llx%s, RAM below 0x%llx",
			   (unsigned long long)k->init_size,
			   (unsigned long long)a,
			   k->relocatable ? " (relocatable)" : "",
			   (unsigned long long)m->low_size);
}

/* boot.rst, ramdisk_image: as high as it fits below initrd_addr_max,
 * above the kernel's init_size, page aligned. */
static int linux_place_initrd(struct loader *ld, struct linux_img *k)
{
	uint64_t len = ld->p->initrd_len, top = ld->mem->low_size, lo;

	if (!ld->p->initrd)
		return 0;
	if ((uint64_t)k->initrd_addr_max + 1 < top)
		top = (uint64_t)k->initrd_addr_max + 1;
	lo = loader_align_up(k->load + k->init_size, LOADER_PAGE_SIZE);
	if (len > top || loader_align_down(top - len, LOADER_PAGE_SIZE) < lo)
		return loader_fail(ld, "initrd of %llu bytes does not fit in guest RAM between the kernel's end 0x%llx and 0x%llx (initrd_addr_max 0x%x)",
				   (unsigned long long)len,
				   (unsigned long long)lo,
				   (unsigned long long)top, k->initrd_addr_max);
	k->initrd_addr = loader_align_down(top - len, LOADER_PAGE_SIZE);
	return 0;
}

static int linux_check_params(struct loader *ld, struct linux_img *k)
{
	k->cmdline = ld->p->append ? ld->p->append : "";
	k->cmdline_len = strlen(k->cmdline);
	/* boot.rst, cmdline_size: "the maximum size of the command line
	 * without the terminating zero" */
	if (k->cmdline_len > k->cmdline_size ||
	    k->cmdline_len >= LINUX_CMDLINE_MAX)
		return loader_fail(ld, "command line of %zu bytes is longer than the kernel's cmdline_size %u",
				   k->cmdline_len, k->cmdline_size);
	if (!mem_ptr(ld->mem, LINUX_GDT_GPA,
		     LINUX_CMDLINE_GPA + LINUX_CMDLINE_MAX - LINUX_GDT_GPA))
		return loader_fail(ld, "not enough guest memory for the zero page and command line");
	if (ld->p->nr_mods)
		return loader_fail(ld, "--module is for multiboot kernels: give a Linux kernel its initrd with --initrd");
	return 0;
}

/* zero-page.rst: e820_table and e820_entries, from the loader's map */
static void linux_e820(const struct guest_mem *mem, uint8_t *zp)
{
	struct mem_range r[LOADER_MMAP_MAX];
	unsigned i, n = loader_mmap_ranges(mem, r);
	uint8_t *e;

	for (i = 0; i < n; i++) {
		e = zp + ZP_E820_TABLE + i * E820_ENTRY_SIZE;
		put64(e, 0, r[i].addr);
		put64(e, 8, r[i].len);
		put32(e, 16, r[i].type);	/* MB_MEMORY_* are e820's types */
	}
	zp[ZP_E820_ENTRIES] = n;
}

/*
 * boot.rst, "64-bit BOOT PROTOCOL": the setup header is copied from the
 * image (0x1f1 up to 0x202 + the jump's byte), then the fields a boot
 * loader writes ("Details of header fields": write/modify/obligatory).
 */
static void linux_zero_page(struct loader *ld, const struct linux_img *k,
			    uint8_t *zp)
{
	size_t end = k->hdr_end < ZP_HDR_END ? k->hdr_end : ZP_HDR_END;

	memset(zp, 0, ZP_SIZE);
	memcpy(zp + LH_SETUP_SECTS, ld->p->image + LH_SETUP_SECTS,
	       end - LH_SETUP_SECTS);
	zp[LH_TYPE_OF_LOADER] = LH_TYPE_UNDEFINED;
	/* the heap matters to the real-mode setup only, which we skip */
	zp[LH_LOADFLAGS] = k->loadflags | LH_CAN_USE_HEAP;
	put16(zp, LH_HEAP_END_PTR, 0xde00);
	put32(zp, LH_CODE32_START, k->load);
	put32(zp, LH_CMD_LINE_PTR, LINUX_CMDLINE_GPA);
	put32(zp, LH_RAMDISK_IMAGE, k->initrd_addr);
	put32(zp, LH_RAMDISK_SIZE, ld->p->initrd ? ld->p->initrd_len : 0);
	put32(zp, LH_HARDWARE_SUBARCH, 0);	/* the default: a PC */
	put64(zp, LH_SETUP_DATA, 0);
	if (k->version >= 0x020e)		/* 2.14: acpi_rsdp_addr */
		put64(zp, ZP_ACPI_RSDP_ADDR, ld->p->rsdp_gpa);
	linux_e820(ld->mem, zp);
}

/* An identity map of the low 4 GiB with 2 MiB pages (SDM 4.5): it covers
 * the kernel, zero page and command line, all in low RAM. */
static void linux_page_tables(const struct guest_mem *mem)
{
	uint64_t *pml4 = mem_ptr(mem, LINUX_PML4_GPA, LOADER_PAGE_SIZE);
	uint64_t *pdpt = mem_ptr(mem, LINUX_PDPT_GPA, LOADER_PAGE_SIZE);
	uint64_t *pd = mem_ptr(mem, LINUX_PD_GPA, 4 * LOADER_PAGE_SIZE);
	unsigned i;

	memset(pml4, 0, LOADER_PAGE_SIZE);
	memset(pdpt, 0, LOADER_PAGE_SIZE);
	pml4[0] = LINUX_PDPT_GPA | 0x3;			/* P, R/W */
	for (i = 0; i < 4; i++)
		pdpt[i] = (LINUX_PD_GPA + i * LOADER_PAGE_SIZE) | 0x3;
	for (i = 0; i < 4 * 512; i++)
		pd[i] = ((uint64_t)i << 21) | 0x83;	/* P, R/W, PS */
}

static void linux_commit(struct loader *ld, const struct linux_img *k)
{
	static const uint64_t gdt[4] = { 0, 0, LINUX_GDT_CODE64, LINUX_GDT_DATA };
	const struct boot_params *p = ld->p;
	const struct guest_mem *m = ld->mem;

	memcpy(mem_ptr(m, LINUX_GDT_GPA, sizeof(gdt)), gdt, sizeof(gdt));
	linux_zero_page(ld, k, mem_ptr(m, LINUX_ZP_GPA, ZP_SIZE));
	linux_page_tables(m);
	memcpy(mem_ptr(m, LINUX_CMDLINE_GPA, k->cmdline_len + 1), k->cmdline,
	       k->cmdline_len + 1);
	memcpy(mem_ptr(m, k->load, k->kernel_len), p->image + k->setup_len,
	       k->kernel_len);
	if (p->initrd && p->initrd_len)
		memcpy(mem_ptr(m, k->initrd_addr, p->initrd_len), p->initrd,
		       p->initrd_len);
}

int linux_load(struct loader *ld, struct boot_entry *out)
{
	struct linux_img k;

	memset(&k, 0, sizeof(k));
	if (linux_parse(ld, &k) || linux_check_params(ld, &k) ||
	    linux_place_kernel(ld, &k) || linux_place_initrd(ld, &k))
		return -1;
	linux_commit(ld, &k);
	*out = (struct boot_entry){
		.protocol = LOADER_PROTO_LINUX,
		.mode = BOOT_MODE_LONG64,
		.eip = k.load + LINUX_ENTRY64_OFF,
		.gdt_addr = LINUX_GDT_GPA,
		.gdt_limit = 4 * 8 - 1,
		.cs = LINUX_BOOT_CS,
		.ds = LINUX_BOOT_DS,
		.rsi = LINUX_ZP_GPA,
		.rsp = LINUX_STACK_GPA,
		.cr3 = LINUX_PML4_GPA,
		.load_start = k.load,
		.load_end = k.load + k.init_size,
		.info_start = LINUX_GDT_GPA,
		.info_end = LINUX_CMDLINE_GPA + k.cmdline_len + 1,
	};
	return 0;
}
