/* SPDX-License-Identifier: MIT */
/*
 * bench-report's model of a runner's output: one struct bconfig per
 * config file (guest-bench/run writes them; docs/BENCHMARKS.md "Host
 * runner").
 */
#ifndef GUEST_BENCH_REPORT_H
#define GUEST_BENCH_REPORT_H

#include <stdio.h>

#include "records.h"

#define REPORT_MAX_CASES	64
#define REPORT_MAX_ERRORS	16
#define REPORT_MAX_WOKEUP	8

struct bcase {
	char name[64];
	int skipped;			/* @bench_skip */
	char reason[32];
	struct record rec;		/* @bench, when !skipped */
};

struct bconfig {
	char name[64];
	char file[512];
	struct record hdr;		/* @config; hdr.name NULL if absent */
	char status[16];		/* ok, failed */
	char reason[96];
	long long rc, wall_ms;
	struct bcase cases[REPORT_MAX_CASES];
	unsigned ncases;
	struct record tsc_sync, calib, native;
	struct wake_summary perf;	/* perf bench futex wake, native */
	int have_perf;
	struct wake_summary wokeup[REPORT_MAX_WOKEUP];	/* the guest's */
	unsigned nwokeup;
	char errors[REPORT_MAX_ERRORS][160];
	unsigned nerrors, more_errors;
	unsigned passes, passes_ok;	/* report_merge(); 1, 0|1 before */
};

struct host_info {
	char cpu_model[128];
	long cpus;
	char sysname[65], release[65], version[65], machine[65];
	char git_rev[64], git_describe[64];
	char date[32];
};

/* One config file into @c: 0, or -1 if it cannot be read (c->status
 * says failed and why). */
int report_read(const char *path, struct bconfig *c);

/* The case @name of @c, or NULL. */
const struct bcase *report_case(const struct bconfig *c, const char *name);
/* The reference config for ratios: QEMU with KVM, kernel_irqchip=on. */
const struct bconfig *report_ref(const struct bconfig *c, unsigned n);
/* The -cpu model the runner's probe chose for QEMU/KVM (the qemu-kvm
 * configs' cpu_probed), or NULL if none was (or none starts). */
const char *report_qemu_kvm_cpu(const struct bconfig *c, unsigned n);

/*
 * report_merge.c: the runner's passes of one config (files with the
 * same @config name) into one struct bconfig in @out (room for @n),
 * in order of first appearance; returns how many.  Per case, each
 * numeric field is the median over the passes that reported it, plus
 * passes=K and p50_ns_min/p50_ns_max; the Wokeup lines are one per pass.
 */
unsigned report_merge(const struct bconfig *in, unsigned n,
		      struct bconfig *out);

/* report_md.c */
void report_markdown(FILE *f, const struct bconfig *c, unsigned n,
		     const struct host_info *h);
/* Replace what is between the markers in @doc by @md; 0 or -1. */
int report_update_doc(const char *doc, const char *md);

#define DOC_BEGIN	"<!-- bench-results:begin -->"
#define DOC_END		"<!-- bench-results:end -->"

#endif
