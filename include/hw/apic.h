/* SPDX-License-Identifier: MIT */
/*
 * Local APIC registers, shared by the kernel's driver (kernel/dev/lapic.c) and
 * the VMM's model (vmm/apic/lapic.c).  Intel SDM vol. 3A, chapter 11 ("Advanced
 * Programmable Interrupt Controller"); table 11-1 gives the xAPIC map and
 * table 11-6 the x2APIC MSRs (MSR = 0x800 + offset / 16).
 */
#ifndef HW_APIC_H
#define HW_APIC_H

/* IA32_APIC_BASE MSR (SDM 11.4.4, figure 11-5) */
#define MSR_IA32_APIC_BASE	0x1b
#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_EN		(1ull << 11)	/* global enable */
#define APIC_BASE_ADDR_MASK	0x000ffffffffff000ull
#define APIC_DEFAULT_BASE	0xfee00000ull

#define MSR_IA32_TSC_DEADLINE	0x6e0		/* SDM 11.5.4.1 */
#define MSR_X2APIC_BASE		0x800
#define MSR_X2APIC_END		0x8ff
#define X2APIC_MSR(off)		(MSR_X2APIC_BASE + ((off) >> 4))

/* xAPIC MMIO offsets (SDM table 11-1) */
#define APIC_ID		0x020
#define APIC_LVR	0x030	/* version */
#define APIC_TPR	0x080
#define APIC_APR	0x090
#define APIC_PPR	0x0a0
#define APIC_EOI	0x0b0
#define APIC_RRD	0x0c0
#define APIC_LDR	0x0d0
#define APIC_DFR	0x0e0	/* xAPIC only */
#define APIC_SVR	0x0f0
#define APIC_ISR	0x100	/* 8 registers, 0x10 apart */
#define APIC_TMR	0x180
#define APIC_IRR	0x200
#define APIC_ESR	0x280
#define APIC_LVT_CMCI	0x2f0
#define APIC_ICR_LO	0x300
#define APIC_ICR_HI	0x310	/* xAPIC only; x2APIC ICR is one 64-bit MSR */
#define APIC_LVT_TIMER	0x320
#define APIC_LVT_THERM	0x330
#define APIC_LVT_PERF	0x340
#define APIC_LVT_LINT0	0x350
#define APIC_LVT_LINT1	0x360
#define APIC_LVT_ERROR	0x370
#define APIC_TMICT	0x380	/* timer initial count */
#define APIC_TMCCT	0x390	/* timer current count */
#define APIC_TDCR	0x3e0	/* timer divide configuration */
#define APIC_SELF_IPI	0x3f0	/* x2APIC only (MSR 0x83f) */

/* version register: version 0x14, max LVT entry 5 (CMCI..error = 6 LVTs) */
#define APIC_VERSION		0x14
#define APIC_MAX_LVT		5
#define APIC_LVR_VALUE		((APIC_MAX_LVT << 16) | APIC_VERSION)

/* SVR (SDM 11.9) */
#define APIC_SVR_ENABLE		(1u << 8)
#define APIC_SVR_VECTOR		0xff
#define APIC_SVR_FOCUS_DISABLE	(1u << 9)	/* focus processor checking off */

/* DFR models (SDM 11.6.2.2) */
#define APIC_DFR_FLAT		0xffffffffu
#define APIC_DFR_CLUSTER	0x0fffffffu

/* ESR bits (SDM 11.5.3, figure 11-9) */
#define APIC_ESR_SEND_ILLEGAL	(1u << 5)
#define APIC_ESR_RECV_ILLEGAL	(1u << 6)
#define APIC_ESR_ILLEGAL_REG	(1u << 7)

/* LVT bits (SDM 11.5.1, figure 11-8) */
#define APIC_LVT_VECTOR		0xff
#define APIC_LVT_DM_MASK	(7u << 8)
#define APIC_LVT_DM_FIXED	(0u << 8)
#define APIC_LVT_DM_SMI		(2u << 8)
#define APIC_LVT_DM_NMI		(4u << 8)
#define APIC_LVT_DM_INIT	(5u << 8)
#define APIC_LVT_DM_EXTINT	(7u << 8)
#define APIC_LVT_PENDING	(1u << 12)	/* delivery status */
#define APIC_LVT_POLARITY	(1u << 13)	/* LINT0/1: active low */
#define APIC_LVT_REMOTE_IRR	(1u << 14)	/* LINT0/1, read-only */
#define APIC_LVT_LEVEL		(1u << 15)
#define APIC_LVT_MASKED		(1u << 16)
#define APIC_LVT_TIMER_MODE	(3u << 17)
#define APIC_TIMER_ONESHOT	(0u << 17)
#define APIC_TIMER_PERIODIC	(1u << 17)
#define APIC_TIMER_TSCDEADLINE	(2u << 17)

/* ICR (SDM 11.6.1, figure 11-12) */
#define APIC_ICR_VECTOR		0xff
#define APIC_ICR_DM_MASK	(7u << 8)
#define APIC_ICR_DM_FIXED	(0u << 8)
#define APIC_ICR_DM_LOWEST	(1u << 8)
#define APIC_ICR_DM_SMI		(2u << 8)
#define APIC_ICR_DM_NMI		(4u << 8)
#define APIC_ICR_DM_INIT	(5u << 8)
#define APIC_ICR_DM_STARTUP	(6u << 8)
#define APIC_ICR_LOGICAL	(1u << 11)	/* destination mode */
#define APIC_ICR_BUSY		(1u << 12)	/* delivery status (xAPIC) */
#define APIC_ICR_ASSERT		(1u << 14)	/* level: assert */
#define APIC_ICR_LEVEL		(1u << 15)	/* trigger mode */
#define APIC_ICR_DEST_MASK	(3u << 18)	/* destination shorthand */
#define APIC_ICR_DEST_FIELD	(0u << 18)
#define APIC_ICR_DEST_SELF	(1u << 18)
#define APIC_ICR_DEST_ALL	(2u << 18)
#define APIC_ICR_DEST_OTHERS	(3u << 18)
#define APIC_ICR_XAPIC_DEST_SHIFT 24		/* in ICR_HI: bits 56-63 */

/* timer divide configuration: bits 0, 1 and 3 (SDM figure 11-10) */
#define APIC_TDCR_MASK		0x0b

#endif
