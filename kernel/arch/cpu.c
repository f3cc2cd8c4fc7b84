// SPDX-License-Identifier: MIT
/* CPU identification with CPUID (SDM vol. 2A, "CPUID"). */
#include <stdint.h>

#include "cpu.h"
#include "lib/printf.h"
#include "lib/kstring.h"
#include "x86.h"

#define CPUID_HV_BASE	0x40000000	/* hypervisor leaves (a VMM convention) */
#define CPUID_HV_LAST	0x4000ff00

/*
 * Linux's convention (hypervisor_cpuid_base()): a signature every 0x100
 * leaves from 0x40000000, its highest leaf in EAX.  Linux looks at all
 * 256; the ranges hypervisors fill are contiguous from 0x40000000
 * (irqlab then KVM, KVM then irqlab with --kvm-pv=on,base, Hyper-V then
 * KVM), so this stops at the first with no leaves (EAX below its base):
 * each CPUID is an exit.
 */
uint32_t cpu_hv_base(const char *sig)
{
	uint32_t r[4], b;

	cpuid(1, 0, r);
	if (!(r[2] & CPUID_1_ECX_HYPERVISOR))
		return 0;
	for (b = CPUID_HV_BASE; b <= CPUID_HV_LAST; b += 0x100) {
		cpuid(b, 0, r);
		if (r[0] < b)
			break;
		if (!memcmp(&r[1], sig, 4) && !memcmp(&r[2], sig + 4, 4) &&
		    !memcmp(&r[3], sig + 8, 4) && r[0] > b)
			return b;
	}
	return 0;
}

/*
 * Make a 12-byte register signature a record value: it ends at the first
 * NUL ("KVMKVMKVM\0\0\0" is "KVMKVMKVM"), and spaces or unprintable bytes
 * become '_', so the value is one word.
 */
static void sig_copy(char dst[13], const uint32_t r[3])
{
	int i;

	memcpy(dst, r, 12);
	dst[12] = '\0';
	for (i = 0; dst[i]; i++)
		if (dst[i] <= ' ' || dst[i] > '~')
			dst[i] = '_';
}

void cpu_identify(struct cpu_info *ci)
{
	uint32_t r[4], sig[3];
	uint32_t family, model;
	int i;

	memset(ci, 0, sizeof(*ci));

	/* leaf 0: EAX = highest basic leaf; vendor in EBX, EDX, ECX */
	cpuid(0, 0, r);
	ci->max_basic = r[0];
	sig[0] = r[1];
	sig[1] = r[3];
	sig[2] = r[2];
	sig_copy(ci->vendor, sig);

	/*
	 * Leaf 1 EAX: stepping 3:0, model 7:4, family 11:8, extended model
	 * 19:16, extended family 27:20.  The SDM's rule: DisplayFamily =
	 * Family, plus Extended Family if Family = 0FH; DisplayModel = Model,
	 * plus Extended Model << 4 if Family = 06H or 0FH.
	 */
	cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	ci->stepping = r[0] & 0xf;
	ci->family = family;
	if (family == 0xf)
		ci->family += (r[0] >> 20) & 0xff;
	ci->model = model;
	if (family == 0x6 || family == 0xf)
		ci->model += ((r[0] >> 16) & 0xf) << 4;

	/*
	 * CPUID.1:ECX[31] is 0 on hardware and set by hypervisors; then leaf
	 * 0x40000000 holds the hypervisor's signature in EBX, ECX, EDX.
	 */
	if (r[2] & CPUID_1_ECX_HYPERVISOR) {
		cpuid(CPUID_HV_BASE, 0, r);
		sig[0] = r[1];
		sig[1] = r[2];
		sig[2] = r[3];
		sig_copy(ci->hv, sig);
	}

	cpuid(0x80000000, 0, r);
	ci->max_ext = r[0];
	/* a CPU without extended leaves returns data of a basic leaf */
	if (ci->max_ext < 0x80000000)
		ci->max_ext = 0;
	if (ci->max_ext >= 0x80000004) {
		for (i = 0; i < 3; i++) {
			cpuid(0x80000002 + i, 0, r);
			memcpy(ci->brand + 16 * i, r, 16);
		}
		ci->brand[48] = '\0';
	}
}

void cpu_print(const struct cpu_info *ci)
{
	const char *brand = ci->brand;

	while (*brand == ' ')		/* Intel right-aligns the brand */
		brand++;
	kprintf("cpu: %s \"%s\" family 0x%x model 0x%x stepping %u, "
		"leaves up to 0x%x and 0x%x, hypervisor %s\n",
		ci->vendor, brand, ci->family, ci->model, ci->stepping,
		ci->max_basic, ci->max_ext, ci->hv[0] ? ci->hv : "none");
	kprintf("@cpuid vendor=%s family=0x%x model=0x%x stepping=%u "
		"max_basic=0x%x max_ext=0x%x hv=%s\n",
		ci->vendor[0] ? ci->vendor : "none", ci->family, ci->model,
		ci->stepping, ci->max_basic, ci->max_ext,
		ci->hv[0] ? ci->hv : "none");
}
