/*
 * A guest that waits forever for an interrupt that cannot come, for
 * --timeout (tests/integration/test_vmm_timeout.py).  Self IPI 0x41 is taken
 * and never EOI'd (ISR 0x41); a second one stays in IRR behind it (PPR
 * 0x40, SDM 11.8.3.1); TPR 0x30; then `sti; hlt` for good.  A masked
 * periodic APIC timer (1 ms) keeps irqlab's user irqchip from seeing a
 * VM that can never wake (status 16): it could, so only --timeout ends it.
 */
#include "guest64-head.S"
	idt_gate 0x41, noeoi
	movl $0xb, 0x3e0(%rsi)		/* TDCR: divide by 1 */
	movl $0x30040, 0x320(%rsi)	/* LVT timer: periodic, masked */
	movl $1000000, 0x380(%rsi)	/* TMICT: 1 ms at 1 GHz */
	sti
	movl $0x44041, 0x300(%rsi)	/* ICR: self, fixed, vector 0x41 */
	nop
	movl $0x44041, 0x300(%rsi)	/* again: held by the one in service */
	movl $0x30, 0x80(%rsi)		/* TPR */
1:	sti
	hlt
	jmp 1b
noeoi:	incl count			/* no EOI: 0x41 stays in service */
	iretq
#include "guest64-tail.S"
