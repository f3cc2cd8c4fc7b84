/* SPDX-License-Identifier: MIT */
/*
 * Freestanding printf.  Conversions: %d %i %u %x %X %p %s %c %%.
 * Flags '0' and '-', a field width, a precision (minimum digits for
 * integers, maximum bytes for %s); '*' for either takes an int argument.
 * Length modifiers l, ll, z.  No floating point.
 */
#ifndef KERNEL_PRINTF_H
#define KERNEL_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

/* Like C99: write at most @size bytes including the NUL, return the
 * length the whole output would have. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print to the console (sys/console.h); returns the number of bytes. */
int kvprintf(const char *fmt, va_list ap);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The sink kprintf() writes to, one byte at a time, under the lock that
 * keeps one call's output together.  sys/console.c implements it (and
 * sys/console.h declares it too): lib/ is the lowest layer and includes
 * nothing above it, so the console is named here, not included.
 */
void console_putc(char c);
void console_lock(void);
void console_unlock(void);

#endif
