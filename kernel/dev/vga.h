/* SPDX-License-Identifier: MIT */
/*
 * The VGA text console: 80x25 characters at 0xb8000, for a machine with
 * no serial port (docs/BOOT.md "Bare metal").  The console mirrors its
 * output here when COM1 is missing, or with console=vga.
 */
#ifndef KERNEL_VGA_H
#define KERNEL_VGA_H

void vga_clear(void);
void vga_putc(char c);

#endif
