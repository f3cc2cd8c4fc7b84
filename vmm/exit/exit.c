// SPDX-License-Identifier: MIT
/*
 * One VM exit: classify it for the counters, then hand it to the bus.
 * Everything here reads and writes struct kvm_run only, so the unit tests
 * drive it with a kvm_run they fill in themselves.
 */
#include <string.h>

#include "exit.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "irqchip/isa.h"
#include "irqchip/user.h"
#include "util.h"
#include "vm.h"

/* the PV devices' ports from IRQLAB_PORT_PV_FIRST on are ordinary work */
static bool exit_is_protocol_port(uint16_t port)
{
	return port >= IRQLAB_PORT_BASE && port < IRQLAB_PORT_PV_FIRST;
}

static unsigned current_phase(struct vcpu *v)
{
	return __atomic_load_n(&v->vm->phase, __ATOMIC_RELAXED);
}

static void count(struct vcpu *v, unsigned reason, const int *cls)
{
	stats_exit(&v->stats, current_phase(v), reason, cls);
}

/*
 * KVM_EXIT_IO: @count elements of @size bytes at run + data_offset
 * (Documentation/virt/kvm/api.rst, "KVM_EXIT_IO").
 */
static void exit_io(struct vcpu *v)
{
	/* LAB exits: begin
	 * A port I/O exit (api.rst, "KVM_EXIT_IO"): run->io says the port,
	 * the direction, the size (1, 2 or 4) and how many elements (a REP
	 * string instruction gives several), which sit at run + data_offset.
	 * Count it first (count(): the protocol's ports in their own class,
	 * see exit_is_protocol_port(); the PV IPI doorbell's OUT as a send;
	 * the rest as port I/O) and in the per-port table
	 * (stats_table_inc(&v->stats.port, ...)), then hand each element to
	 * the port bus: bus_write() for OUT, bus_read() into the data for IN.
	 * Guard against a size or a count that would leave the kvm_run page
	 * (v->vm->run_size).  Graded by the exit Criterion tests and a boot
	 * whose --stats-json counts the exits by reason, port and address.
	 * stub: (void)v;
	 * stub: (void)exit_is_protocol_port;
	 */
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	unsigned size = run->io.size, i;
	bool out = run->io.direction == KVM_EXIT_IO_OUT;
	static const int cls_pio[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_PIO, -1 };
	static const int cls_proto[] = { IRQLAB_CNT_PROTOCOL, -1 };
	/* the PV IPI doorbell is a send, as an ICR write */
	static const int cls_pv_ipi[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_PIO,
					  IRQLAB_CNT_APIC_SEND, -1 };
	uint64_t val;

	/* the protocol's own exits are kept out of every other class */
	if (exit_is_protocol_port(run->io.port))
		count(v, KVM_EXIT_IO, cls_proto);
	else if (run->io.port == IRQLAB_PORT_PV_IPI && out)
		count(v, KVM_EXIT_IO, cls_pv_ipi);
	else
		count(v, KVM_EXIT_IO, cls_pio);
	stats_table_inc(&v->stats.port, run->io.port, out ? STATS_WR : STATS_RD);

	if (size != 1 && size != 2 && size != 4)
		return;
	if (run->io.data_offset + (uint64_t)run->io.count * size >
	    v->vm->run_size)
		return;		/* KVM never does this; a test might */
	for (i = 0; i < run->io.count; i++, data += size) {
		if (out) {
			val = 0;
			memcpy(&val, data, size);
			bus_write(&v->vm->pio, run->io.port, size, val, v->id);
		} else {
			bus_read(&v->vm->pio, run->io.port, size, &val, v->id);
			memcpy(data, &val, size);
		}
	}
	/* LAB exits: end */
}

/*
 * The classes of one LAPIC register access (IRQLAB_CNT_APIC*), after
 * @cls[0..1].  @reg is the xAPIC offset (x2APIC: (MSR - 0x800) << 4).
 */
static void apic_classes(int *cls, uint32_t reg, bool write)
{
	int n = 2;

	cls[n++] = IRQLAB_CNT_APIC;
	if (write && (reg == APIC_ICR_LO || reg == APIC_ICR_HI ||
		      reg == APIC_SELF_IPI))
		cls[n++] = IRQLAB_CNT_APIC_SEND;
	if (write && reg == APIC_EOI)
		cls[n++] = IRQLAB_CNT_APIC_EOI;
	cls[n] = -1;
}

static bool user_irqchip(const struct vcpu *v)
{
	return v->vm->cfg->irqchip == IRQCHIP_USER;
}

/* this vCPU's xAPIC page, which only it sees (SDM 11.4.1) */
static bool is_apic_page(const struct vcpu *v, uint64_t gpa)
{
	const struct lapic *l = &v->irq.lapic;

	return user_irqchip(v) && lapic_mmio_enabled(l) &&
	       (gpa & ~0xfffull) == (lapic_base(l) & APIC_BASE_ADDR_MASK);
}

static void exit_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	unsigned len = run->mmio.len;
	uint64_t gpa = run->mmio.phys_addr;
	int cls[6] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_MMIO, -1 };
	bool apic = is_apic_page(v, gpa);
	uint64_t val = 0;

	/* LAB exits: begin
	 * An MMIO exit (api.rst, "KVM_EXIT_MMIO"): run->mmio has the guest-
	 * physical address, the length (1 to 8) and the data, which a read
	 * fills in.  Count it (count() with @cls; an access to this vCPU's
	 * own xAPIC page adds the APIC classes: apic_classes()) and in the
	 * per-address table (v->stats.mmio).  The xAPIC page goes to
	 * irq_mmio(), the LAPIC, which only this vCPU sees (SDM 11.4.1);
	 * everything else to the MMIO bus (v->vm->mmio).
	 * stub: (void)v;
	 * stub: (void)len;
	 * stub: (void)apic;
	 * stub: (void)val;
	 * stub: (void)cls;
	 */
	if (apic)
		apic_classes(cls, gpa & 0xfff, run->mmio.is_write);
	count(v, KVM_EXIT_MMIO, cls);
	stats_table_inc(&v->stats.mmio, gpa,
			run->mmio.is_write ? STATS_WR : STATS_RD);
	if (len == 0 || len > 8)
		return;
	if (apic) {
		if (run->mmio.is_write)
			memcpy(&val, run->mmio.data, len);
		irq_mmio(v, gpa, len, run->mmio.is_write, &val);
		if (!run->mmio.is_write)
			memcpy(run->mmio.data, &val, len);
		return;
	}
	if (run->mmio.is_write) {
		memcpy(&val, run->mmio.data, len);
		bus_write(&v->vm->mmio, run->mmio.phys_addr, len, val, v->id);
	} else {
		bus_read(&v->vm->mmio, run->mmio.phys_addr, len, &val, v->id);
		memcpy(run->mmio.data, &val, len);
	}
	/* LAB exits: end */
}

/*
 * KVM_EXIT_X86_RDMSR/WRMSR (api.rst): an MSR KVM sent to userspace, the
 * LAPIC's in --irqchip=user (kvm/kvm.c says which).  msr.error = 1 makes KVM
 * raise #GP, as the SDM asks of a reserved or read-only LAPIC MSR, and as
 * KVM itself would for any other MSR it does not know.
 */
static void exit_msr(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint32_t msr = run->msr.index;
	bool write = run->exit_reason == KVM_EXIT_X86_WRMSR;
	int cls[6] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_MSR, -1 };
	bool x2 = msr >= MSR_X2APIC_BASE && msr <= MSR_X2APIC_END;
	uint64_t val = run->msr.data;
	int r = 1;

	if (user_irqchip(v) && (x2 || msr == MSR_IA32_APIC_BASE ||
				msr == MSR_IA32_TSC_DEADLINE))
		apic_classes(cls, x2 ? (msr - MSR_X2APIC_BASE) << 4 : 0x1000,
			     write);
	count(v, run->exit_reason, cls);
	stats_table_inc(&v->stats.msr, msr, write ? STATS_WR : STATS_RD);
	if (user_irqchip(v))
		r = irq_msr(v, msr, write, &val);
	run->msr.error = r != 0;
	if (!r && !write)
		run->msr.data = val;
}

enum exit_action exit_dispatch(struct vcpu *v)
{
	static const int cls_hlt[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_HLT, -1 };
	static const int cls_eoi[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_APIC,
				       IRQLAB_CNT_APIC_EOI, -1 };
	static const int cls_win[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_IRQ_WINDOW, -1 };
	static const int cls_other[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_OTHER, -1 };
	unsigned reason = v->run->exit_reason;

	switch (reason) {
	case KVM_EXIT_IO:
		exit_io(v);
		return EXIT_CONTINUE;
	case KVM_EXIT_MMIO:
		exit_mmio(v);
		return EXIT_CONTINUE;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		exit_msr(v);
		return EXIT_CONTINUE;
	case KVM_EXIT_IOAPIC_EOI:
		/* --irqchip=split: KVM's LAPIC took the EOI of a vector of a
		 * level route (api.rst); irqlab's IOAPIC clears remote IRR */
		count(v, reason, cls_eoi);
		isa_eoi(v->vm, v->run->eoi.vector);
		return EXIT_CONTINUE;
	case KVM_EXIT_HLT:
		count(v, reason, cls_hlt);
		return EXIT_HALT;
	case KVM_EXIT_IRQ_WINDOW_OPEN:
		count(v, reason, cls_win);
		return EXIT_CONTINUE;
	case KVM_EXIT_SET_TPR:
		/* no LAPIC in KVM, and the guest lowered CR8 (VMX handle_cr,
		 * SVM cr8_write_interception): irq_leave_guest() has taken
		 * run->cr8 into the TPR, as after every KVM_RUN; go round, and
		 * what the lower TPR lets in is injected before the entry */
		count(v, reason, cls_other);
		return EXIT_CONTINUE;
	case KVM_EXIT_SHUTDOWN:
	case KVM_EXIT_SYSTEM_EVENT:
		count(v, reason, cls_other);
		return EXIT_FAIL_SHUTDOWN;
	case KVM_EXIT_INTERNAL_ERROR:
		count(v, reason, cls_other);
		return EXIT_FAIL_INTERNAL;
	case KVM_EXIT_FAIL_ENTRY:
		count(v, reason, cls_other);
		return EXIT_FAIL_ENTRY;
	default:
		count(v, reason, cls_other);
		return EXIT_FAIL_UNHANDLED;
	}
}
