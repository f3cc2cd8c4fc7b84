// SPDX-License-Identifier: MIT
/*
 * ExtINT: the 8259A pair's INTR to a CPU, for --irqchip=user and split.
 *
 * The PIC (pc/pic.c) lives in isa.c under vm->isa_lock.  Its INTR output is
 * the BSP's LINT0 input, as on a PC (MP spec 1.4 3.6.2.2, virtual wire
 * mode via the local APIC); an IOAPIC entry with delivery mode ExtINT
 * (82093AA 3.2.4) reaches the INTR of the CPUs it names too.  Either way
 * the interrupt carries no vector: SDM 11.5.1, ExtINT "causes the
 * processor to respond to the interrupt as if the interrupt originated
 * in an externally connected (8259A-compatible) interrupt controller. A
 * special INTA bus cycle corresponding to ExtINT, is routed to the
 * external controller. The external controller is expected to supply the
 * vector information."  So nothing is queued in the LAPIC (no IRR, no
 * ISR, no PPR: SDM 11.8.1 sends an ExtINT "directly to the processor
 * core"); the vCPU, when it can take an interrupt (KVM's interrupt
 * window: RFLAGS.IF=1, no STI/MOV SS shadow), runs the INTA cycle,
 * pic_intack(), and injects the vector it returns.
 *
 * LINT0 is level-sensitive for ExtINT (SDM 11.5.1: "When the delivery
 * mode is ExtINT, the trigger mode is always level sensitive"): the CPU
 * takes INTR while it is high.  So the INTR level is looked at again at
 * every chance to inject, and a level-triggered PIC line (ELCR) that
 * stays high after the INTA raises INTR again at the guest's EOI (OCW2),
 * when pc/pic.c drops the IR from its ISR (8259A datasheet, "Interrupt
 * Sequence" and "The End of Interrupt").  A guest that leaves INTR high
 * with IF=0 (or LINT0 masked) only leaves the request waiting: KVM exits
 * for the window when IF becomes 1, and nothing here spins.
 *
 * Who is told: the PIC's INTR rising sets the BSP's extint_kick and
 * notifies it as an IPI would (user.c: kick or wake); the vCPU clears the
 * flag before it looks at vm->pic_intr, so a later rise is never lost.
 * The flag is only a "look again": the level stays in vm->pic_intr and
 * an IOAPIC ExtINT in extint_msg, both read on the vCPU's own thread.
 *
 * The INTA takes isa_lock alone (never with apic_lock held), so the lock
 * order of isa.c is kept.  No KVM call here: kvm/vcpu.c injects.
 */
#include <pthread.h>

#include "extint.h"
#include "user.h"
#include "vm.h"

/* Tell @t to look at its ExtINT inputs; its own thread needs nothing. */
static void extint_notify(struct vcpu *t)
{
	__atomic_store_n(&t->irq.extint_kick, 1, __ATOMIC_SEQ_CST);
	if (t->thread_started && pthread_equal(pthread_self(), t->thread))
		return;		/* it looks before its next entry */
	if (t->vm->cfg->irqchip == IRQCHIP_USER)
		irq_notify(t, -1);
	else
		vcpu_kick(t);	/* split: KVM's LAPIC, out of KVM_RUN */
}

/* pic_ops.intr, under isa_lock: the master's INTR output is now @level */
void extint_pic_intr(struct vm *vm, int level)
{
	__atomic_store_n(&vm->pic_intr, level ? 1 : 0, __ATOMIC_SEQ_CST);
	/* (the unit tests' machines may have no vCPUs) */
	if (level && vm->vcpus && vm->cfg->irqchip != IRQCHIP_KERNEL)
		extint_notify(&vm->vcpus[0]);	/* the BSP's LINT0 */
}

/* --irqchip=user: an IOAPIC message with delivery mode ExtINT for @t */
void irq_post_extint(struct vcpu *t)
{
	__atomic_store_n(&t->irq.extint_msg, 1, __ATOMIC_SEQ_CST);
	extint_notify(t);
}

/*
 * On @v's thread, before it looks at its ExtINT inputs.  This runs before
 * every entry, so a plain load first: a flag that is not set costs no
 * locked store (a rise after the load sets it again, and the entry sees
 * it in requests_pending()).
 */
void irq_extint_seen(struct vcpu *v)
{
	if (__atomic_load_n(&v->irq.extint_kick, __ATOMIC_RELAXED))
		__atomic_store_n(&v->irq.extint_kick, 0, __ATOMIC_SEQ_CST);
}

/* --irqchip=user, on @v's thread: would @v take an ExtINT now (IF aside)? */
bool irq_extint_waiting(struct vcpu *v)
{
	if (__atomic_load_n(&v->irq.extint_msg, __ATOMIC_SEQ_CST))
		return true;
	return v->irq.lapic.bsp &&
	       __atomic_load_n(&v->vm->pic_intr, __ATOMIC_SEQ_CST) &&
	       lapic_lint0_extint(&v->irq.lapic);
}

/* The INTA cycle (8259A "Interrupt Sequence"): the vector, now in the
 * PIC's ISR (or IR7's, spurious, if the request went away). */
static uint8_t extint_intack(struct vm *vm)
{
	uint8_t vec;

	pthread_mutex_lock(&vm->isa_lock);
	vec = pic_intack(&vm->pic);
	pthread_mutex_unlock(&vm->isa_lock);
	return vec;
}

/*
 * --irqchip=user: the INTA for an ExtINT irq_extint_waiting() saw.  One
 * INTA answers LINT0 and an IOAPIC message at once: both are the CPU's
 * one INTR, and both ask the same PIC.
 */
int irq_extint_ack(struct vcpu *v)
{
	__atomic_store_n(&v->irq.extint_msg, 0, __ATOMIC_SEQ_CST);
	return extint_intack(v->vm);
}

/*
 * --irqchip=split, before KVM_RUN: the vector to inject with KVM_INTERRUPT,
 * or -1.  api.rst, KVM_INTERRUPT: with an in-kernel LAPIC (split irqchip)
 * the ioctl queues an external interrupt (KVM's pending_external_vector),
 * which KVM injects only while the LAPIC's LVT0 accepts PIC interrupts
 * (kvm_apic_accept_pic_intr(): hardware-disabled, or LVT0 unmasked
 * ExtINT), and ready_for_interrupt_injection is 1 only then, with IF=1
 * and nothing else pending.  request_interrupt_window asks KVM to exit
 * with KVM_EXIT_IRQ_WINDOW_OPEN when it becomes 1.  The INTA runs here,
 * at the ioctl, as QEMU does: KVM injects at the very next entry.
 */
int split_extint_before_run(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	irq_extint_seen(v);
	if (v->id != 0 ||
	    !__atomic_load_n(&v->vm->pic_intr, __ATOMIC_SEQ_CST)) {
		run->request_interrupt_window = 0;
		return -1;
	}
	if (!run->ready_for_interrupt_injection) {
		run->request_interrupt_window = 1;
		return -1;
	}
	run->request_interrupt_window = 0;
	return extint_intack(v->vm);
}
