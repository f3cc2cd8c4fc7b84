// SPDX-License-Identifier: MIT
/*
 * native-futex: the runner's native row (docs/BENCHMARKS.md "Host
 * runner").  On the host, with pthreads: a waiter thread blocks in
 * FUTEX_WAIT; the waker stores the word, timestamps, and calls
 * FUTEX_WAKE(1).  Two @bench records in the kernel's format
 * (docs/RECORDS.md), nearest-rank percentiles:
 *
 *   futex_wake        waker's timestamp before FUTEX_WAKE to the
 *                     waiter's first timestamp after FUTEX_WAIT returns
 *                     (wake-to-run latency; CLOCK_MONOTONIC, which is
 *                     consistent across CPUs)
 *   futex_wake.waker  the waker's time in the FUTEX_WAKE call alone
 *
 * A sample counts only if FUTEX_WAKE returned 1, i.e. the waiter was
 * really queued in the kernel (futex(2)); otherwise it is redone.
 *
 * usage: native-futex [-n ITERS]   (default 1000)
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>


#define ITERS_MAX	1000000

static uint32_t word;		/* the futex: round k may run once it is k */
static uint32_t ready;		/* waiter's sequence: about to wait */
static uint64_t woke_ns;	/* waiter's timestamp after the wake */
static uint32_t woke_seq;

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* best effort: with one CPU both threads share it */
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int ncpus;
static uint32_t stop;

static void *waiter(void *arg)
{
	uint32_t seq, v;

	(void)arg;
	pin(ncpus > 1 ? 1 : 0);
	for (seq = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); seq++) {
		__atomic_store_n(&ready, seq, __ATOMIC_RELEASE);
		while ((v = __atomic_load_n(&word, __ATOMIC_ACQUIRE)) < seq)
			futex(&word, FUTEX_WAIT_PRIVATE, v);
		__atomic_store_n(&woke_ns, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&woke_seq, seq, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Nearest rank, as the kernel's records (docs/RECORDS.md): the
 * ceil(p/100 * n)-th smallest of the @n sorted samples, 1 <= p <= 100.
 */
static double percentile(const double *sorted, unsigned n, unsigned p)
{
	return sorted[(p * n + 99) / 100 - 1];
}

static double mean(const double *a, unsigned n)
{
	double s = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		s += a[i];
	return s / n;
}

static void print_stats(const char *name, double *a, unsigned n, double cyc_per_ns)
{
	static const unsigned p[] = { 50, 90, 99 };
	double v[3];
	unsigned i;

	qsort(a, n, sizeof(*a), cmp_double);
	for (i = 0; i < 3; i++)
		v[i] = percentile(a, n, p[i]);
	printf("@bench case=%s cpus=%d apic=native n=%u "
	       "min_cyc=%.0f p50_cyc=%.0f p90_cyc=%.0f p99_cyc=%.0f "
	       "max_cyc=%.0f mean_cyc=%.0f "
	       "min_ns=%.0f p50_ns=%.0f p90_ns=%.0f p99_ns=%.0f max_ns=%.0f "
	       "mean_ns=%.0f\n", name, ncpus > 1 ? 2 : 1, n,
	       a[0] * cyc_per_ns, v[0] * cyc_per_ns, v[1] * cyc_per_ns,
	       v[2] * cyc_per_ns, a[n - 1] * cyc_per_ns,
	       mean(a, n) * cyc_per_ns, a[0], v[0], v[1], v[2],
	       a[n - 1], mean(a, n));
}

/* TSC cycles per ns over a 20 ms window, for the _cyc fields. */
static double tsc_per_ns(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t1, c1;
	struct timespec d = { 0, 20000000 };

	nanosleep(&d, NULL);
	t1 = now_ns();
	c1 = __rdtsc();
	return (double)(c1 - c0) / (double)(t1 - t0);
}

int main(int argc, char **argv)
{
	struct timespec settle = { 0, 100000 };	/* 100 us, as ipi_wake */
	double *lat, *cost, cpn;
	unsigned n = 1000, i, k, redo = 0;
	uint64_t t0, t1;
	pthread_t th;
	char *end;
	long r;
	int opt;

	while ((opt = getopt(argc, argv, "n:h")) != -1) {
		if (opt == 'n') {
			errno = 0;
			n = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !n || n > ITERS_MAX) {
				fprintf(stderr, "native-futex: -n must be 1 to "
					"%d, not '%s'\n", ITERS_MAX, optarg);
				return 2;
			}
		} else {
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: native-futex [-n ITERS]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: native-futex [-n ITERS]\n");
		return 2;
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	lat = calloc(n, sizeof(*lat));
	cost = calloc(n, sizeof(*cost));
	if (!lat || !cost) {
		fprintf(stderr, "native-futex: out of memory\n");
		return 1;
	}
	cpn = tsc_per_ns();
	pin(0);
	if (pthread_create(&th, NULL, waiter, NULL)) {
		fprintf(stderr, "native-futex: pthread_create failed\n");
		return 1;
	}
	/* round k: the waiter announces k + 1, blocks, is woken */
	for (i = 0, k = 0; i < n; k++) {
		while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) != k + 1)
			sched_yield();
		nanosleep(&settle, NULL);	/* let it block in the kernel */
		__atomic_store_n(&word, k + 1, __ATOMIC_RELEASE);
		t0 = now_ns();
		r = futex(&word, FUTEX_WAKE_PRIVATE, 1);
		t1 = now_ns();
		while (__atomic_load_n(&woke_seq, __ATOMIC_ACQUIRE) != k + 1)
			sched_yield();
		if (r != 1) {
			/* it had not queued yet: no wake measured, redo */
			if (++redo > n * 10u + 100) {
				fprintf(stderr, "native-futex: the waiter "
					"never blocked in FUTEX_WAIT\n");
				return 1;
			}
			continue;
		}
		lat[i] = (double)(__atomic_load_n(&woke_ns, __ATOMIC_RELAXED) - t0);
		cost[i] = (double)(t1 - t0);
		i++;
	}
	/* the waiter announced k + 1 and waits: let it go for good */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) != k + 1)
		sched_yield();
	__atomic_store_n(&word, k + 1, __ATOMIC_RELEASE);
	futex(&word, FUTEX_WAKE_PRIVATE, 1);
	pthread_join(th, NULL);
	print_stats("futex_wake", lat, n, cpn);
	print_stats("futex_wake.waker", cost, n, cpn);
	printf("@native_futex n=%u redone=%u cpus_online=%d tsc_per_ns=%.3f\n",
	       n, redo, ncpus, cpn);
	return 0;
}
