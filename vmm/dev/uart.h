/* SPDX-License-Identifier: MIT */
/* A 16550A UART model (PC16550D datasheet).  Pure: bytes out through a callback. */
#ifndef VMM_UART_H
#define VMM_UART_H

#include <stdbool.h>
#include <stdint.h>

#define UART_RX_FIFO	16

struct uart {
	uint8_t ier, lcr, mcr, scr, fcr;
	uint8_t dll, dlm;
	uint8_t lsr;			/* DR and error bits; THRE/TEMT are implied */
	uint8_t msr_delta;		/* MSR bits 0-3 */
	bool thri_pending;		/* THR-empty interrupt not yet acknowledged */
	uint8_t rx[UART_RX_FIFO];
	unsigned rx_head, rx_count;
	void (*tx)(void *ctx, uint8_t byte);	/* a transmitted byte */
	void (*irq)(void *ctx, int level);	/* INTR output (through OUT2) */
	void *ctx;
	int irq_level;
};

void uart_init(struct uart *u, void (*tx)(void *, uint8_t),
	       void (*irq)(void *, int), void *ctx);
uint8_t uart_read(struct uart *u, unsigned reg);
void uart_write(struct uart *u, unsigned reg, uint8_t val);
/* A byte arrives on the receive line; false if the FIFO overran. */
bool uart_receive(struct uart *u, uint8_t byte);

#endif
