// SPDX-License-Identifier: MIT
/*
 * bench-report: several passes of one config (guest-bench/run -p N)
 * merged into one, case by case: the median over the passes of each
 * numeric field of @bench, with the spread of p50_ns.  One pass alone is
 * kept as it is, plus passes=1.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void merge_error(struct bconfig *m, unsigned pass, const char *e)
{
	if (m->nerrors == REPORT_MAX_ERRORS) {
		m->more_errors++;
		return;
	}
	snprintf(m->errors[m->nerrors++], sizeof(m->errors[0]),
		 "pass %u: %.140s", pass, e);
}

/* The median of @key over @recs (all numeric), or -1. */
static int median_of(const struct record *const *recs, unsigned n,
		     const char *key, double *med, double *lo, double *hi)
{
	double v[REPORT_MAX_ERRORS * 4];
	unsigned i;

	if (n > sizeof(v) / sizeof(v[0]))
		n = sizeof(v) / sizeof(v[0]);
	for (i = 0; i < n; i++)
		if (rec_get_double(recs[i], key, &v[i]))
			return -1;
	stats_sort(v, n);
	*med = stats_median(v, n);
	*lo = v[0];
	*hi = v[n - 1];
	return 0;
}

/* Rebuild a @bench line from the medians of @recs into @k->rec. */
static void merge_case(struct bconfig *m, struct bcase *k,
		       const struct record *const *recs, unsigned n)
{
	char line[REC_LINE_MAX + 1];
	const struct record *r0 = recs[0];
	double med, lo, hi;
	size_t len;
	unsigned i;
	int w;

	len = (size_t)snprintf(line, sizeof(line), "@%s", r0->name);
	for (i = 0; i < r0->nkv && len < sizeof(line); i++) {
		const char *key = r0->kv[i].key;

		if (!strcmp(key, "passes") ||
		    median_of(recs, n, key, &med, &lo, &hi))
			w = snprintf(line + len, sizeof(line) - len, " %s=%s",
				     key, r0->kv[i].val);
		else
			w = snprintf(line + len, sizeof(line) - len, " %s=%.10g",
				     key, med);
		len += (size_t)w;
	}
	if (len < sizeof(line) && !median_of(recs, n, "p50_ns", &med, &lo, &hi))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					" p50_ns_min=%.10g p50_ns_max=%.10g",
					lo, hi);
	if (len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					" passes=%u", n);
	if (len >= sizeof(line) || rec_parse(line, &k->rec, NULL)) {
		merge_error(m, 0, "a merged record did not fit: first pass kept");
		rec_copy(&k->rec, r0);
	}
}

static void merge_cases(struct bconfig *m, const struct bconfig *const *ok,
			unsigned nok)
{
	const struct record *recs[REPORT_MAX_ERRORS * 4];
	const struct bcase *src;
	struct bcase *k;
	unsigned p, j, q, n;

	m->ncases = 0;
	for (p = 0; p < nok; p++) {
		for (j = 0; j < ok[p]->ncases; j++) {
			src = &ok[p]->cases[j];
			if (report_case(m, src->name) ||
			    m->ncases == REPORT_MAX_CASES)
				continue;
			k = &m->cases[m->ncases++];
			memset(k, 0, sizeof(*k));
			snprintf(k->name, sizeof(k->name), "%s", src->name);
			for (n = 0, q = p; q < nok && n < sizeof(recs) /
			     sizeof(recs[0]); q++) {
				const struct bcase *c = report_case(ok[q],
								    src->name);

				if (c && !c->skipped)
					recs[n++] = &c->rec;
				else if (c && !k->reason[0])
					snprintf(k->reason, sizeof(k->reason),
						 "%s", c->reason);
			}
			if (n)
				merge_case(m, k, recs, n);
			else
				k->skipped = 1;
		}
	}
}

static void merge_group(const struct bconfig *in, unsigned n, unsigned first,
			struct bconfig *m)
{
	const struct bconfig *ok[REPORT_MAX_ERRORS * 4], *last = NULL;
	unsigned i, j, nok = 0, nskip = 0, pass = 0;
	char why[64] = "";

	memset(m, 0, sizeof(*m));
	for (i = first; i < n; i++) {
		if (strcmp(in[i].name, in[first].name))
			continue;
		pass++;
		last = &in[i];
		m->wall_ms += in[i].wall_ms;
		for (j = 0; j < in[i].nerrors; j++)
			merge_error(m, pass, in[i].errors[j]);
		m->more_errors += in[i].more_errors;
		nskip += !strcmp(in[i].status, "skipped");
		if (in[i].passes_ok && nok < sizeof(ok) / sizeof(ok[0]))
			ok[nok++] = &in[i];
		else if (!why[0])
			snprintf(why, sizeof(why), "%s", in[i].reason);
	}
	/* metadata: the last good pass's, else the last one's */
	const struct bconfig *meta = nok ? ok[nok - 1] : last;

	if (!meta)
		return;

	memcpy(m->name, meta->name, sizeof(m->name));
	memcpy(m->file, meta->file, sizeof(m->file));
	rec_copy(&m->hdr, &meta->hdr);
	rec_copy(&m->calib, &meta->calib);
	rec_copy(&m->tsc_sync, &meta->tsc_sync);
	rec_copy(&m->native, &meta->native);
	m->rc = meta->rc;
	m->passes = pass;
	m->passes_ok = nok;
	/* skipped: no pass could run here (guest-bench/run's unavailable) */
	snprintf(m->status, sizeof(m->status), "%s", nok ? "ok" :
		 nskip == pass ? "skipped" : "failed");
	if (!nok)
		snprintf(m->reason, sizeof(m->reason), "%s", meta->reason);
	else if (nok < pass)
		snprintf(m->reason, sizeof(m->reason), "%u of %u passes "
			 "failed: %.30s", pass - nok, pass, why);
	merge_cases(m, ok, nok);
	for (i = 0; i < nok; i++) {
		if (ok[i]->nwokeup && m->nwokeup < REPORT_MAX_WOKEUP)
			m->wokeup[m->nwokeup++] =
				ok[i]->wokeup[ok[i]->nwokeup - 1];
		if (ok[i]->have_perf)
			m->have_perf = 1;
	}
	/* perf's line: the pass with the median time */
	if (m->have_perf) {
		double v[REPORT_MAX_ERRORS * 4], med;
		unsigned np = 0;
		int found = 0;

		for (i = 0; i < nok; i++)
			if (ok[i]->have_perf)
				v[np++] = ok[i]->perf.ms;
		stats_sort(v, np);
		med = v[(np - 1) / 2];
		for (i = 0; i < nok; i++)
			if (ok[i]->have_perf && ok[i]->perf.ms == med &&
			    !found) {
				m->perf = ok[i]->perf;
				found = 1;
			}
	}
}

unsigned report_merge(const struct bconfig *in, unsigned n,
		      struct bconfig *out)
{
	unsigned i, j, m = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(in[j].name, in[i].name))
				break;
		if (j < i)
			continue;
		merge_group(in, n, i, &out[m++]);
	}
	return m;
}
