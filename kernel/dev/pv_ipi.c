// SPDX-License-Identifier: MIT
/*
 * Paravirtual multicast IPIs (pv_ipi.h).
 *
 * irqlab's doorbell: the struct irqlab_pv_ipi of include/hw/irqlab.h,
 * one per CPU, its guest-physical address written to IRQLAB_PORT_PV_IPI
 * (identity map: the address is the pointer).  KVM's hypercall
 * (Documentation/virt/kvm/x86/hypercalls.rst, KVM_HC_SEND_IPI): RAX =
 * 10, RBX/RCX = a 128-bit bitmap of APIC IDs from RDX = the lowest, RSI
 * = ICR low; RAX returns the number of CPUs reached, or a negative error.
 * VMCALL on Intel, VMMCALL on AMD (KVM would patch the other one, with an
 * exit per patch, or #UD where it does not).
 *
 * Ordering: OUT and a VM exit both wait for earlier stores (SDM vol. 3A
 * 9.2.2: reads and writes are not reordered with I/O instructions), so
 * a target sees what the sender wrote before the IPI.
 */
#include <stdint.h>

#include "boot/cmdline.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "hw/kvm_pv.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "pv.h"
#include "pv_ipi.h"
#include "arch/cpu.h"
#include "arch/percpu.h"
#include "arch/tl.h"
#include "arch/x86.h"

#define KVM_FEATURE_PV_SEND_IPI	(1u << 11)
#define KVM_HC_SEND_IPI	10
#define KVM_IPI_BITS	128		/* two longs in 64-bit mode */

static enum pv_ipi_kind kind;
static int amd;				/* VMMCALL, else VMCALL */
static struct irqlab_pv_ipi req[NR_CPUS];

void pv_ipi_init(void)
{
	const char *want = cmdline_get("pvipi");
	uint32_t r[4], b;

	cpuid(0, 0, r);
	amd = !memcmp(&r[1], "Auth", 4) || !memcmp(&r[1], "Hygo", 4);
	kind = PV_IPI_NONE;
	if ((b = cpu_hv_base("irqlabirqlab")) && pv_present()) {
		cpuid(b + 1, 0, r);
		if (r[0] & IRQLAB_FEATURE_PV_IPI)
			kind = PV_IPI_IRQLAB;
	}
	if (kind == PV_IPI_NONE && (b = cpu_hv_base(KVM_PV_SIGNATURE))) {
		cpuid(b + 1, 0, r);
		if (r[0] & KVM_FEATURE_PV_SEND_IPI)
			kind = PV_IPI_KVM;
	}
	if (want && strcmp(want, "off") && strcmp(want, "on"))
		kprintf("pv_ipi: warning: unknown pvipi=%s (on or off)\n",
			want);
	if (kind != PV_IPI_NONE && want && !strcmp(want, "off"))
		kind = PV_IPI_OFF;
	if (kind != PV_IPI_NONE)
		kprintf("pv_ipi: %s multicast IPIs%s\n", kind == PV_IPI_KVM ?
			"KVM_HC_SEND_IPI" : "irqlab doorbell", kind == PV_IPI_OFF ?
			" offered, off (pvipi=off)" : "");
}

enum pv_ipi_kind pv_ipi_kind(void)
{
	return kind;
}

const char *pv_ipi_name(void)
{
	static const char *const names[] = { "none", "off", "irqlab", "kvm" };

	return names[kind];
}

static long kvm_hypercall4(unsigned long nr, unsigned long a0,
			   unsigned long a1, unsigned long a2, unsigned long a3)
{
	long ret;

	if (amd)
		asm volatile("vmmcall" : "=a"(ret)
			     : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
			     : "memory");
	else
		asm volatile("vmcall" : "=a"(ret)
			     : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
			     : "memory");
	return ret;
}

static int is_set(const uint64_t *mask, unsigned i)
{
	return (mask[i / 64] >> (i % 64)) & 1;
}

/* One hypercall per window of 128 APIC IDs, as Linux's __send_ipi_mask */
static void kvm_send(const uint64_t *mask, unsigned vector)
{
	uint64_t done = 0, bits[2];
	uint32_t min, id;
	unsigned i;
	int left = 1;

	while (left) {
		left = 0;
		min = ~0u;
		for (i = 0; i < NR_CPUS; i++)
			if (is_set(mask, i) && !(done >> i & 1) &&
			    cpus[i].apic_id < min)
				min = cpus[i].apic_id;
		if (min == ~0u)
			break;
		bits[0] = bits[1] = 0;
		for (i = 0; i < NR_CPUS; i++) {
			if (!is_set(mask, i) || (done >> i & 1))
				continue;
			id = cpus[i].apic_id - min;
			if (id >= KVM_IPI_BITS) {
				left = 1;
				continue;
			}
			bits[id / 64] |= 1ull << (id % 64);
			done |= 1ull << i;
		}
		tl_stamp(IRQLAB_TL_SEND, vector, IRQLAB_TL_DEST_SHORT);
		kvm_hypercall4(KVM_HC_SEND_IPI, bits[0], bits[1], min,
			       APIC_ICR_DM_FIXED | (vector & 0xff));
	}
}

/* irqlab's doorbell: APIC IDs below 256 in one struct, one OUT */
static int irqlab_send(const uint64_t *mask, unsigned vector)
{
	struct irqlab_pv_ipi *r;
	uint64_t flags;
	unsigned i;

	for (i = 0; i < NR_CPUS; i++)
		if (is_set(mask, i) &&
		    cpus[i].apic_id >= IRQLAB_PV_IPI_MAX_IDS)
			return -1;
	flags = irq_save();	/* the CPU's struct: no handler in between */
	r = &req[this_cpu()->index];
	memset(r, 0, sizeof(*r));
	r->icr = APIC_ICR_DM_FIXED | (vector & 0xff);
	for (i = 0; i < NR_CPUS; i++)
		if (is_set(mask, i))
			r->dest[cpus[i].apic_id / 64] |=
				1ull << (cpus[i].apic_id % 64);
	tl_stamp(IRQLAB_TL_SEND, vector, IRQLAB_TL_DEST_SHORT);
	outl(IRQLAB_PORT_PV_IPI, (uint32_t)(uintptr_t)r);
	irq_restore(flags);
	return 0;
}

int pv_ipi_send(const uint64_t *mask, unsigned vector)
{
	switch (kind) {
	case PV_IPI_IRQLAB:
		return irqlab_send(mask, vector);
	case PV_IPI_KVM:
		kvm_send(mask, vector);
		return 0;
	default:
		return -1;
	}
}
