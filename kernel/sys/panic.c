// SPDX-License-Identifier: MIT
#include <stdarg.h>

#include "boot/cmdline.h"
#include "console.h"
#include "arch/halt.h"
#include "hw/ports.h"
#include "lib/kstring.h"
#include "panic.h"
#include "lib/printf.h"
#include "dev/pv.h"
#include "arch/x86.h"

void kernel_exit(unsigned status)
{
	static int exiting;

	/* if flushing faults, the nested exit skips it */
	if (!exiting++) {
		halt_report();
		console_flush();
		console_replay();	/* the VGA screen: the result again */
	}
	pv_poweroff(status);
	/*
	 * QEMU's isa-debug-exit: writing V makes QEMU exit((V << 1) | 1).
	 * On a machine without it the port is unclaimed and this is a no-op.
	 */
	outb(PORT_DEBUG_EXIT, status);
	for (;;) {
		cli();
		hlt();
	}
}

static void __attribute__((noreturn)) vpanic(const char *why,
					     const char *fields, va_list ap)
{
	console_lock();		/* the record is one line; kept till exit */
	kprintf("@panic ");
	kvprintf(fields, ap);
	kprintf("\npanic: %s\n", why);
	kernel_exit(KERNEL_EXIT_PANIC);
}

void panic(const char *why, const char *fields, ...)
{
	va_list ap;

	va_start(ap, fields);
	vpanic(why, fields, ap);
}

static char failed[64];		/* "ioapic,lapic": checks that failed */

void check_failed(const char *check, const char *why, const char *fields, ...)
{
	const char *go = cmdline_get("onfail");
	size_t n = strlen(failed);
	va_list ap;

	va_start(ap, fields);
	if (!go || strcmp(go, "go"))
		vpanic(why, fields, ap);
	console_lock();
	kprintf("@check_failed check=%s ", check);
	kvprintf(fields, ap);
	kprintf("\ncheck_failed: %s; onfail=go: on to the next check\n", why);
	console_unlock();
	va_end(ap);
	if (n + strlen(check) + 2 < sizeof(failed)) {
		if (n)
			failed[n++] = ',';
		memcpy(failed + n, check, strlen(check) + 1);
	}
}

void checks_done(void)
{
	if (failed[0])
		panic("checks failed (onfail=go)", "reason=checks failed=%s",
		      failed);
}
