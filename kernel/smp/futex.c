// SPDX-License-Identifier: MIT
/*
 * futex.h: FUTEX_HASH buckets, each a FIFO of waiting threads (linked by
 * their ->next) under a ticket lock.  futex_wait checks the word under
 * the bucket lock, so a waker that changes the word and then calls
 * futex_wake cannot slip in between the check and the sleep (futex(2):
 * the check and the enqueue are atomic with respect to the wake).
 * futex_wake unlinks the waiters under the lock and makes them runnable
 * after dropping it (as Linux's wake_q), so the reschedule IPIs are not
 * sent with the lock held.
 */
#include <stddef.h>
#include <stdint.h>

#include "futex.h"
#include "sched.h"
#include "arch/spinlock.h"
#include "arch/x86.h"

#define FUTEX_HASH_BITS	4

struct bucket {
	struct spinlock lock;
	struct thread *head;
};

static struct bucket buckets[1u << FUTEX_HASH_BITS];

/* Fibonacci hashing of the word's address (Knuth 6.4) */
static struct bucket *bucket_of(const uint32_t *addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)addr >> 2) * 0x9e3779b97f4a7c15ull;

	return &buckets[h >> (64 - FUTEX_HASH_BITS)];
}

int futex_wait(const uint32_t *addr, uint32_t val)
{
	struct thread *t = sched_self(), **pp;
	struct bucket *b = bucket_of(addr);
	uint64_t flags;

	if (!t)
		return FUTEX_ENOTHREAD;
	flags = irq_save();
	spin_lock(&b->lock);
	if (__atomic_load_n(addr, __ATOMIC_ACQUIRE) != val) {
		spin_unlock(&b->lock);
		irq_restore(flags);
		return FUTEX_EAGAIN;
	}
	t->futex = addr;
	t->state = THREAD_BLOCKED;
	t->next = NULL;
	for (pp = &b->head; *pp; pp = &(*pp)->next)
		;
	*pp = t;
	spin_unlock(&b->lock);
	irq_restore(flags);
	sched_block();
	return 0;
}

int futex_wake(const uint32_t *addr, int n)
{
	struct bucket *b = bucket_of(addr);
	struct thread *t, **pp, *woken = NULL, **tail = &woken, *next;
	uint64_t flags;
	int count = 0;

	flags = irq_save();
	spin_lock(&b->lock);
	for (pp = &b->head; *pp && count < n;) {
		t = *pp;
		if (t->futex != addr) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		t->next = NULL;
		*tail = t;
		tail = &t->next;
		count++;
	}
	spin_unlock(&b->lock);
	irq_restore(flags);
	for (t = woken; t; t = next) {
		next = t->next;		/* sched_wake reuses ->next */
		t->futex = NULL;
		sched_wake(t);
	}
	return count;
}

unsigned futex_nr_waiters(const uint32_t *addr)
{
	struct bucket *b = bucket_of(addr);
	struct thread *t;
	uint64_t flags;
	unsigned n = 0;

	flags = irq_save();
	spin_lock(&b->lock);
	for (t = b->head; t; t = t->next)
		n += t->futex == addr;
	spin_unlock(&b->lock);
	irq_restore(flags);
	return n;
}
