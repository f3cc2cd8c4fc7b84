/* SPDX-License-Identifier: MIT */
/* A polled 16550 UART driver (include/hw/uart.h has the registers). */
#ifndef KERNEL_UART_H
#define KERNEL_UART_H

#include <stdint.h>

/* 115200 baud, 8 data bits, no parity, 1 stop bit, FIFOs on, no IRQs. */
void uart_init(uint16_t base);
/* Send one byte when the transmit holding register is empty. */
void uart_putc(uint16_t base, char c);
/* Wait until the transmitter has sent every byte. */
void uart_flush(uint16_t base);
/* 1 if a UART answers at @base: its scratch register keeps what is
 * written (a missing one reads 0xff). */
int uart_present(uint16_t base);

#endif
