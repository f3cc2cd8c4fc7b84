// SPDX-License-Identifier: MIT
/*
 * The TSC-synchronization check between CPU0 and one AP, before a case
 * compares their TSCs (ipi_wake, futex_wake).  TSC_SYNC_ROUNDS rounds of
 * CPU0 -> AP and AP -> CPU0 hand-offs through two shared lines: each side
 * writes its TSC and a sequence number, the other reads its own TSC on
 * seeing the number.  With d01 = AP's TSC at sight - CPU0's written and
 * d10 the reverse, d01 = latency + skew and d10 = latency - skew (skew =
 * TSC_AP - TSC0), so skew ~ (min d01 - min d10) / 2, within half their
 * sum, the round trip printed as rtt_cyc.  Prints @tsc_sync cpus=0,K
 * skew_cyc=S ok=0|1 rtt_cyc=R (docs/RECORDS.md).
 *
 * The TSCs disagree for certain only where |S| exceeds what the latency
 * can explain, R / 2.  So ok=1 unless |S| > TSC_SKEW_MAX + R / 2 (a skew
 * shown beyond the bound), or R > TSC_RTT_MAX (a side descheduled: no
 * estimate at all).  Where RDTSC traps (the kvm_pvm host) R is tens of
 * thousands of cycles, and an |S| of a few thousand is noise within it.
 */
#include <stdint.h>

#include "bench.h"
#include "lib/printf.h"
#include "arch/x86.h"

#define TSC_SYNC_ROUNDS	128

/* the check's two lines: CPU0 -> AP (a_) and back (b_) */
static uint64_t a_tsc, b_tsc;
static uint32_t a_seq, b_seq;
static int64_t min01;		/* AP's TSC on seeing a_ - a_tsc */

void tsc_sync_reset(void)
{
	__atomic_store_n(&a_seq, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&b_seq, 0, __ATOMIC_RELEASE);
}

void tsc_sync_ap(void)
{
	int64_t d, min = INT64_MAX;
	uint32_t r;

	for (r = 1; r <= TSC_SYNC_ROUNDS; r++) {
		if (bench_wait(&a_seq, r))
			break;
		d = (int64_t)(rdtsc() - __atomic_load_n(&a_tsc,
							 __ATOMIC_RELAXED));
		if (d < min)
			min = d;
		if (r == TSC_SYNC_ROUNDS)
			min01 = min;
		__atomic_store_n(&b_tsc, rdtsc(), __ATOMIC_RELAXED);
		__atomic_store_n(&b_seq, r, __ATOMIC_RELEASE);
	}
}

int tsc_sync_bsp(unsigned cpu, int64_t *skew)
{
	int64_t d, rtt, min10 = INT64_MAX;
	uint32_t r;
	int ok;

	for (r = 1; r <= TSC_SYNC_ROUNDS; r++) {
		__atomic_store_n(&a_tsc, rdtsc(), __ATOMIC_RELAXED);
		__atomic_store_n(&a_seq, r, __ATOMIC_RELEASE);
		if (bench_wait(&b_seq, r))
			return -1;
		d = (int64_t)(rdtsc() - __atomic_load_n(&b_tsc,
							 __ATOMIC_RELAXED));
		if (d < min10)
			min10 = d;
	}
	*skew = (min01 - min10) / 2;
	rtt = min01 + min10;	/* half of it is what latency can explain */
	ok = rtt <= TSC_RTT_MAX && *skew <= TSC_SKEW_MAX + rtt / 2 &&
	     *skew >= -(TSC_SKEW_MAX + rtt / 2);
	kprintf("@tsc_sync cpus=0,%u skew_cyc=%ld ok=%d rtt_cyc=%ld\n", cpu,
		*skew, ok, rtt);
	return ok ? 0 : 1;
}
