// SPDX-License-Identifier: MIT
/*
 * What the timeline costs irqlab-vmm's hot path (make anatomy,
 * docs/ANATOMY.md "The stamps' own cost"): the hook each exit and entry
 * passes, `if (tl_on(t)) tl_add(...)`, with the timeline off (one
 * predictable branch on a NULL ring) and on (an RDTSC and a store of 24
 * bytes), against a loop with no hook.  Each figure is the median of 21
 * rounds of 2^20 hooks, in ns.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_time.h"
#include "exit/timeline.h"

#define ROUNDS	21
#define HOOKS	(1u << 20)

static volatile uint64_t sink;

/* as vmm/kvm/vcpu.c's: one hook a pass */
static __attribute__((noinline)) void hook(struct tl_vcpu *t, uint64_t i)
{
	if (tl_on(t))
		tl_add(t, TL_EXIT, tl_tsc(), 0, (uint32_t)i, 0, 0);
	sink = i;
}

static __attribute__((noinline)) void bare(struct tl_vcpu *t, uint64_t i)
{
	(void)t;
	sink = i;
}

static double median_ns(void (*fn)(struct tl_vcpu *, uint64_t),
			struct tl_vcpu *t)
{
	double r[ROUNDS];
	unsigned k, i;

	for (k = 0; k < ROUNDS; k++) {
		uint64_t t0 = now();

		for (i = 0; i < HOOKS; i++) {
			if (t->ev && t->n == TL_EVENTS)
				t->n = 0;	/* a full ring drops: reuse it */
			fn(t, i);
		}
		r[k] = (double)(now() - t0) / HOOKS;
	}
	qsort(r, ROUNDS, sizeof(*r), cmp);
	return r[ROUNDS / 2];
}

int main(void)
{
	struct tl_vcpu off = { 0 }, on = { 0 };
	double b, o, n;

	if (!tl_alloc(&on)) {
		fprintf(stderr, "tl-bench: out of memory\n");
		return 1;
	}
	b = median_ns(bare, &off);
	o = median_ns(hook, &off);
	n = median_ns(hook, &on);
	printf("@tl_bench hooks=%u rounds=%u bare_ns=%.2f off_ns=%.2f "
	       "on_ns=%.2f\n", HOOKS, ROUNDS, b, o, n);
	tl_free(&on);
	return 0;
}
