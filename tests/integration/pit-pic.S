/*
 * A tiny multiboot guest for tests/integration/test_vmm_irq.py: ISA IRQ0 from
 * the PIT (channel 0, mode 3, 1 ms) through the 8259A pair (vectors
 * 0x40-0x4f, auto-EOI) and the BSP's LINT0 as ExtINT, into vector 0x40.
 * It waits in sti; hlt for 50 interrupts, so each one has to wake a
 * halted vCPU, and exits through isa-debug-exit with 0x10 (status 33).
 * The shared handler's LAPIC EOI is harmless: an ExtINT is not in the
 * LAPIC's ISR (SDM 11.8.1), and auto-EOI ends it in the PIC.
 */
#include "guest64-head.S"
	idt_gate 0x40		/* IR0: the shared handler */
	pic_init 0x40, 0x48, 0x03	/* auto-EOI */
	mov $0xfe, %al		/* OCW1: only IR0, the PIT */
	out %al, $0x21
	mov $0xff, %al
	out %al, $0xa1
	movl $0x700, 0x350(%rsi)	/* LVT LINT0: ExtINT, unmasked */
	pit_1ms
	sti
3:	hlt
	cmpl $50, count
	jb 3b
#include "guest64-tail.S"
