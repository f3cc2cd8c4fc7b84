/* SPDX-License-Identifier: MIT */
/*
 * The Xen PVH direct boot ABI (Xen's docs/misc/pvh.pandoc, "PVH ABI";
 * xen/include/public/elfnote.h and arch-x86/hvm/start_info.h), shared by
 * the VMM's loader and the kernel.
 *
 * An ELF note of name "Xen", type XEN_ELFNOTE_PHYS32_ENTRY, holds the
 * 32-bit physical entry.  pvh.pandoc: it is entered in protected mode,
 * paging off, with "ebx: contains the physical memory address where the
 * loader has placed the boot start info structure"; CS a flat 32-bit
 * code segment, DS/ES/SS flat data, IF clear, "all other processor
 * registers and flag bits are unspecified" (EAX and ESP included).
 */
#ifndef HW_PVH_H
#define HW_PVH_H

#define XEN_ELFNOTE_PHYS32_ENTRY	18
#define HVM_START_MAGIC			0x336ec578	/* "xEn3" with 0x80 */

#ifndef __ASSEMBLER__		/* boot/pvh.S takes the two numbers */
#include <stdint.h>

/* start_info.h: version 0 ends at rsdp_paddr, version 1 adds the map */
struct hvm_start_info {
	uint32_t magic;			/* HVM_START_MAGIC */
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;		/* struct hvm_modlist_entry[] */
	uint64_t cmdline_paddr;		/* NUL-terminated ASCII, or 0 */
	uint64_t rsdp_paddr;		/* ACPI RSDP, or 0 */
	uint64_t memmap_paddr;		/* struct hvm_memmap_entry[] (v1) */
	uint32_t memmap_entries;	/* (v1) */
	uint32_t reserved;
};

#define HVM_START_INFO_V0_SIZE	40	/* up to rsdp_paddr */

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;		/* 0: none */
	uint64_t reserved;
};

struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;			/* e820's, = MB_MEMORY_* */
	uint32_t reserved;
};

#endif /* __ASSEMBLER__ */
#endif
