/* SPDX-License-Identifier: MIT */
/*
 * Minimal kernel threads: a per-CPU cooperative scheduler.  A thread is
 * pinned to one CPU for life, has its own stack and a saved stack pointer
 * (the callee-saved registers and RFLAGS sit on its stack: switch.S).
 * Each CPU that runs threads sits in sched_loop(), the scheduler context:
 * it switches to the next thread of its run queue, which runs until it
 * blocks (futex_wait) or returns, then back to sched_loop.  An empty
 * queue idles in STI; HLT until the reschedule IPI, which sched_wake()
 * sends when it makes a thread runnable on another CPU.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdint.h>

#define SCHED_MAX_THREADS	32
#define SCHED_STACK_SIZE	8192
#define SCHED_VEC_RESCHED	0xf1	/* the reschedule IPI (smp.h's 0xf0 + 1) */

enum thread_state { THREAD_FREE, THREAD_RUNNABLE, THREAD_RUNNING,
		    THREAD_BLOCKED, THREAD_DEAD };

struct thread {
	uint64_t rsp;		/* saved by sched_switch (switch.S) */
	unsigned cpu;		/* index in cpus[] it is pinned to */
	enum thread_state state;
	void (*fn)(void *arg);
	void *arg;
	struct thread *next;	/* run queue, or a futex bucket's waiters */
	const uint32_t *futex;	/* the address it waits on (futex.c) */
	uint64_t wake_tsc;	/* TSC when sched_wake made it runnable */
};

/* Install the reschedule IPI's handler (once; again is harmless). */
void sched_init(void);
/* A thread that runs @fn(@arg) on CPU @cpu; NULL if the pool is used up. */
struct thread *sched_spawn(void (*fn)(void *), void *arg, unsigned cpu);
/* Threads spawned and not yet finished. */
unsigned sched_nr_live(void);
/* The thread running on this CPU, NULL in the scheduler context. */
struct thread *sched_self(void);
/* Make @t runnable on its CPU (stamps wake_tsc); IPIs that CPU. */
void sched_wake(struct thread *t);
/* In a thread: state BLOCKED was set; switch away until sched_wake. */
void sched_block(void);
/* Run this CPU's threads until @stop() is true with the queue empty. */
void sched_loop(int (*stop)(void));

/* switch.S: save the callee-saved registers on this stack into *@save,
 * continue on @next's (a stack sched_switch saved, or a new thread's). */
void sched_switch(uint64_t *save, uint64_t next);

#endif
