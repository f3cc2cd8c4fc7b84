// SPDX-License-Identifier: MIT
/*
 * check=lapic, part window: the interrupt window and the STI shadow.
 * With IF = 0, edges on two IOAPIC pins (pc-testdev lines, as
 * check=ioapic) put vectors 0x66 and then 0x78 in IRR; then `sti; nop`.
 *
 *   pending     both are in IRR before the STI
 *   delivered   both come, once each
 *   by class    0x78 first (SDM 11.8.3: the highest class first)
 *   after nop   0x78 at the boundary right after the nop: STI "allows
 *               external, maskable interrupts to be handled at the end
 *               of the next instruction" (SDM vol. 2B, STI; vol. 3A
 *               6.8.3), not later
 *   after iret  0x66 at the same RIP, as soon as 0x78's handler returns
 *               (its IRET sets IF again, and 0x66 is then the highest)
 *
 * Late (after nop, after iret): irqlab-vmm (user irqchip) asks KVM for
 * the interrupt window while IF = 0 and an interrupt waits; KVM should
 * exit with KVM_EXIT_IRQ_WINDOW_OPEN right after the nop.  kvm_pvm does
 * not at once, so the interrupt waits for a later exit; KVM's own LAPIC
 * (split, kernel) is as late there.  The step is HOST on evidence: the
 * handler's snapshot shows that irqlab-vmm delivered at the first exit
 * of any kind that it got after the STI (after 0x78's EOI, for 0x66), or
 * the LAPIC is KVM's (lapic_check_host.c).  A lost interrupt or a wrong
 * order is FAILED always.  Without a test device (QEMU without -device
 * pc-testdev) the part is SKIPPED.
 */
#include <stddef.h>
#include <stdint.h>

#include "hw/testdev.h"
#include "arch/idt.h"
#include "dev/ioapic.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define PART		"window"
#define VEC_LOW		0x66
#define VEC_HIGH	0x78
#define LINE_LOW	3	/* free on irqlab and QEMU (check=ioapic) */
#define LINE_HIGH	5	/* free too (check=pic uses it alike) */
#define PROBE_US	100000	/* an edge, or the test device is absent */
#define LATE_US		2000	/* before the deliberate exit */
#define WAIT_US		1000000	/* for what must come */
#define NR_HITS		8

/* The deliveries: irqlab's exits at entry and after the EOI too. */
static struct lc_hit hits[NR_HITS];
static uint32_t nhits;
static int pin_low, pin_high;

static void handler(struct trap_frame *tf)
{
	lc_hit(tf, hits, NR_HITS, &nhits, 1);
}

static void line(unsigned n, int level)
{
	outb(TESTDEV_IRQ_PORT(n), level ? 1 : 0);
}

/* Edge-triggered, fixed, to the BSP, unmasked. */
static void program(int pin, unsigned vec)
{
	uint64_t dest = (uint64_t)cpus[0].apic_id <<
			(32 + IOAPIC_RTE_DEST_SHIFT);

	ioapic_rte_write((unsigned)pin, dest | vec | IOAPIC_RTE_MASKED);
	ioapic_unmask((unsigned)pin);
}

/* `sti; nop`; returns the address of the boundary after the nop. */
static uint64_t sti_nop(void)
{
	uint64_t after;

	asm volatile("lea 1f(%%rip), %0\n\t"
		     "sti\n\t"
		     "nop\n"
		     "1:"
		     : "=&r"(after) : : "memory");
	return after;
}

/* Is the test device there?  One edge with IF = 1 tells (check=ioapic). */
static int probe(void)
{
	int got;

	sti();
	line(LINE_LOW, 1);
	got = !lc_wait_ge(&nhits, 1, PROBE_US);
	line(LINE_LOW, 0);
	cli();
	return got;
}

/* IF = 0: until both vectors are in IRR; 1 if they are. */
static int wait_pending(void)
{
	int k;

	for (k = 0; k < 100; k++) {
		if (lc_irr(VEC_LOW) && lc_irr(VEC_HIGH))
			return 1;
		lc_delay_us(1000);
	}
	return 0;
}

/*
 * Hit @i came late, not at @want: HOST if the LAPIC is KVM's, or if its
 * handler's snapshot shows that irqlab-vmm delivered it at the first exit
 * it got after @before (the snapshot before the STI, or 0x78's handler's
 * after its EOI): the host opened no earlier window.  Else FAILED.
 */
static void late(const char *step, unsigned i, uint64_t want, uint64_t t0,
		 const struct lc_exits *before)
{
	uint64_t us = lc_tsc_us(hits[i].tsc - t0);

	if (lc_apic_owner() == LC_APIC_HOST)
		lc_step(PART, step, LC_HOST, "KVM's LAPIC delivered 0x%x %lu "
			"us after the STI, at RIP 0x%lx, not 0x%lx",
			hits[i].vec, us, hits[i].rip, want);
	else if (lc_first_exit(before, &hits[i].in))
		lc_step(PART, step, LC_HOST, "window opened late: 0x%x came "
			"%lu us after the STI at irqlab-vmm's next exit (%s), "
			"RIP 0x%lx, not 0x%lx",
			hits[i].vec, us, lc_exit_kind(before, &hits[i].in),
			hits[i].rip, want);
	else
		lc_step(PART, step, LC_FAIL, "0x%x came %lu us after the STI "
			"at RIP 0x%lx, not 0x%lx, after %lu exits (%lu window "
			"exits); LAPIC %s", hits[i].vec, us, hits[i].rip, want,
			hits[i].in.all - before->all,
			hits[i].in.irq_window - before->irq_window,
			lc_apic_owner_name());
}

static void check_window(void)
{
	struct lc_exits a, b;
	uint64_t t0, after;
	uint32_t n;
	int k;

	line(LINE_HIGH, 0);
	line(LINE_LOW, 1);		/* 0x66, then 0x78 */
	line(LINE_HIGH, 1);
	lc_expect(PART, "pending", wait_pending(), "IRR bits of 0x%x, 0x%x: "
		  "%d, %d", VEC_LOW, VEC_HIGH, lc_irr(VEC_LOW),
		  lc_irr(VEC_HIGH));
	lc_exits_now(&a);
	t0 = rdtsc();
	after = sti_nop();
	lc_delay_us(LATE_US);	/* by RDTSC: no exit to irqlab-vmm */
	/* then exits, at which irqlab-vmm may deliver */
	for (k = 0; k < 1000 && __atomic_load_n(&nhits, __ATOMIC_ACQUIRE) < 2;
	     k++) {
		lc_exits_now(&b);
		lc_delay_us(WAIT_US / 1000);
	}
	lc_delay_us(LATE_US);
	cli();
	line(LINE_LOW, 0);
	line(LINE_HIGH, 0);

	n = __atomic_load_n(&nhits, __ATOMIC_ACQUIRE);
	lc_expect(PART, "delivered", n == 2, "%u deliveries of 2 (first 0x%x)",
		  n, n ? hits[0].vec : 0);
	lc_expect(PART, "by class", n >= 2 && hits[0].vec == VEC_HIGH &&
		  hits[1].vec == VEC_LOW, "first 0x%x, then 0x%x",
		  n ? hits[0].vec : 0, n > 1 ? hits[1].vec : 0);
	if (n < 2 || hits[0].vec != VEC_HIGH) {
		lc_step(PART, "after nop", LC_SKIP, "0x%x did not come first",
			VEC_HIGH);
		lc_step(PART, "after iret", LC_SKIP, "0x%x did not come "
			"first", VEC_HIGH);
		return;
	}
	if (hits[0].rip == after)
		lc_expect(PART, "after nop", 1, "at once");
	else
		late("after nop", 0, after, t0, &a);
	if (hits[1].rip == hits[0].rip)
		lc_expect(PART, "after iret", 1, "at once");
	else
		late("after iret", 1, hits[0].rip, t0, &hits[0].out);
}

void lapic_check_window(void)
{
	if (!lc_part_start(PART))
		return;
	ioapic_init();
	pin_low = ioapic_isa_pin(LINE_LOW, NULL);
	pin_high = ioapic_isa_pin(LINE_HIGH, NULL);
	if (pin_low < 0 || pin_high < 0) {
		lc_step(PART, "all", LC_SKIP, "no IOAPIC pin for ISA IRQs "
			"%u, %u", LINE_LOW, LINE_HIGH);
		return;
	}
	idt_set_handler(VEC_LOW, handler);
	idt_set_handler(VEC_HIGH, handler);
	cli();
	line(LINE_LOW, 0);
	program(pin_low, VEC_LOW);
	program(pin_high, VEC_HIGH);
	if (!probe()) {
		lc_step(PART, "all", LC_SKIP, "no test device: an edge on "
			"pc-testdev line %u delivered nothing in %u ms",
			LINE_LOW, PROBE_US / 1000);
	} else {
		__atomic_store_n(&nhits, 0, __ATOMIC_RELEASE);
		check_window();
	}
	ioapic_mask((unsigned)pin_low);
	ioapic_mask((unsigned)pin_high);
	if (!lc_irr(VEC_LOW))
		idt_set_handler(VEC_LOW, NULL);
	if (!lc_irr(VEC_HIGH))
		idt_set_handler(VEC_HIGH, NULL);
}
