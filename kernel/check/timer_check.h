/* SPDX-License-Identifier: MIT */
/* check=timer: the LAPIC timer's modes, on the BSP (timer_check.c). */
#ifndef KERNEL_TIMER_CHECK_H
#define KERNEL_TIMER_CHECK_H

/* Prints @timer_check; panics when a mode misbehaves.  Interrupts off. */
void timer_check(void);

#endif
