// SPDX-License-Identifier: MIT
/*
 * The Xen PVH entry of an uncompressed ELF kernel (Xen's docs/misc/
 * pvh.pandoc, "PVH ABI"; xen/include/public/elfnote.h and
 * arch-x86/hvm/start_info.h), as Linux's vmlinux has it with CONFIG_PVH:
 * an ELF note "Xen", type XEN_ELFNOTE_PHYS32_ENTRY (18), gives the
 * physical address entered in 32-bit protected mode, paging off, with
 * EBX pointing at struct hvm_start_info: the command line, the modules
 * (the initrd first, which Linux takes as its initrd), the RSDP and a
 * memory map.  loader.c loads the ELF segments as for multiboot; this
 * file finds the note and builds the start info.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "hw/multiboot.h"
#include "hw/pvh.h"
#include "loader_internal.h"

/* Where the pieces sit from the info's base (page aligned) */
#define PVH_GDT_OFF	0x00
#define PVH_INFO_OFF	0x20
#define PVH_MMAP_OFF	0x60
#define PVH_MOD_OFF	0x100
#define PVH_CMD_OFF	0x120

/* One note of a PT_NOTE segment (ELF gABI "Note Section"): 4-byte
 * aligned name and descriptor.  Returns the next note's offset, or 0. */
static size_t pvh_note(const uint8_t *img, size_t off, size_t end,
		       uint64_t *entry)
{
	uint32_t namesz, descsz, type;
	size_t name, desc, next;

	if (end - off < 12)
		return 0;
	memcpy(&namesz, img + off, 4);
	memcpy(&descsz, img + off + 4, 4);
	memcpy(&type, img + off + 8, 4);
	name = off + 12;
	if (namesz > end - name)
		return 0;
	desc = name + loader_align_up(namesz, 4);
	if (desc > end || descsz > end - desc)
		return 0;
	next = desc + loader_align_up(descsz, 4);
	if (type == XEN_ELFNOTE_PHYS32_ENTRY && namesz == 4 &&
	    !memcmp(img + name, "Xen", 4) && (descsz == 4 || descsz == 8)) {
		*entry = 0;
		memcpy(entry, img + desc, descsz);
	}
	return next > end ? end : next;
}

/* The PT_NOTE segments of an ELF64 x86-64 executable. */
bool pvh_find_entry(const uint8_t *img, size_t len, uint64_t *entry)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t off, end;
	unsigned i;

	*entry = UINT64_MAX;
	if (len < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG) ||
	    img[EI_CLASS] != ELFCLASS64)
		return false;
	memcpy(&eh, img, sizeof(eh));
	if (eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(ph) ||
	    eh.e_phoff > len || (uint64_t)eh.e_phnum * sizeof(ph) > len - eh.e_phoff)
		return false;
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, img + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > len ||
		    ph.p_filesz > len - ph.p_offset)
			continue;
		end = ph.p_offset + ph.p_filesz;
		for (off = ph.p_offset; off && off < end;)
			off = pvh_note(img, off, end, entry);
	}
	return *entry != UINT64_MAX;
}

/*
 * The GDT (as multiboot's), the start info, its memory map, the initrd
 * as module 0 and the command line, assembled for guest address @base.
 */
int pvh_build_info(struct loader *ld, uint64_t base)
{
	static const uint64_t gdt[LOADER_GDT_ENTRIES] = {
		0, LOADER_GDT_CODE, LOADER_GDT_DATA
	};
	const struct boot_params *p = ld->p;
	const char *cmd = p->append ? p->append : "";
	struct mem_range r[LOADER_MMAP_MAX];
	struct hvm_start_info si = {
		.magic = HVM_START_MAGIC, .version = 1,
		.cmdline_paddr = base + PVH_CMD_OFF,
		.rsdp_paddr = p->rsdp_gpa,
		.memmap_paddr = base + PVH_MMAP_OFF,
	};
	struct hvm_modlist_entry mod = { 0 };
	struct hvm_memmap_entry me;
	unsigned i, n = loader_mmap_ranges(ld->mem, r);
	size_t len = PVH_CMD_OFF + strlen(cmd) + 1;

	mb_free_info(ld);
	ld->info.buf = calloc(1, len);
	if (!ld->info.buf)
		return loader_fail(ld, "out of host memory for the PVH start info");
	ld->info.len = ld->info.cap = len;
	ld->info.base = base;
	memcpy(ld->info.buf + PVH_GDT_OFF, gdt, sizeof(gdt));
	for (i = 0; i < n; i++) {
		me = (struct hvm_memmap_entry){ r[i].addr, r[i].len, r[i].type, 0 };
		memcpy(ld->info.buf + PVH_MMAP_OFF + i * sizeof(me), &me,
		       sizeof(me));
	}
	si.memmap_entries = n;
	if (p->initrd) {
		mod.paddr = ld->initrd_addr;
		mod.size = p->initrd_len;
		si.nr_modules = 1;
		si.modlist_paddr = base + PVH_MOD_OFF;
		memcpy(ld->info.buf + PVH_MOD_OFF, &mod, sizeof(mod));
	}
	memcpy(ld->info.buf + PVH_INFO_OFF, &si, sizeof(si));
	memcpy(ld->info.buf + PVH_CMD_OFF, cmd, strlen(cmd) + 1);
	ld->gdt_addr = base + PVH_GDT_OFF;
	ld->mbi_addr = base + PVH_INFO_OFF;
	return 0;
}
