// SPDX-License-Identifier: MIT
/*
 * bench-report's reader: one runner config file (guest-bench/run) into a
 * struct bconfig.  Human lines are skipped, perf's summary line is
 * kept, and a malformed record becomes a listed problem of the config.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void add_error(struct bconfig *c, unsigned line, const char *what,
		      const char *detail)
{
	if (c->nerrors == REPORT_MAX_ERRORS) {
		c->more_errors++;
		return;
	}
	snprintf(c->errors[c->nerrors++], sizeof(c->errors[0]),
		 "line %u: %s%s%.80s", line, what, detail ? ": " : "",
		 detail ? detail : "");
}

static void set_failed(struct bconfig *c, const char *reason)
{
	snprintf(c->status, sizeof(c->status), "failed");
	snprintf(c->reason, sizeof(c->reason), "%s", reason);
}

static struct bcase *new_case(struct bconfig *c, unsigned line,
			      const char *name)
{
	struct bcase *k;

	if (!name || strlen(name) >= sizeof(k->name)) {
		add_error(c, line, "@bench without a usable case=", NULL);
		return NULL;
	}
	if (report_case(c, name)) {
		add_error(c, line, "a second record for case", name);
		return NULL;
	}
	if (c->ncases == REPORT_MAX_CASES) {
		add_error(c, line, "too many cases", name);
		return NULL;
	}
	k = &c->cases[c->ncases++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	return k;
}

static void take_record(struct bconfig *c, struct record *r, unsigned line,
			int *in_perf)
{
	struct bcase *k;
	uint64_t u;
	double d;

	if (!strcmp(r->name, "config")) {
		if (c->hdr.name)
			add_error(c, line, "a second @config", NULL);
		else
			rec_copy(&c->hdr, r);
	} else if (!strcmp(r->name, "config_end")) {
		const char *s = rec_get(r, "status");

		/* ok, skipped (cannot run here), anything else failed */
		snprintf(c->status, sizeof(c->status), "%s",
			 s && (!strcmp(s, "ok") || !strcmp(s, "skipped")) ?
			 s : "failed");
		s = rec_get(r, "reason");
		snprintf(c->reason, sizeof(c->reason), "%s", s ? s : "");
		if (strcmp(c->status, "ok") && !s)
			snprintf(c->reason, sizeof(c->reason), "unknown");
		c->rc = rec_get_double(r, "rc", &d) ? 0 : (long long)d;
		c->wall_ms = rec_get_u64(r, "wall_ms", &u) ? 0 : (long long)u;
	} else if (!strcmp(r->name, "bench")) {
		k = new_case(c, line, rec_get(r, "case"));
		if (k)
			rec_copy(&k->rec, r);
	} else if (!strcmp(r->name, "bench_skip")) {
		k = new_case(c, line, rec_get(r, "case"));
		if (k) {
			k->skipped = 1;
			snprintf(k->reason, sizeof(k->reason), "%s",
				 rec_get(r, "reason") ? rec_get(r, "reason") :
				 "none-given");
		}
	} else if (!strcmp(r->name, "tsc_sync")) {
		rec_copy(&c->tsc_sync, r);
	} else if (!strcmp(r->name, "calib")) {
		rec_copy(&c->calib, r);
	} else if (!strcmp(r->name, "native_futex")) {
		rec_copy(&c->native, r);
	} else if (!strcmp(r->name, "perf")) {
		*in_perf = 1;
	} else if (!strcmp(r->name, "perf_failed")) {
		add_error(c, line, "perf bench futex wake failed",
			  rec_get(r, "reason") ? rec_get(r, "reason") :
			  rec_get(r, "rc"));
	} else if (!strcmp(r->name, "panic")) {
		add_error(c, line, "kernel @panic", rec_get(r, "reason"));
	}
}

int report_read(const char *path, struct bconfig *c)
{
	char line[REC_LINE_MAX + 64];
	static struct record r;
	struct wake_summary w;
	unsigned n = 0;
	int in_perf = 0, err;
	size_t at;
	FILE *f;
	const char *base = strrchr(path, '/');

	memset(c, 0, sizeof(*c));
	snprintf(c->file, sizeof(c->file), "%s", path);
	/* the name until the header says otherwise: the file's */
	snprintf(c->name, sizeof(c->name), "%s", base ? base + 1 : path);
	if (strchr(c->name, '.'))
		*strrchr(c->name, '.') = '\0';
	set_failed(c, "truncated");	/* until @config_end says */
	c->passes = 1;
	f = fopen(path, "r");
	if (!f) {
		set_failed(c, "unreadable");
		add_error(c, 0, "cannot open", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			int ch;

			add_error(c, n, "line too long, skipped", NULL);
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			continue;
		}
		err = rec_parse(line, &r, &at);
		if (err == REC_ENOTREC) {
			if (!rec_parse_wokeup(line, &w)) {
				if (in_perf) {
					c->perf = w;
					c->have_perf = 1;
				} else if (c->nwokeup < REPORT_MAX_WOKEUP) {
					c->wokeup[c->nwokeup++] = w;
				}
			}
			continue;
		}
		if (err) {
			char d[96];

			snprintf(d, sizeof(d), "%s at byte %zu",
				 rec_strerror(err), at);
			add_error(c, n, "malformed record", d);
			continue;
		}
		take_record(c, &r, n, &in_perf);
	}
	fclose(f);
	c->passes_ok = !strcmp(c->status, "ok");
	if (!c->hdr.name)
		add_error(c, 1, "no @config header", NULL);
	else if (rec_get(&c->hdr, "name"))
		snprintf(c->name, sizeof(c->name), "%s",
			 rec_get(&c->hdr, "name"));
	return 0;
}

const struct bcase *report_case(const struct bconfig *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->ncases; i++)
		if (!strcmp(c->cases[i].name, name))
			return &c->cases[i];
	return NULL;
}

const struct bconfig *report_ref(const struct bconfig *c, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, "qemu-kvm-on") &&
		    !strcmp(c[i].status, "ok"))
			return &c[i];
	return NULL;
}

const char *report_qemu_kvm_cpu(const struct bconfig *c, unsigned n)
{
	const char *kind, *cpu;
	unsigned i;

	for (i = 0; i < n; i++) {
		kind = rec_get(&c[i].hdr, "kind");
		cpu = rec_get(&c[i].hdr, "cpu_probed");
		if (kind && !strcmp(kind, "qemu-kvm") && cpu &&
		    strcmp(cpu, "none"))
			return cpu;
	}
	return NULL;
}
