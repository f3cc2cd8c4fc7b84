/* SPDX-License-Identifier: MIT */
/*
 * The console: the irqlab paravirtual console when irqlab-vmm is there,
 * else COM1.  kprintf (printf.h) writes here.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stddef.h>

/* Pick the device and initialize it.  Output before this goes to COM1. */
void console_init(void);
void console_putc(char c);
void console_write(const char *s, size_t n);
/* Send a partial line now (the paravirtual console buffers lines). */
void console_flush(void);
/* Hold the console for several writes (nests on one CPU). */
void console_lock(void);
void console_unlock(void);
/* 1 if output goes to the irqlab console port. */
int console_is_pv(void);

#endif
