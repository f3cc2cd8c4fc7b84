/* SPDX-License-Identifier: MIT */
/*
 * The local APIC (Intel SDM vol. 3A, chapter 11) as a pure state machine:
 * one struct lapic per vCPU, driven by register accesses and interrupt
 * messages.  It talks to the machine only through struct lapic_ops: it
 * makes no KVM call, starts no thread and reads no clock but ops->now_ns
 * and ops->tsc.  The caller serialises the calls on one struct lapic, and
 * apic_route() against all of them.  docs/LAPIC.md says what is modelled.
 *
 * This header is the model's, in three files along the seams of the
 * chapter:
 *
 *   lapic.c        state, priorities, acceptance, EOI, errors, IA32_APIC_BASE
 *   lapic_regs.c   the register file: xAPIC MMIO and x2APIC MSR decode, ICR
 *   lapic_timer.c  the APIC timer: one-shot, periodic, TSC-deadline
 *   lapic_pveoi.c  paravirtual EOI: a flag in guest memory (not the SDM's)
 *
 * and beside it apic_bus.h (destinations and lowest-priority arbitration
 * over all the LAPICs) and lapic_dump.h (the register page in text).
 */
#ifndef VMM_LAPIC_H
#define VMM_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* LVTs: CMCI, timer, thermal, perf, LINT0, LINT1, error */
#define LAPIC_NR_LVT		7
/* the timer input clock of --apic-mhz 1000, as KVM's in-kernel APIC */
#define LAPIC_DEFAULT_TIMER_HZ	1000000000ull
#define LAPIC_DEFAULT_PHYS_BITS	52

/* One interrupt message on the APIC bus. */
struct lapic_ipi {
	uint8_t vector;
	uint32_t delivery;		/* APIC_ICR_DM_* */
	bool logical;			/* destination mode */
	bool level, assert;		/* trigger mode, level */
	uint32_t shorthand;		/* APIC_ICR_DEST_* */
	uint32_t dest;			/* 8-bit xAPIC or 32-bit x2APIC */
};

struct lapic_ops {
	/* host monotonic time, ns */
	uint64_t (*now_ns)(void *ctx);
	/* the absolute host deadline of @cpu's timer; 0 cancels it */
	void (*timer_arm)(void *ctx, int cpu, uint64_t deadline_ns);
	/*
	 * An ICR or SELF IPI write: route it with apic_route() and deliver
	 * it.  ICR messages are edge-triggered: accept fixed and lowest-
	 * priority ones with lapic_accept(l, vector, false).
	 */
	void (*send_ipi)(void *ctx, int cpu, const struct lapic_ipi *ipi);
	/* EOI of a vector whose TMR bit was set: tell the IOAPICs */
	void (*eoi_level)(void *ctx, int cpu, uint8_t vector);
	/* optional: one decoded event, for --trace=lapic */
	void (*trace)(void *ctx, int cpu, const char *line);
	/* optional: the guest TSC now, for TSC-deadline mode */
	uint64_t (*tsc)(void *ctx);
};

/* What the machine's CPUID promises; lapic_init() sets the defaults. */
struct lapic_caps {
	/* CPUID.1:ECX[21]: IA32_APIC_BASE.EXTD may be set (default: yes) */
	bool x2apic;
	/* non-zero, with ops->tsc: TSC-deadline mode, CPUID.1:ECX[24] */
	uint64_t tsc_khz;
	/* MAXPHYADDR of the guest's CPUID (CPUID.80000008H:EAX[7:0]): the
	 * IA32_APIC_BASE bits at and above it are reserved (0: 52) */
	unsigned phys_bits;
};

/*
 * Paravirtual EOI (lapic_pveoi.c, docs/LAPIC.md): a 32-bit word of guest
 * memory the guest registered, of which the model owns bit 0.  Only the
 * model's own set (arm) and clear (sync) mean anything: what the guest
 * writes there is read once, at the sync after an arm, and only bit 0.
 */
#define LAPIC_PVEOI_FLAG	1u

struct lapic_pveoi {
	uint32_t *word;			/* the guest's word, host address; NULL: off */
	bool armed;			/* bit 0 set by the model, not yet synced */
	uint8_t vector;			/* the one in service when armed */
	uint64_t arms;			/* times the flag was set */
	uint64_t lazy;			/* ... and the guest's EOI taken from it */
	uint64_t cancels;		/* ... and taken back (no EOI by the guest) */
};

struct lapic {
	int cpu;
	uint32_t apic_id;		/* initial APIC ID; the x2APIC ID */
	bool bsp;
	uint64_t timer_hz;		/* the timer's input clock, before TDCR */
	const struct lapic_ops *ops;
	void *ctx;
	struct lapic_caps caps;

	uint64_t base;			/* IA32_APIC_BASE */
	uint32_t id;			/* xAPIC ID register: ID in 31:24 */
	uint32_t tpr, ldr, dfr, svr;
	uint32_t esr;			/* what ESR reads: the last latch */
	uint32_t esr_pending;		/* errors since the last ESR write */
	uint32_t isr[8], tmr[8], irr[8];
	uint32_t lvt[LAPIC_NR_LVT];
	uint32_t icr_lo, icr_hi;	/* x2APIC: icr_hi is the 32-bit destination */
	uint32_t tmict, tdcr;

	/* The timer counts in no background: TMCCT is computed from now_ns. */
	bool timer_running;		/* one-shot or periodic count in progress */
	uint64_t timer_start_ns;	/* when the count was (re)loaded */
	uint64_t timer_periods;		/* periods completed (periodic mode) */
	uint64_t timer_deadline_ns;	/* host deadline armed, 0 if none */
	uint64_t tsc_deadline;		/* IA32_TSC_DEADLINE, 0 if disarmed */

	uint64_t arb_seq;		/* last lowest-priority win, 0: never */
	struct lapic_pveoi pveoi;
};

/* @timer_hz 0 means LAPIC_DEFAULT_TIMER_HZ.  Ends in the power-on state. */
void lapic_init(struct lapic *l, int cpu, uint32_t apic_id, bool bsp,
		uint64_t timer_hz, const struct lapic_ops *ops, void *ctx);
void lapic_set_caps(struct lapic *l, const struct lapic_caps *caps);
/* Power-up or RESET (SDM 11.4.7.1): xAPIC mode at the default base. */
void lapic_reset(struct lapic *l);
/* An INIT (SDM 11.4.7.3): as RESET, but the APIC ID, IA32_APIC_BASE and
 * so the xAPIC/x2APIC mode are kept (SDM 11.12.5.1). */
void lapic_init_reset(struct lapic *l);

/*
 * Register access.  0, or -1: the access #GPs (MSRs), or is ignored (MMIO:
 * a read then gives 0, or all-ones when the page is not decoded).  MMIO
 * @off is from the base; writes must be 32-bit and 16-byte aligned.
 */
int lapic_mmio_read(struct lapic *l, uint32_t off, unsigned size, uint32_t *val);
int lapic_mmio_write(struct lapic *l, uint32_t off, unsigned size, uint32_t val);
/* IA32_APIC_BASE (0x1b), IA32_TSC_DEADLINE (0x6e0), x2APIC 0x800-0x8ff */
int lapic_msr_read(struct lapic *l, uint32_t msr, uint64_t *val);
int lapic_msr_write(struct lapic *l, uint32_t msr, uint64_t val);
uint64_t lapic_base(const struct lapic *l);
bool lapic_hw_enabled(const struct lapic *l);	/* IA32_APIC_BASE.EN */
bool lapic_sw_enabled(const struct lapic *l);	/* and SVR bit 8 */
bool lapic_mmio_enabled(const struct lapic *l);	/* xAPIC mode: page live */
bool lapic_x2apic(const struct lapic *l);
/* LINT0 takes the 8259A's INTR as ExtINT: hardware-disabled, or LVT
 * LINT0 unmasked with delivery mode ExtINT (lapic.c) */
bool lapic_lint0_extint(const struct lapic *l);
uint32_t lapic_id(const struct lapic *l);	/* 8-bit xAPIC or 32-bit x2APIC ID */
uint32_t lapic_ldr(const struct lapic *l);	/* x2APIC: the derived LDR */

/* Interrupt flow */
/* A fixed or lowest-priority interrupt arrives: IRR, and TMR if @level. */
void lapic_accept(struct lapic *l, uint8_t vector, bool level);
/* The highest IRR vector whose class is above the PPR class, else -1. */
int lapic_pending_vector(const struct lapic *l);
/* @vector was injected: IRR -> ISR. */
void lapic_ack(struct lapic *l, uint8_t vector);
/* SDM 11.8.6.1: CR8 is TPR[7:4]; a MOV to CR8 clears TPR[3:0] */
uint8_t lapic_cr8(const struct lapic *l);
void lapic_set_cr8(struct lapic *l, uint64_t cr8);
uint8_t lapic_ppr(const struct lapic *l);
uint8_t lapic_apr(const struct lapic *l);
uint32_t lapic_tmr_word(const struct lapic *l, unsigned i);
/* SDM 11.5.3: a send with an illegal vector (ESR bit 5), as an ICR write
 * with a fixed vector below 16 makes; for the PV IPI doorbell */
void lapic_send_illegal(struct lapic *l);
/* The host timer armed through ops->timer_arm fired. */
void lapic_timer_expired(struct lapic *l);

/*
 * PV EOI (lapic_pveoi.c).  The word is guest memory: the guest, on its own
 * vCPU, clears bit 0 with a locked instruction instead of writing the EOI
 * register; the model reads and writes it only while that vCPU is out of
 * the guest.  @word must be 4-byte aligned host memory, or NULL to stop.
 */
void lapic_pveoi_register(struct lapic *l, uint32_t *word);
/* Before entering the guest: set the flag if an EOI now would only clear
 * the one ISR bit (true: armed). */
bool lapic_pveoi_arm(struct lapic *l);
/* The model's look, after an exit and before an injection: take back the
 * flag, and if the guest cleared it, do its EOI. */
void lapic_pveoi_sync(struct lapic *l);

/* State dumps (--timeout): the register page, as KVM_GET_LAPIC's
 * (lapic_dump.h prints one) */
#define LAPIC_PAGE_SIZE	0x400
void lapic_regs_page(const struct lapic *l, uint8_t page[LAPIC_PAGE_SIZE]);

#endif
