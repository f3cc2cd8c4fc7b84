// SPDX-License-Identifier: MIT
/*
 * Local APIC state: reset, task and processor priority, interrupt
 * acceptance, EOI, error reporting and IA32_APIC_BASE.  The register file
 * is in lapic_regs.c, the timer in lapic_timer.c, routing in apic_bus.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lapic_internal.h"

void lapic_trace(const struct lapic *l, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!l->ops->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l->ops->trace(l->ctx, l->cpu, line);
}

bool lapic_hw_enabled(const struct lapic *l)
{
	return l->base & APIC_BASE_EN;
}

bool lapic_sw_enabled(const struct lapic *l)
{
	return lapic_hw_enabled(l) && (l->svr & APIC_SVR_ENABLE);
}

/*
 * Does this CPU take the 8259A's INTR on LINT0 as an ExtINT?
 *
 * SDM 11.4.3: with IA32_APIC_BASE[11] clear "the processor is
 * functionally equivalent to an IA-32 processor without an on-chip
 * APIC": LINT0 is then the processor's INTR pin itself, so yes (the MP
 * spec 1.4 3.6.2.1 PIC mode, and KVM's kvm_apic_accept_pic_intr()).
 * Otherwise SDM 11.5.1: only an unmasked LVT LINT0 entry with delivery
 * mode ExtINT (111b), the MP spec's virtual wire mode (3.6.2.2).  A
 * software-disabled APIC has every LVT mask bit set and cannot clear one
 * (SDM 11.4.7.2), so it takes none: nothing special is needed for it.
 * The trigger bit does not matter: "When the delivery mode is ExtINT,
 * the trigger mode is always level sensitive" (SDM 11.5.1), i.e. the
 * CPU takes INTR as long as it is high, which irqchip/extint.c does by
 * looking at the PIC's output at each chance to inject.
 */
bool lapic_lint0_extint(const struct lapic *l)
{
	uint32_t v = l->lvt[LVT_LINT0];

	if (!lapic_hw_enabled(l))
		return true;
	return !(v & APIC_LVT_MASKED) &&
	       (v & APIC_LVT_DM_MASK) == APIC_LVT_DM_EXTINT;
}

bool lapic_x2apic(const struct lapic *l)
{
	return (l->base & (APIC_BASE_EN | APIC_BASE_EXTD)) ==
	       (APIC_BASE_EN | APIC_BASE_EXTD);
}

/* SDM 11.12.2: in x2APIC mode the MMIO page behaves as a disabled APIC's */
bool lapic_mmio_enabled(const struct lapic *l)
{
	return lapic_hw_enabled(l) && !lapic_x2apic(l);
}

uint64_t lapic_base(const struct lapic *l)
{
	return l->base;
}

/* SDM 11.4.6: the xAPIC ID is bits 31:24; SDM 11.12.5.1: x2APIC ID */
uint32_t lapic_id(const struct lapic *l)
{
	return lapic_x2apic(l) ? l->apic_id : l->id >> 24;
}

/* SDM 11.12.10.2: logical x2APIC ID = cluster (ID[19:4]) << 16 | 1 << ID[3:0] */
uint32_t lapic_ldr(const struct lapic *l)
{
	if (lapic_x2apic(l))
		return ((l->apic_id >> 4) << 16) | (1u << (l->apic_id & 0xf));
	return l->ldr;
}

uint32_t lapic_tmr_word(const struct lapic *l, unsigned i)
{
	return i < 8 ? l->tmr[i] : 0;
}

/* The registers INIT and RESET both set (SDM 11.4.7.1). */
static void lapic_clear_state(struct lapic *l)
{
	unsigned i;

	lapic_timer_stop(l);
	lapic_pveoi_reset(l);
	l->tpr = 0;
	l->ldr = 0;
	l->dfr = APIC_DFR_FLAT;
	l->svr = APIC_SVR_VECTOR;	/* 0xff: software-disabled */
	l->esr = l->esr_pending = 0;
	memset(l->isr, 0, sizeof(l->isr));
	memset(l->tmr, 0, sizeof(l->tmr));
	memset(l->irr, 0, sizeof(l->irr));
	for (i = 0; i < LAPIC_NR_LVT; i++)
		l->lvt[i] = APIC_LVT_MASKED;
	l->icr_lo = l->icr_hi = 0;
	l->tmict = 0;
	l->tdcr = 0;
	l->tsc_deadline = 0;
}

void lapic_reset(struct lapic *l)
{
	lapic_clear_state(l);
	l->base = APIC_DEFAULT_BASE | APIC_BASE_EN | (l->bsp ? APIC_BASE_BSP : 0);
	l->id = l->apic_id << 24;	/* an xAPIC ID has 8 bits */
	l->arb_seq = 0;
}

/* SDM 11.4.7.3: the APIC ID and arbitration ID are not affected by INIT */
void lapic_init_reset(struct lapic *l)
{
	lapic_clear_state(l);
}

void lapic_init(struct lapic *l, int cpu, uint32_t apic_id, bool bsp,
		uint64_t timer_hz, const struct lapic_ops *ops, void *ctx)
{
	memset(l, 0, sizeof(*l));
	l->cpu = cpu;
	l->apic_id = apic_id;
	l->bsp = bsp;
	l->timer_hz = timer_hz ? timer_hz : LAPIC_DEFAULT_TIMER_HZ;
	l->ops = ops;
	l->ctx = ctx;
	l->caps.x2apic = true;
	l->caps.phys_bits = LAPIC_DEFAULT_PHYS_BITS;
	lapic_reset(l);
}

void lapic_set_caps(struct lapic *l, const struct lapic_caps *caps)
{
	l->caps = *caps;
	if (!l->caps.phys_bits || l->caps.phys_bits > LAPIC_DEFAULT_PHYS_BITS)
		l->caps.phys_bits = LAPIC_DEFAULT_PHYS_BITS;
	if (!lapic_tsc_deadline_ok(l) &&
	    (l->lvt[LVT_TIMER] & APIC_LVT_TIMER_MODE) == APIC_TIMER_TSCDEADLINE)
		lapic_timer_set_lvt(l, l->lvt[LVT_TIMER] & ~APIC_TIMER_TSCDEADLINE);
}

/*
 * SDM 11.8.3.1: PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4] << 4,
 * where ISRV is the highest in-service vector (0 if none).
 */
uint8_t lapic_ppr(const struct lapic *l)
{
	int isrv = vec_highest(l->isr);

	if (isrv < 0 || prio_class(l->tpr) >= prio_class(isrv))
		return l->tpr;
	return isrv & 0xf0;
}

/*
 * SDM 11.6.2.4 (P6 family), printed as:
 *   IF (TPR[7:4] >= IRRV[7:4]) AND (TPR[7:4] > ISRV[7:4])
 *   THEN APR[7:0] = TPR[7:0]
 *   ELSE APR[7:4] = max(TPR[7:4] AND ISRV[7:4], IRRV[7:4]), APR[3:0] = 0
 * "AND" is taken as the bitwise AND it says.
 */
uint8_t lapic_apr(const struct lapic *l)
{
	int irrv = vec_highest(l->irr), isrv = vec_highest(l->isr);
	unsigned tpr = prio_class(l->tpr);
	unsigned irr = irrv < 0 ? 0 : prio_class(irrv);
	unsigned isr = isrv < 0 ? 0 : prio_class(isrv);
	unsigned both = tpr & isr;

	if (tpr >= irr && tpr > isr)
		return l->tpr;
	return (both > irr ? both : irr) << 4;
}

int lapic_pending_vector(const struct lapic *l)
{
	int v;

	if (!lapic_hw_enabled(l))
		return -1;
	v = vec_highest(l->irr);
	/* SDM 11.8.3.1: only a class above the processor priority class */
	if (v < 0 || prio_class(v) <= prio_class(lapic_ppr(l)))
		return -1;
	return v;
}

/*
 * SDM 11.5.3: each error sets its ESR bit and, the first time since the
 * last ESR write, raises the LVT error interrupt.  An illegal error vector
 * can recurse once, through the receive-illegal bit, and then stops.
 */
void lapic_error(struct lapic *l, uint32_t esr_bits)
{
	uint32_t fresh = esr_bits & ~l->esr_pending;

	l->esr_pending |= esr_bits;
	lapic_trace(l, "error: ESR |= %#x", esr_bits);
	if (fresh)
		lapic_local_deliver(l, LVT_ERROR);
}

void lapic_send_illegal(struct lapic *l)
{
	lapic_error(l, APIC_ESR_SEND_ILLEGAL);
}

/* SDM 11.5.1: a local source fires through its LVT entry.  The timer and
 * error LVTs have no delivery-mode field: their interrupts are fixed. */
void lapic_local_deliver(struct lapic *l, unsigned lvt)
{
	uint32_t v = l->lvt[lvt];

	if (v & APIC_LVT_MASKED)
		return;
	lapic_accept(l, v & APIC_LVT_VECTOR, false);
}

/*
 * SDM 11.8.4: accepted into IRR; TMR set for level, cleared for edge.
 * A hardware-disabled APIC has no interrupts at all.  A software-disabled
 * one accepts only INIT, NMI, SMI and start-up (SDM 11.4.7.2), which the
 * machine handles: fixed interrupts are dropped, as KVM does.  A vector
 * below 16 is illegal (SDM 11.5.2): ESR bit 6, not delivered.
 */
void lapic_accept(struct lapic *l, uint8_t vector, bool level)
{
	if (!lapic_sw_enabled(l)) {
		lapic_trace(l, "accept %#x: dropped, APIC %s-disabled", vector,
			    lapic_hw_enabled(l) ? "software" : "hardware");
		return;
	}
	if (vector < 16) {
		lapic_error(l, APIC_ESR_RECV_ILLEGAL);
		return;
	}
	vec_set(l->irr, vector);
	if (level)
		vec_set(l->tmr, vector);
	else
		vec_clear(l->tmr, vector);
	lapic_trace(l, "accept %#x %s", vector, level ? "level" : "edge");
}

void lapic_ack(struct lapic *l, uint8_t vector)
{
	lapic_pveoi_sync(l);	/* a lazy EOI first: the ISR must be true */
	if (!vec_test(l->irr, vector))
		return;
	vec_clear(l->irr, vector);
	vec_set(l->isr, vector);
	lapic_trace(l, "ack %#x: PPR %#x", vector, lapic_ppr(l));
}

/*
 * SDM 11.8.5: EOI retires the highest in-service vector.  If its TMR bit
 * is set the EOI is broadcast to the IOAPICs (SVR bit 12, suppression, is
 * not offered: APIC_LVR_VALUE has bit 24 clear).
 */
void lapic_eoi(struct lapic *l)
{
	int v = vec_highest(l->isr);

	if (v < 0)
		return;
	vec_clear(l->isr, v);
	lapic_trace(l, "EOI %#x%s", v, vec_test(l->tmr, v) ? " level" : "");
	if (vec_test(l->tmr, v) && l->ops->eoi_level)
		l->ops->eoi_level(l->ctx, l->cpu, v);
}

void lapic_set_tpr(struct lapic *l, uint32_t tpr)
{
	l->tpr = tpr & 0xff;
}

/*
 * SDM 11.8.6.1, "Interaction of Task Priorities between CR8 and APIC":
 * CR8[3:0] is TPR[7:4]; a MOV to CR8 writes TPR[7:4] and clears TPR[3:0],
 * and a read of CR8 gives TPR[7:4].  CR8[63:4] are reserved (a MOV that
 * sets them #GPs in the CPU, before the APIC sees it).
 */
uint8_t lapic_cr8(const struct lapic *l)
{
	return l->tpr >> 4;
}

void lapic_set_cr8(struct lapic *l, uint64_t cr8)
{
	lapic_trace(l, "CR8 = %#llx: TPR %#x", (unsigned long long)(cr8 & 0xf),
		    (unsigned)(cr8 & 0xf) << 4);
	lapic_set_tpr(l, (cr8 & 0xf) << 4);
}

/*
 * SDM 11.9: vector, APIC enable (bit 8) and focus checking (bit 9, kept
 * but without effect: there is no focus processor).  SDM 11.4.7.2:
 * software-disabling sets every LVT mask bit; re-enabling clears none.
 */
void lapic_set_svr(struct lapic *l, uint32_t svr)
{
	bool was = l->svr & APIC_SVR_ENABLE;
	unsigned i;

	if (was && !(svr & APIC_SVR_ENABLE))
		lapic_timer_catch_up(l);	/* before the masks go on */
	l->svr = svr & (APIC_SVR_VECTOR | APIC_SVR_ENABLE | APIC_SVR_FOCUS_DISABLE);
	if (was && !(l->svr & APIC_SVR_ENABLE))
		for (i = 0; i < LAPIC_NR_LVT; i++)
			l->lvt[i] |= APIC_LVT_MASKED;
}

/*
 * IA32_APIC_BASE (SDM 11.4.4) and the mode transitions of SDM 11.12.5:
 * disabled <-> xAPIC -> x2APIC -> disabled.  #GP for reserved bits
 * (including EXTD without x2APIC support), for EN=0 with EXTD=1, for
 * x2APIC -> xAPIC and for disabled -> x2APIC.  The BSP flag is read-only.
 * Clearing EN loses the APIC's state (SDM 11.4.3): it returns to the
 * power-up state, with the initial APIC ID, and re-enabling finds it so.
 */
int lapic_base_write(struct lapic *l, uint64_t val)
{
	uint64_t addr = APIC_BASE_ADDR_MASK & ((1ull << l->caps.phys_bits) - 1);
	uint64_t ok = APIC_BASE_BSP | APIC_BASE_EN | addr;
	bool en = val & APIC_BASE_EN, extd = val & APIC_BASE_EXTD;
	bool was_en = lapic_hw_enabled(l), was_x2 = lapic_x2apic(l);

	if (l->caps.x2apic)
		ok |= APIC_BASE_EXTD;
	if ((val & ~ok) || (!en && extd) || (was_x2 && en && !extd) ||
	    (!was_en && en && extd)) {
		lapic_trace(l, "#GP: IA32_APIC_BASE %#llx -> %#llx",
			    (unsigned long long)l->base, (unsigned long long)val);
		return -1;
	}
	l->base = (val & ~APIC_BASE_BSP) | (l->bsp ? APIC_BASE_BSP : 0);
	if (was_en && !en) {
		lapic_clear_state(l);
		l->id = l->apic_id << 24;
	}
	lapic_trace(l, "IA32_APIC_BASE = %#llx (%s)", (unsigned long long)l->base,
		    !en ? "disabled" : extd ? "x2APIC" : "xAPIC");
	return 0;
}
