// SPDX-License-Identifier: MIT
/* The CPUID frequency leaves (cpuid.h): a pure table editor. */
#include <stdbool.h>
#include <string.h>

#include "cpuid.h"
#include "hw/irqlab.h"
#include "hw/kvm_pv.h"

/* the index of @s in @names, or -1 */
static int name_index(const char *const *names, unsigned n, const char *s)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

int cpuid_freq_parse(const char *s, enum cpuid_freq *f)
{
	static const char *const names[] = { "on", "off", "16", "hv" };
	int i = name_index(names, 4, s);

	if (i >= 0)
		*f = (enum cpuid_freq)i;
	return i < 0 ? -1 : 0;
}

int cpuid_vendor_parse(const char *s, enum cpuid_vendor *v)
{
	static const char *const names[] = { "host", "intel", "amd" };
	int i = name_index(names, 3, s);

	if (i >= 0)
		*v = (enum cpuid_vendor)i;
	return i < 0 ? -1 : 0;
}

/* SDM vol. 2A, CPUID leaf 0: the string is in EBX, EDX, ECX, in order */
static void sig_put(struct kvm_cpuid_entry2 *e, const char *sig)
{
	memcpy(&e->ebx, sig, 4);
	memcpy(&e->edx, sig + 4, 4);
	memcpy(&e->ecx, sig + 8, 4);
}

int cpuid_set_vendor(struct kvm_cpuid2 *c, enum cpuid_vendor v)
{
	struct kvm_cpuid_entry2 *e0 = cpuid_find(c, 0, 0);
	struct kvm_cpuid_entry2 *x0 = cpuid_find(c, 0x80000000u, 0);

	if (!e0)
		return -1;
	if (v == CPUID_VENDOR_HOST)
		return 0;
	sig_put(e0, v == CPUID_VENDOR_INTEL ? "GenuineIntel" : "AuthenticAMD");
	/* Fn8000_0000: the APM repeats the vendor there; the SDM reserves
	 * EBX, ECX and EDX of 80000000H (zero) */
	if (x0) {
		if (v == CPUID_VENDOR_AMD)
			sig_put(x0, "AuthenticAMD");
		else
			x0->ebx = x0->ecx = x0->edx = 0;
	}
	return 0;
}

void cpuid_vendor_string(struct kvm_cpuid2 *c, char *buf)
{
	struct kvm_cpuid_entry2 *e0 = cpuid_find(c, 0, 0);

	buf[0] = 0;
	if (!e0)
		return;
	memcpy(buf, &e0->ebx, 4);
	memcpy(buf + 4, &e0->edx, 4);
	memcpy(buf + 8, &e0->ecx, 4);
	buf[12] = 0;
}

struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t function,
				    uint32_t index)
{
	unsigned i;

	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == function &&
		    (!(c->entries[i].flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX) ||
		     c->entries[i].index == index))
			return &c->entries[i];
	return NULL;
}

#define CPUID1_EDX_PAE	(1u << 6)

unsigned cpuid_maxphyaddr(struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *ext = cpuid_find(c, 0x80000000u, 0);
	struct kvm_cpuid_entry2 *e = cpuid_find(c, 0x80000008u, 0);
	struct kvm_cpuid_entry2 *l1 = cpuid_find(c, 1, 0);

	if (ext && ext->eax >= 0x80000008u && e && (e->eax & 0xff))
		return e->eax & 0xff;
	return l1 && (l1->edx & CPUID1_EDX_PAE) ? 36 : 32;
}

/* The entry for @function, index 0, added (all zero) if missing. */
static struct kvm_cpuid_entry2 *leaf(struct kvm_cpuid2 *c, unsigned max,
				     uint32_t function)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(c, function, 0);

	if (e)
		return e;
	if (c->nent >= max)
		return NULL;
	e = &c->entries[c->nent++];
	memset(e, 0, sizeof(*e));
	e->function = function;
	return e;
}

static void zero(struct kvm_cpuid_entry2 *e)
{
	if (e)
		e->eax = e->ebx = e->ecx = e->edx = 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int cpuid_set_pv(struct kvm_cpuid2 *c, unsigned max, uint32_t irqlab_features,
		 uint32_t kvm_features, bool kvm_sig)
{
	struct kvm_cpuid_entry2 *h = leaf(c, max, CPUID_HV_BASE);
	struct kvm_cpuid_entry2 *f = leaf(c, max, IRQLAB_CPUID_FEATURES), *k;

	if (!h || !f)
		return -1;
	if (h->eax < IRQLAB_CPUID_FEATURES)
		h->eax = IRQLAB_CPUID_FEATURES;
	zero(f);
	f->eax = irqlab_features;
	if (!kvm_features && !kvm_sig)
		return 0;
	h = leaf(c, max, KVM_PV_CPUID_BASE);
	k = leaf(c, max, KVM_PV_CPUID_BASE + 1);
	if (!h || !k)
		return -1;
	h->eax = KVM_PV_CPUID_BASE + 1;
	memcpy(&h->ebx, KVM_PV_SIGNATURE, 4);
	memcpy(&h->ecx, KVM_PV_SIGNATURE + 4, 4);
	memcpy(&h->edx, KVM_PV_SIGNATURE + 8, 4);
	zero(k);
	k->eax = kvm_features;
	return 0;
}

int cpuid_kvm_first(struct kvm_cpuid2 *c, unsigned max)
{
	struct kvm_cpuid_entry2 *e[4], t;
	const uint32_t fn[4] = { CPUID_HV_BASE, CPUID_HV_BASE + 1,
				 KVM_PV_CPUID_BASE, KVM_PV_CPUID_BASE + 1 };
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!(e[i] = leaf(c, max, fn[i])))
			return -1;
	for (i = 0; i < 2; i++) {	/* the contents trade places */
		t = *e[i];
		*e[i] = *e[i + 2];
		*e[i + 2] = t;
		e[i]->function = fn[i];
		e[i + 2]->function = fn[i + 2];
	}
	/* each signature's highest leaf: KVM's still covers the timing leaf
	 * at 0x40000010 (as QEMU's vmware-cpuid-freq does), irqlab's its
	 * feature leaf */
	e[0]->eax = cpuid_find(c, CPUID_HV_TIMING, 0) ? CPUID_HV_TIMING :
		    CPUID_HV_BASE + 1;
	e[2]->eax = KVM_PV_CPUID_BASE + 1;
	return 0;
}

/* |p/q - n/d| for two candidates: is a/b nearer n/d than c/e? */
static bool nearer(uint64_t a, uint64_t b, uint64_t c, uint64_t e,
		   uint64_t n, uint64_t d)
{
	unsigned __int128 x = (unsigned __int128)a * d, y = (unsigned __int128)b * n;
	unsigned __int128 u = (unsigned __int128)c * d, v = (unsigned __int128)e * n;
	unsigned __int128 ea = x > y ? x - y : y - x, ec = u > v ? u - v : v - u;

	return ea * e < ec * b;		/* |a/b - n/d| < |c/e - n/d| */
}

/*
 * The fraction nearest @n / @d whose numerator is at most @max_p: the
 * exact one when it fits, else the nearer of the last convergent that
 * fits and the largest semiconvergent after it (continued fractions;
 * Khinchin, "Continued Fractions", ch. II, the best approximations).
 */
void cpuid_ratio_fit(uint64_t n, uint64_t d, uint64_t max_p, uint64_t *p,
		     uint64_t *q)
{
	uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0, a, k, t, sp, sq;
	const uint64_t n0 = n, d0 = d;

	while (d) {
		a = n / d;
		if (a * p1 + p0 > max_p) {
			k = (max_p - p0) / p1;
			sp = k * p1 + p0;
			sq = k * q1 + q0;
			if (!q1 || (k && nearer(sp, sq, p1, q1, n0, d0))) {
				p1 = sp;
				q1 = sq;
			}
			break;
		}
		t = a * p1 + p0;
		p0 = p1;
		p1 = t;
		t = a * q1 + q0;
		q0 = q1;
		q1 = t;
		t = n % d;
		n = d;
		d = t;
	}
	*p = p1;
	*q = q1;
}

/*
 * SDM vol. 2A, leaf 15H: TSC frequency = ECX * EBX / EAX, ECX the
 * crystal (here the APIC timer's clock) in Hz.
 *
 * Linux's native_calibrate_tsc() (arch/x86/kernel/tsc.c, 6.1) computes
 * crystal_khz * EBX / EAX in 32-bit unsigned arithmetic.  With a 1 GHz
 * crystal the exact ratio in lowest terms overflows it: 2596122 kHz is
 * 1298061 / 500000, and Linux took a 1.99 MHz TSC and livelocked on
 * TSC-deadline interrupts (docs/CALIB.md).  So EBX is held to
 * UINT32_MAX / crystal kHz: the exact ratio when it fits (any rate with
 * a 25 MHz crystal, 2.1 GHz on 1 GHz), else the nearest fraction that
 * does: for 1-5 GHz, within 27 ppm on a 1 GHz crystal (most rates
 * within 1 ppm: 2596122 kHz is off by 0.22), 3 ppm on 25 MHz
 * (tests/test_cpuid.c).
 */
static int leaf15(struct kvm_cpuid_entry2 *e, uint32_t tsc_khz, uint64_t apic_hz)
{
	uint64_t tsc = (uint64_t)tsc_khz * 1000, g, p, q, max_p = UINT32_MAX;

	if (!tsc || !apic_hz || apic_hz > UINT32_MAX) {
		zero(e);
		return 0;
	}
	if (apic_hz >= 1000)
		max_p = UINT32_MAX / (apic_hz / 1000);
	g = gcd(tsc, apic_hz);
	cpuid_ratio_fit(tsc / g, apic_hz / g, max_p, &p, &q);
	if (!p || !q || q > UINT32_MAX) {
		zero(e);
		return 0;
	}
	e->eax = q;			/* denominator */
	e->ebx = p;			/* numerator */
	e->ecx = apic_hz;		/* crystal Hz */
	e->edx = 0;
	return 0;
}

int cpuid_set_freq(struct kvm_cpuid2 *c, unsigned max, enum cpuid_freq mode,
		   uint32_t tsc_khz, uint64_t apic_hz)
{
	bool l15 = mode == CPUID_FREQ_ON, l16 = l15 || mode == CPUID_FREQ_16;
	bool hv = l15 || mode == CPUID_FREQ_HV;
	struct kvm_cpuid_entry2 *e0 = leaf(c, max, 0), *e, *h;
	uint32_t f;

	if (!e0)
		return -1;
	/* the leaves up to 0x16 must exist once the max leaf says so: a leaf
	 * above the max reads as the highest one on Intel (SDM, CPUID) */
	if (l16 && e0->eax < 0x16) {
		for (f = e0->eax + 1; f <= 0x16; f++)
			if (!leaf(c, max, f))
				return -1;
		e0->eax = 0x16;
	}
	if (e0->eax >= 0x15) {
		if (!(e = leaf(c, max, 0x15)))
			return -1;
		if (l15)
			leaf15(e, tsc_khz, apic_hz);
		else
			zero(e);
	}
	if (e0->eax >= 0x16) {
		if (!(e = leaf(c, max, 0x16)))
			return -1;
		zero(e);
		if (l16 && tsc_khz && apic_hz) {
			e->eax = e->ebx = tsc_khz / 1000;
			e->ecx = apic_hz / 1000000;
		}
	}
	h = leaf(c, max, CPUID_HV_BASE);
	e = leaf(c, max, CPUID_HV_TIMING);
	if (!h || !e)
		return -1;
	h->eax = CPUID_HV_TIMING;
	memcpy(&h->ebx, CPUID_HV_SIGNATURE, 4);
	memcpy(&h->ecx, CPUID_HV_SIGNATURE + 4, 4);
	memcpy(&h->edx, CPUID_HV_SIGNATURE + 8, 4);
	zero(e);
	if (hv && tsc_khz && apic_hz) {
		e->eax = tsc_khz;
		e->ebx = apic_hz / 1000;
	}
	return 0;
}

uint32_t cpuid_kvm_features(struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *h = cpuid_find(c, CPUID_HV_BASE, 0);
	struct kvm_cpuid_entry2 *f = cpuid_find(c, CPUID_HV_BASE + 1, 0);
	char sig[12];

	if (!h || !f || h->eax < CPUID_HV_BASE + 1)
		return 0;
	memcpy(sig, &h->ebx, 4);
	memcpy(sig + 4, &h->ecx, 4);
	memcpy(sig + 8, &h->edx, 4);
	return memcmp(sig, KVM_PV_SIGNATURE, 12) ? 0 : f->eax;
}
