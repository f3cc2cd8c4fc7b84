/* SPDX-License-Identifier: MIT */
/*
 * In-kernel futexes for sched.h's threads: a wait queue keyed by the
 * address of a 32-bit word, in hash buckets under ticket locks (the
 * semantics of Linux's FUTEX_WAIT and FUTEX_WAKE, futex(2)).
 */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include <stdint.h>

#define FUTEX_ENOTHREAD	(-1)	/* futex_wait outside a thread */
#define FUTEX_EAGAIN	(-2)	/* *addr != val */

/* If *@addr == @val, sleep until futex_wake(@addr); 0 once woken. */
int futex_wait(const uint32_t *addr, uint32_t val);
/* Wake up to @n waiters of @addr, oldest first; returns how many. */
int futex_wake(const uint32_t *addr, int n);
/* Threads waiting on @addr now. */
unsigned futex_nr_waiters(const uint32_t *addr);

#endif
