/* SPDX-License-Identifier: MIT */
/*
 * The Xen PVH entry (include/hw/pvh.h): Firecracker, cloud-hypervisor,
 * QEMU's -kernel of an ELF without a multiboot header, and irqlab-vmm
 * --pvh enter here.
 *
 * The note (Xen's elfnote.h): "XEN_ELFNOTE_PHYS32_ENTRY: Physical entry
 * point into the kernel, 32-bit ...  Also used as the PVH entry", with
 * the ELF gABI "Note Section" layout: namesz, descsz, type, then the
 * name and the descriptor, each padded to 4 bytes.  kernel.ld puts
 * .note.Xen in a PT_NOTE segment, where loaders look for it.
 */
#include "hw/pvh.h"

	.section .note.Xen, "a", @note
	.balign	4
	.long	2f - 1f			/* namesz */
	.long	4f - 3f			/* descsz */
	.long	XEN_ELFNOTE_PHYS32_ENTRY
1:	.asciz	"Xen"
2:	.balign	4
3:	.long	pvh_start		/* physical: the image is at its link address */
4:	.balign	4

/*
 * pvh.pandoc: protected mode, paging off, flat CS/DS/ES/SS, IF clear,
 * EBX the start info; EAX and ESP unspecified.  entry.S's _start wants
 * exactly that with a boot magic in EAX: the start info's own magic
 * says "PVH" to kmain (mbinfo_parse() checks it is in [EBX] too).
 */
	.code32
	.section .text.boot, "ax"
	.globl	pvh_start
pvh_start:
	mov	$HVM_START_MAGIC, %eax
	jmp	_start

	.section .note.GNU-stack, "", @progbits
