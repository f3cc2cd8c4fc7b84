// SPDX-License-Identifier: MIT
/* PIR fold: see pir.h. */
#include "pir.h"

static unsigned pir_merge(uint64_t bits, unsigned w, uint32_t irr[8])
{
	irr[2 * w] |= (uint32_t)bits;
	irr[2 * w + 1] |= (uint32_t)(bits >> 32);
	return bits != 0;
}

/*
 * Clear ON before harvesting, with a full barrier (the exchange), so a
 * sender that posts after our clear sets ON again and notifies: no vector
 * is ever left behind without a notification.  Each word is read with a
 * plain load first; only a non-zero word is exchanged.
 */
unsigned pir_fold(struct pir *p, uint32_t irr[8])
{
	unsigned w, n = 0;

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
}

unsigned pir_fold_always_xchg(struct pir *p, uint32_t irr[8])
{
	unsigned w, n = 0;

	__atomic_exchange_n(&p->on, 0, __ATOMIC_SEQ_CST);
	for (w = 0; w < 4; w++)
		n += pir_merge(__atomic_exchange_n(&p->word[w], 0,
						   __ATOMIC_ACQ_REL), w, irr);
	return n;
}
