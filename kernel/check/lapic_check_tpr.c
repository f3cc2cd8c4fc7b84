// SPDX-License-Identifier: MIT
/*
 * check=lapic, part tpr: CR8 is the TPR's priority class, in whichever
 * APIC mode the boot chose (SDM vol. 3A 11.8.6.1: "APIC.TPR[bits 7:4] =
 * CR8[bits 3:0], APIC.TPR[bits 3:0] = 0"; a read of CR8 gives TPR[7:4]).
 *
 *   cr8 to tpr    MOV CR8 of 0xf, then the TPR (0x80) reads 0xf0
 *   tpr to cr8    a TPR write of 0x20, then CR8 reads 2
 *   above cr8     with CR8 = 0xc, a self IPI of class 0xd is delivered
 *   held at cr8   with CR8 = 0xc, self IPIs of classes 0xc and 0xb stay
 *                 pending in IRR (SDM 11.8.3.1: a vector is delivered
 *                 only if its class is above PPR[7:4])
 *   lowered cr8   MOV CR8 of 0 delivers 0xca at the boundary right after
 *                 the MOV (SDM 11.8.6: "The new priority level is
 *                 established when the MOV CR8 instruction completes")
 *   by class      and then 0xba
 *
 * "lowered cr8" late: irqlab-vmm (user irqchip) can act only at an exit.
 * On VMX and SVM, KVM exits with KVM_EXIT_SET_TPR when a user-irqchip
 * guest lowers CR8; kvm_pvm emulates MOV CR8 without any exit.  The step
 * is HOST only on evidence: the handler's snapshot shows that irqlab-vmm
 * delivered at the first exit of any kind after the MOV (so none came at
 * the MOV itself), or the LAPIC is KVM's (split and kernel irqchip;
 * lapic_check_host.c).  Otherwise it is FAILED.
 */
#include <stddef.h>
#include <stdint.h>

#include "hw/apic.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "arch/x86.h"

#define PART		"tpr"
#define CR8_HOLD	0xc
#define VEC_ABOVE	0xda	/* class 0xd: above CR8_HOLD */
#define VEC_AT		0xca	/* class 0xc: at CR8_HOLD, held */
#define VEC_BELOW	0xba	/* class 0xb: below, held */
#define WAIT_US		100000	/* for a delivery that must come */
#define HOLD_US		2000	/* "stays pending": nothing in this long */
#define NR_HITS		8

static const unsigned vecs[] = { VEC_ABOVE, VEC_AT, VEC_BELOW };

/* The deliveries, in order: the vector, where, when, irqlab's exits. */
static struct lc_hit hits[NR_HITS];
static uint32_t nhits;

static void handler(struct trap_frame *tf)
{
	lc_hit(tf, hits, NR_HITS, &nhits, 0);
}

static void check_alias(void)
{
	uint32_t tpr;
	uint64_t cr8;

	lc_write_cr8(0xf);
	tpr = lapic_read(APIC_TPR);
	lc_expect(PART, "cr8 to tpr", tpr == 0xf0,
		  "after MOV CR8 of 0xf the TPR reads 0x%x, CR8 0x%lx", tpr,
		  lc_read_cr8());
	lapic_write(APIC_TPR, 0x20);
	cr8 = lc_read_cr8();
	lc_expect(PART, "tpr to cr8", cr8 == 2,
		  "after a TPR write of 0x20 CR8 reads 0x%lx, the TPR 0x%x",
		  cr8, lapic_read(APIC_TPR));
	lc_write_cr8(0);
	lapic_write(APIC_TPR, 0);
}

/* MOV CR8 of 0; returns the address right after the MOV. */
static uint64_t lower_cr8(void)
{
	uint64_t after;

	asm volatile("lea 1f(%%rip), %0\n\t"
		     "mov %1, %%cr8\n"
		     "1:"
		     : "=&r"(after) : "r"(0ul) : "memory");
	return after;
}

/*
 * Late, the step is HOST if the LAPIC is KVM's, or if the handler's
 * snapshot shows that irqlab-vmm delivered at the first exit after the
 * MOV (so there was none at the MOV: no KVM_EXIT_SET_TPR).
 */
static void late(unsigned i, uint64_t after, uint64_t t0,
		 const struct lc_exits *a)
{
	uint64_t us = lc_tsc_us(hits[i].tsc - t0);

	if (lc_apic_owner() == LC_APIC_HOST)
		lc_step(PART, "lowered cr8", LC_HOST, "KVM's LAPIC delivered "
			"0x%x %lu us after the MOV, at RIP 0x%lx, not 0x%lx "
			"right after it", VEC_AT, us, hits[i].rip, after);
	else if (lc_first_exit(a, &hits[i].in))
		lc_step(PART, "lowered cr8", LC_HOST, "no exit at the MOV "
			"(no KVM_EXIT_SET_TPR): 0x%x came %lu us later at "
			"irqlab-vmm's next exit (%s), RIP 0x%lx, not 0x%lx",
			VEC_AT, us, lc_exit_kind(a, &hits[i].in),
			hits[i].rip, after);
	else
		lc_step(PART, "lowered cr8", LC_FAIL, "0x%x came %lu us after "
			"the MOV at RIP 0x%lx, not 0x%lx right after it, after "
			"%lu exits; LAPIC %s", VEC_AT, us,
			hits[i].rip, after, hits[i].in.all - a->all,
			lc_apic_owner_name());
}

/* The MOV CR8 that lowers the TPR below two held vectors (IF = 1). */
static void check_lowered(uint32_t base)
{
	struct lc_exits a, b;
	uint64_t t0, after;
	uint32_t n;

	lc_exits_now(&a);
	t0 = rdtsc();
	after = lower_cr8();
	lc_delay_us(HOLD_US);	/* by RDTSC: no exit to irqlab-vmm */
	lc_exits_now(&b);	/* an exit: irqlab-vmm may deliver here */
	(void)lc_wait_ge(&nhits, base + 2, WAIT_US);
	n = __atomic_load_n(&nhits, __ATOMIC_ACQUIRE) - base;
	if (!n)
		lc_step(PART, "lowered cr8", LC_FAIL, "0x%x not delivered in "
			"%u us after MOV CR8 of 0", VEC_AT, HOLD_US + WAIT_US);
	else if (hits[base].vec != VEC_AT)
		lc_step(PART, "lowered cr8", LC_FAIL, "vector 0x%x came "
			"first, not 0x%x", hits[base].vec, VEC_AT);
	else if (hits[base].rip == after)
		lc_expect(PART, "lowered cr8", 1, "at once");
	else
		late(base, after, t0, &a);
	lc_expect(PART, "by class", n >= 2 && hits[base].vec == VEC_AT &&
		  hits[base + 1].vec == VEC_BELOW, "%u of 2 delivered, "
		  "first 0x%x, then 0x%x", n, n ? hits[base].vec : 0,
		  n > 1 ? hits[base + 1].vec : 0);
}

static void check_priority(void)
{
	uint32_t base;
	int got, at, below;

	cli();
	lc_write_cr8(CR8_HOLD);
	sti();
	lapic_send_self(VEC_ABOVE);
	got = !lc_wait_ge(&nhits, 1, WAIT_US);
	lc_expect(PART, "above cr8", got && hits[0].vec == VEC_ABOVE,
		  "with CR8 0x%x, class 0xd: %s", CR8_HOLD,
		  got ? "another vector came" : "not delivered in 100 ms");
	base = __atomic_load_n(&nhits, __ATOMIC_ACQUIRE);
	lapic_send_self(VEC_AT);
	lapic_send_self(VEC_BELOW);
	lc_delay_us(HOLD_US);
	at = lc_irr(VEC_AT);
	below = lc_irr(VEC_BELOW);
	got = __atomic_load_n(&nhits, __ATOMIC_ACQUIRE) - base;
	lc_expect(PART, "held at cr8", !got && at && below, "with CR8 0x%x, "
		  "%d of 0x%x, 0x%x delivered, IRR bits %d, %d (TPR 0x%x)",
		  CR8_HOLD, got, VEC_AT, VEC_BELOW, at, below,
		  lapic_read(APIC_TPR));
	if (got || !at || !below) {
		lc_step(PART, "lowered cr8", LC_SKIP, "nothing was held");
		lc_step(PART, "by class", LC_SKIP, "nothing was held");
		return;
	}
	check_lowered(base);
}

/*
 * Let whatever is still pending come (each IRR read is an exit under
 * irqlab-vmm: a chance to deliver), then remove the handlers; a vector
 * still pending keeps its handler, so a late delivery cannot panic.
 */
static void drain(void)
{
	unsigned i, left;
	int k;

	lc_write_cr8(0);
	sti();
	for (k = 0; k < 100; k++) {
		for (i = 0, left = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
			left += lc_irr(vecs[i]);
		if (!left)
			break;
		lc_delay_us(1000);
	}
	cli();
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		if (!lc_irr(vecs[i]))
			idt_set_handler(vecs[i], NULL);
}

void lapic_check_tpr(void)
{
	unsigned i;

	if (!lc_part_start(PART))
		return;
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		idt_set_handler(vecs[i], handler);
	cli();
	check_alias();
	check_priority();
	drain();
}
