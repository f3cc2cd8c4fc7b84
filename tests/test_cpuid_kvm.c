// SPDX-License-Identifier: MIT
/* KVM's PV leaves at 0x40000100 for --kvm-pv=on (vmm/kvm/cpuid_kvm.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hw/kvm_pv.h"
#include "kvm/cpuid.h"
#include "kvm/cpuid_kvm.h"

#define MAX 16
/* what KVM 6.x lists in its 0x40000001 EAX (cpuid.rst): bits 0-16, 24 */
#define KVM_ALL	(0x1ffffu | KVM_PV_CLOCK_STABLE)

static struct kvm_cpuid2 *c;

/* KVM_GET_SUPPORTED_CPUID's own hypervisor leaves */
static void setup(void)
{
	c = calloc(1, sizeof(*c) + MAX * sizeof(c->entries[0]));
	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 0, .eax = 0xd };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = CPUID_HV_BASE,
						   .eax = 0x40000001 };
	memcpy(&c->entries[1].ebx, KVM_PV_SIGNATURE, 12);
	c->entries[2] = (struct kvm_cpuid_entry2){
		.function = CPUID_HV_BASE + 1, .eax = KVM_ALL };
}

static void teardown(void)
{
	free(c);
}

TestSuite(cpuid_kvm, .init = setup, .fini = teardown);

Test(cpuid_kvm, features_by_irqchip)
{
	uint32_t user = cpuid_kvm_pv_features(KVM_ALL, false);
	uint32_t kern = cpuid_kvm_pv_features(KVM_ALL, true);

	cr_assert_eq(user, KVM_PV_CLOCKSOURCE | KVM_PV_CLOCKSOURCE2 |
		     KVM_PV_CLOCK_STABLE | KVM_PV_NOP_IO_DELAY |
		     KVM_PV_STEAL_TIME, "no LAPIC feature with irqlab's LAPIC");
	cr_assert_eq(kern, user | KVM_PV_PV_UNHALT | KVM_PV_PV_TLB_FLUSH |
		     KVM_PV_PV_SEND_IPI | KVM_PV_PV_SCHED_YIELD,
		     "never KVM's PV EOI");
	cr_assert_eq(kern & (1u << 4 | 1u << 14 | 1u << 15), 0,
		     "no async page faults, no extended MSI destination");
	cr_assert_eq(cpuid_kvm_pv_features(KVM_PV_STEAL_TIME, true),
		     KVM_PV_STEAL_TIME, "only what KVM supports");
}
