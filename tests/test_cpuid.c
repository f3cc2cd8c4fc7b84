// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hw/kvm_pv.h"
#include "kvm/cpuid.h"
#include "kvm/cpuid_kvm.h"

#define MAX 64

static struct kvm_cpuid2 *c;

/* A KVM-like table: max basic leaf 0xd, KVM's own 0x40000000. */
static void setup(void)
{
	c = calloc(1, sizeof(*c) + MAX * sizeof(c->entries[0]));
	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 0, .eax = 0xd };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = 1, .eax = 0x600 };
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = CPUID_HV_BASE,
						   .eax = 0x40000001 };
}

static void teardown(void)
{
	free(c);
}

TestSuite(cpuid, .init = setup, .fini = teardown);

static struct kvm_cpuid_entry2 *get(uint32_t f)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, f, 0);

	cr_assert(e, "leaf %#x present", f);
	return e;
}

Test(cpuid, on_gives_all_three_leaves_exactly)
{
	cr_assert_eq(cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2100000, 1000000000), 0);
	cr_expect_eq(get(0)->eax, 0x16, "max basic leaf raised");
	/* leaves 0xe-0x14 exist, zero, so they do not read as leaf 0x16 */
	cr_expect_eq(get(0x10)->eax, 0);
	/* 2.1 GHz / 1 GHz = 21 / 10 */
	cr_expect_eq(get(0x15)->eax, 10);
	cr_expect_eq(get(0x15)->ebx, 21);
	cr_expect_eq(get(0x15)->ecx, 1000000000);
	cr_expect_eq((uint64_t)get(0x15)->ecx * get(0x15)->ebx / get(0x15)->eax,
		     2100000000ull, "SDM: TSC = ECX * EBX / EAX");
	cr_expect_eq(get(0x16)->eax, 2100);
	cr_expect_eq(get(0x16)->ebx, 2100);
	cr_expect_eq(get(0x16)->ecx, 1000);
	cr_expect_eq(get(CPUID_HV_BASE)->eax, CPUID_HV_TIMING);
	cr_expect_eq(memcmp(&get(CPUID_HV_BASE)->ebx, "irql", 4), 0);
	cr_expect_eq(memcmp(&get(CPUID_HV_BASE)->ecx, "abir", 4), 0);
	cr_expect_eq(memcmp(&get(CPUID_HV_BASE)->edx, "qlab", 4), 0);
	cr_expect_eq(get(CPUID_HV_TIMING)->eax, 2100000);
	cr_expect_eq(get(CPUID_HV_TIMING)->ebx, 1000000);
}

Test(cpuid, odd_rates_reduce_to_lowest_terms)
{
	/* 2994375000 / 24000000 = 2994375 / 24000 = 7985 / 64, and 24000 *
	 * 7985 fits Linux's 32 bits, so it stays exact */
	cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2994375, 24000000);
	cr_expect_eq(get(0x15)->ebx, 7985);
	cr_expect_eq(get(0x15)->eax, 64);
	cr_expect_eq((uint64_t)get(0x15)->ecx * get(0x15)->ebx / get(0x15)->eax,
		     2994375000ull);
}

/* Linux 6.1, native_calibrate_tsc(): all unsigned int */
static uint32_t linux_tsc_khz(void)
{
	uint32_t crystal_khz = get(0x15)->ecx / 1000;

	return crystal_khz * get(0x15)->ebx / get(0x15)->eax;
}

Test(cpuid, leaf15_fits_linuxs_32_bit_product)
{
	/* the rate that made Linux see a 1.99 MHz TSC: 1298061 / 500000 */
	cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2596122, 1000000000);
	cr_expect_leq((uint64_t)(get(0x15)->ecx / 1000) * get(0x15)->ebx,
		      UINT32_MAX);
	cr_expect_eq(get(0x15)->ebx, 3079);
	cr_expect_eq(get(0x15)->eax, 1186);
	cr_expect_eq(get(0x15)->ecx, 1000000000, "the crystal stays exact");
	cr_expect_eq(linux_tsc_khz(), 2596121, "0.22 ppm under 2596122");
}

Test(cpuid, leaf15_error_bound_over_1_to_5_ghz)
{
	/* the worst error over the sweep, found by an exact search */
	static const uint32_t crystals[] = { 1000000000, 100000000, 25000000,
					     24000000, 19200000, 1000000 };
	static const double max_ppm[] = { 27, 8, 3, 3, 3, 1 };
	unsigned i;
	uint32_t khz;

	for (i = 0; i < sizeof(crystals) / sizeof(crystals[0]); i++)
		for (khz = 1000000; khz <= 5000000; khz += 997) {
			uint64_t want = (uint64_t)khz * 1000, got;
			double ppm;

			setup();
			cpuid_set_freq(c, MAX, CPUID_FREQ_ON, khz, crystals[i]);
			cr_assert_leq((uint64_t)(get(0x15)->ecx / 1000) *
				      get(0x15)->ebx, UINT32_MAX,
				      "%u kHz on %u Hz: Linux's product overflows",
				      khz, crystals[i]);
			got = (uint64_t)get(0x15)->ecx * get(0x15)->ebx /
			      get(0x15)->eax;
			ppm = (got > want ? got - want : want - got) * 1e6 / want;
			cr_assert_leq(ppm, max_ppm[i],
				      "%u kHz on %u Hz: %.2f ppm", khz,
				      crystals[i], ppm);
			teardown();
		}
	setup();	/* for the suite's .fini */
}

Test(cpuid, ratio_fit_is_exact_when_it_fits_and_nearest_else)
{
	uint64_t p, q;

	cpuid_ratio_fit(21, 10, 4294, &p, &q);
	cr_expect(p == 21 && q == 10);
	/* pi: 355/113 is the best with a numerator under 400 */
	cpuid_ratio_fit(314159265, 100000000, 400, &p, &q);
	cr_expect(p == 355 && q == 113, "%lu/%lu", (unsigned long)p,
		  (unsigned long)q);
	/* a ratio above the bound itself: the bound over 1 */
	cpuid_ratio_fit(5000, 1, 4294, &p, &q);
	cr_expect(p == 4294 && q == 1);
	/* 2.6001 on 4294: 4285/1648 (a semiconvergent) */
	cpuid_ratio_fit(26001, 10000, 4294, &p, &q);
	cr_expect(p == 4285 && q == 1648, "%lu/%lu", (unsigned long)p,
		  (unsigned long)q);
}

Test(cpuid, off_zeroes_them_as_hyperv_does)
{
	c->entries[0].eax = 0x16;
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){ .function = 0x16,
		.eax = 2000, .ebx = 3000, .ecx = 100 };
	cpuid_set_freq(c, MAX, CPUID_FREQ_OFF, 2100000, 1000000000);
	cr_expect_eq(get(0x16)->eax, 0);
	cr_expect_eq(get(0x16)->ecx, 0);
	cr_expect_eq(get(0x15)->ecx, 0);
	cr_expect_eq(get(CPUID_HV_TIMING)->eax, 0);
}

Test(cpuid, off_does_not_raise_the_max_leaf)
{
	cpuid_set_freq(c, MAX, CPUID_FREQ_OFF, 2100000, 1000000000);
	cr_expect_eq(get(0)->eax, 0xd);
	cr_expect_null(cpuid_find(c, 0x16, 0));
}

Test(cpuid, partial_modes)
{
	cpuid_set_freq(c, MAX, CPUID_FREQ_16, 2100000, 1000000000);
	cr_expect_eq(get(0x16)->eax, 2100);
	cr_expect_eq(get(0x15)->ecx, 0, "16: no leaf 0x15");
	cr_expect_eq(get(CPUID_HV_TIMING)->eax, 0, "16: no 0x40000010");
	setup();
	cpuid_set_freq(c, MAX, CPUID_FREQ_HV, 2100000, 1000000000);
	cr_expect_eq(get(0)->eax, 0xd, "hv: basic leaves untouched");
	cr_expect_eq(get(CPUID_HV_TIMING)->eax, 2100000);
}

Test(cpuid, unknown_rate_is_never_guessed)
{
	cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 0, 1000000000);
	cr_expect_eq(get(0x15)->ecx, 0);
	cr_expect_eq(get(0x16)->eax, 0);
	cr_expect_eq(get(CPUID_HV_TIMING)->eax, 0);
}

Test(cpuid, no_room_is_an_error)
{
	cr_expect_eq(cpuid_set_freq(c, 5, CPUID_FREQ_ON, 2100000, 1000000000), -1);
}

Test(cpuid, parse)
{
	enum cpuid_freq f;

	cr_expect_eq(cpuid_freq_parse("hv", &f), 0);
	cr_expect_eq(f, CPUID_FREQ_HV);
	cr_expect_eq(cpuid_freq_parse("16", &f), 0);
	cr_expect_eq(f, CPUID_FREQ_16);
	cr_expect_eq(cpuid_freq_parse("yes", &f), -1);
}

/* SDM vol. 3A 4.1.4: MAXPHYADDR is CPUID.80000008H:EAX[7:0] */
Test(cpuid, maxphyaddr_from_leaf_80000008)
{
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = 0x80000000u, .eax = 0x80000008u };
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = 0x80000008u, .eax = 0x3030 };	/* 48 bits */
	cr_expect_eq(cpuid_maxphyaddr(c), 48);
	get(0x80000000u)->eax = 0x80000001u;	/* the leaf is past the max */
	cr_expect_eq(cpuid_maxphyaddr(c), 32, "no PAE: 32");
	get(1)->edx |= 1u << 6;
	cr_expect_eq(cpuid_maxphyaddr(c), 36, "PAE without the leaf: 36");
}

/* KVM's 0x40000000 signature and a 0x40000001 with @feat */
static void kvm_leaves(uint32_t feat)
{
	struct kvm_cpuid_entry2 *h = get(CPUID_HV_BASE);

	memcpy(&h->ebx, "KVMKVMKVM\0\0\0", 12);
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = CPUID_HV_BASE + 1, .eax = feat, .edx = 1 };
}

Test(cpuid, kvm_features_only_under_kvms_signature)
{
	cr_expect_eq(cpuid_kvm_features(c), 0, "no 0x40000001 leaf");
	kvm_leaves(KVM_PV_PV_SEND_IPI | 1);
	cr_expect_eq(cpuid_kvm_features(c), KVM_PV_PV_SEND_IPI | 1);
	memcpy(&get(CPUID_HV_BASE)->ebx, "irql", 4);
	cr_expect_eq(cpuid_kvm_features(c), 0, "another signature");
}

Test(cpuid, pv_leaves_irqlab_bits_replace_kvms)
{
	kvm_leaves(0xffff);
	cr_assert_eq(cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2100000, 1000000000), 0);
	cr_assert_eq(cpuid_set_pv(c, MAX, 1u << 1, 0, false), 0);
	cr_expect_eq(get(CPUID_HV_BASE + 1)->eax, 1u << 1);
	cr_expect_eq(get(CPUID_HV_BASE + 1)->edx, 0, "KVM's leftovers zeroed");
	cr_expect_null(cpuid_find(c, KVM_PV_CPUID_BASE, 0),
		       "no KVM leaves without KVM features");
}

Test(cpuid, pv_leaves_kvms_at_0x40000100)
{
	struct kvm_cpuid_entry2 *h;

	cr_assert_eq(cpuid_set_freq(c, MAX, CPUID_FREQ_ON, 2100000, 1000000000), 0);
	cr_assert_eq(cpuid_set_pv(c, MAX, 0, KVM_PV_PV_SEND_IPI, false), 0);
	cr_expect_eq(get(CPUID_HV_BASE + 1)->eax, 0);
	h = get(KVM_PV_CPUID_BASE);
	cr_expect_eq(h->eax, KVM_PV_CPUID_BASE + 1, "max leaf of KVM's range");
	cr_expect_eq(memcmp(&h->ebx, "KVMKVMKVM\0\0\0", 12), 0);
	cr_expect_eq(get(KVM_PV_CPUID_BASE + 1)->eax,
		     KVM_PV_PV_SEND_IPI);
	cr_expect_eq(memcmp(&get(CPUID_HV_BASE)->ebx, "irqlabirqlab", 12), 0,
		     "irqlab's signature stays first");
}

Test(cpuid, pv_leaves_no_room)
{
	c->nent = MAX;
	cr_expect_eq(cpuid_set_pv(c, MAX, 0, KVM_PV_PV_SEND_IPI, false), -1);
}

/* irqlab's feature leaf replaces KVM's; KVM's pair only when asked */
Test(cpuid, pv_leaves)
{
	struct kvm_cpuid_entry2 *f;

	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = 0x40000001, .eax = 0x01007afb };	/* KVM's features */
	cr_assert_eq(cpuid_set_freq(c, MAX, CPUID_FREQ_OFF, 0, 0), 0);
	cr_assert_eq(cpuid_set_pv(c, MAX, 1, 0, false), 0);
	f = get(0x40000001);
	cr_expect_eq(f->eax, 1);
	cr_expect_eq(f->ebx | f->ecx | f->edx, 0);
	cr_expect_geq(get(CPUID_HV_BASE)->eax, 0x40000001);
	cr_expect_null(cpuid_find(c, 0x40000100, 0), "no KVM leaves");
	cr_assert_eq(cpuid_set_pv(c, MAX, 0, 1u << 6, false), 0);
	cr_expect_eq(get(0x40000001)->eax, 0);
	cr_expect_eq(get(0x40000100)->eax, 0x40000101);
	cr_expect_eq(memcmp(&get(0x40000100)->ebx, "KVMKVMKVM\0\0\0", 12), 0);
	cr_expect_eq(get(0x40000101)->eax, 1u << 6);
}

Test(cpuid, pv_leaves_need_room)
{
	cr_assert_eq(cpuid_set_pv(c, 3, 1, 0, false), -1);
}

/* leaf 0 and Fn8000_0000 as an AMD host's KVM lists them */
static void amd_host(void)
{
	memcpy(&get(0)->ebx, "Auth", 4);
	memcpy(&get(0)->edx, "enti", 4);
	memcpy(&get(0)->ecx, "cAMD", 4);
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = 0x80000000u, .eax = 0x80000021u };
	memcpy(&get(0x80000000u)->ebx, "Auth", 4);
	memcpy(&get(0x80000000u)->edx, "enti", 4);
	memcpy(&get(0x80000000u)->ecx, "cAMD", 4);
}

Test(cpuid, vendor_intel_in_ebx_edx_ecx_order)
{
	char v[13];

	amd_host();
	cr_assert_eq(cpuid_set_vendor(c, CPUID_VENDOR_INTEL), 0);
	/* SDM vol. 2A, CPUID leaf 0: "Genu" in EBX, "ineI" in EDX, "ntel" in ECX */
	cr_expect_eq(memcmp(&get(0)->ebx, "Genu", 4), 0);
	cr_expect_eq(memcmp(&get(0)->edx, "ineI", 4), 0);
	cr_expect_eq(memcmp(&get(0)->ecx, "ntel", 4), 0);
	cr_expect_eq(get(0)->eax, 0xd, "the max leaf is not the vendor's");
	cr_expect_eq(get(1)->eax, 0x600, "family and model stay the host's");
	/* the SDM reserves EBX, ECX, EDX of 80000000H; the max stays */
	cr_expect_eq(get(0x80000000u)->eax, 0x80000021u);
	cr_expect_eq(get(0x80000000u)->ebx | get(0x80000000u)->ecx |
		     get(0x80000000u)->edx, 0);
	cpuid_vendor_string(c, v);
	cr_expect_str_eq(v, "GenuineIntel");
}

Test(cpuid, vendor_amd_repeats_in_fn8000_0000)
{
	char v[13];

	cr_assert_eq(cpuid_set_vendor(c, CPUID_VENDOR_AMD), 0);
	cpuid_vendor_string(c, v);
	cr_expect_str_eq(v, "AuthenticAMD");
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = 0x80000000u, .eax = 0x80000008u };
	cr_assert_eq(cpuid_set_vendor(c, CPUID_VENDOR_AMD), 0);
	cr_expect_eq(memcmp(&get(0x80000000u)->ebx, "Auth", 4), 0);
	cr_expect_eq(memcmp(&get(0x80000000u)->edx, "enti", 4), 0);
	cr_expect_eq(memcmp(&get(0x80000000u)->ecx, "cAMD", 4), 0);
}

Test(cpuid, vendor_host_changes_nothing)
{
	char v[13];

	amd_host();
	cr_assert_eq(cpuid_set_vendor(c, CPUID_VENDOR_HOST), 0);
	cpuid_vendor_string(c, v);
	cr_expect_str_eq(v, "AuthenticAMD");
	cr_expect_eq(memcmp(&get(0x80000000u)->ecx, "cAMD", 4), 0);
}

Test(cpuid, vendor_without_leaf_0_is_an_error)
{
	char v[13] = "x";

	c->entries[0].function = 2;	/* no leaf 0 left */
	cr_expect_eq(cpuid_set_vendor(c, CPUID_VENDOR_INTEL), -1);
	cpuid_vendor_string(c, v);
	cr_expect_str_eq(v, "");
}

Test(cpuid, vendor_parse)
{
	enum cpuid_vendor v = CPUID_VENDOR_HOST;

	cr_expect_eq(cpuid_vendor_parse("intel", &v), 0);
	cr_expect_eq(v, CPUID_VENDOR_INTEL);
	cr_expect_eq(cpuid_vendor_parse("amd", &v), 0);
	cr_expect_eq(v, CPUID_VENDOR_AMD);
	cr_expect_eq(cpuid_vendor_parse("host", &v), 0);
	cr_expect_eq(v, CPUID_VENDOR_HOST);
	cr_expect_eq(cpuid_vendor_parse("Intel", &v), -1);
	cr_expect_eq(cpuid_vendor_parse("", &v), -1);
}

Test(cpuid, pv_leaves_kvm_signature_alone)
{
	char sig[12];

	cr_assert_eq(cpuid_set_pv(c, MAX, 0, 0, true), 0);
	memcpy(sig, &get(KVM_PV_CPUID_BASE)->ebx, 4);
	memcpy(sig + 4, &get(KVM_PV_CPUID_BASE)->ecx, 4);
	memcpy(sig + 8, &get(KVM_PV_CPUID_BASE)->edx, 4);
	cr_expect_eq(memcmp(sig, KVM_PV_SIGNATURE, 12), 0);
	cr_expect_eq(get(KVM_PV_CPUID_BASE)->eax, KVM_PV_CPUID_BASE + 1);
	cr_expect_eq(get(KVM_PV_CPUID_BASE + 1)->eax, 0, "no feature");
	teardown();
	setup();
	cr_assert_eq(cpuid_set_pv(c, MAX, 0, 0, false), 0);
	cr_expect_null(cpuid_find(c, KVM_PV_CPUID_BASE, 0), "off: no leaf");
}
