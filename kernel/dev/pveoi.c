// SPDX-License-Identifier: MIT
/*
 * Paravirtual EOI, the guest side.  An EOI register write is a VM exit
 * wherever the CPU does not virtualize the APIC (SDM 11.8.5: the write
 * retires the highest ISR bit).  A hypervisor that knows the EOI would
 * only clear that one bit sets bit 0 of a word the guest registered;
 * the guest then clears the bit with a locked test-and-clear instead of
 * writing the register, and the hypervisor retires the vector at its
 * next look.  Two providers:
 *
 *   irqlab  "irqlabirqlab" at a base 0x40000000 + 0x100 k (0x40000000
 *           unless --kvm-pv=on,base), base + 1 EAX bit 0;
 *           the word's address goes to IRQLAB_PORT_PV_EOI (docs/PROTOCOL.md)
 *   KVM     "KVMKVMKVM\0\0\0" at a base 0x40000000 + 0x100 k, feature
 *           KVM_FEATURE_PV_EOI (6) at base + 1; the address | 1 goes to
 *           MSR_KVM_PV_EOI_EN (Linux Documentation/virt/kvm/x86/msr.rst)
 *
 * pveoi=off on the command line keeps the register write (for A/B runs).
 */
#include <stdint.h>

#include "boot/cmdline.h"
#include "arch/cpu.h"
#include "arch/extable.h"
#include "hw/irqlab.h"
#include "hw/kvm_pv.h"
#include "lib/kstring.h"
#include "lapic.h"
#include "lib/printf.h"
#include "pv.h"
#include "pveoi.h"
#include "arch/percpu.h"
#include "arch/x86.h"

static enum pveoi_kind kind;
static int decided;

static enum pveoi_kind pveoi_decide(const char **why)
{
	const char *want = cmdline_get("pveoi");
	uint32_t r[4], base;

	if (want && !strcmp(want, "off")) {
		*why = "cmdline";
		return PVEOI_NONE;
	}
	if (want && strcmp(want, "on"))
		kprintf("pveoi: warning: unknown pveoi=%s (on or off)\n", want);
	*why = "not-offered";
	cpuid(1, 0, r);
	if (!(r[2] & CPUID_1_ECX_HYPERVISOR) || lapic_mode() == LAPIC_NONE)
		return PVEOI_NONE;
	if (pv_present() && (base = cpu_hv_base("irqlabirqlab"))) {
		cpuid(base + 1, 0, r);
		if (r[0] & IRQLAB_FEATURE_PV_EOI)
			return PVEOI_IRQLAB;
	}
	base = cpu_hv_base(KVM_PV_SIGNATURE);
	if (base) {
		cpuid(base + 1, 0, r);
		if (r[0] & (1u << KVM_PV_FEATURE_PV_EOI))
			return PVEOI_KVM;
	}
	return PVEOI_NONE;
}

static const char *kind_name(enum pveoi_kind k)
{
	return k == PVEOI_IRQLAB ? "irqlab" : k == PVEOI_KVM ? "kvm" : "none";
}

void pveoi_cpu_init(void)
{
	struct cpu *c = this_cpu();
	uint64_t pa = (uintptr_t)&c->pveoi;	/* identity map: VA = PA */
	const char *why = "";

	if (!decided) {
		decided = 1;
		kind = pveoi_decide(&why);
		kprintf("@pveoi kind=%s%s%s\n", kind_name(kind),
			kind == PVEOI_NONE ? " why=" : "",
			kind == PVEOI_NONE ? why : "");
	}
	c->pveoi = 0;		/* both ABIs: the word starts zeroed */
	switch (kind) {
	case PVEOI_IRQLAB:
		outl(IRQLAB_PORT_PV_EOI, (uint32_t)pa);
		break;
	case PVEOI_KVM:
		if (wrmsr_safe(KVM_PV_MSR_EOI_EN, pa | KVM_PV_EOI_ENABLED) !=
		    NO_FAULT)
			kprintf("pveoi: cpu%u: MSR_KVM_PV_EOI_EN #GP: "
				"EOIs stay register writes\n", c->index);
		break;
	default:
		return;
	}
	/* from here on lapic_eoi() may find the flag set */
	__atomic_store_n(&c->pveoi_on, 1, __ATOMIC_RELEASE);
}

void pveoi_print_stats(void)
{
	uint64_t taken = 0, written = 0;
	unsigned i;

	if (kind == PVEOI_NONE)
		return;
	for (i = 0; i < NR_CPUS; i++) {
		taken += __atomic_load_n(&cpus[i].pveoi_taken, __ATOMIC_RELAXED);
		written += __atomic_load_n(&cpus[i].pveoi_written,
					   __ATOMIC_RELAXED);
	}
	kprintf("@pveoi_stats kind=%s taken=%lu written=%lu\n",
		kind_name(kind), taken, written);
}

enum pveoi_kind pveoi_kind(void)
{
	return kind;
}
