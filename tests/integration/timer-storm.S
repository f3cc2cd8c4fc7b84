/*
 * A hostile guest for tests/integration/test_vmm_fuzz.py: the LAPIC timer in
 * periodic mode with TMICT 1 at divide by 1, a 1 ns period at the default
 * 1 GHz, then WRITES (default 20000) port writes, with IF=0 or, with
 * -DSTI, IF=1 (each
 * interrupt EOI'd by the shared handler).  irqlab-vmm fires a periodic
 * timer at most every 200 us, as KVM does (docs/LAPIC.md); without that
 * floor the vCPU thread only re-armed its host timer and the guest never
 * ran again.  The end is exit 0x10 (status 33).
 */
#include "guest64-head.S"
	movl $0xb, 0x3e0(%rsi)		/* TDCR: divide by 1 */
	movl $0x20041, 0x320(%rsi)	/* LVT timer: periodic, vector 0x41 */
	movl $1, 0x380(%rsi)		/* TMICT */
#ifndef WRITES
#define WRITES 20000
#endif
#ifdef STI
	sti
#endif
	mov $WRITES, %ecx
1:	mov $0x2000, %dx		/* pc-testdev line 0, low */
	xor %eax, %eax
	out %al, %dx
	dec %ecx
	jnz 1b
#include "guest64-tail.S"
