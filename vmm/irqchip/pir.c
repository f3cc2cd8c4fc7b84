// SPDX-License-Identifier: MIT
/* PIR fold: see pir.h. */
#include "pir.h"

/* one harvested word into irr[] (unused in a lab tree's stubs: no warning) */
static __attribute__((unused))
unsigned pir_merge(uint64_t bits, unsigned w, uint32_t irr[8])
{
	irr[2 * w] |= (uint32_t)bits;
	irr[2 * w + 1] |= (uint32_t)(bits >> 32);
	return bits != 0;
}

/* The PIR into IRR: the contract is in the LAB marker below. */
unsigned pir_fold(struct pir *p, uint32_t irr[8])
{
	/* LAB pir: begin
	 * Fold the posted-interrupt requests into IRR (VT-d 5.2.3; pir.h
	 * has the sender's side).  The contract: every vector posted
	 * reaches irr[] exactly once, however senders race with the fold;
	 * nothing posted costs one load; a word with no bit set costs no
	 * atomic read-modify-write.  pir_merge() ORs one harvested word into
	 * irr[].  Return how many words had bits.  Graded by the pir
	 * Criterion tests and an IPI storm on 4 vCPUs (check=ipi
	 * ipi_storm=1: lost=0 dup=0).
	 * stub: (void)p;
	 * stub: (void)irr;
	 * stub: return 0;
	 */
	unsigned w, n = 0;

	/*
	 * Clear ON before harvesting, with a full barrier (the exchange), so
	 * a sender that posts after our clear sets ON again and notifies: no
	 * vector is ever left behind without a notification.  Each word is
	 * read with a plain load first; only a non-zero word is exchanged.
	 */
	if (!__atomic_load_n(&p->on, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_exchange_n(&p->on, 0, __ATOMIC_SEQ_CST);
	for (w = 0; w < 4; w++) {
		if (!__atomic_load_n(&p->word[w], __ATOMIC_RELAXED))
			continue;
		n += pir_merge(__atomic_exchange_n(&p->word[w], 0,
						   __ATOMIC_ACQ_REL), w, irr);
	}
	return n;
	/* LAB pir: end */
}

unsigned pir_fold_always_xchg(struct pir *p, uint32_t irr[8])
{
	/* LAB pir: begin
	 * The baseline make bench-pir measures pir_fold() against: the same
	 * contract but the cheap cases, each word taken with an atomic
	 * exchange whether or not it has bits.
	 * stub: (void)p;
	 * stub: (void)irr;
	 * stub: return 0;
	 */
	unsigned w, n = 0;

	__atomic_exchange_n(&p->on, 0, __ATOMIC_SEQ_CST);
	for (w = 0; w < 4; w++)
		n += pir_merge(__atomic_exchange_n(&p->word[w], 0,
						   __ATOMIC_ACQ_REL), w, irr);
	return n;
	/* LAB pir: end */
}
