/* SPDX-License-Identifier: MIT */
/*
 * check=lapic: local APIC rules a guest we did not write relies on (SDM
 * vol. 3A ch. 11), each step reported on its own line and counted:
 *
 *   lapic_check: <part>: <step>: ok
 *   lapic_check: <part>: <step>: FAILED: <what was seen>
 *   lapic_check: <part>: <step>: SKIPPED: <why: a feature is absent>
 *   lapic_check: <part>: <step>: HOST: <the host's LAPIC breaks the rule>
 *
 * HOST is for a rule that KVM's own LAPIC (split and kernel irqchip) or
 * the host under irqlab-vmm is seen to break, detected by the step
 * itself, as check=ioapic's lapic_isr=clear.  Then one summary:
 *
 *   @lapic_check ok=N fail=N skip=N host=N cpus=N apic=xapic|x2apic
 *
 * and the boot fails if any step failed (docs/RECORDS.md).
 */
#ifndef KERNEL_LAPIC_CHECK_H
#define KERNEL_LAPIC_CHECK_H

enum lc_result {
	LC_OK,
	LC_FAIL,
	LC_SKIP,
	LC_HOST,
};

/* Count one step and print its line; @fmt says what was seen (not for LC_OK). */
void lc_step(const char *part, const char *step, enum lc_result r,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* LC_OK if @good, else LC_FAIL with @fmt */
void lc_expect(const char *part, const char *step, int good,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The parts, each in its own file; each leaves interrupts off, its
 * vectors' handlers removed and the LAPIC as it found it. */
void lapic_check_tpr(void);	/* CR8 and TPR (lapic_check_tpr.c) */
void lapic_check_nmi(void);	/* NMI latching, priority (lapic_check_nmi.c) */
void lapic_check_window(void);	/* the STI shadow (lapic_check_window.c) */
void lapic_check_base(void);	/* IA32_APIC_BASE (lapic_check_base.c) */
void lapic_check_id(void);	/* the ID registers (lapic_check_base.c) */
void lapic_check_timer(void);	/* timer modes (lapic_check_timer.c) */
void lapic_check_dest(void);	/* destinations (lapic_check_dest.c) */

/* Prints @lapic_check; panics if a step failed.  Interrupts off after. */
void lapic_check(void);

#endif
