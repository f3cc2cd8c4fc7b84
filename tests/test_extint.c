// SPDX-License-Identifier: MIT
/*
 * ExtINT (vmm/irqchip/extint.c, lapic_lint0_extint()): when LINT0 takes the
 * 8259A's INTR (SDM 11.4.3, 11.4.7.2, 11.5.1), and the INTA flow of
 * --irqchip=user on a machine with no threads: the PIC's INTR reaches
 * vm->pic_intr and the BSP's extint_kick, the INTA gives its vector, and
 * a level line asks again at the EOI (8259A "Interrupt Sequence").
 */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/apic.h"
#include "irqchip/extint.h"
#include "irqchip/user.h"
#include "lapic_fake.h"
#include "vm.h"

static struct vm vm;
static struct vmm_config cfg;
static struct vcpu vcpus[2];

static void intr(void *ctx, int level)
{
	extint_pic_intr(ctx, level);
}

static const struct pic_ops ops = { .intr = intr };

static void setup(void)
{
	unsigned i;

	fake_reset();
	memset(&vm, 0, sizeof(vm));
	memset(vcpus, 0, sizeof(vcpus));
	cfg = (struct vmm_config){ .irqchip = IRQCHIP_USER };
	vm.cfg = &cfg;
	vm.nr_vcpus = 2;
	vm.vcpus = vcpus;
	pthread_mutex_init(&vm.isa_lock, NULL);
	for (i = 0; i < 2; i++) {
		vcpus[i].id = i;
		vcpus[i].vm = &vm;
		fake_lapic(&vcpus[i].irq.lapic, i, i);
	}
	pic_init(&vm.pic, &ops, &vm);
}

TestSuite(extint, .init = setup);

static struct lapic *bsp(void)
{
	return &vcpus[0].irq.lapic;
}

static void lint0(struct lapic *l, uint32_t val)
{
	cr_assert_eq(lapic_mmio_write(l, APIC_LVT_LINT0, 4, val), 0);
}

/* ICW1-ICW4 with vectors 0x30 and 0x38, then OCW1 @imr on the master */
static void pic_setup(uint8_t imr)
{
	static const uint8_t seq[][2] = {
		{ 0x20, 0x11 }, { 0x21, 0x30 }, { 0x21, 0x04 }, { 0x21, 0x01 },
		{ 0xa0, 0x11 }, { 0xa1, 0x38 }, { 0xa1, 0x02 }, { 0xa1, 0x01 },
	};
	unsigned i;

	for (i = 0; i < 8; i++)
		pic_write(&vm.pic, seq[i][0], seq[i][1]);
	pic_write(&vm.pic, 0x21, imr);
}

Test(extint, lint0_rule)
{
	struct lapic *l = bsp();

	/* SDM 11.4.7.1: after reset LINT0 is masked */
	cr_assert_not(lapic_lint0_extint(l));
	/* software-disabled: the mask bit cannot be cleared (11.4.7.2) */
	lint0(l, APIC_LVT_DM_EXTINT);
	cr_assert_not(lapic_lint0_extint(l));
	fake_sw_enable(l);
	lint0(l, APIC_LVT_DM_EXTINT);
	cr_assert(lapic_lint0_extint(l));
	/* the trigger bit does not matter: ExtINT is level sensitive */
	lint0(l, APIC_LVT_DM_EXTINT | APIC_LVT_LEVEL);
	cr_assert(lapic_lint0_extint(l));
	lint0(l, APIC_LVT_DM_EXTINT | APIC_LVT_MASKED);
	cr_assert_not(lapic_lint0_extint(l));
	lint0(l, APIC_LVT_DM_FIXED | 0x40);
	cr_assert_not(lapic_lint0_extint(l), "fixed is not ExtINT");
	lint0(l, APIC_LVT_DM_NMI);
	cr_assert_not(lapic_lint0_extint(l));
	/* software-disabling masks it (11.4.7.2) */
	lint0(l, APIC_LVT_DM_EXTINT);
	cr_assert_eq(lapic_mmio_write(l, APIC_SVR, 4, 0xff), 0);
	cr_assert_not(lapic_lint0_extint(l));
	/* hardware-disabled: LINT0 is the INTR pin itself (11.4.3) */
	cr_assert_eq(lapic_msr_write(l, MSR_IA32_APIC_BASE, APIC_BASE_BSP |
				     0xfee00000u), 0);
	cr_assert(lapic_lint0_extint(l));
}

Test(extint, intr_reaches_the_bsp_and_inta_gives_the_vector)
{
	fake_sw_enable(bsp());
	fake_sw_enable(&vcpus[1].irq.lapic);
	lint0(bsp(), APIC_LVT_DM_EXTINT);
	lint0(&vcpus[1].irq.lapic, APIC_LVT_DM_EXTINT);
	pic_setup(~(1u << 5) & 0xff);
	pic_set_irq(&vm.pic, 5, 1);
	cr_assert_eq(vm.pic_intr, 1);
	cr_assert_eq(vcpus[0].irq.extint_kick, 1, "the BSP is told");
	cr_assert_eq(vcpus[1].irq.extint_kick, 0, "the AP is not");
	irq_extint_seen(&vcpus[0]);
	cr_assert_eq(vcpus[0].irq.extint_kick, 0);
	cr_assert(irq_extint_waiting(&vcpus[0]));
	cr_assert_not(irq_extint_waiting(&vcpus[1]), "only the BSP's LINT0");
	/* ExtINT skips the LAPIC: nothing in IRR, whatever the PPR */
	cr_assert_eq(lapic_mmio_write(bsp(), APIC_TPR, 4, 0xf0), 0);
	cr_assert(irq_extint_waiting(&vcpus[0]));
	cr_assert_eq(irq_extint_ack(&vcpus[0]), 0x35);
	cr_assert_eq(lapic_pending_vector(bsp()), -1);
	cr_assert_eq(vm.pic_intr, 0, "in service: INTR drops");
	cr_assert_not(irq_extint_waiting(&vcpus[0]));
	/* an edge line held high asks nothing more after the EOI */
	pic_write(&vm.pic, 0x20, 0x20);
	cr_assert_eq(vm.pic_intr, 0);
}

Test(extint, level_line_asks_again_at_the_eoi)
{
	fake_sw_enable(bsp());
	lint0(bsp(), APIC_LVT_DM_EXTINT);
	pic_setup(~(1u << 5) & 0xff);
	pic_write(&vm.pic, 0x4d0, 1u << 5);
	pic_set_irq(&vm.pic, 5, 1);
	cr_assert_eq(irq_extint_ack(&vcpus[0]), 0x35);
	cr_assert_eq(vm.pic_intr, 0);
	vcpus[0].irq.extint_kick = 0;
	pic_write(&vm.pic, 0x20, 0x20);	/* OCW2 EOI, still high */
	cr_assert_eq(vm.pic_intr, 1);
	cr_assert_eq(vcpus[0].irq.extint_kick, 1);
	cr_assert_eq(irq_extint_ack(&vcpus[0]), 0x35);
	pic_set_irq(&vm.pic, 5, 0);
	pic_write(&vm.pic, 0x20, 0x20);
	cr_assert_eq(vm.pic_intr, 0, "low, then EOI: done");
}

Test(extint, masked_lint0_and_ioapic_message)
{
	fake_sw_enable(bsp());
	fake_sw_enable(&vcpus[1].irq.lapic);
	pic_setup(~(1u << 5) & 0xff);
	pic_set_irq(&vm.pic, 5, 1);
	cr_assert_eq(vm.pic_intr, 1);
	cr_assert_not(irq_extint_waiting(&vcpus[0]), "LINT0 masked");
	/* 82093AA 3.2.4: an ExtINT message to the AP asks the PIC too */
	irq_post_extint(&vcpus[1]);
	cr_assert_eq(vcpus[1].irq.extint_kick, 1);
	cr_assert(irq_extint_waiting(&vcpus[1]));
	cr_assert_eq(irq_extint_ack(&vcpus[1]), 0x35);
	cr_assert_not(irq_extint_waiting(&vcpus[1]));
	/* a second message with nothing pending: spurious IR7 */
	irq_post_extint(&vcpus[1]);
	cr_assert_eq(irq_extint_ack(&vcpus[1]), 0x37);
	cr_assert_eq(vm.pic.stats.spurious, 1);
}

Test(extint, slave_line_through_the_cascade)
{
	fake_sw_enable(bsp());
	lint0(bsp(), APIC_LVT_DM_EXTINT);
	pic_setup(~(1u << 2) & 0xff);
	pic_write(&vm.pic, 0xa1, ~(1u << 5) & 0xff);
	pic_set_irq(&vm.pic, 13, 1);
	cr_assert(irq_extint_waiting(&vcpus[0]));
	cr_assert_eq(irq_extint_ack(&vcpus[0]), 0x3d);
}

/* --irqchip=split: the INTA only when KVM says it can take it now */
Test(extint, split_injects_only_when_ready)
{
	struct kvm_run run[2];

	memset(run, 0, sizeof(run));
	cfg.irqchip = IRQCHIP_SPLIT;
	vcpus[0].run = &run[0];
	vcpus[1].run = &run[1];
	pic_setup(~(1u << 5) & 0xff);
	run[0].request_interrupt_window = 1;
	cr_assert_eq(split_extint_before_run(&vcpus[0]), -1);
	cr_assert_eq(run[0].request_interrupt_window, 0, "INTR low: no window");
	vm.pic_intr = 0;
	pic_set_irq(&vm.pic, 5, 1);
	cr_assert_eq(vm.pic_intr, 1);
	/* not ready (IF=0, or KVM's LVT0 takes no PIC interrupt): wait */
	cr_assert_eq(split_extint_before_run(&vcpus[0]), -1);
	cr_assert_eq(run[0].request_interrupt_window, 1);
	cr_assert_eq(vm.pic.stats.intacks, 0, "no INTA yet");
	cr_assert_eq(split_extint_before_run(&vcpus[1]), -1, "the BSP's only");
	run[0].ready_for_interrupt_injection = 1;
	cr_assert_eq(split_extint_before_run(&vcpus[0]), 0x35);
	cr_assert_eq(run[0].request_interrupt_window, 0);
	cr_assert_eq(vm.pic_intr, 0);
}
