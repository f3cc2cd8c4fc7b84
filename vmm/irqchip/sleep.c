// SPDX-License-Identifier: MIT
/*
 * --irqchip=user: a vCPU asleep in the VMM, in HLT or in wait-for-SIPI
 * (SDM 9.4.1), on a futex until something is posted to it or its APIC
 * timer is due; and the check that stops a VM in which no vCPU can ever
 * wake again.  user.c posts and wakes.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#include "exit/machine.h"
#include "extint.h"
#include "isa.h"
#include "sleep.h"
#include "user.h"
#include "util.h"
#include "vm.h"

/* ---- sleeping: HLT and wait-for-SIPI ----------------------------------- */

/* Could anything still wake @t?  Under vm->lock, where states change. */
static bool vcpu_may_wake(struct vcpu *t)
{
	switch (t->state) {
	case VCPU_DONE:
		return false;
	case VCPU_PARKED:	/* wait-for-SIPI */
		return __atomic_load_n(&t->irq.sipi, __ATOMIC_SEQ_CST) ||
		       __atomic_load_n(&t->irq.init, __ATOMIC_SEQ_CST);
	case VCPU_HALTED:
		return !t->irq.halt_forever || requests_pending(t);
	default:
		return true;
	}
}

/* Sleeping in @state: true when no vCPU can ever run again. */
static bool vm_sleep_begin(struct vcpu *v, enum vcpu_state state)
{
	struct vm *vm = v->vm;
	bool dead = true;
	unsigned i;

	pthread_mutex_lock(&vm->lock);
	v->state = state;
	for (i = 0; i < vm->nr_vcpus && dead; i++)
		dead = !vcpu_may_wake(&vm->vcpus[i]);
	pthread_mutex_unlock(&vm->lock);
	return dead;
}

/*
 * Every vCPU sleeps and none can wake another: say so and stop.  The
 * vCPU thread then shows where @v halted (vcpu.c, irq.dead).
 */
static void vm_dead(struct vcpu *v, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "irqlab-vmm: vcpu%d: %s, and every other vCPU is "
		"halted, waiting for a SIPI or done: nothing can ever wake "
		"one: stopping\n", v->id, what);
	v->irq.dead = true;
	vm_poweroff(v->vm, EXIT_GUEST_HALTED);
}

static void vm_sleep_end(struct vcpu *v, enum vcpu_state state)
{
	pthread_mutex_lock(&v->vm->lock);
	v->state = state;
	pthread_mutex_unlock(&v->vm->lock);
}

/* One futex sleep, until @deadline_ns (0: none) or a wake. */
static void irq_sleep(struct vcpu *v, uint64_t deadline_ns,
		      bool (*done)(struct vcpu *))
{
	struct timespec rel, *relp = NULL;
	uint32_t seq;
	uint64_t t;

	__atomic_store_n(&v->irq.mode, VCPU_MODE_SLEEPING, __ATOMIC_SEQ_CST);
	seq = __atomic_load_n(&v->irq.wake, __ATOMIC_SEQ_CST);
	if (!done(v) && !vm_stopping(v->vm)) {
		if (deadline_ns) {
			t = now_ns();
			t = deadline_ns > t ? deadline_ns - t : 0;
			rel.tv_sec = t / 1000000000ull;
			rel.tv_nsec = t % 1000000000ull;
			relp = &rel;
		}
		if (!relp || t) {
			futex_wait(&v->irq.wake, seq, relp);
			if (tl_on(&v->tl))
				tl_woke(&v->tl, TL_WOKE);
		}
	}
	__atomic_store_n(&v->irq.mode, VCPU_MODE_OUTSIDE, __ATOMIC_SEQ_CST);
}

/* SDM vol. 2A, HLT: execution resumes on an enabled interrupt, an NMI or
 * an INIT.  A maskable interrupt with EFLAGS.IF clear does not resume it. */
static bool halt_done(struct vcpu *v)
{
	if (__atomic_load_n(&v->irq.nmi, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&v->irq.init, __ATOMIC_SEQ_CST))
		return true;
	if (pir_pending(&v->irq.pir) || timer_due(v) ||
	    __atomic_load_n(&v->irq.extint_kick, __ATOMIC_SEQ_CST))
		return true;	/* irq_halt() folds, then decides */
	return false;
}

/*
 * --halt-poll: before a HLT sleeps, spin for halt_done(), as KVM does for
 * its own HLT (Documentation/virt/kvm/halt-polling.rst).  The mode stays
 * OUTSIDE, so a poster only stores its request (irq_notify: no futex
 * wake, no syscall) and the spin sees it.  The window adapts as KVM's
 * does: it starts at 0; a sleep that a longer spin would have saved (woken
 * within the --halt-poll bound) doubles it, from HALT_POLL_START_NS up to
 * the bound; a longer sleep resets it to 0, so an idle vCPU does not spin.
 * true: something came; the caller goes round and takes it.
 */
#define HALT_POLL_START_NS	10000ull	/* KVM's halt_poll_ns_grow_start */

static bool irq_halt_poll(struct vcpu *v)
{
	uint64_t end;

	if (!v->irq.halt_poll_ns)
		return false;
	v->irq.halt_polls++;
	end = now_ns() + v->irq.halt_poll_ns;
	do {
		if (halt_done(v)) {
			v->irq.halt_poll_hits++;
			return true;
		}
		_mm_pause();
	} while (now_ns() < end && !vm_stopping(v->vm));
	return false;
}

/* After a HLT sleep that began at @t0: grow or reset the window. */
static void halt_poll_adapt(struct vcpu *v, uint64_t t0)
{
	uint64_t max = v->vm->cfg->halt_poll_us * 1000ull, n;

	if (!max)
		return;
	if (now_ns() - t0 > max) {
		v->irq.halt_poll_ns = 0;
		return;
	}
	n = v->irq.halt_poll_ns ? v->irq.halt_poll_ns * 2 : HALT_POLL_START_NS;
	v->irq.halt_poll_ns = n < max ? n : max;
}

/*
 * A wake that does not end the HLT (a masked timer's expiry, a vector
 * below the PPR) leaves the vCPU in VCPU_HALT_AWAKE, not RUNNING: it is
 * still in HLT, and --timeout's dump says so.  Only the way out to the
 * guest makes it RUNNING, so a HLT that never slept takes no lock.
 */
bool irq_halt(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	struct vcpu_irq *q = &v->irq;
	bool slept = false;
	uint64_t t0;

	for (;;) {
		irq_extint_seen(v);
		irq_collect(v);
		if (__atomic_load_n(&q->nmi, __ATOMIC_SEQ_CST) ||
		    __atomic_load_n(&q->init, __ATOMIC_SEQ_CST) ||
		    (run->if_flag && (lapic_pending_vector(&q->lapic) >= 0 ||
				      irq_extint_waiting(v))))
			break;
		/* the PIT's host timer (isa.c) may still raise an IRQ */
		q->halt_forever = !run->if_flag ||
				  (!q->lapic.timer_deadline_ns &&
				   !isa_timer_armed(v->vm));
		if (run->if_flag && irq_halt_poll(v))
			continue;
		t0 = now_ns();
		if (vm_sleep_begin(v, VCPU_HALTED)) {
			vm_dead(v, run->if_flag ? "HLT with interrupts enabled "
				"and no timer armed" : "HLT with interrupts "
				"disabled");
			return false;
		}
		irq_sleep(v, run->if_flag ? q->lapic.timer_deadline_ns : 0,
			  halt_done);
		vm_sleep_end(v, VCPU_HALT_AWAKE);
		slept = true;
		if (run->if_flag)
			halt_poll_adapt(v, t0);
		if (vm_stopping(v->vm))
			return false;
	}
	if (slept)
		vm_sleep_end(v, VCPU_RUNNING);
	return true;
}

static bool sipi_done(struct vcpu *v)
{
	return __atomic_load_n(&v->irq.sipi, __ATOMIC_SEQ_CST) != 0 ||
	       __atomic_load_n(&v->irq.init, __ATOMIC_SEQ_CST) != 0;
}

bool irq_wait_sipi(struct vcpu *v, uint8_t *vector)
{
	struct vcpu_irq *q = &v->irq;
	uint32_t s;

	for (;;) {
		if (vm_stopping(v->vm))
			return false;
		/* an INIT now only restarts the wait (SDM 9.4.2) */
		if (__atomic_exchange_n(&q->init, 0, __ATOMIC_ACQ_REL))
			continue;
		s = __atomic_exchange_n(&q->sipi, 0, __ATOMIC_ACQ_REL);
		if (s) {
			__atomic_store_n(&q->wait_sipi, false, __ATOMIC_SEQ_CST);
			*vector = s & 0xff;
			vm_sleep_end(v, VCPU_RUNNING);
			return true;
		}
		if (vm_sleep_begin(v, VCPU_PARKED)) {
			vm_dead(v, "waiting for a start-up IPI");
			return false;
		}
		irq_sleep(v, 0, sipi_done);
	}
}
