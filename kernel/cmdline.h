/* SPDX-License-Identifier: MIT */
/*
 * The kernel command line as argv words.  Both QEMU's loader and
 * irqlab-vmm's pass the kernel path as argv[0], then the user's words.
 * Words are separated by spaces or tabs; there is no quoting.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#define CMDLINE_MAX		1024	/* bytes kept, NUL included */
#define CMDLINE_MAX_ARGS	32	/* words kept */

/* Copy and split @s (may be NULL: no words).  Replaces what was before. */
void cmdline_init(const char *s);
int cmdline_argc(void);
/* argv[@i], or NULL if @i >= argc */
const char *cmdline_arg(int i);
/* The value of the last "key=value" word after argv[0], or NULL. */
const char *cmdline_get(const char *key);
/*
 * "@key=N": a decimal from @lo to @hi, else @def (absent), or @def and a
 * console line saying so (not a number, or out of range).
 */
unsigned cmdline_uint(const char *key, unsigned def, unsigned lo,
		      unsigned hi);
/* 1 if the line had more bytes or words than kept. */
int cmdline_truncated(void);

#endif
