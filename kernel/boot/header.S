/* SPDX-License-Identifier: MIT */
/*
 * The Multiboot 1 and Multiboot 2 headers.  kernel.ld puts section
 * .multiboot first in the image, so both lie inside the first 8 KiB of the
 * file: Multiboot 1 3.1.1 wants its header in the first 8192 bytes, 4-byte
 * aligned; Multiboot 2 3.1.1 in the first 32768 bytes, 8-byte aligned.
 *
 * The constants repeat include/hw/multiboot.h, which is C only.
 */

/* Multiboot 1 3.1.1 and 3.1.2 */
#define MB1_MAGIC		0x1badb002
#define MB1_PAGE_ALIGN		(1 << 0)	/* modules on 4 KiB boundaries */
#define MB1_MEMINFO		(1 << 1)	/* mem_* and mmap_* wanted */
/*
 * Bit 16 (the a.out kludge) is clear: the image is ELF, so the loader
 * takes addresses from its program headers (3.1.3).
 */
#define MB1_FLAGS		(MB1_PAGE_ALIGN | MB1_MEMINFO)

/* Multiboot 2 3.1.1 to 3.1.4 */
#define MB2_MAGIC		0xe85250d6
#define MB2_ARCH_I386		0		/* 32-bit protected mode */
#define MB2_TAG_END		0
#define MB2_TAG_INFO_REQ	1
#define MB2_TAG_OPTIONAL	1		/* flags bit 0 */

/* Multiboot 2 3.6: the boot information tag types we ask for */
#define MB2_INFO_CMDLINE	1
#define MB2_INFO_MODULE		3
#define MB2_INFO_BASIC_MEMINFO	4
#define MB2_INFO_MMAP		6
#define MB2_INFO_ACPI_OLD	14
#define MB2_INFO_ACPI_NEW	15

	.section .multiboot, "a"

	/* Multiboot 1: magic + flags + checksum must be 0 mod 2^32. */
	.balign	4
mb1_header:
	.long	MB1_MAGIC
	.long	MB1_FLAGS
	.long	0x100000000 - (MB1_MAGIC + MB1_FLAGS)

	/* Multiboot 2: magic + architecture + header_length + checksum == 0. */
	.balign	8
mb2_header:
	.long	MB2_MAGIC
	.long	MB2_ARCH_I386
	.long	mb2_header_end - mb2_header
	.long	0x100000000 - (MB2_MAGIC + MB2_ARCH_I386 + \
			       (mb2_header_end - mb2_header))

	/*
	 * 3.1.4: information request.  Optional, so a loader lacking a tag
	 * type may still boot us; the kernel checks what it got.
	 * Every tag starts 8-byte aligned (3.1.3).
	 */
	.balign	8
1:	.short	MB2_TAG_INFO_REQ
	.short	MB2_TAG_OPTIONAL
	.long	2f - 1b
	.long	MB2_INFO_CMDLINE
	.long	MB2_INFO_MODULE
	.long	MB2_INFO_BASIC_MEMINFO
	.long	MB2_INFO_MMAP
	.long	MB2_INFO_ACPI_OLD
	.long	MB2_INFO_ACPI_NEW
2:
	/* 3.1.3: the list ends with a tag of type 0, size 8. */
	.balign	8
	.short	MB2_TAG_END
	.short	0
	.long	8
mb2_header_end:

/* no executable stack (the GNU toolchain convention for .S files) */
	.section .note.GNU-stack, "", @progbits
