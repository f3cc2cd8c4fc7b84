// SPDX-License-Identifier: MIT
/* The PV EOI state machine of the local APIC model (lapic_pveoi.c). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "apic/lapic.h"
#include "hw/apic.h"
#include "lapic_fake.h"

static struct lapic l;
static uint32_t word;		/* the guest's flag word */

static void setup(void)
{
	fake_reset();
	fake_lapic(&l, 0, 0);
	fake_sw_enable(&l);
	word = 0;
	lapic_pveoi_register(&l, &word);
}

TestSuite(pveoi, .init = setup);

static bool in_service(uint8_t v)
{
	return l.isr[v >> 5] & (1u << (v & 31));
}

/* accept and inject @v, as the vCPU loop does, then enter the guest */
static bool inject(uint8_t v, bool level)
{
	lapic_accept(&l, v, level);
	cr_assert_eq(lapic_pending_vector(&l), v);
	lapic_ack(&l, v);
	return lapic_pveoi_arm(&l);
}

/* the guest's EOI path (kernel/dev/lapic.c): test-and-clear, else the register */
static void guest_eoi(void)
{
	if (__atomic_fetch_and(&word, ~1u, __ATOMIC_SEQ_CST) & 1)
		return;
	cr_assert_eq(lapic_mmio_write(&l, APIC_EOI, 4, 0), 0);
}

Test(pveoi, lazy_completion)
{
	cr_assert(inject(0xd0, false));
	cr_assert_eq(word, 1, "the flag is set for the guest");
	guest_eoi();
	cr_assert_eq(word, 0);
	cr_assert(in_service(0xd0), "nothing happens until the model looks");
	lapic_pveoi_sync(&l);
	cr_assert(!in_service(0xd0), "the look did the EOI");
	cr_assert_eq(l.pveoi.lazy, 1);
	cr_assert_eq(l.pveoi.arms, 1);
	cr_assert_eq(lapic_ppr(&l), 0);
	lapic_pveoi_sync(&l);	/* a second look: nothing left */
	cr_assert_eq(l.pveoi.lazy, 1);
}

Test(pveoi, completed_before_next_injection)
{
	cr_assert(inject(0xd0, false));
	guest_eoi();
	/* a higher one comes: its injection (lapic_ack) looks first */
	lapic_accept(&l, 0xe0, false);
	cr_assert_eq(lapic_pending_vector(&l), 0xe0);
	lapic_ack(&l, 0xe0);
	cr_assert(!in_service(0xd0), "the look did 0xd0's EOI");
	cr_assert(in_service(0xe0));
	cr_assert(lapic_pveoi_arm(&l), "0xe0 alone in service: armed again");
	/* a lower one after a look: PPR is 0 again */
	guest_eoi();
	lapic_pveoi_sync(&l);
	lapic_accept(&l, 0x40, false);
	cr_assert_eq(lapic_pending_vector(&l), 0x40);
}

Test(pveoi, guest_not_done_yet)
{
	cr_assert(inject(0xd0, false));
	lapic_pveoi_sync(&l);	/* an exit inside the handler */
	cr_assert_eq(word, 0, "the model took its flag back");
	cr_assert(in_service(0xd0));
	cr_assert_eq(l.pveoi.cancels, 1);
	guest_eoi();		/* so the guest writes the register */
	cr_assert(!in_service(0xd0));
	cr_assert_eq(l.pveoi.lazy, 0);
}

Test(pveoi, not_with_another_in_service)
{
	lapic_accept(&l, 0x40, false);
	lapic_ack(&l, 0x40);
	/* a higher one nests inside 0x40's handler */
	cr_assert(!inject(0x80, false), "two in service: the EOI is real");
	cr_assert_eq(word, 0);
	guest_eoi();
	cr_assert(!in_service(0x80) && in_service(0x40));
	cr_assert(lapic_pveoi_arm(&l), "then 0x40 alone");
	guest_eoi();
	lapic_pveoi_sync(&l);
	cr_assert(!in_service(0x40));
}

Test(pveoi, not_with_irr_waiting)
{
	lapic_accept(&l, 0x30, false);	/* lower: waits behind 0xd0 */
	cr_assert(!inject(0xd0, false), "the EOI must let 0x30 in at once");
	lapic_accept(&l, 0xe0, false);
	cr_assert(!lapic_pveoi_arm(&l), "a higher one pending");
	cr_assert_eq(word, 0);
}

Test(pveoi, level_vector_takes_the_register)
{
	cr_assert(!inject(0xa0, true), "TMR set: the IOAPIC needs the EOI");
	cr_assert_eq(word, 0);
	guest_eoi();
	cr_assert(!in_service(0xa0));
	cr_assert_eq(fake.neoi, 1);
	cr_assert_eq(fake.eoi[0], 0xa0);
}

Test(pveoi, scribbled_flag_means_nothing)
{
	word = 0xfffffffe | 1;	/* the guest sets the model's bit itself */
	lapic_pveoi_sync(&l);
	cr_assert_eq(l.pveoi.lazy + l.pveoi.cancels, 0, "not armed: unread");
	lapic_accept(&l, 0x40, false);
	lapic_ack(&l, 0x40);
	lapic_accept(&l, 0x80, false);
	lapic_ack(&l, 0x80);
	/* garbage cleared by the guest while nothing is armed */
	word = 0x12345670;
	lapic_pveoi_sync(&l);
	cr_assert(in_service(0x40) && in_service(0x80), "no EOI from garbage");
	/* armed later: only bit 0 is the model's, bits 31:1 stay */
	cr_assert_eq(lapic_mmio_write(&l, APIC_EOI, 4, 0), 0);
	cr_assert(lapic_pveoi_arm(&l));
	cr_assert_eq(word, 0x12345671);
	word = 0x0badf00d;	/* bit 0 still set: no EOI yet */
	lapic_pveoi_sync(&l);
	cr_assert_eq(word, 0x0badf00c);
	cr_assert(in_service(0x40));
}

Test(pveoi, armed_vector_no_longer_first)
{
	cr_assert(inject(0xd0, false));
	/* the guest wrote the register and cleared the flag: one EOI each */
	cr_assert_eq(lapic_mmio_write(&l, APIC_EOI, 4, 0), 0);
	lapic_accept(&l, 0x40, false);
	l.irr[0x40 >> 5] = 0;	/* as if 0x40 were in service by now */
	l.isr[0x40 >> 5] |= 1u << (0x40 & 31);
	word = 0;
	lapic_pveoi_sync(&l);
	cr_assert(in_service(0x40), "never retire what was not armed");
	cr_assert_eq(l.pveoi.lazy, 0);
}

Test(pveoi, unregister)
{
	cr_assert(inject(0xd0, false));
	guest_eoi();
	lapic_pveoi_register(&l, NULL);	/* the port's 0: off, after a look */
	cr_assert(!in_service(0xd0), "the pending EOI was done first");
	cr_assert(!inject(0xd1, false), "off: never armed");
	cr_assert_eq(word, 0);
	guest_eoi();
	cr_assert(!in_service(0xd1));
}

Test(pveoi, unregister_while_armed_takes_flag_back)
{
	cr_assert(inject(0xd0, false));
	lapic_pveoi_register(&l, NULL);
	cr_assert_eq(word, 0, "the guest must not skip the EOI now");
	cr_assert(in_service(0xd0));
}

Test(pveoi, register_clears_model_bit)
{
	uint32_t other = 0xff;

	lapic_pveoi_register(&l, &other);
	cr_assert_eq(other, 0xfe);
}

Test(pveoi, init_drops_it)
{
	cr_assert(inject(0xd0, false));
	lapic_init_reset(&l);
	cr_assert_eq(word, 0, "flag taken back");
	cr_assert_null(l.pveoi.word, "INIT: the guest registers again");
	cr_assert(!l.pveoi.armed);
}

Test(pveoi, self_ipi_in_handler_cancels)
{
	cr_assert(inject(0xd0, false));
	/* the handler sends itself 0xe0: an exit, so a look, then the fold */
	lapic_pveoi_sync(&l);
	lapic_accept(&l, 0xe0, false);
	lapic_ack(&l, 0xe0);
	cr_assert(!lapic_pveoi_arm(&l), "two in service");
	cr_assert_eq(word, 0);
}
