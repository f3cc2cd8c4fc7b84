/* SPDX-License-Identifier: MIT */
/* The host microbenchmarks' clock and median (pir_bench.c, tl_bench.c). */
#ifndef BENCH_TIME_H
#define BENCH_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* qsort()'s order of doubles, for a median of rounds */
static inline int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
