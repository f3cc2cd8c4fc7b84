// SPDX-License-Identifier: MIT
/*
 * One thread per vCPU: KVM_RUN, then exit_dispatch(), then again.  With
 * --irqchip=user each entry is prepared first: INIT and start-up, NMIs,
 * the PIR fold and injection (irqchip/user.c), and a guest HLT sleeps in
 * irq_halt() (irqchip/sleep.c).
 * With --irqchip=split only the PIC's ExtINT is injected from here.
 *
 * Kicking a vCPU out of KVM_RUN (Documentation/virt/kvm/api.rst,
 * "immediate_exit"): set run->immediate_exit, then send VCPU_SIG_KICK.  The
 * signal interrupts a KVM_RUN in progress; immediate_exit catches the
 * window in which the thread was about to enter it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "exit/exit.h"
#include "exit/machine.h"
#include "irqchip.h"
#include "irqchip/extint.h"
#include "irqchip/sleep.h"
#include "irqchip/user.h"
#include "jail.h"
#include "kvm.h"
#include "util.h"
#include "vcpu.h"
#include "vm.h"

static __thread struct kvm_run *self_run;

/*
 * Its job is to interrupt KVM_RUN.  Setting immediate_exit here too means
 * a signal that lands just before KVM_RUN (the APIC timer's, which cannot
 * set it from outside) still makes KVM_RUN return at once.  Other threads
 * store the same byte (vcpu_kick), so this store is atomic as theirs are:
 * a lock-free atomic store is async-signal-safe, and a plain one was a
 * data race (ThreadSanitizer found it).  It touches nothing else, errno
 * included.
 */
static void kick_handler(int sig)
{
	struct kvm_run *run = self_run;

	(void)sig;
	if (run)
		__atomic_store_n(&run->immediate_exit, 1, __ATOMIC_RELAXED);
}

static void vcpu_set_state(struct vcpu *v, enum vcpu_state s)
{
	struct vm *vm = v->vm;

	pthread_mutex_lock(&vm->lock);
	v->state = s;
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
}

/* Block until main() releases the thread, or the VM stops. */
static bool vcpu_wait_release(struct vcpu *v)
{
	struct vm *vm = v->vm;

	pthread_mutex_lock(&vm->lock);
	while (v->state == VCPU_PARKED && !vm->stopping)
		pthread_cond_wait(&vm->cond, &vm->lock);
	pthread_mutex_unlock(&vm->lock);
	return !vm_stopping(vm);
}

static bool user_irqchip(const struct vcpu *v)
{
	return v->vm->cfg->irqchip == IRQCHIP_USER;
}

/* wait-for-SIPI, then the start-up state (SDM 9.4.4.1); false: stopping */
static bool vcpu_start_ap(struct vcpu *v)
{
	uint8_t vector;

	if (!irq_wait_sipi(v, &vector))
		return false;
	kvm_set_sipi_state(v, vector);
	return true;
}

/*
 * --irqchip=user: the NMI messages into KVM, before the maskable
 * interrupts.  One KVM_NMI per message: KVM's process_nmi() keeps one NMI
 * in service and one pending (the latch of SDM 6.7.1) and drops the
 * rest, so a third in one pass would change nothing.  While an NMI given
 * to KVM may still be ahead (irq_nmi_ahead()), no KVM_INTERRUPT: the
 * interrupt waits in IRR for the window instead (SDM 6.9).  KVM is asked
 * only then, so the common entry makes no extra ioctl.
 */
static void vcpu_nmi(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	unsigned n = irq_take_nmi(v);

	if (n) {
		kvm_inject_nmi(v);
		if (n > 1)
			kvm_inject_nmi(v);
		v->irq.nmi_in_kvm = true;
	}
	if (!v->irq.nmi_in_kvm || !run->ready_for_interrupt_injection)
		return;
	if (n || kvm_nmi_ahead(v))
		run->ready_for_interrupt_injection = 0;	/* ask for the window */
	else
		v->irq.nmi_in_kvm = false;	/* delivered */
}

/*
 * --timeline: KVM holds @vec now; the IPI id its sender posted with it is
 * the one in service from here to its EOI (0: not an IPI).
 */
static void tl_inject(struct vcpu *v, int vec)
{
	uint32_t id = __atomic_exchange_n(&v->tl.pending[vec], 0,
					  __ATOMIC_ACQUIRE);

	v->tl.isr[vec] = id;
	tl_add(&v->tl, TL_INJECT, tl_tsc(), id, 0, (unsigned)vec, 0);
}

/*
 * --irqchip=user, before KVM_RUN.  False: not now (a request came in while
 * preparing, or the VM stops); the caller goes round again.
 */
static bool vcpu_prepare(struct vcpu *v)
{
	int vec;

	if (irq_take_init(v)) {
		if (v->id == 0) {
			/* SDM 10.1: INIT sends the BSP to the reset vector;
			 * irqlab has no firmware there */
			fflush(stdout);
			warn("vcpu0: INIT to the bootstrap processor: a reset, "
			     "and irqlab has no firmware to reset into");
			vm_poweroff(v->vm, EXIT_GUEST_SHUTDOWN);
			return false;
		}
		/* SDM 11.4.7.3: the NMIs and the interrupt KVM holds go too */
		kvm_init_events(v);
		v->irq.nmi_in_kvm = false;
		if (!vcpu_start_ap(v))
			return false;
	}
	if (v->irq.base_changed) {
		v->irq.base_changed = false;
		kvm_sync_apic_base(v);
	}
	irq_rendezvous_wait(v);
	vcpu_nmi(v);
	vec = irq_before_run(v);
	if (vec >= 0) {
		kvm_inject_irq(v, vec);
		if (tl_on(&v->tl))
			tl_inject(v, vec);
		/*
		 * KVM holds it now, and only the next KVM_RUN refreshes the
		 * flag.  Should irq_enter_guest() send us round again, a stale
		 * 1 would let a second KVM_INTERRUPT replace this one in KVM,
		 * its ISR bit set for a vector the guest never saw.
		 */
		v->run->ready_for_interrupt_injection = 0;
	}
	return irq_enter_guest(v);
}

/*
 * --irqchip=split, before KVM_RUN: the PIC's INTR into KVM's LAPIC as an
 * ExtINT (irqchip/extint.c).  As in vcpu_prepare(), a stale ready flag must
 * not let a second KVM_INTERRUPT in before the next KVM_RUN.
 */
static void vcpu_prepare_split(struct vcpu *v)
{
	int vec = split_extint_before_run(v);

	if (vec >= 0) {
		kvm_inject_extint(v, vec);
		v->run->ready_for_interrupt_injection = 0;
	}
}

/*
 * --irqchip=kernel HLT exits only if KVM's LAPIC sends them (it does not),
 * so this is the user irqchip's HLT: sleep until woken.  irq_halt() stops
 * the VM itself when no vCPU can ever wake another; its registers follow.
 */
static bool vcpu_halt(struct vcpu *v)
{
	if (irq_halt(v))
		return true;
	if (v->irq.dead)	/* where it halted, for whoever reads why */
		kvm_dump_vcpu(v, "the last vCPU to halt");
	return false;
}

static void vcpu_fail(struct vcpu *v, enum exit_action a)
{
	static const struct {
		const char *why;
		int status;
	} fail[] = {
		[EXIT_FAIL_SHUTDOWN] = { "triple fault (KVM_EXIT_SHUTDOWN)",
					 EXIT_GUEST_SHUTDOWN },
		[EXIT_FAIL_INTERNAL] = { "KVM_EXIT_INTERNAL_ERROR",
					 EXIT_GUEST_INTERNAL },
		[EXIT_FAIL_ENTRY] = { "KVM_EXIT_FAIL_ENTRY",
				      EXIT_GUEST_FAIL_ENTRY },
		[EXIT_FAIL_UNHANDLED] = { "unhandled exit",
					  EXIT_GUEST_UNHANDLED },
	};
	struct kvm_run *run = v->run;
	char why[160];

	switch (a) {
	case EXIT_FAIL_SHUTDOWN:
		if (run->exit_reason == KVM_EXIT_SYSTEM_EVENT)
			snprintf(why, sizeof(why), "KVM_EXIT_SYSTEM_EVENT "
				 "type %u", run->system_event.type);
		else
			snprintf(why, sizeof(why), "%s", fail[a].why);
		break;
	case EXIT_FAIL_INTERNAL:
		snprintf(why, sizeof(why), "%s, suberror %u%s", fail[a].why,
			 run->internal.suberror,
			 run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
			 " (instruction emulation failed)" : "");
		break;
	case EXIT_FAIL_ENTRY:
		snprintf(why, sizeof(why), "%s, hardware reason 0x%llx",
			 fail[a].why, (unsigned long long)
			 run->fail_entry.hardware_entry_failure_reason);
		break;
	default:
		snprintf(why, sizeof(why), "%s: KVM exit reason %u (%s)",
			 fail[a].why, run->exit_reason,
			 stats_reason_name(run->exit_reason));
		break;
	}
	kvm_dump_vcpu(v, why);
	vm_poweroff(v->vm, fail[a].status);
}

static void *vcpu_thread(void *arg)
{
	static const int cls_kick[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_KICK, -1 };
	static const int cls_other[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_OTHER, -1 };
	struct vcpu *v = arg;
	struct vm *vm = v->vm;
	enum exit_action a;
	uint64_t t0, kicked = 0;

	self_run = v->run;
	if (!vcpu_wait_release(v))
		goto out;
	if (user_irqchip(v))
		irq_thread_init(v);
	jail_enter(v);		/* the setup is done: the filter goes in */
	if (user_irqchip(v) && v->irq.wait_sipi && !vcpu_start_ap(v))
		goto out;
	while (!vm_stopping(vm)) {
		int r;

		if (user_irqchip(v) && !vcpu_prepare(v))
			continue;
		if (vm->cfg->irqchip == IRQCHIP_SPLIT)
			vcpu_prepare_split(v);
		if (kicked) {
			/* a kick's handling: from KVM_RUN's return to the next
			 * entry, the PIR fold and the injection included */
			stats_time(&v->stats, __atomic_load_n(&vm->phase,
				   __ATOMIC_RELAXED), KVM_EXIT_INTR,
				   now_ns() - kicked);
			kicked = 0;
		}
		if (tl_on(&v->tl) && v->tl.entry_due) {
			v->tl.entry_due = false;
			tl_add(&v->tl, TL_ENTRY, tl_tsc(), 0, 0, 0, 0);
		}
		r = ioctl(v->fd, KVM_RUN, 0);
		if (tl_on(&v->tl))
			v->tl.exit_tsc = tl_tsc();
		if (user_irqchip(v))
			irq_leave_guest(v);
		if (r < 0) {
			int err = errno;

			__atomic_store_n(&v->run->immediate_exit, 0,
					 __ATOMIC_RELAXED);
			if (err == EINTR || err == EAGAIN) {
				if (vm_stopping(vm))
					break;	/* the teardown kick: not an exit */
				/* EINTR: kicked by a signal.  EAGAIN: an AP in
				 * wait-for-SIPI got its SIPI (in-kernel LAPIC);
				 * a return to userspace, but no kick. */
				stats_exit(&v->stats, __atomic_load_n(&vm->phase,
					   __ATOMIC_RELAXED), KVM_EXIT_INTR,
					   err == EINTR ? cls_kick : cls_other);
				if (tl_on(&v->tl) && err == EINTR)
					tl_woke(&v->tl, TL_KICKED);
				kicked = now_ns();
				continue;
			}
			fflush(stdout);
			warn("vcpu%d: KVM_RUN: %s", v->id, strerror(err));
			vm_poweroff(vm, EXIT_HOST);
			break;
		}
		t0 = now_ns();
		a = exit_dispatch(v);
		stats_time(&v->stats, __atomic_load_n(&vm->phase,
			   __ATOMIC_RELAXED), v->run->exit_reason, now_ns() - t0);
		if (a == EXIT_HALT) {
			if (!vcpu_halt(v))
				break;
		} else if (a != EXIT_CONTINUE)
			vcpu_fail(v, a);
	}
out:
	vcpu_set_state(v, VCPU_DONE);
	return NULL;
}

void vcpu_start(struct vcpu *v)
{
	static bool handler_installed;
	int err;

	if (!handler_installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = kick_handler;	/* no SA_RESTART: EINTR */
		sigaction(VCPU_SIG_KICK, &sa, NULL);
		handler_installed = true;
	}
	err = pthread_create(&v->thread, NULL, vcpu_thread, v);
	if (err)
		die(EXIT_HOST, "vcpu%d: pthread_create: %s", v->id,
		    strerror(err));
	v->thread_started = true;
}

void vcpu_release(struct vcpu *v)
{
	vcpu_set_state(v, VCPU_RUNNING);
}

void vcpus_stop(struct vm *vm)
{
	unsigned i;

	pthread_mutex_lock(&vm->lock);
	__atomic_store_n(&vm->stopping, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	for (i = 0; i < vm->nr_vcpus; i++) {
		vcpu_kick(&vm->vcpus[i]);
		irq_wake(&vm->vcpus[i]);
	}
	for (i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].thread_started)
			pthread_join(vm->vcpus[i].thread, NULL);
}
