// SPDX-License-Identifier: MIT
/*
 * The interrupt side of the KVM glue (Documentation/virt/kvm/api.rst):
 * KVM_INTERRUPT and KVM_NMI for --irqchip=user, KVM_IRQ_LINE and the PC's
 * GSI routing for --irqchip=kernel, KVM_SIGNAL_MSI and the IOAPIC's MSI
 * routes for --irqchip=split.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "apic/lapic_dump.h"
#include "exit/machine.h"
#include "hw/apic.h"
#include "irqchip.h"
#include "kvm.h"
#include "util.h"
#include "vm.h"

/* ---- --irqchip=split ---- */

/* api.rst, KVM_SIGNAL_MSI: >0 delivered, 0 blocked by the guest */
static int kvm_signal_msi(struct vm *vm, const struct split_msi *m)
{
	struct kvm_msi msi = { .address_lo = m->addr, .data = m->data };

	return kvm_vm_ioctl(vm, KVM_SIGNAL_MSI, &msi);
}

/*
 * api.rst, KVM_SET_GSI_ROUTING: the whole table at once.  GSIs below
 * KVM_CAP_SPLIT_IRQCHIP's args[0] are the IOAPIC's: KVM scans their MSI
 * routes for the EOI-exit bitmaps (level routes: KVM_EXIT_IOAPIC_EOI).
 */
static int kvm_set_routes(struct vm *vm, const struct split_msi *r,
			  unsigned n)
{
	struct {
		struct kvm_irq_routing h;
		struct kvm_irq_routing_entry e[IOAPIC_NR_PINS];
	} t;
	unsigned i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < n && i < IOAPIC_NR_PINS; i++) {
		if (!r[i].addr)
			continue;
		t.e[t.h.nr] = (struct kvm_irq_routing_entry){
			.gsi = i, .type = KVM_IRQ_ROUTING_MSI,
			.u.msi = { .address_lo = r[i].addr, .data = r[i].data },
		};
		t.h.nr++;
	}
	return kvm_vm_ioctl(vm, KVM_SET_GSI_ROUTING, &t) < 0 ? -1 : 0;
}

/*
 * --irqchip=kernel: the PC's wiring, as the MADT describes it (boot/acpi.c).
 * ISA IRQ n is GSI n on PIC line n, and on IOAPIC pin n, except IRQ0 (the
 * PIT), which the interrupt source override puts on pin 2 (ACPI 6.5
 * 5.2.12.5); pin 2's own GSI, the cascade, has no IOAPIC route.  KVM's
 * default table (GSI n = pin n) would leave the PIT on pin 0, which the
 * guest never programs.  This is QEMU's kvm_pc_setup_irq_routing().
 */
void kvm_pc_routing(struct vm *vm)
{
	struct {
		struct kvm_irq_routing h;
		struct kvm_irq_routing_entry e[16 + IOAPIC_NR_PINS];
	} t;
	unsigned i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 16; i++) {
		if (i == 2)
			continue;	/* the slave's cascade input */
		t.e[t.h.nr++] = (struct kvm_irq_routing_entry){
			.gsi = i, .type = KVM_IRQ_ROUTING_IRQCHIP,
			.u.irqchip = { i < 8 ? KVM_IRQCHIP_PIC_MASTER :
				       KVM_IRQCHIP_PIC_SLAVE, i % 8 },
		};
	}
	for (i = 0; i < IOAPIC_NR_PINS; i++) {
		if (i == 2)
			continue;
		t.e[t.h.nr++] = (struct kvm_irq_routing_entry){
			.gsi = i, .type = KVM_IRQ_ROUTING_IRQCHIP,
			.u.irqchip = { KVM_IRQCHIP_IOAPIC, i ? i : 2 },
		};
	}
	if (kvm_vm_ioctl(vm, KVM_SET_GSI_ROUTING, &t) < 0)
		die(EXIT_HOST, "KVM_SET_GSI_ROUTING: %s", strerror(errno));
}

static const struct split_ops kvm_split_ops = {
	.signal_msi = kvm_signal_msi,
	.set_routes = kvm_set_routes,
};

/*
 * api.rst, KVM_CAP_SPLIT_IRQCHIP: the LAPICs in KVM, the IOAPIC, PIC and
 * PIT in userspace; args[0] GSIs are reserved for the IOAPIC's routes.
 * It must come before any vCPU exists.
 */
void kvm_enable_split(struct vm *vm)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_SPLIT_IRQCHIP,
		.args[0] = IOAPIC_NR_PINS,
	};

	if (!kvm_check(vm, KVM_CAP_SPLIT_IRQCHIP))
		die(EXIT_HOST, "--irqchip=split: no KVM_CAP_SPLIT_IRQCHIP");
	if (!kvm_check(vm, KVM_CAP_SIGNAL_MSI))
		die(EXIT_HOST, "--irqchip=split: no KVM_CAP_SIGNAL_MSI");
	if (kvm_vm_ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
		die(EXIT_HOST, "KVM_ENABLE_CAP(SPLIT_IRQCHIP, 24): %s",
		    strerror(errno));
	vm->split.ops = &kvm_split_ops;
}

/* api.rst, KVM_INTERRUPT: only when ready_for_interrupt_injection said so */
void kvm_inject_irq(struct vcpu *v, int vector)
{
	struct kvm_interrupt irq = { .irq = vector };

	if (ioctl(v->fd, KVM_INTERRUPT, &irq) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_INTERRUPT %d: %s", v->id, vector,
		    strerror(errno));
}

/*
 * --irqchip=split: an ExtINT vector (irqchip/extint.c).  api.rst, KVM_INTERRUPT
 * with an in-kernel LAPIC: EEXIST if one is queued already, ENXIO with
 * KVM's own PIC.  ready_for_interrupt_injection rules the first out; a
 * guest must not stop the VMM through it anyway, so: one warning, dropped.
 */
void kvm_inject_extint(struct vcpu *v, int vector)
{
	static bool warned;
	struct kvm_interrupt irq = { .irq = vector };

	if (ioctl(v->fd, KVM_INTERRUPT, &irq) < 0 && !warned) {
		warned = true;
		warn("vcpu%d: KVM_INTERRUPT %d (ExtINT): %s; dropped", v->id,
		     vector, strerror(errno));
	}
}

/* api.rst, KVM_NMI: KVM holds it until the guest can take an NMI */
void kvm_inject_nmi(struct vcpu *v)
{
	if (ioctl(v->fd, KVM_NMI, 0) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_NMI: %s", v->id, strerror(errno));
}

/* api.rst, KVM_GET_VCPU_EVENTS: is KVM's NMI ahead of a KVM_INTERRUPT? */
bool kvm_nmi_ahead(struct vcpu *v)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_GET_VCPU_EVENTS: %s", v->id,
		    strerror(errno));
	return irq_nmi_ahead(&ev);
}

/*
 * --irqchip=user, an INIT (SDM 11.4.7.3, 9.1.1): no NMI pending, being
 * delivered or blocking, and no KVM_INTERRUPT vector, survive it (what
 * KVM's own kvm_vcpu_reset() clears).  api.rst, KVM_SET_VCPU_EVENTS:
 * nmi.pending is taken only with KVM_VCPUEVENT_VALID_NMI_PENDING.
 */
void kvm_init_events(struct vcpu *v)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_GET_VCPU_EVENTS: %s", v->id,
		    strerror(errno));
	ev.nmi.pending = ev.nmi.injected = ev.nmi.masked = 0;
	ev.interrupt.injected = 0;
	ev.flags = KVM_VCPUEVENT_VALID_NMI_PENDING;
	if (ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_VCPU_EVENTS: %s", v->id,
		    strerror(errno));
}

/*
 * --irqchip=kernel: set input @gsi of KVM's interrupt controllers
 * (kvm_pc_routing(): ISA IRQ n is GSI n; GSI 0 is IOAPIC pin 2).
 */
static void kvm_irq_line(struct vm *vm, unsigned gsi, int level)
{
	struct kvm_irq_level l = { .irq = gsi, .level = !!level };

	if (kvm_vm_ioctl(vm, KVM_IRQ_LINE, &l) < 0)
		warn("KVM_IRQ_LINE(%u, %d): %s", gsi, l.level, strerror(errno));
}

void kvm_isa_line(struct vm *vm, unsigned line, int level)
{
	kvm_irq_line(vm, line, level);
}

/*
 * --irqchip=kernel --hpet=on: the HPET's legacy replacement cuts KVM's
 * 8254 off IRQ0 (HPET 1.0a 2.3.5).  KVM_PIT_FLAGS_HPET_LEGACY, set by
 * KVM_SET_PIT2 as QEMU's kvm_pit_irq_control() sets it: KVM reloads
 * channel 0 with its timer off while the flag is set (i8254.c,
 * kvm_pit_load_count()).  The round trip restarts channel 0's count.
 */
void kvm_pit_hpet_legacy(struct vm *vm, bool on)
{
	struct kvm_pit_state2 ps;

	if (kvm_vm_ioctl(vm, KVM_GET_PIT2, &ps) < 0) {
		warn("KVM_GET_PIT2: %s", strerror(errno));
		return;
	}
	if (on)
		ps.flags |= KVM_PIT_FLAGS_HPET_LEGACY;
	else
		ps.flags &= ~KVM_PIT_FLAGS_HPET_LEGACY;
	if (kvm_vm_ioctl(vm, KVM_SET_PIT2, &ps) < 0)
		warn("KVM_SET_PIT2: %s", strerror(errno));
}

/* ISA line n is GSI n (line 0 reaching pin 2, as in irqchip/isa.c), so
 * a line reaches the same IOAPIC pin in both modes. */
static void kvm_testdev_irq(void *ctx, unsigned line, int level)
{
	kvm_irq_line(ctx, line, level);
}

/* --irqchip=kernel: the pc-testdev lines (dev/testdev.c) are KVM's GSIs. */
void kvm_testdev_init(struct vm *vm)
{
	testdev_init(&vm->testdev, kvm_testdev_irq, vm);
	machine_add(&vm->pio, &(struct bus_dev){ "testdev", TESTDEV_IRQ_BASE,
		TESTDEV_NR_LINES, &vm->testdev, testdev_bus_read,
		testdev_bus_write });
}

/* ---- --timeout: every vCPU's LAPIC, the threads stopped ---- */

static uint64_t kvm_get_msr(struct vcpu *v, uint32_t index)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = index };

	return ioctl(v->fd, KVM_GET_MSRS, &m) == 1 ? m.e.data : 0;
}

/* api.rst: the register page of KVM's LAPIC (split, kernel), else the
 * model's under apic_lock; the state, base and TSC deadline with it */
static int dump_page(struct vcpu *v, enum vcpu_state was, uint8_t *page,
		     uint64_t *base, uint64_t *tscd, const char **state)
{
	static const char *const vstate[] = {
		[VCPU_PARKED] = "waiting for a SIPI", [VCPU_RUNNING] = "running",
		[VCPU_HALTED] = "halted (HLT)", [VCPU_DONE] = "stopped",
		[VCPU_HALT_AWAKE] = "halted (HLT)",
	};
	static const char *const mp[] = {
		[KVM_MP_STATE_RUNNABLE] = "running",
		[KVM_MP_STATE_UNINITIALIZED] = "waiting for INIT and SIPI",
		[KVM_MP_STATE_INIT_RECEIVED] = "waiting for a SIPI",
		[KVM_MP_STATE_HALTED] = "halted (HLT)",
		[KVM_MP_STATE_SIPI_RECEIVED] = "SIPI received",
	};
	struct kvm_lapic_state ls;
	struct kvm_mp_state m;

	if (v->vm->cfg->irqchip == IRQCHIP_USER) {
		pthread_mutex_lock(&v->vm->apic_lock);
		lapic_regs_page(&v->irq.lapic, page);
		*base = lapic_base(&v->irq.lapic);
		*tscd = v->irq.lapic.tsc_deadline;
		pthread_mutex_unlock(&v->vm->apic_lock);
		*state = vstate[was];
		return 0;
	}
	if (ioctl(v->fd, KVM_GET_LAPIC, &ls) < 0)
		return -1;
	memcpy(page, ls.regs, LAPIC_PAGE_SIZE);
	*base = kvm_get_msr(v, MSR_IA32_APIC_BASE);
	*tscd = kvm_get_msr(v, MSR_IA32_TSC_DEADLINE);
	*state = !ioctl(v->fd, KVM_GET_MP_STATE, &m) &&
		 m.mp_state < ARRAY_SIZE(mp) && mp[m.mp_state] ?
		 mp[m.mp_state] : "in an unknown state";
	return 0;
}

static void dump_one(struct vcpu *v, enum vcpu_state was)
{
	uint8_t page[LAPIC_PAGE_SIZE];
	struct kvm_vcpu_events ev;
	struct kvm_regs r;
	uint64_t base, tscd;
	const char *state;

	if (dump_page(v, was, page, &base, &tscd, &state) ||
	    ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0) {
		fprintf(stderr, "irqlab-vmm: vcpu%d: (state unavailable: %s)\n",
			v->id, strerror(errno));
		return;
	}
	fprintf(stderr, "irqlab-vmm: vcpu%d: %s, RIP 0x%llx RFLAGS 0x%llx "
		"(IF=%d), IA32_APIC_BASE 0x%llx (%s)\n", v->id, state,
		r.rip, r.rflags, !!(r.rflags & 0x200),
		(unsigned long long)base, !(base & APIC_BASE_EN) ? "disabled" :
		base & APIC_BASE_EXTD ? "x2APIC" : "xAPIC");
	lapic_print_page(stderr, "  ", page);
	fprintf(stderr, "  TSC deadline 0x%llx; NMI in KVM: pending %u injected "
		"%u masked %u", (unsigned long long)tscd, ev.nmi.pending,
		ev.nmi.injected, ev.nmi.masked);
	if (v->vm->cfg->irqchip == IRQCHIP_USER)
		fprintf(stderr, "; NMIs not yet given to KVM %u",
			__atomic_load_n(&v->irq.nmi, __ATOMIC_RELAXED));
	fputc('\n', stderr);
}

void kvm_dump_lapics(struct vm *vm, const enum vcpu_state *was)
{
	unsigned i;

	for (i = 0; i < vm->nr_vcpus; i++)
		dump_one(&vm->vcpus[i], was[i]);
}
