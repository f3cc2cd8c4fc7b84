/* SPDX-License-Identifier: MIT */
/*
 * What the tpr, nmi and window parts of check=lapic need to tell a host
 * limit (LC_HOST, lapic_check.h) from a fault: time by the TSC, the exits
 * irqlab-vmm counted (the port protocol's snapshots, docs/PROTOCOL.md),
 * and whose local APIC the guest is talking to.
 */
#ifndef KERNEL_LAPIC_CHECK_HOST_H
#define KERNEL_LAPIC_CHECK_HOST_H

#include <stdint.h>

/* irqlab-vmm's exit counters at one moment (docs/PROTOCOL.md). */
struct lc_exits {
	int valid;		/* 0: not under irqlab-vmm, nothing counted */
	uint64_t all;		/* every exit, the protocol's too */
	uint64_t total;		/* every exit but the protocol's own */
	uint64_t irq_window;	/* KVM_EXIT_IRQ_WINDOW_OPEN */
	uint64_t apic;		/* LAPIC register exits (user irqchip) */
};

/*
 * Take one snapshot: a protocol exit, which no counter here counts (but
 * at which irqlab-vmm may deliver, as at any exit).  Handlers may too.
 */
void lc_exits_now(struct lc_exits *e);

/*
 * 1 if @at was taken right after the first exit (of any kind, on any
 * vCPU) that followed the snapshot @before: irqlab-vmm counted nothing in
 * between.  A handler's snapshot that says so shows that its interrupt
 * came at irqlab-vmm's first chance to deliver it.
 */
int lc_first_exit(const struct lc_exits *before, const struct lc_exits *at);
/* What that exit was: "an interrupt-window exit", "a protocol exit"... */
const char *lc_exit_kind(const struct lc_exits *before,
			 const struct lc_exits *at);

enum lc_apic_owner {
	LC_APIC_UNKNOWN,	/* not under irqlab-vmm: nobody says */
	LC_APIC_IRQLAB,		/* a LAPIC read exited to irqlab-vmm */
	LC_APIC_HOST,		/* it did not: the LAPIC is KVM's */
};

/* Whose LAPIC: one TPR read between two snapshots, once per boot; each
 * part asks first, before it takes snapshots of its own. */
enum lc_apic_owner lc_apic_owner(void);
/* "irqlab-vmm's", "KVM's" or "unknown", for the lines */
const char *lc_apic_owner_name(void);

/* Microseconds in @tsc ticks (0 if the TSC rate is unknown). */
uint64_t lc_tsc_us(uint64_t tsc);
/*
 * Wait until *@v >= @want or @us pass (by the TSC; without its rate, a
 * PAUSE loop of 100 * @us iterations), with interrupts as they are.
 * 0, or -1 after the bound.
 */
int lc_wait_ge(const volatile uint32_t *v, uint32_t want, unsigned us);
/* Let @us pass, with interrupts as they are. */
void lc_delay_us(unsigned us);

/* A decimal "key=N" from the command line in [@lo, @hi], else @def. */
unsigned lc_cmdline_uint(const char *key, unsigned def, unsigned lo,
			 unsigned hi);

/* CR8, the TPR's alias in 64-bit mode (SDM vol. 3A 11.8.6) */
static inline uint64_t lc_read_cr8(void)
{
	uint64_t v;

	asm volatile("mov %%cr8, %0" : "=r"(v));
	return v;
}

static inline void lc_write_cr8(uint64_t v)
{
	asm volatile("mov %0, %%cr8" : : "r"(v) : "memory");
}

/* Is @vec set in this CPU's IRR (8 registers of 32 vectors)? */
int lc_irr_has(unsigned vec);

#endif
