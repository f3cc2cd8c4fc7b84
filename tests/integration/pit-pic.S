/*
 * A tiny multiboot guest for tests/integration/vmm-boot.sh: ISA IRQ0 from
 * the PIT (channel 0, mode 3, 1 ms) through the 8259A pair (vectors
 * 0x40-0x4f, auto-EOI) and the BSP's LINT0 as ExtINT, into vector 0x40.
 * It waits in sti; hlt for 50 interrupts, so each one has to wake a
 * halted vCPU, and exits through isa-debug-exit with 0x10 (status 33).
 * The shared handler's LAPIC EOI is harmless: an ExtINT is not in the
 * LAPIC's ISR (SDM 11.8.1), and auto-EOI ends it in the PIC.
 */
#include "guest64-head.S"
	/* IDT entry 0x40 (IR0): the shared handler, as head.S does 0x41 */
	lea handler(%rip), %rax
	mov %ax, idt + 0x40 * 16
	movw $0x08, idt + 0x40 * 16 + 2
	movw $0x8e00, idt + 0x40 * 16 + 4
	shr $16, %rax
	mov %ax, idt + 0x40 * 16 + 6
	mov $0x11, %al		/* ICW1: edge, cascade, ICW4 */
	out %al, $0x20
	out %al, $0xa0
	mov $0x40, %al		/* ICW2 */
	out %al, $0x21
	mov $0x48, %al
	out %al, $0xa1
	mov $0x04, %al		/* ICW3 */
	out %al, $0x21
	mov $0x02, %al
	out %al, $0xa1
	mov $0x03, %al		/* ICW4: 8086 mode, auto-EOI */
	out %al, $0x21
	out %al, $0xa1
	mov $0xfe, %al		/* OCW1: only IR0, the PIT */
	out %al, $0x21
	mov $0xff, %al
	out %al, $0xa1
	movl $0x700, 0x350(%rsi)	/* LVT LINT0: ExtINT, unmasked */
	/* PIT channel 0: mode 3, count 1193 (1 ms) */
	mov $0x36, %al
	out %al, $0x43
	mov $0xa9, %al
	out %al, $0x40
	mov $0x04, %al
	out %al, $0x40
	sti
3:	hlt
	cmpl $50, count
	jb 3b
#include "guest64-tail.S"
