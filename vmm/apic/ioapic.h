/* SPDX-License-Identifier: MIT */
/*
 * The I/O APIC (Intel 82093AA datasheet, version 0x20 with the EOI
 * register) as a pure state machine: 24 input pins, a redirection table,
 * and interrupt messages out through struct ioapic_ops.  It makes no KVM
 * call, starts no thread and reads no clock.  The caller serialises all
 * calls on one struct ioapic.  docs/IOAPIC.md says what is modelled.
 *
 * The point of the model is the write classification: a redirection
 * write costs cross-vCPU work (a TMR update of another vCPU) only when it
 * moves a level-triggered vector between TMRs, and then only for the
 * vCPUs and TMR bits it moves.  IOAPIC_NAIVE reproduces the
 * rendezvous-on-every-change policy instead.
 */
#ifndef VMM_IOAPIC_H
#define VMM_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "lapic.h"

#define IOAPIC_NR_PINS		24
#define IOAPIC_VERSION		0x20
#define IOAPIC_MAX_CPUS		64	/* as VMM_MAX_CPUS: one uint64_t mask */

enum ioapic_policy {
	IOAPIC_OPTIMIZED,	/* cross-vCPU work only for TMR moves */
	IOAPIC_NAIVE,		/* every change: rendezvous, rebuild all TMRs */
};

struct ioapic_ops {
	/*
	 * Send one message on the APIC bus: route it with apic_route(cpus,
	 * n, -1, msg, mask) and give fixed and lowest-priority ones to
	 * lapic_accept(l, msg->vector, msg->level).  Returns the number of
	 * local APICs that took it; a level message that no one took leaves
	 * remote IRR clear.
	 */
	int (*deliver)(void *ctx, const struct lapic_ipi *msg);
	/*
	 * The vCPUs an 8-bit destination names (physical or logical), as a
	 * bit per vCPU index: apic_route() of a fixed message without the
	 * lowest-priority narrowing.  Used for the TMR sets, never for
	 * delivery.
	 */
	uint64_t (*dest_mask)(void *ctx, uint32_t dest, bool logical);
	/*
	 * Optional.  @cpu's set of IOAPIC level-triggered vectors changed
	 * (the model keeps every set, ioapic_tmr_word()): @tmr is the
	 * whole new 256-bit set (8 words, as the LAPIC's TMR).  The machine
	 * records it for @cpu (KVM: its EOI-exit bitmap; irqlab's LAPIC: the
	 * vectors whose EOI reaches ioapic_eoi()).  Where the set is loaded
	 * at VM entry (an EOI-exit bitmap), the machine also forces @cpu out
	 * of the guest; irqlab's user irqchip reads it at each PIR fold and
	 * needs no more.  NULL: the machine keeps no set of its own (split
	 * irqchip: KVM builds its bitmaps from the GSI routes).  Either way
	 * each update is counted in tmr_updates, and in remote_tmr_updates
	 * when @cpu is not the vCPU that made the write.
	 */
	void (*tmr_update)(void *ctx, unsigned cpu, const uint32_t *tmr);
	/*
	 * Optional, IOAPIC_NAIVE only: stop every vCPU but @src (-1: none is
	 * writing) until the TMR rebuild that follows is done, as bhyve's
	 * vm_smp_rendezvous().  The model then calls tmr_update for every
	 * vCPU: n - 1 (or n) of them remote.  Counted in rendezvous even when
	 * NULL: the machine's own rebuild stops the vCPUs (split irqchip: a
	 * route commit).
	 */
	void (*rendezvous)(void *ctx, int src);
	/* Optional: one decoded event, for --trace=ioapic */
	void (*trace)(void *ctx, const char *line);
};

struct ioapic_stats {
	uint64_t rte_writes;	/* IOWIN writes to a redirection dword */
	uint64_t rte_unchanged;	/* ... that left the entry as it was */
	uint64_t tmr_updates;	/* ops->tmr_update calls */
	uint64_t remote_tmr_updates;	/* ... for a vCPU not the writer */
	uint64_t rendezvous;	/* IOAPIC_NAIVE: all-vCPU stops */
	uint64_t deliveries;	/* messages sent through ops->deliver */
	uint64_t eois;		/* ioapic_eoi() calls, EOIR writes included */
	uint64_t bad_accesses;	/* bad width/offset, bad index, bad pin */
};

struct ioapic_pin {
	uint64_t rte;		/* the entry as it reads, RO bits included */
	bool level;		/* the input line is asserted */
	/* the TMR route this pin contributes (see ioapic.c) */
	bool tmr_valid;
	uint8_t tmr_vector;
	uint64_t tmr_cpus;
};

struct ioapic {
	const struct ioapic_ops *ops;
	void *ctx;
	unsigned ncpus;
	enum ioapic_policy policy;

	uint32_t id;			/* ID register, bits 27:24 */
	uint32_t regsel;		/* IOREGSEL, bits 7:0 */
	struct ioapic_pin pin[IOAPIC_NR_PINS];
	/* the level vector set of each vCPU, as last given to tmr_update */
	uint32_t tmr[IOAPIC_MAX_CPUS][8];

	struct ioapic_stats stats;
};

/* Power-on state: every entry masked, edge, vector 0; ID @id (4 bits).
 * 0, or -1 if @ncpus is 0 or above IOAPIC_MAX_CPUS. */
int ioapic_init(struct ioapic *io, unsigned ncpus, uint8_t id,
		enum ioapic_policy policy, const struct ioapic_ops *ops,
		void *ctx);

/*
 * MMIO, @off from the base, within IOAPIC_MMIO_SIZE.  Only aligned 32-bit
 * accesses to IOREGSEL, IOWIN and (writes) EOIR are decoded; any other
 * access returns -1, is counted in bad_accesses, and a read gives 0.
 * @src is the vCPU making the access (-1: none): a TMR update of any
 * other vCPU is remote.
 */
int ioapic_mmio_read(struct ioapic *io, uint32_t off, unsigned size,
		     uint32_t *val);
int ioapic_mmio_write(struct ioapic *io, int src, uint32_t off,
		      unsigned size, uint32_t val);

/* struct bus_dev callbacks over the two above (@opaque: the ioapic) */
uint64_t ioapic_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void ioapic_bus_write(void *opaque, uint64_t off, unsigned size,
		      uint64_t val, int cpu);

/* The indirect registers by index (IOREGSEL values); -1 for a bad one. */
int ioapic_reg_read(struct ioapic *io, uint32_t index, uint32_t *val);
int ioapic_reg_write(struct ioapic *io, int src, uint32_t index,
		     uint32_t val);

/*
 * Input pin @pin is now asserted (@level non-zero) or not.  @level is the
 * logical state: the polarity bit is kept but not applied, as in KVM and
 * QEMU (the devices present active-high lines).  -1 for a bad pin.
 */
int ioapic_set_irq(struct ioapic *io, unsigned pin, int level);
/* A LAPIC EOI of a level vector (lapic_ops.eoi_level), or an EOIR write. */
void ioapic_eoi(struct ioapic *io, uint8_t vector);

uint64_t ioapic_rte(const struct ioapic *io, unsigned pin);	/* 0 if bad */
/* @cpu's level-vector set word @i (0..7), as last sent to tmr_update */
uint32_t ioapic_tmr_word(const struct ioapic *io, unsigned cpu, unsigned i);
const char *ioapic_policy_name(enum ioapic_policy p);
/* "naive" or "optimized" (also "opt"); 0, or -1 for anything else */
int ioapic_policy_parse(const char *s, enum ioapic_policy *p);

#endif
