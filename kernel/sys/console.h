/* SPDX-License-Identifier: MIT */
/*
 * The console: the irqlab paravirtual console when irqlab-vmm is there,
 * else COM1; and the VGA text screen too where COM1 is missing, or with
 * console=vga.  kprintf (printf.h) writes here.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

/* Pick the device and initialize it.  Output before this goes to COM1. */
void console_init(void);
void console_putc(char c);
/* Send a partial line now (the paravirtual console buffers lines). */
void console_flush(void);
/* console=vga on the command line: mirror to the VGA screen as well. */
void console_setup(void);
/* At the end: on the VGA screen, the last records again, so that the
 * result is on the screen a machine without a serial port shows. */
void console_replay(void);
/* Hold the console for several writes (nests on one CPU). */
void console_lock(void);
void console_unlock(void);

#endif
