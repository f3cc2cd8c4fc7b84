/* SPDX-License-Identifier: MIT */
/*
 * Exit accounting.  Each vCPU owns one struct vcpu_stats and is its only
 * writer, so the hot path is a handful of plain (relaxed) stores: no lock,
 * no shared cache line.  Readers (the snapshot port, the final report) sum
 * over vCPUs with relaxed loads.
 */
#ifndef VMM_STATS_H
#define VMM_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "hw/irqlab.h"

#define STATS_NR_REASONS	64	/* KVM_EXIT_* values are below this */
/* log2 buckets of an exit's userspace handling time: bucket b counts
 * [2^b, 2^(b+1)) ns, bucket 0 also 0 and 1 ns, the last everything from
 * 2^31 ns (2.1 s) up (as bpftrace's hist()) */
#define STATS_HIST_BUCKETS	32
#define STATS_TABLE_SIZE	256	/* distinct ports / MMIO addresses / MSRs */

/* Direction index of a keyed counter. */
#define STATS_RD	0
#define STATS_WR	1

struct stats_slot {
	uint64_t key;		/* port, MMIO address or MSR index, + 1 */
	uint64_t count[2];	/* reads (in, rdmsr), writes (out, wrmsr) */
};

/* Open-addressed, insert-only; when it is full, accesses land in @overflow. */
struct stats_table {
	struct stats_slot slot[STATS_TABLE_SIZE];
	uint64_t overflow;
};

struct vcpu_stats {
	uint64_t reason[IRQLAB_NR_PHASES][STATS_NR_REASONS];
	uint64_t reason_ns[STATS_NR_REASONS];	/* userspace handling time */
	/* ... and its distribution, per guest phase */
	uint64_t hist[IRQLAB_NR_PHASES][STATS_NR_REASONS][STATS_HIST_BUCKETS];
	uint64_t cls[IRQLAB_NR_PHASES][IRQLAB_NR_EXIT_CLASSES];
	struct stats_table port;
	struct stats_table mmio;
	struct stats_table msr;
};

static inline void stat_add(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static inline uint64_t stat_get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void stats_table_inc(struct stats_table *t, uint64_t key, int dir);

/* Count one exit of KVM reason @reason in @phase; @cls are IRQLAB_CNT_*
 * classes it belongs to (terminated by -1). */
void stats_exit(struct vcpu_stats *s, unsigned phase, unsigned reason,
		const int *cls);

/* The log2 bucket of @ns (STATS_HIST_BUCKETS). */
static inline unsigned stats_bucket(uint64_t ns)
{
	unsigned b = ns < 2 ? 0 : 63 - __builtin_clzll(ns);

	return b < STATS_HIST_BUCKETS ? b : STATS_HIST_BUCKETS - 1;
}

/* @ns of userspace handling for one exit of @reason in @phase: its sum
 * and its histogram bucket, two relaxed stores. */
void stats_time(struct vcpu_stats *s, unsigned phase, unsigned reason,
		uint64_t ns);

/* The upper bound, in ns, of the bucket that holds the @pct-th
 * percentile (nearest rank) of @hist; 0 for an empty one. */
uint64_t stats_hist_pct(const uint64_t *hist, unsigned pct);

/* Sum class @cls over vCPUs and phases. */
uint64_t stats_sum_class(struct vcpu_stats *const *v, unsigned n, unsigned cls);

/* Fill a guest snapshot: the exit classes summed over all vCPUs and
 * phases; the VM-wide counters after them are left 0 for the caller. */
void stats_snapshot(struct vcpu_stats *const *v, unsigned n,
		    struct irqlab_snapshot *snap, unsigned phase);

const char *stats_reason_name(unsigned reason);
const char *stats_phase_name(unsigned phase);
const char *stats_class_name(unsigned cls);

/* Resolves an MMIO address to "device+0xoff" for the report. */
typedef void (*stats_mmio_namer)(void *ctx, uint64_t addr, char *buf,
				 size_t len);

struct stats_report {
	struct vcpu_stats *const *vcpu;
	unsigned nr_vcpus;
	uint64_t wall_ns;
	uint64_t unclaimed_pio_rd, unclaimed_pio_wr;
	uint64_t unclaimed_mmio_rd, unclaimed_mmio_wr;
	uint64_t rss_peak_kb;		/* getrusage: the whole process */
	uint64_t guest_resident_kb;	/* guest RAM pages resident (mincore) */
	/* names for the report: the device at a port, "device+0xoff" */
	void *name_ctx;
	const char *(*port_name)(void *ctx, uint16_t port);
	stats_mmio_namer mmio_name;
};

void stats_print_table(FILE *f, const struct stats_report *r);
void stats_print_json(FILE *f, const struct stats_report *r);

#endif
