// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the 16550A (vmm/dev/uart.c).  The input is a list of
 * operations, one opcode byte each (taken mod 4) and its argument bytes;
 * a missing argument reads as 0:
 *
 *	0 reg val	write @val to register reg % 8 (the guest's outb)
 *	1 reg		read register reg % 8 (the guest's inb)
 *	2 byte		a byte arrives on the receive line (the host's input)
 *	3 n		n % 32 bytes arrive at once (0x30, 0x31, ...)
 *
 * A shadow of the receive FIFO, the scratch and divisor registers follows
 * the operations.  Invariants (PC16550D datasheet), abort() on violation:
 * - the FIFO holds at most 16 bytes; a byte is refused (overrun, LSR bit
 *   1) only when it is full, and the bytes come out of RBR in the order
 *   they went in; FCR bit 1 empties it;
 * - LSR: DR is set exactly when a byte waits, THRE and TEMT always (the
 *   transmitter is instantaneous); bits 1-4 clear once read;
 * - IIR: bits 4-5 zero, bits 6-7 the FIFO enable, the identification one
 *   of the datasheet's table 4, and a source only if enabled in IER;
 * - INTR goes to the callback only on a change, and is set exactly when
 *   IIR shows an interrupt and MCR.OUT2 is set;
 * - a THR write goes out through tx (or, in loopback, into the FIFO);
 *   SCR, DLL, DLM and LCR read back as written.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/uart.h"
#include "dev/uart.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_uart: %s:%d: %s\n", __FILE__, __LINE__, \
			#cond); \
		abort(); \
	} \
} while (0)

static struct {
	int irq;
	int tx_expect;		/* the byte tx must see next, -1 if none */
	uint8_t fifo[UART_RX_FIFO];
	unsigned n;
	uint8_t scr, dll, dlm, lcr;
} s;

static void fake_tx(void *ctx, uint8_t byte)
{
	(void)ctx;
	CHECK(s.tx_expect == byte);
	s.tx_expect = -1;
}

static void fake_irq(void *ctx, int level)
{
	(void)ctx;
	CHECK(level != s.irq);
	s.irq = level;
}

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

static void receive(struct uart *u, uint8_t byte)
{
	bool ok = uart_receive(u, byte);

	CHECK(ok == (s.n < UART_RX_FIFO));
	if (ok)
		s.fifo[s.n++] = byte;
	else
		CHECK(u->lsr & 0x02);	/* overrun error */
}

static void op_write(struct uart *u, unsigned reg, uint8_t val)
{
	bool dlab = s.lcr & UART_LCR_DLAB;

	switch (reg) {
	case UART_THR:
		if (dlab) {
			s.dll = val;
			break;
		}
		if (u->mcr & UART_MCR_LOOP) {
			uart_write(u, reg, val);
			/* the byte came back in (or overran): shadow it */
			if (s.n < UART_RX_FIFO)
				s.fifo[s.n++] = val;
			return;
		}
		s.tx_expect = val;
		uart_write(u, reg, val);
		CHECK(s.tx_expect == -1);
		return;
	case UART_IER:
		if (dlab)
			s.dlm = val;
		break;
	case UART_FCR:
		if (val & UART_FCR_CLR_RX)
			s.n = 0;
		break;
	case UART_LCR:
		s.lcr = val;
		break;
	case UART_SCR:
		s.scr = val;
		break;
	}
	uart_write(u, reg, val);
}

static void op_read(struct uart *u, unsigned reg)
{
	bool dlab = s.lcr & UART_LCR_DLAB;
	uint8_t lsr_before = u->lsr, v, id;
	uint8_t ier = u->ier;

	v = uart_read(u, reg);
	switch (reg) {
	case UART_RBR:
		if (dlab) {
			CHECK(v == s.dll);
		} else if (s.n) {
			CHECK(v == s.fifo[0]);
			memmove(s.fifo, s.fifo + 1, --s.n);
		}
		break;
	case UART_IER:
		CHECK(v == (dlab ? s.dlm : ier));
		break;
	case UART_IIR:
		id = v & 0x0f;
		CHECK(!(v & 0x30));
		CHECK((v & 0xc0) == ((u->fcr & UART_FCR_FIFO) ? 0xc0 : 0));
		CHECK(id == 0x01 || id == 0x06 || id == 0x04 || id == 0x02 ||
		      id == 0x00);
		if (id == 0x06)
			CHECK(ier & UART_IER_RLSI);
		if (id == 0x04)
			CHECK((ier & UART_IER_RDI) && s.n);
		if (id == 0x02)
			CHECK(ier & UART_IER_THRI);
		if (id == 0x00)
			CHECK(ier & UART_IER_MSI);
		break;
	case UART_LCR:
		CHECK(v == s.lcr);
		break;
	case UART_LSR:
		CHECK((v & (UART_LSR_THRE | UART_LSR_TEMT)) ==
		      (UART_LSR_THRE | UART_LSR_TEMT));
		CHECK((v & 0x1e) == (lsr_before & 0x1e));
		CHECK(!(u->lsr & 0x1e));	/* errors clear on read */
		break;
	case UART_SCR:
		CHECK(v == s.scr);
		break;
	}
}

static void check(const struct uart *u)
{
	struct uart copy = *u;
	uint8_t iir;

	CHECK(u->rx_count == s.n);
	CHECK(u->rx_head < UART_RX_FIFO);
	CHECK(!!(u->lsr & UART_LSR_DR) == (s.n != 0));
	CHECK(s.irq == u->irq_level);
	/* INTR is IIR's "interrupt pending" gated by OUT2 */
	copy.irq = NULL;
	iir = uart_read(&copy, UART_IIR);
	CHECK(s.irq == (!(iir & UART_IIR_NO_INT) &&
			(u->mcr & UART_MCR_OUT2)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data, *end = data + size;
	struct uart u;
	unsigned i, n;
	uint8_t a;

	memset(&s, 0, sizeof(s));
	s.tx_expect = -1;
	s.lcr = 0x03;
	uart_init(&u, fake_tx, fake_irq, NULL);
	while (ip < end) {
		switch (*ip++ % 4) {
		case 0:
			a = arg(&ip, end) % 8;
			op_write(&u, a, arg(&ip, end));
			break;
		case 1:
			op_read(&u, arg(&ip, end) % 8);
			break;
		case 2:
			receive(&u, arg(&ip, end));
			break;
		default:
			n = arg(&ip, end) % 32;
			for (i = 0; i < n; i++)
				receive(&u, 0x30 + i);
			break;
		}
		check(&u);
	}
	return 0;
}
