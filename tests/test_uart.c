// SPDX-License-Identifier: MIT
/* The 16550 model, register by register (PC16550D datasheet). */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/uart.h"
#include "dev/uart.h"

static char out[64];
static unsigned nout;
static int irq_level, irq_changes;

static void tx(void *ctx, uint8_t b)
{
	(void)ctx;
	if (nout < sizeof(out))
		out[nout++] = b;
}

static void irq(void *ctx, int level)
{
	(void)ctx;
	irq_level = level;
	irq_changes++;
}

static struct uart u;

static void setup(void)
{
	nout = 0;
	irq_level = irq_changes = 0;
	memset(out, 0, sizeof(out));
	uart_init(&u, tx, irq, NULL);
}

TestSuite(uart, .init = setup);

Test(uart, thr_transmits_and_lsr_always_empty)
{
	cr_assert_eq(uart_read(&u, UART_LSR) & (UART_LSR_THRE | UART_LSR_TEMT),
		     UART_LSR_THRE | UART_LSR_TEMT);
	uart_write(&u, UART_THR, 'h');
	uart_write(&u, UART_THR, 'i');
	cr_assert_eq(nout, 2);
	cr_assert_str_eq(out, "hi");
	cr_assert(uart_read(&u, UART_LSR) & UART_LSR_THRE);
	cr_assert_not(uart_read(&u, UART_LSR) & UART_LSR_DR);
}

Test(uart, dlab_switches_divisor_latch)
{
	uart_write(&u, UART_IER, 0x05);
	uart_write(&u, UART_LCR, UART_LCR_DLAB | 0x03);
	uart_write(&u, UART_DLL, 0x01);		/* 115200 baud */
	uart_write(&u, UART_DLM, 0x00);
	cr_assert_eq(nout, 0, "a DLL write must not transmit");
	cr_assert_eq(uart_read(&u, UART_DLL), 0x01);
	cr_assert_eq(uart_read(&u, UART_DLM), 0x00);
	uart_write(&u, UART_LCR, 0x03);
	cr_assert_eq(uart_read(&u, UART_IER), 0x05, "IER kept under DLAB");
	cr_assert_eq(uart_read(&u, UART_LCR), 0x03);
}

Test(uart, scratch_and_mcr)
{
	uart_write(&u, UART_SCR, 0x5a);
	cr_assert_eq(uart_read(&u, UART_SCR), 0x5a);
	uart_write(&u, UART_MCR, 0xff);
	cr_assert_eq(uart_read(&u, UART_MCR), 0x1f, "MCR bits 5-7 read 0");
}

Test(uart, loopback_receives_own_bytes_and_wires_msr)
{
	uart_write(&u, UART_MCR, UART_MCR_LOOP | UART_MCR_RTS | UART_MCR_OUT2);
	uart_write(&u, UART_THR, 0xab);
	cr_assert_eq(nout, 0, "loopback must not reach the line");
	cr_assert(uart_read(&u, UART_LSR) & UART_LSR_DR);
	cr_assert_eq(uart_read(&u, UART_RBR), 0xab);
	cr_assert_not(uart_read(&u, UART_LSR) & UART_LSR_DR);
	/* RTS -> CTS, OUT2 -> DCD, DTR and OUT1 low -> DSR and RI low */
	cr_assert_eq(uart_read(&u, UART_MSR) & 0xf0, UART_MSR_CTS | UART_MSR_DCD);
}

Test(uart, rx_fifo_order_and_overrun)
{
	unsigned i;

	for (i = 0; i < UART_RX_FIFO; i++)
		cr_assert(uart_receive(&u, 'a' + i));
	cr_assert_not(uart_receive(&u, 'z'), "17th byte overruns");
	cr_assert(uart_read(&u, UART_LSR) & 0x02, "overrun error bit");
	cr_assert_not(uart_read(&u, UART_LSR) & 0x02, "cleared by the read");
	for (i = 0; i < UART_RX_FIFO; i++)
		cr_assert_eq(uart_read(&u, UART_RBR), 'a' + i);
	cr_assert_eq(uart_read(&u, UART_RBR), 0, "empty FIFO reads 0");
}

Test(uart, iir_priorities_and_out2_gates_irq)
{
	cr_assert_eq(uart_read(&u, UART_IIR) & 0x0f, UART_IIR_NO_INT);
	uart_write(&u, UART_IER, UART_IER_RDI | UART_IER_THRI);
	/* enabling THRI with the THR empty raises it, but OUT2 is low */
	cr_assert_eq(irq_level, 0);
	uart_write(&u, UART_MCR, UART_MCR_OUT2);
	cr_assert_eq(irq_level, 1);
	uart_receive(&u, 'x');
	cr_assert_eq(uart_read(&u, UART_IIR) & 0x0f, UART_IIR_RDI,
		     "received data outranks THR empty");
	uart_read(&u, UART_RBR);
	cr_assert_eq(uart_read(&u, UART_IIR) & 0x0f, UART_IIR_THRI);
	/* that IIR read acknowledged THRE */
	cr_assert_eq(uart_read(&u, UART_IIR) & 0x0f, UART_IIR_NO_INT);
	cr_assert_eq(irq_level, 0);
	uart_write(&u, UART_THR, '!');
	cr_assert_eq(irq_level, 1, "THR empty again after a write");
}

Test(uart, fifo_control)
{
	uart_write(&u, UART_FCR, UART_FCR_FIFO);
	cr_assert_eq(uart_read(&u, UART_IIR) & UART_IIR_FIFO, UART_IIR_FIFO);
	uart_receive(&u, '1');
	uart_write(&u, UART_FCR, UART_FCR_FIFO | UART_FCR_CLR_RX);
	cr_assert_not(uart_read(&u, UART_LSR) & UART_LSR_DR);
}

Test(uart, lsr_and_msr_writes_ignored)
{
	uart_write(&u, UART_LSR, 0x00);
	cr_assert(uart_read(&u, UART_LSR) & UART_LSR_THRE);
	uart_write(&u, UART_MSR, 0x00);
	cr_assert_eq(uart_read(&u, UART_MSR) & 0xf0,
		     UART_MSR_CTS | UART_MSR_DSR | UART_MSR_DCD);
}
