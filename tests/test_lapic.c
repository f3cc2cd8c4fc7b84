// SPDX-License-Identifier: MIT
/* The local APIC in xAPIC mode: registers, priorities, EOI, errors (SDM ch. 11). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apic/apic_bus.h"
#include "apic/lapic.h"
#include "apic/lapic_dump.h"
#include "hw/apic.h"
#include "lapic_fake.h"

static struct lapic l;

static void setup(void)
{
	fake_reset();
	fake_lapic(&l, 0, 3);
}

TestSuite(lapic, .init = setup);

static uint32_t rd(uint32_t off)
{
	uint32_t v;

	cr_assert_eq(lapic_mmio_read(&l, off, 4, &v), 0, "read %#x", off);
	return v;
}

static void wr(uint32_t off, uint32_t val)
{
	cr_assert_eq(lapic_mmio_write(&l, off, 4, val), 0, "write %#x", off);
}

/* SDM 11.5.3: write ESR, then read what accumulated since the last write */
static uint32_t esr(void)
{
	wr(APIC_ESR, 0);
	return rd(APIC_ESR);
}

/* accept and inject @v, as the vCPU loop does */
static void take(uint8_t v, bool level)
{
	lapic_accept(&l, v, level);
	cr_assert_eq(lapic_pending_vector(&l), v);
	lapic_ack(&l, v);
}

Test(lapic, power_up_state)
{
	struct lapic ap;
	unsigned off;

	cr_assert_eq(lapic_base(&l), APIC_DEFAULT_BASE | APIC_BASE_EN | APIC_BASE_BSP);
	fake_lapic(&ap, 1, 1);
	cr_assert_eq(lapic_base(&ap), APIC_DEFAULT_BASE | APIC_BASE_EN, "an AP");
	cr_assert(lapic_mmio_enabled(&l));
	cr_assert_not(lapic_x2apic(&l));
	cr_assert_eq(rd(APIC_ID), 3u << 24);
	cr_assert_eq(rd(APIC_LVR), APIC_LVR_VALUE);
	cr_assert_eq(rd(APIC_TPR), 0);
	cr_assert_eq(rd(APIC_PPR), 0);
	cr_assert_eq(rd(APIC_LDR), 0);
	cr_assert_eq(rd(APIC_DFR), APIC_DFR_FLAT);
	cr_assert_eq(rd(APIC_SVR), 0xff, "software-disabled, vector 0xff");
	cr_assert_not(lapic_sw_enabled(&l));
	for (off = APIC_LVT_TIMER; off <= APIC_LVT_ERROR; off += 0x10)
		cr_assert_eq(rd(off), APIC_LVT_MASKED, "LVT %#x masked", off);
	cr_assert_eq(rd(APIC_LVT_CMCI), APIC_LVT_MASKED);
	for (off = APIC_ISR; off < APIC_IRR + 0x80; off += 0x10)
		cr_assert_eq(rd(off), 0);
	cr_assert_eq(rd(APIC_TMICT), 0);
	cr_assert_eq(rd(APIC_TMCCT), 0);
	cr_assert_eq(rd(APIC_TDCR), 0);
	cr_assert_eq(rd(APIC_ESR), 0);
	cr_assert_eq(rd(APIC_EOI), 0, "write-only EOI reads 0 in xAPIC mode");
}

Test(lapic, writable_bits)
{
	fake_sw_enable(&l);
	wr(APIC_ID, 0xffffffff);
	cr_assert_eq(rd(APIC_ID), 0xff000000u, "xAPIC ID: bits 31:24");
	wr(APIC_TPR, 0xffffffff);
	cr_assert_eq(rd(APIC_TPR), 0xff);
	wr(APIC_LDR, 0xffffffff);
	cr_assert_eq(rd(APIC_LDR), 0xff000000u);
	wr(APIC_DFR, 0);
	cr_assert_eq(rd(APIC_DFR), APIC_DFR_CLUSTER, "bits 27:0 read as 1");
	wr(APIC_SVR, 0xffffffff);
	cr_assert_eq(rd(APIC_SVR), 0x3ff, "vector, enable, focus; no EOI suppression");
	wr(APIC_LVT_LINT0, 0xffffffff);
	cr_assert_eq(rd(APIC_LVT_LINT0), 0x1a7ff, "no delivery status or remote IRR");
	wr(APIC_LVT_ERROR, 0xffffffff);
	cr_assert_eq(rd(APIC_LVT_ERROR), 0x100ff);
	wr(APIC_LVT_PERF, 0xffffffff);
	cr_assert_eq(rd(APIC_LVT_PERF), 0x107ff);
	wr(APIC_LVT_CMCI, 0xffffffff);
	cr_assert_eq(rd(APIC_LVT_CMCI), 0x107ff);
	wr(APIC_LVT_TIMER, 0xffffffff);
	cr_assert_eq(rd(APIC_LVT_TIMER), 0x300ff, "with TSC-deadline: mode bits 17-18");
	wr(APIC_LVT_TIMER, APIC_LVT_MASKED);
	wr(APIC_TDCR, 0xffffffff);
	cr_assert_eq(rd(APIC_TDCR), APIC_TDCR_MASK);
	wr(APIC_ICR_HI, 0xffffffff);
	cr_assert_eq(rd(APIC_ICR_HI), 0xff000000u);
	wr(APIC_ICR_LO, 0xffffffff);	/* reserved delivery mode 7: sends nothing */
	cr_assert_eq(fake.nipi, 0);
	cr_assert_eq(rd(APIC_ICR_LO), 0xccfff, "delivery status reads idle");
}

Test(lapic, timer_mode_bit18_needs_tsc_deadline)
{
	lapic_init(&l, 0, 0, true, 0, &fake_ops_notsc, NULL);
	fake_sw_enable(&l);
	wr(APIC_LVT_TIMER, APIC_TIMER_TSCDEADLINE | 0x40);
	cr_assert_eq(rd(APIC_LVT_TIMER), 0x40, "bit 18 is reserved");
}

static const uint32_t read_only[] = {
	APIC_LVR, APIC_APR, APIC_PPR, APIC_RRD, APIC_TMCCT,
	APIC_ISR + 0x20, APIC_TMR + 0x20, APIC_IRR + 0x20,
};

Test(lapic, read_only_writes_ignored)
{
	uint32_t off, before;
	unsigned i;

	lapic_accept(&l, 0x40, false);		/* dropped: software-disabled */
	fake_sw_enable(&l);
	take(0x40, false);
	lapic_accept(&l, 0x50, true);
	for (i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++) {
		off = read_only[i];
		before = rd(off);
		cr_assert_eq(lapic_mmio_write(&l, off, 4, 0x12345678), -1);
		cr_assert_eq(rd(off), before, "%#x is read-only", off);
	}
	cr_assert_eq(rd(APIC_ISR + 0x20), 1u << 0, "ISR bit 0x40");
	cr_assert_eq(rd(APIC_IRR + 0x20), 1u << 16, "IRR bit 0x50");
	cr_assert_eq(rd(APIC_TMR + 0x20), 1u << 16, "TMR bit 0x50: level");
	cr_assert_eq(lapic_tmr_word(&l, 2), 1u << 16);
	cr_assert_eq(rd(APIC_RRD), 0);
	cr_assert_eq(esr(), 0, "read-only registers are not reserved ones");
}

static const uint32_t rsvd[] = {
	0x000, 0x010, 0x040, 0x070, 0x290, 0x2e0, 0x3a0, 0x3d0, APIC_SELF_IPI,
	0x400, 0xff0,
};

Test(lapic, reserved_offsets_set_illegal_register)
{
	uint32_t v = 1;
	unsigned i;

	for (i = 0; i < sizeof(rsvd) / sizeof(rsvd[0]); i++) {
		cr_assert_eq(lapic_mmio_read(&l, rsvd[i], 4, &v), -1);
		cr_assert_eq(v, 0, "%#x reads 0", rsvd[i]);
		cr_assert_eq(esr(), APIC_ESR_ILLEGAL_REG, "read %#x", rsvd[i]);
		cr_assert_eq(lapic_mmio_write(&l, rsvd[i], 4, 0xff), -1);
		cr_assert_eq(esr(), APIC_ESR_ILLEGAL_REG, "write %#x", rsvd[i]);
	}
	cr_assert_eq(esr(), 0);
}

Test(lapic, access_widths)
{
	uint32_t v;

	cr_assert_eq(lapic_mmio_read(&l, APIC_ID + 3, 1, &v), 0);
	cr_assert_eq(v, 3, "byte 3 of ID");
	cr_assert_eq(lapic_mmio_read(&l, APIC_LVR, 2, &v), 0);
	cr_assert_eq(v, APIC_VERSION);
	cr_assert_eq(lapic_mmio_read(&l, APIC_ID + 4, 4, &v), -1);
	cr_assert_eq(v, 0, "bytes 4-15 of a register read 0");
	cr_assert_eq(lapic_mmio_read(&l, APIC_ID + 2, 4, &v), -1, "straddling");
	cr_assert_eq(lapic_mmio_write(&l, APIC_TPR, 1, 0x20), -1);
	cr_assert_eq(lapic_mmio_write(&l, APIC_TPR + 4, 4, 0x20), -1);
	cr_assert_eq(rd(APIC_TPR), 0, "only aligned 32-bit writes");
	cr_assert_eq(esr(), 0, "a bad width is not an illegal register");
}

Test(lapic, esr_write_then_read)
{
	fake_sw_enable(&l);
	lapic_accept(&l, 7, false);
	cr_assert_eq(rd(APIC_IRR), 0, "vector 7 is not accepted");
	cr_assert_eq(lapic_pending_vector(&l), -1);
	cr_assert_eq(rd(APIC_ESR), 0, "nothing latched before a write");
	wr(APIC_ESR, 0xffffffff);		/* the value written is irrelevant */
	cr_assert_eq(rd(APIC_ESR), APIC_ESR_RECV_ILLEGAL);
	cr_assert_eq(rd(APIC_ESR), APIC_ESR_RECV_ILLEGAL, "reads do not clear");
	wr(APIC_ICR_LO, APIC_ICR_DM_FIXED | APIC_ICR_DEST_SELF | 15);
	cr_assert_eq(fake.nipi, 0, "illegal vector: nothing sent");
	cr_assert_eq(rd(APIC_ESR), APIC_ESR_RECV_ILLEGAL, "still the old latch");
	wr(APIC_ESR, 0);
	cr_assert_eq(rd(APIC_ESR), APIC_ESR_SEND_ILLEGAL);
	wr(APIC_ESR, 0);
	cr_assert_eq(rd(APIC_ESR), 0, "the write cleared the errors");
}

Test(lapic, error_lvt_raised_once_per_esr_write)
{
	fake_sw_enable(&l);
	wr(APIC_LVT_ERROR, 0xfe);
	lapic_accept(&l, 3, false);
	cr_assert_eq(lapic_pending_vector(&l), 0xfe, "the error interrupt");
	lapic_ack(&l, 0xfe);
	wr(APIC_EOI, 0);
	lapic_accept(&l, 4, false);
	cr_assert_eq(lapic_pending_vector(&l), -1, "the same error again: no interrupt");
	wr(APIC_ICR_LO, APIC_ICR_DEST_SELF | 2);
	cr_assert_eq(lapic_pending_vector(&l), 0xfe, "a new error bit: an interrupt");
	cr_assert_eq(esr(), APIC_ESR_RECV_ILLEGAL | APIC_ESR_SEND_ILLEGAL);
}

Test(lapic, error_lvt_with_illegal_vector_terminates)
{
	fake_sw_enable(&l);
	wr(APIC_LVT_ERROR, 0x05);
	lapic_accept(&l, 3, false);
	cr_assert_eq(lapic_pending_vector(&l), -1);
	cr_assert_eq(esr(), APIC_ESR_RECV_ILLEGAL);
}

Test(lapic, tpr_masks_by_class)
{
	fake_sw_enable(&l);
	lapic_accept(&l, 0x31, false);
	lapic_accept(&l, 0x51, false);
	lapic_accept(&l, 0x41, false);
	cr_assert_eq(lapic_pending_vector(&l), 0x51, "highest vector first");
	wr(APIC_TPR, 0x50);
	cr_assert_eq(rd(APIC_PPR), 0x50);
	cr_assert_eq(lapic_pending_vector(&l), -1, "class 5 is not above PPR class 5");
	wr(APIC_TPR, 0x4f);
	cr_assert_eq(lapic_pending_vector(&l), 0x51, "the subclass does not mask");
	wr(APIC_TPR, 0xff);
	cr_assert_eq(lapic_pending_vector(&l), -1);
	cr_assert_eq(rd(APIC_IRR + 0x10), (1u << 17), "0x31 still requested");
}

/* SDM 11.8.6.1: CR8[3:0] is TPR[7:4]; MOV to CR8 clears TPR[3:0] */
Test(lapic, cr8_is_tpr_high_nibble)
{
	fake_sw_enable(&l);
	lapic_set_cr8(&l, 0xf);
	cr_assert_eq(rd(APIC_TPR), 0xf0, "MOV CR8, 0xf: TPR reads 0xf0");
	cr_assert_eq(rd(APIC_PPR), 0xf0);
	cr_assert_eq(lapic_cr8(&l), 0xf);
	wr(APIC_TPR, 0x35);
	cr_assert_eq(lapic_cr8(&l), 3, "a TPR write shows in CR8");
	lapic_set_cr8(&l, 2);
	cr_assert_eq(rd(APIC_TPR), 0x20, "TPR[3:0] cleared");
	lapic_set_cr8(&l, 0);
	cr_assert_eq(rd(APIC_TPR), 0);
	cr_assert_eq(lapic_cr8(&l), 0);
}

Test(lapic, cr8_moves_ppr_and_the_pending_vector)
{
	fake_sw_enable(&l);
	lapic_accept(&l, 0x45, false);
	cr_assert_eq(lapic_pending_vector(&l), 0x45);
	lapic_set_cr8(&l, 5);
	cr_assert_eq(rd(APIC_PPR), 0x50);
	cr_assert_eq(lapic_pending_vector(&l), -1, "class 4 below CR8 5");
	lapic_set_cr8(&l, 4);
	cr_assert_eq(lapic_pending_vector(&l), -1, "class 4 not above CR8 4");
	lapic_set_cr8(&l, 3);
	cr_assert_eq(rd(APIC_PPR), 0x30);
	cr_assert_eq(lapic_pending_vector(&l), 0x45, "lowering CR8 lets it in");
	take(0x45, false);
	lapic_set_cr8(&l, 0);
	cr_assert_eq(rd(APIC_PPR), 0x40, "PPR from ISRV once CR8 is below it");
}

Test(lapic, ppr_follows_isr)
{
	fake_sw_enable(&l);
	wr(APIC_TPR, 0x23);
	take(0x51, false);
	cr_assert_eq(rd(APIC_PPR), 0x50, "ISRV class above TPR class");
	cr_assert_eq(rd(APIC_TPR), 0x23);
	lapic_accept(&l, 0x5f, false);
	cr_assert_eq(lapic_pending_vector(&l), -1, "same class as in service");
	lapic_accept(&l, 0x60, false);
	cr_assert_eq(lapic_pending_vector(&l), 0x60, "a higher class nests");
	wr(APIC_TPR, 0x7a);
	cr_assert_eq(rd(APIC_PPR), 0x7a, "TPR class above ISRV class: TPR");
	wr(APIC_TPR, 0x5a);
	cr_assert_eq(rd(APIC_PPR), 0x5a, "equal classes: TPR");
}

Test(lapic, eoi_nested_and_level)
{
	fake_sw_enable(&l);
	take(0x40, false);
	take(0x80, true);
	take(0x90, false);
	cr_assert_eq(rd(APIC_ISR + 0x20), 1);
	cr_assert_eq(rd(APIC_ISR + 0x40), 1 | (1u << 16));
	cr_assert_eq(rd(APIC_PPR), 0x90);
	wr(APIC_EOI, 0);
	cr_assert_eq(rd(APIC_ISR + 0x40), 1, "EOI retires the highest: 0x90");
	cr_assert_eq(fake.neoi, 0, "an edge vector: no IOAPIC EOI");
	cr_assert_eq(rd(APIC_PPR), 0x80);
	wr(APIC_EOI, 0);
	cr_assert_eq(rd(APIC_ISR + 0x40), 0);
	cr_assert_eq(fake.neoi, 1);
	cr_assert_eq(fake.eoi[0], 0x80, "the TMR vector's EOI reaches the IOAPIC");
	wr(APIC_EOI, 0);
	cr_assert_eq(rd(APIC_ISR + 0x20), 0);
	cr_assert_eq(fake.neoi, 1);
	cr_assert_eq(rd(APIC_PPR), 0);
	wr(APIC_EOI, 0);		/* nothing in service: no effect */
	cr_assert_eq(fake.neoi, 1);
}

Test(lapic, tmr_follows_trigger_mode)
{
	fake_sw_enable(&l);
	take(0x70, true);
	cr_assert_eq(lapic_tmr_word(&l, 3), 1u << 16);
	wr(APIC_EOI, 0);
	take(0x70, false);
	cr_assert_eq(lapic_tmr_word(&l, 3), 0, "an edge acceptance clears TMR");
	wr(APIC_EOI, 0);
	cr_assert_eq(fake.neoi, 1);
	cr_assert_eq(lapic_tmr_word(&l, 8), 0, "out of range reads 0");
}

Test(lapic, ack_of_vector_not_requested_is_ignored)
{
	fake_sw_enable(&l);
	lapic_ack(&l, 0x40);
	cr_assert_eq(rd(APIC_ISR + 0x20), 0);
}

Test(lapic, apr_p6_formula)
{
	fake_sw_enable(&l);
	wr(APIC_TPR, 0x35);
	cr_assert_eq(rd(APIC_APR), 0x35, "TPR above IRRV and ISRV");
	lapic_accept(&l, 0x61, false);
	cr_assert_eq(rd(APIC_APR), 0x60, "IRRV class above TPR class");
	lapic_ack(&l, 0x61);
	/* ISRV 6 > TPR 3: max(3 AND 6 = 2, IRRV 0) */
	cr_assert_eq(rd(APIC_APR), 0x20);
	wr(APIC_TPR, 0x75);
	cr_assert_eq(rd(APIC_APR), 0x75);
}

Test(lapic, deliverable_after_tpr_and_eoi)
{
	fake_sw_enable(&l);
	wr(APIC_TPR, 0x80);
	lapic_accept(&l, 0x50, false);
	cr_assert_eq(lapic_pending_vector(&l), -1, "masked by TPR");
	wr(APIC_TPR, 0);
	cr_assert_eq(lapic_pending_vector(&l), 0x50,
		     "lowering TPR made it deliverable");
	lapic_ack(&l, 0x50);
	lapic_accept(&l, 0x52, false);
	cr_assert_eq(lapic_pending_vector(&l), -1, "blocked by the ISR");
	wr(APIC_EOI, 0);
	cr_assert_eq(lapic_pending_vector(&l), 0x52, "the EOI unblocked it");
}

Test(lapic, software_disabled)
{
	uint64_t mask;
	struct lapic *cpus[] = { &l };
	struct lapic_ipi nmi = { .delivery = APIC_ICR_DM_NMI, .dest = 3 };

	fake_sw_enable(&l);
	wr(APIC_LVT_TIMER, 0x40);
	wr(APIC_LVT_LINT0, APIC_LVT_DM_EXTINT);
	take(0x60, false);
	lapic_accept(&l, 0x70, false);
	wr(APIC_SVR, 0xff);
	cr_assert_not(lapic_sw_enabled(&l));
	cr_assert_eq(rd(APIC_LVT_TIMER), APIC_LVT_MASKED | 0x40, "disabling masks");
	cr_assert_eq(rd(APIC_LVT_LINT0), APIC_LVT_MASKED | APIC_LVT_DM_EXTINT);
	wr(APIC_LVT_TIMER, 0x41);
	cr_assert_eq(rd(APIC_LVT_TIMER), APIC_LVT_MASKED | 0x41, "the mask stays set");
	cr_assert_eq(rd(APIC_ISR + 0x30), 1, "ISR kept");
	cr_assert_eq(rd(APIC_IRR + 0x30), 1u << 16, "IRR kept");
	cr_assert_eq(lapic_pending_vector(&l), 0x70, "held requests still go");
	lapic_accept(&l, 0x80, false);
	cr_assert_eq(rd(APIC_IRR + 0x40), 0, "new fixed interrupts are not accepted");
	apic_route(cpus, 1, -1, &nmi, &mask);
	cr_assert_eq(mask, 1, "NMI still reaches it");
	wr(APIC_ICR_LO, APIC_ICR_DEST_OTHERS | 0x99);
	cr_assert_eq(fake.nipi, 1, "it can still send IPIs");
	wr(APIC_SVR, 0x1ff);
	cr_assert_eq(rd(APIC_LVT_TIMER), APIC_LVT_MASKED | 0x41,
		     "re-enabling unmasks nothing");
}

Test(lapic, init_keeps_id_and_mode)
{
	fake_sw_enable(&l);
	wr(APIC_ID, 7u << 24);
	wr(APIC_TPR, 0x20);
	wr(APIC_LDR, 1u << 24);
	take(0x40, false);
	lapic_init_reset(&l);
	cr_assert_eq(rd(APIC_ID), 7u << 24, "SDM 11.4.7.3: ID survives INIT");
	cr_assert_eq(rd(APIC_TPR), 0);
	cr_assert_eq(rd(APIC_LDR), 0);
	cr_assert_eq(rd(APIC_SVR), 0xff);
	cr_assert_eq(rd(APIC_ISR + 0x20), 0);
	fake_x2apic(&l);
	lapic_init_reset(&l);
	cr_assert(lapic_x2apic(&l), "INIT leaves x2APIC mode on");
	lapic_reset(&l);
	cr_assert_not(lapic_x2apic(&l), "RESET returns to xAPIC");
	cr_assert_eq(rd(APIC_ID), 3u << 24, "with the initial ID");
	cr_assert_eq(lapic_base(&l), APIC_DEFAULT_BASE | APIC_BASE_EN | APIC_BASE_BSP);
}

Test(lapic, trace_reports_accesses)
{
	rd(APIC_TPR);
	wr(APIC_TPR, 0x10);
	cr_assert_geq(fake.ntrace, 2);
}

/* --timeout's dump: the register page in KVM_GET_LAPIC's layout, in text */
Test(lapic, dump_names_irr_isr_tmr_tpr_ppr_and_the_timer)
{
	uint8_t page[LAPIC_PAGE_SIZE];
	char *text = NULL;
	size_t len = 0;
	uint32_t v;
	FILE *f;

	fake_sw_enable(&l);
	take(0x41, false);			/* in service */
	lapic_accept(&l, 0x41, false);		/* and requested again */
	lapic_accept(&l, 0x81, true);		/* level: TMR */
	wr(APIC_TPR, 0x30);
	wr(APIC_TDCR, 0xb);
	wr(APIC_LVT_TIMER, APIC_TIMER_PERIODIC | APIC_LVT_MASKED | 0x40);
	wr(APIC_TMICT, 1000);
	lapic_regs_page(&l, page);
	memcpy(&v, page + APIC_TPR, 4);
	cr_assert_eq(v, 0x30, "TPR at its xAPIC offset");
	memcpy(&v, page + APIC_IRR + 0x40, 4);
	cr_assert_eq(v, 1u << 1, "IRR word 4: 0x81");
	f = open_memstream(&text, &len);
	lapic_print_page(f, "  ", page);
	fclose(f);
	cr_assert(strstr(text, "  TPR 0x30 PPR 0x40 SVR 0x1ff "), "%s", text);
	cr_assert(strstr(text, "\n  IRR 0x41 0x81\n"), "%s", text);
	cr_assert(strstr(text, "\n  ISR 0x41\n"), "%s", text);
	cr_assert(strstr(text, "\n  TMR 0x81\n"), "%s", text);
	cr_assert(strstr(text, "LVT timer 0x00030040 "), "%s", text);
	cr_assert(strstr(text, "timer periodic masked vector 0x40: TMICT 1000 "
			  "TMCCT "), "%s", text);
	cr_assert(strstr(text, "TDCR 0xb (divide by 1)\n"), "%s", text);
	free(text);
}
