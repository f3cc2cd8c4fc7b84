/* SPDX-License-Identifier: MIT */
/*
 * QEMU's pc-testdev IRQ lines (hw/misc/pc-testdev.c), also in
 * irqlab-vmm (vmm/dev/testdev.c): outb(TESTDEV_IRQ_PORT(n), v) sets ISA line
 * n to !!v.  QEMU's takes lines 0-15 only (its ISA bus has 16 IRQs).
 */
#ifndef HW_TESTDEV_H
#define HW_TESTDEV_H

#define TESTDEV_IRQ_BASE	0x2000
#define TESTDEV_NR_LINES	24
#define TESTDEV_IRQ_PORT(n)	(TESTDEV_IRQ_BASE + (n))

#endif
