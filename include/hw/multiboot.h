/* SPDX-License-Identifier: MIT */
/*
 * Multiboot 1 (spec 0.6.96) and Multiboot 2 (spec 2.0) structures, shared by
 * the VMM's loader and the kernel.  Section numbers refer to those specs.
 */
#ifndef HW_MULTIBOOT_H
#define HW_MULTIBOOT_H

#include <stdint.h>

/* ---- Multiboot 1 ---- */

/* 3.1.1: the header lies in the first 8192 bytes, 32-bit aligned. */
#define MB1_SEARCH		8192
#define MB1_HEADER_MAGIC	0x1badb002u
#define MB1_BOOT_MAGIC		0x2badb002u	/* EAX on entry (3.2) */

/* 3.1.2: header flags; bits 0-15 are required, 16-31 optional. */
#define MB1_HF_PAGE_ALIGN	(1u << 0)	/* modules page aligned */
#define MB1_HF_MEMINFO		(1u << 1)	/* mem_* and mmap wanted */
#define MB1_HF_VIDEO		(1u << 2)	/* video mode table wanted */
#define MB1_HF_AOUT_KLUDGE	(1u << 16)	/* address fields are valid */
#define MB1_HF_REQUIRED		0x0000ffffu

struct mb1_header {
	uint32_t magic;
	uint32_t flags;
	uint32_t checksum;	/* magic + flags + checksum == 0 */
	/* valid if MB1_HF_AOUT_KLUDGE (3.1.3) */
	uint32_t header_addr;
	uint32_t load_addr;
	uint32_t load_end_addr;
	uint32_t bss_end_addr;
	uint32_t entry_addr;
	/* valid if MB1_HF_VIDEO */
	uint32_t mode_type;
	uint32_t width;
	uint32_t height;
	uint32_t depth;
};

/* 3.3: boot information flags */
#define MB1_INFO_MEMORY		(1u << 0)	/* mem_lower, mem_upper */
#define MB1_INFO_BOOTDEV	(1u << 1)
#define MB1_INFO_CMDLINE	(1u << 2)
#define MB1_INFO_MODS		(1u << 3)
#define MB1_INFO_ELF_SHDR	(1u << 5)
#define MB1_INFO_MEM_MAP	(1u << 6)
#define MB1_INFO_LOADER_NAME	(1u << 9)

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower;	/* KiB from 0 */
	uint32_t mem_upper;	/* KiB from 1 MiB */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count;
	uint32_t mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length;
	uint32_t mmap_addr;
	uint32_t drives_length;
	uint32_t drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
	uint32_t apm_table;
	uint32_t vbe[6];
} __attribute__((packed));

struct mb1_module {
	uint32_t mod_start;
	uint32_t mod_end;
	uint32_t string;
	uint32_t reserved;
};

/* 3.3: each entry is preceded by its size, which excludes the size field. */
struct mb1_mmap_entry {
	uint32_t size;		/* 20 */
	uint64_t addr;
	uint64_t len;
	uint32_t type;		/* MB_MEMORY_* */
} __attribute__((packed));

/* memory map types, common to both specs */
#define MB_MEMORY_AVAILABLE	1
#define MB_MEMORY_RESERVED	2
#define MB_MEMORY_ACPI		3
#define MB_MEMORY_NVS		4
#define MB_MEMORY_BADRAM	5

/* ---- Multiboot 2 ---- */

/* 3.1.1: the header lies in the first 32768 bytes, 64-bit aligned. */
#define MB2_SEARCH		32768
#define MB2_HEADER_MAGIC	0xe85250d6u
#define MB2_BOOT_MAGIC		0x36d76289u	/* EAX on entry (3.3) */
#define MB2_ARCH_I386		0

struct mb2_header {
	uint32_t magic;
	uint32_t architecture;
	uint32_t header_length;	/* including all tags */
	uint32_t checksum;	/* magic + architecture + header_length + checksum == 0 */
};

/* 3.1.3: header tags, each 8-byte aligned */
#define MB2_HT_END		0
#define MB2_HT_INFO_REQUEST	1
#define MB2_HT_ADDRESS		2
#define MB2_HT_ENTRY_ADDRESS	3
#define MB2_HT_CONSOLE_FLAGS	4
#define MB2_HT_FRAMEBUFFER	5
#define MB2_HT_MODULE_ALIGN	6
#define MB2_HT_EFI_BS		7
#define MB2_HT_ENTRY_EFI32	8
#define MB2_HT_ENTRY_EFI64	9
#define MB2_HT_RELOCATABLE	10

#define MB2_HT_FLAG_OPTIONAL	1u

struct mb2_header_tag {
	uint16_t type;
	uint16_t flags;
	uint32_t size;
};

struct mb2_header_tag_address {		/* 3.1.5 */
	uint16_t type, flags;
	uint32_t size;
	uint32_t header_addr;
	uint32_t load_addr;
	uint32_t load_end_addr;
	uint32_t bss_end_addr;
};

struct mb2_header_tag_entry {		/* 3.1.6 */
	uint16_t type, flags;
	uint32_t size;
	uint32_t entry_addr;
};

/* 3.6: boot information; a u32 total_size, a u32 reserved, then tags. */
#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_LOADER_NAME	2
#define MB2_TAG_MODULE		3
#define MB2_TAG_BASIC_MEMINFO	4
#define MB2_TAG_BOOTDEV		5
#define MB2_TAG_MMAP		6
#define MB2_TAG_FRAMEBUFFER	8
#define MB2_TAG_ACPI_OLD	14	/* copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW	15	/* copy of the ACPI 2.0+ RSDP */
#define MB2_TAG_LOAD_BASE	21

struct mb2_info_header {
	uint32_t total_size;
	uint32_t reserved;
};

struct mb2_tag {
	uint32_t type;
	uint32_t size;		/* without padding to 8 bytes */
};

struct mb2_tag_string {			/* cmdline, loader name */
	uint32_t type, size;
	char string[];
};

struct mb2_tag_module {
	uint32_t type, size;
	uint32_t mod_start;
	uint32_t mod_end;
	char string[];
};

struct mb2_tag_basic_meminfo {
	uint32_t type, size;
	uint32_t mem_lower;	/* KiB */
	uint32_t mem_upper;	/* KiB */
};

struct mb2_mmap_entry {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	uint32_t zero;
};

struct mb2_tag_mmap {
	uint32_t type, size;
	uint32_t entry_size;	/* 24 */
	uint32_t entry_version;	/* 0 */
	struct mb2_mmap_entry entries[];
};

struct mb2_tag_acpi {
	uint32_t type, size;
	uint8_t rsdp[];
};

#endif
