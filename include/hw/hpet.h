/* SPDX-License-Identifier: MIT */
/*
 * The HPET's registers (IA-PC HPET specification 1.0a, section 2.3),
 * shared by irqlab-vmm's model (vmm/pc/hpet.c) and the kernel's check.
 * Every register is 64 bits at an offset from the block's base; 32-bit
 * accesses reach either half.
 */
#ifndef HW_HPET_H
#define HW_HPET_H

#define HPET_BASE		0xfed00000u	/* irqlab's block (ACPI HPET table) */
#define HPET_LEN		0x400u

/* 2.3.4 General Capabilities and ID */
#define HPET_GCAP_ID		0x000
#define HPET_CAP_REV_ID		0xffull		/* must not be 0 */
#define HPET_CAP_NUM_TIM_SHIFT	8		/* timers - 1 */
#define HPET_CAP_NUM_TIM_MASK	(0x1full << 8)
#define HPET_CAP_COUNT_SIZE	(1ull << 13)	/* 64-bit main counter */
#define HPET_CAP_LEG_RT		(1ull << 15)	/* legacy replacement */
#define HPET_CAP_VENDOR_SHIFT	16
#define HPET_CAP_PERIOD_SHIFT	32		/* femtoseconds per tick */

/* 2.3.5 General Configuration */
#define HPET_GEN_CONF		0x010
#define HPET_CONF_ENABLE	(1ull << 0)	/* the main counter runs */
#define HPET_CONF_LEG_RT	(1ull << 1)	/* timers 0, 1 on IRQ0, IRQ8 */

/* 2.3.6 General Interrupt Status: level status, write 1 to clear */
#define HPET_GINTR_STA		0x020

/* 2.3.7 Main Counter Value */
#define HPET_MAIN_CNT		0x0f0

/* 2.3.8-2.3.10 Timer n: configuration and capabilities, comparator,
 * FSB route */
#define HPET_TN_CONF(n)		(0x100 + 0x20 * (n))
#define HPET_TN_CMP(n)		(0x108 + 0x20 * (n))
#define HPET_TN_FSB(n)		(0x110 + 0x20 * (n))

#define HPET_TN_INT_TYPE	(1ull << 1)	/* 1: level, 0: edge */
#define HPET_TN_INT_ENB		(1ull << 2)
#define HPET_TN_TYPE		(1ull << 3)	/* 1: periodic */
#define HPET_TN_PER_INT_CAP	(1ull << 4)	/* read-only */
#define HPET_TN_SIZE_CAP	(1ull << 5)	/* read-only: 64-bit */
#define HPET_TN_VAL_SET		(1ull << 6)	/* next write sets the value */
#define HPET_TN_32MODE		(1ull << 8)	/* run as a 32-bit timer */
#define HPET_TN_ROUTE_SHIFT	9
#define HPET_TN_ROUTE_MASK	(0x1full << 9)	/* the IOAPIC input */
#define HPET_TN_FSB_EN		(1ull << 14)
#define HPET_TN_FSB_CAP		(1ull << 15)	/* read-only */
#define HPET_TN_ROUTE_CAP_SHIFT	32		/* read-only: inputs allowed */

#endif
