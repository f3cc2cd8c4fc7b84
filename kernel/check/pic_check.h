/* SPDX-License-Identifier: MIT */
/* check=pic: the 8259A pair on the BSP's LINT0 as ExtINT, through
 * pc-testdev lines (pic_check.c, docs/RECORDS.md @pic_check). */
#ifndef KERNEL_PIC_CHECK_H
#define KERNEL_PIC_CHECK_H

/* Prints @pic_check; panics if a step failed.  Interrupts off after,
 * the PIC fully masked and LINT0 masked. */
void pic_check(void);

#endif
