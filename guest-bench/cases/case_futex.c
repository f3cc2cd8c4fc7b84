// SPDX-License-Identifier: MIT
/*
 * futex_wake: what `perf bench futex wake` measures (tools/perf/bench/
 * futex-wake.c), on the kernel's own futex (kernel/smp/futex.c) and threads
 * (kernel/smp/sched.c).  N threads (threads=N, default 4) are pinned round-
 * robin to CPUs 1..n-1 (CPU0 is the waker's alone: the scheduler is
 * cooperative, so every wake crosses CPUs and costs a reschedule IPI) and
 * wait on one futex word; the idle CPUs halt.  Once all N wait, CPU0
 * times successive futex_wake(word, 1) calls until all N are woken; each
 * woken thread reads the TSC when it runs, and exits.  FUTEX_RUNS runs.
 *
 * Output: perf's lines, `[Run i]: Wokeup N of N threads in X ms` and the
 * summary `Wokeup N of N threads in X ms (+-Y%)`, X the mean waker-side
 * time of a run and Y the relative standard error of that mean (perf's
 * rel_stddev_stats(stddev_stats())); then @bench case=futex_wake with the
 * wake-to-run latency of every woken thread (its TSC when it ran minus
 * CPU0's in sched_wake), n = FUTEX_RUNS * N, and the exits per woken
 * thread over the wake loops until the woken CPUs are idle again.  The
 * latency compares two CPUs' TSCs: @tsc_sync first checks CPU0 against
 * each thread CPU, and a skew makes it @bench_skip reason=tsc-skew.
 */
#include <stdint.h>

#include "bench.h"
#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "smp/futex.h"
#include "dev/lapic.h"
#include "lib/printf.h"
#include "smp/sched.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define FUTEX_RUNS		10
#define THREADS_DEFAULT		4
#define SETTLE_US		100

struct sample {
	uint64_t wake, run;
};

static uint32_t word;			/* the futex */
static uint32_t ran;			/* woken threads that ran */
static uint32_t turn;			/* the CPU whose TSC sync it is */
#define TURN_DONE		NR_CPUS
static unsigned thr_cpu[NR_CPUS];	/* the online APs, ascending */
static unsigned nr_thr_cpus;		/* of which host threads */
static uint8_t hosts[NR_CPUS];		/* cpus[] index -> hosts threads */
static struct sample samples[SCHED_MAX_THREADS];

static void waiter(void *arg)
{
	struct sample *s = arg;

	futex_wait(&word, 0);
	s->run = rdtsc();
	s->wake = sched_self()->wake_tsc;
	__atomic_fetch_add(&ran, 1, __ATOMIC_RELEASE);
}

/* Every AP: its TSC sync when its turn comes, then run threads. */
static void ap_fn(void)
{
	unsigned me = this_cpu()->index;
	uint32_t t = 0;

	bench_ap_enter();
	if (hosts[me]) {
		while ((t = __atomic_load_n(&turn, __ATOMIC_ACQUIRE)) < me &&
		       !bench_ap_stopping())
			cpu_relax();
		if (t == me)
			tsc_sync_ap();
	}
	sched_loop(bench_ap_stopping);
	bench_ap_leave();
}

/* 0 if CPU0 agrees with every thread CPU, else 1 (skew) or -1 (no answer) */
static int sync_all(void)
{
	int64_t skew;
	unsigned k;
	int r, worst = 0;

	for (k = 0; k < nr_thr_cpus; k++) {
		tsc_sync_reset();
		__atomic_store_n(&turn, thr_cpu[k], __ATOMIC_RELEASE);
		r = tsc_sync_bsp(thr_cpu[k], &skew);
		if (r < 0) {
			worst = -1;
			break;
		}
		worst |= r;
	}
	/* an AP whose turn did not come goes on to run threads */
	__atomic_store_n(&turn, TURN_DONE, __ATOMIC_RELEASE);
	return worst;
}

static void settle(uint64_t khz)
{
	uint64_t t0 = rdtsc(), cyc = (khz ? khz : 1000000) * SETTLE_US / 1000;

	while (rdtsc() - t0 < cyc)
		cpu_relax();
}

/* Spin until @f() != 0; -1 after BENCH_WAIT_LOOPS */
static int wait_for(int (*f)(unsigned), unsigned arg)
{
	unsigned long i;

	for (i = 0; i < BENCH_WAIT_LOOPS; i++) {
		if (f(arg))
			return 0;
		cpu_relax();
	}
	return -1;
}

static int all_waiting(unsigned n)
{
	return futex_nr_waiters(&word) == n;
}

static int all_gone(unsigned n)
{
	(void)n;
	return sched_nr_live() == 0;
}

/* One run: spawn, wait until all wait, time the wakes; -1 on a timeout. */
static int one_run(unsigned n, uint64_t *cyc, struct bench_exits *sum,
		   uint64_t *lat, unsigned *negative)
{
	uint64_t t0, khz = calib_tsc_khz();
	struct bench_exits e;
	unsigned i, woken, calls;

	word = ran = 0;
	for (i = 0; i < n; i++)
		if (!sched_spawn(waiter, &samples[i],
				 thr_cpu[i % nr_thr_cpus]))
			return -1;
	if (wait_for(all_waiting, n))
		return -1;
	settle(khz);			/* the thread CPUs get into HLT */
	bench_exits_begin(&e);
	t0 = rdtsc();
	for (woken = calls = 0; woken < n && calls < 1000 * n; calls++)
		woken += futex_wake(&word, 1);
	*cyc = rdtsc() - t0;
	if (woken < n || bench_wait(&ran, n) || wait_for(all_gone, 0))
		return -1;
	settle(khz);			/* and back into HLT */
	bench_exits_end(&e);
	bench_exits_add(sum, &e);
	for (i = 0; i < n; i++) {
		*negative += samples[i].run < samples[i].wake;
		lat[i] = samples[i].run < samples[i].wake ? 0 :
			 samples[i].run - samples[i].wake;
	}
	return 0;
}

/* floor(sqrt(@x)) */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* perf's summary line from the runs' times in ns */
static void summary(unsigned n, const uint64_t *ns)
{
	uint64_t sum = 0, mean, var = 0, d, se100, pct100 = 0, x;
	unsigned i;

	for (i = 0; i < FUTEX_RUNS; i++)
		sum += ns[i];
	mean = sum / FUTEX_RUNS;
	for (i = 0; i < FUTEX_RUNS; i++) {
		d = ns[i] > mean ? ns[i] - mean : mean - ns[i];
		var += d * d;
	}
	/* the variance of the mean: s^2 / n, s^2 = sum / (n - 1) */
	var /= (uint64_t)(FUTEX_RUNS - 1) * FUTEX_RUNS;
	se100 = var < UINT64_MAX / 10000 ? isqrt(var * 10000) :
					   isqrt(var) * 100;
	if (mean)
		pct100 = se100 * 100 / mean;	/* percent, times 100 */
	x = (mean + 50) / 100;			/* ms, times 10^4 */
	kprintf("Wokeup %u of %u threads in %lu.%04lu ms (+-%lu.%02lu%%)\n",
		n, n, x / 10000, x % 10000, pct100 / 100, pct100 % 100);
}

void case_futex_wake(void)
{
	static const char name[] = "futex_wake";
	uint64_t *lat = bench_buf(0), ns[FUTEX_RUNS], cyc, x;
	uint64_t khz = calib_tsc_khz() ? calib_tsc_khz() : 1000000;
	unsigned n = cmdline_uint("threads", THREADS_DEFAULT, 1,
				  SCHED_MAX_THREADS);
	unsigned aps = 0, r, i, negative = 0;
	struct bench_exits sum;
	int sync;

	for (i = 1; i < NR_CPUS; i++) {
		hosts[i] = 0;
		if (cpus[i].online)
			thr_cpu[aps++] = i;
	}
	if (lapic_mode() == LAPIC_NONE || !aps) {
		bench_skip(name, lapic_mode() == LAPIC_NONE ? "no-apic" :
			   "one-cpu");
		return;
	}
	sched_init();
	nr_thr_cpus = n < aps ? n : aps;
	for (i = 0; i < nr_thr_cpus; i++)
		hosts[thr_cpu[i]] = 1;
	__atomic_store_n(&turn, 0, __ATOMIC_RELEASE);
	if (bench_aps_start(ap_fn, aps)) {
		bench_skip(name, "ap-timeout");
		return;
	}
	sync = sync_all();
	kprintf("futex_wake: %u threads on %u CPUs, waking 1 at a time, "
		"%u runs%s\n", n, nr_thr_cpus, FUTEX_RUNS, calib_tsc_khz() ? "" :
		" (no TSC frequency: ms assume 1 GHz)");
	bench_exits_zero(&sum);
	for (r = 0; r < FUTEX_RUNS; r++) {
		if (one_run(n, &cyc, &sum, lat + r * n, &negative))
			break;
		ns[r] = cyc * 1000000 / khz;
		x = (ns[r] + 50) / 100;
		kprintf("[Run %u]: Wokeup %u of %u threads in %lu.%04lu ms\n",
			r + 1, n, n, x / 10000, x % 10000);
	}
	bench_aps_stop();
	if (r < FUTEX_RUNS) {
		bench_skip(name, "timeout");
		return;
	}
	summary(n, ns);
	if (negative)
		kprintf("bench: futex_wake: %u threads ran at a TSC before "
			"their wake's (counted as 0)\n", negative);
	if (sync)
		bench_skip(name, sync < 0 ? "tsc-sync-timeout" : "tsc-skew");
	else
		bench_report(name, lat, FUTEX_RUNS * n, &sum, 1);
}
