// SPDX-License-Identifier: MIT
/*
 * Paravirtual EOI: not in the SDM, KVM's idea (Documentation/virt/kvm/
 * x86/msr.rst, MSR_KVM_PV_EOI_EN) behind irqlab's own port
 * (docs/PROTOCOL.md, docs/LAPIC.md).
 *
 * The guest registers a 32-bit word; bit 0 is the model's.  Before the
 * vCPU enters the guest, the model sets it (arms) when an EOI would have
 * one effect only: clear the single in-service bit, of an edge vector,
 * with nothing in IRR waiting behind it (SDM 11.8.5: EOI retires the
 * highest ISR bit; 11.8.3.1: only then may a lower IRR vector go).  The
 * guest's EOI is then a locked test-and-clear of the bit, with no exit;
 * if the bit was clear it writes the EOI register as usual.  At the next
 * look (any exit, and before any injection) the model takes the bit back:
 * clear means the guest did its EOI, so the model does it now.
 *
 * Only those two transitions mean anything.  A bit the guest sets itself
 * is never read unless the model armed it; garbage in bits 31:1 is left
 * alone.  So a guest scribbling on the word can skip its own EOIs (as on
 * KVM), never make the model retire a vector it did not arm.
 */
#include <stddef.h>

#include "lapic_internal.h"

static bool vec_single(const uint32_t *r, int v)
{
	unsigned i;

	for (i = 0; i < 8; i++)
		if (r[i] && (i != (unsigned)v >> 5 || r[i] != 1u << (v & 31)))
			return false;
	return true;
}

/* the guest word's bit 0 back to clear, and the old bit */
static bool flag_take(struct lapic *l)
{
	return __atomic_fetch_and(l->pveoi.word, ~LAPIC_PVEOI_FLAG,
				  __ATOMIC_SEQ_CST) & LAPIC_PVEOI_FLAG;
}

/* INIT or RESET: the model takes back an armed flag; the ISR goes anyway */
void lapic_pveoi_reset(struct lapic *l)
{
	if (l->pveoi.armed)
		flag_take(l);
	l->pveoi.armed = false;
	l->pveoi.word = NULL;
}

void lapic_pveoi_register(struct lapic *l, uint32_t *word)
{
	lapic_pveoi_sync(l);
	l->pveoi.word = word;
	if (word)	/* the model's bit starts clear: nothing armed */
		__atomic_fetch_and(word, ~LAPIC_PVEOI_FLAG, __ATOMIC_SEQ_CST);
	lapic_trace(l, "pv-eoi %s", word ? "on" : "off");
}

bool lapic_pveoi_arm(struct lapic *l)
{
	int v;

	if (!l->pveoi.word || l->pveoi.armed)
		return l->pveoi.armed;
	v = vec_highest(l->isr);
	/* one vector in service, edge (TMR clear: a level EOI goes to the
	 * IOAPIC, SDM 11.8.5), nothing in IRR for the EOI to let through */
	if (v < 0 || !vec_single(l->isr, v) || vec_test(l->tmr, v) ||
	    vec_highest(l->irr) >= 0)
		return false;
	__atomic_fetch_or(l->pveoi.word, LAPIC_PVEOI_FLAG, __ATOMIC_SEQ_CST);
	l->pveoi.armed = true;
	l->pveoi.vector = v;
	l->pveoi.arms++;
	return true;
}

void lapic_pveoi_sync(struct lapic *l)
{
	uint8_t v = l->pveoi.vector;

	if (!l->pveoi.armed)
		return;
	l->pveoi.armed = false;
	if (flag_take(l)) {
		l->pveoi.cancels++;	/* not EOI'd yet: the register it is */
		return;
	}
	/* the guest's EOI; retire only the vector armed, if still first */
	if (vec_highest(l->isr) != v)
		return;
	l->pveoi.lazy++;
	lapic_trace(l, "pv-eoi %#x", v);
	lapic_eoi(l);
}
