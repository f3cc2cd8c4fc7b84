// SPDX-License-Identifier: MIT
/*
 * 8259A datasheet (Intel 231468): ICW1 (0x11: edge, cascade, ICW4
 * follows) to the command port starts the sequence; ICW2 (vector base),
 * ICW3 (master: slave on IR2; slave: its ID 2) and ICW4 (0x01: 8086
 * mode) go to the data port.  Then OCW1, the interrupt mask register, to
 * the data port: 0xff masks all eight lines.  The vectors are moved off
 * the exception range even though nothing is unmasked, so a spurious
 * IRQ7 could never look like #DF's vector 8.
 */
#include "pic.h"
#include "x86.h"

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1

#define ICW1_INIT	0x10
#define ICW1_ICW4	0x01
#define ICW4_8086	0x01

void pic_disable(void)
{
	outb(PIC1_CMD, ICW1_INIT | ICW1_ICW4);
	outb(PIC2_CMD, ICW1_INIT | ICW1_ICW4);
	outb(PIC1_DATA, PIC_VECTOR_BASE);
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
	outb(PIC1_DATA, 1u << 2);		/* slave on IR2 */
	outb(PIC2_DATA, 2);			/* cascade identity */
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, 0xff);			/* OCW1: all masked */
	outb(PIC2_DATA, 0xff);
}
