// SPDX-License-Identifier: MIT
/*
 * The 8254 (Intel 8254 datasheet, 231164): control word at 0x43, counts
 * LSB then MSB.  Mode 0 ("interrupt on terminal count"): OUT goes low at
 * the control word and high when the count reaches 0, once.  Mode 2
 * ("rate generator"): OUT pulses low once every N ticks.  Port 0x61 bit
 * 0 gates channel 2 and bit 5 reads OUT2 (IBM PC AT technical reference,
 * port B).
 */
#include <stdint.h>

#include "calib.h"
#include "pit.h"
#include "arch/x86.h"

/* polls per microsecond, as calib's guard: no port read takes < 10 ns */
#define POLLS_PER_US	CALIB_POLLS_PER_US
#define POLLS_SLACK	CALIB_POLLS_SLACK

uint32_t pit_ticks_for_us(uint32_t us)
{
	uint64_t t = calib_muldiv(PIT_HZ, us, 1000000);

	if (t < 1)
		t = 1;
	return t > 0xffff ? 0xffff : (uint32_t)t;
}

static void ch0_load(unsigned mode, uint16_t count)
{
	outb(PORT_PIT_CMD, PIT_SC(0) | PIT_RW_BOTH | PIT_MODE(mode));
	outb(PORT_PIT_CH0, count & 0xff);
	outb(PORT_PIT_CH0, count >> 8);
}

void pit_ch0_periodic(uint16_t count)
{
	ch0_load(2, count);
}

void pit_ch0_oneshot(uint16_t count)
{
	ch0_load(0, count);
}

void pit_ch0_stop(void)
{
	/* datasheet: a control word stops the count until a new one */
	outb(PORT_PIT_CMD, PIT_SC(0) | PIT_RW_BOTH | PIT_MODE(0));
}

uint16_t pit_ch0_read(void)
{
	uint16_t lo;

	outb(PORT_PIT_CMD, PIT_SC(0) | PIT_RW_LATCH);
	lo = inb(PORT_PIT_CH0);
	return lo | (uint16_t)inb(PORT_PIT_CH0) << 8;
}

void pit_ch2_start(uint16_t count)
{
	uint8_t b = inb(PORT_SYS_CTRL_B);

	outb(PORT_SYS_CTRL_B, (b & ~SYS_B_SPKR) | SYS_B_GATE2);
	outb(PORT_PIT_CMD, PIT_SC(2) | PIT_RW_BOTH | PIT_MODE(0));
	outb(PORT_PIT_CH2, count & 0xff);
	outb(PORT_PIT_CH2, count >> 8);
}

int pit_ch2_done(void)
{
	return !!(inb(PORT_SYS_CTRL_B) & SYS_B_OUT2);
}

void pit_ch2_stop(void)
{
	uint8_t b = inb(PORT_SYS_CTRL_B);

	outb(PORT_SYS_CTRL_B, b & ~(SYS_B_GATE2 | SYS_B_SPKR));
}

int pit_delay_us(uint32_t us)
{
	uint64_t n, limit = (uint64_t)us * POLLS_PER_US + POLLS_SLACK;
	int err = -1;

	if (inb(PORT_SYS_CTRL_B) == 0xff)
		return -1;		/* nothing answers */
	pit_ch2_start(pit_ticks_for_us(us));
	for (n = 0; n < limit; n++) {
		if (pit_ch2_done()) {
			err = 0;
			break;
		}
	}
	pit_ch2_stop();
	return err;
}
