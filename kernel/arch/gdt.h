/* SPDX-License-Identifier: MIT */
/* The GDT and the TSS; the constants are shared with entry.S. */
#ifndef KERNEL_GDT_H
#define KERNEL_GDT_H

/* Selectors: index << 3, TI = 0 (GDT), RPL = 0 (SDM vol. 3 sec. 3.4.2). */
#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define TSS_SEL		0x18	/* a 16-byte descriptor: GDT slots 3 and 4 */

/*
 * Code and data descriptors, base 0, limit 4 GiB (SDM vol. 3 sec. 3.4.5).
 * Code: P=1 DPL=0 S=1 type=0xa (execute/read), L=1 (64-bit), D=0: sec.
 * 5.2.1 requires D=0 when L=1.  Data: P=1 S=1 type=2 (read/write), D/B=1.
 * In 64-bit mode base and limit are ignored (sec. 3.2.4).
 */
#define GDT_CODE64	0x00af9a000000ffff
#define GDT_DATA	0x00cf92000000ffff

/*
 * Interrupt stack table slots (SDM vol. 3 sec. 6.14.5): the CPU switches
 * to a known good stack for these whatever RSP was, so a double fault on
 * a broken stack, or an NMI at any instruction, still runs its handler.
 */
#define IST_DF		1
#define IST_NMI		2
#define IST_MC		3
#define NR_IST		3

#ifndef __ASSEMBLY__
/* Load the kernel GDT, reload the segment registers, load the TSS. */
void gdt_init(void);
/* The same for CPU @cpu (< NR_CPUS, smp.h): its own GDT, TSS, IST
 * stacks.  gdt_init() is gdt_init_cpu(0), the BSP. */
void gdt_init_cpu(unsigned cpu);
#endif

#endif
