// SPDX-License-Identifier: MIT
/* Exit counters and the --stats / --stats-json reports.  See stats.h. */
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

static uint64_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

void stats_table_inc(struct stats_table *t, uint64_t key, int dir)
{
	uint64_t stored = key + 1;	/* 0 marks an empty slot */
	unsigned i, h = hash64(key) % STATS_TABLE_SIZE;

	for (i = 0; i < STATS_TABLE_SIZE; i++) {
		struct stats_slot *s = &t->slot[(h + i) % STATS_TABLE_SIZE];
		uint64_t k = stat_get(&s->key);

		if (k == stored) {
			stat_add(&s->count[dir], 1);
			return;
		}
		if (k == 0) {
			/* publish the count before the key: a reader that
			 * sees the key sees a non-zero count */
			stat_add(&s->count[dir], 1);
			__atomic_store_n(&s->key, stored, __ATOMIC_RELEASE);
			return;
		}
	}
	stat_add(&t->overflow, 1);
}

void stats_exit(struct vcpu_stats *s, unsigned phase, unsigned reason,
		const int *cls)
{
	if (phase >= IRQLAB_NR_PHASES)
		phase = IRQLAB_PHASE_EARLY;
	if (reason >= STATS_NR_REASONS)
		reason = KVM_EXIT_UNKNOWN;
	stat_add(&s->reason[phase][reason], 1);
	for (; *cls >= 0; cls++)
		stat_add(&s->cls[phase][*cls], 1);
}

void stats_time(struct vcpu_stats *s, unsigned phase, unsigned reason,
		uint64_t ns)
{
	if (phase >= IRQLAB_NR_PHASES)
		phase = IRQLAB_PHASE_EARLY;
	reason %= STATS_NR_REASONS;
	stat_add(&s->reason_ns[reason], ns);
	stat_add(&s->hist[phase][reason][stats_bucket(ns)], 1);
}

uint64_t stats_hist_pct(const uint64_t *hist, unsigned pct)
{
	uint64_t n = 0, rank, seen = 0;
	unsigned b;

	for (b = 0; b < STATS_HIST_BUCKETS; b++)
		n += hist[b];
	if (!n)
		return 0;
	rank = (n * pct + 99) / 100;		/* nearest rank, 1-based */
	if (!rank)
		rank = 1;
	for (b = 0; b < STATS_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	return b == STATS_HIST_BUCKETS - 1 ? UINT64_MAX : 2ull << b;
}

uint64_t stats_sum_class(struct vcpu_stats *const *v, unsigned n, unsigned cls)
{
	uint64_t sum = 0;
	unsigned i, p;

	for (i = 0; i < n; i++)
		for (p = 0; p < IRQLAB_NR_PHASES; p++)
			sum += stat_get(&v[i]->cls[p][cls]);
	return sum;
}

void stats_snapshot(struct vcpu_stats *const *v, unsigned n,
		    struct irqlab_snapshot *snap, unsigned phase)
{
	unsigned c;

	snap->count = IRQLAB_NR_COUNTERS;
	snap->ncpus = n;
	snap->phase = phase;
	for (c = 0; c < IRQLAB_NR_COUNTERS; c++)
		snap->counter[c] = c < IRQLAB_NR_EXIT_CLASSES ?
				   stats_sum_class(v, n, c) : 0;
}

static const char *const reason_names[STATS_NR_REASONS] = {
	[KVM_EXIT_UNKNOWN] = "UNKNOWN",
	[KVM_EXIT_EXCEPTION] = "EXCEPTION",
	[KVM_EXIT_IO] = "IO",
	[KVM_EXIT_HYPERCALL] = "HYPERCALL",
	[KVM_EXIT_DEBUG] = "DEBUG",
	[KVM_EXIT_HLT] = "HLT",
	[KVM_EXIT_MMIO] = "MMIO",
	[KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
	[KVM_EXIT_SHUTDOWN] = "SHUTDOWN",
	[KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY",
	[KVM_EXIT_INTR] = "INTR",
	[KVM_EXIT_SET_TPR] = "SET_TPR",
	[KVM_EXIT_TPR_ACCESS] = "TPR_ACCESS",
	[KVM_EXIT_NMI] = "NMI",
	[KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
	[KVM_EXIT_SYSTEM_EVENT] = "SYSTEM_EVENT",
	[KVM_EXIT_IOAPIC_EOI] = "IOAPIC_EOI",
	[KVM_EXIT_X86_RDMSR] = "X86_RDMSR",
	[KVM_EXIT_X86_WRMSR] = "X86_WRMSR",
	[KVM_EXIT_X86_BUS_LOCK] = "X86_BUS_LOCK",
	[KVM_EXIT_NOTIFY] = "NOTIFY",
};

const char *stats_reason_name(unsigned reason)
{
	if (reason < STATS_NR_REASONS && reason_names[reason])
		return reason_names[reason];
	return "OTHER";
}

const char *stats_phase_name(unsigned phase)
{
	static const char *const names[IRQLAB_NR_PHASES] = {
		"early", "calib", "smp", "bench", "idle",
	};

	return phase < IRQLAB_NR_PHASES ? names[phase] : "?";
}

const char *stats_class_name(unsigned cls)
{
	static const char *const names[IRQLAB_NR_COUNTERS] = {
		"total", "pio", "mmio", "msr", "hlt", "irq_window", "kick",
		"other", "protocol", "apic", "apic_send", "apic_eoi",
		"rte_writes", "tmr_updates", "remote_tmr_updates",
	};

	return cls < IRQLAB_NR_COUNTERS ? names[cls] : "?";
}

/* ---- the reports ---- */

/* Peak RSS beyond the guest RAM pages that were touched. */
static uint64_t vmm_own_kb(const struct stats_report *r)
{
	return r->rss_peak_kb > r->guest_resident_kb ?
	       r->rss_peak_kb - r->guest_resident_kb : 0;
}

/* One merged row of a keyed table. */
struct key_row {
	uint64_t key;
	uint64_t count[2];
};

static int key_row_cmp(const void *a, const void *b)
{
	const struct key_row *x = a, *y = b;
	uint64_t nx = x->count[0] + x->count[1], ny = y->count[0] + y->count[1];

	if (nx != ny)
		return nx < ny ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Merge one table kind (offset of the table in vcpu_stats) over vCPUs. */
static unsigned merge_table(const struct stats_report *r, size_t table_off,
			    struct key_row *rows, uint64_t *overflow)
{
	unsigned n = 0, i, j, k;

	*overflow = 0;
	for (i = 0; i < r->nr_vcpus; i++) {
		const struct stats_table *t =
			(const void *)((const char *)r->vcpu[i] + table_off);

		*overflow += stat_get(&t->overflow);
		for (j = 0; j < STATS_TABLE_SIZE; j++) {
			uint64_t key = __atomic_load_n(&t->slot[j].key,
						       __ATOMIC_ACQUIRE);

			if (!key)
				continue;
			for (k = 0; k < n && rows[k].key != key - 1; k++)
				;
			if (k == n) {
				if (n == STATS_TABLE_SIZE)
					continue;
				memset(&rows[n], 0, sizeof(rows[n]));
				rows[n++].key = key - 1;
			}
			rows[k].count[0] += stat_get(&t->slot[j].count[0]);
			rows[k].count[1] += stat_get(&t->slot[j].count[1]);
		}
	}
	qsort(rows, n, sizeof(*rows), key_row_cmp);
	return n;
}

static uint64_t reason_total(const struct stats_report *r, unsigned reason,
			     int phase)
{
	uint64_t sum = 0;
	unsigned i, p;

	for (i = 0; i < r->nr_vcpus; i++)
		for (p = 0; p < IRQLAB_NR_PHASES; p++)
			if (phase < 0 || (unsigned)phase == p)
				sum += stat_get(&r->vcpu[i]->reason[p][reason]);
	return sum;
}

static uint64_t reason_ns(const struct stats_report *r, unsigned reason)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < r->nr_vcpus; i++)
		sum += stat_get(&r->vcpu[i]->reason_ns[reason]);
	return sum;
}

/* The handling-time histogram of @reason, over vCPU @vcpu and phase
 * @phase (each -1: all of them), into @out. */
static void reason_hist(const struct stats_report *r, unsigned reason,
			int vcpu, int phase, uint64_t *out)
{
	unsigned i, p, b;

	memset(out, 0, STATS_HIST_BUCKETS * sizeof(*out));
	for (i = 0; i < r->nr_vcpus; i++) {
		if (vcpu >= 0 && (unsigned)vcpu != i)
			continue;
		for (p = 0; p < IRQLAB_NR_PHASES; p++) {
			if (phase >= 0 && (unsigned)phase != p)
				continue;
			for (b = 0; b < STATS_HIST_BUCKETS; b++)
				out[b] += stat_get(&r->vcpu[i]->hist[p][reason][b]);
		}
	}
}

/* A percentile's bucket bound in us, for the table. */
static void pct_us(char *buf, size_t len, uint64_t ns)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, ">%.0f", (double)(1ull << 31) / 1e3);
	else
		snprintf(buf, len, "%.2f", ns / 1e3);
}

static uint64_t all_exits(const struct stats_report *r, int phase)
{
	uint64_t sum = 0;
	unsigned reason;

	for (reason = 0; reason < STATS_NR_REASONS; reason++)
		sum += reason_total(r, reason, phase);
	return sum;
}

static void key_name(const struct stats_report *r, size_t off, uint64_t key,
		     char *buf, size_t len)
{
	if (off == offsetof(struct vcpu_stats, port)) {
		const char *dev = r->port_name ? r->port_name(r->name_ctx, key) : NULL;

		snprintf(buf, len, "0x%04" PRIx64 " %s", key, dev ? dev : "-");
	} else if (off == offsetof(struct vcpu_stats, mmio)) {
		char dev[48] = "-";

		if (r->mmio_name)
			r->mmio_name(r->name_ctx, key, dev, sizeof(dev));
		snprintf(buf, len, "0x%08" PRIx64 " %s", key, dev);
	} else {
		snprintf(buf, len, "0x%08" PRIx64, key);
	}
}

static void print_keyed(FILE *f, const struct stats_report *r, size_t off,
			const char *title, const char *rd, const char *wr)
{
	struct key_row *rows = calloc(STATS_TABLE_SIZE, sizeof(*rows));
	uint64_t overflow;
	unsigned i, n;
	char name[80];

	if (!rows)
		return;
	n = merge_table(r, off, rows, &overflow);
	if (n) {
		fprintf(f, "\n %-32s %10s %10s\n", title, rd, wr);
		for (i = 0; i < n; i++) {
			key_name(r, off, rows[i].key, name, sizeof(name));
			fprintf(f, " %-32s %10" PRIu64 " %10" PRIu64 "\n", name,
				rows[i].count[0], rows[i].count[1]);
		}
	}
	if (overflow)
		fprintf(f, " (%" PRIu64 " more in untracked keys)\n", overflow);
	free(rows);
}

void stats_print_table(FILE *f, const struct stats_report *r)
{
	uint64_t total = all_exits(r, -1);
	unsigned reason, p;

	fprintf(f, "\nirqlab-vmm exits: %" PRIu64 " total, %u vCPU%s, "
		"%.3f ms wall\n", total, r->nr_vcpus,
		r->nr_vcpus == 1 ? "" : "s", r->wall_ns / 1e6);
	fprintf(f, " %-20s %10s %7s %12s %10s %10s\n", "reason", "count",
		"share", "mean_us", "p50_us", "p99_us");
	for (reason = 0; reason < STATS_NR_REASONS; reason++) {
		uint64_t n = reason_total(r, reason, -1);
		uint64_t hist[STATS_HIST_BUCKETS];
		char p50[16], p99[16];

		if (!n)
			continue;
		reason_hist(r, reason, -1, -1, hist);
		pct_us(p50, sizeof(p50), stats_hist_pct(hist, 50));
		pct_us(p99, sizeof(p99), stats_hist_pct(hist, 99));
		fprintf(f, " %-20s %10" PRIu64 " %6.1f%% %12.2f %10s %10s\n",
			stats_reason_name(reason), n, 100.0 * n / total,
			reason_ns(r, reason) / 1e3 / n, p50, p99);
	}
	fprintf(f, " (userspace handling time; p50 and p99 are the upper "
		"bounds of their log2 buckets)\n");
	fprintf(f, "\n %-20s %10s\n", "phase", "exits");
	for (p = 0; p < IRQLAB_NR_PHASES; p++) {
		uint64_t n = all_exits(r, p);

		if (n)
			fprintf(f, " %-20s %10" PRIu64 "\n",
				stats_phase_name(p), n);
	}
	print_keyed(f, r, offsetof(struct vcpu_stats, port), "port", "in",
		    "out");
	print_keyed(f, r, offsetof(struct vcpu_stats, mmio), "mmio", "read",
		    "write");
	print_keyed(f, r, offsetof(struct vcpu_stats, msr), "msr", "rdmsr",
		    "wrmsr");
	fprintf(f, "\n unclaimed: pio %" PRIu64 " in, %" PRIu64 " out; "
		"mmio %" PRIu64 " read, %" PRIu64 " write\n",
		r->unclaimed_pio_rd, r->unclaimed_pio_wr,
		r->unclaimed_mmio_rd, r->unclaimed_mmio_wr);
	fprintf(f, " memory: peak RSS %" PRIu64 " KiB = guest RAM touched %"
		PRIu64 " KiB + irqlab-vmm %" PRIu64 " KiB\n", r->rss_peak_kb,
		r->guest_resident_kb, vmm_own_kb(r));
}

static void json_keyed(FILE *f, const struct stats_report *r, size_t off,
		       const char *field, const char *fmt)
{
	struct key_row *rows = calloc(STATS_TABLE_SIZE, sizeof(*rows));
	uint64_t overflow;
	unsigned i, n = 0;

	if (rows)
		n = merge_table(r, off, rows, &overflow);
	fprintf(f, ",\"%s\":{", field);
	for (i = 0; i < n; i++) {
		char name[64];

		/* MMIO keys read "device+0xoffset" where a device claims them */
		if (off == offsetof(struct vcpu_stats, mmio) && r->mmio_name)
			r->mmio_name(r->name_ctx, rows[i].key, name,
				     sizeof(name));
		else
			snprintf(name, sizeof(name), fmt, rows[i].key);
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", name,
			rows[i].count[0] + rows[i].count[1]);
	}
	fputc('}', f);
	free(rows);
}

static void json_reasons(FILE *f, const struct stats_report *r, int phase)
{
	unsigned reason;
	int first = 1;

	fputc('{', f);
	for (reason = 0; reason < STATS_NR_REASONS; reason++) {
		uint64_t n = reason_total(r, reason, phase);

		if (!n)
			continue;
		fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",",
			stats_reason_name(reason), n);
		first = 0;
	}
	fputc('}', f);
}

static void json_hist(FILE *f, const uint64_t *hist)
{
	unsigned b;

	fputc('[', f);
	for (b = 0; b < STATS_HIST_BUCKETS; b++)
		fprintf(f, "%s%" PRIu64, b ? "," : "", hist[b]);
	fputc(']', f);
}

static uint64_t json_pct(const uint64_t *hist, unsigned pct)
{
	uint64_t ns = stats_hist_pct(hist, pct);

	return ns == UINT64_MAX ? 0 : ns;	/* 0: beyond the last bound */
}

/* "exit_times": each reason's userspace handling time as a log2
 * histogram, in all, per vCPU and per guest phase */
static void json_times(FILE *f, const struct stats_report *r)
{
	uint64_t hist[STATS_HIST_BUCKETS];
	unsigned reason, i, p;
	int first = 1;

	fprintf(f, ",\"exit_times\":{\"unit\":\"ns\",\"buckets\":%u,"
		"\"bucket\":\"b counts [2^b, 2^(b+1)) ns; b=0 also 0 and 1 ns; "
		"the last also every longer time\",\"by_reason\":{",
		STATS_HIST_BUCKETS);
	for (reason = 0; reason < STATS_NR_REASONS; reason++) {
		uint64_t n = 0;
		unsigned b;

		reason_hist(r, reason, -1, -1, hist);
		for (b = 0; b < STATS_HIST_BUCKETS; b++)
			n += hist[b];
		if (!n)
			continue;
		fprintf(f, "%s\"%s\":{\"count\":%" PRIu64 ",\"sum_ns\":%" PRIu64
			",\"p50_ns_le\":%" PRIu64 ",\"p99_ns_le\":%" PRIu64
			",\"hist\":", first ? "" : ",",
			stats_reason_name(reason), n, reason_ns(r, reason),
			json_pct(hist, 50), json_pct(hist, 99));
		json_hist(f, hist);
		fputs(",\"by_vcpu\":[", f);
		for (i = 0; i < r->nr_vcpus; i++) {
			reason_hist(r, reason, (int)i, -1, hist);
			if (i)
				fputc(',', f);
			json_hist(f, hist);
		}
		fputs("],\"by_phase\":{", f);
		for (p = 0; p < IRQLAB_NR_PHASES; p++) {
			reason_hist(r, reason, -1, (int)p, hist);
			fprintf(f, "%s\"%s\":", p ? "," : "", stats_phase_name(p));
			json_hist(f, hist);
		}
		fputs("}}", f);
		first = 0;
	}
	fputs("}}", f);
}

void stats_print_json(FILE *f, const struct stats_report *r)
{
	unsigned p, c;

	fprintf(f, "{\"vcpus\":%u,\"wall_ns\":%" PRIu64, r->nr_vcpus,
		r->wall_ns);
	fprintf(f, ",\"exits\":{\"total\":%" PRIu64 ",\"by_reason\":",
		all_exits(r, -1));
	json_reasons(f, r, -1);
	json_keyed(f, r, offsetof(struct vcpu_stats, port), "by_port",
		   "0x%" PRIx64);
	json_keyed(f, r, offsetof(struct vcpu_stats, mmio), "by_mmio",
		   "0x%" PRIx64);
	json_keyed(f, r, offsetof(struct vcpu_stats, msr), "by_msr",
		   "0x%" PRIx64);
	fputs(",\"by_phase\":{", f);
	for (p = 0; p < IRQLAB_NR_PHASES; p++) {
		fprintf(f, "%s\"%s\":{\"total\":%" PRIu64 ",\"by_reason\":",
			p ? "," : "", stats_phase_name(p), all_exits(r, p));
		json_reasons(f, r, p);
		fputc('}', f);
	}
	fputs("},\"classes\":{", f);
	for (c = 0; c < IRQLAB_NR_EXIT_CLASSES; c++)
		fprintf(f, "%s\"%s\":%" PRIu64, c ? "," : "",
			stats_class_name(c),
			stats_sum_class(r->vcpu, r->nr_vcpus, c));
	fprintf(f, "},\"unclaimed\":{\"pio_in\":%" PRIu64 ",\"pio_out\":%"
		PRIu64 ",\"mmio_read\":%" PRIu64 ",\"mmio_write\":%" PRIu64
		"}}", r->unclaimed_pio_rd, r->unclaimed_pio_wr,
		r->unclaimed_mmio_rd, r->unclaimed_mmio_wr);
	json_times(f, r);
	fprintf(f, ",\"memory\":{\"rss_peak_kb\":%" PRIu64
		",\"guest_resident_kb\":%" PRIu64 ",\"vmm_own_kb\":%" PRIu64
		"}}\n", r->rss_peak_kb, r->guest_resident_kb, vmm_own_kb(r));
}
