// SPDX-License-Identifier: MIT
/*
 * bench-report: read the runner's per-config files (guest-bench/run:
 * a "@config name=..." header, the kernel's output, "@config_end
 * status=..."), write DIR/results.json and DIR/results.md, and with
 * --doc FILE put the markdown between FILE's bench-results markers.
 *
 * usage: bench-report -o DIR [--doc FILE] CONFIG-FILE...
 *
 * Exit status: 0; 1 if an output cannot be written; 2 on bad usage.  A
 * config file that is missing or malformed is not an error of the
 * tool: it becomes a failed config in the results.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

/* ---- JSON ---- */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)	/* stays valid UTF-8 */
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* A record's pairs: numbers as numbers, the rest as strings. */
static void jrecord(FILE *f, const struct record *r)
{
	unsigned i;
	double d;

	fputc('{', f);
	for (i = 0; r->name && i < r->nkv; i++) {
		fprintf(f, "%s", i ? ", " : "");
		jstr(f, r->kv[i].key);
		fputs(": ", f);
		if (!rec_get_double(r, r->kv[i].key, &d))
			fprintf(f, "%.17g", d);
		else
			jstr(f, r->kv[i].val);
	}
	fputc('}', f);
}

static void jwake(FILE *f, const struct wake_summary *w)
{
	fprintf(f, "{\"woken\": %u, \"threads\": %u, \"ms\": %.17g, "
		"\"rse_pct\": %.17g}", w->woken, w->threads, w->ms, w->rse_pct);
}

static void jconfig(FILE *f, const struct bconfig *c)
{
	unsigned i, j;

	fputs("  {\"name\": ", f);
	jstr(f, c->name);
	fputs(", \"status\": ", f);
	jstr(f, c->status);
	fputs(", \"reason\": ", f);
	jstr(f, c->reason);
	fprintf(f, ", \"rc\": %lld, \"wall_ms\": %lld, \"passes\": %u, "
		"\"passes_ok\": %u, \"file\": ", c->rc, c->wall_ms, c->passes,
		c->passes_ok);
	jstr(f, c->file);
	fputs(",\n   \"params\": ", f);
	jrecord(f, &c->hdr);
	fputs(",\n   \"calib\": ", f);
	jrecord(f, &c->calib);
	fputs(", \"tsc_sync\": ", f);
	jrecord(f, &c->tsc_sync);
	fputs(",\n   \"skipped\": [", f);
	for (i = 0, j = 0; i < c->ncases; i++) {
		if (!c->cases[i].skipped)
			continue;
		fputs(j++ ? ", {\"case\": " : "{\"case\": ", f);
		jstr(f, c->cases[i].name);
		fputs(", \"reason\": ", f);
		jstr(f, c->cases[i].reason);
		fputc('}', f);
	}
	fputs("],\n   \"futex_summaries\": [", f);
	for (i = 0; i < c->nwokeup; i++) {
		fputs(i ? ", " : "", f);
		jwake(f, &c->wokeup[i]);
	}
	fputs("], \"perf_futex_wake\": ", f);
	if (c->have_perf)
		jwake(f, &c->perf);
	else
		fputs("null", f);
	fputs(",\n   \"errors\": [", f);
	for (i = 0; i < c->nerrors; i++) {
		fputs(i ? ", " : "", f);
		jstr(f, c->errors[i]);
	}
	fprintf(f, "], \"errors_not_listed\": %u}", c->more_errors);
}

static void jresults(FILE *f, const struct bconfig *c, unsigned n)
{
	const struct bconfig *ref = report_ref(c, n);
	const struct bcase *k, *rk;
	unsigned i, j, rows = 0;
	double p, rp;

	for (i = 0; i < n; i++) {
		for (j = 0; j < c[i].ncases; j++) {
			k = &c[i].cases[j];
			if (k->skipped)
				continue;
			fprintf(f, "%s  {\"config\": ", rows++ ? ",\n" : "");
			jstr(f, c[i].name);
			fputs(", \"case\": ", f);
			jstr(f, k->name);
			fputs(", \"ratio_p50_to_qemu_kvm_on\": ", f);
			rk = ref ? report_case(ref, k->name) : NULL;
			if (rk && !rk->skipped &&
			    !rec_get_double(&k->rec, "p50_ns", &p) &&
			    !rec_get_double(&rk->rec, "p50_ns", &rp) && rp > 0)
				fprintf(f, "%.4f", p / rp);
			else
				fputs("null", f);
			fputs(",\n   \"stats\": ", f);
			jrecord(f, &k->rec);
			fputc('}', f);
		}
	}
	fputc('\n', f);
}

static int write_json(const char *path, const struct bconfig *c, unsigned n,
		      const struct host_info *h)
{
	FILE *f = fopen(path, "w");
	unsigned i;

	if (!f) {
		fprintf(stderr, "bench-report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fputs("{\"generated\": ", f);
	jstr(f, h->date);
	fputs(",\n \"git\": {\"rev\": ", f);
	jstr(f, h->git_rev);
	fputs(", \"describe\": ", f);
	jstr(f, h->git_describe);
	fputs("},\n \"host\": {\"cpu_model\": ", f);
	jstr(f, h->cpu_model);
	fprintf(f, ", \"cpus\": %ld, \"sysname\": ", h->cpus);
	jstr(f, h->sysname);
	fputs(", \"kernel_release\": ", f);
	jstr(f, h->release);
	fputs(", \"kernel_version\": ", f);
	jstr(f, h->version);
	fputs(", \"machine\": ", f);
	jstr(f, h->machine);
	/* the -cpu model QEMU/KVM was probed to start with here */
	fputs("},\n \"qemu_kvm_cpu\": ", f);
	if (report_qemu_kvm_cpu(c, n))
		jstr(f, report_qemu_kvm_cpu(c, n));
	else
		fputs("null", f);
	fputs(",\n \"method\": \"percentiles are nearest-rank (the "
	      "ceil(p/100*n)-th smallest sample), computed by the kernel "
	      "(or native-futex); with several passes of a config each "
	      "field is the median over the passes (p50_ns_min/max: the "
	      "spread); ratio = p50_ns / p50_ns of qemu-kvm-on, same case, "
	      "same run\",\n \"configs\": [\n", f);
	for (i = 0; i < n; i++) {
		jconfig(f, &c[i]);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs(" ],\n \"results\": [\n", f);
	jresults(f, c, n);
	fputs(" ]\n}\n", f);
	if (fclose(f)) {
		fprintf(stderr, "bench-report: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the host ---- */

static void cmd_line(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");

	snprintf(buf, size, "unknown");
	if (!p)
		return;
	if (fgets(buf, (int)size, p))
		buf[strcspn(buf, "\n")] = '\0';
	else
		snprintf(buf, size, "unknown");
	pclose(p);
}

static void host_info(struct host_info *h)
{
	char line[256];
	struct utsname u;
	FILE *f;
	time_t t = time(NULL);

	memset(h, 0, sizeof(*h));
	snprintf(h->cpu_model, sizeof(h->cpu_model), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && v) {
			v += 1 + (v[1] == ' ');
			v[strcspn(v, "\n")] = '\0';
			snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", v);
			break;
		}
	}
	if (f)
		fclose(f);
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!uname(&u)) {
		memcpy(h->sysname, u.sysname, sizeof(h->sysname) - 1);
		memcpy(h->release, u.release, sizeof(h->release) - 1);
		memcpy(h->version, u.version, sizeof(h->version) - 1);
		memcpy(h->machine, u.machine, sizeof(h->machine) - 1);
	}
	cmd_line("git rev-parse HEAD 2>/dev/null", h->git_rev,
		 sizeof(h->git_rev));
	cmd_line("git describe --always --dirty 2>/dev/null", h->git_describe,
		 sizeof(h->git_describe));
	strftime(h->date, sizeof(h->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-report -o DIR [--doc FILE] "
		"CONFIG-FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *doc = NULL;
	struct bconfig *c, *mc;
	struct host_info h;
	char path[4096], *md = NULL;
	size_t mdlen = 0;
	unsigned n = 0;
	int i, rc = 0;
	FILE *f;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--doc") && i + 1 < argc)
			doc = argv[++i];
		else
			usage();
	}
	if (!dir || i == argc)
		usage();
	c = calloc((size_t)(argc - i), sizeof(*c));
	if (!c) {
		fprintf(stderr, "bench-report: out of memory\n");
		return 1;
	}
	for (; i < argc; i++) {
		report_read(argv[i], &c[n]);
		if (c[n].nerrors)
			fprintf(stderr, "bench-report: %s: %u problem(s), "
				"first: %s\n", argv[i],
				c[n].nerrors + c[n].more_errors,
				c[n].errors[0]);
		n++;
	}
	/* the passes of one config become one (report_merge.c) */
	mc = calloc(n ? n : 1, sizeof(*mc));
	if (!mc) {
		fprintf(stderr, "bench-report: out of memory\n");
		return 1;
	}
	n = report_merge(c, n, mc);
	free(c);
	c = mc;
	host_info(&h);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "bench-report: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/results.json", dir);
	if (write_json(path, c, n, &h))
		rc = 1;
	f = open_memstream(&md, &mdlen);
	if (!f)
		return 1;
	report_markdown(f, c, n, &h);
	fclose(f);
	snprintf(path, sizeof(path), "%s/results.md", dir);
	f = fopen(path, "w");
	if (!f || fputs(md, f) < 0 || fclose(f)) {
		fprintf(stderr, "bench-report: %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (doc && report_update_doc(doc, md))
		rc = 1;
	free(md);
	free(c);
	return rc;
}
