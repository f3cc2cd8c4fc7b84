/* SPDX-License-Identifier: MIT */
/*
 * The application processors' way from real mode to ap_main(cpu).
 *
 * A STARTUP IPI with vector VV starts an AP in real mode at CS:IP =
 * VV00:0000, i.e. at physical 000VV000H (SDM vol. 3A 9.4.4.1), so the
 * first instructions must lie in a page
 * below 1 MiB.  smp.c copies [trampoline_start, trampoline_end)
 * to such a page and sends its number as the vector.  That part uses
 * only CS-relative offsets, so it runs at whatever page it was copied to;
 * from its far jump on, the code runs where it was linked, in the kernel
 * image (identity mapped, below 4 GiB).
 *
 *   real mode (page P)   CS = DS = P >> 4; load tramp_gdt; CR0.PE = 1;
 *                        far jump to ap_entry32
 *   protected mode       flat segments; CR4.PAE, CR3 = the BSP's page
 *                        tables, EFER.LME, CR0.PG: compatibility mode;
 *                        far jump to a 64-bit CS
 *   64-bit mode          RSP = the AP's stack; ap_main(cpu)
 *
 * The BSP boots one AP at a time and waits until it is online, so the
 * ap_boot_* variables hold one AP's arguments at a time.
 */
#include "arch/x86.h"
#include "arch/gdt.h"

/* tramp_gdt's selectors; ap_main loads the kernel's per-CPU GDT */
#define TR_CODE32	0x08
#define TR_DATA		0x10
#define TR_CODE64	0x18

/*
 * Code and data, base 0, limit 4 GiB: as GDT_DATA in gdt.h, the code one
 * with D = 1 (32-bit) and L = 0 (SDM vol. 3 sec. 3.4.5).  The accessed
 * bit (type bit 0) is preset, so the CPU never writes the descriptors.
 */
#define GDT_CODE32	0x00cf9b000000ffff
#define GDT_DATA_A	(GDT_DATA | (1 << 40))
#define GDT_CODE64_A	(GDT_CODE64 | (1 << 40))

#define OFF(sym)	((sym) - trampoline_start)

	.section .rodata
	.code16
	.balign	16
	.globl	trampoline_start, trampoline_end, trampoline_started
trampoline_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	/* tell the BSP we run, so it need not send the second SIPI */
	movb	$1, OFF(trampoline_started)

	/* a 32-bit operand: LGDT loads all 32 bits of the base */
	lgdtl	OFF(tramp_gdtr)
	/*
	 * After INIT, CR0 = 60000010H (SDM vol. 3A 10.1.1, table 10-1):
	 * CD and NW set, caches off.  Load PE alone: that also clears CD
	 * and NW, as the BSP has them.  The MOV to CR0 must be followed by
	 * a far jump (10.9.1); this one is indirect, through a 16:32
	 * pointer in this page.
	 */
	mov	$CR0_PE, %eax
	mov	%eax, %cr0
	ljmpl	*OFF(tramp_entry32)

	.balign	4
tramp_entry32:
	.long	ap_entry32
	.word	TR_CODE32
tramp_gdtr:
	.word	tramp_gdt_end - tramp_gdt - 1
	.long	tramp_gdt
trampoline_started:
	.byte	0
trampoline_end:
	/* smp.c checks that the copy fits in the page the vector names */

	.balign	8
tramp_gdt:
	.quad	0
	.quad	GDT_CODE32		/* TR_CODE32 */
	.quad	GDT_DATA_A		/* TR_DATA */
	.quad	GDT_CODE64_A		/* TR_CODE64 */
tramp_gdt_end:

	.text
	.code32
ap_entry32:
	mov	$TR_DATA, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%ax, %ax
	mov	%ax, %fs
	mov	%ax, %gs

	/* as entry.S: SDM vol. 3A 10.8.5, "Initializing IA-32e Mode" */
	mov	%cr4, %eax
	or	$CR4_PAE, %eax
	mov	%eax, %cr4

	mov	ap_boot_cr3, %eax
	mov	%eax, %cr3

	mov	$MSR_EFER, %ecx
	rdmsr
	or	$EFER_LME, %eax
	wrmsr

	mov	%cr0, %eax
	or	$(CR0_PG | CR0_WP | CR0_PE), %eax
	mov	%eax, %cr0

	ljmp	$TR_CODE64, $ap_entry64

	.code64
ap_entry64:
	mov	ap_boot_stack(%rip), %rsp
	mov	ap_boot_cpu(%rip), %edi
	xor	%ebp, %ebp			/* end of the frame chain */
	call	ap_main
1:	cli
	hlt
	jmp	1b

	.data
	.balign	8
	.globl	ap_boot_stack, ap_boot_cr3, ap_boot_cpu
ap_boot_stack:
	.quad	0		/* top of the AP's stack */
ap_boot_cr3:
	.long	0		/* the BSP's CR3; its PML4 lies below 4 GiB */
ap_boot_cpu:
	.long	0		/* ap_main's argument: the index in cpus[] */

/* no executable stack (the GNU toolchain convention for .S files) */
	.section .note.GNU-stack, "", @progbits
