/* SPDX-License-Identifier: MIT */
/*
 * QEMU's fw_cfg, I/O port interface (QEMU docs/specs/fw_cfg.rst); irqlab-vmm
 * implements the same keys.  include/hw/ports.h has the ports and keys.
 */
#ifndef KERNEL_FWCFG_H
#define KERNEL_FWCFG_H

#include <stddef.h>
#include <stdint.h>

/* 1 if key 0 reads "QEMU" (checked once). */
int fwcfg_present(void);
/* Select @key and read its first @n bytes into @buf; zeros if absent. */
void fwcfg_read(uint16_t key, void *buf, size_t n);
/* FW_CFG_NB_CPUS: the number of CPUs the machine has, 0 if absent. */
unsigned fwcfg_nb_cpus(void);

#endif
