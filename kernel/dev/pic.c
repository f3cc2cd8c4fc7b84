// SPDX-License-Identifier: MIT
/*
 * The PC's 8259A pair (Intel 8259A datasheet 231468): the master at
 * 0x20/0x21, the slave at 0xa0/0xa1 on the master's IR2, and the PIIX
 * edge/level control registers at 0x4d0/0x4d1 (82371AB PIIX4 datasheet
 * 4.1.10).  Section names below are the datasheet's.
 */
#include "pic.h"
#include "arch/x86.h"

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1
#define PIC_ELCR1	0x4d0
#define PIC_ELCR2	0x4d1

/* "Initialization Command Words" */
#define ICW1		0x10	/* A0 = 0, D4 = 1: starts ICW1-4 */
#define ICW1_IC4	0x01	/* ICW4 follows */
#define ICW4_8086	0x01	/* uPM: 8086 mode (vector = T7-T3 | IR) */
/* "Operation Command Words": OCW2 R SL EOI = 001, non-specific EOI */
#define OCW2_EOI	0x20
/* OCW3: read register, RIS = 0 IRR, 1 ISR */
#define OCW3_READ_IRR	0x0a
#define OCW3_READ_ISR	0x0b

void pic_mask_all(void)
{
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}

/*
 * ICW1 (edge mode, cascade, ICW4 needed), ICW2 (the vector of IR0; only
 * bits 7:3 count in 8086 mode), ICW3 (master: a slave on IR2; slave: its
 * ID, 2), ICW4 (8086 mode, normal EOI, not special fully nested).  ICW1
 * clears the IMR, so the masks follow at once (OCW1).
 */
void pic_init(uint8_t base)
{
	outb(PIC1_CMD, ICW1 | ICW1_IC4);
	outb(PIC1_DATA, base);
	outb(PIC1_DATA, 1u << 2);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_CMD, ICW1 | ICW1_IC4);
	outb(PIC2_DATA, base + 8);
	outb(PIC2_DATA, 2);
	outb(PIC2_DATA, ICW4_8086);
	pic_mask_all();
}

/* OCW1: bit n masks ISA line n; the cascade (2) is unmasked with any slave
 * line, since the slave's INTR reaches the CPU through it */
void pic_set_mask(uint16_t mask)
{
	if ((mask & 0xff00) != 0xff00)
		mask &= ~(1u << 2);
	outb(PIC1_DATA, mask & 0xff);
	outb(PIC2_DATA, mask >> 8);
}

/* PIIX4 4.1.10: bit n 1 makes ISA line n level-triggered (0, 1, 2, 8 and
 * 13 are always edge: the chipset ignores their bits) */
void pic_set_elcr(uint16_t elcr)
{
	outb(PIC_ELCR1, elcr & 0xff);
	outb(PIC_ELCR2, elcr >> 8);
}

uint16_t pic_get_elcr(void)
{
	return inb(PIC_ELCR1) | (uint16_t)inb(PIC_ELCR2) << 8;
}

/* "The End of Interrupt": a slave line needs an EOI to both chips */
void pic_eoi(unsigned line)
{
	if (line >= 8)
		outb(PIC2_CMD, OCW2_EOI);
	outb(PIC1_CMD, OCW2_EOI);
}

/* "Reading the 8259A Status": OCW3, then the command port */
static uint16_t read_reg(uint8_t ocw3)
{
	outb(PIC1_CMD, ocw3);
	outb(PIC2_CMD, ocw3);
	return inb(PIC1_CMD) | (uint16_t)inb(PIC2_CMD) << 8;
}

uint16_t pic_irr(void)
{
	return read_reg(OCW3_READ_IRR);
}

uint16_t pic_isr(void)
{
	uint16_t v = read_reg(OCW3_READ_ISR);

	read_reg(OCW3_READ_IRR);	/* back to the default */
	return v;
}
