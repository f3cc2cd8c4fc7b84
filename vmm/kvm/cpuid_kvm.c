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
