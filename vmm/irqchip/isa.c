// SPDX-License-Identifier: MIT
/*
 * --irqchip=user and split: the board's interrupt lines.  The 8254 PIT (ports
 * 0x40-0x43 and 0x61), the IOAPIC (0xfec00000), the 8259A pair (0x20,
 * 0xa0, ELCR 0x4d0) and, with --hpet=on, the HPET (0xfed00000) are pure
 * models; this file gives them a lock, a host timer and the APIC bus.
 * KVM has no HPET, so with --irqchip=kernel and --hpet=on the HPET alone
 * is served here (isa_hpet_kernel_init()): the same lock and timer
 * thread, its lines KVM_IRQ_LINE, as QEMU delivers it.
 *
 * Locks: vm->isa_lock serialises the PIT and the IOAPIC, and is taken
 * before vm->apic_lock, never after.  A LAPIC EOI of a level vector is
 * seen under apic_lock, so user.c queues it and calls isa_eoi() after.
 *
 * Lines: ISA IRQ0 (the PIT) is IOAPIC pin 2, as the MADT's interrupt
 * source override says (ACPI 6.5 sec. 5.2.12.5); ISA IRQ n > 0 is pin n.
 * Every ISA line 0-15 also goes to the same line of the PIC, whose INTR
 * is the BSP's LINT0 (extint.c: ExtINT, the vector from the PIC's INTA
 * cycle).  The INTA takes isa_lock, from a vCPU holding no lock.
 *
 * The IOAPIC's messages go to irqlab's LAPICs here, or in split mode to
 * KVM's (split.c).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "apic/apic_bus.h"
#include "exit/machine.h"
#include "extint.h"
#include "hw/apic.h"
#include "hw/ioapic.h"
#include "isa.h"
#include "split.h"
#include "trace.h"
#include "user.h"
#include "util.h"
#include "vm.h"

static unsigned isa_pin(unsigned line)
{
	return line == 0 ? 2 : line;
}

/* ---- the PIT ----------------------------------------------------------- */

static uint64_t isa_now(void *ctx)
{
	(void)ctx;
	return now_ns();
}

static void isa_set_irq(void *ctx, unsigned line, int level)
{
	struct vm *vm = ctx;

	ioapic_set_irq(&vm->ioapic, isa_pin(line), level);
	if (line < PIC_NR_LINES)
		pic_set_irq(&vm->pic, line, level);
}

/* The PIC's INTR: the BSP's LINT0 (extint.c) */
static void isa_pic_intr(void *ctx, int level)
{
	extint_pic_intr(ctx, level);
}

static const struct pic_ops isa_pic_ops = {
	.intr = isa_pic_intr,
};

/*
 * One timerfd serves the PIT and the HPET: armed for the earlier of
 * their deadlines.  Under isa_lock.  0 disarms (timerfd_settime(2)).
 */
static void isa_timer_rearm(struct vm *vm)
{
	uint64_t d = vm->pit_deadline;
	struct itimerspec its = { 0 };

	if (vm->hpet_deadline && (!d || vm->hpet_deadline < d))
		d = vm->hpet_deadline;
	its.it_value.tv_sec = d / 1000000000ull;
	its.it_value.tv_nsec = d % 1000000000ull;
	timerfd_settime(vm->pit_tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void pit_timer_arm(void *ctx, uint64_t deadline_ns)
{
	struct vm *vm = ctx;

	vm->pit_deadline = deadline_ns;
	isa_timer_rearm(vm);
}

/* The PIT's IRQ0, cut off while the HPET's legacy replacement is on (HPET
 * 1.0a 2.3.5: "the 8254 timer will not cause any interrupts") */
static void isa_pit_set_irq(void *ctx, unsigned line, int level)
{
	struct vm *vm = ctx;

	if (line == 0) {
		vm->pit_irq0 = level;
		if (vm->hpet_legacy)
			return;
	}
	isa_set_irq(ctx, line, level);
}

/* ---- the HPET (--hpet=on) ---------------------------------------------- */

static void hpet_set_gsi(void *ctx, unsigned gsi, int level)
{
	struct vm *vm = ctx;

	ioapic_set_irq(&vm->ioapic, gsi, level);
}

static void hpet_legacy(void *ctx, bool on)
{
	struct vm *vm = ctx;

	vm->hpet_legacy = on;
	/* IRQ0 goes back to the PIT at the level it has now */
	isa_set_irq(vm, 0, on ? 0 : vm->pit_irq0);
}

static void hpet_timer_arm(void *ctx, uint64_t deadline_ns)
{
	struct vm *vm = ctx;

	vm->hpet_deadline = deadline_ns;
	isa_timer_rearm(vm);
}

static const struct hpet_ops isa_hpet_ops = {
	.now_ns = isa_now,
	.set_gsi = hpet_set_gsi,
	.set_isa = isa_set_irq,
	.legacy = hpet_legacy,
	.timer_arm = hpet_timer_arm,
};

/* --irqchip=kernel: KVM's IOAPIC and PIC take GSI n (kvm_pc_routing(),
 * GSI 0 at pin 2), and KVM's 8254 stops interrupting under legacy
 * replacement (KVM_PIT_FLAGS_HPET_LEGACY, as QEMU's kvm_pit_irq_control()) */
static void khpet_set_line(void *ctx, unsigned gsi, int level)
{
	struct vm *vm = ctx;

	vm->isa_line(vm, gsi, level);		/* kvm_isa_line() */
}

static void khpet_legacy(void *ctx, bool on)
{
	struct vm *vm = ctx;

	vm->pit_hpet_legacy(vm, on);		/* kvm_pit_hpet_legacy() */
}

static const struct hpet_ops kvm_hpet_ops = {
	.now_ns = isa_now,
	.set_gsi = khpet_set_line,
	.set_isa = khpet_set_line,
	.legacy = khpet_legacy,
	.timer_arm = hpet_timer_arm,
};

/* Whether the timer thread is to end (isa_timer_stop(); under isa_lock) */
static bool isa_timer_ending(struct vm *vm)
{
	return vm->pit_thread_stop || vm_stopping(vm);
}

/*
 * The ISA side's host timer thread: one thread of irqlab's own, started
 * by main.c, which jails it first (kvm/jail.c).  It sleeps in read() on
 * the timerfd and runs each expiry under isa_lock (the PIT's, the
 * HPET's, whichever is due), until it is told to end.
 */
void isa_timer_loop(struct vm *vm)
{
	uint64_t n, now;
	bool end;

	for (;;) {
		if (read(vm->pit_tfd, &n, sizeof(n)) != sizeof(n) &&
		    errno != EINTR && errno != EAGAIN)
			die(EXIT_HOST, "PIT timer: read: %s", strerror(errno));
		pthread_mutex_lock(&vm->isa_lock);
		end = isa_timer_ending(vm);
		now = now_ns();
		if (!end && vm->pit_deadline && vm->pit_deadline <= now) {
			if (tl_on(&vm->tl_pit))	/* --timeline: its track */
				tl_add(&vm->tl_pit, TL_TIMER, tl_tsc(), 0, 0,
				       0, 0);
			vm->pit_deadline = 0;
			pit_timer_expired(&vm->pit);
		}
		if (!end && vm->hpet_deadline && vm->hpet_deadline <= now) {
			vm->hpet_deadline = 0;
			hpet_timer_expired(&vm->hpet);
		}
		if (!end)
			isa_timer_rearm(vm);
		pthread_mutex_unlock(&vm->isa_lock);
		if (end)
			return;
	}
}

/*
 * End the timer thread (main.c joins it next): fire the timerfd at once
 * so that the loop wakes, sees the flag and returns.  Under isa_lock, no
 * expiry can arm the timer again after this, and none runs after it, so
 * nothing from this thread kicks a vCPU whose thread is gone.
 */
void isa_timer_stop(struct vm *vm)
{
	struct itimerspec its = { .it_value = { 0, 1 } };

	pthread_mutex_lock(&vm->isa_lock);
	vm->pit_thread_stop = true;
	timerfd_settime(vm->pit_tfd, 0, &its, NULL);
	pthread_mutex_unlock(&vm->isa_lock);
}

static const struct pit_ops isa_pit_ops = {
	.now_ns = isa_now,
	.set_irq = isa_pit_set_irq,
	.timer_arm = pit_timer_arm,
};

/* ---- the IOAPIC on the APIC bus ---------------------------------------- */

/* A message from the IOAPIC (no source CPU): route, then post. */
static int isa_deliver(void *ctx, const struct lapic_ipi *msg)
{
	struct vm *vm = ctx;
	uint64_t mask[VMM_MAX_CPUS / 64];
	unsigned i;
	int n = 0;

	pthread_mutex_lock(&vm->apic_lock);
	apic_route(vm->lapics, vm->nr_vcpus, -1, msg, mask);
	pthread_mutex_unlock(&vm->apic_lock);
	for (i = 0; i < vm->nr_vcpus; i++)
		if (mask[i / 64] & (1ull << (i % 64))) {
			irq_post(&vm->vcpus[i], msg);
			n++;
		}
	return n;
}

static uint64_t isa_dest_mask(void *ctx, uint32_t dest, bool logical)
{
	struct vm *vm = ctx;
	struct lapic_ipi m = {
		.delivery = APIC_ICR_DM_FIXED, .logical = logical, .dest = dest,
	};
	uint64_t mask[VMM_MAX_CPUS / 64];

	pthread_mutex_lock(&vm->apic_lock);
	apic_route(vm->lapics, vm->nr_vcpus, -1, &m, mask);
	pthread_mutex_unlock(&vm->apic_lock);
	return mask[0];
}

/* The vectors whose arrival sets @cpu's TMR bit, read at the PIR fold. */
static void isa_tmr_update(void *ctx, unsigned cpu, const uint32_t *tmr)
{
	struct vm *vm = ctx;
	unsigned i;

	for (i = 0; i < 8; i++)
		__atomic_store_n(&vm->vcpus[cpu].irq.ioapic_tmr[i], tmr[i],
				 __ATOMIC_RELEASE);
}

/*
 * --ioapic=naive: bhyve's policy, stop every other vCPU before the TMRs
 * are rebuilt (vm_smp_rendezvous).  Each vCPU seen in the guest is kicked
 * until it is out; none enters again until isa_rendezvous_end().
 */
static void isa_rendezvous(void *ctx, int src)
{
	struct vm *vm = ctx;
	unsigned i;

	__atomic_store_n(&vm->rendezvous, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *t = &vm->vcpus[i];

		if ((int)i == src)
			continue;
		while (__atomic_load_n(&t->irq.mode, __ATOMIC_SEQ_CST) ==
		       VCPU_MODE_IN_GUEST && !vm_stopping(vm)) {
			vcpu_kick(t);
			sched_yield();
		}
	}
}

static void isa_rendezvous_end(struct vm *vm)
{
	if (!__atomic_load_n(&vm->rendezvous, __ATOMIC_SEQ_CST))
		return;
	__atomic_store_n(&vm->rendezvous, 0, __ATOMIC_SEQ_CST);
	futex_wake_all(&vm->rendezvous);
}

static const struct ioapic_ops isa_ioapic_ops = {
	.deliver = isa_deliver,
	.dest_mask = isa_dest_mask,
	.tmr_update = isa_tmr_update,
	.rendezvous = isa_rendezvous,
};

/*
 * Every ISA device is reached under isa_lock: one pair of bus callbacks
 * takes it around the model's own.  A write may have started an
 * --ioapic=naive rendezvous, which ends with it.
 */
static uint64_t isa_bus_read(void *opaque, uint64_t off, unsigned size,
			     int cpu)
{
	struct isa_dev *d = opaque;
	uint64_t v;

	pthread_mutex_lock(&d->vm->isa_lock);
	if (d->vm->cfg->trace & TRACE_ISA) {
		struct isa_trace_snap s;

		isa_trace_begin(d->vm, d, cpu, &s);
		v = d->read(d->dev, off, size, cpu);
		isa_trace_end(d->vm, d, &s, off, size, v, false);
	} else {
		v = d->read(d->dev, off, size, cpu);
	}
	pthread_mutex_unlock(&d->vm->isa_lock);
	return v;
}

static void isa_do_write(struct isa_dev *d, uint64_t off, unsigned size,
			 uint64_t val, int cpu)
{
	d->write(d->dev, off, size, val, cpu);
	if (d->vm->cfg->irqchip == IRQCHIP_SPLIT && d->dev == &d->vm->ioapic)
		split_sync(d->vm);
}

static void isa_bus_write(void *opaque, uint64_t off, unsigned size,
			  uint64_t val, int cpu)
{
	struct isa_dev *d = opaque;

	pthread_mutex_lock(&d->vm->isa_lock);
	if (d->vm->cfg->trace & TRACE_ISA) {
		struct isa_trace_snap s;

		isa_trace_begin(d->vm, d, cpu, &s);
		isa_do_write(d, off, size, val, cpu);
		isa_trace_end(d->vm, d, &s, off, size, val, true);
	} else {
		isa_do_write(d, off, size, val, cpu);
	}
	isa_rendezvous_end(d->vm);
	pthread_mutex_unlock(&d->vm->isa_lock);
}

static void isa_add(struct vm *vm, struct bus *bus, const char *name,
		    uint64_t base, uint64_t len, void *dev,
		    uint64_t (*rd)(void *, uint64_t, unsigned, int),
		    void (*wr)(void *, uint64_t, unsigned, uint64_t, int))
{
	struct isa_dev *d;

	if (vm->nr_isa_devs == sizeof(vm->isa_devs) / sizeof(vm->isa_devs[0]))
		die(EXIT_HOST, "isa: no room for %s", name);
	d = &vm->isa_devs[vm->nr_isa_devs++];

	*d = (struct isa_dev){ vm, dev, rd, wr };
	machine_add(bus, &(struct bus_dev){ name, base, len, d, isa_bus_read,
		isa_bus_write });
}

void isa_eoi(struct vm *vm, uint8_t vector)
{
	pthread_mutex_lock(&vm->isa_lock);
	ioapic_eoi(&vm->ioapic, vector);
	if (vm->cfg->irqchip == IRQCHIP_SPLIT)
		split_sync(vm);		/* a route held for the EOI moves */
	pthread_mutex_unlock(&vm->isa_lock);
}

/* Whether the PIT's host timer will fire (read under the lock: the timer
 * thread clears it while it re-arms) */
bool isa_timer_armed(struct vm *vm)
{
	bool armed;

	pthread_mutex_lock(&vm->isa_lock);
	armed = vm->pit.timer_deadline != 0;
	pthread_mutex_unlock(&vm->isa_lock);
	return armed;
}

void isa_set_line(struct vm *vm, unsigned line, int level)
{
	pthread_mutex_lock(&vm->isa_lock);
	isa_set_irq(vm, line, level);
	pthread_mutex_unlock(&vm->isa_lock);
}

static void isa_trace_op(void *ctx, const char *line)
{
	isa_trace_line(ctx, line);
}

/* The models' ops, with their trace op when --trace asks for it. */
static struct ioapic_ops ioapic_ops;
static struct pit_ops pit_ops;
static struct pic_ops pic_ops;

static void isa_pick_ops(struct vm *vm)
{
	unsigned t = vm->cfg->trace;

	ioapic_ops = vm->cfg->irqchip == IRQCHIP_SPLIT ? split_ioapic_ops :
		     isa_ioapic_ops;
	pit_ops = isa_pit_ops;
	pic_ops = isa_pic_ops;
	if (t & TRACE_IOAPIC)
		ioapic_ops.trace = isa_trace_op;
	if (t & TRACE_PIT)
		pit_ops.trace = isa_trace_op;
	if (t & TRACE_PIC)
		pic_ops.trace = isa_trace_op;
}

/* The lock and the timer thread's timerfd */
static void isa_timer_init(struct vm *vm)
{
	pthread_mutex_init(&vm->isa_lock, NULL);
	/* the clock of now_ns(), which the models' deadlines are in */
	vm->pit_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (vm->pit_tfd < 0)
		die(EXIT_HOST, "timer thread: timerfd_create: %s",
		    strerror(errno));
}

static void isa_hpet_add(struct vm *vm, const struct hpet_ops *ops)
{
	hpet_init(&vm->hpet, ops, vm);
	isa_add(vm, &vm->mmio, "hpet", HPET_BASE, HPET_LEN, &vm->hpet,
		hpet_bus_read, hpet_bus_write);
}

/* --irqchip=kernel --hpet=on: the HPET, its lock and its timer only */
void isa_hpet_kernel_init(struct vm *vm)
{
	isa_timer_init(vm);
	isa_hpet_add(vm, &kvm_hpet_ops);
}

void isa_init(struct vm *vm)
{
	isa_timer_init(vm);
	isa_pick_ops(vm);
	pit_init(&vm->pit, &pit_ops, vm);
	if (ioapic_init(&vm->ioapic, vm->nr_vcpus, 0, vm->cfg->ioapic_policy,
			&ioapic_ops, vm))
		die(EXIT_HOST, "IOAPIC: cannot serve %u vCPUs", vm->nr_vcpus);
	split_init(vm);
	isa_add(vm, &vm->pio, "pit", 0x40, 4, &vm->pit, pit_bus_read,
		pit_bus_write);
	isa_add(vm, &vm->pio, "port61", 0x61, 1, &vm->pit, port61_bus_read,
		port61_bus_write);
	pic_init(&vm->pic, &pic_ops, vm);
	isa_add(vm, &vm->pio, "pic1", PIC_MASTER_CMD, 2, &vm->pic,
		pic_master_read, pic_master_write);
	isa_add(vm, &vm->pio, "pic2", PIC_SLAVE_CMD, 2, &vm->pic,
		pic_slave_read, pic_slave_write);
	isa_add(vm, &vm->pio, "elcr", PIC_ELCR1, 2, &vm->pic, pic_elcr_read,
		pic_elcr_write);
	isa_add(vm, &vm->mmio, "ioapic", IOAPIC_DEFAULT_BASE, IOAPIC_MMIO_SIZE,
		&vm->ioapic, ioapic_bus_read, ioapic_bus_write);
	/* the pc-testdev lines are ISA lines too; its writes run under
	 * isa_lock, so it calls isa_set_irq() itself */
	testdev_init(&vm->testdev, isa_set_irq, vm);
	isa_add(vm, &vm->pio, "testdev", TESTDEV_IRQ_BASE, TESTDEV_NR_LINES,
		&vm->testdev, testdev_bus_read, testdev_bus_write);
	if (vm->cfg->hpet)
		isa_hpet_add(vm, &isa_hpet_ops);
}

void isa_ioapic_stats(struct vm *vm, struct ioapic_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!vm->ioapic.ops)
		return;			/* no isa_init(): KVM's IOAPIC */
	pthread_mutex_lock(&vm->isa_lock);
	*st = vm->ioapic.stats;
	pthread_mutex_unlock(&vm->isa_lock);
}
