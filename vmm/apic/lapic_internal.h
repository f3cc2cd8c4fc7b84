/* SPDX-License-Identifier: MIT */
/* Inside the local APIC model: what lapic*.c and apic_bus.c tell each other. */
#ifndef VMM_LAPIC_INTERNAL_H
#define VMM_LAPIC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/apic.h"
#include "lapic.h"

/* LVT index: the order of the 0x10-spaced LVT registers after CMCI */
enum {
	LVT_CMCI,
	LVT_TIMER,
	LVT_THERM,
	LVT_PERF,
	LVT_LINT0,
	LVT_LINT1,
	LVT_ERROR,
};

/* x2APIC ICR: must-be-zero bits (SDM 11.12.9; bit 12, busy, is ignored) */
#define X2APIC_ICR_RESERVED	(0xfff00000u | (3u << 16) | (1u << 13))
/* the ICR low bits that exist: all but busy (read-only) and the reserved */
#define APIC_ICR_LO_MASK	(APIC_ICR_VECTOR | APIC_ICR_DM_MASK | \
				 APIC_ICR_LOGICAL | APIC_ICR_ASSERT | \
				 APIC_ICR_LEVEL | APIC_ICR_DEST_MASK)

/* 256-bit vector registers (IRR, ISR, TMR) as 8 words of 32 (SDM 11.8.4) */
static inline bool vec_test(const uint32_t *r, unsigned v)
{
	return r[v >> 5] & (1u << (v & 31));
}

static inline void vec_set(uint32_t *r, unsigned v)
{
	r[v >> 5] |= 1u << (v & 31);
}

static inline void vec_clear(uint32_t *r, unsigned v)
{
	r[v >> 5] &= ~(1u << (v & 31));
}

/* the highest vector set, or -1 */
static inline int vec_highest(const uint32_t *r)
{
	int i;

	for (i = 7; i >= 0; i--)
		if (r[i])
			return i * 32 + 31 - __builtin_clz(r[i]);
	return -1;
}

/* priority class: vector bits 7:4 (SDM 11.8.3) */
static inline unsigned prio_class(unsigned v)
{
	return (v >> 4) & 0xf;
}

/* lapic.c */
void lapic_error(struct lapic *l, uint32_t esr_bits);
void lapic_local_deliver(struct lapic *l, unsigned lvt);
void lapic_eoi(struct lapic *l);
void lapic_set_tpr(struct lapic *l, uint32_t tpr);
void lapic_set_svr(struct lapic *l, uint32_t svr);
int lapic_base_write(struct lapic *l, uint64_t val);
void lapic_trace(const struct lapic *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* lapic_pveoi.c */
void lapic_pveoi_reset(struct lapic *l);

/* lapic_timer.c */
bool lapic_tsc_deadline_ok(const struct lapic *l);
uint32_t lapic_timer_lvt_mask(const struct lapic *l);
void lapic_timer_stop(struct lapic *l);
void lapic_timer_catch_up(struct lapic *l);	/* a due expiry, before a write */
void lapic_timer_set_lvt(struct lapic *l, uint32_t val);
void lapic_timer_set_tmict(struct lapic *l, uint32_t val);
void lapic_timer_set_tdcr(struct lapic *l, uint32_t val);
uint32_t lapic_timer_tmcct(const struct lapic *l);
uint64_t lapic_tsc_deadline_read(const struct lapic *l);
void lapic_tsc_deadline_write(struct lapic *l, uint64_t val);

#endif
