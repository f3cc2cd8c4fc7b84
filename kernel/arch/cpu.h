/* SPDX-License-Identifier: MIT */
/* What CPUID says about the boot CPU. */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdint.h>

struct cpu_info {
	char vendor[13];	/* "GenuineIntel", ..., NUL-terminated */
	uint32_t family;	/* DisplayFamily (SDM vol. 2A, CPUID leaf 1) */
	uint32_t model;		/* DisplayModel */
	uint32_t stepping;
	uint32_t max_basic;	/* CPUID.0:EAX */
	uint32_t max_ext;	/* CPUID.80000000H:EAX */
	char hv[13];		/* leaf 0x40000000 signature, "" if none */
	char brand[49];		/* leaves 0x80000002-4, "" if none */
};

void cpu_identify(struct cpu_info *ci);
/* The base of the hypervisor leaves signed @sig (12 bytes) with at least
 * a feature leaf after it, or 0 (not under a hypervisor, or not found). */
uint32_t cpu_hv_base(const char *sig);
/* Print a human line and the @cpuid record (docs/RECORDS.md). */
void cpu_print(const struct cpu_info *ci);

#endif
