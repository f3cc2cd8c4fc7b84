/* SPDX-License-Identifier: MIT */
/* The legacy 8259A pair: initialised and masked at boot (the IOAPIC and
 * the local APICs take every interrupt). */
#ifndef KERNEL_PIC_H
#define KERNEL_PIC_H

#define PIC_VECTOR_BASE	0x20	/* master 0x20-0x27, slave 0x28-0x2f */

/* ICW1-ICW4 on both, then OCW1 0xff: every line masked. */
void pic_disable(void);

#endif
