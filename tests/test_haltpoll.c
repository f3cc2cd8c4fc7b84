// SPDX-License-Identifier: MIT
/*
 * The guest's halt-poll window (kernel/smp/haltpoll.c) against a fake clock:
 * Linux's cpuidle-haltpoll governor rules (adjust_poll_limit()).
 */
#include <criterion/criterion.h>

#include "../kernel/smp/haltpoll.h"

static struct haltpoll h;
static uint64_t now = 1000000000ull;	/* the fake clock, ns */

static void adaptive(void)
{
	struct haltpoll_params p;

	cr_assert_eq(haltpoll_parse("adaptive", &p), 0);
	haltpoll_init(&h, &p);
}

/*
 * One idle period whose wake-up comes @wake_ns after it starts: polled
 * on the fake clock while the window lasts, else a HLT.  Returns 1 if the
 * poll caught it.
 */
static int idle(uint64_t wake_ns)
{
	uint64_t start = now;

	haltpoll_enter(&h, now);
	while (haltpoll_keep_polling(&h, now)) {
		if (now - start >= wake_ns) {
			haltpoll_exit(&h, now, 1);
			return 1;
		}
		now += 1000;		/* one poll step: 1 us */
	}
	now = start + wake_ns;		/* asleep in HLT until the wake */
	haltpoll_exit(&h, now, 0);
	return 0;
}

Test(haltpoll, parse)
{
	struct haltpoll_params p;

	cr_assert_eq(haltpoll_parse(NULL, &p), 0);
	cr_assert_eq(p.cap_ns, 0, "absent: off");
	cr_assert_eq(haltpoll_parse("200000", &p), 0);
	cr_assert_eq(p.cap_ns, 200000);
	cr_assert_eq(p.adaptive, 0);
	cr_assert_eq(haltpoll_parse("0", &p), 0);
	cr_assert_eq(p.cap_ns, 0);
	cr_assert_eq(haltpoll_parse("adaptive", &p), 0);
	cr_assert_eq(p.adaptive, 1);
	cr_assert_eq(p.cap_ns, 200000, "Linux's guest_halt_poll_ns");
	cr_assert_eq(p.grow_start_ns, 50000);
	cr_assert_eq(p.grow, 2);
	cr_assert_eq(p.shrink, 2);
	cr_assert_eq(p.allow_shrink, 1);
	cr_assert_eq(haltpoll_parse("", &p), -1);
	cr_assert_eq(haltpoll_parse("12us", &p), -1);
	cr_assert_eq(haltpoll_parse("-1", &p), -1);
	cr_assert_eq(haltpoll_parse("adaptivex", &p), -1);
	cr_assert_eq(haltpoll_parse("10000001", &p), -1, "above 10 ms");
	cr_assert_eq(haltpoll_parse("99999999999999999999999", &p), -1);
	cr_assert_eq(p.cap_ns, 0, "a bad value leaves it off");
}

Test(haltpoll, fixed_window_never_moves)
{
	struct haltpoll_params p;

	cr_assert_eq(haltpoll_parse("100000", &p), 0);
	haltpoll_init(&h, &p);
	cr_assert(idle(30000), "woken inside the window: polled");
	cr_assert_not(idle(150000), "after it: HLT");
	cr_assert_not(idle(5000000));
	cr_assert_eq(h.window_ns, 100000);
	cr_assert_eq(h.grows + h.shrinks, 0);
}

Test(haltpoll, adaptive_starts_at_zero_and_grows_from_grow_start)
{
	adaptive();
	cr_assert_eq(h.window_ns, 0, "poll_limit_ns starts at 0");
	cr_assert_not(idle(120000));
	cr_assert_eq(h.window_ns, 50000, "0 * 2 is below grow_start: 50000");
	cr_assert_not(idle(120000));
	cr_assert_eq(h.window_ns, 100000, "doubled");
	cr_assert_not(idle(120000));
	cr_assert_eq(h.window_ns, 200000, "doubled to the cap");
	cr_assert(idle(120000), "now the poll catches it");
	cr_assert_eq(h.window_ns, 200000, "a poll hit changes nothing");
	cr_assert_eq(h.grows, 3);
}

Test(haltpoll, adaptive_never_grows_past_the_cap)
{
	adaptive();
	h.window_ns = 150000;
	cr_assert_not(idle(190000));
	cr_assert_eq(h.window_ns, 200000, "300000 clamped to the cap");
	cr_assert_not(idle(200000 + 1));	/* above the cap: a long sleep */
	cr_assert_eq(h.window_ns, 100000, "shrunk by 2");
}

Test(haltpoll, adaptive_wake_at_the_cap_still_grows)
{
	adaptive();
	h.window_ns = 50000;
	cr_assert_not(idle(200000));		/* block_ns <= cap */
	cr_assert_eq(h.window_ns, 100000);
}

Test(haltpoll, adaptive_long_sleeps_shrink_to_zero)
{
	adaptive();
	h.window_ns = 200000;
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 100000);
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 50000);
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 0, "25000 is below grow_start: 0");
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 0, "stays 0");
	cr_assert_eq(h.shrinks, 3);
}

Test(haltpoll, adaptive_shrink_needs_allow_shrink)
{
	adaptive();
	h.p.allow_shrink = 0;
	h.window_ns = 200000;
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 200000);
}

Test(haltpoll, adaptive_shrink_0_resets)
{
	adaptive();
	h.p.shrink = 0;		/* Linux: guest_halt_poll_shrink 0 resets */
	h.window_ns = 200000;
	cr_assert_not(idle(1000000));
	cr_assert_eq(h.window_ns, 0);
}

Test(haltpoll, adaptive_wake_inside_old_window_keeps_it)
{
	adaptive();
	h.window_ns = 100000;
	cr_assert(idle(60000));
	cr_assert_eq(h.window_ns, 100000);
	/* a HLT whose block_ns is below the window (cannot happen after a
	 * full poll, but the rule says: neither grow nor shrink) */
	haltpoll_enter(&h, now);
	now += 40000;
	haltpoll_exit(&h, now, 0);
	cr_assert_eq(h.window_ns, 100000);
}

Test(haltpoll, clock_wraps)
{
	struct haltpoll_params p;

	cr_assert_eq(haltpoll_parse("100000", &p), 0);
	haltpoll_init(&h, &p);
	now = ~0ull - 20000;
	cr_assert(idle(50000), "the window is measured across the wrap");
}
