// SPDX-License-Identifier: MIT
/*
 * The loader proper: the kernel's segments, from ELF program headers (ELF
 * gABI, "Program Header") or from the multiboot a.out kludge (Multiboot
 * 3.1.3, Multiboot2 3.1.5), their validation, and the guest memory layout:
 *
 *	kernel segments		where the image says (never in the BIOS area)
 *	modules			page aligned, after the kernel's highest byte
 *	GDT + boot info		page aligned, after the modules
 *
 * Everything is checked before the first byte is written, so a load that
 * fails leaves guest memory as it was.  multiboot.c parses the
 * multiboot header, bootinfo.c builds the boot information.
 */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/multiboot.h"
#include "linux.h"
#include "loader_internal.h"

int loader_fail(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->err && ld->errlen) {
		va_start(ap, fmt);
		vsnprintf(ld->err, ld->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- ELF ---- */

/* The fields of an ELF32 or ELF64 file header that we use (ELF gABI). */
struct elf_ehdr {
	bool is64;
	uint16_t type;
	uint16_t machine;
	uint32_t version;
	uint64_t entry;
	uint64_t phoff;
	uint16_t phentsize;
	uint16_t phnum;
};

/* ELF gABI "ELF Header": e_ident tells the class and data encoding. */
static int elf_read_ehdr(struct loader *ld, struct elf_ehdr *e)
{
	const uint8_t *img = ld->p->image;
	size_t len = ld->p->image_len;
	Elf32_Ehdr h32;
	Elf64_Ehdr h64;

	if (len < SELFMAG || memcmp(img, ELFMAG, SELFMAG))
		return loader_fail(ld, "not an ELF image, and no a.out kludge/address tag in the multiboot header");
	if (len < EI_NIDENT)
		return loader_fail(ld, "truncated file: ELF header past the end");
	if (img[EI_CLASS] != ELFCLASS32 && img[EI_CLASS] != ELFCLASS64)
		return loader_fail(ld, "unsupported ELF class %u", img[EI_CLASS]);
	if (img[EI_DATA] != ELFDATA2LSB)
		return loader_fail(ld, "unsupported ELF data encoding %u (want little-endian)",
				   img[EI_DATA]);
	e->is64 = img[EI_CLASS] == ELFCLASS64;
	if (len < (e->is64 ? sizeof(h64) : sizeof(h32)))
		return loader_fail(ld, "truncated file: ELF header past the end");
	if (e->is64) {
		memcpy(&h64, img, sizeof(h64));
		*e = (struct elf_ehdr){ true, h64.e_type, h64.e_machine,
			h64.e_version, h64.e_entry, h64.e_phoff,
			h64.e_phentsize, h64.e_phnum };
	} else {
		memcpy(&h32, img, sizeof(h32));
		*e = (struct elf_ehdr){ false, h32.e_type, h32.e_machine,
			h32.e_version, h32.e_entry, h32.e_phoff,
			h32.e_phentsize, h32.e_phnum };
	}
	return 0;
}

/* What we accept: an x86 executable, with a program header table in the file. */
static int elf_check_ehdr(struct loader *ld, const struct elf_ehdr *e)
{
	uint16_t machine = e->is64 ? EM_X86_64 : EM_386;
	size_t phsize = e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t len = ld->p->image_len;

	if (e->machine != machine)
		return loader_fail(ld, "unsupported ELF machine %u for ELFCLASS%u (want %u)",
				   e->machine, e->is64 ? 64 : 32, machine);
	if (e->type != ET_EXEC)
		return loader_fail(ld, "unsupported ELF type %u (want ET_EXEC)", e->type);
	if (e->version != EV_CURRENT)
		return loader_fail(ld, "unsupported ELF version %u", e->version);
	if (e->phentsize != phsize)
		return loader_fail(ld, "bad ELF e_phentsize %u (want %zu)", e->phentsize,
				   phsize);
	if (e->phoff > len || (uint64_t)e->phnum * phsize > len - e->phoff)
		return loader_fail(ld, "truncated file: program headers past the end");
	return 0;
}

/* Program header @i as a segment; returns its p_type. */
static uint32_t elf_read_phdr(struct loader *ld, const struct elf_ehdr *e,
			      unsigned i, struct load_seg *s)
{
	const uint8_t *ph = ld->p->image + e->phoff;
	Elf32_Phdr p32;
	Elf64_Phdr p64;

	if (e->is64) {
		memcpy(&p64, ph + i * sizeof(p64), sizeof(p64));
		*s = (struct load_seg){ p64.p_paddr, p64.p_vaddr, p64.p_memsz,
					p64.p_offset, p64.p_filesz };
		return p64.p_type;
	}
	memcpy(&p32, ph + i * sizeof(p32), sizeof(p32));
	*s = (struct load_seg){ p32.p_paddr, p32.p_vaddr, p32.p_memsz,
				p32.p_offset, p32.p_filesz };
	return p32.p_type;
}

/*
 * ELF gABI "Program Loading": a PT_LOAD segment has p_filesz bytes from
 * p_offset, then zeros up to p_memsz.  We load it at p_paddr, as GRUB does.
 */
static int elf_add_seg(struct loader *ld, const struct load_seg *s)
{
	size_t len = ld->p->image_len;

	if (s->filesz > s->memsz)
		return loader_fail(ld, "ELF segment at 0x%llx: filesz 0x%llx > memsz 0x%llx",
				   (unsigned long long)s->paddr,
				   (unsigned long long)s->filesz,
				   (unsigned long long)s->memsz);
	if (s->filesz > len || s->offset > len - s->filesz)
		return loader_fail(ld, "ELF segment at 0x%llx: file range past the end of the file",
				   (unsigned long long)s->paddr);
	if (!s->memsz)
		return 0;	/* occupies nothing */
	if (ld->nr_segs == LOADER_MAX_SEGS)
		return loader_fail(ld, "more than %u ELF PT_LOAD segments",
				   LOADER_MAX_SEGS);
	ld->seg[ld->nr_segs++] = *s;
	return 0;
}

/*
 * The entry point e_entry is virtual.  If it lies in a segment whose
 * p_vaddr differs from p_paddr, translate it to physical, as GRUB does.
 */
static uint64_t elf_entry(const struct loader *ld, uint64_t entry)
{
	const struct load_seg *s;
	unsigned i;

	for (i = 0; i < ld->nr_segs; i++) {
		s = &ld->seg[i];
		if (entry >= s->vaddr && entry - s->vaddr < s->memsz)
			return entry - s->vaddr + s->paddr;
	}
	return entry;
}

static int load_elf(struct loader *ld)
{
	struct elf_ehdr e = { 0 };
	struct load_seg s;
	unsigned i;

	if (elf_read_ehdr(ld, &e) || elf_check_ehdr(ld, &e))
		return -1;
	for (i = 0; i < e.phnum; i++) {
		if (elf_read_phdr(ld, &e, i, &s) != PT_LOAD)
			continue;
		if (elf_add_seg(ld, &s))
			return -1;
	}
	if (!ld->nr_segs)
		return loader_fail(ld, "ELF image has no loadable segment");
	ld->entry = elf_entry(ld, e.entry);
	return 0;
}

/* ---- a.out kludge ---- */

/*
 * Multiboot 3.1.3, Multiboot2 3.1.5: the header's physical address
 * header_addr ties file offsets to addresses.  Loading starts
 * header_addr - load_addr bytes before the header (Multiboot2: load_addr
 * -1 means at the file's start); load_end_addr 0 means to the end of the
 * file; bss_end_addr 0 means no bss.
 */
static int load_kludge(struct loader *ld)
{
	const struct mb_header *h = &ld->hdr;
	const char *what = h->protocol == 1 ? "a.out kludge" : "address tag";
	uint64_t len = ld->p->image_len, off, load = h->load_addr, end, bss_end;

	if (!h->has_entry)
		return loader_fail(ld, "multiboot2 header: address tag without an entry address tag");
	if (h->protocol == 2 && h->load_addr == 0xffffffffu) {
		if (h->header_addr < h->offset)
			return loader_fail(ld, "%s: header_addr 0x%x below the header's file offset",
					   what, h->header_addr);
		off = 0;
		load = h->header_addr - h->offset;
	} else {
		if (h->load_addr > h->header_addr)
			return loader_fail(ld, "%s: load_addr 0x%x above header_addr 0x%x",
					   what, h->load_addr, h->header_addr);
		if (h->header_addr - h->load_addr > h->offset)
			return loader_fail(ld, "%s: load_addr 0x%x lies before the start of the file",
					   what, h->load_addr);
		off = h->offset - (h->header_addr - h->load_addr);
	}
	if (!h->load_end_addr) {
		end = load + (len - off);
	} else {
		if (h->load_end_addr < load)
			return loader_fail(ld, "%s: load_end_addr 0x%x below load_addr",
					   what, h->load_end_addr);
		end = h->load_end_addr;
		if (end - load > len - off)
			return loader_fail(ld, "truncated file: %s load range past the end",
					   what);
	}
	bss_end = end;
	if (h->bss_end_addr) {
		if (h->bss_end_addr < end)
			return loader_fail(ld, "%s: bss_end_addr 0x%x below load_end_addr",
					   what, h->bss_end_addr);
		bss_end = h->bss_end_addr;
	}
	ld->seg[0] = (struct load_seg){ load, load, bss_end - load, off, end - load };
	ld->nr_segs = 1;
	return 0;
}

/* ---- validation ---- */

static int check_seg(struct loader *ld, const struct load_seg *s)
{
	unsigned long long a = s->paddr, n = s->memsz;

	if (!mem_ptr(ld->mem, s->paddr, s->memsz))
		return loader_fail(ld, "segment [0x%llx, +0x%llx) outside guest RAM", a, n);
	if (s->paddr < LOADER_RESERVED_END &&
	    s->paddr + s->memsz > LOADER_RESERVED_START)
		return loader_fail(ld, "segment [0x%llx, +0x%llx) in the reserved BIOS area [0x%llx, 0x%llx): EBDA, VGA, BIOS and the ACPI tables",
				   a, n, LOADER_RESERVED_START, LOADER_RESERVED_END);
	return 0;
}

/* Call after check_seg(): then paddr + memsz cannot overflow. */
static bool segs_overlap(const struct load_seg *a, const struct load_seg *b)
{
	return a->paddr < b->paddr + b->memsz && b->paddr < a->paddr + a->memsz;
}

/* Segments in RAM, apart, and the entry point inside one of them. */
static int check_image(struct loader *ld)
{
	const struct load_seg *s = ld->seg, *t;
	bool entry_ok = false;
	unsigned i, j;

	for (i = 0; i < ld->nr_segs; i++)
		if (check_seg(ld, &s[i]))
			return -1;
	ld->load_start = UINT64_MAX;
	ld->load_end = 0;
	for (i = 0; i < ld->nr_segs; i++) {
		for (j = i + 1; j < ld->nr_segs; j++) {
			t = &s[j];
			if (segs_overlap(&s[i], t))
				return loader_fail(ld, "segments [0x%llx, +0x%llx) and [0x%llx, +0x%llx) overlap",
						   (unsigned long long)s[i].paddr,
						   (unsigned long long)s[i].memsz,
						   (unsigned long long)t->paddr,
						   (unsigned long long)t->memsz);
		}
		if (ld->entry >= s[i].paddr && ld->entry - s[i].paddr < s[i].memsz)
			entry_ok = true;
		if (s[i].paddr < ld->load_start)
			ld->load_start = s[i].paddr;
		if (s[i].paddr + s[i].memsz > ld->load_end)
			ld->load_end = s[i].paddr + s[i].memsz;
	}
	/* Multiboot 3.2, Multiboot2 3.3: we enter in 32-bit protected mode. */
	if (ld->entry >= MEM_HIGH_START)
		return loader_fail(ld, "entry point 0x%llx above 4 GiB",
				   (unsigned long long)ld->entry);
	if (!entry_ok)
		return loader_fail(ld, "entry point 0x%llx outside the loaded image",
				   (unsigned long long)ld->entry);
	return 0;
}

static int load_kernel(struct loader *ld)
{
	if (ld->hdr.has_addr ? load_kludge(ld) : load_elf(ld))
		return -1;
	if (ld->hdr.has_entry)		/* Multiboot2 3.1.6 overrides e_entry */
		ld->entry = ld->hdr.entry_addr;
	return check_image(ld);
}

/* ---- memory layout ---- */

/*
 * Room for @len bytes at the first page boundary at or after *@cursor,
 * in low RAM (the boot information holds 32-bit addresses) and not in
 * the BIOS area; advances *@cursor past it.
 */
static int place(struct loader *ld, uint64_t *cursor, uint64_t len,
		 uint64_t *addr)
{
	uint64_t low = ld->mem->low_size, a = loader_align_up(*cursor, LOADER_PAGE_SIZE);

	if (a < LOADER_RESERVED_END && (a >= LOADER_RESERVED_START ||
					len > LOADER_RESERVED_START - a))
		a = LOADER_RESERVED_END;	/* it would touch the BIOS area */
	if (a > low || len > low - a)
		return loader_fail(ld, "not enough guest memory for modules/boot info (0x%llx bytes at 0x%llx, RAM below 0x%llx)",
				   (unsigned long long)len, (unsigned long long)a,
				   (unsigned long long)low);
	*addr = a;
	*cursor = a + len;
	return 0;
}

/* Modules (PVH: the initrd) after the kernel, then the boot information
 * (which says where they are). */
static int layout(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	bool pvh = ld->hdr.protocol == LOADER_PROTO_PVH;
	int (*build)(struct loader *, uint64_t) = pvh ? pvh_build_info :
							mb_build_info;
	uint64_t cursor = ld->load_end, base;
	unsigned i;

	ld->mod_addr = calloc(p->nr_mods ? p->nr_mods : 1, sizeof(*ld->mod_addr));
	if (!ld->mod_addr)
		return loader_fail(ld, "out of host memory");
	for (i = 0; i < p->nr_mods; i++)
		if (place(ld, &cursor, p->mods[i].len, &ld->mod_addr[i]))
			return -1;
	if (pvh && p->initrd &&
	    place(ld, &cursor, p->initrd_len, &ld->initrd_addr))
		return -1;
	/* Build once to learn the size, then again if it had to move. */
	base = loader_align_up(cursor, LOADER_PAGE_SIZE);
	if (build(ld, base) || place(ld, &cursor, ld->info.len, &base))
		return -1;
	if (base != ld->info.base)
		return build(ld, base);
	return 0;
}

/* All checked: now write the guest's memory. */
static void commit(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	const struct load_seg *s;
	uint8_t *dst;
	unsigned i;

	for (i = 0; i < ld->nr_segs; i++) {
		s = &ld->seg[i];
		dst = mem_ptr(ld->mem, s->paddr, s->memsz);
		memcpy(dst, p->image + s->offset, s->filesz);
		memset(dst + s->filesz, 0, s->memsz - s->filesz);
	}
	for (i = 0; i < p->nr_mods; i++)
		if (p->mods[i].len)
			memcpy(mem_ptr(ld->mem, ld->mod_addr[i], p->mods[i].len),
			       p->mods[i].data, p->mods[i].len);
	if (ld->hdr.protocol == LOADER_PROTO_PVH && p->initrd && p->initrd_len)
		memcpy(mem_ptr(ld->mem, ld->initrd_addr, p->initrd_len),
		       p->initrd, p->initrd_len);
	memcpy(mem_ptr(ld->mem, ld->info.base, ld->info.len), ld->info.buf,
	       ld->info.len);
}

static int check_params(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	unsigned i;

	if (p->protocol < 0 || (p->protocol > 2 &&
				p->protocol != LOADER_PROTO_PVH))
		return loader_fail(ld, "bad boot protocol %d (want 0, 1, 2 or %d)",
				   p->protocol, LOADER_PROTO_PVH);
	if (!p->image && p->image_len)
		return loader_fail(ld, "no image data");
	if (!p->mods && p->nr_mods)
		return loader_fail(ld, "no module list");
	for (i = 0; i < p->nr_mods; i++)
		if (!p->mods[i].data && p->mods[i].len)
			return loader_fail(ld, "no data for module %u", i);
	if (!p->initrd && p->initrd_len)
		return loader_fail(ld, "no initrd data");
	return 0;
}

/*
 * A multiboot header; failing that (with no protocol forced), the PVH
 * note of an ELF vmlinux.  Multiboot wins when an image has both, unless
 * PVH is forced (--pvh: the irqlab kernel has both).
 */
static int parse_header(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	uint64_t entry;

	if (p->protocol == LOADER_PROTO_PVH) {
		if (!pvh_find_entry(p->image, p->image_len, &entry))
			return loader_fail(ld, "no Xen PVH entry: an ELF64 x86-64 image with a PT_NOTE holding XEN_ELFNOTE_PHYS32_ENTRY (18)");
	} else if (!mb_parse_header(ld)) {
		if (p->initrd)
			return loader_fail(ld, "--initrd is for a Linux kernel (bzImage or PVH vmlinux); a multiboot kernel takes --module");
		return 0;
	} else if (p->protocol || !pvh_find_entry(p->image, p->image_len, &entry)) {
		return -1;	/* mb_parse_header()'s reason stands */
	}
	if (entry >= MEM_HIGH_START)
		return loader_fail(ld, "PVH entry point 0x%llx above 4 GiB",
				   (unsigned long long)entry);
	if (p->nr_mods)
		return loader_fail(ld, "--module with a PVH kernel: give it its initrd with --initrd");
	ld->hdr = (struct mb_header){ .protocol = LOADER_PROTO_PVH,
				      .has_entry = true, .entry_addr = entry };
	return 0;
}

static void fill_entry(const struct loader *ld, struct boot_entry *out)
{
	out->protocol = ld->hdr.protocol;
	out->mode = BOOT_MODE_PM32;
	out->eip = ld->entry;
	if (ld->hdr.protocol != LOADER_PROTO_PVH)	/* PVH: EAX undefined */
		out->eax = ld->hdr.protocol == 1 ? MB1_BOOT_MAGIC :
						   MB2_BOOT_MAGIC;
	out->ebx = ld->mbi_addr;
	out->gdt_addr = ld->gdt_addr;
	out->gdt_limit = LOADER_GDT_ENTRIES * 8 - 1;
	out->cs = LOADER_GDT_CS;
	out->ds = LOADER_GDT_DS;
	out->load_start = ld->load_start;
	out->load_end = ld->load_end;
	out->info_start = ld->info.base;
	out->info_end = ld->info.base + ld->info.len;
}

int loader_load(const struct guest_mem *mem, const struct boot_params *p,
		struct boot_entry *out, char *err, size_t errlen)
{
	struct loader ld = { .mem = mem, .p = p, .err = err, .errlen = errlen };
	int ret = -1;

	if (err && errlen)
		err[0] = '\0';
	if (!mem || !p || !out)
		return loader_fail(&ld, "loader_load: NULL argument");
	memset(out, 0, sizeof(*out));
	if (check_params(&ld))
		goto out;
	/* boot.rst: a bzImage has "HdrS" at 0x202 (or at least the boot
	 * sector's 0xaa55 at 0x1fe); multiboot kernels are ELF or kludge */
	if (!p->protocol && linux_is_image(p->image, p->image_len)) {
		ret = linux_load(&ld, out);
		goto out;
	}
	if (parse_header(&ld) || load_kernel(&ld) || layout(&ld))
		goto out;
	commit(&ld);
	fill_entry(&ld, out);
	ret = 0;
out:
	free(ld.mod_addr);
	mb_free_info(&ld);
	return ret;
}
