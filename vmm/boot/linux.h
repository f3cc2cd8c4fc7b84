/* SPDX-License-Identifier: MIT */
/*
 * The Linux/x86 boot protocol (Documentation/arch/x86/boot.rst, "THE
 * REAL-MODE KERNEL HEADER", "64-bit BOOT PROTOCOL", and zero-page.rst):
 * offsets of the setup header in a bzImage and in the zero page (struct
 * boot_params), and where linux.c puts what it builds.  The setup header
 * sits at 0x1f1 in both, so one set of offsets serves the two.
 */
#ifndef VMM_LINUX_H
#define VMM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The setup header (boot.rst, "THE REAL-MODE KERNEL HEADER") */
#define LH_SETUP_SECTS		0x1f1	/* u8: 0 means 4 */
#define LH_BOOT_FLAG		0x1fe	/* u16: 0xaa55 */
#define LH_JUMP			0x200	/* u16: its second byte + 0x202 ends the header */
#define LH_HEADER		0x202	/* u32: "HdrS" */
#define LH_VERSION		0x206	/* u16: protocol, major << 8 | minor */
#define LH_TYPE_OF_LOADER	0x210	/* u8 */
#define LH_LOADFLAGS		0x211	/* u8 */
#define LH_CODE32_START		0x214	/* u32 */
#define LH_RAMDISK_IMAGE	0x218	/* u32 */
#define LH_RAMDISK_SIZE		0x21c	/* u32 */
#define LH_HEAP_END_PTR		0x224	/* u16 */
#define LH_CMD_LINE_PTR		0x228	/* u32 */
#define LH_INITRD_ADDR_MAX	0x22c	/* u32 */
#define LH_KERNEL_ALIGNMENT	0x230	/* u32 */
#define LH_RELOCATABLE		0x234	/* u8 */
#define LH_XLOADFLAGS		0x236	/* u16 */
#define LH_CMDLINE_SIZE		0x238	/* u32 */
#define LH_HARDWARE_SUBARCH	0x23c	/* u32 */
#define LH_SETUP_DATA		0x250	/* u64 */
#define LH_PREF_ADDRESS		0x258	/* u64 */
#define LH_INIT_SIZE		0x260	/* u32 */
#define LH_END_212		0x268	/* the header as far as protocol 2.12 goes */

#define LH_BOOT_FLAG_MAGIC	0xaa55u
#define LH_HEADER_MAGIC		0x53726448u	/* "HdrS" */
#define LH_MIN_VERSION		0x020c		/* 2.12: xloadflags */

#define LH_LOADED_HIGH		(1u << 0)	/* loadflags: protected mode at 1 MiB+ */
#define LH_CAN_USE_HEAP		(1u << 7)
#define LH_XLF_KERNEL_64	(1u << 0)	/* xloadflags: 64-bit entry at +0x200 */
#define LH_TYPE_UNDEFINED	0xff		/* type_of_loader: no assigned ID */

/* The zero page (zero-page.rst): what linux.c fills beside the header */
#define ZP_SIZE			0x1000
#define ZP_ACPI_RSDP_ADDR	0x070	/* u64, protocol 2.14 */
#define ZP_EXT_RAMDISK_IMAGE	0x0c0	/* u32 */
#define ZP_EXT_RAMDISK_SIZE	0x0c4
#define ZP_EXT_CMD_LINE_PTR	0x0c8
#define ZP_E820_ENTRIES		0x1e8	/* u8 */
#define ZP_HDR_END		0x290	/* the header's room ends here */
#define ZP_E820_TABLE		0x2d0	/* struct boot_e820_entry[128] */
#define ZP_E820_MAX		128

/* one e820 entry: addr u64, size u64, type u32 (packed: 20 bytes) */
#define E820_ENTRY_SIZE		20
#define E820_RAM		1
#define E820_RESERVED		2

/* 64-bit entry: boot.rst "64-bit BOOT PROTOCOL" */
#define LINUX_ENTRY64_OFF	0x200	/* from the protected-mode kernel's start */
#define LINUX_BOOT_CS		0x10	/* __BOOT_CS: flat 64-bit code */
#define LINUX_BOOT_DS		0x18	/* __BOOT_DS: flat data */

/*
 * Where linux.c puts what it builds, in low RAM below the EBDA (the
 * kernel copies the zero page and command line early, and replaces the
 * page tables and GDT; real BIOS loaders use the same region):
 */
#define LINUX_GDT_GPA		0x1000	/* null, null, __BOOT_CS, __BOOT_DS */
#define LINUX_STACK_GPA		0x7000	/* RSP at entry: grows down */
#define LINUX_ZP_GPA		0x7000	/* the zero page */
#define LINUX_PML4_GPA		0x9000
#define LINUX_PDPT_GPA		0xa000
#define LINUX_PD_GPA		0xb000	/* 4 pages: 4 GiB with 2 MiB pages */
#define LINUX_PT_END		0xf000
#define LINUX_CMDLINE_GPA	0x20000
#define LINUX_CMDLINE_MAX	0x10000	/* room at LINUX_CMDLINE_GPA */
#define LINUX_KERNEL_MIN	0x100000	/* nothing of the kernel below 1 MiB */

/* GDT descriptors (SDM 3.4.5): L=1 code for __BOOT_CS, flat data */
#define LINUX_GDT_CODE64	0x00af9b000000ffffull
#define LINUX_GDT_DATA		0x00cf93000000ffffull

/* Whether @img claims to be a Linux boot image (boot flag or "HdrS"). */
bool linux_is_image(const uint8_t *img, size_t len);

#endif
