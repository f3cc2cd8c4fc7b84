/* SPDX-License-Identifier: MIT */
/*
 * Ticket spinlocks.  A CPU takes the next ticket with one atomic add and
 * waits until "now serving" reaches it, so CPUs get the lock in the order
 * they asked (a test-and-set lock lets one CPU starve the others).
 *
 * The atomics are GCC's __atomic builtins.  x86 is TSO: LOCK XADD is a
 * full barrier, and a plain store releases (SDM vol. 3A 9.2.2, "Memory
 * Ordering in P6 and More Recent Processor Families"), so unlock is one
 * MOV.  PAUSE in the wait loop tells the CPU it spins (SDM vol. 2B,
 * PAUSE): it saves power, frees the sibling hyperthread, and avoids the
 * memory-order flush when the lock word changes.
 *
 * The locks do not touch RFLAGS.IF: code that an interrupt handler may
 * also lock against must disable interrupts itself.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>

#include "x86.h"

struct spinlock {
	uint16_t next;		/* the ticket the next CPU takes */
	uint16_t serving;	/* the ticket that holds the lock */
};

#define SPINLOCK_INIT	{ 0, 0 }

static inline void spin_lock(struct spinlock *l)
{
	uint16_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != me)
		cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	/* only the holder writes @serving: no atomic add needed */
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

#endif
