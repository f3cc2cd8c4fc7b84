/* SPDX-License-Identifier: MIT */
/*
 * The irqlab guest <-> VMM port protocol.  docs/PROTOCOL.md describes it.
 *
 * Every register is a 32-bit I/O port (inl/outl).  On a hypervisor without
 * the protocol the signature port reads as all-ones (an unclaimed ISA port),
 * so a guest detects absence with one inl.
 */
#ifndef HW_IRQLAB_H
#define HW_IRQLAB_H

#include <stdint.h>

#define IRQLAB_PORT_BASE	0x0ec0
#define IRQLAB_PORT_SIG		0x0ec0	/* in:  IRQLAB_SIGNATURE */
#define IRQLAB_PORT_VERSION	0x0ec4	/* in:  IRQLAB_VERSION */
#define IRQLAB_PORT_PHASE	0x0ec8	/* out: enum irqlab_phase */
#define IRQLAB_PORT_CONSOLE	0x0ecc	/* out: guest-physical address of a
					 * NUL-terminated string, at most
					 * IRQLAB_CONSOLE_MAX bytes */
#define IRQLAB_PORT_SNAPSHOT	0x0ed0	/* out: guest-physical address of a
					 * struct irqlab_snapshot to fill */
#define IRQLAB_PORT_POWEROFF	0x0ed4	/* out: exit status of irqlab-vmm */
/*
 * The paravirtual devices: their exits are ordinary work, counted in the
 * exit classes (not in IRQLAB_CNT_PROTOCOL).  Each is there only when
 * CPUID 0x40000001 EAX has its IRQLAB_FEATURE_* bit.
 */
#define IRQLAB_PORT_PV_FIRST	0x0ed8
#define IRQLAB_PORT_PV_EOI	0x0ed8	/* out: this vCPU's PV EOI flag word:
					 * its guest-physical address (4-byte
					 * aligned, guest RAM), 0 turns it off */
#define IRQLAB_PORT_PV_IPI	0x0edc	/* out: guest-physical address of a
					 * struct irqlab_pv_ipi to send */
#define IRQLAB_PORT_TIMELINE	0x0ee0	/* out: this vCPU's struct
					 * irqlab_tl_ring (8-byte aligned,
					 * guest RAM), 0 turns it off */
#define IRQLAB_PORT_LEN		0x40	/* 0x0ec0-0x0eff: 0x0ee4 on unused */

#define IRQLAB_SIGNATURE	0x4c515249u	/* "IRQL" in little endian */
#define IRQLAB_VERSION		1
#define IRQLAB_CONSOLE_MAX	4096

/*
 * irqlab's CPUID leaves (docs/PROTOCOL.md): 0x40000000 holds the signature
 * "irqlabirqlab" and the highest leaf in EAX; 0x40000001 EAX the features.
 */
#define IRQLAB_CPUID_BASE	0x40000000u
#define IRQLAB_CPUID_FEATURES	0x40000001u
#define IRQLAB_FEATURE_PV_EOI	(1u << 0)	/* IRQLAB_PORT_PV_EOI works */
#define IRQLAB_FEATURE_PV_IPI	(1u << 1)	/* IRQLAB_PORT_PV_IPI works */
#define IRQLAB_FEATURE_TIMELINE	(1u << 2)	/* IRQLAB_PORT_TIMELINE works */
/* bit 0 of the PV EOI word: set by the VMM, cleared by the guest's EOI */
#define IRQLAB_PV_EOI_FLAG	1u

/*
 * The PV IPI doorbell: one outl(IRQLAB_PORT_PV_IPI, gpa) sends @icr's
 * vector to every APIC ID whose bit is set in @dest (bit n: APIC ID n),
 * as that many physical-destination ICR writes would, in one exit.
 * @icr holds ICR bits 10:0: the vector (7:0) and the delivery mode
 * (10:8): fixed (000b) or NMI (100b).  The struct must lie in RAM in one
 * piece; @reserved must be 0.  docs/PROTOCOL.md has the rules.
 */
#define IRQLAB_PV_IPI_MAX_IDS	256
struct irqlab_pv_ipi {
	uint32_t icr;
	uint32_t reserved;
	uint64_t dest[IRQLAB_PV_IPI_MAX_IDS / 64];
};

/*
 * The timeline (docs/ANATOMY.md): each CPU stamps the guest's part of an
 * IPI into its own ring in guest RAM, with the TSC, and no exit; the VMM
 * reads the rings when the run ends and joins them with its own stamps.
 * SEND comes before the ICR write (before ICR_HI in xAPIC mode) or the
 * doorbell, after @sends was counted up: the VMM reads @sends at the ICR
 * exit, so that exit and the stamp share @seq.  HANDLER is an interrupt's
 * first C line, EOI the moment before the EOI write (or the PV EOI flag's
 * test).  Stamps past @size are dropped (@count goes on counting).
 */
#define IRQLAB_TL_SEND		1
#define IRQLAB_TL_HANDLER	2
#define IRQLAB_TL_EOI		3
#define IRQLAB_TL_DEST_SHORT	0xffff	/* SEND: a shorthand or a set */
#define IRQLAB_TL_MAX		(1u << 20)	/* the VMM's bound on @size */
struct irqlab_tl_stamp {
	uint64_t tsc;
	uint32_t seq;		/* SEND: this CPU's @sends after counting it */
	uint8_t kind;		/* IRQLAB_TL_* */
	uint8_t vector;
	uint16_t dest;		/* SEND: the APIC ID */
};

struct irqlab_tl_ring {
	uint32_t size;		/* stamps there is room for */
	uint32_t count;		/* stamps written, dropped ones included */
	uint32_t sends;		/* IPIs this CPU sent */
	uint32_t reserved;
	struct irqlab_tl_stamp stamp[];
};

/* Guest phases: exits are counted per phase as well as in total. */
enum irqlab_phase {
	IRQLAB_PHASE_EARLY,	/* from reset until the guest marks another */
	IRQLAB_PHASE_CALIB,
	IRQLAB_PHASE_SMP,
	IRQLAB_PHASE_BENCH,
	IRQLAB_PHASE_IDLE,
	IRQLAB_NR_PHASES
};

/*
 * Exit counter classes of a snapshot, summed over all vCPUs.  The protocol's
 * own exits are counted in IRQLAB_CNT_PROTOCOL and in no other class, so a
 * guest can read the counters around an operation without disturbing them.
 */
enum irqlab_counter {
	IRQLAB_CNT_TOTAL,	/* every exit but the protocol's own */
	IRQLAB_CNT_PIO,		/* port I/O (KVM_EXIT_IO) */
	IRQLAB_CNT_MMIO,	/* KVM_EXIT_MMIO */
	IRQLAB_CNT_MSR,		/* KVM_EXIT_X86_RDMSR/WRMSR */
	IRQLAB_CNT_HLT,		/* KVM_EXIT_HLT */
	IRQLAB_CNT_IRQ_WINDOW,	/* KVM_EXIT_IRQ_WINDOW_OPEN */
	IRQLAB_CNT_KICK,	/* KVM_EXIT_INTR: the vCPU was kicked out */
	IRQLAB_CNT_OTHER,	/* any other reason */
	IRQLAB_CNT_PROTOCOL,	/* accesses to the irqlab ports themselves */
	IRQLAB_CNT_APIC,	/* local APIC register accesses (MMIO or MSR) */
	IRQLAB_CNT_APIC_SEND,	/* ICR writes (xAPIC ICR_LO/ICR_HI, x2APIC ICR) */
	IRQLAB_CNT_APIC_EOI,	/* EOI writes */
	/*
	 * Not exits: the IOAPIC's own counters, VM-wide (--irqchip=user;
	 * 0 where irqlab has no IOAPIC).  Appended, so a guest built with
	 * fewer counters still works (it sets a smaller size).
	 */
	IRQLAB_CNT_RTE_WRITES,	/* redirection-entry dword writes */
	IRQLAB_CNT_TMR_UPDATES,	/* a vCPU's level-vector set rewritten */
	IRQLAB_CNT_REMOTE_TMR_UPDATES,	/* ... of a vCPU not the writer */
	IRQLAB_NR_COUNTERS
};
/* The exit classes come first; the counters from here on are VM-wide. */
#define IRQLAB_NR_EXIT_CLASSES	IRQLAB_CNT_RTE_WRITES

/*
 * Filled by the VMM on an outl(IRQLAB_PORT_SNAPSHOT, gpa).  The guest sets
 * @size to sizeof(struct irqlab_snapshot) it was built with; the VMM writes
 * at most that many bytes and sets @count to the counters it filled.
 */
struct irqlab_snapshot {
	uint32_t size;
	uint32_t count;
	uint32_t ncpus;
	uint32_t phase;
	uint64_t counter[IRQLAB_NR_COUNTERS];
};

#endif
