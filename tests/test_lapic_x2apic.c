// SPDX-License-Identifier: MIT
/* IA32_APIC_BASE transitions and the x2APIC MSR interface (SDM 11.4.4, 11.12). */
#include <criterion/criterion.h>

#include "apic/apic_bus.h"
#include "apic/lapic.h"
#include "hw/apic.h"
#include "lapic_fake.h"

#define EN	APIC_BASE_EN
#define EXTD	APIC_BASE_EXTD
#define BASE	APIC_DEFAULT_BASE

static struct lapic l;

static void setup(void)
{
	fake_reset();
	fake_lapic(&l, 1, 0x25);		/* an AP: BSP flag clear */
}

TestSuite(apic_base, .init = setup);
TestSuite(x2apic, .init = setup);

static int wrbase(uint64_t v)
{
	return lapic_msr_write(&l, MSR_IA32_APIC_BASE, v);
}

static uint64_t rdmsr(uint32_t msr)
{
	uint64_t v;

	cr_assert_eq(lapic_msr_read(&l, msr, &v), 0, "rdmsr %#x", msr);
	return v;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
	cr_assert_eq(lapic_msr_write(&l, msr, v), 0, "wrmsr %#x", msr);
}

static void gp_read(uint32_t msr)
{
	uint64_t v = 1;

	cr_assert_eq(lapic_msr_read(&l, msr, &v), -1, "rdmsr %#x must #GP", msr);
	cr_assert_eq(v, 0);
}

static void gp_write(uint32_t msr, uint64_t v)
{
	cr_assert_eq(lapic_msr_write(&l, msr, v), -1, "wrmsr %#x = %#llx must #GP",
		     msr, (unsigned long long)v);
}

Test(apic_base, legal_transitions)
{
	uint32_t v;

	cr_assert_eq(rdmsr(MSR_IA32_APIC_BASE), BASE | EN);
	cr_assert_eq(wrbase(BASE | EN | EXTD), 0, "xAPIC -> x2APIC");
	cr_assert(lapic_x2apic(&l));
	cr_assert_not(lapic_mmio_enabled(&l), "no MMIO in x2APIC mode");
	cr_assert_eq(lapic_mmio_read(&l, APIC_ID, 4, &v), -1);
	cr_assert_eq(wrbase(BASE | EN | EXTD), 0, "x2APIC -> x2APIC");
	cr_assert_eq(wrbase(BASE), 0, "x2APIC -> disabled");
	cr_assert_not(lapic_hw_enabled(&l));
	cr_assert_not(lapic_mmio_enabled(&l));
	cr_assert_eq(wrbase(BASE), 0, "disabled -> disabled");
	cr_assert_eq(wrbase(BASE | EN), 0, "disabled -> xAPIC");
	cr_assert(lapic_mmio_enabled(&l));
	cr_assert_eq(wrbase(BASE), 0, "xAPIC -> disabled");
	cr_assert_eq(wrbase(BASE | EN), 0);
	cr_assert_eq(wrbase(BASE | EN), 0, "xAPIC -> xAPIC");
}

Test(apic_base, every_gp)
{
	uint64_t start = BASE | EN;

	gp_write(MSR_IA32_APIC_BASE, start | 1);		/* bits 7:0 reserved */
	gp_write(MSR_IA32_APIC_BASE, start | 0x80);
	gp_write(MSR_IA32_APIC_BASE, start | (1ull << 9));	/* bit 9 reserved */
	gp_write(MSR_IA32_APIC_BASE, start | (1ull << 52));	/* above MAXPHYADDR */
	gp_write(MSR_IA32_APIC_BASE, start | (1ull << 63));
	gp_write(MSR_IA32_APIC_BASE, BASE | EXTD);		/* EN=0 EXTD=1: invalid */
	cr_assert_eq(rdmsr(MSR_IA32_APIC_BASE), start, "a #GP changes nothing");

	cr_assert_eq(wrbase(BASE | EN | EXTD), 0);
	gp_write(MSR_IA32_APIC_BASE, BASE | EN);		/* x2APIC -> xAPIC */
	gp_write(MSR_IA32_APIC_BASE, BASE | EXTD);
	cr_assert(lapic_x2apic(&l));

	cr_assert_eq(wrbase(BASE), 0);
	gp_write(MSR_IA32_APIC_BASE, BASE | EN | EXTD);	/* disabled -> x2APIC */
	gp_write(MSR_IA32_APIC_BASE, BASE | EXTD);
	cr_assert_not(lapic_hw_enabled(&l));
}

Test(apic_base, gp_for_extd_without_x2apic)
{
	struct lapic_caps caps = { .x2apic = false, .phys_bits = 39 };

	lapic_set_caps(&l, &caps);
	gp_write(MSR_IA32_APIC_BASE, BASE | EN | EXTD);
	gp_write(MSR_IA32_APIC_BASE, BASE | EN | (1ull << 39));
	cr_assert_eq(wrbase(BASE | EN | (1ull << 38)), 0, "below MAXPHYADDR");
	cr_assert_eq(lapic_base(&l), (1ull << 38) | BASE | EN);
}

/* SDM 11.4.4: the base field stops at MAXPHYADDR; bits above reserved */
Test(apic_base, gp_at_and_above_maxphyaddr_48)
{
	struct lapic_caps caps = { .x2apic = true, .phys_bits = 48 };
	unsigned b;

	lapic_set_caps(&l, &caps);
	for (b = 48; b < 64; b++)
		gp_write(MSR_IA32_APIC_BASE, BASE | EN | (1ull << b));
	cr_assert_eq(lapic_base(&l), BASE | EN, "a #GP write moves nothing");
	cr_assert(lapic_mmio_enabled(&l));
	cr_assert_eq(wrbase((1ull << 47) | BASE | EN), 0, "bit 47 is address");
	cr_assert_eq(lapic_base(&l), (1ull << 47) | BASE | EN);
}

Test(apic_base, bsp_flag_read_only)
{
	struct lapic bsp;

	cr_assert_eq(wrbase(BASE | EN | APIC_BASE_BSP), 0);
	cr_assert_eq(lapic_base(&l), BASE | EN, "an AP cannot become the BSP");
	fake_lapic(&bsp, 0, 0);
	cr_assert_eq(lapic_msr_write(&bsp, MSR_IA32_APIC_BASE, BASE | EN), 0);
	cr_assert_eq(lapic_base(&bsp), BASE | EN | APIC_BASE_BSP);
}

Test(apic_base, relocation)
{
	cr_assert_eq(wrbase(0xfec01000ull | EN), 0);
	cr_assert_eq(lapic_base(&l), 0xfec01000ull | EN);
	cr_assert(lapic_mmio_enabled(&l));
}

Test(apic_base, disabling_loses_state)
{
	uint32_t v;

	fake_sw_enable(&l);
	cr_assert_eq(lapic_mmio_write(&l, APIC_TPR, 4, 0x30), 0);
	cr_assert_eq(lapic_mmio_write(&l, APIC_ID, 4, 9u << 24), 0);
	cr_assert_eq(lapic_mmio_write(&l, APIC_LVT_TIMER, 4, 0x40), 0);
	cr_assert_eq(lapic_mmio_write(&l, APIC_TMICT, 4, 1000), 0);
	lapic_accept(&l, 0x80, false);
	cr_assert_eq(wrbase(BASE), 0);
	cr_assert_eq(fake.armed[1], 0, "the timer was cancelled");
	cr_assert_eq(lapic_pending_vector(&l), -1, "no interrupts when disabled");
	cr_assert_eq(lapic_mmio_read(&l, APIC_TPR, 4, &v), -1, "MMIO not decoded");
	cr_assert_eq(v, 0xffffffffu);
	cr_assert_eq(lapic_mmio_write(&l, APIC_TPR, 4, 0x50), -1);
	lapic_accept(&l, 0x90, false);
	cr_assert_not(lapic_match_dest(&l, 0xff, false), "off the bus");
	gp_read(X2APIC_MSR(APIC_TPR));
	cr_assert_eq(wrbase(BASE | EN), 0);
	cr_assert_eq(lapic_mmio_read(&l, APIC_TPR, 4, &v), 0);
	cr_assert_eq(v, 0, "back in the power-up state");
	cr_assert_eq(lapic_mmio_read(&l, APIC_ID, 4, &v), 0);
	cr_assert_eq(v, 0x25u << 24, "with the initial APIC ID");
	cr_assert_eq(lapic_mmio_read(&l, APIC_SVR, 4, &v), 0);
	cr_assert_eq(v, 0xff);
	cr_assert_eq(lapic_mmio_read(&l, APIC_IRR + 0x40, 4, &v), 0);
	cr_assert_eq(v, 0, "nothing accepted while disabled");
}

Test(x2apic, msrs_gp_outside_x2apic_mode)
{
	gp_read(X2APIC_MSR(APIC_TPR));
	gp_write(X2APIC_MSR(APIC_TPR), 0);
	gp_read(X2APIC_MSR(APIC_ID));
	gp_write(X2APIC_MSR(APIC_EOI), 0);
	gp_read(0x10);				/* not an APIC MSR at all */
	gp_write(0x10, 0);
}

Test(x2apic, id_and_derived_ldr)
{
	fake_x2apic(&l);
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ID)), 0x25, "the 32-bit x2APIC ID");
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_LDR)), (2u << 16) | (1u << 5),
		     "cluster ID >> 4, bit ID & 15");
	cr_assert_eq(lapic_ldr(&l), (2u << 16) | (1u << 5));
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_LVR)), APIC_LVR_VALUE);
	cr_assert_eq(rdmsr(MSR_IA32_APIC_BASE), BASE | EN | EXTD);
}

static const uint32_t read_only[] = {
	0x802, 0x803, 0x80a, 0x80d, 0x810, 0x817, 0x818, 0x81f, 0x820, 0x827, 0x839,
};
static const uint32_t write_only[] = { 0x80b, 0x83f };
static const uint32_t reserved[] = {
	0x800, 0x801, 0x804, 0x805, 0x806, 0x807, 0x809, 0x80c, 0x80e, 0x829,
	0x82a, 0x82b, 0x82c, 0x82d, 0x82e, 0x831, 0x83a, 0x83b, 0x83c, 0x83d,
	0x840, 0x8ff,
};

Test(x2apic, read_only_write_only_reserved)
{
	unsigned i;

	fake_x2apic(&l);
	for (i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++) {
		rdmsr(read_only[i]);
		gp_write(read_only[i], 0);
	}
	for (i = 0; i < sizeof(write_only) / sizeof(write_only[0]); i++)
		gp_read(write_only[i]);
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		gp_read(reserved[i]);
		gp_write(reserved[i], 0);
	}
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ID)), 0x25, "ID write had no effect");
}

Test(x2apic, reserved_bits_gp)
{
	fake_x2apic(&l);
	fake_sw_enable(&l);
	gp_write(X2APIC_MSR(APIC_TPR), 0x100);
	gp_write(X2APIC_MSR(APIC_TPR), 1ull << 32);	/* bits 63:32 */
	gp_write(X2APIC_MSR(APIC_EOI), 1);		/* EOI: only 0 */
	gp_write(X2APIC_MSR(APIC_ESR), 1);		/* ESR: only 0 */
	gp_write(X2APIC_MSR(APIC_SVR), 1u << 12);	/* no EOI suppression */
	gp_write(X2APIC_MSR(APIC_LVT_ERROR), APIC_LVT_DM_NMI);
	gp_write(X2APIC_MSR(APIC_LVT_TIMER), 1u << 19);
	gp_write(X2APIC_MSR(APIC_TDCR), 4);
	gp_write(X2APIC_MSR(APIC_SELF_IPI), 0x140);
	gp_write(X2APIC_MSR(APIC_ICR_LO), 0x40 | (1u << 13));
	gp_write(X2APIC_MSR(APIC_ICR_LO), 0x40 | (1u << 16));
	gp_write(X2APIC_MSR(APIC_ICR_LO), 0x40 | (1u << 20));
	cr_assert_eq(fake.nipi, 0);
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_TPR)), 0);
	wrmsr(X2APIC_MSR(APIC_TPR), 0xff);
	wrmsr(X2APIC_MSR(APIC_TDCR), APIC_TDCR_MASK);
	wrmsr(X2APIC_MSR(APIC_LVT_LINT1), APIC_LVT_DM_NMI | APIC_LVT_LEVEL |
	      APIC_LVT_POLARITY);
	wrmsr(X2APIC_MSR(APIC_ICR_LO), APIC_ICR_BUSY | APIC_ICR_DEST_SELF | 0x40);
	cr_assert_eq(fake.nipi, 1, "the busy bit is ignored, not reserved");
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ICR_LO)), APIC_ICR_DEST_SELF | 0x40);
}

Test(x2apic, eoi_and_esr)
{
	fake_x2apic(&l);
	fake_sw_enable(&l);
	lapic_accept(&l, 0x40, true);
	lapic_ack(&l, 0x40);
	wrmsr(X2APIC_MSR(APIC_EOI), 0);
	cr_assert_eq(fake.neoi, 1);
	lapic_accept(&l, 1, false);
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ESR)), APIC_ESR_RECV_ILLEGAL);
}

Test(x2apic, icr_is_one_64bit_write)
{
	fake_x2apic(&l);
	wrmsr(X2APIC_MSR(APIC_ICR_LO), (0x12345678ull << 32) | APIC_ICR_LOGICAL |
	      APIC_ICR_DM_FIXED | 0x44);
	cr_assert_eq(fake.nipi, 1);
	cr_assert_eq(fake.ipi_src[0], 1);
	cr_assert_eq(fake.ipi[0].vector, 0x44);
	cr_assert_eq(fake.ipi[0].dest, 0x12345678, "a 32-bit destination");
	cr_assert(fake.ipi[0].logical);
	cr_assert_eq(fake.ipi[0].shorthand, APIC_ICR_DEST_FIELD);
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ICR_LO)),
		     (0x12345678ull << 32) | APIC_ICR_LOGICAL | 0x44);
}

Test(x2apic, self_ipi)
{
	fake_x2apic(&l);
	wrmsr(X2APIC_MSR(APIC_SELF_IPI), 0x55);
	cr_assert_eq(fake.nipi, 1);
	cr_assert_eq(fake.ipi[0].vector, 0x55);
	cr_assert_eq(fake.ipi[0].delivery, APIC_ICR_DM_FIXED);
	cr_assert_eq(fake.ipi[0].shorthand, APIC_ICR_DEST_SELF);
	cr_assert_not(fake.ipi[0].level);
	wrmsr(X2APIC_MSR(APIC_SELF_IPI), 0x0f);
	cr_assert_eq(fake.nipi, 1, "illegal vector: not sent");
	wrmsr(X2APIC_MSR(APIC_ESR), 0);
	cr_assert_eq(rdmsr(X2APIC_MSR(APIC_ESR)), APIC_ESR_SEND_ILLEGAL);
}

Test(x2apic, tsc_deadline_msr_needs_the_feature)
{
	lapic_init(&l, 0, 0, true, 0, &fake_ops_notsc, NULL);
	gp_read(MSR_IA32_TSC_DEADLINE);
	gp_write(MSR_IA32_TSC_DEADLINE, 0);
	fake_lapic(&l, 0, 0);
	gp_read(MSR_IA32_TSC_DEADLINE);		/* ops->tsc but no tsc_khz */
}
