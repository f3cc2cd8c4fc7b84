// SPDX-License-Identifier: MIT
/* The 8259A pair and the ELCR. */
#include <criterion/criterion.h>
#include <string.h>

#include "pc/pic.h"

static struct pic pic;
static struct {
	int intr;
	unsigned raises, changes, ntrace;
} f;

static void fake_intr(void *ctx, int level)
{
	(void)ctx;
	cr_assert_neq(level, f.intr, "intr only on a change");
	f.intr = level;
	f.changes++;
	if (level)
		f.raises++;
}

static void fake_trace(void *ctx, const char *line)
{
	(void)ctx;
	cr_assert(line[0]);
	f.ntrace++;
}

static const struct pic_ops ops = {
	.intr = fake_intr,
	.trace = fake_trace,
};

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	pic_init(&pic, &ops, NULL);
}

TestSuite(pic, .init = setup);

/* The sequence Linux and most kernels use: ICW1-ICW4, cascade on IR2. */
static void init_pair(uint8_t mbase, uint8_t sbase, uint8_t icw4)
{
	pic_write(&pic, 0x20, 0x11);	/* ICW1: edge, cascade, ICW4 */
	pic_write(&pic, 0xa0, 0x11);
	pic_write(&pic, 0x21, mbase);	/* ICW2 */
	pic_write(&pic, 0xa1, sbase);
	pic_write(&pic, 0x21, 0x04);	/* ICW3: slave on IR2 */
	pic_write(&pic, 0xa1, 0x02);	/* ICW3: slave ID 2 */
	pic_write(&pic, 0x21, icw4);	/* ICW4: 8086 mode */
	pic_write(&pic, 0xa1, icw4);
}

Test(pic, init_sequence_sets_vectors_and_unmasks)
{
	init_pair(0x20, 0x28, 0x01);
	cr_assert_eq(pic.chip[0].base, 0x20);
	cr_assert_eq(pic.chip[1].base, 0x28);
	cr_assert_eq(pic.chip[0].init, 0, "sequence complete");
	cr_assert_eq(pic.chip[1].init, 0);
	cr_assert(pic.chip[0].ready && pic.chip[1].ready);
	/* datasheet: ICW1 clears the IMR */
	cr_assert_eq(pic_read(&pic, 0x21), 0);
	cr_assert_eq(pic_read(&pic, 0xa1), 0);
	/* the next data write is OCW1, not another ICW */
	pic_write(&pic, 0x21, 0xfb);
	cr_assert_eq(pic_read(&pic, 0x21), 0xfb);
	cr_assert_eq(pic.chip[0].base, 0x20);
	cr_assert(f.ntrace > 0);
}

Test(pic, icw2_low_bits_are_not_the_vector)
{
	init_pair(0x27, 0x2f, 0x01);
	cr_assert_eq(pic.chip[0].base, 0x20);
	cr_assert_eq(pic.chip[1].base, 0x28);
}

Test(pic, single_without_icw4_skips_icw3_and_icw4)
{
	pic_write(&pic, 0x20, 0x12);	/* single, no ICW4 */
	pic_write(&pic, 0x21, 0x40);
	cr_assert_eq(pic.chip[0].init, 0);
	pic_write(&pic, 0x21, 0x55);
	cr_assert_eq(pic_read(&pic, 0x21), 0x55, "OCW1 after ICW2");
}

Test(pic, imr_read_write_and_mask_all)
{
	init_pair(0x20, 0x28, 0x01);
	pic_write(&pic, 0x21, 0xff);
	pic_write(&pic, 0xa1, 0xff);
	cr_assert_eq(pic_read(&pic, 0x21), 0xff);
	cr_assert_eq(pic_read(&pic, 0xa1), 0xff);
	/* everything masked: requests are latched, INTR stays low */
	pic_set_irq(&pic, 0, 1);
	pic_set_irq(&pic, 12, 1);
	cr_assert_not(pic_output(&pic));
	cr_assert_eq(f.raises, 0);
	cr_assert_eq(pic_read(&pic, 0x20), 0x01, "IRR");
	cr_assert_eq(pic_read(&pic, 0xa0), 0x10, "slave IRR");
	/* unmasking IR0 raises INTR for the latched edge */
	pic_write(&pic, 0x21, 0xfe);
	cr_assert(pic_output(&pic));
	cr_assert_eq(f.raises, 1);
}

Test(pic, elcr_fixed_bits_stay_zero)
{
	pic_write(&pic, 0x4d0, 0xff);
	pic_write(&pic, 0x4d1, 0xff);
	cr_assert_eq(pic_read(&pic, 0x4d0), 0xf8, "IRQ 0, 1, 2 are edge");
	cr_assert_eq(pic_read(&pic, 0x4d1), 0xde, "IRQ 8, 13 are edge");
	pic_write(&pic, 0x4d0, 0x20);
	pic_write(&pic, 0x4d1, 0x0a);
	cr_assert_eq(pic_read(&pic, 0x4d0), 0x20);
	cr_assert_eq(pic_read(&pic, 0x4d1), 0x0a);
	/* and through the bus callbacks */
	cr_assert_eq(pic_elcr_read(&pic, 1, 1, 0), 0x0a);
	pic_elcr_write(&pic, 0, 1, 0x07, 0);
	cr_assert_eq(pic_read(&pic, 0x4d0), 0);
}

Test(pic, irr_and_isr_through_ocw3)
{
	init_pair(0x20, 0x28, 0x01);
	pic_set_irq(&pic, 3, 1);
	pic_set_irq(&pic, 5, 1);
	cr_assert_eq(pic_read(&pic, 0x20), 0x28, "IRR is the default");
	pic_write(&pic, 0x20, 0x0b);	/* OCW3: read ISR */
	cr_assert_eq(pic_read(&pic, 0x20), 0);
	cr_assert_eq(pic_intack(&pic), 0x23);
	cr_assert_eq(pic_read(&pic, 0x20), 0x08, "ISR: IR3");
	cr_assert_eq(pic_read(&pic, 0x20), 0x08, "the selection stays");
	pic_write(&pic, 0x20, 0x0a);	/* OCW3: read IRR */
	cr_assert_eq(pic_read(&pic, 0x20), 0x20, "IRR: IR5 left");
	/* OCW3 without RR leaves the selection alone */
	pic_write(&pic, 0x20, 0x08);
	cr_assert_eq(pic_read(&pic, 0x20), 0x20);
}

Test(pic, priority_and_eoi_of_two_lines)
{
	init_pair(0x20, 0x28, 0x01);
	pic_set_irq(&pic, 4, 1);
	pic_set_irq(&pic, 1, 1);
	cr_assert(pic_output(&pic));
	cr_assert_eq(pic_intack(&pic), 0x21, "IR1 before IR4");
	/* IR4 has a lower priority than IR1 in service: INTR drops */
	cr_assert_not(pic_output(&pic));
	pic_write(&pic, 0x20, 0x20);	/* non-specific EOI */
	cr_assert(pic_output(&pic), "IR4 now");
	cr_assert_eq(pic_intack(&pic), 0x24);
	cr_assert_not(pic_output(&pic));
	pic_write(&pic, 0x20, 0x0b);
	cr_assert_eq(pic_read(&pic, 0x20), 0x10);
	pic_write(&pic, 0x20, 0x64);	/* specific EOI, IR4 */
	cr_assert_eq(pic_read(&pic, 0x20), 0);
	cr_assert_eq(f.raises, 2);
}

Test(pic, higher_priority_nests)
{
	init_pair(0x20, 0x28, 0x01);
	pic_set_irq(&pic, 6, 1);
	cr_assert_eq(pic_intack(&pic), 0x26);
	pic_set_irq(&pic, 3, 1);
	cr_assert(pic_output(&pic), "IR3 preempts IR6 in service");
	cr_assert_eq(pic_intack(&pic), 0x23);
	pic_write(&pic, 0x20, 0x20);	/* EOI: the highest, IR3 */
	pic_write(&pic, 0x20, 0x0b);
	cr_assert_eq(pic_read(&pic, 0x20), 0x40, "IR6 still in service");
}

Test(pic, slave_cascades_through_ir2)
{
	init_pair(0x20, 0x28, 0x01);
	pic_set_irq(&pic, 10, 1);
	cr_assert(pic_output(&pic));
	cr_assert_eq(pic_intack(&pic), 0x2a);
	pic_write(&pic, 0x20, 0x0b);
	pic_write(&pic, 0xa0, 0x0b);
	cr_assert_eq(pic_read(&pic, 0x20), 0x04, "master ISR: IR2");
	cr_assert_eq(pic_read(&pic, 0xa0), 0x04, "slave ISR: IR2 (line 10)");
	pic_write(&pic, 0xa0, 0x20);
	pic_write(&pic, 0x20, 0x20);
	cr_assert_eq(pic_read(&pic, 0x20), 0);
	cr_assert_eq(pic_read(&pic, 0xa0), 0);
	/* a masked slave line never reaches the master */
	pic_write(&pic, 0xa1, 0x04);
	pic_set_irq(&pic, 10, 0);
	pic_set_irq(&pic, 10, 1);
	cr_assert_not(pic_output(&pic));
}

Test(pic, level_line_follows_the_input)
{
	init_pair(0x20, 0x28, 0x01);
	pic_write(&pic, 0x4d1, 0x08);	/* IRQ 11 level */
	pic_set_irq(&pic, 11, 1);
	cr_assert_eq(pic_intack(&pic), 0x2b);
	pic_write(&pic, 0xa0, 0x20);
	pic_write(&pic, 0x20, 0x20);
	cr_assert(pic_output(&pic), "still asserted: requests again");
	pic_set_irq(&pic, 11, 0);
	cr_assert_not(pic_output(&pic));
	cr_assert_eq(pic_read(&pic, 0xa0), 0, "IRR follows the line");
}

Test(pic, spurious_and_aeoi)
{
	init_pair(0x20, 0x28, 0x03);	/* AEOI */
	cr_assert_eq(pic_intack(&pic), 0x27, "nothing pending: IR7");
	cr_assert_eq(pic.stats.spurious, 1);
	pic_set_irq(&pic, 5, 1);
	cr_assert_eq(pic_intack(&pic), 0x25);
	pic_write(&pic, 0x20, 0x0b);
	cr_assert_eq(pic_read(&pic, 0x20), 0, "AEOI: no ISR bit");
}

Test(pic, poll_command)
{
	init_pair(0x20, 0x28, 0x01);
	pic_write(&pic, 0x21, 0xff);
	pic_set_irq(&pic, 3, 1);
	pic_write(&pic, 0x21, 0x00);
	pic_write(&pic, 0x20, 0x0c);	/* OCW3: poll */
	cr_assert_eq(pic_read(&pic, 0x20), 0x83);
	pic_write(&pic, 0x20, 0x0c);
	cr_assert_eq(pic_read(&pic, 0x20), 0x00, "IR3 in service");
}

/* an OCW3 without P cancels a poll not yet read: the read gives IRR */
Test(pic, ocw3_without_p_cancels_a_poll)
{
	init_pair(0x20, 0x28, 0x01);
	pic_set_irq(&pic, 3, 1);
	pic_write(&pic, 0x20, 0x0c);	/* OCW3: poll */
	pic_write(&pic, 0x20, 0x0a);	/* OCW3: read IRR, no poll */
	cr_assert_eq(pic_read(&pic, 0x20), 0x08, "IRR, not a poll");
	cr_assert_eq(pic.chip[0].isr, 0, "nothing acknowledged");
	cr_assert_eq(pic_intack(&pic), 0x23);
}

Test(pic, rotation_and_set_priority)
{
	init_pair(0x20, 0x28, 0x01);
	pic_write(&pic, 0x20, 0xc4);	/* set priority: IR4 lowest */
	pic_set_irq(&pic, 1, 1);
	pic_set_irq(&pic, 6, 1);
	cr_assert_eq(pic_intack(&pic), 0x26, "IR5 is the highest now");
	pic_write(&pic, 0x20, 0xa0);	/* rotate on non-specific EOI */
	cr_assert_eq(pic.chip[0].lowest, 6);
	cr_assert_eq(pic_intack(&pic), 0x21, "IR7, IR0, then IR1");
}

Test(pic, hostile_accesses_never_crash)
{
	unsigned i, j;

	/* wrong widths and offsets: counted, all-ones, write dropped */
	cr_assert_eq(pic_master_read(&pic, 0, 2, 0), ~0ull);
	cr_assert_eq(pic_slave_read(&pic, 0, 4, 0), ~0ull);
	cr_assert_eq(pic_elcr_read(&pic, 2, 1, 0), ~0ull);
	pic_master_write(&pic, 1, 2, 0x1234, 0);
	pic_elcr_write(&pic, 0, 4, 0xffffffff, 0);
	cr_assert_eq(pic_read(&pic, 0x21), 0);
	cr_assert_eq(pic_read(&pic, 0x4d0), 0);
	cr_assert_eq(pic.stats.bad_accesses, 5);
	cr_assert_eq(pic_read(&pic, 0x22), 0xff);
	pic_write(&pic, 0x22, 0);
	cr_assert_eq(pic.stats.bad_accesses, 7);
	cr_assert_eq(pic_set_irq(&pic, 16, 1), -1);

	/* OCWs in the middle of the sequence, ICW1 again halfway */
	pic_write(&pic, 0x20, 0x11);
	pic_write(&pic, 0x20, 0x20);	/* EOI with nothing in service */
	pic_write(&pic, 0x20, 0x0b);
	pic_write(&pic, 0x21, 0x30);	/* ICW2 still */
	pic_write(&pic, 0x20, 0x19);	/* ICW1 restarts: level */
	pic_write(&pic, 0x21, 0x40);
	pic_write(&pic, 0x21, 0x04);
	pic_write(&pic, 0x21, 0x01);
	cr_assert_eq(pic.chip[0].base, 0x40);
	cr_assert_eq(pic.chip[0].init, 0);

	/* every byte to every register, with lines toggling */
	for (i = 0; i < 256; i++) {
		static const uint16_t ports[] = {
			0x20, 0x21, 0xa0, 0xa1, 0x4d0, 0x4d1,
		};

		for (j = 0; j < 6; j++) {
			pic_write(&pic, ports[j], i ^ (j * 37));
			pic_set_irq(&pic, (i + j) % 16, (i >> j) & 1);
			(void)pic_read(&pic, ports[(j + i) % 6]);
			if (pic_output(&pic))
				(void)pic_intack(&pic);
		}
	}
	cr_assert_eq(pic_output(&pic), f.intr, "ops->intr saw every change");
}
