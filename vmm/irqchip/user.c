// SPDX-License-Identifier: MIT
/*
 * --irqchip=user: the local APIC model wired to the vCPU threads (user.h
 * says who may touch what).  vm->apic_lock serialises every change of any
 * LAPIC with apic_route(), which reads all of them; a vCPU reads its own
 * LAPIC without it, because nobody else writes it.  sleep.c has the
 * other half: a vCPU asleep in HLT or waiting for a SIPI.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "apic/apic_bus.h"
#include "dev/pvipi.h"
#include "exit/machine.h"
#include "extint.h"
#include "hw/apic.h"
#include "hw/ioapic.h"
#include "isa.h"
#include "user.h"
#include "util.h"
#include "vm.h"

void futex_wait(uint32_t *word, uint32_t val, const struct timespec *rel)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, rel, NULL, 0);
}

static void futex_wake_one(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void futex_wake_all(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

void irq_rendezvous_wait(struct vcpu *v)
{
	struct vm *vm = v->vm;

	while (__atomic_load_n(&vm->rendezvous, __ATOMIC_SEQ_CST) &&
	       !vm_stopping(vm))
		futex_wait(&vm->rendezvous, 1, NULL);
}

static struct vcpu *vcpu_of(void *ctx, int cpu)
{
	return &((struct vm *)ctx)->vcpus[cpu];
}

/* ---- notifying a target ------------------------------------------------ */

/*
 * Out of KVM_RUN (api.rst, "immediate_exit"): the flag catches a thread
 * about to enter, the signal one inside.  No KVM ioctl, so it lives here.
 */
void vcpu_kick(struct vcpu *v)
{
	__atomic_store_n(&v->run->immediate_exit, 1, __ATOMIC_RELEASE);
	if (v->thread_started)
		pthread_kill(v->thread, VCPU_SIG_KICK);
}

void irq_wake(struct vcpu *v)
{
	__atomic_add_fetch(&v->irq.wake, 1, __ATOMIC_SEQ_CST);
	futex_wake_one(&v->irq.wake);
}

/*
 * A request was just stored for @t (a PIR bit with ON newly set, an NMI,
 * INIT or SIPI flag).  @self is the sending vCPU, or -1.  Returns what it
 * did, for the timeline: TL_KICK, TL_WAKE or TL_QUIET.
 */
int irq_notify(struct vcpu *t, int self)
{
	if (t->id == self)
		return TL_QUIET;	/* outside the guest now: it checks
					 * before entry */
	switch (__atomic_load_n(&t->irq.mode, __ATOMIC_SEQ_CST)) {
	case VCPU_MODE_IN_GUEST:
		vcpu_kick(t);
		return TL_KICK;
	case VCPU_MODE_SLEEPING:
		irq_wake(t);
		return TL_WAKE;
	default:
		return TL_QUIET;
	}
}

/* ---- struct lapic_ops for the vCPUs ------------------------------------ */

static uint64_t ops_now(void *ctx)
{
	(void)ctx;
	return now_ns();
}

/* The APIC timer's host timer, armed only from the vCPU's own thread. */
static void ops_timer_arm(void *ctx, int cpu, uint64_t deadline_ns)
{
	struct vcpu *v = vcpu_of(ctx, cpu);
	struct itimerspec its = { 0 };

	if (!v->irq.timer_ok)
		return;		/* no thread yet, so no guest write either */
	its.it_value.tv_sec = deadline_ns / 1000000000ull;
	its.it_value.tv_nsec = deadline_ns % 1000000000ull;
	if (!deadline_ns)
		its.it_value.tv_nsec = 0;	/* all zero: disarm */
	timer_settime(v->irq.timer, TIMER_ABSTIME, &its, NULL);
}

/*
 * --timeline (docs/ANATOMY.md): the sender @s posts IPI @vector to @t as
 * a new id, stored before the post, so the target's thread finds it in
 * its @pending when it injects the vector.
 */
static uint32_t tl_post_id(struct vcpu *s, struct vcpu *t, unsigned vector)
{
	uint32_t id = __atomic_add_fetch(&s->vm->tl_next_id, 1,
					 __ATOMIC_RELAXED);

	__atomic_store_n(&t->tl.pending[vector & 0xff], id, __ATOMIC_RELEASE);
	return id;
}

/* The post at @tsc, and how it notified @t, from @ntsc (before it did) */
static void tl_post(struct vcpu *s, struct vcpu *t, unsigned vector,
		    uint32_t id, uint64_t tsc, int notify, uint64_t ntsc)
{
	tl_add(&s->tl, TL_POST, tsc, id, tl_guest_sends(&s->tl), vector,
	       (unsigned)t->id);
	tl_add(&s->tl, notify, ntsc, id, 0, vector, (unsigned)t->id);
}

/*
 * Post a fixed interrupt to @t; INIT and SIPI are flags.  NMIs are
 * counted, not flagged: two sent close together (a self NMI and a remote
 * one) are two NMIs, the second held while the first is handled (SDM
 * 6.7.1); KVM keeps that latch (kvm/vcpu.c).
 */
static void irq_deliver(struct vm *vm, struct vcpu *t, int src,
			const struct lapic_ipi *ipi)
{
	struct vcpu *s = src >= 0 ? &vm->vcpus[src] : NULL;
	uint64_t tsc, ntsc = 0;
	uint32_t id = 0;
	int notify = TL_QUIET;

	switch (ipi->delivery) {
	case APIC_ICR_DM_FIXED:
	case APIC_ICR_DM_LOWEST:
		if (t->id == src) {
			/* a self IPI is accepted at once: its own LAPIC */
			if (tl_on(&s->tl)) {
				tsc = tl_tsc();
				tl_post(s, t, ipi->vector,
					tl_post_id(s, t, ipi->vector), tsc,
					TL_QUIET, tsc);
			}
			lapic_accept(&t->irq.lapic, ipi->vector, ipi->level);
			return;
		}
		tsc = s && tl_on(&s->tl) ? tl_tsc() : 0;
		if (tsc)
			id = tl_post_id(s, t, ipi->vector);
		if (pir_post(&t->irq.pir, ipi->vector)) {
			if (id) {
				ntsc = tl_tsc();
				__atomic_store_n(&t->tl.notified, id,
						 __ATOMIC_RELEASE);
			}
			notify = irq_notify(t, src);
		}
		if (tsc)
			tl_post(s, t, ipi->vector, id, tsc, notify,
				ntsc ? ntsc : tl_tsc());
		break;
	case APIC_ICR_DM_NMI:
		__atomic_add_fetch(&t->irq.nmi, 1, __ATOMIC_SEQ_CST);
		irq_notify(t, src);
		break;
	case APIC_ICR_DM_INIT:
		__atomic_store_n(&t->irq.init, 1, __ATOMIC_SEQ_CST);
		irq_notify(t, src);
		break;
	case APIC_ICR_DM_STARTUP:
		/* SDM 9.4.4.1: a SIPI to a CPU not in wait-for-SIPI is
		 * ignored; one with its INIT still in flight counts */
		if (!__atomic_load_n(&t->irq.wait_sipi, __ATOMIC_SEQ_CST) &&
		    !__atomic_load_n(&t->irq.init, __ATOMIC_SEQ_CST))
			return;
		__atomic_store_n(&t->irq.sipi, IRQ_SIPI_VALID | ipi->vector,
				 __ATOMIC_SEQ_CST);
		irq_notify(t, src);
		break;
	case APIC_ICR_DM_SMI:
		if (!vm->smi_warned++)
			warn("vcpu%d: SMI IPI: irqlab has no SMM; dropped", src);
		break;
	}
}

/* From the IOAPIC: no sending vCPU, so every target may need a notify. */
void irq_post(struct vcpu *t, const struct lapic_ipi *msg)
{
	if (msg->delivery == APIC_ICR_DM_FIXED ||
	    msg->delivery == APIC_ICR_DM_LOWEST) {
		if (pir_post(&t->irq.pir, msg->vector))
			irq_notify(t, -1);
		return;
	}
	if (msg->delivery == IOAPIC_RTE_DM_EXTINT) {
		irq_post_extint(t);	/* the vector comes from the PIC */
		return;
	}
	irq_deliver(t->vm, t, -1, msg);
}

/* ICR writes (lapic.h: called with vm->apic_lock held, by vCPU @cpu) */
static void ops_send_ipi(void *ctx, int cpu, const struct lapic_ipi *ipi)
{
	struct vm *vm = ctx;
	uint64_t mask[VMM_MAX_CPUS / 64];
	unsigned i;
	struct tl_vcpu *tl = &vm->vcpus[cpu].tl;

	if (tl_on(tl))
		tl_add(tl, TL_EXIT, tl->exit_tsc, 0, tl_guest_sends(tl),
		       ipi->vector, 0);

	apic_route(vm->lapics, vm->nr_vcpus, cpu, ipi, mask);
	for (i = 0; i < vm->nr_vcpus; i++)
		if (mask[i / 64] & (1ull << (i % 64)))
			irq_deliver(vm, &vm->vcpus[i], cpu, ipi);
}

/*
 * The PV IPI doorbell (dev/pvipi.h): one exit, a destination set, each
 * target posted and notified as an ICR write's would be.  A request the
 * decoder refuses sends nothing and is counted by its status; an illegal
 * vector also sets the sender's ESR bit 5, as the ICR write would.
 */
void irq_pv_ipi(struct vcpu *v, uint64_t gpa)
{
	struct vm *vm = v->vm;
	struct lapic_ipi ipi = { .assert = true,
				 .shorthand = APIC_ICR_DEST_FIELD };
	uint64_t mask[VMM_MAX_CPUS / 64];
	struct pvipi_req req;
	enum pvipi_status st;
	unsigned i;

	st = pvipi_decode(&vm->mem, gpa, vm->nr_vcpus, &req);
	__atomic_add_fetch(&vm->pv_ipi_status[st], 1, __ATOMIC_RELAXED);
	if (st != PVIPI_OK && st != PVIPI_ILLEGAL_VECTOR)
		return;
	ipi.vector = req.vector;
	ipi.delivery = req.delivery;
	if (tl_on(&v->tl))
		tl_add(&v->tl, TL_EXIT, v->tl.exit_tsc, 0,
		       tl_guest_sends(&v->tl), ipi.vector, 0);
	pthread_mutex_lock(&vm->apic_lock);
	if (st == PVIPI_ILLEGAL_VECTOR) {
		lapic_send_illegal(&v->irq.lapic);
	} else {
		apic_route_set(vm->lapics, vm->nr_vcpus, req.dest,
			       IRQLAB_PV_IPI_MAX_IDS, mask);
		for (i = 0; i < vm->nr_vcpus; i++)
			if (mask[i / 64] & (1ull << (i % 64)))
				irq_deliver(vm, &vm->vcpus[i], v->id, &ipi);
	}
	pthread_mutex_unlock(&vm->apic_lock);
}

/* EOI of a level-triggered vector, under apic_lock: queued for the IOAPIC
 * (isa.c), whose lock comes first, until the access is done */
static void ops_eoi_level(void *ctx, int cpu, uint8_t vector)
{
	struct vcpu *v = vcpu_of(ctx, cpu);

	v->irq.eoi_level[vector >> 5] |= 1u << (vector & 31);
}

static void irq_flush_eoi(struct vcpu *v)
{
	unsigned i;
	int b;

	for (i = 0; i < 8; i++)
		while (v->irq.eoi_level[i]) {
			b = __builtin_ctz(v->irq.eoi_level[i]);
			v->irq.eoi_level[i] &= ~(1u << b);
			isa_eoi(v->vm, i * 32 + b);
		}
}

static void ops_trace(void *ctx, int cpu, const char *line)
{
	struct vm *vm = ctx;
	uint64_t t = now_ns() - vm->start_ns;

	fprintf(stderr, "t=%" PRIu64 ".%06" PRIu64 " vcpu=%d %s\n",
		t / 1000000000, t / 1000 % 1000000, cpu, line);
}

static uint64_t guest_tsc(void *ctx);

/* the LAPICs' ops; irq_init() sets the trace op as --trace asks */
static struct lapic_ops irq_ops = {
	.now_ns = ops_now,
	.timer_arm = ops_timer_arm,
	.send_ipi = ops_send_ipi,
	.eoi_level = ops_eoi_level,
	.tsc = guest_tsc,
};

/*
 * TSC-deadline mode wants the guest TSC, and it is only read on the vCPU's
 * own thread (an IA32_TSC_DEADLINE write): the thread's vCPU knows its
 * offset.  Without KVM scaling, guest TSC = host TSC + offset.
 */
static __thread struct vcpu *irq_self;

static uint64_t guest_tsc(void *ctx)
{
	struct vm *vm = ctx;

	if (!irq_self)
		return 0;
	/* where the host's TSC is unstable KVM moves the offset as the
	 * vCPU moves between host CPUs (seen under the nested rig): read it
	 * at each use, one ioctl on an exit that is already slow */
	if (vm->tsc_offset_sync)
		vm->tsc_offset_sync(irq_self);
	return __rdtsc() + irq_self->irq.tsc_offset;
}

void irq_init(struct vm *vm)
{
	const struct vmm_config *cfg = vm->cfg;
	struct lapic_caps caps = {
		.x2apic = vm->x2apic_ok,
		.tsc_khz = vm->tsc_deadline_ok ? vm->tsc_khz : 0,
		.phys_bits = vm->phys_bits,
	};
	unsigned i;

	irq_ops.trace = cfg->trace & TRACE_LAPIC ? ops_trace : NULL;
	pthread_mutex_init(&vm->apic_lock, NULL);
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct lapic *l = &vm->vcpus[i].irq.lapic;

		lapic_init(l, i, i, i == 0, cfg->apic_mhz * 1000000ull,
			   &irq_ops, vm);
		lapic_set_caps(l, &caps);
		vm->lapics[i] = l;
		/* SDM 9.4.1: after power-up the APs wait for a SIPI */
		vm->vcpus[i].irq.wait_sipi = i != 0;
	}
}

void irq_thread_init(struct vcpu *v)
{
	struct sigevent sev;

	/* the host timer kicks its own thread out of KVM_RUN (kvm/vcpu.c) */
	irq_self = v;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = VCPU_SIG_KICK;
	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &v->irq.timer))
		die(EXIT_HOST, "vcpu%d: timer_create: %s", v->id,
		    strerror(errno));
	v->irq.timer_ok = true;
}

/* ---- register accesses (on the vCPU's own thread) ---------------------- */

/*
 * --timeline: an exit that writes register @reg (offset >> 4).  ICR_HI is
 * an xAPIC IPI's first exit (SDM 11.6.1: the ICR_LO write sends); EOI
 * ends the highest vector in service (SDM 11.8.5), whose IPI id this
 * vCPU took in at the injection.
 */
static void tl_apic_write(struct vcpu *v, unsigned reg)
{
	const struct lapic *l = &v->irq.lapic;
	int i;

	if (reg == APIC_ICR_HI >> 4) {
		tl_add(&v->tl, TL_ICR_HI, v->tl.exit_tsc, 0,
		       tl_guest_sends(&v->tl), 0, 0);
	} else if (reg == APIC_EOI >> 4) {
		for (i = 7; i >= 0 && !l->isr[i]; i--)
			;
		if (i >= 0) {
			unsigned vec = i * 32 + 31 - __builtin_clz(l->isr[i]);

			tl_add(&v->tl, TL_EOI, v->tl.exit_tsc, v->tl.isr[vec],
			       0, vec, 0);
		}
	}
}

bool irq_mmio(struct vcpu *v, uint64_t gpa, unsigned len, bool write,
	      uint64_t *val)
{
	struct lapic *l = &v->irq.lapic;
	uint32_t v32 = *val;

	if (!lapic_mmio_enabled(l) || (gpa & ~0xfffull) != (lapic_base(l) & APIC_BASE_ADDR_MASK))
		return false;
	if (write && tl_on(&v->tl))
		tl_apic_write(v, (gpa & 0xfff) >> 4);
	pthread_mutex_lock(&v->vm->apic_lock);
	if (write) {
		lapic_mmio_write(l, gpa & 0xfff, len, v32);
	} else {
		if (lapic_mmio_read(l, gpa & 0xfff, len, &v32))
			v32 = 0;
		*val = v32;
	}
	pthread_mutex_unlock(&v->vm->apic_lock);
	irq_flush_eoi(v);
	return true;
}

int irq_msr(struct vcpu *v, uint32_t msr, bool write, uint64_t *val)
{
	int r;

	if (msr != MSR_IA32_APIC_BASE && msr != MSR_IA32_TSC_DEADLINE &&
	    (msr < MSR_X2APIC_BASE || msr > MSR_X2APIC_END))
		return 1;
	if (write && tl_on(&v->tl) && msr >= MSR_X2APIC_BASE)
		tl_apic_write(v, msr - MSR_X2APIC_BASE);
	pthread_mutex_lock(&v->vm->apic_lock);
	r = write ? lapic_msr_write(&v->irq.lapic, msr, *val) :
		    lapic_msr_read(&v->irq.lapic, msr, val);
	pthread_mutex_unlock(&v->vm->apic_lock);
	irq_flush_eoi(v);
	if (write && msr == MSR_IA32_APIC_BASE && !r)
		v->irq.base_changed = true;	/* kvm/vcpu.c tells KVM */
	return r ? -1 : 0;
}
