/*
 * A tiny multiboot guest for tests/integration/vmm-boot.sh: the Windows
 * pattern of the IOAPIC redirection storm.  IOAPIC pin 4 is an edge entry
 * (vector 0x31); the guest rewrites its low dword unchanged, then its high
 * dword with the destination rotated over APIC IDs 0-3, ROTATIONS times
 * (default 10000), and exits through isa-debug-exit with 0x10 (status
 * 33).  In --irqchip=split no rotation needs a GSI route commit; with
 * --ioapic=naive each one does.  Long mode, as pit-irq.S.
 */
#ifndef ROTATIONS
#define ROTATIONS 10000
#endif
	.code32
	.text
	.globl start
	.align 4
mbhdr:	.long 0x1badb002, 0, -(0x1badb002)
start:
	mov $stack_top, %esp
	/* PML4[0] -> PDPT; PDPT[0..3] -> PD0..3; 2 MiB pages over 4 GiB */
	movl $pdpt + 3, pml4
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $12, %eax
	add $pd + 3, %eax
	mov %eax, pdpt(,%ecx,8)
	inc %ecx
	cmp $4, %ecx
	jb 1b
	xor %ecx, %ecx
2:	mov %ecx, %eax
	shl $21, %eax
	or $0x83, %eax
	mov %eax, pd(,%ecx,8)
	mov %ecx, %eax
	shr $11, %eax
	mov %eax, pd + 4(,%ecx,8)
	inc %ecx
	cmp $2048, %ecx
	jb 2b
	mov $pml4, %eax
	mov %eax, %cr3
	mov %cr4, %eax
	or $0x20, %eax
	mov %eax, %cr4
	mov $0xc0000080, %ecx
	rdmsr
	or $0x100, %eax
	wrmsr
	lgdt gdtr
	mov %cr0, %eax
	or $0x80000000, %eax
	mov %eax, %cr0
	ljmp $0x08, $long
	.code64
long:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %ss
	mov %ax, %es
	mov $stack_top, %rsp
	lea handler(%rip), %rax
	mov %ax, idt + 0x41 * 16
	movw $0x08, idt + 0x41 * 16 + 2
	movw $0x8e00, idt + 0x41 * 16 + 4
	shr $16, %rax
	mov %ax, idt + 0x41 * 16 + 6
	lidt idtr
	mov $0xfee00000, %esi
	mov $0xfec00000, %ebx
	movl $0x1ff, 0xf0(%rsi)
	/* the 8259s stay masked (never initialised) */
	mov $0xff, %al
	out %al, $0x21
	out %al, $0xa1
	/* pin 4 edge vector 0x31; rotate its destination */
	movl $0x18, (%rbx)
	movl $0x31, 0x10(%rbx)
	xor %ecx, %ecx
4:	movl $0x18, (%rbx)
	movl $0x31, 0x10(%rbx)
	movl $0x19, (%rbx)
	mov %ecx, %eax
	and $3, %eax
	shl $24, %eax
	mov %eax, 0x10(%rbx)
	inc %ecx
	cmp $ROTATIONS, %ecx
	jb 4b
	cli
	mov $0x10, %al
	out %al, $0xf4
	hlt
handler:
	incl count
	movl $0, 0xb0(%rsi)
	iretq
	.data
	.align 8
gdt:	.quad 0, 0x00af9a000000ffff, 0x00cf92000000ffff
gdtr:	.word 23
	.long gdt
idtr:	.word 0x42 * 16 - 1
	.quad idt
count:	.long 0
	.bss
	.align 4096
pml4:	.space 4096
pdpt:	.space 4096
pd:	.space 4 * 4096
idt:	.space 0x42 * 16
	.space 4096
stack_top:
