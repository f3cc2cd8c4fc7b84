// SPDX-License-Identifier: MIT
/*
 * bench-report's markdown: the configs, one row per case x config, and
 * the regeneration of docs/BENCHMARKS.md between its markers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *hv(const struct bconfig *c, const char *key)
{
	const char *v = rec_get(&c->hdr, key);

	return v ? v : "?";
}

static void describe(FILE *f, const struct bconfig *c)
{
	const char *kind = hv(c, "kind"), *poll = rec_get(&c->hdr, "halt_poll");

	if (!strcmp(kind, "irqlab-vmm")) {
		fprintf(f, "irqlab-vmm --irqchip=%s --hlt=%s", hv(c, "irqchip"),
			hv(c, "hlt"));
		if (poll && strcmp(poll, "0"))
			fprintf(f, " --halt-poll %s", poll);
		fprintf(f, ", apic=%s", hv(c, "apic"));
	}
	else if (!strcmp(kind, "qemu-kvm") && !strcmp(hv(c, "cpu"), "none"))
		fprintf(f, "QEMU KVM kernel_irqchip=%s, no -cpu model",
			hv(c, "irqchip"));
	else if (!strcmp(kind, "qemu-kvm"))
		fprintf(f, "QEMU KVM kernel_irqchip=%s, -cpu %s",
			hv(c, "irqchip"), hv(c, "cpu"));
	else if (!strcmp(kind, "qemu-tcg"))
		fprintf(f, "QEMU TCG, -cpu %s (xAPIC)", hv(c, "cpu"));
	else if (!strcmp(kind, "native"))
		fputs("host, pthreads + futex (native-futex)", f);
	else
		fputs(kind, f);
}

/* @key of @r with @fmt, or "-" */
static void num(FILE *f, const struct record *r, const char *key,
		const char *fmt)
{
	double d;

	if (rec_get_double(r, key, &d))
		fputs("-", f);
	else
		fprintf(f, fmt, d);
}

static void exits(FILE *f, const struct record *r)
{
	static const char *const parts[] = { "send_exits", "kick_exits",
		"eoi_exits", "hlt_exits", "other_exits" };
	double d;
	unsigned i;

	if (rec_get_double(r, "exits_per_op", &d)) {
		fputs("-", f);
		return;
	}
	fprintf(f, "%.2f (", d);
	for (i = 0; i < 5; i++) {
		if (i)
			fputc('/', f);
		num(f, r, parts[i], "%.2f");
	}
	fputc(')', f);
}

static void configs_table(FILE *f, const struct bconfig *c, unsigned n)
{
	unsigned i;

	fputs("| config | what | status | passes | wall s |\n"
	      "|---|---|---|---|---|\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "| %s | ", c[i].name);
		describe(f, &c[i]);
		if (!strcmp(c[i].status, "skipped"))
			fprintf(f, " | **SKIPPED** (%s)", c[i].reason);
		else if (strcmp(c[i].status, "ok"))
			fprintf(f, " | **FAILED** (%s)", c[i].reason);
		else if (c[i].reason[0])
			fprintf(f, " | ok (%s)", c[i].reason);
		else
			fputs(" | ok", f);
		fprintf(f, " | %u/%u | %.1f |\n", c[i].passes_ok, c[i].passes,
			(double)c[i].wall_ms / 1000);
	}
}

static int seen_before(const struct bconfig *c, unsigned ci, unsigned ki)
{
	unsigned i, j;

	for (i = 0; i <= ci; i++)
		for (j = 0; j < (i == ci ? ki : c[i].ncases); j++)
			if (!strcmp(c[i].cases[j].name, c[ci].cases[ki].name))
				return 1;
	return 0;
}

static void case_rows(FILE *f, const struct bconfig *c, unsigned n,
		      const char *name, const struct bconfig *ref)
{
	const struct bcase *k, *rk = ref ? report_case(ref, name) : NULL;
	double p, rp, d;
	unsigned i;

	for (i = 0; i < n; i++) {
		k = report_case(&c[i], name);
		if (!k || k->skipped)
			continue;
		fprintf(f, "| %s | %s | ", name, c[i].name);
		num(f, &k->rec, "p50_ns", "%.0f");
		if (!rec_get_double(&k->rec, "p50_ns_min", &p) &&
		    !rec_get_double(&k->rec, "p50_ns_max", &rp) &&
		    !rec_get_double(&k->rec, "passes", &d) && d > 1)
			fprintf(f, " (%.0f-%.0f)", p, rp);
		fputs(" | ", f);
		num(f, &k->rec, "p99_ns", "%.0f");
		fputs(" | ", f);
		exits(f, &k->rec);
		fputs(" | ", f);
		if (rk && !rk->skipped && !rec_get_double(&k->rec, "p50_ns", &p)
		    && !rec_get_double(&rk->rec, "p50_ns", &rp) && rp > 0)
			fprintf(f, "%.2fx", p / rp);
		else
			fputs("-", f);
		fputs(" |\n", f);
	}
}

/* perf bench futex wake's summary: the guest's own, the host's perf */
/* perf bench futex wake's summary: the guest's own, the host's perf */
static void futex_table(FILE *f, const struct bconfig *c, unsigned n)
{
	double v[REPORT_MAX_WOKEUP];
	const struct wake_summary *w;
	const struct bcase *k;
	unsigned i, j, nw, rows = 0;

	for (i = 0; i < n; i++) {
		nw = c[i].nwokeup;
		w = nw ? &c[i].wokeup[0] : c[i].have_perf ? &c[i].perf : NULL;
		if (!w)
			continue;
		if (!rows++)
			fputs("`futex_wake` as `perf bench futex wake` prints it "
			      "(the guest's own case; native: `perf bench futex "
			      "wake -t 1` on the host), and the wake-to-run "
			      "p50.  With several passes: the median pass's "
			      "line, and the range:\n\n| config | Wokeup | ms "
			      "(+-RSE) | range over passes, ms | wake-to-run "
			      "p50 ns |\n|---|---|---|---|---|\n", f);
		if (nw > 1) {
			for (j = 0; j < nw; j++)
				v[j] = c[i].wokeup[j].ms;
			stats_sort(v, nw);
			for (j = 0; j < nw; j++)
				if (c[i].wokeup[j].ms == v[(nw - 1) / 2])
					w = &c[i].wokeup[j];
		}
		fprintf(f, "| %s | %u of %u | %.4f (+-%.2f%%) | ", c[i].name,
			w->woken, w->threads, w->ms, w->rse_pct);
		if (nw > 1)
			fprintf(f, "%.4f-%.4f (%u)", v[0], v[nw - 1], nw);
		else
			fputs("-", f);
		fputs(" | ", f);
		k = report_case(&c[i], "futex_wake");
		if (k && !k->skipped)
			num(f, &k->rec, "p50_ns", "%.0f");
		else
			fputs("-", f);
		fputs(" |\n", f);
	}
	if (rows)
		fputs("\n", f);
}

static void notes(FILE *f, const struct bconfig *c, unsigned n)
{
	unsigned i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < c[i].ncases; j++)
			if (c[i].cases[j].skipped)
				fprintf(f, "- %s: `%s` skipped (%s)\n",
					c[i].name, c[i].cases[j].name,
					c[i].cases[j].reason);
		if (c[i].tsc_sync.name)
			fprintf(f, "- %s: `@tsc_sync` skew_cyc=%s ok=%s\n",
				c[i].name, rec_get(&c[i].tsc_sync, "skew_cyc") ?
				rec_get(&c[i].tsc_sync, "skew_cyc") : "?",
				rec_get(&c[i].tsc_sync, "ok") ?
				rec_get(&c[i].tsc_sync, "ok") : "?");
		for (j = 0; j < c[i].nwokeup; j++)
			fprintf(f, "- %s: Wokeup %u of %u threads in %.4f ms "
				"(+-%.2f%%)\n", c[i].name, c[i].wokeup[j].woken,
				c[i].wokeup[j].threads, c[i].wokeup[j].ms,
				c[i].wokeup[j].rse_pct);
		if (c[i].have_perf)
			fprintf(f, "- %s: `perf bench futex wake -t 1`: Wokeup "
				"%u of %u threads in %.4f ms (+-%.2f%%)\n",
				c[i].name, c[i].perf.woken, c[i].perf.threads,
				c[i].perf.ms, c[i].perf.rse_pct);
		for (j = 0; j < c[i].nerrors; j++)
			fprintf(f, "- %s: problem: %s\n", c[i].name,
				c[i].errors[j]);
		if (c[i].more_errors)
			fprintf(f, "- %s: %u more problems\n", c[i].name,
				c[i].more_errors);
	}
}

void report_markdown(FILE *f, const struct bconfig *c, unsigned n,
		     const struct host_info *h)
{
	const struct bconfig *ref = report_ref(c, n);
	const char *iters = n ? rec_get(&c[0].hdr, "iters") : NULL;
	unsigned i, j;

	fprintf(f, "Generated by `make bench` (guest-bench/run, "
		"build/bench-report) on %s: git `%s`; host %s, %ld CPUs, "
		"%s %s; `bench=all iters=%s`, 2 CPUs everywhere",
		h->date, h->git_describe, h->cpu_model, h->cpus, h->sysname,
		h->release, iters ? iters : "?");
	if (report_qemu_kvm_cpu(c, n))
		fprintf(f, "; QEMU/KVM -cpu model `%s` (probed by "
			"scripts/qemu-kvm-cpu)", report_qemu_kvm_cpu(c, n));
	fputs(".\n\n", f);
	configs_table(f, c, n);
	fprintf(f, "\np50 and p99 in ns (nearest rank; with several passes "
		"the median over them, and the p50s' range in brackets).  "
		"Exits per "
		"operation, irqlab-vmm only: total (send/kick/eoi/hlt/other), "
		"userspace exits over all vCPUs.  Last column: p50 over "
		"qemu-kvm-on's p50 for the case, same run%s.\n\n",
		ref ? "" : " (qemu-kvm-on did not run: no ratios)");
	fputs("| case | config | p50 ns | p99 ns | exits/op "
	      "(send/kick/eoi/hlt/other) | p50 / qemu-kvm-on |\n"
	      "|---|---|---|---|---|---|\n", f);
	for (i = 0; i < n; i++)
		for (j = 0; j < c[i].ncases; j++)
			if (!seen_before(c, i, j))
				case_rows(f, c, n, c[i].cases[j].name, ref);
	fputs("\n", f);
	futex_table(f, c, n);
	notes(f, c, n);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 4096 + 1 > size) {
			char *nb = realloc(buf, size = size * 2 + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, 4096, f);
		*len += n;
		if (n < 4096)
			break;
	}
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

int report_update_doc(const char *doc, const char *md)
{
	char tmp[4096], *text, *b, *e;
	size_t len;
	FILE *f;

	text = slurp(doc, &len);
	if (!text) {
		fprintf(stderr, "bench-report: %s: %s\n", doc, strerror(errno));
		return -1;
	}
	b = strstr(text, DOC_BEGIN);
	e = b ? strstr(b, DOC_END) : NULL;
	if (!b || !e) {
		fprintf(stderr, "bench-report: %s has no '%s' ... '%s' "
			"markers: not changed\n", doc, DOC_BEGIN, DOC_END);
		free(text);
		return -1;
	}
	b += strlen(DOC_BEGIN);
	snprintf(tmp, sizeof(tmp), "%s.tmp", doc);
	f = fopen(tmp, "w");
	if (!f || fwrite(text, 1, (size_t)(b - text), f) != (size_t)(b - text) ||
	    fprintf(f, "\n%s", md) < 0 || fputs(e, f) < 0 || fclose(f) ||
	    rename(tmp, doc)) {
		fprintf(stderr, "bench-report: cannot rewrite %s: %s\n", doc,
			strerror(errno));
		free(text);
		return -1;
	}
	free(text);
	fprintf(stderr, "bench-report: %s: results regenerated\n", doc);
	return 0;
}
