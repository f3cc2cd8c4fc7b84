// SPDX-License-Identifier: MIT
#include <stdarg.h>

#include "console.h"
#include "halt.h"
#include "hw/ports.h"
#include "panic.h"
#include "printf.h"
#include "pv.h"
#include "x86.h"

void kernel_exit(unsigned status)
{
	static int exiting;

	/* if flushing faults, the nested exit skips it */
	if (!exiting++) {
		halt_report();
		console_flush();
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

void panic(const char *why, const char *fields, ...)
{
	va_list ap;

	console_lock();		/* the record is one line; kept till exit */
	kprintf("@panic ");
	va_start(ap, fields);
	kvprintf(fields, ap);
	va_end(ap);
	kprintf("\npanic: %s\n", why);
	kernel_exit(KERNEL_EXIT_PANIC);
}
