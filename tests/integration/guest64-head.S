/*
 * The shared part of the tiny long-mode test guests (pit-irq.S,
 * ioapic-rotate.S): a multiboot 1 header, 2 MiB identity pages over
 * 4 GiB, long mode (the host's KVM cannot IRET in 32-bit mode), an IDT
 * entry for vector 0x41 (handler), the LAPIC enabled (ESI = its base),
 * EBX = the IOAPIC's base, the 8259s masked.  The guest's own code
 * follows the #include; guest64-tail.S ends it.  The macros below are for
 * that code: an IDT gate, the 8259A pair's initialisation, the PIT at
 * 1 kHz.
 */
/* IDT gate for vector \vec (below 0x42): \fn, by default the shared
 * handler (guest64-tail.S) */
	.macro idt_gate vec, fn=handler
	lea \fn(%rip), %rax
	mov %ax, idt + \vec * 16
	movw $0x08, idt + \vec * 16 + 2
	movw $0x8e00, idt + \vec * 16 + 4
	shr $16, %rax
	mov %ax, idt + \vec * 16 + 6
	.endm

/* 8259A datasheet, "Initialization Command Words": both chips, vector
 * bases \m and \s, the slave on IR2, ICW4 = \icw4 (1: 8086 mode, 3:
 * also auto-EOI) */
	.macro pic_init m, s, icw4
	mov $0x11, %al		/* ICW1: edge, cascade, ICW4 */
	out %al, $0x20
	out %al, $0xa0
	mov $\m, %al		/* ICW2 */
	out %al, $0x21
	mov $\s, %al
	out %al, $0xa1
	mov $0x04, %al		/* ICW3 */
	out %al, $0x21
	mov $0x02, %al
	out %al, $0xa1
	mov $\icw4, %al		/* ICW4 */
	out %al, $0x21
	out %al, $0xa1
	.endm

/* PIT channel 0: mode 3, count 1193 (1 ms) */
	.macro pit_1ms
	mov $0x36, %al
	out %al, $0x43
	mov $0xa9, %al
	out %al, $0x40
	mov $0x04, %al
	out %al, $0x40
	.endm

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
	idt_gate 0x41
	lidt idtr
	mov $0xfee00000, %esi
	mov $0xfec00000, %ebx
	movl $0x1ff, 0xf0(%rsi)
	/* the 8259s stay masked (never initialised) */
	mov $0xff, %al
	out %al, $0x21
	out %al, $0xa1
