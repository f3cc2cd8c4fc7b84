// SPDX-License-Identifier: MIT
/*
 * The 8259A pair.  Section names are those of the Intel 8259A datasheet
 * (231468): "Interrupt Sequence", "Initialization Command Words",
 * "Operation Command Words", "The End of Interrupt", "Automatic Rotation",
 * "Special Mask Mode", "Poll Command", "Reading the 8259A Status",
 * "Cascade Mode" and "Special Fully Nested Mode"; and the PIIX4 datasheet
 * (290562) 4.1.10 for the ELCR.
 *
 * Priority.  @lowest is the IR with the lowest priority (7 after ICW1);
 * the rank of IR n is (n - lowest - 1) mod 8, 0 the highest.  A request
 * reaches INTR when its rank is better than every IR in service, except
 * those masked in special mask mode, and, in the master with special
 * fully nested mode, the cascade line.
 *
 * Triggering.  A line of ELCR (or every line after ICW1 with LTIM) is
 * level-sensitive: IRR follows the input.  Otherwise a rising edge sets
 * IRR, and it stays set until acknowledged or ICW1.  The slave's INTR is
 * the master's IR2 input, which is edge-triggered (its ELCR bit is fixed)
 * but withdrawn when the slave's INTR drops.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pic.h"

static void trace(struct pic *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace(struct pic *p, const char *fmt, ...)
{
	char line[128];
	va_list ap;

	if (!p->ops || !p->ops->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->ops->trace(p->ctx, line);
}

static const char *chip_name(unsigned c)
{
	return c ? "slave" : "master";
}

void pic_init(struct pic *p, const struct pic_ops *ops, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->ctx = ctx;
	p->chip[0].elcr_mask = PIC_ELCR1_MASK;
	p->chip[1].elcr_mask = PIC_ELCR2_MASK;
	p->chip[0].lowest = p->chip[1].lowest = 7;
}

/* the best rank (0 highest) of the IRs in @mask, 8 if none */
static unsigned rank(const struct pic_chip *c, uint8_t mask)
{
	unsigned r;

	for (r = 0; r < 8; r++)
		if (mask & (1u << ((c->lowest + 1 + r) & 7)))
			return r;
	return 8;
}

static unsigned rank_irq(const struct pic_chip *c, unsigned r)
{
	return (c->lowest + 1 + r) & 7;
}

/* The IR this chip would raise INTR for, or -1. */
static int pending(const struct pic_chip *c, bool master)
{
	uint8_t in_service = c->isr;
	unsigned r = rank(c, c->irr & ~c->imr);

	if (r == 8)
		return -1;
	/* "Special Mask Mode": a masked IR in service inhibits nothing */
	if (c->special_mask)
		in_service &= ~c->imr;
	/* "Special Fully Nested Mode": the slave may interrupt itself */
	if (master && c->sfnm)
		in_service &= ~(1u << PIC_CASCADE_LINE);
	return r < rank(c, in_service) ? (int)rank_irq(c, r) : -1;
}

static bool level_sensitive(const struct pic_chip *c, unsigned irq)
{
	return c->ltim || (c->elcr & (1u << irq));
}

static void chip_set_irq(struct pic_chip *c, unsigned irq, int level)
{
	uint8_t bit = 1u << irq;
	bool rising = level && !(c->line & bit);

	if (level)
		c->line |= bit;
	else
		c->line &= ~bit;
	if (level_sensitive(c, irq)) {
		if (level)
			c->irr |= bit;
		else
			c->irr &= ~bit;
	} else if (rising) {
		c->irr |= bit;
	}
}

/* Propagate: the slave's INTR to the master's IR2, the master's to ops. */
static void update(struct pic *p)
{
	struct pic_chip *m = &p->chip[0], *s = &p->chip[1];
	bool out;

	s->out = pending(s, false) >= 0;
	if (!m->single) {
		chip_set_irq(m, PIC_CASCADE_LINE, s->out);
		/* "Interrupt Sequence": an IR must stay high until INTA, so a
		 * slave INTR that drops takes its request back (other edge
		 * lines keep theirs: the devices send pulses) */
		if (!s->out)
			m->irr &= ~(1u << PIC_CASCADE_LINE);
	}
	out = pending(m, true) >= 0;
	if (out == m->out)
		return;
	m->out = out;
	if (out)
		p->stats.intr_raises++;
	if (p->ops && p->ops->intr)
		p->ops->intr(p->ctx, out);
}

int pic_set_irq(struct pic *p, unsigned line, int level)
{
	if (line >= PIC_NR_LINES)
		return -1;
	chip_set_irq(&p->chip[line / 8], line % 8, level);
	update(p);
	return 0;
}

bool pic_output(const struct pic *p)
{
	return p->chip[0].out;
}

/* "Interrupt Sequence": the ISR bit is set and an edge IRR bit cleared */
static void ack(struct pic_chip *c, unsigned irq)
{
	uint8_t bit = 1u << irq;

	if (c->aeoi) {
		/* "Automatic Rotation": rotate in AEOI mode */
		if (c->rotate_aeoi)
			c->lowest = irq;
	} else {
		c->isr |= bit;
	}
	if (!level_sensitive(c, irq))
		c->irr &= ~bit;
}

/* One INTA on chip @n (no cascade); the IR, or 7 for a spurious one. */
static unsigned chip_intack(struct pic *p, unsigned n)
{
	struct pic_chip *c = &p->chip[n];
	int irq = pending(c, n == 0);

	p->stats.intacks++;
	if (irq < 0) {
		/* "Interrupt Sequence": a request gone before INTA gives IR7 */
		p->stats.spurious++;
		return 7;
	}
	ack(c, irq);
	return irq;
}

uint8_t pic_intack(struct pic *p)
{
	struct pic_chip *m = &p->chip[0];
	unsigned irq = chip_intack(p, 0);
	uint8_t vec;

	if (irq == PIC_CASCADE_LINE && !m->single) {
		/* "Cascade Mode": the slave puts its vector on the bus */
		vec = p->chip[1].base + chip_intack(p, 1);
	} else {
		vec = m->base + irq;
	}
	update(p);
	trace(p, "pic: INTA: vector 0x%02x (master isr 0x%02x, slave isr "
	      "0x%02x)", vec, m->isr, p->chip[1].isr);
	return vec;
}

static void icw1(struct pic *p, unsigned n, uint8_t val)
{
	struct pic_chip *c = &p->chip[n];

	/*
	 * "Initialization Command Words": the edge sense circuit is reset
	 * (an edge request needs a new rising edge: IRR is cleared), the IMR
	 * is cleared, IR7 gets the lowest priority, special mask mode is
	 * cleared and reads return IRR; without IC4 every ICW4 function is 0.
	 */
	c->irr = c->isr = c->imr = 0;
	c->lowest = 7;
	c->special_mask = c->read_isr = c->poll = c->rotate_aeoi = false;
	c->icw4 = val & PIC_ICW1_IC4;
	c->single = val & PIC_ICW1_SNGL;
	c->ltim = val & PIC_ICW1_LTIM;
	if (!c->icw4)
		c->aeoi = c->sfnm = false;
	c->init = 2;
	c->ready = false;
	/* the level inputs still asserted are requests again */
	if (c->ltim)
		c->irr = c->line;
	else
		c->irr = c->line & c->elcr;
	trace(p, "pic: %s ICW1 0x%02x:%s%s%s", chip_name(n), val,
	      c->icw4 ? " ICW4" : "", c->single ? " single" : " cascade",
	      c->ltim ? " level" : " edge");
}

/* "The End of Interrupt" and "Automatic Rotation": OCW2 */
static void ocw2(struct pic *p, unsigned n, uint8_t val)
{
	struct pic_chip *c = &p->chip[n];
	unsigned cmd = val >> 5, irq = val & 7, r;

	switch (cmd) {
	case 1:		/* non-specific EOI */
	case 5:		/* rotate on non-specific EOI */
		r = rank(c, c->isr);
		if (r == 8)
			break;
		irq = rank_irq(c, r);
		c->isr &= ~(1u << irq);
		if (cmd == 5)
			c->lowest = irq;
		break;
	case 3:		/* specific EOI */
	case 7:		/* rotate on specific EOI */
		c->isr &= ~(1u << irq);
		if (cmd == 7)
			c->lowest = irq;
		break;
	case 6:		/* set priority */
		c->lowest = irq;
		break;
	case 4:		/* rotate in AEOI mode: set */
	case 0:		/* ... clear */
		c->rotate_aeoi = cmd == 4;
		break;
	default:	/* 2: no operation */
		break;
	}
	trace(p, "pic: %s OCW2 0x%02x: isr 0x%02x", chip_name(n), val, c->isr);
}

/*
 * "Reading the 8259A Status", "Poll Command", "Special Mask Mode".  OCW3
 * is written whole: P = 0 is "no poll command", so it takes back a poll
 * not yet read (as KVM's and QEMU's 8259 do).
 */
static void ocw3(struct pic_chip *c, uint8_t val)
{
	c->poll = val & PIC_OCW3_P;
	if (val & PIC_OCW3_RR)
		c->read_isr = val & PIC_OCW3_RIS;
	if (val & PIC_OCW3_ESMM)
		c->special_mask = val & PIC_OCW3_SMM;
}

static void write_cmd(struct pic *p, unsigned n, uint8_t val)
{
	/* ICW1 restarts the sequence, whatever was expected */
	if (val & PIC_ICW1)
		icw1(p, n, val);
	else if (val & PIC_OCW3)
		ocw3(&p->chip[n], val);
	else
		ocw2(p, n, val);
	update(p);
}

static void write_data(struct pic *p, unsigned n, uint8_t val)
{
	struct pic_chip *c = &p->chip[n];

	switch (c->init) {
	case 2:
		/* ICW2: T7-T3, the vector of IR0 (8086 mode) */
		c->base = val & 0xf8;
		c->init = !c->single ? 3 : c->icw4 ? 4 : 0;
		c->ready = !c->init;
		trace(p, "pic: %s ICW2: vectors 0x%02x-0x%02x", chip_name(n),
		      c->base, c->base + 7);
		return;
	case 3:
		/* ICW3: the master's slave lines, or the slave's ID */
		c->icw3 = val;
		c->init = c->icw4 ? 4 : 0;
		c->ready = !c->init;
		return;
	case 4:
		/* ICW4: uPM (bit 0) and BUF/M-S are not modelled */
		c->aeoi = val & PIC_ICW4_AEOI;
		c->sfnm = val & PIC_ICW4_SFNM;
		c->init = 0;
		c->ready = true;
		return;
	default:
		/* OCW1 */
		c->imr = val;
		trace(p, "pic: %s IMR 0x%02x", chip_name(n), val);
		update(p);
	}
}

/* "Poll Command": the next read of the command port is an INTA */
static uint8_t poll_read(struct pic *p, unsigned n)
{
	struct pic_chip *c = &p->chip[n];
	int irq = pending(c, n == 0);

	c->poll = false;
	if (irq < 0)
		return 0;
	p->stats.intacks++;
	ack(c, irq);
	update(p);
	return 0x80 | irq;
}

uint8_t pic_read(struct pic *p, uint16_t port)
{
	unsigned n = (port & 0x80) ? 1 : 0;
	struct pic_chip *c = &p->chip[n];

	switch (port) {
	case PIC_MASTER_CMD:
	case PIC_SLAVE_CMD:
		if (c->poll)
			return poll_read(p, n);
		return c->read_isr ? c->isr : c->irr;
	case PIC_MASTER_DATA:
	case PIC_SLAVE_DATA:
		return c->imr;
	case PIC_ELCR1:
	case PIC_ELCR2:
		return p->chip[port - PIC_ELCR1].elcr;
	default:
		p->stats.bad_accesses++;
		return 0xff;
	}
}

void pic_write(struct pic *p, uint16_t port, uint8_t val)
{
	struct pic_chip *c;

	switch (port) {
	case PIC_MASTER_CMD:
	case PIC_SLAVE_CMD:
		write_cmd(p, port == PIC_SLAVE_CMD, val);
		return;
	case PIC_MASTER_DATA:
	case PIC_SLAVE_DATA:
		write_data(p, port == PIC_SLAVE_DATA, val);
		return;
	case PIC_ELCR1:
	case PIC_ELCR2:
		c = &p->chip[port - PIC_ELCR1];
		c->elcr = val & c->elcr_mask;
		/* a line made level-sensitive requests while asserted */
		c->irr = (c->irr & ~c->elcr) | (c->line & c->elcr);
		trace(p, "pic: ELCR%u 0x%02x", port - PIC_ELCR1 + 1, c->elcr);
		update(p);
		return;
	default:
		p->stats.bad_accesses++;
	}
}

/* ---- bus callbacks ---- */

static uint64_t bus_rd(struct pic *p, uint16_t port, uint64_t off,
		       unsigned size)
{
	if (size != 1 || off > 1) {
		p->stats.bad_accesses++;
		return ~0ull;
	}
	return pic_read(p, port + off);
}

static void bus_wr(struct pic *p, uint16_t port, uint64_t off, unsigned size,
		   uint64_t val)
{
	if (size != 1 || off > 1) {
		p->stats.bad_accesses++;
		return;
	}
	pic_write(p, port + off, val);
}

uint64_t pic_master_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)cpu;
	return bus_rd(opaque, PIC_MASTER_CMD, off, size);
}

void pic_master_write(void *opaque, uint64_t off, unsigned size,
		      uint64_t val, int cpu)
{
	(void)cpu;
	bus_wr(opaque, PIC_MASTER_CMD, off, size, val);
}

uint64_t pic_slave_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)cpu;
	return bus_rd(opaque, PIC_SLAVE_CMD, off, size);
}

void pic_slave_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		     int cpu)
{
	(void)cpu;
	bus_wr(opaque, PIC_SLAVE_CMD, off, size, val);
}

uint64_t pic_elcr_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)cpu;
	return bus_rd(opaque, PIC_ELCR1, off, size);
}

void pic_elcr_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu)
{
	(void)cpu;
	bus_wr(opaque, PIC_ELCR1, off, size, val);
}
