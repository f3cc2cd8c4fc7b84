// SPDX-License-Identifier: MIT
/*
 * ioapic_rotate: the Windows redirection-entry storm.  Windows
 * 11 and Server 2025 keep moving an IOAPIC entry's destination across
 * the CPUs, each time writing the low dword unchanged and then the high
 * dword with the new destination.  A VMM that stops every vCPU on each
 * such write (bhyve: a rendezvous to rebuild the TMRs) pays for it on
 * every CPU; irqlab-vmm's optimized IOAPIC does no cross-vCPU work for a
 * destination-only change of an edge entry.
 *
 *   mode=edge   one edge entry (unmasked, the line idle); every online
 *               CPU but this one spins in the guest, and this one rotates
 *               the destination over every APIC ID, iters times.
 *   mode=level  a level entry on a pc-testdev line, moved the same way;
 *               after each move the line is asserted and the interrupt
 *               must reach the new destination and no other CPU (its
 *               handler deasserts the line, then EOIs).
 *
 * Each mode stops after iters rotations (moves) or once its time budget
 * (rotate_ms=N, default ROT_MS_DEFAULT, by the calibrated TSC) is spent,
 * whichever comes first: naive mode makes every changed entry a
 * rendezvous of all vCPUs, which with more vCPUs than host CPUs can take
 * tens of milliseconds each.  The records say how many were asked, how
 * many were done and which bound ended the loop.
 *
 * The IOAPIC's own counters (rte_writes, tmr_updates,
 * remote_tmr_updates) come from the irqlab snapshot (docs/PROTOCOL.md); without the protocol they
 * print as na.  docs/BENCHMARKS.md has the numbers.
 */
#include <stdint.h>

#include "bench.h"
#include "calib.h"
#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "hw/testdev.h"
#include "arch/idt.h"
#include "dev/ioapic.h"
#include "dev/lapic.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define ROT_LINE	7	/* edge: ISA line 7's pin, never asserted */
#define LEVEL_LINE	3	/* level: a free line on irqlab and QEMU */
#define ROT_MS_DEFAULT	10000u	/* each mode's time budget */
#define ROT_MS_MAX	3600000u

static uint8_t ids[NR_CPUS];		/* APIC IDs of the online CPUs */
static unsigned idx[NR_CPUS];		/* ... and their cpus[] index */
static unsigned nids;
static uint32_t got[NR_CPUS];		/* level interrupts, per cpus[] */
static uint32_t got_total;
static unsigned budget_ms;
static uint64_t budget_cyc;

/* Spent, at TSC @now, for a loop that began at @start? */
static int over_budget(uint64_t start, uint64_t now)
{
	return now - start >= budget_cyc;
}

/* " asked=M budget_ms=B ended=iters|budget", into @buf */
static const char *ended(char *buf, size_t size, unsigned asked,
			 unsigned done)
{
	ksnprintf(buf, size, "asked=%u budget_ms=%u ended=%s", asked,
		  budget_ms, done < asked ? "budget" : "iters");
	return buf;
}

static void spin_ap(void)
{
	bench_ap_enter();
	while (!bench_ap_stopping())
		cpu_relax();
	bench_ap_leave();
}

static uint32_t took(unsigned cpu)
{
	return __atomic_load_n(&got[cpu], __ATOMIC_ACQUIRE);
}

static void level_handler(struct trap_frame *tf)
{
	(void)tf;
	/* deassert, then EOI: remote IRR clears with the line low */
	outb(TESTDEV_IRQ_PORT(LEVEL_LINE), 0);
	lapic_eoi();
	/*
	 * Only then count: the BSP moves the entry and asserts the line again
	 * as soon as it sees the count, so a deassert after that would drop
	 * the next assertion (the line was high all along, remote IRR set)
	 */
	__atomic_fetch_add(&got[this_cpu()->index], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&got_total, 1, __ATOMIC_RELEASE);
}

static uint64_t delta(const struct bench_exits *e, enum irqlab_counter c,
		      int *have)
{
	if (!e->valid || e->before.count <= c || e->after.count <= c) {
		*have = 0;
		return 0;
	}
	return e->after.counter[c] - e->before.counter[c];
}

/* "123" or "na" */
static const char *num(char *buf, int have, uint64_t v)
{
	if (!have)
		return "na";
	ksnprintf(buf, 24, "%lu", v);
	return buf;
}

static uint64_t cyc_to_ns(uint64_t cyc)
{
	uint64_t khz = calib_tsc_khz();

	return khz ? calib_muldiv(cyc, 1000000, khz) : 0;
}

/* Two decimals of @x / @d, into @buf */
static const char *ratio(char *buf, uint64_t x, uint64_t d)
{
	uint64_t c = d ? (x * 100 + d / 2) / d : 0;

	ksnprintf(buf, 24, "%lu.%02lu", c / 100, c % 100);
	return buf;
}

static void print_counts(char *line, int len, size_t size,
			 const struct bench_exits *e)
{
	char b[3][24];
	int h = 1;
	uint64_t w = delta(e, IRQLAB_CNT_RTE_WRITES, &h);
	uint64_t t = delta(e, IRQLAB_CNT_TMR_UPDATES, &h);
	uint64_t k = delta(e, IRQLAB_CNT_REMOTE_TMR_UPDATES, &h);

	ksnprintf(line + len, size - len, " rte_writes=%s tmr_updates=%s "
		  "remote_tmr_updates=%s", num(b[0], h, w), num(b[1], h, t),
		  num(b[2], h, k));
}

/* Nearest-rank median of the sorted @a (bench_report sorts in place). */
static uint64_t median(const uint64_t *a, unsigned n)
{
	return a[(50 * (uint64_t)n + 99) / 100 - 1];
}

/*
 * The reference: a do-nothing IOAPIC access pair (IOREGSEL write, IOWIN
 * read of VER), @n samples into buffer 1, reported as
 * ioapic_rotate.read.  Returns its median in cycles.
 */
static uint64_t read_pairs(unsigned n)
{
	uint64_t *r = bench_buf(1), t0;
	struct bench_exits e;
	unsigned i;

	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		t0 = rdtsc();
		(void)ioapic_read(IOAPIC_REG_VER);
		r[i] = rdtsc() - t0;
	}
	bench_exits_end(&e);
	bench_report("ioapic_rotate.read", r, n, &e, 1);
	return median(r, n);
}

static void rotate_edge(unsigned pin, unsigned m)
{
	uint32_t lo = BENCH_VEC_IOAPIC_EDGE;	/* fixed, physical, edge */
	uint64_t *s = bench_buf(0), start, t0, t1, sum = 0, rd, p50;
	unsigned i, j, writes;
	struct bench_exits e;
	char line[480], b[24], more[80];
	int len;

	ioapic_rte_write(pin, lo);	/* edge, unmasked, dest ids[0] */
	bench_exits_begin(&e);
	start = rdtsc();
	for (i = 0; i < m;) {
		t0 = rdtsc();
		for (j = 0; j < nids; j++)
			ioapic_rte_write_lo_hi(pin, lo, (uint32_t)ids[j] <<
					       IOAPIC_RTE_DEST_SHIFT);
		t1 = rdtsc();
		s[i] = t1 - t0;
		sum += s[i++];
		if (over_budget(start, t1))
			break;
	}
	bench_exits_end(&e);
	ioapic_mask(pin);
	writes = 2 * i * nids;
	ended(more, sizeof(more), m, i);
	bench_report_more("ioapic_rotate.edge", s, i, &e, 2 * nids, more);
	p50 = median(s, i);
	rd = read_pairs(i);
	len = ksnprintf(line, sizeof(line), "@ioapic_rotate mode=edge cpus=%u "
			"rotations=%u writes=%u ns_per_write=%lu "
			"p50_ns_per_write=%lu read_ns=%lu vs_read=%s %s", nids,
			i, writes, cyc_to_ns(sum / writes),
			cyc_to_ns(p50 / (2 * nids)), cyc_to_ns(rd),
			ratio(b, p50, rd * 2 * nids), more);
	print_counts(line, len, sizeof(line), &e);
	kprintf("%s\n", line);
}

static void rotate_level(unsigned pin, unsigned m)
{
	uint32_t lo = BENCH_VEC_IOAPIC_LEVEL | IOAPIC_RTE_LEVEL;
	uint32_t before[NR_CPUS], want;
	uint64_t *s = bench_buf(0), start, now, t0, sum = 0;
	unsigned i, c, t, n = 0, ok = 0, lost = 0, wrong = 0, late = 0;
	struct bench_exits e;
	char line[480], more[80];
	int len;

	idt_set_handler(BENCH_VEC_IOAPIC_LEVEL, level_handler);
	outb(TESTDEV_IRQ_PORT(LEVEL_LINE), 0);
	ioapic_rte_write(pin, lo | IOAPIC_RTE_MASKED);
	ioapic_unmask(pin);
	sti();
	bench_exits_begin(&e);
	now = start = rdtsc();
	for (i = 0; i < m; i++) {
		if (over_budget(start, now))
			break;	/* never before the first move */
		t = i % nids;
		for (c = 0; c < NR_CPUS; c++)
			before[c] = took(c);
		want = __atomic_load_n(&got_total, __ATOMIC_ACQUIRE) + 1;
		t0 = rdtsc();
		ioapic_rte_write_lo_hi(pin, lo, (uint32_t)ids[t] <<
				       IOAPIC_RTE_DEST_SHIFT);
		sum += rdtsc() - t0;
		outb(TESTDEV_IRQ_PORT(LEVEL_LINE), 1);
		/* the first move tells a missing pc-testdev in 100 ms */
		if (i == 0 ? bench_wait_us(&got_total, want, 100000) :
			     bench_wait(&got_total, want)) {
			lost++;
			kprintf("ioapic_rotate: move %u to cpu %u: no interrupt "
				"(rte 0x%lx)\n", i, idx[t], ioapic_rte_read(pin));
			outb(TESTDEV_IRQ_PORT(LEVEL_LINE), 0);
			if (i == 0)
				break;	/* no testdev, or no delivery */
			/* late after all?  Then it is not lost but slow */
			if (!bench_wait(&got_total, want)) {
				kprintf("ioapic_rotate: move %u: it came late\n",
					i);
				late++;
			}
			now = rdtsc();
			continue;
		}
		/* a sample: the move, the assertion and the handler's count */
		now = rdtsc();
		s[n++] = now - t0;
		for (c = 0; c < NR_CPUS; c++)
			if (took(c) - before[c] != (c == idx[t]))
				break;
		if (c == NR_CPUS)
			ok++;
		else
			wrong++;
	}
	bench_exits_end(&e);
	cli();
	ioapic_mask(pin);
	outb(TESTDEV_IRQ_PORT(LEVEL_LINE), 0);
	/* the handler stays: a late duplicate (KVM here, see RECORDS.md
	 * @ioapic_check) is counted, not an unhandled-vector panic */
	if (!ok && lost) {
		bench_skip("ioapic_rotate.level", "no-interrupt");
		return;
	}
	ended(more, sizeof(more), m, i);
	bench_report_more("ioapic_rotate.level", s, n, &e, 1, more);
	len = ksnprintf(line, sizeof(line), "@ioapic_rotate mode=level "
			"cpus=%u moves=%u writes=%u ns_per_write=%lu "
			"delivered_ok=%u wrong_cpu=%u lost=%u late=%u %s", nids,
			i, 2 * i, cyc_to_ns(sum / (2 * i)), ok, wrong, lost,
			late, more);
	print_counts(line, len, sizeof(line), &e);
	kprintf("%s\n", line);
}

void case_ioapic_rotate(void)
{
	unsigned i, m = bench_iters(), aps;
	uint64_t khz = calib_tsc_khz() ? calib_tsc_khz() : 1000000;
	int pin, lpin;

	budget_ms = cmdline_uint("rotate_ms", ROT_MS_DEFAULT, 1, ROT_MS_MAX);
	budget_cyc = (uint64_t)budget_ms * khz;	/* no TSC rate: 1 GHz */

	ioapic_init();
	pin = ioapic_isa_pin(ROT_LINE, NULL);
	lpin = ioapic_isa_pin(LEVEL_LINE, NULL);
	if (!ioapic_present() || pin < 0 || lpin < 0) {
		bench_skip("ioapic_rotate", "no-ioapic");
		return;
	}
	if (lapic_mode() == LAPIC_NONE) {
		bench_skip("ioapic_rotate", "no-apic");
		return;
	}
	for (nids = 0, i = 0; i < NR_CPUS; i++) {
		if (!__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			continue;
		if (cpus[i].apic_id > 0xfe)
			continue;	/* not an 8-bit physical destination */
		idx[nids] = i;
		ids[nids++] = (uint8_t)cpus[i].apic_id;
	}
	if (!nids) {
		bench_skip("ioapic_rotate", "no-dest");
		return;
	}
	aps = smp_nr_online() - 1;
	if (aps && bench_aps_start(spin_ap, aps)) {
		bench_skip("ioapic_rotate", "ap-timeout");
		return;
	}
	rotate_edge((unsigned)pin, m);
	rotate_level((unsigned)lpin, m);
	if (aps)
		bench_aps_stop();
}
