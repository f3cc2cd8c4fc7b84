/* SPDX-License-Identifier: MIT */
/* 16550 UART registers (National Semiconductor PC16550D datasheet, table 2). */
#ifndef HW_UART_H
#define HW_UART_H

#define UART_RBR	0	/* in:  receive buffer (DLAB=0) */
#define UART_THR	0	/* out: transmit holding (DLAB=0) */
#define UART_DLL	0	/* divisor latch low (DLAB=1) */
#define UART_IER	1	/* interrupt enable (DLAB=0) */
#define UART_DLM	1	/* divisor latch high (DLAB=1) */
#define UART_IIR	2	/* in:  interrupt identification */
#define UART_FCR	2	/* out: FIFO control */
#define UART_LCR	3	/* line control */
#define UART_MCR	4	/* modem control */
#define UART_LSR	5	/* line status */
#define UART_MSR	6	/* modem status */
#define UART_SCR	7	/* scratch */

#define UART_IER_RDI	0x01	/* received data available */
#define UART_IER_THRI	0x02	/* THR empty */
#define UART_IER_RLSI	0x04	/* receiver line status */
#define UART_IER_MSI	0x08	/* modem status */

#define UART_IIR_NO_INT	0x01	/* no interrupt pending */
#define UART_IIR_THRI	0x02	/* THR empty */
#define UART_IIR_RDI	0x04	/* received data */
#define UART_IIR_FIFO	0xc0	/* FIFOs enabled */

#define UART_FCR_FIFO	0x01	/* enable FIFOs */
#define UART_FCR_CLR_RX	0x02
#define UART_FCR_CLR_TX	0x04

#define UART_LCR_DLAB	0x80	/* divisor latch access */

#define UART_MCR_DTR	0x01
#define UART_MCR_RTS	0x02
#define UART_MCR_OUT1	0x04
#define UART_MCR_OUT2	0x08
#define UART_MCR_LOOP	0x10

#define UART_LSR_DR	0x01	/* data ready */
#define UART_LSR_THRE	0x20	/* THR empty */
#define UART_LSR_TEMT	0x40	/* transmitter empty */

#define UART_MSR_CTS	0x10
#define UART_MSR_DSR	0x20
#define UART_MSR_RI	0x40
#define UART_MSR_DCD	0x80

#endif
