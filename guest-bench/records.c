// SPDX-License-Identifier: MIT
/*
 * The kernel's records (docs/RECORDS.md) parsed on the host, and the
 * runner's statistics.  Nothing here trusts its input: a malformed line
 * is an error code, never a crash or an out-of-bounds access.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records.h"

static const char *const errs[] = {
	[REC_OK] = "ok",
	[REC_ENOTREC] = "not a record (no '@' first)",
	[REC_ETOOLONG] = "line too long",
	[REC_ENONAME] = "record without a name",
	[REC_EBADNAME] = "bad byte in the record name",
	[REC_ENOEQ] = "word without '='",
	[REC_EEMPTYKEY] = "empty key",
	[REC_EBADKEY] = "bad byte in a key",
	[REC_EEMPTYVAL] = "empty value",
	[REC_ETOOMANY] = "too many key=value pairs",
	[REC_EDUPKEY] = "duplicate key",
	[REC_ECTRL] = "control byte in the line",
};

const char *rec_strerror(int err)
{
	if (err < 0 || (size_t)err >= sizeof(errs) / sizeof(errs[0]))
		return "unknown error";
	return errs[err];
}

static int name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

static int key_byte(char c)
{
	return name_byte(c) || (c >= 'A' && c <= 'Z');
}

static int fail(struct record *r, size_t *where, size_t at, int err)
{
	r->name = NULL;
	r->nkv = 0;
	if (where)
		*where = at;
	return err;
}

/* One word "key=value" at @w (NUL-terminated, in r->buf). */
static int parse_pair(struct record *r, char *w, size_t *where)
{
	size_t at = (size_t)(w - r->buf);
	char *eq = strchr(w, '=');
	unsigned i;

	if (!eq)
		return fail(r, where, at, REC_ENOEQ);
	if (eq == w)
		return fail(r, where, at, REC_EEMPTYKEY);
	if (!eq[1])
		return fail(r, where, at, REC_EEMPTYVAL);
	*eq = '\0';
	for (char *k = w; *k; k++)
		if (!key_byte(*k))
			return fail(r, where, (size_t)(k - r->buf), REC_EBADKEY);
	for (i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, w))
			return fail(r, where, at, REC_EDUPKEY);
	if (r->nkv == REC_MAX_KEYS)
		return fail(r, where, at, REC_ETOOMANY);
	r->kv[r->nkv].key = w;
	r->kv[r->nkv].val = eq + 1;
	r->nkv++;
	return REC_OK;
}

int rec_parse(const char *line, struct record *r, size_t *where)
{
	size_t len = strnlen(line, REC_LINE_MAX + 2), i;
	char *p, *w;
	int err;

	r->name = NULL;
	r->nkv = 0;
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len > REC_LINE_MAX)
		return fail(r, where, REC_LINE_MAX, REC_ETOOLONG);
	if (!len || line[0] != '@')
		return fail(r, where, 0, REC_ENOTREC);
	memcpy(r->buf, line, len);
	r->buf[len] = '\0';
	for (i = 0; i < len; i++)
		if ((unsigned char)r->buf[i] < 0x20 && r->buf[i] != '\t')
			return fail(r, where, i, REC_ECTRL);
	/* the name: up to the first blank */
	for (p = r->buf + 1; *p && *p != ' ' && *p != '\t'; p++)
		if (!name_byte(*p))
			return fail(r, where, (size_t)(p - r->buf),
				    REC_EBADNAME);
	if (p == r->buf + 1)
		return fail(r, where, 1, REC_ENONAME);
	w = p;
	while (*w) {
		*w++ = '\0';
		while (*w == ' ' || *w == '\t')
			w++;
		if (!*w)
			break;
		for (p = w; *p && *p != ' ' && *p != '\t'; p++)
			;
		if (*p) {
			*p = '\0';
			err = parse_pair(r, w, where);
			*p = ' ';
		} else {
			err = parse_pair(r, w, where);
		}
		if (err)
			return err;
		w = p;
	}
	r->name = r->buf + 1;
	return REC_OK;
}

void rec_copy(struct record *dst, const struct record *src)
{
	unsigned i;

	memcpy(dst, src, sizeof(*dst));
	if (!src->name)
		return;
	dst->name = dst->buf + (src->name - src->buf);
	for (i = 0; i < src->nkv; i++) {
		dst->kv[i].key = dst->buf + (src->kv[i].key - src->buf);
		dst->kv[i].val = dst->buf + (src->kv[i].val - src->buf);
	}
}

const char *rec_get(const struct record *r, const char *key)
{
	unsigned i;

	if (!r->name)
		return NULL;
	for (i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, key))
			return r->kv[i].val;
	return NULL;
}

int rec_get_u64(const struct record *r, const char *key, uint64_t *v)
{
	const char *s = rec_get(r, key);
	char *end;
	int base = 10;

	if (!s || !strcmp(s, "na"))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	/* strtoull takes a sign and blanks: refuse them */
	if (base == 10 ? !isdigit((unsigned char)*s) :
			 !isxdigit((unsigned char)*s))
		return -2;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end)
		return -2;
	return 0;
}

int rec_get_double(const struct record *r, const char *key, double *v)
{
	const char *s = rec_get(r, key);
	char *end;

	if (!s || !strcmp(s, "na"))
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t u;

		if (rec_get_u64(r, key, &u))
			return -2;
		*v = (double)u;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*v))
		return -2;
	return 0;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_sort(double *a, size_t n)
{
	qsort(a, n, sizeof(*a), cmp_double);
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	double r;
	size_t rank;

	if (!n)
		return NAN;
	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	/* ceil(p/100 * n), computed so that 90% of 10 is rank 9, not 10 */
	r = p * (double)n / 100.0;
	rank = (size_t)r;
	if ((double)rank < r - 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

double stats_median(const double *sorted, size_t n)
{
	if (!n)
		return NAN;
	if (n & 1)
		return sorted[n / 2];
	return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double stats_mean(const double *a, size_t n)
{
	double s = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		s += a[i];
	return s / (double)n;
}

double stats_stddev(const double *a, size_t n)
{
	double m, d, s = 0;
	size_t i;

	if (n < 2)
		return 0;
	m = stats_mean(a, n);
	for (i = 0; i < n; i++) {
		d = a[i] - m;
		s += d * d;
	}
	return sqrt(s / (double)(n - 1));
}

double stats_rse(const double *a, size_t n)
{
	double m;

	if (n < 2)
		return 0;
	m = stats_mean(a, n);
	if (m == 0)
		return 0;
	return 100.0 * stats_stddev(a, n) / sqrt((double)n) / fabs(m);
}

int rec_parse_wokeup(const char *line, struct wake_summary *w)
{
	int used = 0;

	/* perf prints "[Run N]: Wokeup ..." per run: only the summary counts */
	if (sscanf(line, " Wokeup %u of %u threads in %lf ms (+-%lf%%)%n",
		   &w->woken, &w->threads, &w->ms, &w->rse_pct, &used) != 4 ||
	    !used)
		return -1;
	if (!isfinite(w->ms) || !isfinite(w->rse_pct))
		return -1;
	return 0;
}
