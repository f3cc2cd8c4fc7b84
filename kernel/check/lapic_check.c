// SPDX-License-Identifier: MIT
/*
 * check=lapic: runs the parts (lapic_check.h) one after the other on the
 * BSP, with the APs idle, and prints @lapic_check (docs/RECORDS.md).
 */
#include <stdarg.h>

#include "dev/lapic.h"
#include "lapic_check.h"
#include "sys/panic.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

static unsigned counts[4];

static const char *const result_name[] = {
	[LC_OK] = "ok",
	[LC_FAIL] = "FAILED",
	[LC_SKIP] = "SKIPPED",
	[LC_HOST] = "HOST",
};

static void lc_vstep(const char *part, const char *step, enum lc_result r,
		     const char *fmt, va_list ap)
{
	char why[160];

	counts[r]++;
	if (r == LC_OK) {
		kprintf("lapic_check: %s: %s: ok\n", part, step);
		return;
	}
	kvsnprintf(why, sizeof(why), fmt, ap);
	kprintf("lapic_check: %s: %s: %s: %s\n", part, step, result_name[r],
		why);
}

void lc_step(const char *part, const char *step, enum lc_result r,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lc_vstep(part, step, r, fmt, ap);
	va_end(ap);
}

void lc_expect(const char *part, const char *step, int good,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lc_vstep(part, step, good ? LC_OK : LC_FAIL, fmt, ap);
	va_end(ap);
}

void lapic_check(void)
{
	/* id and base clear EN, and a VMM may never set it again (QEMU
	 * 7.2 TCG): they come last, so the others run on a working APIC */
	static void (*const parts[])(void) = {
		lapic_check_tpr, lapic_check_nmi, lapic_check_window,
		lapic_check_timer, lapic_check_dest, lapic_check_id,
		lapic_check_base,
	};
	unsigned i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		parts[i]();
		cli();
	}
	kprintf("@lapic_check ok=%u fail=%u skip=%u host=%u cpus=%u apic=%s\n",
		counts[LC_OK], counts[LC_FAIL], counts[LC_SKIP],
		counts[LC_HOST], smp_nr_online(),
		lapic_mode_name());
	if (counts[LC_FAIL])
		check_failed("lapic", "check=lapic failed",
			     "reason=lapic_check fail=%u", counts[LC_FAIL]);
}
