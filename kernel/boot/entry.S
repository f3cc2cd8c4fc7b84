/* SPDX-License-Identifier: MIT */
/*
 * 32-bit entry from a Multiboot 1 or 2 loader, and the switch to 64-bit mode.
 *
 * Machine state on entry (Multiboot 1 3.2, Multiboot 2 3.3): protected mode,
 * paging off, interrupts off, flat 4 GiB CS and DS, A20 on.
 * EAX = 0x2BADB002 (MB1) or 0x36D76289 (MB2), EBX = physical address of the
 * boot information.  ESP, GDTR and IDTR are undefined.
 *
 * We keep EAX in EBP and EBX in ESI; kmain(magic, info) gets them in EDI and
 * ESI (System V AMD64 ABI: first and second integer arguments).  A wrong
 * magic is not checked here: kmain reports it.
 */
#include "arch/x86.h"
#include "arch/gdt.h"

#define BOOT_STACK_SIZE	(16 * 1024)
#define NR_PD		4			/* 4 x 1 GiB: the first 4 GiB */
#define PDE_UC_FIRST	(0xc0000000 >> 21)	/* first 2 MiB page uncached */

	.code32
	.section .text.boot, "ax"
	.globl	_start
_start:
	cli
	cld
	mov	%eax, %ebp
	mov	%ebx, %esi

	/*
	 * .bss is not zeroed here: every loader we boot from already did.
	 * The ELF gABI (program header, p_memsz): "the 'extra' bytes are
	 * defined to hold the value 0"; Multiboot 1 3.1.3 says the same of
	 * bss_end_addr for the a.out kludge.  Zeroing 3 MiB costs a fault
	 * per page under a hypervisor that maps RAM lazily (170 ms on
	 * irqlab-vmm on PVM), and pages the kernel never uses stay unmapped.
	 * Only the boot page tables are zeroed, as they must be exactly.
	 */
	mov	$__pgt_start, %edi
	mov	$__pgt_end, %ecx
	sub	%edi, %ecx
	shr	$2, %ecx
	xor	%eax, %eax
	rep stosl

	mov	$boot_stack_top, %esp

	/* CPUID.80000001H:EDX[29]: the CPU can run in 64-bit mode. */
	mov	$0x80000000, %eax
	cpuid
	cmp	$0x80000001, %eax
	jb	no_long_mode
	mov	$0x80000001, %eax
	cpuid
	test	$CPUID_80000001_EDX_LM, %edx
	jz	no_long_mode

	/*
	 * Identity map [0, 4 GiB) with 2 MiB pages (SDM vol. 3 sec. 4.5):
	 * PML4[0] -> PDPT, PDPT[0..3] -> 4 page directories, each PDE maps
	 * 2 MiB with PS=1 (table "Format of a Page-Directory Entry that
	 * Maps a 2-MByte Page").  The upper dword of every entry stays
	 * 0 (.bss is zero).  [3 GiB, 4 GiB) holds the IOAPIC (0xfec00000) and
	 * the LAPIC (0xfee00000): PCD=1 PWT=1 select PAT entry 3, which is UC
	 * after reset (sec. 11.12.3 and 11.12.4), so MMIO is never cached.
	 */
	mov	$(pdpt + PTE_P + PTE_W), %eax
	mov	%eax, boot_pml4

	mov	$(boot_pd + PTE_P + PTE_W), %eax
	xor	%ecx, %ecx
1:	mov	%eax, pdpt(, %ecx, 8)
	add	$4096, %eax
	inc	%ecx
	cmp	$NR_PD, %ecx
	jne	1b

	xor	%ecx, %ecx
2:	mov	%ecx, %eax
	shl	$21, %eax
	or	$(PTE_P | PTE_W | PTE_PS), %eax
	cmp	$PDE_UC_FIRST, %ecx
	jb	3f
	or	$(PTE_PCD | PTE_PWT), %eax
3:	mov	%eax, boot_pd(, %ecx, 8)
	inc	%ecx
	cmp	$(NR_PD * 512), %ecx
	jne	2b

	/*
	 * SDM vol. 3A 10.8.5, "Initializing IA-32e Mode": with paging off,
	 * set CR4.PAE, load CR3 with the PML4, set IA32_EFER.LME, then set
	 * CR0.PG; the CPU then sets EFER.LMA.  This code is identity mapped,
	 * as the MOV to CR0 and what follows must be.  We run in compatibility
	 * mode until the far jump loads a CS with L=1.
	 */
	mov	%cr4, %eax
	or	$CR4_PAE, %eax
	mov	%eax, %cr4

	mov	$boot_pml4, %eax
	mov	%eax, %cr3

	mov	$MSR_EFER, %ecx
	rdmsr
	or	$EFER_LME, %eax
	wrmsr

	mov	%cr0, %eax
	or	$(CR0_PG | CR0_WP | CR0_PE), %eax
	mov	%eax, %cr0

	lgdt	boot_gdtr
	ljmp	$KERNEL_CS, $start64

	/*
	 * No 64-bit mode: say so on every console we may have (the irqlab
	 * console port takes the string's address; COM1 a byte at a time),
	 * then exit with the panic status (docs/RECORDS.md).
	 */
no_long_mode:
	mov	$0x0ecc, %dx			/* IRQLAB_PORT_CONSOLE */
	mov	$no_lm_msg, %eax
	outl	%eax, %dx
	mov	$no_lm_msg, %esi
4:	lodsb
	test	%al, %al
	jz	6f
	mov	%al, %bl
	mov	$0x3fd, %dx			/* COM1 LSR */
5:	inb	%dx, %al
	test	$0x20, %al			/* THRE */
	jz	5b
	mov	$0x3f8, %dx			/* COM1 THR */
	mov	%bl, %al
	outb	%al, %dx
	jmp	4b
6:	mov	$0x31, %eax
	mov	$0x0ed4, %dx			/* IRQLAB_PORT_POWEROFF */
	outl	%eax, %dx
	mov	$0xf4, %dx			/* isa-debug-exit */
	outb	%al, %dx
7:	hlt
	jmp	7b

	.code64
start64:
	/* In 64-bit mode DS, ES, SS are not used for addressing, but must
	 * hold a valid selector or null (SDM vol. 3 sec. 3.4.4). */
	mov	$KERNEL_DS, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%eax, %eax
	mov	%ax, %fs
	mov	%ax, %gs

	mov	$boot_stack_top, %rsp
	mov	%ebp, %edi			/* magic (zero-extended) */
						/* ESI: info, upper half 0 */
	xor	%ebp, %ebp			/* end of the frame chain */
	call	kmain
8:	cli
	hlt
	jmp	8b

	.section .rodata
no_lm_msg:
	.asciz	"@panic reason=no-long-mode\nirqlab: this CPU has no 64-bit mode\n"

	.balign	8
boot_gdt:
	.quad	0				/* the null descriptor */
	.quad	GDT_CODE64			/* KERNEL_CS */
	.quad	GDT_DATA			/* KERNEL_DS */
boot_gdt_end:
boot_gdtr:
	.short	boot_gdt_end - boot_gdt - 1
	.quad	boot_gdt

	.section .bss.pgtable, "aw", @nobits
	.balign	4096
	.globl	boot_pml4, boot_pd
boot_pml4:
	.skip	4096
pdpt:
	.skip	4096
boot_pd:					/* NR_PD contiguous PDs */
	.skip	4096 * NR_PD

	.section .bss
	.balign	16
	.globl	boot_stack_top
boot_stack:
	.skip	BOOT_STACK_SIZE
boot_stack_top:

/* no executable stack (the GNU toolchain convention for .S files) */
	.section .note.GNU-stack, "", @progbits
