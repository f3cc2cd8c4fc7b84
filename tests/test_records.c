// SPDX-License-Identifier: MIT
/* guest-bench/records.c: the record parser and the runner's statistics. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../guest-bench/records.h"

static struct record r;

Test(records, parses_a_bench_record)
{
	const char *l = "@bench case=ipi_wake cpus=2 apic=x2apic n=200 "
			"p50_ns=141711 exits_per_op=3.00 hex=0x1f\r\n";
	uint64_t u;
	double d;

	cr_assert_eq(rec_parse(l, &r, NULL), REC_OK);
	cr_expect_str_eq(r.name, "bench");
	cr_expect_eq(r.nkv, 7);
	cr_expect_str_eq(rec_get(&r, "case"), "ipi_wake");
	cr_expect_str_eq(rec_get(&r, "apic"), "x2apic");
	cr_expect_eq(rec_get_u64(&r, "p50_ns", &u), 0);
	cr_expect_eq(u, 141711);
	cr_expect_eq(rec_get_u64(&r, "hex", &u), 0);
	cr_expect_eq(u, 31);
	cr_expect_eq(rec_get_double(&r, "exits_per_op", &d), 0);
	cr_expect_float_eq(d, 3.0, 1e-12);
	/* the last value lost its CR LF */
	cr_expect_str_eq(rec_get(&r, "hex"), "0x1f");
	cr_expect_null(rec_get(&r, "nope"));
	cr_expect_eq(rec_get_u64(&r, "nope", &u), -1);
}

Test(records, copy_owns_its_strings)
{
	static struct record a, b;

	cr_assert_eq(rec_parse("@bench case=x n=5", &a, NULL), REC_OK);
	rec_copy(&b, &a);
	memset(&a, 0, sizeof(a));
	cr_expect_str_eq(b.name, "bench");
	cr_expect_str_eq(rec_get(&b, "case"), "x");
	cr_expect_str_eq(rec_get(&b, "n"), "5");
}

Test(records, name_only_and_blanks)
{
	cr_assert_eq(rec_parse("@ready", &r, NULL), REC_OK);
	cr_expect_str_eq(r.name, "ready");
	cr_expect_eq(r.nkv, 0);
	cr_assert_eq(rec_parse("@tsc_sync  cpus=0,1\tskew_cyc=-12 ok=1  ",
			       &r, NULL), REC_OK);
	cr_expect_eq(r.nkv, 3);
	cr_expect_str_eq(rec_get(&r, "skew_cyc"), "-12");
	cr_expect_str_eq(rec_get(&r, "cpus"), "0,1");
}

Test(records, numbers_are_checked)
{
	uint64_t u;
	double d;

	cr_assert_eq(rec_parse("@x a=12x b=-3 c=na d=1e3 e=inf f= g", &r,
			       NULL), REC_EEMPTYVAL);
	cr_assert_eq(rec_parse("@x a=12x b=-3 c=na d=1e3 e=inf g=0xZ", &r,
			       NULL), REC_OK);
	cr_expect_eq(rec_get_u64(&r, "a", &u), -2);
	cr_expect_eq(rec_get_u64(&r, "b", &u), -2);	/* no sign */
	cr_expect_eq(rec_get_double(&r, "b", &d), 0);
	cr_expect_float_eq(d, -3.0, 1e-12);
	cr_expect_eq(rec_get_u64(&r, "c", &u), -1);	/* "na": absent */
	cr_expect_eq(rec_get_double(&r, "d", &d), 0);
	cr_expect_float_eq(d, 1000.0, 1e-9);
	cr_expect_eq(rec_get_double(&r, "e", &d), -2);	/* not finite */
	cr_expect_eq(rec_get_u64(&r, "g", &u), -2);
	cr_expect_eq(rec_get_u64(&r, "a", &u), -2);
}

Test(records, u64_overflow_is_an_error)
{
	uint64_t u;

	cr_assert_eq(rec_parse("@x a=18446744073709551615 "
			       "b=18446744073709551616", &r, NULL), REC_OK);
	cr_expect_eq(rec_get_u64(&r, "a", &u), 0);
	cr_expect_eq(u, UINT64_MAX);
	cr_expect_eq(rec_get_u64(&r, "b", &u), -2);
}

struct bad {
	const char *line;
	int err;
	size_t where;
};

Test(records, malformed_lines_are_errors)
{
	static const struct bad bad[] = {
		{ "human line", REC_ENOTREC, 0 },
		{ "", REC_ENOTREC, 0 },
		{ "\r\n", REC_ENOTREC, 0 },
		{ " @bench a=1", REC_ENOTREC, 0 },
		{ "@", REC_ENONAME, 1 },
		{ "@ a=1", REC_ENONAME, 1 },
		{ "@Bench a=1", REC_EBADNAME, 1 },
		{ "@be-nch a=1", REC_EBADNAME, 3 },
		{ "@bench a=1 b", REC_ENOEQ, 11 },
		{ "@bench =1", REC_EEMPTYKEY, 7 },
		{ "@bench a=", REC_EEMPTYVAL, 7 },
		{ "@bench a-b=1", REC_EBADKEY, 8 },
		{ "@bench a=1 a=2", REC_EDUPKEY, 11 },
		{ "@bench a=1\x1b[0m", REC_ECTRL, 10 },
		/* two CPUs' output mixed on one line */
		{ "@bench case=x n=1@bench case=y", REC_EDUPKEY, 24 },
	};
	size_t i, where;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		where = 999;
		cr_expect_eq(rec_parse(bad[i].line, &r, &where), bad[i].err,
			     "%s: got %s", bad[i].line,
			     rec_strerror(rec_parse(bad[i].line, &r, NULL)));
		if (bad[i].err) {
			cr_expect_null(r.name, "%s", bad[i].line);
			cr_expect_eq(where, bad[i].where, "%s: at %zu",
				     bad[i].line, where);
			cr_expect_null(rec_get(&r, "a"));
		}
	}
	cr_expect_str_eq(rec_strerror(REC_EDUPKEY), "duplicate key");
	cr_expect_str_eq(rec_strerror(-5), "unknown error");
	cr_expect_str_eq(rec_strerror(1000), "unknown error");
}

Test(records, too_long_and_too_many)
{
	static char line[REC_LINE_MAX + 64];
	size_t n;
	unsigned i;

	memset(line, 'a', sizeof(line) - 1);
	line[0] = '@';
	line[sizeof(line) - 1] = '\0';
	cr_expect_eq(rec_parse(line, &r, NULL), REC_ETOOLONG);
	/* exactly REC_LINE_MAX is fine, CR LF not counted */
	line[REC_LINE_MAX] = '\r';
	line[REC_LINE_MAX + 1] = '\n';
	line[REC_LINE_MAX + 2] = '\0';
	cr_expect_eq(rec_parse(line, &r, NULL), REC_OK);

	n = (size_t)snprintf(line, sizeof(line), "@many");
	for (i = 0; i <= REC_MAX_KEYS; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " k%u=%u",
				      i, i);
	cr_expect_eq(rec_parse(line, &r, NULL), REC_ETOOMANY);
	*strrchr(line, ' ') = '\0';
	cr_expect_eq(rec_parse(line, &r, NULL), REC_OK);
	cr_expect_eq(r.nkv, REC_MAX_KEYS);
}

/* Random bytes must give a code, never a crash (runs under ASan too). */
Test(records, fuzz_does_not_crash)
{
	char line[300];
	unsigned seed = 12345, i, j, n;
	int err;

	for (i = 0; i < 20000; i++) {
		n = (seed = seed * 1103515245 + 12345) >> 24;
		line[0] = '@';
		for (j = 1; j < n && j < sizeof(line) - 1; j++) {
			seed = seed * 1103515245 + 12345;
			line[j] = " =a1_.@x\t\r\n\x01Z-"[(seed >> 16) % 15];
		}
		line[j] = '\0';
		err = rec_parse(line, &r, NULL);
		cr_assert(err >= REC_OK && err <= REC_ECTRL);
		cr_assert(err ? r.name == NULL : r.name != NULL);
	}
}

/* ---- statistics ---- */

Test(stats, nearest_rank_percentiles)
{
	/* 1..10: nearest rank p = ceil(p/100 * 10)-th */
	double a[10] = { 7, 3, 10, 1, 5, 9, 2, 8, 4, 6 };

	stats_sort(a, 10);
	cr_expect_float_eq(stats_percentile(a, 10, 0), 1, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 10), 1, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 11), 2, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 50), 5, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 90), 9, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 99), 10, 0);
	cr_expect_float_eq(stats_percentile(a, 10, 100), 10, 0);
	cr_expect_float_eq(stats_median(a, 10), 5.5, 0);
	/* one sample: every percentile is it */
	cr_expect_float_eq(stats_percentile(a, 1, 50), 1, 0);
	cr_expect_float_eq(stats_percentile(a, 1, 99), 1, 0);
	cr_expect(isnan(stats_percentile(a, 0, 50)));
}

Test(stats, wikipedia_nearest_rank_example)
{
	/* the example of "Percentile", nearest-rank method */
	double a[5] = { 15, 20, 35, 40, 50 };

	cr_expect_float_eq(stats_percentile(a, 5, 5), 15, 0);
	cr_expect_float_eq(stats_percentile(a, 5, 30), 20, 0);
	cr_expect_float_eq(stats_percentile(a, 5, 40), 20, 0);
	cr_expect_float_eq(stats_percentile(a, 5, 50), 35, 0);
	cr_expect_float_eq(stats_percentile(a, 5, 100), 50, 0);
	cr_expect_float_eq(stats_median(a, 5), 35, 0);
}

Test(stats, matches_the_kernels_integer_rank)
{
	/* bench.c: rank = (p * n + 99) / 100 */
	double a[1000];
	unsigned n, p, i;

	for (i = 0; i < 1000; i++)
		a[i] = i;
	for (n = 1; n <= 1000; n += 37)
		for (p = 1; p <= 100; p++)
			cr_expect_float_eq(stats_percentile(a, n, p),
					   (double)((p * n + 99) / 100 - 1), 0,
					   "n=%u p=%u", n, p);
}

Test(stats, mean_stddev_rse)
{
	double a[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };

	cr_expect_float_eq(stats_mean(a, 8), 5.0, 1e-12);
	/* sample stddev: sqrt(32 / 7) */
	cr_expect_float_eq(stats_stddev(a, 8), sqrt(32.0 / 7), 1e-12);
	/* 100 * sqrt(32/7) / sqrt(8) / 5 = 15.118578920369089 */
	cr_expect_float_eq(stats_rse(a, 8), 15.118578920369089, 1e-9);
	cr_expect_float_eq(stats_stddev(a, 1), 0, 0);
	cr_expect_float_eq(stats_rse(a, 1), 0, 0);
	double z[3] = { -1, 0, 1 };

	cr_expect_float_eq(stats_rse(z, 3), 0, 0);	/* zero mean */
}

Test(stats, perf_summary_line)
{
	struct wake_summary w;

	cr_assert_eq(rec_parse_wokeup("Wokeup 1 of 1 threads in 0.1061 ms "
				      "(+-31.38%)\n", &w), 0);
	cr_expect_eq(w.woken, 1);
	cr_expect_eq(w.threads, 1);
	cr_expect_float_eq(w.ms, 0.1061, 1e-12);
	cr_expect_float_eq(w.rse_pct, 31.38, 1e-12);
	cr_assert_eq(rec_parse_wokeup("  Wokeup 3 of 4 threads in 2 ms "
				      "(+-0.00%)", &w), 0);
	cr_expect_eq(w.woken, 3);
	cr_expect_eq(rec_parse_wokeup("[Run 7]: Wokeup 1 of 1 threads in "
				      "0.0070 ms", &w), -1);
	cr_expect_eq(rec_parse_wokeup("Wokeup 1 of 1 threads in 0.0070 ms",
				      &w), -1);
	cr_expect_eq(rec_parse_wokeup("Wokeup 1 of 1 threads in nan ms "
				      "(+-1%)", &w), -1);
	cr_expect_eq(rec_parse_wokeup("", &w), -1);
}
