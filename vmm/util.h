/* SPDX-License-Identifier: MIT */
#ifndef VMM_UTIL_H
#define VMM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * irqlab-vmm exit statuses.  They are even, so they never collide with
 * QEMU isa-debug-exit statuses, which are (V << 1) | 1.  docs/VMM.md lists them.
 */
#define EXIT_USAGE		2	/* bad option or argument */
#define EXIT_BADIMAGE		4	/* kernel or module cannot be loaded */
#define EXIT_HOST		6	/* KVM or host failure (no /dev/kvm, ioctl) */
#define EXIT_GUEST_SHUTDOWN	8	/* triple fault / KVM_EXIT_SHUTDOWN */
#define EXIT_GUEST_INTERNAL	10	/* KVM_EXIT_INTERNAL_ERROR */
#define EXIT_GUEST_FAIL_ENTRY	12	/* KVM_EXIT_FAIL_ENTRY */
#define EXIT_GUEST_UNHANDLED	14	/* an exit reason irqlab does not handle */
#define EXIT_GUEST_HALTED	16	/* HLT that nothing can ever wake */
#define EXIT_TIMEOUT		18	/* --timeout: the guest had not ended */
#define EXIT_SECCOMP		20	/* a vCPU thread made a call its filter traps */
#define EXIT_GUEST_RESET	22	/* the guest reset the machine (i8042) */
#define EXIT_GUEST_SLEEP	24	/* a sleep state the machine lacks (ACPI) */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic host time in nanoseconds. */
uint64_t now_ns(void);

/* An output file named by option @opt (--stats-json, --timeline): checked
 * at startup (dies with EXIT_USAGE), created only for the report. */
void out_check(const char *opt, const char *path);
FILE *out_open(const char *opt, const char *path);

#endif
