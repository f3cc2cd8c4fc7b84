/* SPDX-License-Identifier: MIT */
/*
 * The posted-interrupt request bitmap (PIR), irqlab's software form of
 * VT-d / APICv posted interrupts (Intel VT-d spec 5.2.3, "posted interrupt
 * descriptor"): 256 request bits plus an outstanding-notification flag ON.
 *
 * Any thread posts into a vCPU's PIR; only that vCPU's thread folds it
 * into its IRR, before it re-enters the guest.  ON tells the sender
 * whether a notification (a kick) is already on its way.
 */
#ifndef VMM_PIR_H
#define VMM_PIR_H

#include <stdbool.h>
#include <stdint.h>

struct pir {
	uint64_t word[4];	/* bit v: vector v requested */
	uint32_t on;		/* outstanding notification */
} __attribute__((aligned(64)));	/* its own cache line */

/*
 * Post @vector.  True when the caller must notify (kick) the target: ON
 * went from 0 to 1.  When ON was already set, the notification that set it
 * has not been consumed yet and will pick this vector up too.
 *
 * The exchange of ON and pir_pending() are the two halves of a Dekker
 * pair with the target's mode (user.h): the sender sets ON, then reads the
 * mode; the target stores its mode, then reads ON.  Only if all four are
 * sequentially consistent does C11 promise that one side sees the other
 * (with ACQ_REL and ACQUIRE, as before, it was x86's locked XCHG that
 * kept the promise; the instructions are the same).
 */
static inline bool pir_post(struct pir *p, uint8_t vector)
{
	__atomic_fetch_or(&p->word[vector >> 6], 1ull << (vector & 63),
			  __ATOMIC_RELEASE);
	return !__atomic_exchange_n(&p->on, 1, __ATOMIC_SEQ_CST);
}

static inline bool pir_pending(const struct pir *p)
{
	return __atomic_load_n(&p->on, __ATOMIC_SEQ_CST);
}

/* Fold requested vectors into @irr (8 x 32 bits); returns how many words
 * had bits.  An empty PIR costs one plain load and no atomic RMW. */
unsigned pir_fold(struct pir *p, uint32_t irr[8]);

/* The naive fold: exchange ON and every word whatever they hold.  Kept
 * only as the baseline of the PIR microbenchmark. */
unsigned pir_fold_always_xchg(struct pir *p, uint32_t irr[8]);

#endif
