/* SPDX-License-Identifier: MIT */
/* The legacy 8259A pair: masked at boot (the IOAPIC and the local APICs
 * take every interrupt). */
#ifndef KERNEL_PIC_H
#define KERNEL_PIC_H

/*
 * OCW1 0xff to both data ports: every line masked, 2 exits.  The pair is
 * left as the firmware (or the VMM's reset state) initialised it; no
 * ICW sequence, which would cost 8 more exits for nothing while every
 * line stays masked and LINT0 (where its INTR goes) is masked too.
 */
void pic_mask_all(void);

#endif
