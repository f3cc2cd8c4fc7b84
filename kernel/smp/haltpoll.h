/* SPDX-License-Identifier: MIT */
/*
 * Guest halt-polling: how long an idle CPU polls its wake condition
 * before it executes HLT (haltpoll=NS or haltpoll=adaptive).  Pure: no
 * hardware access, time comes in as ns from the caller, so the host's
 * tests drive it with a fake clock.  kernel/smp/idle.c is the hardware side.
 *
 * adaptive is Linux's cpuidle-haltpoll governor
 * (drivers/cpuidle/governors/haltpoll.c, adjust_poll_limit()): the window
 * starts at 0; after an idle period that ended in HLT (not during the
 * poll) that lasted block_ns,
 *   window < block_ns <= cap:  grow: window * grow, at least grow_start,
 *                              at most cap
 *   block_ns > cap:            shrink (if allow_shrink): window / shrink,
 *                              0 if that is below grow_start
 * and a wake inside the window changes nothing.  Linux's defaults:
 * guest_halt_poll_ns 200000 (the cap), grow_start 50000, grow 2,
 * shrink 2, allow_shrink 1.
 */
#ifndef KERNEL_HALTPOLL_H
#define KERNEL_HALTPOLL_H

#include <stdint.h>

#define HALTPOLL_CAP_NS		200000u
#define HALTPOLL_GROW_START_NS	50000u
#define HALTPOLL_GROW		2u
#define HALTPOLL_SHRINK		2u
#define HALTPOLL_MAX_NS		10000000u	/* haltpoll=NS: at most 10 ms */

struct haltpoll_params {
	uint64_t cap_ns;	/* fixed: the window; adaptive: its cap */
	int adaptive;
	uint64_t grow_start_ns;
	unsigned grow, shrink;
	int allow_shrink;
};

struct haltpoll {
	struct haltpoll_params p;
	uint64_t window_ns;	/* poll this long before HLT */
	uint64_t start_ns;	/* of the idle period in progress */
	uint64_t grows, shrinks;
};

/*
 * "adaptive" (Linux's defaults), or NS (0 to HALTPOLL_MAX_NS): a fixed
 * window; 0 is off.  0, or -1 for anything else (@p is then off).
 */
int haltpoll_parse(const char *s, struct haltpoll_params *p);
void haltpoll_init(struct haltpoll *h, const struct haltpoll_params *p);
/* An idle period starts at @now_ns. */
void haltpoll_enter(struct haltpoll *h, uint64_t now_ns);
/* Still inside the poll window at @now_ns? */
int haltpoll_keep_polling(const struct haltpoll *h, uint64_t now_ns);
/* It ended at @now_ns, during the poll (@in_poll) or after a HLT. */
void haltpoll_exit(struct haltpoll *h, uint64_t now_ns, int in_poll);

#endif
