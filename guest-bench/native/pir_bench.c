// SPDX-License-Identifier: MIT
/*
 * make bench-pir: what the PIR fold costs before every VM entry.
 *
 * Both folds run side by side in one process, over the same cases:
 *   empty     nothing posted (the common case: most entries have no IPI)
 *   one       one vector posted before each fold
 * "checked" is irqlab's fold (a plain load of ON, then of each word, and
 * an exchange only where bits are set); "always" exchanges ON and every
 * word each time.  Each figure is the median of 21 rounds of 2^20 folds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"
#include "irqchip/pir.h"

#define ROUNDS	21
#define FOLDS	(1u << 20)

typedef unsigned (*fold_fn)(struct pir *, uint32_t *);

static struct pir pir;
static uint32_t irr[8];

/* ns per fold (post included when @post), one round */
static double round_ns(fold_fn fold, int post)
{
	uint64_t t0 = now();
	unsigned i;

	for (i = 0; i < FOLDS; i++) {
		if (post)
			pir_post(&pir, 0x40 + (i & 31));
		fold(&pir, irr);
	}
	return (double)(now() - t0) / FOLDS;
}

static double post_only_ns(void)
{
	uint64_t t0 = now();
	unsigned i;

	for (i = 0; i < FOLDS; i++) {
		pir_post(&pir, 0x40 + (i & 31));
		__atomic_store_n(&pir.on, 0, __ATOMIC_RELAXED);
	}
	memset(&pir, 0, sizeof(pir));
	return (double)(now() - t0) / FOLDS;
}

int main(void)
{
	static const struct {
		const char *name;
		int post;
	} cases[] = { { "empty", 0 }, { "one", 1 } };
	double r[2][2][ROUNDS], post[ROUNDS], med[2][2], pmed;
	unsigned c, f, k;
	fold_fn folds[2] = { pir_fold, pir_fold_always_xchg };

	/* interleave the variants round by round so drift hits both alike */
	for (k = 0; k < ROUNDS; k++) {
		post[k] = post_only_ns();
		for (c = 0; c < 2; c++)
			for (f = 0; f < 2; f++)
				r[c][f][k] = round_ns(folds[f], cases[c].post);
	}
	qsort(post, ROUNDS, sizeof(double), cmp);
	pmed = post[ROUNDS / 2];
	printf("PIR fold, ns per fold (median of %d rounds of %u; host "
	       "CLOCK_MONOTONIC)\n", ROUNDS, FOLDS);
	printf("%-8s %12s %12s %8s\n", "case", "checked", "always", "ratio");
	for (c = 0; c < 2; c++) {
		for (f = 0; f < 2; f++) {
			qsort(r[c][f], ROUNDS, sizeof(double), cmp);
			med[c][f] = r[c][f][ROUNDS / 2];
			/* the "one" case includes a post; take its cost out */
			if (cases[c].post)
				med[c][f] -= pmed;
		}
		printf("%-8s %12.2f %12.2f %7.2fx\n", cases[c].name, med[c][0],
		       med[c][1], med[c][1] / med[c][0]);
	}
	printf("(post alone: %.2f ns, subtracted from the 'one' row)\n", pmed);
	printf("@bench_pir empty_checked_ns=%.2f empty_always_ns=%.2f "
	       "one_checked_ns=%.2f one_always_ns=%.2f post_ns=%.2f\n",
	       med[0][0], med[0][1], med[1][0], med[1][1], pmed);
	return 0;
}
