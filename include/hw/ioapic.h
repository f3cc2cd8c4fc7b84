/* SPDX-License-Identifier: MIT */
/*
 * The I/O APIC's registers (Intel 82093AA datasheet, 290566-001, section
 * 3; version 0x20 adds the EOI register, as in the ICH/PCH I/O APICs and
 * QEMU's and KVM's models).  Both irqlab-vmm's model (vmm/apic/ioapic.c) and
 * the kernel's driver (kernel/dev/ioapic.c) use these.
 */
#ifndef HW_IOAPIC_H
#define HW_IOAPIC_H

#define IOAPIC_DEFAULT_BASE	0xfec00000u
#define IOAPIC_MMIO_SIZE	0x1000u		/* the 4 KiB page it decodes */

/* Memory-mapped registers, offsets from the base (datasheet 3.0) */
#define IOAPIC_IOREGSEL		0x00	/* index, bits 7:0 */
#define IOAPIC_IOWIN		0x10	/* the indexed register */
#define IOAPIC_EOIR		0x40	/* version 0x20: write a vector */

/* Indirect registers, through IOREGSEL (datasheet 3.1, 3.2) */
#define IOAPIC_REG_ID		0x00	/* ID in bits 27:24 */
#define IOAPIC_REG_VER		0x01	/* max redirection entry 23:16, version 7:0 */
#define IOAPIC_REG_ARB		0x02	/* arbitration ID in bits 27:24 */
#define IOAPIC_REG_REDTBL	0x10	/* entry n: low dword 0x10 + 2n, high + 1 */

#define IOAPIC_ID_SHIFT		24
#define IOAPIC_ID_MASK		(0xfu << IOAPIC_ID_SHIFT)
#define IOAPIC_VER_MAXRED_SHIFT	16

/* Redirection entry, low dword (datasheet 3.2.4) */
#define IOAPIC_RTE_VECTOR	0xffu
#define IOAPIC_RTE_DM_MASK	(7u << 8)	/* same encoding as the ICR's */
#define IOAPIC_RTE_DM_FIXED	(0u << 8)
#define IOAPIC_RTE_DM_LOWEST	(1u << 8)
#define IOAPIC_RTE_DM_SMI	(2u << 8)
#define IOAPIC_RTE_DM_NMI	(4u << 8)
#define IOAPIC_RTE_DM_INIT	(5u << 8)
#define IOAPIC_RTE_DM_EXTINT	(7u << 8)
#define IOAPIC_RTE_LOGICAL	(1u << 11)	/* destination mode */
#define IOAPIC_RTE_DELIVS	(1u << 12)	/* delivery status, read-only */
#define IOAPIC_RTE_ACTIVE_LOW	(1u << 13)	/* interrupt input pin polarity */
#define IOAPIC_RTE_REMOTE_IRR	(1u << 14)	/* read-only */
#define IOAPIC_RTE_LEVEL	(1u << 15)	/* trigger mode */
#define IOAPIC_RTE_MASKED	(1u << 16)
/* High dword: the destination in bits 31:24 (bits 63:56 of the entry) */
#define IOAPIC_RTE_DEST_SHIFT	24

#endif
