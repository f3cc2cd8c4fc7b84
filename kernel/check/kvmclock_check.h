/* SPDX-License-Identifier: MIT */
/* check=kvmclock: KVM's paravirtual clock (kvmclock_check.c,
 * docs/RECORDS.md @kvmclock). */
#ifndef KERNEL_KVMCLOCK_CHECK_H
#define KERNEL_KVMCLOCK_CHECK_H

/* Prints @kvmclock; check_failed() if a step failed, SKIPPED without
 * KVM's leaves. */
void kvmclock_check(void);

#endif
