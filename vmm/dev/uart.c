// SPDX-License-Identifier: MIT
/*
 * 16550A UART.  Transmission is instantaneous: the THR is always empty, so
 * LSR reads THRE|TEMT and a guest polling it never waits.  Register
 * semantics follow the PC16550D datasheet, table 2 and sec. 8.
 */
#include <string.h>

#include "hw/uart.h"
#include "uart.h"

void uart_init(struct uart *u, void (*tx)(void *, uint8_t),
	       void (*irq)(void *, int), void *ctx)
{
	memset(u, 0, sizeof(*u));
	u->tx = tx;
	u->irq = irq;
	u->ctx = ctx;
	u->lcr = 0x03;		/* 8N1 */
}

/* IIR priority (datasheet table 4): line status > data > THR empty > modem */
static uint8_t uart_iir(const struct uart *u)
{
	uint8_t fifo = (u->fcr & UART_FCR_FIFO) ? UART_IIR_FIFO : 0;

	if ((u->ier & UART_IER_RLSI) && (u->lsr & 0x1e))
		return fifo | 0x06;
	if ((u->ier & UART_IER_RDI) && u->rx_count)
		return fifo | UART_IIR_RDI;
	if ((u->ier & UART_IER_THRI) && u->thri_pending)
		return fifo | UART_IIR_THRI;
	if ((u->ier & UART_IER_MSI) && u->msr_delta)
		return fifo | 0x00;
	return fifo | UART_IIR_NO_INT;
}

/* INTR reaches the PIC/IOAPIC only while MCR.OUT2 is set (PC wiring). */
static void uart_update_irq(struct uart *u)
{
	int level = !(uart_iir(u) & UART_IIR_NO_INT) &&
		    (u->mcr & UART_MCR_OUT2);

	if (level != u->irq_level) {
		u->irq_level = level;
		if (u->irq)
			u->irq(u->ctx, level);
	}
}

bool uart_receive(struct uart *u, uint8_t byte)
{
	if (u->rx_count == UART_RX_FIFO) {
		u->lsr |= 0x02;		/* overrun error */
		uart_update_irq(u);
		return false;
	}
	u->rx[(u->rx_head + u->rx_count) % UART_RX_FIFO] = byte;
	u->rx_count++;
	u->lsr |= UART_LSR_DR;
	uart_update_irq(u);
	return true;
}

static uint8_t uart_pop(struct uart *u)
{
	uint8_t b = 0;

	if (u->rx_count) {
		b = u->rx[u->rx_head];
		u->rx_head = (u->rx_head + 1) % UART_RX_FIFO;
		if (--u->rx_count == 0)
			u->lsr &= ~UART_LSR_DR;
	}
	return b;
}

/* MSR: in loopback the modem inputs are wired to MCR outputs (sec. 8.6). */
static uint8_t uart_msr(const struct uart *u)
{
	uint8_t m = u->mcr, in;

	if (m & UART_MCR_LOOP)
		in = ((m & UART_MCR_RTS) ? UART_MSR_CTS : 0) |
		     ((m & UART_MCR_DTR) ? UART_MSR_DSR : 0) |
		     ((m & UART_MCR_OUT1) ? UART_MSR_RI : 0) |
		     ((m & UART_MCR_OUT2) ? UART_MSR_DCD : 0);
	else
		in = UART_MSR_CTS | UART_MSR_DSR | UART_MSR_DCD;
	return in | u->msr_delta;
}

uint8_t uart_read(struct uart *u, unsigned reg)
{
	bool dlab = u->lcr & UART_LCR_DLAB;
	uint8_t v;

	switch (reg & 7) {
	case UART_RBR:
		if (dlab)
			return u->dll;
		v = uart_pop(u);
		uart_update_irq(u);
		return v;
	case UART_IER:
		return dlab ? u->dlm : u->ier;
	case UART_IIR:
		v = uart_iir(u);
		/* reading IIR while it reports THR empty clears that source */
		if ((v & 0x0f) == UART_IIR_THRI)
			u->thri_pending = false;
		uart_update_irq(u);
		return v;
	case UART_LCR:
		return u->lcr;
	case UART_MCR:
		return u->mcr;
	case UART_LSR:
		v = u->lsr | UART_LSR_THRE | UART_LSR_TEMT;
		u->lsr &= ~0x1e;	/* error bits clear on read */
		uart_update_irq(u);
		return v;
	case UART_MSR:
		v = uart_msr(u);
		u->msr_delta = 0;
		uart_update_irq(u);
		return v;
	default:
		return u->scr;
	}
}

void uart_write(struct uart *u, unsigned reg, uint8_t val)
{
	bool dlab = u->lcr & UART_LCR_DLAB;

	switch (reg & 7) {
	case UART_THR:
		if (dlab) {
			u->dll = val;
			return;
		}
		if (u->mcr & UART_MCR_LOOP)
			uart_receive(u, val);
		else if (u->tx)
			u->tx(u->ctx, val);
		u->thri_pending = true;	/* the byte left at once */
		break;
	case UART_IER:
		if (dlab) {
			u->dlm = val;
			return;
		}
		/* enabling THRI with an empty THR raises it (sec. 8.5) */
		if ((val & UART_IER_THRI) && !(u->ier & UART_IER_THRI))
			u->thri_pending = true;
		u->ier = val & 0x0f;
		break;
	case UART_FCR:
		if (val & UART_FCR_CLR_RX) {
			u->rx_count = 0;
			u->lsr &= ~UART_LSR_DR;
		}
		u->fcr = val & (UART_FCR_FIFO | 0xc0);
		break;
	case UART_LCR:
		u->lcr = val;
		return;
	case UART_MCR:
		u->mcr = val & 0x1f;
		break;
	case UART_LSR:
	case UART_MSR:
		return;		/* read-only on a 16550 */
	default:
		u->scr = val;
		return;
	}
	uart_update_irq(u);
}
