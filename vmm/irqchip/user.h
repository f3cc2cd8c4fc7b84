/* SPDX-License-Identifier: MIT */
/*
 * --irqchip=user: the local APIC model (lapic.h) wired to vCPU threads.
 *
 * Each vCPU owns a struct lapic and a struct pir.  Only the vCPU's own
 * thread changes its LAPIC; other threads post into its PIR (fixed and
 * lowest-priority IPIs), count an NMI or set a flag (INIT, start-up),
 * then notify it only when needed:
 *
 *   target in KVM_RUN         a kick: immediate_exit and a signal
 *   target halted in irqlab   a futex wake
 *   target in irqlab already  nothing: it folds the PIR before KVM_RUN
 *
 * The sender stores the request, then loads the target's mode; the target
 * stores its mode, then loads the requests.  Both are sequentially
 * consistent, so one of them always sees the other (docs/LAPIC.md).
 * KVM ioctls stay in vmm/kvm/: user.c makes none.  sleep.c has the other
 * half: a vCPU asleep in HLT or in wait-for-SIPI.
 */
#ifndef VMM_IRQCHIP_USER_H
#define VMM_IRQCHIP_USER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "apic/lapic.h"
#include "pir.h"

/* Where a vCPU thread is, for its notifiers (relaxed reads elsewhere). */
enum vcpu_mode {
	VCPU_MODE_OUTSIDE,	/* in irqlab, will check requests before entry */
	VCPU_MODE_IN_GUEST,	/* in (or entering) KVM_RUN: needs a kick */
	VCPU_MODE_SLEEPING,	/* halted or in wait-for-SIPI: needs a wake */
};

struct vcpu_irq {
	struct lapic lapic;
	struct pir pir;
	uint32_t mode;		/* enum vcpu_mode */
	uint32_t wake;		/* futex word: bumped by every wake */
	uint32_t nmi;		/* NMI messages not yet given to KVM: a count */
	bool nmi_in_kvm;	/* a KVM_NMI may not be delivered yet (own thread) */
	uint32_t init;		/* an INIT is pending */
	uint32_t sipi;		/* 0x100 | vector: a start-up IPI latched */
	uint32_t extint_kick;	/* look at the ExtINT inputs (extint.c) */
	uint32_t extint_msg;	/* an IOAPIC ExtINT message waits for INTA */
	bool wait_sipi;		/* in wait-for-SIPI (SDM 9.4.2) */
	bool halt_forever;	/* halted with nothing that could wake it */
	bool dead;		/* and so was every vCPU: the VM stopped */
	bool base_changed;	/* IA32_APIC_BASE written: tell KVM */
	uint8_t cr8_in;		/* run->cr8 as this thread gave it to KVM_RUN */
	uint32_t ioapic_tmr[8];	/* IOAPIC level vectors for this CPU (isa.c) */
	uint32_t eoi_level[8];	/* level EOIs for the IOAPIC, own thread */
	timer_t timer;		/* the APIC timer's host timer */
	bool timer_ok;
	int64_t tsc_offset;	/* guest TSC = host TSC + tsc_offset */
	bool tsc_known;
	uint64_t halt_poll_ns;	/* --halt-poll: the spin window now */
	uint64_t halt_polls;	/* HLTs that spun first */
	uint64_t halt_poll_hits;	/* ... and were woken while spinning */
};

struct vm;
struct vcpu;
struct kvm_vcpu_events;

/* the start-up state one SIPI asks for */
#define IRQ_SIPI_VALID	0x100u

void irq_init(struct vm *vm);			/* the LAPICs, before threads */
void irq_thread_init(struct vcpu *v);		/* on the vCPU thread */
/* xAPIC page of this vCPU: true when @gpa is in it (the access is done) */
bool irq_mmio(struct vcpu *v, uint64_t gpa, unsigned len, bool write,
	      uint64_t *val);
/* 0, -1 for #GP, or 1: not an MSR of the interrupt controller */
int irq_msr(struct vcpu *v, uint32_t msr, bool write, uint64_t *val);

/*
 * Before KVM_RUN: run due timers, fold the PIR and pick what to inject.
 * Returns the vector to inject with KVM_INTERRUPT (already moved IRR ->
 * ISR) or -1, and sets run->request_interrupt_window as needed, and
 * run->cr8 from the TPR.
 */
int irq_before_run(struct vcpu *v);
/* the NMI messages since the last call: each one counts (SDM 6.7.1) */
unsigned irq_take_nmi(struct vcpu *v);
/* SDM 6.9: with KVM's NMI state @ev, must a maskable interrupt wait? */
bool irq_nmi_ahead(const struct kvm_vcpu_events *ev);
bool irq_take_init(struct vcpu *v);
/* enter KVM_RUN unless a request arrived: false means go round again */
bool irq_enter_guest(struct vcpu *v);
/* after KVM_RUN, whatever it returned: the guest's CR8 into the TPR */
void irq_leave_guest(struct vcpu *v);
/* wake a sleeping vCPU (stop, teardown) */
void irq_wake(struct vcpu *v);
/* the PV IPI doorbell written by @v with the struct at @gpa */
void irq_pv_ipi(struct vcpu *v, uint64_t gpa);
/* PV EOI (apic/lapic_pveoi.c): @v's flag word, on its own thread; NULL: off */
void irq_pveoi_register(struct vcpu *v, uint32_t *word);
/* a message from outside any vCPU (the IOAPIC) for @t */
void irq_post(struct vcpu *t, const struct lapic_ipi *msg);
/* --ioapic=naive: wait while a rendezvous holds the vCPUs out */
void irq_rendezvous_wait(struct vcpu *v);
void futex_wake_all(uint32_t *word);

/*
 * Out of KVM_RUN: set run->immediate_exit, then send VCPU_SIG_KICK, which
 * interrupts a KVM_RUN in progress (kvm/vcpu.c installs its handler).
 */
#define VCPU_SIG_KICK	SIGUSR1
void vcpu_kick(struct vcpu *v);

/* for sleep.c and extint.c */
void futex_wait(uint32_t *word, uint32_t val, const struct timespec *rel);
bool timer_due(struct vcpu *v);		/* its APIC timer's deadline passed */
void irq_collect(struct vcpu *v);	/* fold the PIR, take due timers */
bool requests_pending(struct vcpu *v);	/* PIR, NMI, INIT or rendezvous */
/* a request was stored for @t: kick or wake it (@self: the sender, or -1) */
int irq_notify(struct vcpu *t, int self);

#endif
