// SPDX-License-Identifier: MIT
/*
 * --irqchip=user, the vCPU's side of each VM entry (user.h says who may
 * touch what): PV EOI's flag, the PIR folded into the LAPIC's IRR
 * (pir.c), the highest deliverable vector injected when the guest can
 * take it (SDM 11.8.4: IRR to ISR at the INTA), NMI and INIT.  user.c is
 * the sending side: the LAPIC's registers and IPIs into the PIR.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "exit/machine.h"
#include "extint.h"
#include "hw/apic.h"
#include "user.h"
#include "util.h"
#include "vm.h"

/*
 * PV EOI (docs/LAPIC.md).  The model's look (lapic_pveoi_sync) may do an
 * EOI, so it takes apic_lock, which apic_route() holds to read this
 * LAPIC's PPR; only when the flag is armed, so the common exit takes none.
 * Arming only reads this vCPU's own LAPIC and writes the guest's word.
 */
void irq_pveoi_register(struct vcpu *v, uint32_t *word)
{
	pthread_mutex_lock(&v->vm->apic_lock);
	lapic_pveoi_register(&v->irq.lapic, word);
	pthread_mutex_unlock(&v->vm->apic_lock);
}

static void irq_pveoi_sync(struct vcpu *v)
{
	if (!v->irq.lapic.pveoi.armed)
		return;
	pthread_mutex_lock(&v->vm->apic_lock);
	lapic_pveoi_sync(&v->irq.lapic);
	pthread_mutex_unlock(&v->vm->apic_lock);
}

/* ---- the run loop's side ----------------------------------------------- */

bool timer_due(struct vcpu *v)
{
	uint64_t d = v->irq.lapic.timer_deadline_ns;

	return d && now_ns() >= d;
}

/*
 * The PIR into IRR, each vector accepted as level-triggered (TMR set) if
 * the IOAPIC routes it here as a level entry, else as edge (SDM 11.8.4).
 */
static void irq_fold(struct vcpu *v)
{
	uint32_t got[8] = { 0 }, w;
	unsigned i;
	int b;

	pir_fold(&v->irq.pir, got);
	for (i = 0; i < 8; i++) {
		w = got[i];
		while (w) {
			b = __builtin_ctz(w);
			w &= w - 1;
			lapic_accept(&v->irq.lapic, i * 32 + b,
				     __atomic_load_n(&v->irq.ioapic_tmr[i],
						     __ATOMIC_ACQUIRE) &
				     (1u << b));
		}
	}
}

/* Timers that are due, and the PIR, into the LAPIC. */
void irq_collect(struct vcpu *v)
{
	struct vm *vm = v->vm;
	bool due = timer_due(v);

	if (!due && !pir_pending(&v->irq.pir))
		return;		/* the common case: no lock, no atomic RMW */
	pthread_mutex_lock(&vm->apic_lock);
	if (due)
		lapic_timer_expired(&v->irq.lapic);
	if (pir_pending(&v->irq.pir))
		irq_fold(v);
	pthread_mutex_unlock(&vm->apic_lock);
}

/*
 * An ExtINT goes first.  SDM 11.8.1 (step 2): the local APIC sends an
 * ExtINT "directly to the processor core", where fixed interrupts go
 * through IRR and ISR: so the PPR does not hold an ExtINT back, and a
 * fixed interrupt in IRR cannot be ahead of it in any queue.  The SDM
 * gives no order between the core's INTR from LINT0 and the APIC's own
 * vectors; this is KVM's (kvm_cpu_get_interrupt() asks the PIC first).
 * The other waits for the next window.
 */
static bool irq_pending_any(struct vcpu *v)
{
	return lapic_pending_vector(&v->irq.lapic) >= 0 ||
	       irq_extint_waiting(v);
}

int irq_before_run(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	bool extint;
	int vec;

	irq_pveoi_sync(v);	/* before the IRR and PPR are read */
	irq_extint_seen(v);
	irq_collect(v);
	/* api.rst: with no LAPIC in KVM, kvm_run->cr8 is "in (pre_kvm_run)":
	 * the guest's MOV from CR8 reads TPR[7:4] (SDM 11.8.6.1) */
	v->irq.cr8_in = lapic_cr8(&v->irq.lapic);
	run->cr8 = v->irq.cr8_in;
	extint = irq_extint_waiting(v);
	vec = lapic_pending_vector(&v->irq.lapic);
	if (vec < 0 && !extint) {
		run->request_interrupt_window = 0;
		return -1;
	}
	if (!run->ready_for_interrupt_injection) {
		/* KVM exits with IRQ_WINDOW_OPEN when IF=1 and no shadow */
		run->request_interrupt_window = 1;
		return -1;
	}
	if (extint) {
		vec = irq_extint_ack(v);
		run->request_interrupt_window = irq_pending_any(v);
		return vec;
	}
	pthread_mutex_lock(&v->vm->apic_lock);
	lapic_ack(&v->irq.lapic, vec);
	pthread_mutex_unlock(&v->vm->apic_lock);
	/* a higher class still waiting needs the next window too */
	run->request_interrupt_window = irq_pending_any(v);
	return vec;
}

unsigned irq_take_nmi(struct vcpu *v)
{
	if (!__atomic_load_n(&v->irq.nmi, __ATOMIC_RELAXED))
		return 0;	/* the common case: no atomic RMW */
	return __atomic_exchange_n(&v->irq.nmi, 0, __ATOMIC_ACQ_REL);
}

/*
 * SDM 6.9: an NMI outranks a maskable interrupt.  KVM delivers a
 * KVM_INTERRUPT vector as an event already being injected, before an NMI
 * it holds, so none may go in while KVM's NMI is being injected, or is
 * pending and not blocked.  One blocked by an NMI handler still running
 * (masked: SDM 6.7.1, until its IRET) waits for that IRET, and a
 * maskable interrupt may go before it, as on a CPU.
 */
bool irq_nmi_ahead(const struct kvm_vcpu_events *ev)
{
	return ev->nmi.injected || (ev->nmi.pending && !ev->nmi.masked);
}

/*
 * SDM 11.4.7.3: an INIT resets the LAPIC but keeps its ID and base, and
 * the CPU waits for a SIPI.  Pending IPIs, NMIs and ExtINTs go with it.
 */
bool irq_take_init(struct vcpu *v)
{
	struct vcpu_irq *q = &v->irq;
	uint32_t irr[8];

	if (!__atomic_load_n(&q->init, __ATOMIC_RELAXED) ||
	    !__atomic_exchange_n(&q->init, 0, __ATOMIC_ACQ_REL))
		return false;
	pthread_mutex_lock(&v->vm->apic_lock);
	lapic_init_reset(&q->lapic);
	pir_fold(&q->pir, irr);
	pthread_mutex_unlock(&v->vm->apic_lock);
	__atomic_store_n(&q->nmi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&q->extint_msg, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&q->wait_sipi, true, __ATOMIC_SEQ_CST);
	return true;
}

bool requests_pending(struct vcpu *v)
{
	struct vcpu_irq *q = &v->irq;

	return pir_pending(&q->pir) || __atomic_load_n(&q->nmi, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&q->init, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&q->extint_kick, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&v->vm->rendezvous, __ATOMIC_SEQ_CST);
}

/*
 * A kick that landed while the thread was outside the guest (the APIC
 * timer's signal while it slept in HLT, say) left immediate_exit set, and
 * would cost one empty KVM_RUN.  Everything a kick asks for is checked
 * below after mode goes IN_GUEST, and a kick after that store sets the
 * flag again, so it can be cleared first.
 */
bool irq_enter_guest(struct vcpu *v)
{
	lapic_pveoi_arm(&v->irq.lapic);	/* its next EOI needs no exit? */
	__atomic_store_n(&v->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&v->irq.mode, VCPU_MODE_IN_GUEST, __ATOMIC_SEQ_CST);
	if (!requests_pending(v) && !timer_due(v) && !vm_stopping(v->vm))
		return true;
	__atomic_store_n(&v->irq.mode, VCPU_MODE_OUTSIDE, __ATOMIC_SEQ_CST);
	return false;
}

/*
 * api.rst: kvm_run->cr8 is "out (post_kvm_run)", on every return from
 * KVM_RUN, an EINTR included.  A guest MOV to CR8 changed it: SDM
 * 11.8.6.1, it writes TPR[7:4] and clears TPR[3:0].  On VMX and SVM only
 * a lowering exits (KVM_EXIT_SET_TPR); a raise waits in KVM for the next
 * exit, and kvm_pvm exits for neither.  A MOV that rewrote the value
 * KVM_RUN was given cannot be seen, so TPR[3:0] then stays (docs/LAPIC.md).
 */
void irq_leave_guest(struct vcpu *v)
{
	uint8_t cr8 = v->run->cr8 & 0xf;

	__atomic_store_n(&v->irq.mode, VCPU_MODE_OUTSIDE, __ATOMIC_RELAXED);
	irq_pveoi_sync(v);	/* any exit: a lazy EOI is done at once */
	if (cr8 == v->irq.cr8_in)
		return;		/* the common case: no lock */
	v->irq.cr8_in = cr8;
	pthread_mutex_lock(&v->vm->apic_lock);
	lapic_set_cr8(&v->irq.lapic, cr8);
	pthread_mutex_unlock(&v->vm->apic_lock);
}
