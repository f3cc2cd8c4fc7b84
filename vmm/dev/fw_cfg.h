/* SPDX-License-Identifier: MIT */
/*
 * QEMU's fw_cfg, traditional I/O interface only (QEMU docs/specs/fw_cfg.rst):
 * a 16-bit selector at 0x510 picks an item, and each byte read from 0x511
 * returns the next byte of it.  Enough for kernels written for QEMU to find
 * the CPU count.
 */
#ifndef VMM_FW_CFG_H
#define VMM_FW_CFG_H

#include <stdint.h>

struct fw_cfg {
	uint16_t select;
	uint32_t offset;
	uint16_t nr_cpus;
};

void fw_cfg_init(struct fw_cfg *f, unsigned nr_cpus);
uint64_t fw_cfg_read(void *opaque, uint64_t off, unsigned size, int cpu);
void fw_cfg_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		  int cpu);

#endif
