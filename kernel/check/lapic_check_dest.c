// SPDX-License-Identifier: MIT
/*
 * check=lapic, part "dest" (lapic_check.h): IPI destinations (SDM
 * 11.6.2), a fixed IPI from the BSP that must reach exactly the CPUs the
 * rule names, each once, and no other.
 *
 * xAPIC mode:
 *   physical alias   an AP sets its xAPIC ID to the BSP's: a physical
 *                    IPI to that ID reaches both (the 8-bit ID compare,
 *                    SDM 11.6.2.1), the AP's old ID no one; then the AP
 *                    takes its ID back and is reached alone again.
 *   logical flat     DFR 0xffffffff, LDR bit i for CPU i: a CPU is
 *                    reached when MDA AND LDR[31:24] is not 0 (11.6.2.2).
 *   logical cluster  DFR 0x0fffffff, LDR cluster 1 + i / 4, member bit
 *                    i % 4: MDA[7:4] = LDR[31:28] and MDA[3:0] AND
 *                    LDR[27:24] not 0.
 * x2APIC mode: the LDR is read-only (a WRMSR raises #GP) and derived,
 *   cluster ID[19:4] << 16 | 1 << ID[3:0] (11.12.10.2); logical IPIs
 *   reach the CPUs whose cluster matches and whose bit is set.
 *
 * The APs change their own registers (each CPU's are its own), woken by
 * smp_run_on_aps().  With one CPU online, the steps that need another
 * are skipped.  Every CPU's ID, LDR and DFR are put back at the end.
 */
#include <stddef.h>
#include <stdint.h>

#include "arch/extable.h"
#include "hw/apic.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define VEC		VEC_LAPIC_CHECK_DEST
#define WAIT_US		100000	/* for the CPUs wanted to take an IPI */
#define QUIET_US	2000	/* then for anyone else */
#define FLAT_CPUS	8	/* LDR[31:24]: one bit each */
#define CLUSTER_CPUS	60	/* 15 clusters of 4 */

enum job { JOB_REGS, JOB_READ };

static volatile unsigned got[NR_CPUS], total, done;
static uint8_t member[NR_CPUS];	/* online when the part began */
static unsigned nr_members, ap1;	/* ap1: the first AP, or NR_CPUS */
static enum job job;
/* JOB_REGS: the ID (xAPIC), DFR and LDR each CPU writes; JOB_READ: the
 * LDR each reads */
static uint32_t want_id[NR_CPUS], want_ldr[NR_CPUS], want_dfr;
static volatile uint32_t seen_ldr[NR_CPUS], seen_id[NR_CPUS];

static void handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&got[this_cpu()->index], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&total, 1, __ATOMIC_RELEASE);
	lapic_eoi();
}

/* On each CPU: its part of the current job */
static void do_job(void)
{
	unsigned i = this_cpu()->index;

	if (job == JOB_READ) {
		seen_ldr[i] = lapic_read(APIC_LDR);
	} else if (lapic_mode() == LAPIC_XAPIC) {
		/* SDM 11.6.2.2: DFR before LDR, all CPUs in one model */
		if (lapic_read(APIC_ID) >> 24 != want_id[i])
			lapic_write(APIC_ID, want_id[i] << 24);
		seen_id[i] = lapic_read(APIC_ID) >> 24;
		lapic_write(APIC_DFR, want_dfr);
		lapic_write(APIC_LDR, want_ldr[i]);
	}
	__atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
}

/* The job on every member, the BSP last; 0, or -1 if an AP did not do
 * its part within WAIT_US. */
static int run_job(enum job j)
{
	done = 0;
	job = j;
	smp_run_on_aps(do_job);
	if (nr_members > 1 && lc_wait_ge_sti(&done, nr_members - 1, WAIT_US))
		return -1;
	do_job();
	return 0;
}

/* A fixed, edge IPI (SDM 11.6.1): xAPIC ICR_HI then ICR_LO; x2APIC one
 * WRMSR, fenced as lapic.c does (SDM 11.12.3). */
static void send(uint32_t dest, int logical)
{
	uint32_t lo = APIC_ICR_DEST_FIELD | APIC_ICR_DM_FIXED |
		      APIC_ICR_ASSERT | VEC | (logical ? APIC_ICR_LOGICAL : 0);

	if (lapic_mode() == LAPIC_X2APIC) {
		asm volatile("mfence; lfence" : : : "memory");
		wrmsr(X2APIC_MSR(APIC_ICR_LO), (uint64_t)dest << 32 | lo);
		return;
	}
	lapic_write(APIC_ICR_HI, dest << APIC_ICR_XAPIC_DEST_SHIFT);
	lapic_write(APIC_ICR_LO, lo);
	this_cpu()->icr_hi = ~0u;	/* lapic.c's copy of ICR_HI is stale */
}

/*
 * Send to @dest; the CPUs in @want (a mask of cpus[] indices) must take
 * it once each, and no other CPU at all.
 */
static void deliver(const char *step, uint32_t dest, int logical,
		    uint64_t want)
{
	uint64_t took = 0, twice = 0;
	unsigned i, n = 0;

	for (i = 0; i < NR_CPUS; i++) {
		got[i] = 0;
		n += (want >> i) & 1;
	}
	total = 0;
	send(dest, logical);
	lc_wait_ge_sti(&total, n, WAIT_US);
	lc_delay_us_sti(QUIET_US);
	for (i = 0; i < NR_CPUS; i++) {
		took |= (uint64_t)(got[i] > 0) << i;
		twice |= (uint64_t)(got[i] > 1) << i;
	}
	lc_rule("dest", step, took == want && !twice, "%s 0x%x: CPUs 0x%lx "
		"took it (0x%lx more than once), want 0x%lx",
		logical ? "logical" : "physical", dest, took, twice, want);
}

static uint64_t cpu_bit(unsigned i)
{
	return 1ull << i;
}

/* The others' steps need a second CPU: say so once for each */
static int need_ap(const char *step)
{
	if (ap1 < NR_CPUS)
		return 1;
	lc_step("dest", step, LC_SKIP, "1 CPU online");
	return 0;
}

static void boot_regs(void)
{
	unsigned i;

	for (i = 0; i < NR_CPUS; i++) {
		want_id[i] = cpus[i].apic_id & 0xff;
		want_ldr[i] = 0;	/* as after INIT (SDM 11.4.7.3) */
	}
	want_dfr = APIC_DFR_FLAT;
}

/* SDM 11.4.6: the xAPIC ID is writable; SDM 11.6.2.1: a physical
 * destination is compared with the 8-bit ID */
static void physical_alias(void)
{
	uint32_t bsp = cpus[0].apic_id & 0xff, id1;

	if (!need_ap("physical alias: both CPUs with the ID"))
		return;
	id1 = cpus[ap1].apic_id & 0xff;
	deliver("physical: the AP alone", id1, 0, cpu_bit(ap1));
	boot_regs();
	want_id[ap1] = bsp;
	if (run_job(JOB_REGS)) {
		lc_step("dest", "physical alias: both CPUs with the ID",
			LC_FAIL, "cpu %u did not change its ID", ap1);
		return;
	}
	if (seen_id[ap1] != bsp) {
		/* SDM 11.4.6: "the ability of software to modify the APIC
		 * ID is processor model specific" (Bochs: read-only) */
		lc_step("dest", "physical alias", LC_SKIP, "the xAPIC ID is "
			"read-only here (model specific, SDM 11.4.6): cpu %u "
			"reads ID %u after writing %u", ap1, seen_id[ap1], bsp);
		boot_regs();
		run_job(JOB_REGS);
		return;
	}
	deliver("physical alias: both CPUs with the ID", bsp, 0,
		cpu_bit(0) | cpu_bit(ap1));
	deliver("physical alias: the AP's old ID reaches no one", id1, 0, 0);
	boot_regs();
	run_job(JOB_REGS);
	deliver("physical alias: the AP's ID back", id1, 0, cpu_bit(ap1));
}

/* @dest matches @ldr in the flat (@cluster 0) or cluster model */
static int xapic_match(uint32_t dest, uint32_t ldr, int cluster)
{
	uint32_t l = ldr >> 24;

	if (!cluster)
		return !!(dest & l);
	return (dest >> 4) == (l >> 4) && (dest & l & 0xf);
}

static uint64_t xapic_want(uint32_t dest, int cluster)
{
	uint64_t want = 0;
	unsigned i;

	for (i = 0; i < NR_CPUS; i++)
		if (member[i] && xapic_match(dest, want_ldr[i], cluster))
			want |= cpu_bit(i);
	return want;
}

/* SDM 11.6.2.2: logical destinations, flat and cluster model */
static void xapic_logical(int cluster)
{
	const char *model = cluster ? "logical cluster" : "logical flat";
	uint32_t dest[4];
	char step[48];
	unsigned i;

	boot_regs();
	want_dfr = cluster ? APIC_DFR_CLUSTER : APIC_DFR_FLAT;
	for (i = 0; i < NR_CPUS; i++) {
		if (!cluster && i < FLAT_CPUS)
			want_ldr[i] = 1u << (24 + i);
		else if (cluster && i < CLUSTER_CPUS)
			want_ldr[i] = (1 + i / 4) << 28 | 1u << (24 + i % 4);
	}
	if (run_job(JOB_REGS)) {
		lc_step("dest", model, LC_FAIL, "an AP did not set its LDR");
		return;
	}
	/* the BSP alone; the first AP alone; both; a set of no CPU */
	dest[0] = want_ldr[0] >> 24;
	dest[1] = ap1 < NR_CPUS ? want_ldr[ap1] >> 24 : 0;
	dest[2] = dest[0] | dest[1];
	dest[3] = 0;
	for (i = 0; i < FLAT_CPUS && !cluster && !dest[3]; i++)
		if (!xapic_want(1u << i, 0))
			dest[3] = 1u << i;
	/* a cluster of no CPU's, with the BSP's member bit */
	for (i = 1; i < 15 && cluster && !dest[3]; i++)
		if (!xapic_want(i << 4 | (dest[0] & 0xf), 1))
			dest[3] = i << 4 | (dest[0] & 0xf);
	ksnprintf(step, sizeof(step), "%s: the BSP alone", model);
	deliver(step, dest[0], 1, xapic_want(dest[0], cluster));
	ksnprintf(step, sizeof(step), "%s: the AP alone", model);
	if (need_ap(step))
		deliver(step, dest[1], 1, xapic_want(dest[1], cluster));
	ksnprintf(step, sizeof(step), "%s: both", model);
	if (need_ap(step))
		deliver(step, dest[2], 1, xapic_want(dest[2], cluster));
	ksnprintf(step, sizeof(step), "%s: no one", model);
	if (dest[3])
		deliver(step, dest[3], 1, 0);
	else
		lc_step("dest", step, LC_SKIP, "every LDR is a CPU's");
	boot_regs();
	run_job(JOB_REGS);
}

/* SDM 11.12.10.2: logical x2APIC ID = ID[19:4] << 16 | 1 << ID[3:0] */
static uint32_t x2apic_ldr(uint32_t id)
{
	return (id >> 4) << 16 | 1u << (id & 0xf);
}

static uint64_t x2apic_want(uint32_t dest)
{
	uint64_t want = 0;
	unsigned i;
	uint32_t l;

	for (i = 0; i < NR_CPUS; i++) {
		l = x2apic_ldr(cpus[i].apic_id);
		if (member[i] && dest >> 16 == l >> 16 && (dest & l & 0xffff))
			want |= cpu_bit(i);
	}
	return want;
}

/* SDM 11.12.10.2, and table 11-6: the LDR (80DH) is read-only */
static void x2apic_logical(void)
{
	uint32_t l0 = x2apic_ldr(cpus[0].apic_id), l1;
	uint64_t v, bad = 0;
	unsigned i;
	int f;

	if (run_job(JOB_READ)) {
		lc_step("dest", "x2APIC LDR derived", LC_FAIL, "an AP did not "
			"read its LDR");
		return;
	}
	for (i = 0; i < NR_CPUS; i++)
		if (member[i] && seen_ldr[i] != x2apic_ldr(cpus[i].apic_id))
			bad |= cpu_bit(i);
	lc_rule("dest", "x2APIC LDR derived", !bad, "cpu 0 LDR 0x%x (want "
		"0x%x); CPUs with another: mask 0x%lx", seen_ldr[0], l0, bad);
	f = wrmsr_safe(X2APIC_MSR(APIC_LDR), l0 ^ 1);
	v = rdmsr(X2APIC_MSR(APIC_LDR));
	lc_rule("dest", "x2APIC LDR read-only: #GP", f == GP_VECTOR &&
		v == l0, "WRMSR 0x%x: vector %d (-1: none), reads 0x%lx",
		l0 ^ 1, f, v);

	deliver("x2APIC logical: the BSP alone", l0, 1, x2apic_want(l0));
	if (need_ap("x2APIC logical: the AP alone")) {
		l1 = x2apic_ldr(cpus[ap1].apic_id);
		deliver("x2APIC logical: the AP alone", l1, 1, x2apic_want(l1));
		if (l0 >> 16 == l1 >> 16)
			deliver("x2APIC logical: both", l0 | l1, 1,
				x2apic_want(l0 | l1));
		else
			lc_step("dest", "x2APIC logical: both", LC_SKIP,
				"the two are in different clusters");
	}
	/* the BSP's bit in the next cluster: no CPU's unless 16 or more */
	v = l0 + (1u << 16);
	deliver("x2APIC logical: another cluster", (uint32_t)v, 1,
		x2apic_want((uint32_t)v));
}

void lapic_check_dest(void)
{
	unsigned i;

	cli();
	if (!lc_part_start("dest"))
		return;
	nr_members = 0;
	ap1 = NR_CPUS;
	for (i = 0; i < NR_CPUS; i++) {
		member[i] = __atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE);
		nr_members += member[i];
		if (member[i] && i && ap1 == NR_CPUS)
			ap1 = i;
	}
	idt_set_handler(VEC, handler);
	if (lapic_mode() == LAPIC_XAPIC) {
		physical_alias();
		xapic_logical(0);
		xapic_logical(1);
	} else {
		x2apic_logical();
	}
	lc_delay_us_sti(QUIET_US);
	idt_set_handler(VEC, NULL);
}
