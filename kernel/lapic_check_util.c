// SPDX-License-Identifier: MIT
/* Helpers of the check=lapic parts (lapic_check_util.h). */
#include <stdarg.h>
#include <stdint.h>

#include "calib_hw.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "printf.h"
#include "pv.h"
#include "x86.h"

uint64_t lc_us_to_tsc(uint64_t us)
{
	uint64_t khz = calib_tsc_khz();

	return us * (khz ? khz : 1000000) / 1000;
}

/* IRR, ISR: 8 registers of 32 vectors each, 0x10 apart (SDM table 11-1) */
static int vec_bit(unsigned reg, unsigned vec)
{
	return !!(lapic_read(reg + 0x10 * (vec / 32)) & (1u << (vec % 32)));
}

int lc_irr(unsigned vec)
{
	return vec_bit(APIC_IRR, vec);
}

int lc_isr(unsigned vec)
{
	return vec_bit(APIC_ISR, vec);
}

int lc_wait(const volatile unsigned *count, unsigned want, uint64_t us)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us);
	int r = -1;

	sti();
	while (rdtsc() - t0 < n) {
		if (*count >= want) {
			r = 0;
			break;
		}
		cpu_relax();
	}
	cli();
	return *count >= want ? 0 : r;
}

void lc_quiet(uint64_t us)
{
	static const volatile unsigned never;

	lc_wait(&never, 1, us);
}

/* Probed once, while the APIC is as the boot left it (the first part's
 * first call): a part may move or disable it later. */
int lc_lapic_is_kvm(void)
{
	static struct irqlab_snapshot a, b;	/* the VMM writes them */
	static int kvm = -1;

	if (kvm >= 0)
		return kvm;
	kvm = 0;
	if (pv_snapshot(&a))
		return kvm;
	(void)lapic_read(APIC_LVR);
	if (pv_snapshot(&b) || a.count <= IRQLAB_CNT_APIC)
		return kvm;
	kvm = b.counter[IRQLAB_CNT_APIC] == a.counter[IRQLAB_CNT_APIC];
	return kvm;
}

void lc_rule(const char *part, const char *step, int good,
	     const char *fmt, ...)
{
	char seen[160];
	va_list ap;

	if (good) {
		lc_step(part, step, LC_OK, " ");
		return;
	}
	va_start(ap, fmt);
	kvsnprintf(seen, sizeof(seen), fmt, ap);
	va_end(ap);
	if (lc_lapic_is_kvm())
		lc_step(part, step, LC_HOST, "KVM's LAPIC: %s", seen);
	else
		lc_step(part, step, LC_FAIL, "%s", seen);
}
