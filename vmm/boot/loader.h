/* SPDX-License-Identifier: MIT */
/*
 * The kernel loader: a pure function from an image file (bytes) to guest
 * memory plus the register state the boot protocol prescribes on entry:
 * Multiboot 1 or 2 (loader.c, multiboot.c, bootinfo.c), a Linux bzImage
 * at its 64-bit entry (linux.c), an ELF vmlinux at its PVH entry (pvh.c).
 * No KVM here.
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
	int protocol;		/* 0: multiboot2 if present, else 1, else PVH;
				 * 1, 2 or LOADER_PROTO_PVH: force it */
	/* ACPI RSDP copies for the multiboot2 ACPI tags; NULL if none */
	const void *rsdp_old;	/* 20 bytes, ACPI 1.0 */
	const void *rsdp_new;	/* ACPI 2.0+ */
	size_t rsdp_new_len;
	uint64_t rsdp_gpa;	/* the RSDP in guest RAM (Linux, PVH); 0: none */
	/* Linux and PVH: the initial ramdisk (--initrd), NULL if none */
	const uint8_t *initrd;
	size_t initrd_len;
};

/* What struct boot_entry's protocol says the image was. */
#define LOADER_PROTO_MB1	1
#define LOADER_PROTO_MB2	2
#define LOADER_PROTO_LINUX	3	/* bzImage, 64-bit entry */
#define LOADER_PROTO_PVH	4	/* ELF vmlinux, Xen PVH entry */

/* The CPU mode vCPU 0 starts in. */
enum boot_mode {
	BOOT_MODE_PM32,		/* 32-bit protected mode, paging off */
	BOOT_MODE_LONG64,	/* 64-bit mode, the loader's page tables */
};

/*
 * vCPU 0's entry state: 32-bit protected mode as Multiboot 1 3.2,
 * Multiboot 2 3.3 and the PVH ABI say, or 64-bit mode as the Linux
 * boot protocol's "64-bit Boot Protocol" says.
 */
struct boot_entry {
	int protocol;		/* LOADER_PROTO_* */
	enum boot_mode mode;
	uint32_t eip;
	uint32_t eax;		/* MB1_BOOT_MAGIC or MB2_BOOT_MAGIC */
	uint32_t ebx;		/* physical address of the boot information */
	uint32_t gdt_addr;	/* a flat GDT the loader wrote: 0x08 code, 0x10 data */
	uint16_t gdt_limit;	/* (Linux: 0x10 64-bit code, 0x18 data) */
	uint16_t cs, ds;	/* the selectors to load */
	uint64_t rsi;		/* Linux: the zero page */
	uint64_t rsp;		/* 0: undefined */
	uint64_t cr3;		/* BOOT_MODE_LONG64: the PML4 */
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
