// SPDX-License-Identifier: MIT
/* KVM's PV leaves at 0x40000100 for --kvm-pv=on (vmm/kvm/cpuid_kvm.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hw/irqlab.h"
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

static void expect_sig(uint32_t fn, const char *sig, uint32_t max)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, fn, 0);
	char got[13] = { 0 };

	cr_assert(e, "no leaf %#x", fn);
	memcpy(got, &e->ebx, 4);
	memcpy(got + 4, &e->ecx, 4);
	memcpy(got + 8, &e->edx, 4);
	cr_expect_eq(memcmp(got, sig, 12), 0, "%#x: '%s'", fn, got);
	cr_expect_eq(e->eax, max, "%#x's highest leaf %#x", fn, e->eax);
}

Test(cpuid_kvm, base_puts_kvm_first_and_irqlab_after)
{
	uint32_t kvm = cpuid_kvm_features(c);
	uint32_t feat = cpuid_kvm_pv_features(kvm, true);

	cr_assert_eq(cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2600000, 1000000000),
		     0);
	cr_assert_eq(cpuid_set_pv(c, MAX, IRQLAB_FEATURE_PV_EOI, feat, false),
		     0);
	/* --kvm-pv=on: irqlab's at 0x40000000, KVM's at 0x40000100 */
	expect_sig(CPUID_HV_BASE, "irqlabirqlab", CPUID_HV_TIMING);
	expect_sig(KVM_PV_CPUID_BASE, KVM_PV_SIGNATURE, KVM_PV_CPUID_BASE + 1);
	/* --kvm-pv=on,base: KVM's where a guest looks first */
	cr_assert_eq(cpuid_kvm_first(c, MAX), 0);
	expect_sig(CPUID_HV_BASE, KVM_PV_SIGNATURE, CPUID_HV_TIMING);
	cr_expect_eq(cpuid_find(c, CPUID_HV_BASE + 1, 0)->eax, feat);
	expect_sig(KVM_PV_CPUID_BASE, "irqlabirqlab", KVM_PV_CPUID_BASE + 1);
	cr_expect_eq(cpuid_find(c, KVM_PV_CPUID_BASE + 1, 0)->eax,
		     IRQLAB_FEATURE_PV_EOI);
	/* the timing leaf stays, under KVM's base (QEMU's vmware-cpuid-freq) */
	cr_expect_eq(cpuid_find(c, CPUID_HV_TIMING, 0)->eax, 2600000);
}
