// SPDX-License-Identifier: MIT
/*
 * check=ioapic: the IOAPIC's pin rules (82093AA datasheet 3.2.4), driven
 * from inside through pc-testdev lines (outb(0x2000 + n, level): QEMU's
 * -device pc-testdev, irqlab-vmm always).  Each step is one ok or fail:
 *
 *   edge    a rising edge delivers once; the line held high delivers
 *           nothing more; low then high again delivers again.
 *   level   asserted: one delivery and remote IRR set, nothing more
 *           until the EOI; the EOI with the line still high delivers
 *           again; deasserted and then EOI'd: no more, remote IRR clear.
 *   masked  a level line asserted while masked delivers nothing; the
 *           unmask delivers it.
 *   dest    an edge, then a level entry moved to each online CPU in
 *           turn (low dword unchanged, then the high dword): each
 *           assertion reaches that CPU and no other.
 *   move    two level lines on CPU 0 (pins of ISA lines 13 and 14,
 *           vectors 0x64 and 0x84); 0x64's handler raises line 14, moves
 *           both entries to CPU 1 (the high dword alone) while 0x64 is in
 *           service and 0x84 pending on CPU 0, deasserts line 13 and
 *           EOIs: 0x84 then runs once, after that handler's IRET, and
 *           both remote IRRs clear (their EOIs reach the IOAPIC from the
 *           CPU that had them, whatever the entries say now).
 *   pit     informational, not a step: PIT channel 0 periodic and
 *           one-shot on ISA IRQ0's pin (the MADT override), and a
 *           channel-2 delay (kernel/dev/pit.c).
 *
 * "Nothing more" is checked by waiting QUIET_US; the handler counts per
 * CPU and, per step, EOIs at once, deasserts then EOIs, or leaves the
 * EOI to the step (HOLD: the interrupt stays in service on the BSP).
 *
 * Some steps hold only if the LAPIC keeps the vector in service until
 * its EOI (SDM 11.8.4: on acceptance it "clears the highest priority IRR
 * bit that is set and sets the corresponding ISR bit").  The handler
 * reads its ISR bit on every delivery.  Where it was clear (KVM's LAPIC
 * on the kvm_pvm host, docs/RECORDS.md), such a step that fails is
 * counted as skipped, with its reason, not as passed.
 */
#include <stdint.h>

#include "sys/calib_hw.h"
#include "hw/apic.h"
#include "hw/testdev.h"
#include "arch/idt.h"
#include "dev/ioapic.h"
#include "ioapic_check.h"
#include "dev/lapic.h"
#include "sys/panic.h"
#include "dev/pit.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define LINE		3		/* free on irqlab and QEMU */
#define VEC		VEC_IOAPIC_CHECK
#define QUIET_US	2000		/* how long "nothing more" waits */
#define WAIT_LOOPS	10000000ul	/* as ipi_check's bound */

enum hmode { H_EOI, H_HOLD, H_DEASSERT };

static volatile enum hmode hmode;
static uint32_t got[NR_CPUS], total;
static uint32_t isr_set, isr_clear;	/* VEC's ISR bit seen in the handler */
static unsigned ok, fail, skip, pin;

/* Is VEC in service on this CPU?  ISR is 8 registers of 32 vectors. */
static int vec_in_service(void)
{
	return !!(lapic_read(APIC_ISR + 0x10 * (VEC / 32)) &
		  (1u << (VEC % 32)));
}

static void handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(vec_in_service() ? &isr_set : &isr_clear, 1,
			   __ATOMIC_RELAXED);
	if (hmode == H_DEASSERT)
		outb(TESTDEV_IRQ_PORT(LINE), 0);
	if (hmode != H_HOLD)
		lapic_eoi();
	/* counted last: the BSP's next step starts when it sees the count,
	 * and must not race this handler's deassert and EOI */
	__atomic_fetch_add(&got[this_cpu()->index], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&total, 1, __ATOMIC_RELEASE);
}

static void line(int level)
{
	outb(TESTDEV_IRQ_PORT(LINE), level ? 1 : 0);
}

static uint32_t count(void)
{
	return __atomic_load_n(&total, __ATOMIC_ACQUIRE);
}

/* Wait (IF=1) until total reaches @want; 0, or -1 after the bound. */
static int wait_total(uint32_t want)
{
	unsigned long n;

	for (n = 0; n < WAIT_LOOPS; n++) {
		if (count() >= want)
			return 0;
		cpu_relax();
	}
	return -1;
}

/* As wait_total(), bounded by @us of TSC time when its rate is known:
 * 10^7 PAUSEs can take minutes where each is a pause-loop exit. */
static int wait_total_us(uint32_t want, uint64_t us)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();

	if (!khz)
		return wait_total(want);
	while (count() < want)
		if (rdtsc() - t0 > khz * us / 1000)
			return -1;
		else
			cpu_relax();
	return 0;
}

/* Let QUIET_US / @parts pass with interrupts on (by the TSC, else a
 * loop). */
static void wait_quiet_part(unsigned parts)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();
	unsigned long n;

	if (khz) {
		while (rdtsc() - t0 < khz * QUIET_US / 1000 / parts)
			cpu_relax();
		return;
	}
	for (n = 0; n < WAIT_LOOPS / 10 / parts; n++)
		cpu_relax();
}

static void quiet(void)
{
	wait_quiet_part(1);
}

static int remote_irr(void)
{
	return !!(ioapic_rte_read(pin) & IOAPIC_RTE_REMOTE_IRR);
}

static void step(const char *what, int good)
{
	if (good) {
		ok++;
		kprintf("ioapic_check: %s: ok\n", what);
		return;
	}
	fail++;
	kprintf("ioapic_check: %s: FAILED (deliveries %u, rte 0x%lx)\n",
		what, count(), ioapic_rte_read(pin));
}

/* A step that needs VEC held in service until its EOI (SDM 11.8.4). */
static void step_isr(const char *what, int good)
{
	if (good || !__atomic_load_n(&isr_clear, __ATOMIC_RELAXED)) {
		step(what, good);
		return;
	}
	skip++;
	kprintf("ioapic_check: %s: SKIPPED: the LAPIC did not hold vector "
		"0x%x in service in its handler (ISR bit clear in %u of %u "
		"deliveries; SDM 11.8.4), deliveries %u\n", what, VEC,
		isr_clear, isr_clear + isr_set, count());
}

static const char *isr_name(void)
{
	if (!isr_clear)
		return isr_set ? "held" : "none";
	return isr_set ? "mixed" : "clear";
}

static void program(uint32_t lo, uint32_t dest)
{
	ioapic_rte_write(pin, ((uint64_t)dest << (32 + IOAPIC_RTE_DEST_SHIFT)) |
				      lo | IOAPIC_RTE_MASKED);
	if (!(lo & IOAPIC_RTE_MASKED))
		ioapic_unmask(pin);
}

static void check_edge(uint32_t bsp)
{
	uint32_t c = count();

	hmode = H_EOI;
	program(VEC, bsp);
	line(1);
	step("edge: rising edge delivers", !wait_total(c + 1));
	line(1);
	quiet();
	step("edge: held high delivers once", count() == c + 1);
	line(0);
	line(1);
	step("edge: a second edge delivers", !wait_total(c + 2));
	line(0);
	quiet();
	step("edge: no more", count() == c + 2);
	ioapic_mask(pin);
}

static void check_level(uint32_t bsp)
{
	uint32_t c = count();

	hmode = H_HOLD;
	program(VEC | IOAPIC_RTE_LEVEL, bsp);
	line(1);
	step("level: asserted delivers", !wait_total(c + 1));
	quiet();
	step_isr("level: once until the EOI", count() == c + 1);
	step("level: remote IRR set", remote_irr());
	lapic_eoi();		/* still asserted: again */
	step("level: EOI re-delivers while asserted", !wait_total(c + 2));
	line(0);
	lapic_eoi();		/* deasserted first: nothing */
	quiet();
	step_isr("level: deassert then EOI does not", count() == c + 2);
	step("level: remote IRR clear", !remote_irr());
	ioapic_mask(pin);
}

static void check_masked(uint32_t bsp)
{
	uint32_t c = count();

	hmode = H_DEASSERT;
	program(VEC | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED, bsp);
	line(1);
	quiet();
	step("masked: asserted while masked waits", count() == c);
	ioapic_unmask(pin);
	step("masked: unmask delivers", !wait_total(c + 1));
	quiet();
	step_isr("masked: once", count() == c + 1);
	step("masked: remote IRR clear", !remote_irr());
	ioapic_mask(pin);
	line(0);
}

/*
 * Move the entry to each online CPU in the Windows pattern, assert.  An
 * edge must reach that CPU once and no other.  A level entry is two
 * steps: it reaches that CPU and no other, and it does so once, which
 * needs the LAPIC to hold it in service while the handler deasserts.
 */
static void check_dest(uint32_t lo)
{
	uint32_t before[NR_CPUS], c, n;
	unsigned i, t, wrong;
	int level = !!(lo & IOAPIC_RTE_LEVEL), arrived, only;
	char what[64];

	hmode = H_DEASSERT;
	program(lo, cpus[0].apic_id);
	for (t = 0; t < NR_CPUS; t++) {
		if (!__atomic_load_n(&cpus[t].online, __ATOMIC_ACQUIRE) ||
		    cpus[t].apic_id > 0xfe)
			continue;
		for (i = 0; i < NR_CPUS; i++)
			before[i] = __atomic_load_n(&got[i], __ATOMIC_ACQUIRE);
		c = count();
		ioapic_rte_write_lo_hi(pin, lo, cpus[t].apic_id <<
				       IOAPIC_RTE_DEST_SHIFT);
		line(1);
		arrived = !wait_total(c + 1);
		if (!level)
			line(0);
		quiet();
		for (i = 0, wrong = 0; i < NR_CPUS; i++)
			if (i != t)
				wrong += got[i] - before[i];
		n = got[t] - before[t];
		only = arrived && !wrong && n >= 1;
		/* one name per CPU: make conformance's rows */
		if (!level) {
			ksnprintf(what, sizeof(what), "dest: edge move to cpu %u", t);
			step(what, only && n == 1);
		} else {
			ksnprintf(what, sizeof(what), "dest: level move to cpu %u "
				  "reaches it only", t);
			step(what, only);
			ksnprintf(what, sizeof(what), "dest: level move to cpu %u "
				  "delivers once", t);
			step_isr(what, n == 1);
		}
		if (!only || n != 1)
			kprintf("ioapic_check: the move was to cpu %u (APIC "
				"ID %u): %u there, %u elsewhere\n", t,
				cpus[t].apic_id, n, wrong);
	}
	ioapic_mask(pin);
	line(0);
}

/* ---- move: a handler moves its own level line (and one pending) ---- */

#define MOVE_LINE_A	13
#define MOVE_LINE_B	14
#define MOVE_VEC_A	0x64
#define MOVE_VEC_B	0x84

static unsigned move_pin_a, move_pin_b, move_to;
static volatile uint32_t move_a_done, move_b_runs, move_b_after, move_b_cpu;

static void move_handler_a(struct trap_frame *tf)
{
	uint32_t hi = cpus[move_to].apic_id << IOAPIC_RTE_DEST_SHIFT;

	(void)tf;
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_B), 1);	/* 0x84 to CPU 0 */
	ioapic_write(IOAPIC_REG_REDTBL + 2 * move_pin_a + 1, hi);
	ioapic_write(IOAPIC_REG_REDTBL + 2 * move_pin_b + 1, hi);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_A), 0);
	lapic_eoi();
	__atomic_store_n(&move_a_done, 1, __ATOMIC_RELEASE);
}

static void move_handler_b(struct trap_frame *tf)
{
	(void)tf;
	move_b_after = __atomic_load_n(&move_a_done, __ATOMIC_ACQUIRE);
	move_b_cpu = this_cpu()->index;
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_B), 0);
	lapic_eoi();
	__atomic_fetch_add(&move_b_runs, 1, __ATOMIC_RELEASE);
}

static void check_move(uint32_t bsp)
{
	int a = ioapic_isa_pin(MOVE_LINE_A, NULL);
	int b = ioapic_isa_pin(MOVE_LINE_B, NULL);
	const uint32_t lvl = IOAPIC_RTE_LEVEL;
	uint64_t khz = calib_tsc_khz(), t0;
	unsigned t;

	for (t = 1; t < NR_CPUS; t++)
		if (__atomic_load_n(&cpus[t].online, __ATOMIC_ACQUIRE) &&
		    cpus[t].apic_id <= 0xfe)
			break;
	if (a < 0 || b < 0 || t == NR_CPUS) {
		skip++;
		kprintf("ioapic_check: move: SKIPPED: %s\n", t == NR_CPUS ?
			"one CPU online" : "no pins for lines 13 and 14");
		return;
	}
	move_pin_a = (unsigned)a;
	move_pin_b = (unsigned)b;
	move_to = t;
	idt_set_handler(MOVE_VEC_A, move_handler_a);
	idt_set_handler(MOVE_VEC_B, move_handler_b);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_A), 0);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_B), 0);
	ioapic_rte_write(move_pin_a, (uint64_t)bsp << (32 + IOAPIC_RTE_DEST_SHIFT)
			 | lvl | MOVE_VEC_A);
	ioapic_rte_write(move_pin_b, (uint64_t)bsp << (32 + IOAPIC_RTE_DEST_SHIFT)
			 | lvl | MOVE_VEC_B);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_A), 1);
	t0 = rdtsc();
	while (!__atomic_load_n(&move_b_runs, __ATOMIC_ACQUIRE) &&
	       (!khz || rdtsc() - t0 < khz * 1000))	/* up to 1 s */
		cpu_relax();
	quiet();
	step("move: the pending level vector runs once, after the IRET",
	     move_a_done && move_b_runs == 1 && move_b_after);
	step("move: both remote IRRs clear",
	     !(ioapic_rte_read(move_pin_a) & IOAPIC_RTE_REMOTE_IRR) &&
	     !(ioapic_rte_read(move_pin_b) & IOAPIC_RTE_REMOTE_IRR));
	if (!move_a_done || move_b_runs != 1 || !move_b_after)
		kprintf("ioapic_check: move: 0x64 done %u, 0x84 ran %u times "
			"(on cpu %u, %s 0x64's handler), entries 0x%lx 0x%lx\n",
			move_a_done, move_b_runs, move_b_cpu,
			move_b_after ? "after" : "before",
			ioapic_rte_read(move_pin_a), ioapic_rte_read(move_pin_b));
	ioapic_mask(move_pin_a);
	ioapic_mask(move_pin_b);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_A), 0);
	outb(TESTDEV_IRQ_PORT(MOVE_LINE_B), 0);
}

/*
 * The PIT (kernel/dev/pit.c) on ISA IRQ0's pin: channel 0 periodic at 1 kHz
 * for about 20 ms, a control word that stops it, then 2 ms in which
 * nothing may come and the count may not move, then one one-shot of
 * 20 ms (exactly one interrupt: the kernel waits for it up to 1 s, so
 * that a loaded host's late timer is still seen, then 20 ms more for
 * anything after it), and a 1 ms channel-2 delay polled through port
 * 0x61.
 *
 * 8254 datasheet, "Programming": "When a Control Word is written to a
 * Counter, all Control Logic is immediately reset and OUT goes to a
 * known initial state"; in mode 0 OUT stays low until a count is written
 * and runs out, and "after the Control Word and initial count are
 * written ... the initial count will be loaded on the next CLK pulse":
 * with no count written nothing is loaded, so nothing counts.  The stop
 * is judged from the count as well as from the pin.  A PIT that goes on
 * counting (KVM's, QEMU's) moves by about 1,193 counts a millisecond
 * whenever it is read, however late its own timer fires; an interrupt
 * in a 2 ms window alone is missed when the host is loaded and that
 * timer runs late.
 *
 * KVM's PIT keeps its periodic timer running after the control word
 * (pit_after_stop), and one tick of it can land just after the
 * one-shot's count is loaded.  So the pin stays masked for the first
 * 2 ms of that count (a periodic tick is 1 ms), in which a datasheet PIT
 * has nothing to send (a masked edge is dropped: 82093AA 3.2.4, bit 16),
 * and the one-shot's count is taken from then on.
 */
#define PIT_STOP_READS	8		/* count reads across the 2 ms */
#define PIT_ONESHOT_LATE_US 1000000	/* the one-shot's longest wait */

static unsigned pit_irqs;
static const char *pit_ch2 = "skip";
static unsigned pit_periodic, pit_after_stop, pit_oneshot, pit_stop_moved;

static void pit_handler(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&pit_irqs, 1, __ATOMIC_RELAXED);
	lapic_eoi();
}

static void wait_us(unsigned n)
{
	while (n >= QUIET_US) {
		quiet();
		n -= QUIET_US;
	}
}

static unsigned pit_count(void)
{
	return __atomic_load_n(&pit_irqs, __ATOMIC_RELAXED);
}

/* Wait (IF=1) until a PIT interrupt beyond @base came, at most @us: a
 * one-shot that a loaded host delivers late is still the one-shot. */
static void wait_pit_after(unsigned base, unsigned us)
{
	for (; us >= QUIET_US / 10 && pit_count() == base; us -= QUIET_US / 10)
		wait_quiet_part(10);
}

/*
 * QUIET_US after the stop, read channel 0's count PIT_STOP_READS times
 * (counter latch) and return the largest distance from the first read,
 * either way round: 0 for a stopped counter.  Several reads, so that a counter that runs
 * on cannot come back to the same value by wrapping round between two.
 */
static unsigned pit_stop_count_moved(void)
{
	uint16_t first = pit_ch0_read(), d;
	unsigned i, moved = 0;

	for (i = 0; i < PIT_STOP_READS; i++) {
		wait_quiet_part(PIT_STOP_READS);
		d = (uint16_t)(first - pit_ch0_read());
		if (d > 0x8000)			/* counted up, or wrapped */
			d = (uint16_t)(0x10000 - d);
		if (d > moved)
			moved = d;
	}
	return moved;
}

static const char *check_pit(uint32_t bsp)
{
	int p = ioapic_isa_pin(0, NULL);
	unsigned base;

	if (p < 0)
		return "no-pin";
	idt_set_handler(VEC_IOAPIC_CHECK_PIT, pit_handler);
	ioapic_rte_write((unsigned)p, ((uint64_t)bsp << 56) |
			 VEC_IOAPIC_CHECK_PIT);
	pit_ch0_periodic(pit_ticks_for_us(1000));
	wait_us(20000);
	pit_ch0_stop();
	pit_periodic = pit_count();
	pit_stop_moved = pit_stop_count_moved();
	pit_after_stop = pit_count() - pit_periodic;
	ioapic_mask((unsigned)p);
	pit_ch0_oneshot(pit_ticks_for_us(10 * QUIET_US));
	wait_us(QUIET_US);
	base = pit_count();
	ioapic_unmask((unsigned)p);
	wait_pit_after(base, PIT_ONESHOT_LATE_US);
	wait_us(10 * QUIET_US);		/* then nothing more may come */
	pit_oneshot = pit_count() - base;
	ioapic_mask((unsigned)p);
	pit_ch2 = pit_delay_us(1000) ? "stuck" : "ok";
	return pit_periodic && !pit_after_stop && !pit_stop_moved &&
	       pit_oneshot == 1 ? "ok" : "bad";
}

void ioapic_check(void)
{
	uint32_t bsp = cpus[0].apic_id;
	const char *pit;
	int p;

	ioapic_init();
	p = ioapic_isa_pin(LINE, NULL);
	if (lapic_mode() == LAPIC_NONE || p < 0) {
		kprintf("@ioapic_check skipped=%s\n", p < 0 ? "no-ioapic" :
			"no-apic");
		return;
	}
	pin = (unsigned)p;
	idt_set_handler(VEC, handler);
	line(0);
	sti();
	/* is there a test device at all?  One edge tells. */
	hmode = H_EOI;
	program(VEC, bsp);
	line(1);
	if (wait_total_us(1, 100000)) {
		ioapic_mask(pin);
		line(0);
		/* the PIT needs no test device: Bochs, GRUB on hardware */
		pit = check_pit(bsp);
		cli();
		kprintf("@ioapic_check skipped=no-testdev pit=%s pit_periodic=%u "
			"pit_after_stop=%u pit_stop_moved=%u pit_oneshot=%u "
			"pit_ch2=%s\n", pit, pit_periodic, pit_after_stop,
			pit_stop_moved, pit_oneshot, pit_ch2);
		return;
	}
	line(0);
	ioapic_mask(pin);
	check_edge(bsp);
	check_level(bsp);
	check_masked(bsp);
	check_dest(VEC);
	check_dest(VEC | IOAPIC_RTE_LEVEL);
	check_move(bsp);
	pit = check_pit(bsp);
	cli();
	/* VEC's handler stays: a late duplicate must not panic */
	kprintf("@ioapic_check ok=%u fail=%u skip=%u cpus=%u pin=%u "
		"deliveries=%u lapic_isr=%s pit=%s pit_periodic=%u "
		"pit_after_stop=%u pit_stop_moved=%u pit_oneshot=%u pit_ch2=%s\n",
		ok, fail, skip, smp_nr_online(), pin, count(), isr_name(), pit,
		pit_periodic, pit_after_stop, pit_stop_moved, pit_oneshot,
		pit_ch2);
	if (fail)
		check_failed("ioapic", "the IOAPIC check failed",
			     "reason=ioapic-check ok=%u fail=%u", ok, fail);
}
