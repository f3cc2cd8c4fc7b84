// SPDX-License-Identifier: MIT
/*
 * 8259A datasheet (Intel 231468), "Operation Command Words": outside an
 * initialisation sequence a write to the data port (A0 = 1) is OCW1, the
 * interrupt mask register; a 1 bit masks that IR line.
 */
#include "pic.h"
#include "x86.h"

#define PIC1_DATA	0x21
#define PIC2_DATA	0xa1

void pic_mask_all(void)
{
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}
