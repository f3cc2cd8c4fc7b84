/*
 * A hostile guest for tests/integration/test_vmm_irq.py: it initialises the
 * 8259A pair (vectors 0x30-0x3f), makes ISA line 5 level-triggered (ELCR),
 * unmasks it, sets the BSP's LINT0 to ExtINT and raises the line through
 * pc-testdev, so the PIC's INTR stays high for good; then it never sets
 * IF.  By default it spins a while with IF=0 and exits through
 * isa-debug-exit with 0x10 (status 33); the VMM must neither crash nor
 * take a stream of exits.  With -DHALT it ends in cli; hlt instead,
 * which nothing can wake: the VMM must say so and stop (status 16).
 */
#include "guest64-head.S"
	pic_init 0x30, 0x38, 0x01
	mov $0xdf, %al		/* OCW1: only line 5 */
	out %al, $0x21
	mov $0xff, %al
	out %al, $0xa1
	mov $0x20, %al		/* ELCR1: line 5 level */
	mov $0x4d0, %dx
	out %al, %dx
	movl $0x700, 0x350(%rsi)	/* LVT LINT0: ExtINT, unmasked */
	mov $1, %al
	mov $0x2005, %dx	/* pc-testdev: line 5 high */
	out %al, %dx
#ifdef HALT
	cli
	hlt
#else
	mov $200000, %ecx
1:	dec %ecx
	jnz 1b
#endif
#include "guest64-tail.S"
