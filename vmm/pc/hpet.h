/* SPDX-License-Identifier: MIT */
/*
 * The High Precision Event Timer (IA-PC HPET specification 1.0a), as a
 * pure state machine: a 64-bit main counter at HPET_HZ computed from
 * ops->now_ns, three comparators, one-shot or periodic, 64- or 32-bit,
 * edge or level, routed to an IOAPIC input or, with legacy replacement
 * (2.3.5), timer 0 to ISA IRQ0 and timer 1 to IRQ8.  For the next match
 * of any timer the model asks for one host timer (ops->timer_arm); the
 * machine calls hpet_timer_expired() when it fires.  No FSB (MSI)
 * delivery.  The caller serialises the calls.
 */
#ifndef VMM_HPET_H
#define VMM_HPET_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/hpet.h"

#define HPET_TIMERS	3
#define HPET_HZ		100000000ull	/* 10 ns a tick (2.3.4: <= 100 ns) */
#define HPET_PERIOD_FS	10000000ull
/* the IOAPIC inputs each timer may be routed to (Tn_INT_ROUTE_CAP) */
#define HPET_ROUTE_CAP	0x00f00000u	/* GSI 20-23 */

struct hpet_ops {
	uint64_t (*now_ns)(void *ctx);		/* host monotonic time */
	/* IOAPIC input @gsi (routed timers) */
	void (*set_gsi)(void *ctx, unsigned gsi, int level);
	/* ISA line @irq (legacy replacement: 0 for timer 0, 8 for timer 1) */
	void (*set_isa)(void *ctx, unsigned irq, int level);
	/* legacy replacement on or off: the 8254's IRQ0 and the RTC's IRQ8
	 * are cut off while it is on (2.3.5 LEG_RT_CNF) */
	void (*legacy)(void *ctx, bool on);
	/* absolute host deadline for hpet_timer_expired(); 0 cancels */
	void (*timer_arm)(void *ctx, uint64_t deadline_ns);
};

struct hpet_timer {
	uint64_t conf;		/* Tn_CONF_CAP as the guest sees it */
	uint64_t cmp;		/* the comparator */
	uint64_t period;	/* periodic: added to cmp at each match */
	bool due_valid;		/* a match is coming */
	uint64_t due;		/* the main counter's value at it */
	uint64_t from;		/* the counter's value when it was planned */
	int line;		/* where its level line is asserted, -1: none */
	bool line_isa;
};

struct hpet_stats {
	uint64_t irqs[HPET_TIMERS];	/* interrupts raised (edges, levels) */
	uint64_t coalesced[HPET_TIMERS];	/* periodic matches merged */
	uint64_t timer_arms;
	uint64_t bad_accesses;	/* not 4 or 8 bytes, misaligned, past the block */
};

struct hpet {
	const struct hpet_ops *ops;
	void *ctx;
	uint64_t conf;		/* General Configuration */
	uint64_t isr;		/* General Interrupt Status */
	uint64_t base_cnt;	/* the counter at base_ns, or halted at */
	uint64_t base_ns;
	struct hpet_timer t[HPET_TIMERS];
	uint64_t deadline;	/* host timer armed for, 0: none */
	struct hpet_stats stats;
};

/* Reset: counter halted at 0, every timer disabled, comparators all ones */
void hpet_init(struct hpet *h, const struct hpet_ops *ops, void *ctx);
/* GCAP_ID (2.3.4): the ACPI table's Event Timer Block ID is its low half */
uint64_t hpet_cap_id(void);
/* The main counter now */
uint64_t hpet_counter(struct hpet *h);
/* The host timer fired: every match due is raised, the next is armed */
void hpet_timer_expired(struct hpet *h);

/* struct bus_dev callbacks at HPET_BASE: 4- and 8-byte accesses,
 * naturally aligned; anything else reads all ones and is counted */
uint64_t hpet_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void hpet_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu);

#endif
