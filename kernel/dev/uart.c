// SPDX-License-Identifier: MIT
/*
 * A polled 16550 driver.  Register and bit names are those of the PC16550D
 * datasheet (include/hw/uart.h).  No interrupts: the kernel waits for
 * LSR.THRE before each write.
 */
#include <stdint.h>

#include "hw/uart.h"
#include "uart.h"
#include "arch/x86.h"

#define UART_CLOCK	1843200		/* the PC's 1.8432 MHz crystal */
#define UART_BAUD	115200
/* datasheet: baud = clock / (16 * divisor) */
#define UART_DIVISOR	(UART_CLOCK / (16 * UART_BAUD))

#define LCR_8N1		0x03		/* WLS = 11: 8 bits; STB = 0; PEN = 0 */
#define FCR_TRIGGER_14	0xc0		/* RX FIFO interrupt at 14 bytes */

/*
 * Bound every wait: a missing UART reads 0xff (THRE and TEMT set, so we do
 * not wait), but a wedged one must not hang the kernel forever.
 */
#define UART_SPIN_MAX	1000000

void uart_init(uint16_t base)
{
	outb(base + UART_IER, 0);			/* no interrupts */
	outb(base + UART_LCR, UART_LCR_DLAB);		/* divisor latch on */
	outb(base + UART_DLL, UART_DIVISOR & 0xff);
	outb(base + UART_DLM, UART_DIVISOR >> 8);
	outb(base + UART_LCR, LCR_8N1);			/* and off again */
	outb(base + UART_FCR, UART_FCR_FIFO | UART_FCR_CLR_RX |
			      UART_FCR_CLR_TX | FCR_TRIGGER_14);
	outb(base + UART_MCR, UART_MCR_DTR | UART_MCR_RTS);
}

static void wait_lsr(uint16_t base, uint8_t bit)
{
	int n;

	for (n = 0; n < UART_SPIN_MAX; n++) {
		if (inb(base + UART_LSR) & bit)
			return;
		cpu_relax();
	}
}

void uart_putc(uint16_t base, char c)
{
	wait_lsr(base, UART_LSR_THRE);
	outb(base + UART_THR, c);
}

void uart_flush(uint16_t base)
{
	wait_lsr(base, UART_LSR_TEMT);
}

/* PC16550D: SCR "is intended for the programmer's use as a scratchpad" */
int uart_present(uint16_t base)
{
	outb(base + UART_SCR, 0x5a);
	if (inb(base + UART_SCR) != 0x5a)
		return 0;
	outb(base + UART_SCR, 0xa5);
	return inb(base + UART_SCR) == 0xa5;
}
