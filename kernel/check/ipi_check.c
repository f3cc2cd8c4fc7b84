// SPDX-License-Identifier: MIT
/*
 * check=ipi: every online CPU sends K fixed IPIs (ipi_k=K, default 100)
 * to every other one, K self-IPIs, and K all-excluding-self broadcasts,
 * and, where a paravirtual multicast is in use (pv_ipi.h), K multicasts
 * to the set of all others (lapic_send_mask), all CPUs at once; each
 * counts what it receives, per sender.  Then the BSP prints @ipi_check
 * (docs/RECORDS.md) and fails the boot unless every IPI arrived exactly
 * once.
 *
 * Why the counts can be exact: an APIC holds at most one pending
 * interrupt per vector, its IRR bit (SDM 11.8.4).  A second IPI with a
 * vector already pending in IRR merges with it, and one is lost -- that
 * is the hardware working as specified, not a lost IPI.  So
 *   - each sender has its own vector, IPI_VEC_CHECK + its index: IPIs
 *     from different senders never merge; and
 *   - a sender sends the next IPI to a target only after the target's
 *     handler counted the previous one.  The handler runs once the
 *     interrupt moved from IRR to ISR (SDM 11.8.4), so when the sender
 *     sees the count, IRR is free again for the next one.
 * A broadcast counts once per target, and the sender waits for all.
 * Any IPI left missing or counted twice is then a real fault, of the
 * APIC model or of this kernel.
 *
 * ipi_storm=1 keeps the same rule but does not wait for each IPI: a CPU
 * sends to every target whose previous IPI from it was counted, skips the
 * others, and halts only when it can send nothing (ipi_storm.c).
 */
#include <stdint.h>

#include "boot/cmdline.h"
#include "ipi_check_int.h"
#include "arch/idt.h"
#include "ipi_check.h"
#include "dev/lapic.h"
#include "sys/panic.h"
#include "lib/printf.h"
#include "dev/pv_ipi.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define K_DEFAULT	100
#define K_MAX		1000000

/*
 * Bounds on waits, in PAUSE loop iterations (smp.c says what that is in
 * time): generous, as one IPI under TCG or nested KVM can take a host
 * thread switch.  The barrier's bound starts again whenever any CPU
 * makes progress, so it bounds a stall, not the whole check.
 */
#define TAKEN_WAIT_LOOPS	10000000ul	/* one IPI to be counted */
#define BARRIER_LOOPS		(2 * TAKEN_WAIT_LOOPS)

struct ipi_state ipi;

static void check_handler(struct trap_frame *tf)
{
	unsigned from = tf->vector - IPI_VEC_CHECK;

	__atomic_fetch_add(&ipi.got[this_cpu()->index][from], 1,
			   __ATOMIC_RELEASE);
	__atomic_fetch_add(&ipi.progress, 1, __ATOMIC_RELAXED);
	lapic_eoi();
}

/* Wait until @to counted every IPI @me sent it; 0, or -1 after a timeout. */
static int wait_taken(unsigned me, unsigned to)
{
	uint32_t want = ipi.sent[me][to];
	unsigned long n;

	for (n = 0; n < TAKEN_WAIT_LOOPS; n++) {
		if (__atomic_load_n(&ipi.got[to][me], __ATOMIC_ACQUIRE) >= want)
			return 0;
		cpu_relax();
	}
	__atomic_fetch_add(&ipi.stalls, 1, __ATOMIC_RELAXED);
	return -1;
}

/* Wait until *@count reaches nr_members, or nothing moved for a while. */
void ipi_wait_all(unsigned *count)
{
	unsigned long n = 0;
	unsigned c, seen = ~0u;

	while (n++ < BARRIER_LOOPS) {
		c = __atomic_load_n(count, __ATOMIC_ACQUIRE);
		if (c >= ipi.nr_members)
			return;
		c += __atomic_load_n(&ipi.progress, __ATOMIC_RELAXED);
		if (c != seen) {
			seen = c;
			n = 0;
		}
		cpu_relax();
	}
}

/* the PV path is what a multicast round adds: only where it is used */
static int multicast(void)
{
	return pv_ipi_kind() == PV_IPI_IRQLAB || pv_ipi_kind() == PV_IPI_KVM;
}

/* One CPU's part; runs with interrupts on, so it takes IPIs as it sends. */
static void run(void)
{
	unsigned me = this_cpu()->index, vec = IPI_VEC_CHECK + me;
	unsigned i, j, t;

	__atomic_fetch_add(&ipi.arrived, 1, __ATOMIC_ACQ_REL);
	ipi_wait_all(&ipi.arrived);
	/* targets from me + 1 on, so the CPUs do not all start at cpu 0 */
	for (j = 1; j < NR_CPUS; j++) {
		t = (me + j) % NR_CPUS;
		if (!ipi.member[t])
			continue;
		for (i = 0; i < ipi.k; i++) {
			ipi.sent[me][t]++;
			lapic_send_ipi(cpus[t].apic_id, vec);
			if (wait_taken(me, t))
				goto out;
		}
	}
	for (i = 0; i < ipi.k; i++) {
		ipi.sent[me][me]++;
		lapic_send_self(vec);
		if (wait_taken(me, me))
			goto out;
	}
	for (i = 0; i < ipi.k && ipi.nr_members > 1; i++) {
		for (t = 0; t < NR_CPUS; t++)
			if (ipi.member[t] && t != me)
				ipi.sent[me][t]++;
		lapic_send_others(vec);
		for (t = 0; t < NR_CPUS; t++)
			if (ipi.member[t] && t != me && wait_taken(me, t))
				goto out;
	}
	for (i = 0; i < ipi.k && ipi.nr_members > 1 && multicast(); i++) {
		uint64_t mask[NR_CPUS / 64] = { 0 };

		for (t = 0; t < NR_CPUS; t++)
			if (ipi.member[t] && t != me) {
				ipi.sent[me][t]++;
				mask[t / 64] |= 1ull << (t % 64);
			}
		lapic_send_mask(mask, vec);
		for (t = 0; t < NR_CPUS; t++)
			if (ipi.member[t] && t != me && wait_taken(me, t))
				goto out;
	}
out:
	__atomic_fetch_add(&ipi.finished, 1, __ATOMIC_RELEASE);
}

void ipi_check(void)
{
	uint64_t sum_sent = 0, sum_got = 0, lost = 0, dup = 0, tsc;
	unsigned f, t, v, storm;

	ipi.k = cmdline_uint("ipi_k", K_DEFAULT, 1, K_MAX);
	storm = cmdline_uint("ipi_storm", 0, 0, 1);
	if (lapic_mode() == LAPIC_NONE) {
		kprintf("ipi_check: no local APIC, nothing to check\n");
		kprintf("@ipi_check skipped=no-apic\n");
		return;
	}
	for (t = 0; t < NR_CPUS; t++) {
		ipi.member[t] = __atomic_load_n(&cpus[t].online,
						__ATOMIC_ACQUIRE);
		ipi.nr_members += ipi.member[t];
	}
	for (v = IPI_VEC_CHECK; v < IPI_VEC_CHECK + NR_CPUS; v++)
		idt_set_handler(v, check_handler);

	if (storm)
		ipi_storm_prepare();
	tsc = rdtsc();
	smp_run_on_aps(storm ? ipi_storm_run : run);
	sti();
	if (storm) {
		ipi_storm_run();
		ipi_storm_wait_stopped();
	} else {
		run();
		ipi_wait_all(&ipi.finished);
	}
	cli();
	tsc = rdtsc() - tsc;
	if (storm)
		ipi_storm_fold(&sum_sent, &sum_got, &lost, &dup);

	for (f = 0; f < NR_CPUS; f++) {
		for (t = 0; t < NR_CPUS; t++) {
			uint32_t s = ipi.sent[f][t];
			uint32_t g = __atomic_load_n(&ipi.got[t][f],
						     __ATOMIC_ACQUIRE);

			sum_sent += s;
			sum_got += g;
			if (g < s)
				lost += s - g;
			else
				dup += g - s;
		}
	}
	for (t = 0; t < NR_CPUS; t++) {
		uint64_t s = 0, g = 0;

		if (!ipi.member[t])
			continue;
		for (f = 0; f < NR_CPUS; f++) {
			s += ipi.sent[t][f];
			g += ipi.got[t][f];
		}
		kprintf("ipi_check: cpu %u sent %lu received %lu\n", t, s, g);
	}
	/* on a failure, which pairs: the first clue to what went wrong */
	for (f = 0; f < NR_CPUS && (lost || dup); f++)
		for (t = 0; t < NR_CPUS; t++)
			if (ipi.got[t][f] != ipi.sent[f][t])
				kprintf("ipi_check: cpu %u -> cpu %u (vector "
					"0x%x): sent %u received %u\n", f, t,
					IPI_VEC_CHECK + f, ipi.sent[f][t],
					ipi.got[t][f]);
	kprintf("@ipi_check sent=%lu received=%lu lost=%lu dup=%lu cpus=%u "
		"k=%u stalls=%u tsc=%lu%s", sum_sent, sum_got, lost, dup,
		ipi.nr_members, ipi.k, ipi.stalls, tsc,
		!storm && multicast() ? " multicast=pv" : "");
	if (storm)
		ipi_storm_print();
	kprintf("\n");
	if (lost || dup || sum_got != sum_sent || (storm && !ipi_storm_ok()) ||
	    __atomic_load_n(&ipi.finished, __ATOMIC_ACQUIRE) != ipi.nr_members) {
		kprintf("ipi_check: every IPI once: FAILED (lost %lu dup %lu "
			"finished %u of %u)\n", lost, dup, ipi.finished,
			ipi.nr_members);
		check_failed("ipi", "the IPI check failed", "reason=ipi-check "
			     "lost=%lu dup=%lu finished=%u cpus=%u", lost, dup,
			     ipi.finished, ipi.nr_members);
	} else {
		kprintf("ipi_check: every IPI once: ok\n");
	}
}
