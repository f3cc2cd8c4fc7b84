// SPDX-License-Identifier: MIT
/* KVM's paravirtual CPUID leaves at 0x40000100 (cpuid_kvm.h). */
#include <string.h>

#include "cpuid.h"
#include "cpuid_kvm.h"

uint32_t cpuid_kvm_pv_features(uint32_t supported, bool kvm_lapic)
{
	uint32_t f = KVM_PV_CLOCKSOURCE | KVM_PV_CLOCKSOURCE2 |
		     KVM_PV_CLOCK_STABLE | KVM_PV_NOP_IO_DELAY |
		     KVM_PV_STEAL_TIME;

	/* not KVM's PV EOI: Linux with it stalled in every boot tried on
	 * the nested rig (docs/VMM.md "--kvm-pv") */
	if (kvm_lapic)
		f |= KVM_PV_PV_UNHALT | KVM_PV_PV_TLB_FLUSH |
		     KVM_PV_PV_SEND_IPI | KVM_PV_PV_SCHED_YIELD;
	return f & supported;
}

uint32_t cpuid_kvm_take_features(struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *sig = cpuid_find(c, CPUID_HV_BASE, 0);
	struct kvm_cpuid_entry2 *e = cpuid_find(c, CPUID_HV_BASE + 1, 0);
	uint32_t f = 0;

	if (sig && e && !memcmp(&sig->ebx, CPUID_KVM_SIGNATURE, 4))
		f = e->eax;
	if (e)
		e->eax = e->ebx = e->ecx = e->edx = 0;
	return f;
}

static struct kvm_cpuid_entry2 *add(struct kvm_cpuid2 *c, unsigned max,
				    uint32_t function)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, function, 0);

	if (!e) {
		if (c->nent >= max)
			return NULL;
		e = &c->entries[c->nent++];
	}
	memset(e, 0, sizeof(*e));
	e->function = function;
	return e;
}

int cpuid_set_kvm_leaves(struct kvm_cpuid2 *c, unsigned max,
			 uint32_t features)
{
	struct kvm_cpuid_entry2 *b = add(c, max, CPUID_KVM_BASE);
	struct kvm_cpuid_entry2 *f = b ? add(c, max, CPUID_KVM_FEATURES) : NULL;

	if (!f)
		return -1;
	b->eax = CPUID_KVM_FEATURES;
	memcpy(&b->ebx, CPUID_KVM_SIGNATURE, 4);
	memcpy(&b->ecx, CPUID_KVM_SIGNATURE + 4, 4);
	memcpy(&b->edx, CPUID_KVM_SIGNATURE + 8, 4);
	f->eax = features;
	return 0;
}
