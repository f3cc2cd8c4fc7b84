/* SPDX-License-Identifier: MIT */
/*
 * The multiboot loader: a pure function from an image file (bytes) to guest
 * memory plus the register state the spec prescribes on entry.  No KVM here.
 */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"

/* Guest-physical range the loader never puts a segment into (mmap: reserved). */
#define LOADER_RESERVED_START	0x9fc00ull	/* EBDA, VGA, BIOS area (ACPI tables) */
#define LOADER_RESERVED_END	0x100000ull

struct boot_module {
	const uint8_t *data;
	size_t len;
	const char *string;	/* the module's command line ("" if none) */
};

struct boot_params {
	const uint8_t *image;	/* whole kernel file */
	size_t image_len;
	const char *image_path;	/* argv[0] of the guest command line */
	const char *append;	/* the rest of the command line, may be NULL */
	const struct boot_module *mods;
	unsigned nr_mods;
	int protocol;		/* 0: multiboot2 if present, else 1; 1 or 2: force */
	/* ACPI RSDP copies for the multiboot2 ACPI tags; NULL if none */
	const void *rsdp_old;	/* 20 bytes, ACPI 1.0 */
	const void *rsdp_new;	/* ACPI 2.0+ */
	size_t rsdp_new_len;
};

/* 32-bit protected-mode entry state, as Multiboot 1 3.2 and Multiboot 2 3.3 say. */
struct boot_entry {
	int protocol;		/* 1 or 2 */
	uint32_t eip;
	uint32_t eax;		/* MB1_BOOT_MAGIC or MB2_BOOT_MAGIC */
	uint32_t ebx;		/* physical address of the boot information */
	uint32_t gdt_addr;	/* a flat GDT the loader wrote: 0x08 code, 0x10 data */
	uint16_t gdt_limit;
	uint64_t load_start;	/* lowest and highest+1 byte the kernel occupies */
	uint64_t load_end;
	uint64_t info_start;	/* [start, end): boot info, modules' data excluded */
	uint64_t info_end;
};

#define LOADER_GDT_CS	0x08
#define LOADER_GDT_DS	0x10

/*
 * The GDT's descriptors (SDM 3.4.5): base 0, limit 0xfffff in
 * 4 KiB units (G), 32-bit (D/B), present, DPL 0, type 0xb (code: execute/read,
 * accessed) and 0x3 (data: read/write, accessed), as arch/x86/boot/pm.c of
 * Linux has them.  vCPU setup loads the hidden segment state to match.
 */
#define LOADER_GDT_CODE	0x00cf9b000000ffffull
#define LOADER_GDT_DATA	0x00cf93000000ffffull

/* The boot loader name the kernel finds in the boot information. */
#define LOADER_NAME	"irqlab-vmm"

/*
 * Load the image and its modules into @mem and build the boot information.
 * Returns 0, or -1 with a one-line reason (no trailing newline) in @err.
 * It never reads outside the image nor writes outside guest RAM.
 */
int loader_load(const struct guest_mem *mem, const struct boot_params *p,
		struct boot_entry *out, char *err, size_t errlen);

#endif
