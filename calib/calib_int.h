/* SPDX-License-Identifier: MIT */
/* calib/ internals, shared by calib.c and calib_ref.c. */
#ifndef CALIB_INT_H
#define CALIB_INT_H

#include <stdint.h>

#include "calib.h"

#define NS_PER_S	1000000000ull
#define US_PER_S	1000000ull

/* Sample a clock: the TSC just before and just after the access. */
struct calib_stamp {
	uint64_t before, after;
};

static inline uint64_t calib_tsc(const struct calib_clock *clk)
{
	return clk->rdtsc(clk->ctx);
}

/* The midpoint of a stamp, and its half width (rounded up). */
static inline uint64_t stamp_mid(const struct calib_stamp *s)
{
	return s->before + (s->after - s->before) / 2;
}

static inline uint64_t stamp_half(const struct calib_stamp *s)
{
	return (s->after - s->before + 1) / 2;
}

/*
 * The error bound of a frequency @hz measured as @n ticks over an
 * interval of @d stopwatch ticks (the TSC) known to +-@u ticks, with a
 * stopwatch of frequency @f known to +-@ef: to first order
 *   err/hz = ef/f + u/d + 1/n
 * (the last term: @n itself is +-1 tick).  Rounded up.
 */
uint64_t calib_err(uint64_t hz, uint64_t ef, uint64_t f, uint64_t u,
		   uint64_t d, uint64_t n);

/* The polling guard for a window of @window_us. */
static inline uint32_t calib_max_polls(uint32_t window_us)
{
	return window_us * CALIB_POLLS_PER_US + CALIB_POLLS_SLACK;
}

static inline void calib_clear(struct calib_result *r, enum calib_source s)
{
	*r = (struct calib_result){ .source = s };
}

#endif
