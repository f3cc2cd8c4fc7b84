/* SPDX-License-Identifier: MIT */
/*
 * Host side of the kernel's records (docs/RECORDS.md): one line
 * `@name key=value key=value ...`, values without spaces, parsed by key;
 * and the statistics the host runner needs (docs/BENCHMARKS.md "Host
 * runner").  Built for the host only (bench-report, native-futex, tests).
 */
#ifndef GUEST_BENCH_RECORDS_H
#define GUEST_BENCH_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define REC_LINE_MAX	2048	/* bytes of one line, NUL excluded */
#define REC_MAX_KEYS	64

struct rec_kv {
	const char *key;
	const char *val;
};

/* Points into its own copy of the line: valid while the struct lives. */
struct record {
	char buf[REC_LINE_MAX + 1];
	const char *name;		/* without the '@' */
	unsigned nkv;
	struct rec_kv kv[REC_MAX_KEYS];
};

enum rec_err {
	REC_OK = 0,
	REC_ENOTREC,	/* not a record: no '@' first (a human line) */
	REC_ETOOLONG,	/* longer than REC_LINE_MAX */
	REC_ENONAME,	/* '@' alone, or '@' then a space */
	REC_EBADNAME,	/* a name byte outside [a-z0-9_.] */
	REC_ENOEQ,	/* a word without '=' */
	REC_EEMPTYKEY,	/* "=value" */
	REC_EBADKEY,	/* a key byte outside [A-Za-z0-9_.] */
	REC_EEMPTYVAL,	/* "key=" */
	REC_ETOOMANY,	/* more than REC_MAX_KEYS pairs */
	REC_EDUPKEY,	/* one key twice */
	REC_ECTRL,	/* a control byte (NUL, ESC, ...) in the line */
};

/*
 * Parse @line (a trailing LF, CR LF or CR is dropped) into @r.  Returns
 * REC_OK or an enum rec_err; on an error @r->name is NULL and, when
 * @where is not NULL, *@where is the byte offset of the fault.
 */
int rec_parse(const char *line, struct record *r, size_t *where);
const char *rec_strerror(int err);
/* Copy @src to @dst, pointers moved into @dst's own buffer. */
void rec_copy(struct record *dst, const struct record *src);

/* The value of @key, or NULL. */
const char *rec_get(const struct record *r, const char *key);
/*
 * The value of @key as a number: 0, -1 if absent (or "na", the kernel's
 * "not available"), -2 if not a number (u64: decimal or 0x hex, the
 * whole value; double: strtod's syntax, finite, the whole value).
 */
int rec_get_u64(const struct record *r, const char *key, uint64_t *v);
int rec_get_double(const struct record *r, const char *key, double *v);

/*
 * Statistics over @n samples.  Percentiles are nearest-rank: the
 * ceil(p/100 * n)-th smallest (p in [0, 100]; p = 0 gives the minimum),
 * as the kernel's records (docs/RECORDS.md).  The median is the usual
 * one: the middle sample, or the mean of the middle two for an even @n.
 * All take @n >= 1 except where said; "sorted" means ascending.
 */
void stats_sort(double *a, size_t n);
double stats_percentile(const double *sorted, size_t n, double p);
double stats_median(const double *sorted, size_t n);
double stats_mean(const double *a, size_t n);
/* Sample standard deviation (n - 1); 0 for n < 2. */
double stats_stddev(const double *a, size_t n);
/*
 * Relative standard error of the mean, in percent:
 * 100 * (stddev / sqrt(n)) / mean, as perf bench's "(+-X%)"
 * (tools/perf/util/stat.c: stddev_stats, rel_stddev_stats).  0 for
 * n < 2 or a zero mean.
 */
double stats_rse(const double *a, size_t n);

/*
 * perf bench futex wake's summary line, which the kernel's futex_wake
 * case prints too:
 * "Wokeup 1 of 1 threads in 0.0130 ms (+-11.25%)".  0, or -1 if @line
 * is not one.
 */
struct wake_summary {
	unsigned woken, threads;
	double ms, rse_pct;
};
int rec_parse_wokeup(const char *line, struct wake_summary *w);

#endif
