/* SPDX-License-Identifier: MIT */
/*
 * ACPI tables, shared by the VMM's builder (vmm/boot/acpi.c) and the kernel's
 * parser (kernel/boot/acpi.c).  Section numbers refer to ACPI 6.5 (August 2022).
 * All structures are packed and little-endian; byte offsets are in the
 * comments where the spec's tables give them.
 */
#ifndef HW_ACPI_H
#define HW_ACPI_H

#include <stdint.h>

/* ---- Root System Description Pointer (5.2.5) ---- */

/* 5.2.5.1: on IA-PC the RSDP is on a 16-byte boundary in one of these. */
#define ACPI_BDA_EBDA_SEG	0x40e		/* u16: EBDA segment */
#define ACPI_EBDA_SCAN_LEN	1024		/* first 1 KiB of the EBDA */
#define ACPI_BIOS_START		0xe0000ull	/* BIOS read-only area */
#define ACPI_BIOS_END		0x100000ull
#define ACPI_RSDP_ALIGN		16

#define ACPI_RSDP_SIG		"RSD PTR "	/* 8 bytes, no NUL */
#define ACPI_RSDP_V1_LEN	20	/* ACPI 1.0: checksum covers these */
#define ACPI_RSDP_V2_LEN	36	/* 2.0+: extended checksum covers Length */

/* 5.2.5.3 */
struct acpi_rsdp {
	char signature[8];		/* 0: "RSD PTR " */
	uint8_t checksum;		/* 8: bytes 0-19 sum to 0 */
	char oem_id[6];			/* 9 */
	uint8_t revision;		/* 15: 0 = ACPI 1.0, 2 = 2.0 and later */
	uint32_t rsdt_addr;		/* 16 */
	/* revision >= 2 only */
	uint32_t length;		/* 20: of the whole RSDP, 36 */
	uint64_t xsdt_addr;		/* 24 */
	uint8_t ext_checksum;		/* 32: all Length bytes sum to 0 */
	uint8_t reserved[3];		/* 33 */
} __attribute__((packed));

#define ACPI_RSDP_REV1		0
#define ACPI_RSDP_REV2		2

/* ---- System Description Table header (5.2.6) ---- */

/* 5.2.6: every table but the RSDP and FACS starts with this. */
struct acpi_sdt_header {
	char signature[4];		/* 0 */
	uint32_t length;		/* 4: of the whole table, header included */
	uint8_t revision;		/* 8 */
	uint8_t checksum;		/* 9: all Length bytes sum to 0 */
	char oem_id[6];			/* 10 */
	char oem_table_id[8];		/* 16 */
	uint32_t oem_revision;		/* 24 */
	uint32_t creator_id;		/* 28 */
	uint32_t creator_revision;	/* 32 */
} __attribute__((packed));

/* 5.2.6: the signatures we build or read */
#define ACPI_SIG_RSDT		"RSDT"
#define ACPI_SIG_XSDT		"XSDT"
#define ACPI_SIG_FADT		"FACP"
#define ACPI_SIG_FACS		"FACS"
#define ACPI_SIG_DSDT		"DSDT"
#define ACPI_SIG_MADT		"APIC"
#define ACPI_SIG_HPET		"HPET"
#define ACPI_SIG_LEN		4

/* 5.2.7 RSDT: the header, then 32-bit table addresses (revision 1). */
struct acpi_rsdt {
	struct acpi_sdt_header hdr;
	uint32_t entry[];
} __attribute__((packed));

/* 5.2.8 XSDT: the header, then 64-bit table addresses (revision 1). */
struct acpi_xsdt {
	struct acpi_sdt_header hdr;
	uint64_t entry[];
} __attribute__((packed));

#define ACPI_RSDT_REV		1
#define ACPI_XSDT_REV		1

/* ---- Generic Address Structure (5.2.3.2) ---- */

struct acpi_gas {
	uint8_t space_id;		/* ACPI_AS_* */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;		/* ACPI_ACCESS_* */
	uint64_t address;
} __attribute__((packed));

#define ACPI_AS_MEMORY		0
#define ACPI_AS_IO		1
#define ACPI_ACCESS_UNDEF	0
#define ACPI_ACCESS_BYTE	1
#define ACPI_ACCESS_WORD	2
#define ACPI_ACCESS_DWORD	3
#define ACPI_ACCESS_QWORD	4

/* ---- IA-PC HPET Description Table (HPET spec 1.0a, 3.2.4) ---- */

struct acpi_hpet {
	struct acpi_sdt_header hdr;	/* "HPET", revision 1 */
	uint32_t block_id;		/* 36: GCAP_ID's low 32 bits */
	struct acpi_gas base;		/* 40: system memory, its address */
	uint8_t number;			/* 52: the HPET's sequence number */
	uint16_t min_tick;		/* 53: smallest periodic count */
	uint8_t page_protection;	/* 55 */
} __attribute__((packed));

#define ACPI_HPET_REV		1

/* ---- Fixed ACPI Description Table (5.2.9) ---- */

struct acpi_fadt {
	struct acpi_sdt_header hdr;	/* 0: "FACP", revision 6 */
	uint32_t firmware_ctrl;		/* 36: FACS address */
	uint32_t dsdt;			/* 40 */
	uint8_t reserved0;		/* 44: INT_MODEL in ACPI 1.0 */
	uint8_t preferred_pm_profile;	/* 45: 0 = unspecified */
	uint16_t sci_int;		/* 46 */
	uint32_t smi_cmd;		/* 48: 0 = no SMM, ACPI mode always */
	uint8_t acpi_enable;		/* 52 */
	uint8_t acpi_disable;		/* 53 */
	uint8_t s4bios_req;		/* 54 */
	uint8_t pstate_cnt;		/* 55 */
	uint32_t pm1a_evt_blk;		/* 56 */
	uint32_t pm1b_evt_blk;		/* 60 */
	uint32_t pm1a_cnt_blk;		/* 64 */
	uint32_t pm1b_cnt_blk;		/* 68 */
	uint32_t pm2_cnt_blk;		/* 72 */
	uint32_t pm_tmr_blk;		/* 76 */
	uint32_t gpe0_blk;		/* 80 */
	uint32_t gpe1_blk;		/* 84 */
	uint8_t pm1_evt_len;		/* 88: >= 4 */
	uint8_t pm1_cnt_len;		/* 89: >= 2 */
	uint8_t pm2_cnt_len;		/* 90 */
	uint8_t pm_tmr_len;		/* 91: 4 if there is a PM timer */
	uint8_t gpe0_blk_len;		/* 92 */
	uint8_t gpe1_blk_len;		/* 93 */
	uint8_t gpe1_base;		/* 94 */
	uint8_t cst_cnt;		/* 95 */
	uint16_t p_lvl2_lat;		/* 96: > 100 = no C2 */
	uint16_t p_lvl3_lat;		/* 98: > 1000 = no C3 */
	uint16_t flush_size;		/* 100 */
	uint16_t flush_stride;		/* 102 */
	uint8_t duty_offset;		/* 104 */
	uint8_t duty_width;		/* 105 */
	uint8_t day_alrm;		/* 106 */
	uint8_t mon_alrm;		/* 107 */
	uint8_t century;		/* 108 */
	uint16_t iapc_boot_arch;	/* 109: ACPI_IAPC_* */
	uint8_t reserved1;		/* 111 */
	uint32_t flags;			/* 112: ACPI_FADT_* */
	struct acpi_gas reset_reg;	/* 116 */
	uint8_t reset_value;		/* 128 */
	uint16_t arm_boot_arch;		/* 129 */
	uint8_t minor_version;		/* 131 */
	uint64_t x_firmware_ctrl;	/* 132 */
	uint64_t x_dsdt;		/* 140 */
	struct acpi_gas x_pm1a_evt_blk;	/* 148 */
	struct acpi_gas x_pm1b_evt_blk;	/* 160 */
	struct acpi_gas x_pm1a_cnt_blk;	/* 172 */
	struct acpi_gas x_pm1b_cnt_blk;	/* 184 */
	struct acpi_gas x_pm2_cnt_blk;	/* 196 */
	struct acpi_gas x_pm_tmr_blk;	/* 208 */
	struct acpi_gas x_gpe0_blk;	/* 220 */
	struct acpi_gas x_gpe1_blk;	/* 232 */
	struct acpi_gas sleep_control;	/* 244 */
	struct acpi_gas sleep_status;	/* 256 */
	uint64_t hypervisor_vendor;	/* 268 */
} __attribute__((packed));		/* 276 */

#define ACPI_FADT_REV		6	/* major version, ACPI 6.x */
#define ACPI_FADT_MINOR		5	/* ACPI 6.5 */
/* The ACPI 1.0 FADT ended after the 32-bit fields: 116 bytes. */
#define ACPI_FADT_V1_LEN	116

/* 5.2.9.3: IA-PC boot architecture flags */
/* 4.8.3.2.1 PM1 control: SCI_EN, SLP_TYP (bits 12:10), SLP_EN (write-only) */
#define ACPI_PM1_SCI_EN			(1u << 0)
#define ACPI_PM1_SLP_TYP_SHIFT		10
#define ACPI_PM1_SLP_TYP_MASK		(7u << 10)
#define ACPI_PM1_SLP_EN			(1u << 13)
#define ACPI_SLP_TYP_S5			5	/* irqlab's \_S5 value */

#define ACPI_IAPC_LEGACY_DEVICES	(1u << 0)	/* ISA devices (COM1) */
#define ACPI_IAPC_8042			(1u << 1)	/* a PS/2 controller */
#define ACPI_IAPC_VGA_NOT_PRESENT	(1u << 2)
#define ACPI_IAPC_MSI_NOT_SUPPORTED	(1u << 3)
#define ACPI_IAPC_PCIE_ASPM		(1u << 4)
#define ACPI_IAPC_CMOS_RTC_NOT_PRESENT	(1u << 5)

/* 5.2.9: fixed feature flags (those we use or test) */
#define ACPI_FADT_WBINVD		(1u << 0)
#define ACPI_FADT_PROC_C1		(1u << 2)
#define ACPI_FADT_PWR_BUTTON		(1u << 4)	/* 1: no fixed power button */
#define ACPI_FADT_SLP_BUTTON		(1u << 5)	/* 1: no fixed sleep button */
#define ACPI_FADT_FIX_RTC		(1u << 6)	/* 1: no fixed RTC wake */
#define ACPI_FADT_TMR_VAL_EXT		(1u << 8)	/* 0: 24-bit PM timer */
#define ACPI_FADT_RESET_REG_SUP		(1u << 10)
#define ACPI_FADT_HEADLESS		(1u << 12)
#define ACPI_FADT_HW_REDUCED		(1u << 20)	/* no fixed hardware */

/* 4.8.3.3: the PM timer is one 32-bit register at 3.579545 MHz */
#define ACPI_PM_TMR_LEN		4
#define ACPI_PM_TMR_HZ		3579545u

/* ---- Firmware ACPI Control Structure (5.2.10) ---- */

/* No checksum; 64-byte aligned; not in memory the map calls available. */
struct acpi_facs {
	char signature[4];		/* 0: "FACS" */
	uint32_t length;		/* 4: >= 64 */
	uint32_t hardware_signature;	/* 8 */
	uint32_t firmware_waking_vector;	/* 12 */
	uint32_t global_lock;		/* 16 */
	uint32_t flags;			/* 20 */
	uint64_t x_firmware_waking_vector;	/* 24 */
	uint8_t version;		/* 32: 2 */
	uint8_t reserved0[3];		/* 33 */
	uint32_t ospm_flags;		/* 36 */
	uint8_t reserved1[24];		/* 40 */
} __attribute__((packed));		/* 64 */

#define ACPI_FACS_VERSION	2
#define ACPI_FACS_ALIGN		64

/* 5.2.11.1: DSDT revision 2 means 64-bit AML integers. */
#define ACPI_DSDT_REV		2

/* ---- Multiple APIC Description Table (5.2.12) ---- */

/* 5.2.12: revision 6 in ACPI 6.5 (its table 5.19) */
struct acpi_madt {
	struct acpi_sdt_header hdr;	/* 0: "APIC" */
	uint32_t lapic_addr;		/* 36: local APIC address */
	uint32_t flags;			/* 40: ACPI_MADT_PCAT_COMPAT */
	/* 44: interrupt controller structures */
} __attribute__((packed));

#define ACPI_MADT_REV		6
#define ACPI_MADT_PCAT_COMPAT	(1u << 0)	/* and a dual 8259 */

/* 5.2.12: every structure starts with type and length */
struct acpi_madt_entry {
	uint8_t type;
	uint8_t length;
} __attribute__((packed));

#define ACPI_MADT_LAPIC		0
#define ACPI_MADT_IOAPIC	1
#define ACPI_MADT_ISO		2
#define ACPI_MADT_LAPIC_NMI	4
#define ACPI_MADT_LAPIC_ADDR	5
#define ACPI_MADT_X2APIC	9
#define ACPI_MADT_X2APIC_NMI	0xa

/* 5.2.12.2: Processor Local APIC */
struct acpi_madt_lapic {
	struct acpi_madt_entry h;	/* 0, length 8 */
	uint8_t uid;			/* 2: ACPI processor UID */
	uint8_t apic_id;		/* 3 */
	uint32_t flags;			/* 4: ACPI_LAPIC_* */
} __attribute__((packed));

#define ACPI_LAPIC_ENABLED		(1u << 0)
#define ACPI_LAPIC_ONLINE_CAPABLE	(1u << 1)	/* only if not enabled */

/* 5.2.12.3: I/O APIC */
struct acpi_madt_ioapic {
	struct acpi_madt_entry h;	/* 0, length 12 */
	uint8_t id;			/* 2 */
	uint8_t reserved;		/* 3 */
	uint32_t addr;			/* 4 */
	uint32_t gsi_base;		/* 8 */
} __attribute__((packed));

/* 5.2.12.5: Interrupt Source Override */
struct acpi_madt_iso {
	struct acpi_madt_entry h;	/* 0, length 10 */
	uint8_t bus;			/* 2: 0 = ISA */
	uint8_t source;			/* 3: bus-relative IRQ */
	uint32_t gsi;			/* 4 */
	uint16_t flags;			/* 8: MPS INTI flags */
} __attribute__((packed));

/* 5.2.12.5: MPS INTI flags; 0 = conforms to the bus (ISA: edge, high) */
#define ACPI_INTI_POLARITY_MASK	0x3
#define ACPI_INTI_ACTIVE_HIGH	0x1
#define ACPI_INTI_ACTIVE_LOW	0x3
#define ACPI_INTI_TRIGGER_MASK	0xc
#define ACPI_INTI_EDGE		0x4
#define ACPI_INTI_LEVEL		0xc

/* 5.2.12.7: Local APIC NMI */
struct acpi_madt_lapic_nmi {
	struct acpi_madt_entry h;	/* 0, length 6 */
	uint8_t uid;			/* 2: 0xff = all processors */
	uint16_t flags;			/* 3: MPS INTI flags */
	uint8_t lint;			/* 5: LINT0 or LINT1 */
} __attribute__((packed));

#define ACPI_NMI_ALL_CPUS	0xff

/* 5.2.12.8: Local APIC Address Override */
struct acpi_madt_lapic_addr {
	struct acpi_madt_entry h;	/* 0, length 12 */
	uint16_t reserved;		/* 2 */
	uint64_t addr;			/* 4 */
} __attribute__((packed));

/* 5.2.12.12: Processor Local x2APIC, for APIC IDs >= 255 */
struct acpi_madt_x2apic {
	struct acpi_madt_entry h;	/* 0, length 16 */
	uint16_t reserved;		/* 2 */
	uint32_t x2apic_id;		/* 4 */
	uint32_t flags;			/* 8: as ACPI_LAPIC_* */
	uint32_t uid;			/* 12 */
} __attribute__((packed));

#define ACPI_X2APIC_MIN_ID	255	/* 5.2.12.12: smaller IDs use type 0 */

/* 5.2.12.13: Local x2APIC NMI */
struct acpi_madt_x2apic_nmi {
	struct acpi_madt_entry h;	/* 0, length 12 */
	uint16_t flags;			/* 2: MPS INTI flags */
	uint32_t uid;			/* 4: 0xffffffff = all processors */
	uint8_t lint;			/* 8 */
	uint8_t reserved[3];		/* 9 */
} __attribute__((packed));

#define ACPI_X2APIC_NMI_ALL_CPUS	0xffffffffu

/* The sizes the spec gives; a wrong field above fails the build. */
_Static_assert(sizeof(struct acpi_rsdp) == ACPI_RSDP_V2_LEN, "5.2.5.3");
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "5.2.6");
_Static_assert(sizeof(struct acpi_gas) == 12, "5.2.3.2");
_Static_assert(sizeof(struct acpi_fadt) == 276, "5.2.9");
_Static_assert(__builtin_offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "5.2.9");
_Static_assert(__builtin_offsetof(struct acpi_fadt, iapc_boot_arch) == 109,
	       "5.2.9");
_Static_assert(__builtin_offsetof(struct acpi_fadt, flags) == 112, "5.2.9");
_Static_assert(__builtin_offsetof(struct acpi_fadt, x_dsdt) == 140, "5.2.9");
_Static_assert(__builtin_offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208,
	       "5.2.9");
_Static_assert(sizeof(struct acpi_facs) == 64, "5.2.10");
_Static_assert(sizeof(struct acpi_madt) == 44, "5.2.12");
_Static_assert(sizeof(struct acpi_madt_lapic) == 8, "5.2.12.2");
_Static_assert(sizeof(struct acpi_madt_ioapic) == 12, "5.2.12.3");
_Static_assert(sizeof(struct acpi_madt_iso) == 10, "5.2.12.5");
_Static_assert(sizeof(struct acpi_madt_lapic_nmi) == 6, "5.2.12.7");
_Static_assert(sizeof(struct acpi_madt_lapic_addr) == 12, "5.2.12.8");
_Static_assert(sizeof(struct acpi_madt_x2apic) == 16, "5.2.12.12");
_Static_assert(sizeof(struct acpi_madt_x2apic_nmi) == 12, "5.2.12.13");

#endif
