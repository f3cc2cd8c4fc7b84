// SPDX-License-Identifier: MIT
/*
 * The per-CPU cooperative scheduler of sched.h.  Each CPU has a run queue
 * under a ticket lock; threads switch only to and from their CPU's
 * scheduler context (sched_loop), never thread to thread.
 *
 * Blocking without a lost wake-up: a thread sets THREAD_BLOCKED under the
 * lock of what it waits on (a futex bucket), drops that lock, then
 * switches away.  A waker may make it runnable in between: it is then in
 * the run queue before it switched, but only its own CPU runs it, and
 * that CPU's sched_loop can take it only after the switch saved its RSP.
 *
 * Idle: sched_loop checks the queue with IF = 0 and waits with STI; HLT
 * (idle_wait, which may poll the queue first: idle.c).  A reschedule IPI
 * that comes after the check waits in IRR and ends the HLT (STI delays
 * interrupts by one instruction: SDM vol. 2B, STI).
 */
#include <stddef.h>
#include <stdint.h>

#include "idle.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "sched.h"
#include "smp.h"
#include "arch/spinlock.h"
#include "arch/x86.h"

struct sched_cpu {
	struct spinlock lock;
	struct thread *head, *tail;	/* RUNNABLE threads, FIFO */
	struct thread *current;
	uint64_t sched_rsp;		/* sched_loop's, while a thread runs */
};

static struct sched_cpu rq[NR_CPUS];
static struct thread pool[SCHED_MAX_THREADS];
static uint8_t stacks[SCHED_MAX_THREADS][SCHED_STACK_SIZE]
	__attribute__((aligned(16)));
static struct spinlock pool_lock = SPINLOCK_INIT;
static uint32_t live;

extern const char sched_thread_start[];		/* switch.S */
void sched_thread_main(struct thread *t) __attribute__((noreturn));

/* The IPI only ends HLT; sched_loop then looks at its queue. */
static void resched_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
}

void sched_init(void)
{
	idt_set_handler(SCHED_VEC_RESCHED, resched_handler);
}

unsigned sched_nr_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_ACQUIRE);
}

struct thread *sched_self(void)
{
	return rq[this_cpu()->index].current;
}

void sched_wake(struct thread *t)
{
	struct sched_cpu *c = &rq[t->cpu];
	uint64_t flags;

	t->wake_tsc = rdtsc();
	flags = irq_save();
	spin_lock(&c->lock);
	t->state = THREAD_RUNNABLE;
	t->next = NULL;
	if (c->tail)
		c->tail->next = t;
	else
		c->head = t;
	c->tail = t;
	spin_unlock(&c->lock);
	irq_restore(flags);
	if (t->cpu == this_cpu()->index)
		return;
	/* a CPU polling in idle.c sees its queue: no IPI (idle.c says why
	 * none is lost; the fence orders the enqueue before the load) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!idle_polling(t->cpu))
		lapic_send_ipi(cpus[t->cpu].apic_id, SCHED_VEC_RESCHED);
}

/*
 * The new stack, from its top: 16 bytes of padding (so RSP is 16-byte
 * aligned once sched_switch's RET popped the return address), the
 * return address, then what sched_switch pops: RBP, RBX (the thread),
 * R12-R15, RFLAGS (IF = 1; bit 1 is always 1).
 */
struct thread *sched_spawn(void (*fn)(void *), void *arg, unsigned cpu)
{
	struct thread *t = NULL;
	uint64_t *sp;
	unsigned i;

	if (cpu >= NR_CPUS || !__atomic_load_n(&cpus[cpu].online,
					       __ATOMIC_ACQUIRE))
		return NULL;
	spin_lock(&pool_lock);
	for (i = 0; i < SCHED_MAX_THREADS && !t; i++)
		if (pool[i].state == THREAD_FREE)
			t = &pool[i];
	if (t)
		t->state = THREAD_RUNNABLE;
	spin_unlock(&pool_lock);
	if (!t)
		return NULL;
	t->cpu = cpu;
	t->fn = fn;
	t->arg = arg;
	t->futex = NULL;
	sp = (uint64_t *)(stacks[t - pool] + SCHED_STACK_SIZE) - 2;
	*--sp = (uint64_t)sched_thread_start;
	*--sp = 0;			/* rbp */
	*--sp = (uint64_t)t;		/* rbx */
	for (i = 0; i < 4; i++)
		*--sp = 0;		/* r12-r15 */
	*--sp = RFLAGS_IF | 2;
	t->rsp = (uint64_t)sp;
	__atomic_fetch_add(&live, 1, __ATOMIC_ACQ_REL);
	sched_wake(t);
	return t;
}

void sched_thread_main(struct thread *t)
{
	t->fn(t->arg);
	cli();
	t->state = THREAD_DEAD;	/* sched_loop frees it once off this stack */
	sched_switch(&t->rsp, rq[t->cpu].sched_rsp);
	for (;;)
		hlt();		/* not reached: no one switches back */
}

void sched_block(void)
{
	struct thread *t = sched_self();

	sched_switch(&t->rsp, rq[t->cpu].sched_rsp);
}

/* idle.c's wake condition: something is queued */
static int queued(void *arg)
{
	struct sched_cpu *c = arg;

	return __atomic_load_n(&c->head, __ATOMIC_ACQUIRE) != NULL;
}

static struct thread *dequeue(struct sched_cpu *c)
{
	struct thread *t;

	spin_lock(&c->lock);
	t = c->head;
	if (t) {
		c->head = t->next;
		if (!c->head)
			c->tail = NULL;
	}
	spin_unlock(&c->lock);
	return t;
}

void sched_loop(int (*stop)(void))
{
	struct sched_cpu *c = &rq[this_cpu()->index];
	struct thread *t;

	for (;;) {
		cli();
		t = dequeue(c);
		if (!t) {
			if (stop())
				break;
			idle_wait(queued, c);
			continue;
		}
		t->state = THREAD_RUNNING;
		c->current = t;
		sched_switch(&c->sched_rsp, t->rsp);	/* IF: the thread's */
		c->current = NULL;
		if (t->state == THREAD_DEAD) {
			__atomic_store_n(&t->state, THREAD_FREE,
					 __ATOMIC_RELEASE);
			__atomic_fetch_sub(&live, 1, __ATOMIC_ACQ_REL);
		}
	}
	sti();
}
