/* SPDX-License-Identifier: MIT */
/*
 * The 8254 PIT (include/hw/pit.h): channel 0 as the IRQ0 timer, periodic
 * or one-shot, and channel 2 as a polled delay through port 0x61.
 * Calibration times the same channel-2 one-shot with TSC stamps around
 * each access (calib/calib_ref.c, calib_pit()); this is the untimed form.
 */
#ifndef KERNEL_PIT_H
#define KERNEL_PIT_H

#include <stdint.h>

#include "hw/pit.h"

/* PIT ticks for @us microseconds, 1 to 65535 (0 means 65536 to the 8254) */
uint32_t pit_ticks_for_us(uint32_t us);

/* Channel 0, binary, LSB then MSB.  Mode 2 (rate generator): IRQ0 every
 * @count ticks.  Mode 0: one IRQ0 after @count ticks. */
void pit_ch0_periodic(uint16_t count);
void pit_ch0_oneshot(uint16_t count);
/* Mode 0 control word and no count: OUT0 stays low, no more IRQ0. */
void pit_ch0_stop(void);
/* The current count of channel 0 (counter-latch command). */
uint16_t pit_ch0_read(void);

/* Channel 2, mode 0, gated on, speaker off: OUT2 rises after @count. */
void pit_ch2_start(uint16_t count);
int pit_ch2_done(void);			/* port 0x61 bit 5: OUT2 */
void pit_ch2_stop(void);		/* gate off */
/*
 * Wait @us (1 to 54925) on channel 2.  0, or -1 if OUT2 never rose
 * within a generous bound of polls (no PIT: port 0x61 reads all-ones
 * counts as absent and fails at once).
 */
int pit_delay_us(uint32_t us);

#endif
