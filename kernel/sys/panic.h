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

/*
 * A check=... part found a rule broken: panic() with @why and @fields, or
 * with onfail=go on the command line print "@check_failed check=@check
 * <fields>" and return, so that the next check runs (make conformance,
 * and a hypervisor that fails one check: docs/CONFORMANCE.md).
 */
void check_failed(const char *check, const char *why, const char *fields, ...)
	__attribute__((format(printf, 3, 4)));

/* After the last check: with onfail=go and a check failed, panic with
 * reason=checks and the checks that failed. */
void checks_done(void);

#endif
