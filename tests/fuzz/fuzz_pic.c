// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the 8259A pair and the ELCR (vmm/pc/pic.c).  The
 * input is a list of operations, one opcode byte each (taken mod 8) and
 * its argument bytes; a missing argument reads as 0:
 *
 *	0 port val	write @val to port[port % 8] (below)
 *	1 port		read port[port % 8]
 *	2 line lvl	ISA line (line % 17: 16 is a bad line) to lvl & 1
 *	3 line		an edge: line % 16 up, then down
 *	4		INTA
 *	5 off sz val	a bus access: off % 4 on the master, slave or ELCR
 *			region (sz >> 2 % 3), width 1 << (sz % 4), read if
 *			val & 1
 *	6 b0..b7	the PC's ICW sequence, both chips, from 8 bytes
 *	7 reg		OCW3 read-register or poll on the master (reg & 1)
 *			or slave, then a read of the command port
 *
 * The ports: 0x20 0x21 0xa0 0xa1 0x4d0 0x4d1 and two that are not the
 * PIC's (0x22, 0x4d2).
 *
 * Invariants (8259A datasheet, 231468), abort() on violation:
 * - INTR goes to ops->intr only on a change and equals pic_output();
 *   INTR high means an unmasked request;
 * - a level-sensitive IR (ELCR or LTIM) has IRR equal to its input;
 * - cascade: the master's IR2 input is the slave's INTR, and no IR2
 *   request without it;
 * - INTA ("Interrupt Sequence"): the vector is the chip's ICW2 base plus
 *   the IR; the IR acknowledged was the highest-priority unmasked
 *   request, and goes into service unless in AEOI mode; a spurious INTA
 *   (nothing pending) gives IR7; the slave answers only through IR2;
 * - ELCR bits the PIIX4 fixes (IRQ 0, 1, 2, 8, 13) read as 0.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pc/pic.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_pic: %s:%d: %s\n", __FILE__, __LINE__, \
			#cond); \
		abort(); \
	} \
} while (0)

static const uint16_t ports[8] = {
	PIC_MASTER_CMD, PIC_MASTER_DATA, PIC_SLAVE_CMD, PIC_SLAVE_DATA,
	PIC_ELCR1, PIC_ELCR2, 0x22, 0x4d2,
};

static int intr_level;

static void fake_intr(void *ctx, int level)
{
	(void)ctx;
	CHECK(level != intr_level);
	intr_level = level;
}

static void fake_trace(void *ctx, const char *line)
{
	(void)ctx;
	CHECK(line[0]);
}

static const struct pic_ops ops = {
	.intr = fake_intr,
	.trace = fake_trace,
};

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

/* the IR of best rank in @mask ("Priority": lowest + 1 first), -1 if none */
static int best(const struct pic_chip *c, uint8_t mask)
{
	unsigned r, irq;

	for (r = 0; r < 8; r++) {
		irq = (c->lowest + 1 + r) & 7;
		if (mask & (1u << irq))
			return irq;
	}
	return -1;
}

static void check_chip(const struct pic_chip *c, bool master, bool cascade)
{
	uint8_t level = c->ltim ? 0xff : c->elcr;

	CHECK(c->lowest < 8);
	CHECK(c->init == 0 || (c->init >= 2 && c->init <= 4));
	CHECK(!(c->elcr & ~c->elcr_mask));
	if (master && cascade)
		level &= ~(1u << PIC_CASCADE_LINE);
	CHECK(!((c->irr ^ c->line) & level));
	if (c->out)
		CHECK(c->irr & ~c->imr);
}

static void check(const struct pic *p)
{
	const struct pic_chip *m = &p->chip[0], *s = &p->chip[1];
	bool cascade = !m->single;

	check_chip(m, true, cascade);
	check_chip(s, false, false);
	CHECK(intr_level == pic_output(p));
	CHECK(m->out == pic_output(p));
	if (cascade) {
		CHECK(!!(m->line & (1u << PIC_CASCADE_LINE)) == s->out);
		if (!s->out)
			CHECK(!(m->irr & (1u << PIC_CASCADE_LINE)));
		/* with LTIM, IR2 is level: IRR is the slave's INTR */
		if (m->ltim)
			CHECK(!!(m->irr & (1u << PIC_CASCADE_LINE)) == s->out);
	}
}

/*
 * The IR an INTA of chip @c takes ("Priority", "Interrupt Sequence"):
 * the unmasked request of best rank, if no IR in service ranks as high
 * (bar the masked ones in special mask mode and, in the master with
 * special fully nested mode, the cascade line); -1 if none.
 */
static int expect_irq(const struct pic_chip *c, bool master)
{
	uint8_t req = c->irr & ~c->imr, in_service = c->isr;
	int want = best(c, req);

	if (c->special_mask)
		in_service &= ~c->imr;
	if (master && c->sfnm)
		in_service &= ~(1u << PIC_CASCADE_LINE);
	if (want < 0 || best(c, req | in_service) != want ||
	    (in_service & (1u << want)))
		return -1;
	return want;
}

/* After the INTA: @irq went into service, unless spurious or AEOI. */
static void check_acked(const struct pic_chip *before,
			const struct pic_chip *c, int irq)
{
	if (irq < 0)
		CHECK(c->isr == before->isr);
	else if (!before->aeoi)
		CHECK(c->isr == (before->isr | 1u << irq));
	else
		CHECK(c->isr == before->isr);
}

static void op_intack(struct pic *p)
{
	struct pic_chip m = p->chip[0], s = p->chip[1];
	int wm = expect_irq(&m, true), ws = expect_irq(&s, false);
	uint8_t vec = pic_intack(p);

	CHECK(!(m.base & 7) && !(s.base & 7));
	if (wm == PIC_CASCADE_LINE && !m.single) {
		/* "Cascade Mode": the slave's vector, IR7 if it has none */
		CHECK(vec == s.base + (ws < 0 ? 7 : ws));
		check_acked(&m, &p->chip[0], wm);
		check_acked(&s, &p->chip[1], ws);
		return;
	}
	/* a spurious INTA gives IR7 ("Interrupt Sequence") */
	CHECK(vec == m.base + (wm < 0 ? 7 : wm));
	check_acked(&m, &p->chip[0], wm);
	CHECK(p->chip[1].isr == s.isr);
}

static void op_bus(struct pic *p, uint8_t off, uint8_t sz, uint8_t val)
{
	static uint64_t (*const rd[3])(void *, uint64_t, unsigned, int) = {
		pic_master_read, pic_slave_read, pic_elcr_read,
	};
	static void (*const wr[3])(void *, uint64_t, unsigned, uint64_t,
				   int) = {
		pic_master_write, pic_slave_write, pic_elcr_write,
	};
	unsigned r = (sz >> 2) % 3, size = 1u << (sz % 4);
	uint64_t bad = p->stats.bad_accesses, v;

	if (val & 1) {
		v = rd[r](p, off % 4, size, 0);
		if (size != 1 || off % 4 > 1)
			CHECK(v == ~0ull);
		else
			CHECK(v <= 0xff);
	} else {
		wr[r](p, off % 4, size, val, 0);
	}
	if (size != 1 || off % 4 > 1)
		CHECK(p->stats.bad_accesses == bad + 1);
}

/* The PC's initialisation, from the input's bytes (kernel/dev/pic.c's order). */
static void op_init(struct pic *p, const uint8_t b[8])
{
	pic_write(p, PIC_MASTER_CMD, PIC_ICW1 | (b[0] & 0x0f));
	pic_write(p, PIC_SLAVE_CMD, PIC_ICW1 | (b[1] & 0x0f));
	pic_write(p, PIC_MASTER_DATA, b[2]);
	pic_write(p, PIC_SLAVE_DATA, b[3]);
	pic_write(p, PIC_MASTER_DATA, b[4]);
	pic_write(p, PIC_SLAVE_DATA, b[5]);
	pic_write(p, PIC_MASTER_DATA, b[6]);
	pic_write(p, PIC_SLAVE_DATA, b[7]);
}

static void op_status(struct pic *p, uint8_t reg)
{
	unsigned n = (reg >> 1) & 1;
	struct pic_chip *c = &p->chip[n];
	uint16_t cmd = n ? PIC_SLAVE_CMD : PIC_MASTER_CMD;
	uint8_t irr, isr, v;

	if (reg & 1) {
		/* "Poll Command": the read is an INTA of this chip alone */
		struct pic_chip before;
		int want;

		pic_write(p, cmd, PIC_OCW3 | PIC_OCW3_P);
		before = *c;
		want = expect_irq(&before, n == 0);
		v = pic_read(p, cmd);
		CHECK(v == (want < 0 ? 0 : 0x80 | want));
		check_acked(&before, c, want);
		return;
	}
	irr = c->irr;
	isr = c->isr;
	pic_write(p, cmd, PIC_OCW3 | PIC_OCW3_RR | ((reg >> 2) & 1));
	v = pic_read(p, cmd);
	CHECK(v == ((reg >> 2) & 1 ? isr : irr));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data, *end = data + size;
	uint8_t a, b, c, init[8];
	struct pic p;
	unsigned i;
	uint8_t v;

	intr_level = 0;
	pic_init(&p, &ops, NULL);
	while (ip < end) {
		switch (*ip++ % 8) {
		case 0:
			a = arg(&ip, end);
			pic_write(&p, ports[a % 8], arg(&ip, end));
			break;
		case 1:
			a = arg(&ip, end) % 8;
			v = pic_read(&p, ports[a]);
			if (ports[a] == PIC_ELCR1)
				CHECK(!(v & ~PIC_ELCR1_MASK));
			if (ports[a] == PIC_ELCR2)
				CHECK(!(v & ~PIC_ELCR2_MASK));
			if (a >= 6)
				CHECK(v == 0xff);
			break;
		case 2:
			a = arg(&ip, end) % 17;
			b = arg(&ip, end) & 1;
			CHECK(pic_set_irq(&p, a, b) == (a < 16 ? 0 : -1));
			break;
		case 3:
			a = arg(&ip, end) % 16;
			pic_set_irq(&p, a, 1);
			pic_set_irq(&p, a, 0);
			break;
		case 4:
			op_intack(&p);
			break;
		case 5:
			a = arg(&ip, end);
			b = arg(&ip, end);
			c = arg(&ip, end);
			op_bus(&p, a, b, c);
			break;
		case 6:
			for (i = 0; i < 8; i++)
				init[i] = arg(&ip, end);
			op_init(&p, init);
			break;
		default:
			op_status(&p, arg(&ip, end));
			break;
		}
		check(&p);
	}
	return 0;
}
