// SPDX-License-Identifier: MIT
/*
 * check=hpet: the HPET (IA-PC HPET specification 1.0a), found through the
 * ACPI HPET table, driven from inside.  Each step is one ok or fail:
 *
 *   counter   runs once enabled (2.3.5), never goes back over 1000
 *             reads, and at the rate GCAP_ID's period says (2.3.4),
 *             against the calibrated TSC, within 1% over 10 ms;
 *   one-shot  a comparator a millisecond ahead, edge, routed to an
 *             IOAPIC input the timer offers (2.3.8 Tn_INT_ROUTE_CAP):
 *             one interrupt, and no more in the next 5 ms (2.3.9);
 *   periodic  the comparator set with Tn_VAL_SET_CNF, then a 1 ms period
 *             (2.3.9.2.2): 8 to 12 interrupts in 10 ms;
 *   legacy    LEG_RT_CNF (2.3.5): timer 0 on ISA IRQ0, the IOAPIC input
 *             the MADT's override names; one one-shot interrupt there;
 *   level     a level timer sets its status bit (2.3.6) and its line
 *             stays asserted: the handler writes 1 to the bit, which
 *             clears it, and EOIs; exactly one interrupt.
 *
 * Prints @hpet_check (docs/RECORDS.md); check_failed() if a step failed;
 * without an HPET table, SKIPPED.  Everything is stopped and masked at
 * the end, and the counter halted.
 */
#include <stdint.h>

#include "arch/idt.h"
#include "arch/x86.h"
#include "boot/acpi_boot.h"
#include "dev/ioapic.h"
#include "dev/lapic.h"
#include "dev/pic.h"
#include "hpet_check.h"
#include "hw/apic.h"
#include "hw/hpet.h"
#include "hw/ioapic.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "sys/calib_hw.h"
#include "sys/panic.h"

#define VEC_EDGE	0x70
#define VEC_LEVEL	0x71
#define VEC_LEGACY	0x72

static volatile uint8_t *hpet;
static unsigned ok, fail, skip, rearms;
static volatile uint32_t n_edge, n_level, n_legacy, level_sta;

static uint64_t rd(unsigned off)
{
	return *(volatile uint64_t *)(hpet + off);
}

static void wr(unsigned off, uint64_t v)
{
	*(volatile uint64_t *)(hpet + off) = v;
}

static void step(const char *what, int good, uint64_t a, uint64_t b)
{
	if (good) {
		ok++;
		kprintf("hpet_check: %s: ok\n", what);
	} else {
		fail++;
		kprintf("hpet_check: %s: FAILED (%lu, %lu)\n", what, a, b);
	}
}

/* @us of the calibrated TSC, with interrupts on */
static void wait_us(uint64_t us)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();

	while (rdtsc() - t0 < khz * us / 1000)
		cpu_relax();
}

/* Up to @us for *@n to pass @from, then QUIET_US more for anything
 * after it: a loaded host's timer may be late, never early */
#define QUIET_US	5000
static void wait_count(volatile uint32_t *n, uint32_t from, uint64_t us)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();

	while (__atomic_load_n(n, __ATOMIC_ACQUIRE) == from &&
	       rdtsc() - t0 < khz * us / 1000)
		cpu_relax();
	wait_us(QUIET_US);
}

/* The counter and the TSC at one moment: the read bracketed by two TSC
 * reads no more than 50 us apart (a vCPU away between them would
 * misplace it by as long as it was away) */
static void sample(uint64_t *tsc, uint64_t *cnt)
{
	uint64_t khz = calib_tsc_khz(), a, b;
	unsigned i;

	for (i = 0; i < 100; i++) {
		a = rdtsc();
		*cnt = rd(HPET_MAIN_CNT);
		b = rdtsc();
		if (b - a < khz / 20)
			break;
	}
	*tsc = a + (b - a) / 2;
}

static void edge_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
	__atomic_fetch_add(&n_edge, 1, __ATOMIC_RELEASE);
}

static void legacy_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
	__atomic_fetch_add(&n_legacy, 1, __ATOMIC_RELEASE);
}

/* 2.3.6: the status bit is set while the level is asserted; writing 1
 * clears both, then the EOI cannot bring it back */
static void level_handler(struct trap_frame *tf)
{
	(void)tf;
	level_sta = (uint32_t)rd(HPET_GINTR_STA);
	wr(HPET_GINTR_STA, 1u << 1);
	lapic_eoi();
	__atomic_fetch_add(&n_level, 1, __ATOMIC_RELEASE);
}

/* The first IOAPIC input timer @n may be routed to that no ISA line
 * uses (16 and up), or -1 */
static int free_route(unsigned n)
{
	uint32_t cap = (uint32_t)(rd(HPET_TN_CONF(n)) >>
				  HPET_TN_ROUTE_CAP_SHIFT);
	int r;

	for (r = 16; r < 32; r++)
		if (cap & (1u << r))
			return r;
	return -1;
}

static void route_pin(unsigned pin, unsigned vec, int level)
{
	ioapic_rte_write(pin, ((uint64_t)cpus[0].apic_id <<
			       (32 + IOAPIC_RTE_DEST_SHIFT)) | vec |
			 (level ? IOAPIC_RTE_LEVEL : 0));
}

static void check_counter(uint64_t period_fs)
{
	uint64_t khz = calib_tsc_khz(), c0, c1, t0, t1, prev, now, want;
	int64_t err_ppm;
	unsigned i, back = 0;

	c0 = rd(HPET_MAIN_CNT);
	wait_us(100);
	step("counter: runs once enabled", rd(HPET_MAIN_CNT) != c0, c0, 0);
	prev = rd(HPET_MAIN_CNT);
	for (i = 0; i < 1000; i++) {
		now = rd(HPET_MAIN_CNT);
		back += now < prev;
		prev = now;
	}
	step("counter: never goes back", !back, back, 0);
	sample(&t0, &c0);
	wait_us(10000);
	sample(&t1, &c1);
	/* ticks the period says for the TSC's time: fs = ns * 10^6 */
	want = (t1 - t0) * 1000000ull / khz * 1000000ull / period_fs;
	err_ppm = ((int64_t)(c1 - c0) - (int64_t)want) * 1000000 /
		  (int64_t)want;
	kprintf("hpet_check: %lu ticks in %lu of the TSC's ns (%ld ppm)\n",
		c1 - c0, (uint64_t)((t1 - t0) * 1000000ull / khz), err_ppm);
	step("counter: at the advertised period",
	     err_ppm <= 10000 && err_ppm >= -10000, c1 - c0, want);
}

/*
 * Timer @n one-shot with @conf, its comparator @ticks on.  The comparator
 * is written before the interrupt is enabled: QEMU 7.2 takes a 64-bit
 * comparator more than 2^63 ticks ahead (the reset value, all ones) as
 * passed and interrupts at once (hpet_calculate_diff()), where 2.3.9
 * matches only at equality.
 */
/* How far ahead a timer's first match is armed: a vCPU away for half of
 * it while arming re-arms (arm()); the rig's MMIO exits under TCG on a
 * loaded host took over 0.5 ms for the four accesses of the arming */
#define LEAD_MS		10

/*
 * Timer @n, one-shot, @ticks from now, counting its interrupts in *@cnt;
 * returns *@cnt before it.  2.3.9.2.1: a comparator the counter has
 * already passed matches only after the counter wraps, so a vCPU that was
 * away for half the margin while arming (a loaded host) disarms, lets
 * anything in flight land, and arms again: up to 5 times, counted in
 * rearms (printed in @hpet_check).
 */
static uint32_t arm(unsigned n, uint64_t ticks, uint64_t conf,
		    volatile uint32_t *cnt)
{
	uint64_t c0, c1;
	uint32_t from;
	unsigned i;

	for (i = 0;; i++) {
		from = __atomic_load_n(cnt, __ATOMIC_ACQUIRE);
		wr(HPET_TN_CONF(n), conf & ~HPET_TN_INT_ENB);
		c0 = rd(HPET_MAIN_CNT);
		wr(HPET_TN_CMP(n), c0 + ticks);
		wr(HPET_TN_CONF(n), conf);
		c1 = rd(HPET_MAIN_CNT);
		if (c1 - c0 < ticks / 2 || i == 4)
			return from;
		rearms++;
		wr(HPET_TN_CONF(n), conf & ~HPET_TN_INT_ENB);
		wr(HPET_GINTR_STA, 1ull << n);
		wait_us(QUIET_US);
	}
}

void hpet_check(void)
{
	const struct acpi_info *acpi;
	const char *from;
	uint64_t cap, period, ms, conf0;
	int err, r0, r1, pin0;
	uint32_t n;

	acpi = acpi_boot(0, &err, &from);
	if (!acpi || !acpi->hpet_addr || acpi->hpet_addr >= 0x100000000ull ||
	    lapic_mode() == LAPIC_NONE || ioapic_init()) {
		kprintf("hpet_check: SKIPPED: %s\n", !acpi || !acpi->hpet_addr ?
			"no ACPI HPET table" : "no IOAPIC or local APIC");
		kprintf("@hpet_check skipped=%s\n", !acpi || !acpi->hpet_addr ?
			"no-hpet" : "no-apic");
		return;
	}
	hpet = (volatile uint8_t *)(uintptr_t)acpi->hpet_addr;
	cap = rd(HPET_GCAP_ID);
	period = cap >> HPET_CAP_PERIOD_SHIFT;
	if (!period || period > 100000000ull) {	/* 2.3.4: <= 100 ns */
		check_failed("hpet", "the HPET's period is not a period",
			     "reason=hpet-period period_fs=%lu", period);
		return;
	}
	ms = 1000000000000ull / period;		/* ticks a millisecond */
	idt_set_handler(VEC_EDGE, edge_handler);
	idt_set_handler(VEC_LEVEL, level_handler);
	idt_set_handler(VEC_LEGACY, legacy_handler);
	/* the check listens on the IOAPIC alone: the 8259's lines masked,
	 * as firmware may have left the 8254 on IRQ0 (SeaBIOS under
	 * QEMU/KVM did: vector 0x20 through LINT0's ExtINT) */
	pic_mask_all();
	wr(HPET_GEN_CONF, 0);
	wr(HPET_MAIN_CNT, 0);
	wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
	sti();
	check_counter(period);

	/* an earlier check may have left the local APIC off (QEMU 7.2 TCG
	 * never sets EN again once check=lapic cleared it): then no
	 * interrupt can come, and that says nothing of the HPET */
	if (!(rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_EN)) {
		static const char *const steps[] = {
			"one-shot: one interrupt, and no more",
			"periodic: the comparator moves by whole periods, an "
			"interrupt a period at most",
			"level: its status set, cleared by writing 1, once",
			"legacy: timer 0 on IRQ0",
		};
		unsigned i;

		for (i = 0; i < 4; i++)
			kprintf("hpet_check: %s: SKIPPED: the local APIC is "
				"disabled (IA32_APIC_BASE 0x%lx)\n", steps[i],
				rdmsr(MSR_IA32_APIC_BASE));
		skip += 4;
		goto done;
	}

	r0 = free_route(0);
	r1 = free_route(1);
	conf0 = rd(HPET_TN_CONF(0));
	if (r0 < 0 || r1 < 0) {
		skip += 4;
		kprintf("hpet_check: one-shot, periodic, level: SKIPPED: no "
			"IOAPIC input above 15 offered (Tn_INT_ROUTE_CAP 0x%x, "
			"0x%x)\n", (uint32_t)(rd(HPET_TN_CONF(0)) >> 32),
			(uint32_t)(rd(HPET_TN_CONF(1)) >> 32));
	} else {
		route_pin((unsigned)r0, VEC_EDGE, 0);
		n = arm(0, LEAD_MS * ms, HPET_TN_INT_ENB |
			(uint64_t)r0 << HPET_TN_ROUTE_SHIFT, &n_edge);
		wait_count(&n_edge, n, 200000);
		step("one-shot: one interrupt, and no more",
		     n_edge == n + 1, n_edge - n, 1);
		if (conf0 & HPET_TN_PER_INT_CAP) {
			uint64_t first, last, c0;
			unsigned i;

			/* 2.3.9.2.2: each match adds the period to the
			 * comparator; a late host may merge matches (fewer
			 * interrupts), never make more */
			for (i = 0;; i++) {	/* as arm() does */
				n = n_edge;
				wr(HPET_TN_CONF(0), HPET_TN_TYPE |
				   HPET_TN_VAL_SET |
				   (uint64_t)r0 << HPET_TN_ROUTE_SHIFT);
				c0 = rd(HPET_MAIN_CNT);
				first = c0 + LEAD_MS * ms;
				wr(HPET_TN_CMP(0), first);
				wr(HPET_TN_CMP(0), ms);
				wr(HPET_TN_CONF(0), HPET_TN_INT_ENB |
				   HPET_TN_TYPE |
				   (uint64_t)r0 << HPET_TN_ROUTE_SHIFT);
				if (rd(HPET_MAIN_CNT) - c0 < LEAD_MS * ms / 2 ||
				    i == 4)
					break;
				rearms++;
				wr(HPET_TN_CONF(0), 0);
				wait_us(QUIET_US);
			}
			wait_us(LEAD_MS * 1000 + 10500);
			wr(HPET_TN_CONF(0), 0);
			last = rd(HPET_TN_CMP(0));
			n = n_edge - n;
			/* 10.5 ms past the first match: 10 periods, by the
			 * counter (9 asked); a host timer running late
			 * merges matches (as QEMU's hpet_timer() does), so
			 * at least one interrupt, never more than a period */
			step("periodic: the comparator moves by whole periods, "
			     "an interrupt a period at most",
			     n >= 1 && last >= first + 9 * ms &&
			     !((last - first) % ms) &&
			     n <= (last - first) / ms + 1, n,
			     (last - first) / ms);
		} else {
			skip++;
			kprintf("hpet_check: periodic: SKIPPED: timer 0 is not "
				"periodic-capable\n");
		}
		ioapic_mask((unsigned)r0);
		route_pin((unsigned)r1, VEC_LEVEL, 1);
		n = arm(1, LEAD_MS * ms, HPET_TN_INT_ENB | HPET_TN_INT_TYPE |
			(uint64_t)r1 << HPET_TN_ROUTE_SHIFT, &n_level);
		wait_count(&n_level, n, 200000);
		step("level: its status set, cleared by writing 1, once",
		     n_level == n + 1 && (level_sta & 2) &&
		     !(rd(HPET_GINTR_STA) & 2), n_level - n, level_sta);
		wr(HPET_TN_CONF(1), 0);
		ioapic_mask((unsigned)r1);
	}

	pin0 = ioapic_isa_pin(0, 0);
	if (!(cap & HPET_CAP_LEG_RT) || pin0 < 0) {
		skip++;
		kprintf("hpet_check: legacy: SKIPPED: %s\n", pin0 < 0 ?
			"no pin for IRQ0" : "no LegacyReplacement Route");
	} else {
		/* legacy first: it cuts the 8254's IRQ0 off (2.3.5), which
		 * firmware may have left running */
		wr(HPET_GEN_CONF, HPET_CONF_ENABLE | HPET_CONF_LEG_RT);
		route_pin((unsigned)pin0, VEC_LEGACY, 0);
		n = arm(0, LEAD_MS * ms, HPET_TN_INT_ENB, &n_legacy);
		wait_count(&n_legacy, n, 200000);
		step("legacy: timer 0 on IRQ0", n_legacy == n + 1,
		     n_legacy - n, 1);
		wr(HPET_TN_CONF(0), 0);
		wr(HPET_GEN_CONF, HPET_CONF_ENABLE);
		ioapic_mask((unsigned)pin0);
	}
done:
	cli();
	wr(HPET_GEN_CONF, 0);
	kprintf("@hpet_check ok=%u fail=%u skip=%u base=0x%lx period_fs=%lu "
		"timers=%u legacy=%u rearms=%u\n", ok, fail, skip,
		acpi->hpet_addr, period,
		(unsigned)((cap & HPET_CAP_NUM_TIM_MASK) >>
			   HPET_CAP_NUM_TIM_SHIFT) + 1,
		!!(cap & HPET_CAP_LEG_RT), rearms);
	if (fail)
		check_failed("hpet", "the HPET check failed",
			     "reason=hpet-check ok=%u fail=%u", ok, fail);
}
