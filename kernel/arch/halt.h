/* SPDX-License-Identifier: MIT */
/*
 * The wait for an interrupt: CLI; STI; HLT.  SDM vol. 2B, STI: "If IF = 0,
 * maskable hardware interrupts remain inhibited on the instruction
 * boundary following an execution of STI."  So with IF = 0 before the STI
 * the interrupt is taken only once HLT runs, and HLT resumes after it: a
 * caller that checked its wake condition with IF = 0 cannot lose the
 * interrupt between the check and the HLT.  (The CLI makes IF = 0 certain;
 * with IF = 0 already it changes nothing.)
 *
 * Each such HLT's address goes into section __sti_hlt.  An interrupt whose
 * saved RIP is one of them came before the HLT ran, inside STI's shadow:
 * the CPU, or the hypervisor that injected it, broke the rule above, and
 * the HLT it returns to would wait for an interrupt that may never come.
 * trap_dispatch() asks halt_shadow_broken(), which counts the event and
 * resumes after the HLT, as the HLT would have; kernel_exit() reports the
 * count in an @fault record (docs/RECORDS.md).  The nested rig's SVM does
 * this (tests/nested/README.md, "The STI shadow").
 */
#ifndef KERNEL_HALT_H
#define KERNEL_HALT_H

#include "idt.h"

static inline void sti_hlt(void)
{
	asm volatile("cli\n\t"
		     "sti\n"
		     "1:\thlt\n\t"
		     ".pushsection __sti_hlt, \"a\"\n\t"
		     ".balign 8\n\t"
		     ".quad 1b\n\t"
		     ".popsection"
		     : : : "memory");
}

/* trap_dispatch(): 1 if @tf, an interrupt, broke STI's shadow (handled) */
int halt_shadow_broken(struct trap_frame *tf);

/* kernel_exit(): the @fault record, if any interrupt broke the shadow */
void halt_report(void);

#endif
