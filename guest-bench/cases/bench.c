// SPDX-License-Identifier: MIT
/*
 * The common part of the guest cases: which cases to run, the sample
 * buffers, the statistics and the @bench record (docs/RECORDS.md).
 */
#include <stdint.h>

#include "bench.h"
#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "lib/kstring.h"
#include "smp/idle.h"
#include "dev/lapic.h"
#include "lib/printf.h"
#include "dev/pv.h"
#include "dev/pv_ipi.h"
#include "smp/smp.h"
#include "arch/x86.h"

struct bench_case {
	const char *name;
	void (*run)(void);
};

/* In priority order; bench=all runs them in this order. */
static const struct bench_case cases[] = {
	{ "ipi_pingpong", case_ipi_pingpong },
	{ "ipi_wake", case_ipi_wake },
	{ "self_ipi", case_self_ipi },
	{ "broadcast.shorthand", case_broadcast_shorthand },
	{ "broadcast.unicast", case_broadcast_unicast },
	{ "broadcast.multicast", case_broadcast_multicast },
	{ "exit_cost.cpuid", case_exit_cpuid },
	{ "exit_cost.pio", case_exit_pio },
	{ "exit_cost.apic_read", case_exit_apic_read },
	{ "exit_cost.mmio", case_exit_mmio },
	{ "exit_cost.hlt", case_exit_hlt },
	{ "timer", case_timer },
	{ "futex_wake", case_futex_wake },
	{ "ioapic_rotate", case_ioapic_rotate },
};
#define NR_CASES	(sizeof(cases) / sizeof(cases[0]))

static uint64_t bufs[2][BENCH_ITERS_MAX];
static unsigned iters = BENCH_ITERS_DEFAULT;

unsigned bench_iters(void)
{
	return iters;
}

uint64_t *bench_buf(unsigned which)
{
	return bufs[which & 1];
}

void bench_exits_begin(struct bench_exits *e)
{
	e->valid = !pv_snapshot(&e->before);
	e->poll_before = idle_poll_cycles();
}

void bench_exits_end(struct bench_exits *e)
{
	e->poll_after = idle_poll_cycles();
	if (e->valid)
		e->valid = !pv_snapshot(&e->after);
}

void bench_exits_zero(struct bench_exits *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->valid = 1;
	sum->before.count = sum->after.count = IRQLAB_NR_COUNTERS;
}

void bench_exits_add(struct bench_exits *sum, const struct bench_exits *one)
{
	unsigned i;

	sum->poll_after += one->poll_after - one->poll_before;
	if (!one->valid || one->before.count < IRQLAB_NR_COUNTERS ||
	    one->after.count < IRQLAB_NR_COUNTERS) {
		sum->valid = 0;
		return;
	}
	for (i = 0; i < IRQLAB_NR_COUNTERS; i++)
		sum->after.counter[i] += one->after.counter[i] -
					 one->before.counter[i];
}

/*
 * The TSC is read only once a wait has spun 256 times, so a wait that
 * ends sooner (most of them, inside the timed samples) costs no RDTSC,
 * which traps under some hypervisors.
 */
int bench_wait_us(const uint32_t *p, uint32_t want, uint64_t us)
{
	uint64_t khz = calib_tsc_khz(), t, end = 0;
	unsigned long n;

	for (n = 0; n < BENCH_WAIT_LOOPS; n++) {
		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) >= want)
			return 0;
		if (khz && n && !(n & 255)) {
			t = rdtsc();
			if (!end)
				end = t + khz * us / 1000;
			else if (t > end)
				break;
		}
		cpu_relax();
	}
	return -1;
}

int bench_wait(const uint32_t *p, uint32_t want)
{
	return bench_wait_us(p, want, BENCH_WAIT_MS * 1000ull);
}

/*
 * Before a window of the BSP alone: the VMM's exit counters are the whole
 * VM's, so an AP that reaches its idle HLT inside the window (one just
 * brought up, or back from a case) would add its HLT exit.  Wait, at
 * most BENCH_WAIT_MS, until every other online CPU says it is halting
 * (idle.c), then spin 1 ms of TSC for the HLT exits themselves to land.
 */
void bench_settle_aps(void)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();

	while (!idle_all_halting()) {
		cpu_relax();
		if (khz && rdtsc() - t0 > khz * BENCH_WAIT_MS)
			break;
	}
	t0 = rdtsc();
	while (rdtsc() - t0 < (khz ? khz : 2000000))
		cpu_relax();
}

static uint32_t ap_entered, ap_left, ap_stop;

void bench_ap_enter(void)
{
	__atomic_fetch_add(&ap_entered, 1, __ATOMIC_ACQ_REL);
}

void bench_ap_leave(void)
{
	__atomic_fetch_add(&ap_left, 1, __ATOMIC_ACQ_REL);
}

int bench_ap_stopping(void)
{
	return __atomic_load_n(&ap_stop, __ATOMIC_ACQUIRE);
}

int bench_aps_start(void (*fn)(void), unsigned want)
{
	__atomic_store_n(&ap_entered, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ap_left, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ap_stop, 0, __ATOMIC_RELEASE);
	smp_run_on_aps(fn);
	if (bench_wait(&ap_entered, want)) {
		bench_aps_stop();
		return -1;
	}
	return 0;
}

void bench_aps_stop(void)
{
	__atomic_store_n(&ap_stop, 1, __ATOMIC_RELEASE);
	/* an AP waiting in HLT needs an interrupt to see the flag */
	lapic_send_others(IPI_VEC_WAKE);
	bench_wait(&ap_left, __atomic_load_n(&ap_entered, __ATOMIC_ACQUIRE));
}

/* Shell sort with Ciura's gaps, extended by x2.25 (no libc here). */
static void sort_u64(uint64_t *a, unsigned n)
{
	static const unsigned ciura[] = { 1, 4, 10, 23, 57, 132, 301, 701 };
	unsigned gaps[32], ng = 0, g, i, j, k;
	uint64_t v;

	for (i = 0; i < sizeof(ciura) / sizeof(ciura[0]) && ciura[i] < n; i++)
		gaps[ng++] = ciura[i];
	if (ng == sizeof(ciura) / sizeof(ciura[0]))
		while ((g = gaps[ng - 1] * 9 / 4) < n && ng < 32)
			gaps[ng++] = g;
	for (k = ng; k-- > 0;) {
		g = gaps[k];
		for (i = g; i < n; i++) {
			v = a[i];
			for (j = i; j >= g && a[j - g] > v; j -= g)
				a[j] = a[j - g];
			a[j] = v;
		}
	}
}

/* Nearest rank: the ceil(p/100 * n)-th smallest of the sorted @a. */
static uint64_t pct(const uint64_t *a, unsigned n, unsigned p)
{
	uint64_t rank = ((uint64_t)p * n + 99) / 100;

	return a[rank ? rank - 1 : 0];
}

/* @x / @d with two decimals, rounded: into @buf */
static void fmt_ratio(char *buf, size_t size, uint64_t x, uint64_t d)
{
	uint64_t c = (x * 100 + d / 2) / d;

	ksnprintf(buf, size, "%lu.%02lu", c / 100, c % 100);
}

static uint64_t counter(const struct bench_exits *e, enum irqlab_counter c)
{
	if (e->before.count <= c || e->after.count <= c)
		return 0;
	return e->after.counter[c] - e->before.counter[c];
}

static int print_exits(char *buf, size_t size, const struct bench_exits *e,
		       uint64_t ops)
{
	static const enum irqlab_counter cls[] = { IRQLAB_CNT_APIC_SEND,
		IRQLAB_CNT_KICK, IRQLAB_CNT_APIC_EOI, IRQLAB_CNT_HLT };
	static const char *const names[] = { "send", "kick", "eoi", "hlt" };
	uint64_t total = counter(e, IRQLAB_CNT_TOTAL), rest = total, v;
	char r[32];
	int len;
	unsigned i;

	fmt_ratio(r, sizeof(r), total, ops);
	len = ksnprintf(buf, size, " exits_per_op=%s", r);
	for (i = 0; i < 4; i++) {
		v = counter(e, cls[i]);
		rest -= v < rest ? v : rest;
		fmt_ratio(r, sizeof(r), v, ops);
		len += ksnprintf(buf + len, size - len, " %s_exits=%s",
				 names[i], r);
	}
	fmt_ratio(r, sizeof(r), rest, ops);
	len += ksnprintf(buf + len, size - len, " other_exits=%s", r);
	return len;
}

/*
 * HDR-style log-linear buckets (docs/RECORDS.md @bench_hist): a value
 * below 2^HIST_BITS is its own bucket; above, each power of two splits
 * into 2^HIST_BITS buckets, so a bucket's width is at most 1/8 of its
 * lower bound.  Its lower bound names it.
 */
#define HIST_BITS	3

static uint64_t hist_lo(uint64_t v)
{
	unsigned shift;

	if (v < (1u << HIST_BITS))
		return v;
	shift = 63 - (unsigned)__builtin_clzll(v) - HIST_BITS;
	return v >> shift << shift;
}

/* @s sorted: one record, the non-empty buckets as LO:COUNT in order */
static void print_hist(const char *name, const uint64_t *s, unsigned n,
		       uint64_t khz)
{
	uint64_t lo, cur = 0;
	unsigned i, run = 0, nb = 0;

	kprintf("@bench_hist case=%s unit=%s sub=%u n=%u buckets=", name,
		khz ? "ns" : "cyc", 1u << HIST_BITS, n);
	for (i = 0; i < n; i++) {
		lo = hist_lo(khz ? s[i] * 1000000 / khz : s[i]);
		if (run && lo == cur) {
			run++;
			continue;
		}
		if (run)
			kprintf("%s%lu:%u", nb++ ? "," : "", cur, run);
		cur = lo;
		run = 1;
	}
	if (run)
		kprintf("%s%lu:%u", nb ? "," : "", cur, run);
	kprintf("\n");
}

void bench_report(const char *name, uint64_t *s, unsigned n,
		  const struct bench_exits *e, unsigned ops_per_sample)
{
	bench_report_more(name, s, n, e, ops_per_sample, NULL);
}

void bench_report_more(const char *name, uint64_t *s, unsigned n,
		       const struct bench_exits *e, unsigned ops_per_sample,
		       const char *more)
{
	static const unsigned ps[] = { 50, 90, 99 };
	uint64_t v[6], sum = 0, khz = calib_tsc_khz(), ops;
	char line[640];
	unsigned i;
	int len;

	if (!n) {
		bench_skip(name, "no-samples");
		return;
	}
	sort_u64(s, n);
	for (i = 0; i < n; i++)
		sum += s[i];
	v[0] = s[0];
	for (i = 0; i < 3; i++)
		v[1 + i] = pct(s, n, ps[i]);
	v[4] = s[n - 1];
	v[5] = sum / n;
	len = ksnprintf(line, sizeof(line), "@bench case=%s cpus=%u apic=%s "
			"n=%u min_cyc=%lu p50_cyc=%lu p90_cyc=%lu p99_cyc=%lu "
			"max_cyc=%lu mean_cyc=%lu", name, smp_nr_online(),
			lapic_mode_name(), n, v[0], v[1], v[2], v[3], v[4],
			v[5]);
	if (khz) {
		for (i = 0; i < 6; i++)
			v[i] = v[i] * 1000000 / khz;
		len += ksnprintf(line + len, sizeof(line) - len, " min_ns=%lu "
				 "p50_ns=%lu p90_ns=%lu p99_ns=%lu max_ns=%lu "
				 "mean_ns=%lu", v[0], v[1], v[2], v[3], v[4],
				 v[5]);
	}
	ops = (uint64_t)n * (ops_per_sample ? ops_per_sample : 1);
	if (e && e->valid)
		len += print_exits(line + len, sizeof(line) - len, e, ops);
	len += ksnprintf(line + len, sizeof(line) - len, " pv_ipi=%s "
			 "haltpoll=%s", pv_ipi_name(), idle_haltpoll_name());
	if (e)
		len += ksnprintf(line + len, sizeof(line) - len,
				 " poll_cyc_per_op=%lu",
				 (e->poll_after - e->poll_before) / ops);
	if (more)
		len += ksnprintf(line + len, sizeof(line) - len, " %s", more);
	kprintf("%s\n", line);
	print_hist(name, s, n, khz);
}

void bench_skip(const char *name, const char *reason)
{
	kprintf("@bench_skip case=%s reason=%s\n", name, reason);
}

/* Run the case named by the @n bytes at @s, or say it is unknown. */
static void run_named(const char *s, size_t n)
{
	char name[48];
	unsigned i;

	for (i = 0; i < NR_CASES; i++) {
		if (strlen(cases[i].name) == n &&
		    !strncmp(cases[i].name, s, n)) {
			cases[i].run();
			return;
		}
	}
	ksnprintf(name, sizeof(name), "%.*s", (int)n, s);
	bench_skip(name, "unknown");
}

void bench_run(void)
{
	const char *s = cmdline_get("bench"), *e;
	unsigned i;

	if (!s)
		return;
	iters = cmdline_uint("iters", BENCH_ITERS_DEFAULT, 1, BENCH_ITERS_MAX);
	pv_phase(IRQLAB_PHASE_BENCH);
	if (!strcmp(s, "all")) {
		for (i = 0; i < NR_CASES; i++)
			cases[i].run();
	} else {
		while (*s) {
			for (e = s; *e && *e != ','; e++)
				;
			if (e > s)
				run_named(s, e - s);
			s = *e ? e + 1 : e;
		}
	}
	pv_phase(IRQLAB_PHASE_IDLE);
}
