/* SPDX-License-Identifier: MIT */
/*
 * What the check=lapic parts share (lapic_check_*.c): time by the TSC,
 * waits bounded by it (a lost interrupt is a failed step, not a hung
 * boot), the IRR and ISR bits, CR8, and what a step needs to tell a host
 * limit (LC_HOST, lapic_check.h) from a fault: the exits irqlab-vmm
 * counted (the port protocol's snapshots, docs/PROTOCOL.md) and whose
 * local APIC the guest is talking to.
 */
#ifndef KERNEL_LAPIC_CHECK_UTIL_H
#define KERNEL_LAPIC_CHECK_UTIL_H

#include <stdint.h>

#define GP_VECTOR	13	/* #GP (SDM vol. 3 sec. 6.15) */

/* TSC ticks in @us microseconds: calibration's rate, else 1 GHz. */
uint64_t lc_us_to_tsc(uint64_t us);
/* Microseconds in @tsc ticks (0 if the TSC rate is unknown: for lines). */
uint64_t lc_tsc_us(uint64_t tsc);

/*
 * Wait until *@v >= @want or @us pass, by the TSC: 0, or -1 after the
 * bound.  lc_wait_ge() leaves interrupts as they are (without a TSC rate
 * it counts 100 PAUSEs a microsecond); lc_wait_ge_sti() takes them while
 * it waits and leaves them off (without a rate: lc_us_to_tsc()'s 1 GHz).
 */
int lc_wait_ge(const volatile uint32_t *v, uint32_t want, uint64_t us);
int lc_wait_ge_sti(const volatile uint32_t *v, uint32_t want, uint64_t us);
/* Let @us pass: as lc_wait_ge(), or taking interrupts as lc_wait_ge_sti(). */
void lc_delay_us(uint64_t us);
void lc_delay_us_sti(uint64_t us);

/* @vec's bit in this CPU's IRR / ISR (SDM 11.8.4) */
int lc_irr(unsigned vec);
int lc_isr(unsigned vec);

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
	LC_APIC_UNKNOWN,	/* not under irqlab-vmm (QEMU): nobody says */
	LC_APIC_IRQLAB,		/* a LAPIC read exited to irqlab-vmm */
	LC_APIC_HOST,		/* it did not: the LAPIC is KVM's (split,
				 * kernel irqchip) */
};

/*
 * Whose LAPIC: one TPR read between two snapshots, once per boot, while
 * the APIC is as the boot left it (a part may move or disable it later);
 * each part asks first (lc_part_start), before it takes snapshots.
 */
enum lc_apic_owner lc_apic_owner(void);
/* "irqlab-vmm's", "KVM's" or "unknown", for the lines */
const char *lc_apic_owner_name(void);

/* One delivery as a tpr or window handler saw it (lc_hit). */
struct lc_hit {
	unsigned vec;
	uint64_t rip, tsc;		/* where it came; when (RDTSC) */
	struct lc_exits in;		/* irqlab-vmm's exits at entry */
	struct lc_exits out;		/* after the EOI (@out_too only) */
};

struct trap_frame;

/*
 * A handler's whole work: the first @max deliveries go in @hits, in
 * order; the EOI; then *@n counts this one (release), so that whoever
 * waits on *@n (lc_wait_ge) finds its record complete.
 */
void lc_hit(const struct trap_frame *tf, struct lc_hit *hits, unsigned max,
	    uint32_t *n, int out_too);

/*
 * A part's start: 0 where there is no local APIC, after the part's one
 * line "all: SKIPPED: no local APIC"; else 1, with lc_apic_owner()
 * probed (by the first part: before its steps move the counters, while
 * the APIC is as the boot left it).
 */
int lc_part_start(const char *part);

/*
 * One step of a rule: LC_OK if @good; else LC_HOST where the LAPIC is
 * KVM's (LC_APIC_HOST: the rule is KVM's to keep, not irqlab's), LC_FAIL
 * everywhere else.  @fmt says what was seen.
 */
void lc_rule(const char *part, const char *step, int good,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
