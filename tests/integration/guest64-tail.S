/* guest64-head.S's other half: exit 0x10 (status 33), handler, tables */
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
