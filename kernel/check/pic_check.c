// SPDX-License-Identifier: MIT
/*
 * check=pic: the 8259A pair's interrupts on the BSP's LINT0 as ExtINT
 * (SDM 11.5.1; the MP spec 1.4 3.6.2.2 "virtual wire mode"), driven
 * through pc-testdev lines (outb(0x2000 + n, level)).  The PIC gets
 * vector base VEC_PIC_CHECK (kernel/dev/pic.c); each step is one ok or fail:
 *
 *   edge    a rising edge on LINE delivers BASE + LINE, once while the
 *           line stays high, and again after low then high.
 *   slave   the same on SLINE, a slave line (through the cascade, IR2):
 *           vector BASE + SLINE.
 *   level   LINE in the ELCR: one delivery, nothing more while it is in
 *           service (8259A: the ISR bit holds its own and lower IRs);
 *           the EOI (OCW2) with the line still high delivers again; low
 *           then EOI: no more.
 *   masked  LINE masked in OCW1: an edge delivers nothing (its IRR bit
 *           latches); the unmask delivers it.
 *   lint0   LINT0 masked: nothing, although the PIC's INTR is high;
 *           unmasked again, the interrupt arrives (ExtINT is level
 *           sensitive on LINT0: "When the delivery mode is ExtINT, the
 *           trigger mode is always level sensitive", SDM 11.5.1).
 *   bsp     no other CPU got any of them.
 *
 * Informational, not a step: ioapic_extint= says whether an IOAPIC entry
 * with delivery mode ExtINT (82093AA 3.2.4) to the BSP, LINT0 masked,
 * brings the PIC's vector ("ok"), nothing ("none": KVM's LAPIC ignores
 * such a message) or the wrong vector ("bad").
 *
 * The test device is found through the PIC itself: an edge on a masked
 * line still sets its IRR bit (8259A "Interrupt Sequence"), read with
 * OCW3.  So a PIC interrupt that never arrives is a failure, not a skip.
 */
#include <stdint.h>

#include "sys/calib_hw.h"
#include "hw/apic.h"
#include "hw/ioapic.h"
#include "hw/testdev.h"
#include "arch/idt.h"
#include "dev/ioapic.h"
#include "dev/lapic.h"
#include "sys/panic.h"
#include "dev/pic.h"
#include "pic_check.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define LINE		5	/* a master line free on irqlab and QEMU */
#define SLINE		13	/* a slave line, free on both (FPU) */
#define BASE		VEC_PIC_CHECK
#define QUIET_US	2000	/* how long "nothing more" waits */
#define WAIT_US		200000	/* the longest an interrupt takes */
#define WAIT_LOOPS	10000000ul	/* without a TSC rate */

enum hmode { H_EOI, H_HOLD, H_DEASSERT };

static volatile enum hmode hmode;
static uint32_t got[NR_CPUS], total, spurious;
static volatile unsigned last_vec;
static unsigned ok, fail;

static void line(unsigned n, int level)
{
	outb(TESTDEV_IRQ_PORT(n), level ? 1 : 0);
}

/*
 * Vectors BASE..BASE+15.  IR7 and IR15 are also what an INTA with no
 * request left gives (8259A "Interrupt Sequence"): that is spurious and
 * has no ISR bit in that chip; the master's IR2 is in service for IR15.
 */
static void handler(struct trap_frame *tf)
{
	unsigned irq = tf->vector - BASE;

	if (irq != LINE && irq != SLINE) {
		if (irq == 15)
			pic_eoi(0);
		__atomic_fetch_add(&spurious, 1, __ATOMIC_RELAXED);
		return;
	}
	last_vec = tf->vector;
	if (hmode == H_DEASSERT)
		line(irq, 0);
	if (hmode != H_HOLD)
		pic_eoi(irq);
	/* counted last, as in ioapic_check.c: the step waits for it */
	__atomic_fetch_add(&got[this_cpu()->index], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&total, 1, __ATOMIC_RELEASE);
}

/* the OCW1 masks with line @n alone unmasked */
static uint16_t only(unsigned n)
{
	return (uint16_t)~(1u << n);
}

static uint32_t count(void)
{
	return __atomic_load_n(&total, __ATOMIC_ACQUIRE);
}

/* Spin with IF=1 for @us (by the TSC, else a loop) or until @want. */
static int wait_for(uint32_t want, uint64_t us)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();
	unsigned long n;

	for (n = 0; khz || n < WAIT_LOOPS / 10; n++) {
		if (want && count() >= want)
			return 0;
		if (khz && rdtsc() - t0 > khz * us / 1000)
			break;
		cpu_relax();
	}
	return want ? -1 : 0;
}

static int wait_total(uint32_t want)
{
	return wait_for(want, WAIT_US);
}

static void quiet(void)
{
	wait_for(0, QUIET_US);
}

static void step(const char *what, int good)
{
	if (good) {
		ok++;
		kprintf("pic_check: %s: ok\n", what);
		return;
	}
	fail++;
	kprintf("pic_check: %s: FAILED (deliveries %u, last vector 0x%x, "
		"irr 0x%04x, isr 0x%04x, lint0 0x%x)\n", what, count(),
		last_vec, pic_irr(), pic_isr(), lapic_read(APIC_LVT_LINT0));
}

static void lint0(int masked)
{
	lapic_write(APIC_LVT_LINT0, APIC_LVT_DM_EXTINT |
		    (masked ? APIC_LVT_MASKED : 0));
}

static void check_edge(unsigned n, const char *const what[4])
{
	uint32_t c = count();

	hmode = H_EOI;
	pic_set_mask(only(n));
	line(n, 1);
	step(what[0], !wait_total(c + 1) && last_vec == BASE + n);
	quiet();
	step(what[1], count() == c + 1);
	line(n, 0);
	line(n, 1);
	step(what[2], !wait_total(c + 2));
	line(n, 0);
	quiet();
	step(what[3], count() == c + 2);
	pic_set_mask(0xffff);
}

static void check_level(uint16_t elcr)
{
	uint32_t c = count();

	pic_set_elcr(elcr | 1u << LINE);
	step("level: ELCR takes the line", pic_get_elcr() & 1u << LINE);
	hmode = H_HOLD;
	pic_set_mask(only(LINE));
	line(LINE, 1);
	step("level: asserted delivers", !wait_total(c + 1) &&
	     last_vec == BASE + LINE);
	quiet();
	step("level: once while in service", count() == c + 1 &&
	     (pic_isr() & 1u << LINE));
	pic_eoi(LINE);		/* still high: requested again */
	step("level: EOI re-delivers while asserted", !wait_total(c + 2));
	line(LINE, 0);
	pic_eoi(LINE);		/* low first: nothing */
	quiet();
	step("level: deassert then EOI does not", count() == c + 2 &&
	     !pic_isr());
	pic_set_mask(0xffff);
	pic_set_elcr(elcr);
}

static void check_masked(void)
{
	uint32_t c = count();

	hmode = H_EOI;
	pic_set_mask(0xffff);
	line(LINE, 1);
	quiet();
	step("masked: an edge while masked waits", count() == c &&
	     (pic_irr() & 1u << LINE));
	pic_set_mask(only(LINE));
	step("masked: unmask delivers", !wait_total(c + 1));
	line(LINE, 0);
	quiet();
	step("masked: once", count() == c + 1);
	pic_set_mask(0xffff);
}

static void kick_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
}

/*
 * On hardware the INTR still high reaches the CPU as soon as LINT0 is
 * unmasked.  KVM's in-kernel LAPIC (--irqchip=kernel) only looks at its
 * PIC again at its next interrupt event: so if nothing came, one self
 * IPI gives it that event, and the record says "late".
 */
static const char *lint0_unmask = "skip";

static void check_lint0(void)
{
	uint32_t c = count();

	hmode = H_EOI;
	lint0(1);
	pic_set_mask(only(LINE));
	line(LINE, 1);
	quiet();
	step("lint0: masked LINT0 delivers nothing", count() == c);
	lint0(0);
	lint0_unmask = "ok";
	if (wait_total(c + 1)) {
		lint0_unmask = "late";
		lapic_send_self(VEC_PIC_CHECK_KICK);
	}
	step("lint0: unmasked, the waiting INTR arrives", !wait_total(c + 1));
	line(LINE, 0);
	quiet();
	step("lint0: once", count() == c + 1);
	pic_set_mask(0xffff);
}

/* LINT0 masked, an IOAPIC ExtINT entry on LINE's pin to the BSP. */
static const char *check_ioapic_extint(uint32_t bsp)
{
	uint32_t c = count();
	const char *r;
	int p;

	p = ioapic_init() ? -1 : ioapic_isa_pin(LINE, NULL);
	if (p < 0)
		return "skip";
	hmode = H_EOI;
	lint0(1);
	pic_set_mask(only(LINE));
	ioapic_rte_write((unsigned)p, ((uint64_t)bsp << 56) |
			 IOAPIC_RTE_DM_EXTINT);
	line(LINE, 1);
	r = wait_total(c + 1) ? "none" : last_vec == BASE + LINE ? "ok" : "bad";
	line(LINE, 0);
	ioapic_mask((unsigned)p);
	quiet();
	pic_set_mask(0xffff);
	lint0(0);
	return r;
}

static const char *const edge_steps[4] = {
	"edge: rising edge delivers base+line", "edge: held high delivers once",
	"edge: a second edge delivers", "edge: no more",
};
static const char *const slave_steps[4] = {
	"slave: rising edge delivers base+line", "slave: held high once",
	"slave: a second edge delivers", "slave: no more",
};

/* Is there a test device?  An edge on the masked line latches IRR. */
static int probe(void)
{
	int seen;

	pic_init(BASE);
	line(LINE, 0);
	line(LINE, 1);
	seen = pic_irr() & 1u << LINE;
	line(LINE, 0);
	pic_init(BASE);		/* ICW1 clears the latched edge */
	return seen;
}

static void finish(void)
{
	unsigned i;

	/* the source first, then LINT0: kernel/dev/lapic.c says why */
	pic_mask_all();
	lapic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	cli();
	for (i = 1; i < NR_CPUS; i++)
		if (__atomic_load_n(&got[i], __ATOMIC_ACQUIRE))
			break;
	step("bsp: no other CPU got one", i == NR_CPUS);
}

void pic_check(void)
{
	const char *ioapic_extint;
	uint16_t elcr;
	unsigned v;

	if (lapic_mode() == LAPIC_NONE) {
		kprintf("@pic_check skipped=no-apic\n");
		return;
	}
	if (!probe()) {
		pic_mask_all();
		kprintf("@pic_check skipped=no-testdev\n");
		return;
	}
	for (v = 0; v < 16; v++)
		idt_set_handler(BASE + v, handler);
	idt_set_handler(VEC_PIC_CHECK_KICK, kick_handler);
	elcr = pic_get_elcr() & ~(1u << LINE | 1u << SLINE);
	pic_set_elcr(elcr);
	lint0(0);
	sti();
	check_edge(LINE, edge_steps);
	check_edge(SLINE, slave_steps);
	check_level(elcr);
	check_masked();
	check_lint0();
	ioapic_extint = check_ioapic_extint(cpus[0].apic_id);
	finish();
	/* the handlers stay: a late or spurious one must not panic */
	kprintf("@pic_check ok=%u fail=%u cpus=%u line=%u slave_line=%u "
		"base=0x%x deliveries=%u spurious=%u lint0_unmask=%s "
		"ioapic_extint=%s\n", ok, fail, smp_nr_online(), LINE, SLINE,
		BASE, count(), __atomic_load_n(&spurious, __ATOMIC_RELAXED),
		lint0_unmask, ioapic_extint);
	if (fail)
		check_failed("pic", "the PIC check failed",
			     "reason=pic-check ok=%u fail=%u", ok, fail);
}
