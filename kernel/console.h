/* SPDX-License-Identifier: MIT */
/*
 * The console: the irqlab paravirtual console when irqlab-vmm is there,
 * else COM1.  kprintf (printf.h) writes here.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

/* Pick the device and initialize it.  Output before this goes to COM1. */
void console_init(void);
void console_putc(char c);
/* Send a partial line now (the paravirtual console buffers lines). */
void console_flush(void);
/* Hold the console for several writes (nests on one CPU). */
void console_lock(void);
void console_unlock(void);

#endif
