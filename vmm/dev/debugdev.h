/* SPDX-License-Identifier: MIT */
/*
 * Two one-port debug devices QEMU guests expect:
 *  - debugcon (bochs port 0xe9): every byte written is a character;
 *    reading gives 0xe9, which is how guests detect it.
 *  - isa-debug-exit (0xf4): writing V ends the VM with status (V << 1) | 1.
 */
#ifndef VMM_DEBUGDEV_H
#define VMM_DEBUGDEV_H

#include <stddef.h>
#include <stdint.h>

struct debugdev {
	void (*out)(void *ctx, const char *buf, size_t len);
	void (*poweroff)(void *ctx, int status);
	void *ctx;
};

uint64_t debugcon_read(void *opaque, uint64_t off, unsigned size, int cpu);
void debugcon_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu);
void debug_exit_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu);

#endif
