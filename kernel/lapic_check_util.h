/* SPDX-License-Identifier: MIT */
/*
 * What the check=lapic parts for IA32_APIC_BASE, the IDs, the timer and
 * the destinations share (lapic_check_base.c, _timer.c, _dest.c): waits
 * bounded by the TSC, so that a lost interrupt is a failed step and not
 * a hung boot, the IRR and ISR bits, and whose LAPIC answers.
 */
#ifndef KERNEL_LAPIC_CHECK_UTIL_H
#define KERNEL_LAPIC_CHECK_UTIL_H

#include <stdint.h>

#define GP_VECTOR	13	/* #GP (SDM vol. 3 sec. 6.15) */

/* TSC ticks in @us microseconds: calibration's rate, else 1 GHz. */
uint64_t lc_us_to_tsc(uint64_t us);

/* @vec's bit in this CPU's IRR / ISR (SDM 11.8.4) */
int lc_irr(unsigned vec);
int lc_isr(unsigned vec);

/*
 * With interrupts on, until *@count >= @want or @us passed: 0, or -1 on
 * the timeout.  Interrupts are off again when it returns.
 */
int lc_wait(const volatile unsigned *count, unsigned want, uint64_t us);
/* Take interrupts for @us microseconds; interrupts off after. */
void lc_quiet(uint64_t us);

/*
 * 1 when the LAPIC is KVM's under irqlab-vmm (--irqchip=split or
 * kernel): a register read reaches none of irqlab's APIC exit counters.
 * 0 under irqlab's own model, and where the irqlab protocol is absent
 * (QEMU), where nothing tells whose LAPIC it is.
 */
int lc_lapic_is_kvm(void);

/*
 * One step of a rule: LC_OK if @good; else LC_HOST where the LAPIC is
 * KVM's (lc_lapic_is_kvm(): the rule is KVM's to keep, not irqlab's),
 * LC_FAIL everywhere else.  @fmt says what was seen.
 */
void lc_rule(const char *part, const char *step, int good,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
