/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU data.  cpus[0] is the BSP; the APs follow in the order the
 * firmware lists them (smp/smp.c fills it).  Each CPU's GS base points at
 * its struct cpu, so this_cpu() is one load.  Some fields belong to the
 * layers above (the idle loop's, the PV EOI word's): they live here so
 * that the CPU's own code reaches them with no include upward.
 */
#ifndef KERNEL_ARCH_PERCPU_H
#define KERNEL_ARCH_PERCPU_H

#define NR_CPUS		64	/* as irqlab-vmm's VMM_MAX_CPUS */

#ifndef __ASSEMBLY__

#include <stdint.h>

struct irqlab_tl_ring;

struct cpu {
	struct cpu *self;	/* %gs:0, for this_cpu() */
	unsigned index;		/* in cpus[] */
	uint32_t apic_id;
	int online;		/* set once by the CPU itself */
	void (*work)(void);	/* the idle loop runs it, then clears it */
	uint32_t icr_hi;	/* lapic.c: ICR_HI last written (xAPIC) */
	int fault_vector;	/* extable.h: the last fixed-up exception */
	uint32_t irqs;		/* interrupts taken (idle.c's poll reads it) */
	uint32_t polling;	/* idle.c: polling before HLT */
	uint32_t halting;	/* idle.c: in, or about to enter, its HLT */
	uint32_t pveoi;		/* pveoi.c: the PV EOI word, bit 0 the VMM's */
	int pveoi_on;		/* pveoi.c: the word is registered */
	uint64_t pveoi_taken;	/* pveoi.c: EOIs done by clearing the flag */
	uint64_t pveoi_written;	/* ... and by the register, while registered */
	struct irqlab_tl_ring *tl;	/* dev/timeline.c: stamps on, or NULL */
	uint8_t tl_vector;	/* arch/tl.h: the vector being handled */
};

extern struct cpu cpus[NR_CPUS];

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	asm volatile("mov %%gs:0, %0" : "=r"(c));
	return c;
}

#endif /* __ASSEMBLY__ */
#endif
