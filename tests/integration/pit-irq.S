/*
 * A tiny multiboot guest for tests/integration/test_vmm_irq.py: ISA IRQ0 from
 * the PIT (channel 0, mode 3, 1 ms) through IOAPIC pin 2 (the MADT
 * override) into vector 0x41 on CPU 0, edge-triggered, or level-triggered
 * with -DLEVEL (then the line stays asserted for half of each period, and
 * each EOI brings the next interrupt at once).  It counts 50 interrupts,
 * one LAPIC EOI each, and exits through isa-debug-exit with 0x10 (status
 * 33).  Long mode, because the host's KVM cannot IRET in 32-bit mode.
 */
#ifdef LEVEL
#define RTE_LO	0x8041		/* level, fixed, physical, vector 0x41 */
#else
#define RTE_LO	0x0041
#endif
#include "guest64-head.S"
	/* IOAPIC pin 2: destination 0 first, then the low dword unmasked */
	movl $0x15, (%rbx)
	movl $0, 0x10(%rbx)
	movl $0x14, (%rbx)
	movl $RTE_LO, 0x10(%rbx)
	pit_1ms
	sti
3:	hlt
	cmpl $50, count
	jb 3b
#include "guest64-tail.S"
