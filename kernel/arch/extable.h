/* SPDX-License-Identifier: MIT */
/*
 * Instructions that may fault on purpose, as Linux's exception tables: an
 * entry in section __ex_table names a faulting instruction and where to
 * resume.  trap_dispatch() (idt.c) looks a CPU exception up there first;
 * on a hit it resumes at the entry's second address and leaves the
 * vector in this CPU's struct cpu.  The checks use it to test that an
 * access raises #GP (SDM vol. 3A 11.4.4, 11.12.1) without dying of it.
 */
#ifndef KERNEL_EXTABLE_H
#define KERNEL_EXTABLE_H

#include <stdint.h>

#include "idt.h"
#include "percpu.h"

#define NO_FAULT	(-1)

struct extable_entry {
	uint64_t insn;		/* the address that may fault */
	uint64_t resume;	/* where to continue when it does */
};

/* In inline assembly after the instruction labelled 1:, resuming at 2: */
#define EXTABLE_1_2 \
	".pushsection __ex_table, \"a\"\n\t.balign 8\n\t" \
	".quad 1b, 2b\n\t.popsection\n\t"

/* idt.c: true when @tf's RIP is in the table (then it was redirected) */
int extable_fixup(struct trap_frame *tf);

/* WRMSR: NO_FAULT, or the vector it raised (13: #GP) */
static inline int wrmsr_safe(uint32_t msr, uint64_t v)
{
	volatile struct cpu *c = this_cpu();

	c->fault_vector = NO_FAULT;
	asm volatile("1: wrmsr\n\t2:\n\t" EXTABLE_1_2
		     : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
		     : "memory");
	return c->fault_vector;
}

/* RDMSR: NO_FAULT and *@v, or the vector it raised (*@v is then 0) */
static inline int rdmsr_safe(uint32_t msr, uint64_t *v)
{
	volatile struct cpu *c = this_cpu();
	uint32_t lo = 0, hi = 0;

	c->fault_vector = NO_FAULT;
	asm volatile("1: rdmsr\n\t2:\n\t" EXTABLE_1_2
		     : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
	*v = ((uint64_t)hi << 32) | lo;
	return c->fault_vector;
}

#endif
