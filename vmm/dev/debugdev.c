// SPDX-License-Identifier: MIT
#include "hw/ports.h"
#include "debugdev.h"

uint64_t debugcon_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)opaque, (void)off, (void)size, (void)cpu;
	return PORT_DEBUGCON;	/* bochs: "the port reads back 0xe9" */
}

void debugcon_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu)
{
	struct debugdev *d = opaque;
	char c = (char)val;

	(void)off, (void)size, (void)cpu;
	d->out(d->ctx, &c, 1);
}

/* QEMU hw/misc/debugexit.c: exit((val << 1) | 1), whatever the access size. */
void debug_exit_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu)
{
	struct debugdev *d = opaque;

	(void)off, (void)size, (void)cpu;
	d->poweroff(d->ctx, (int)(((val << 1) | 1) & 0xff));
}
