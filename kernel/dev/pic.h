/* SPDX-License-Identifier: MIT */
/*
 * The legacy 8259A pair.  At boot it is only masked (the IOAPIC and the
 * local APICs take every interrupt); check=pic (pic_check.c) initialises
 * it and takes its interrupts on the BSP's LINT0 as ExtINT.  Line n is
 * ISA IRQ n: 0-7 the master, 8-15 the slave on the master's IR2.
 */
#ifndef KERNEL_PIC_H
#define KERNEL_PIC_H

#include <stdint.h>

/*
 * OCW1 0xff to both data ports: every line masked, 2 exits.  The pair is
 * left as the firmware (or the VMM's reset state) initialised it; no
 * ICW sequence, which would cost 8 more exits for nothing while every
 * line stays masked and LINT0 (where its INTR goes) is masked too.
 */
void pic_mask_all(void);

/* ICW1-ICW4: cascade, 8086 mode, normal EOI, edge; the master's vectors
 * @base..@base+7 (@base a multiple of 8), the slave's the next 8.  Every
 * line masked after. */
void pic_init(uint8_t base);
/* OCW1: bit n masks line n; a slave line unmasked unmasks the cascade */
void pic_set_mask(uint16_t mask);
/* ELCR (0x4d0, 0x4d1): bit n set, line n level-triggered */
void pic_set_elcr(uint16_t elcr);
uint16_t pic_get_elcr(void);
/* OCW2 non-specific EOI for an interrupt of @line (both chips if slave) */
void pic_eoi(unsigned line);
/* OCW3 reads: the request and in-service registers, bit n for line n */
uint16_t pic_irr(void);
uint16_t pic_isr(void);

#endif
