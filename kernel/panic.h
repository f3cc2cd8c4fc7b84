/* SPDX-License-Identifier: MIT */
/* Stopping the kernel.  docs/RECORDS.md lists the exit statuses. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#define KERNEL_EXIT_OK		0x00	/* ran to the end */
#define KERNEL_EXIT_PANIC	0x31	/* @panic was printed */

/*
 * Flush the console and stop: irqlab-vmm exits with @status; QEMU with
 * isa-debug-exit exits with (@status << 1) | 1; elsewhere the CPU halts.
 */
void kernel_exit(unsigned status) __attribute__((noreturn));

/*
 * Print "@panic <fields>" (a printf format; key=value words, no spaces in
 * values), then "panic: <why>", and exit with KERNEL_EXIT_PANIC.
 */
void panic(const char *why, const char *fields, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#endif
