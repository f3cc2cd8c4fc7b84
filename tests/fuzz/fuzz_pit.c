// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the 8254 PIT and port 0x61 (vmm/pc/pit.c) against a
 * fake clock.  The input is a list of operations, one opcode byte each
 * (taken mod 8) and its argument bytes; a missing argument reads as 0:
 *
 *	0 port val	write @val to 0x40 + port % 4, or 0x61 if port & 4
 *	1 port		read 0x40 + port % 4, or 0x61 if port & 4
 *			(ops 0 and 1: port & 8 goes through the bus callbacks,
 *			pit_bus_* or port61_bus_*; there port & 0x30 makes the
 *			access 2 << ((port >> 4) % 4 - 1) bytes wide and
 *			port & 0x80 puts it past the region: a bad access)
 *	2 ch lvl	gate of channel ch % 3 to lvl & 1
 *	3 lo hi sh	advance the clock (lo | hi << 8) << (sh % 24) ns
 *	4		the host timer fires: the clock moves to the deadline
 *	5		the host timer fires early: pit_timer_expired() now
 *	6 ch		counter latch command, then read the latched count
 *	7 ch		read-back of the status, then read it
 *
 * Invariants (8254 datasheet, 231164), abort() on violation:
 * - a bus access wider than a byte, or past its region, counts one bad
 *   access, reads all-ones and changes nothing;
 * - set_irq only on a change, on line 0; a timer is armed only in the
 *   future (else it would fire again and again), and after a firing
 *   IRQ0 is at OUT0;
 * - after a control word OUT is low in mode 0, high in the others
 *   ("Mode 0" ... "Mode 5": "OUT ... after Control Word");
 * - the count is within the modulus (BCD digits are 0-9); mode 2's is
 *   in [1, N] ("Mode 2"), mode 3's even N counts by twos ("Mode 3");
 * - OUT low means count 1 in mode 2, count 0 in modes 4 and 5; gate low
 *   holds OUT high in modes 2 and 3 ("Gate");
 * - modes 0 and 1: once OUT went high at terminal count it stays high
 *   until the channel is written or (mode 1) retriggered;
 * - a latched count is the count at the latch, however late it is read;
 *   the read-back status has the mode, RW and BCD of the control word
 *   and OUT as pit_out() says.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/pit.h"
#include "pc/pit.h"

#define T0	1000000000ull

static struct {
	uint64_t now;
	int line;
	uint64_t armed;
	/* per channel: OUT seen high at terminal count (modes 0, 1) */
	bool tc_high[PIT_NR_CHANNELS];
	uint8_t cw[PIT_NR_CHANNELS];	/* last control word, 0 if none */
} f;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_pit: %s:%d: %s\n", __FILE__, __LINE__, \
			#cond); \
		abort(); \
	} \
} while (0)

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return f.now;
}

static void fake_set_irq(void *ctx, unsigned line, int level)
{
	(void)ctx;
	CHECK(line == 0);
	CHECK(level != f.line);
	f.line = level;
}

static void fake_timer_arm(void *ctx, uint64_t deadline)
{
	(void)ctx;
	/* a deadline not after now would fire at once, and again */
	CHECK(deadline == 0 || deadline > f.now);
	f.armed = deadline;
}

static void fake_trace(void *ctx, const char *line)
{
	(void)ctx;
	CHECK(line[0]);
}

static const struct pit_ops ops = {
	.now_ns = fake_now,
	.set_irq = fake_set_irq,
	.timer_arm = fake_timer_arm,
	.trace = fake_trace,
};

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

static bool bcd_ok(uint16_t v)
{
	unsigned i;

	for (i = 0; i < 4; i++, v >>= 4)
		if ((v & 0xf) > 9)
			return false;
	return true;
}

static void check_channel(struct pit *p, unsigned ch)
{
	const struct pit_channel *c = &p->ch[ch];
	uint16_t v = pit_count(p, ch);
	bool out = pit_out(p, ch);

	CHECK(c->mode <= 5);
	CHECK(c->cr_n >= 1 && c->cr_n <= 65536);
	CHECK(!c->loaded || (c->n >= 1 && c->n <= 65536));
	if (c->bcd) {
		CHECK(bcd_ok(v));
		return;		/* the checks below read binary counts */
	}
	if (!c->loaded)
		return;
	if (c->mode == 2)
		CHECK((v >= 1 && v <= c->n) || (v == 0 && c->n == 65536));
	if (c->mode == 3) {
		CHECK(v <= c->n || c->n == 65536);
		if (!(c->n & 1))
			CHECK(!(v & 1));
	}
	if (!out && c->mode == 2)
		CHECK(v == 1);
	if (!out && (c->mode == 4 || c->mode == 5))
		CHECK(v == 0);
	if ((c->mode == 2 || c->mode == 3) && !c->gate)
		CHECK(out);
	if (c->mode <= 1) {
		if (f.tc_high[ch])
			CHECK(out);
		if (out && c->mode == 0)
			f.tc_high[ch] = true;
		if (out && c->mode == 1 && !c->armed)
			f.tc_high[ch] = true;
	}
}

static void channel_written(unsigned ch)
{
	f.tc_high[ch] = false;
}

static uint16_t port_of(uint8_t sel)
{
	return sel & 4 ? PORT_SYS_CTRL_B : PORT_PIT_CH0 + (sel & 3);
}

static bool via_bus;	/* this op's accesses go through the bus callbacks */

static void port_write(struct pit *p, uint16_t port, uint8_t val)
{
	if (!via_bus)
		pit_write(p, port, val);
	else if (port == PORT_SYS_CTRL_B)
		port61_bus_write(p, 0, 1, val, 0);
	else
		pit_bus_write(p, port - PORT_PIT_CH0, 1, val, 0);
}

static uint8_t port_read(struct pit *p, uint16_t port)
{
	uint64_t v;

	if (!via_bus)
		return pit_read(p, port);
	if (port == PORT_SYS_CTRL_B)
		v = port61_bus_read(p, 0, 1, 0);
	else
		v = pit_bus_read(p, port - PORT_PIT_CH0, 1, 0);
	CHECK(v <= 0xff);
	return v;
}

/* A wide or out-of-region bus access: counted, all-ones, no effect. */
static void bad_access(struct pit *p, uint8_t sel, uint8_t val, bool write)
{
	unsigned size = (sel & 0x30) ? 2u << ((sel >> 4) % 4 - 1) : 1;
	uint64_t bad = p->stats.bad_accesses, off, v;
	struct pit before;
	bool p61 = sel & 4;

	memcpy(&before, p, sizeof(before));
	off = (sel & 0x80) ? (p61 ? 1 : 4) : (p61 ? 0 : sel & 3);
	if (write) {
		if (p61)
			port61_bus_write(p, off, size, val, 0);
		else
			pit_bus_write(p, off, size, val, 0);
	} else {
		v = p61 ? port61_bus_read(p, off, size, 0) :
			  pit_bus_read(p, off, size, 0);
		CHECK(v == ~0ull);
	}
	CHECK(p->stats.bad_accesses == bad + 1);
	before.stats.bad_accesses++;
	CHECK(!memcmp(&before, p, sizeof(before)));
}

static void op_write(struct pit *p, uint8_t sel, uint8_t val)
{
	uint16_t port = port_of(sel);
	unsigned ch = val >> PIT_SC_SHIFT;

	if (port == PORT_PIT_CMD && ch < 3 && (val & 0x30)) {
		port_write(p, port, val);
		f.cw[ch] = val;
		channel_written(ch);
		/* each mode's "OUT after Control Word": low in mode 0 only */
		CHECK(pit_out(p, ch) == (p->ch[ch].mode != 0));
		return;
	}
	if (port >= PORT_PIT_CH0 && port <= PORT_PIT_CH2)
		channel_written(port - PORT_PIT_CH0);
	if (port == PORT_SYS_CTRL_B && (val & 1) && !p->ch[2].gate)
		channel_written(2);	/* a trigger in mode 1 */
	port_write(p, port, val);
}

static void op_gate(struct pit *p, unsigned ch, bool level)
{
	if (level && !p->ch[ch].gate)
		channel_written(ch);	/* a rising edge retriggers */
	pit_set_gate(p, ch, level);
}

/* "Counter Latch Command": the count at the latch, read later. */
static void op_latch(struct pit *p, unsigned ch, uint64_t later)
{
	struct pit_channel *c = &p->ch[ch];
	uint16_t v, got;

	if (c->latch_left || c->status_latched || (c->rw == 3 && c->rd_msb))
		return;
	v = pit_count(p, ch);
	pit_write(p, PORT_PIT_CMD, PIT_SC(ch) | PIT_RW_LATCH);
	f.now += later;
	switch (c->rw) {
	case 1:
		got = pit_read(p, PORT_PIT_CH0 + ch);
		CHECK(got == (v & 0xff));
		break;
	case 2:
		got = pit_read(p, PORT_PIT_CH0 + ch);
		CHECK(got == v >> 8);
		break;
	default:
		got = pit_read(p, PORT_PIT_CH0 + ch);
		got |= pit_read(p, PORT_PIT_CH0 + ch) << 8;
		CHECK(got == v);
	}
	CHECK(!c->latch_left);
}

/* "Read-Back Command": the status byte */
static void op_status(struct pit *p, unsigned ch)
{
	struct pit_channel *c = &p->ch[ch];
	uint8_t st, cw = f.cw[ch], mode;
	bool out;

	if (c->status_latched)
		return;
	out = pit_out(p, ch);
	pit_write(p, PORT_PIT_CMD, PIT_SC_READBACK | PIT_RB_NO_COUNT |
		  PIT_RB_CH(ch));
	st = pit_read(p, PORT_PIT_CH0 + ch);
	CHECK(!!(st & PIT_ST_OUT) == out);
	if (!cw)
		return;
	mode = (cw >> 1) & 7;
	if (mode > 5)
		mode -= 4;
	CHECK(((st >> 1) & 7) == mode);
	CHECK((st & 0x30) == (cw & 0x30));
	CHECK((st & PIT_BCD) == (cw & PIT_BCD));
}

static void op_fire(struct pit *p)
{
	if (!f.armed)
		return;
	if (f.armed > f.now)
		f.now = f.armed;
	f.armed = 0;
	pit_timer_expired(p);
	/* the line follows OUT0 once the timer has run */
	CHECK(f.line == pit_out(p, 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data, *end = data + size;
	struct pit p;
	unsigned ch, i;
	uint8_t a, b, c;
	bool write;

	f = (typeof(f)){ .now = T0 };
	pit_init(&p, &ops, NULL);
	while (ip < end) {
		switch (*ip++ % 8) {
		case 0:
		case 1:
			write = ip[-1] % 8 == 0;
			a = arg(&ip, end);
			b = write ? arg(&ip, end) : 0;
			via_bus = a & 8;
			if (via_bus && (a & 0xb0))
				bad_access(&p, a, b, write);
			else if (write)
				op_write(&p, a, b);
			else
				port_read(&p, port_of(a));
			via_bus = false;
			break;
		case 2:
			a = arg(&ip, end);
			op_gate(&p, a % 3, arg(&ip, end) & 1);
			break;
		case 3:
			a = arg(&ip, end);
			b = arg(&ip, end);
			c = arg(&ip, end);
			f.now += (uint64_t)(a | b << 8) << (c % 24);
			break;
		case 4:
			op_fire(&p);
			break;
		case 5:
			f.armed = 0;	/* the one-shot host timer fired */
			pit_timer_expired(&p);
			CHECK(f.line == pit_out(&p, 0));
			break;
		case 6:
			a = arg(&ip, end);
			op_latch(&p, a % 3, (uint64_t)(a >> 2) << 12);
			break;
		default:
			op_status(&p, arg(&ip, end) % 3);
			break;
		}
		for (ch = 0; ch < PIT_NR_CHANNELS; ch++)
			check_channel(&p, ch);
		CHECK(f.line == p.irq_line);
		CHECK(f.armed == p.timer_deadline);
	}
	/* a periodic timer keeps firing into the future, never stalls */
	for (i = 0; i < 4 && f.armed; i++) {
		uint64_t before = f.now;

		op_fire(&p);
		CHECK(f.now > before || !f.armed || f.armed > f.now);
		for (ch = 0; ch < PIT_NR_CHANNELS; ch++)
			check_channel(&p, ch);
	}
	return 0;
}
