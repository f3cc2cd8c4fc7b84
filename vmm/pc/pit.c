// SPDX-License-Identifier: MIT
/*
 * The 8254 PIT.  Section names are those of the Intel 8254 datasheet
 * (231164): "Control Word Format", "Read Operations", "Read-Back
 * Command", "Mode 0" ... "Mode 5", "Gate".
 *
 * Time.  A channel counts from run_ns on, plus acc_ns counted before a
 * pause (gate low).  d, the clocks since the count was loaded, gives the
 * counter and OUT of each mode in closed form.  The load takes effect at
 * once, not on the next CLK edge as on the chip (one clock, 838 ns).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/pit.h"
#include "pit.h"

#define NS_PER_S	1000000000ull

static void trace(struct pit *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace(struct pit *p, const char *fmt, ...)
{
	char line[128];
	va_list ap;

	if (!p->ops->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->ops->trace(p->ctx, line);
}

static uint64_t ns_to_clocks(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * PIT_HZ / NS_PER_S);
}

/* the first ns at which @t clocks have passed */
static uint64_t clocks_to_ns(uint64_t t)
{
	return (uint64_t)(((unsigned __int128)t * NS_PER_S + PIT_HZ - 1) /
			  PIT_HZ);
}

static uint32_t modulus(const struct pit_channel *c)
{
	return c->bcd ? 10000 : 65536;
}

static uint16_t to_bcd(uint32_t v)
{
	return (v % 10) | (v / 10 % 10) << 4 | (v / 100 % 10) << 8 |
	       (v / 1000 % 10) << 12;
}

/* Digits above 9 are not BCD; the model takes them as 9. */
static uint32_t from_bcd(uint16_t v)
{
	uint32_t r = 0, mul = 1, d;
	unsigned i;

	for (i = 0; i < 4; i++, v >>= 4, mul *= 10) {
		d = v & 0xf;
		r += (d > 9 ? 9 : d) * mul;
	}
	return r;
}

static uint64_t now(struct pit *p)
{
	return p->ops->now_ns(p->ctx);
}

static uint64_t clocks(const struct pit_channel *c, uint64_t t)
{
	return ns_to_clocks(c->acc_ns + (c->paused ? 0 : t - c->run_ns));
}

/* ---- the modes in closed form ---- */

/* LAB pit: begin
 * value_at(): the count channel @c shows @d input clocks after it was
 * loaded with c->n (its modulus(c): 0 means 0x10000, or 10000 in BCD).
 * Read the 82C54 datasheet's mode descriptions: "Mode 0" and the other
 * one-shots count down by one and wrap; "Mode 2" (rate generator) goes
 * N ... 1 and reloads; "Mode 3" (square wave) counts down by two, twice
 * per period, and an odd N differs between the halves.  Before the
 * count is loaded (!c->loaded) the counter shows what was written
 * (c->cr_n).  out_at(): the OUT pin at the same moment, per mode (the
 * datasheet's waveforms): what the status byte's bit 7 and port 0x61's
 * bit 5 (channel 2) show, and what a guest calibrating against the PIT
 * polls.  Graded by pit/mode*, pit/counter_latch and PIT calibration.
 * stub: static uint32_t value_at(const struct pit_channel *c, uint64_t d)
 * stub: {
 * stub: 	(void)c;
 * stub: 	(void)d;
 * stub: 	return 0;
 * stub: }
 * stub:
 * stub: static bool out_at(const struct pit_channel *c, uint64_t d)
 * stub: {
 * stub: 	(void)c;
 * stub: 	(void)d;
 * stub: 	return false;
 * stub: }
 */
/* "Mode 3": even N counts down by 2 twice; odd N high (N+1)/2, low (N-1)/2 */
static uint32_t mode3_value(uint32_t n, uint64_t d)
{
	uint32_t p = d % n, hi = (n + 1) / 2;

	if (!(n & 1))
		return n - 2 * (p % (n / 2));
	if (p < hi)		/* high half: N, then -1, then -2s */
		return p ? n + 1 - 2 * p : n;
	p -= hi;		/* low half: N again, then -3, then -2s */
	return p ? n - 1 - 2 * p : n;
}

static uint32_t value_at(const struct pit_channel *c, uint64_t d)
{
	uint32_t m = modulus(c);

	if (!c->loaded)
		return c->cr_n % m;
	switch (c->mode) {
	case 2:
		return (c->n - d % c->n) % m;
	case 3:
		return mode3_value(c->n, d) % m;
	default:	/* 0, 1, 4, 5: down by one, wrapping */
		return (uint32_t)((c->n + m - d % m) % m);
	}
}

/* OUT, @d input clocks after the load */
static bool out_at(const struct pit_channel *c, uint64_t d)
{
	if (!c->loaded)
		return c->mode != 0;	/* "Mode 0": OUT low after the CW */
	switch (c->mode) {
	case 0:		/* high at terminal count, until reprogrammed */
	case 1:		/* low from the trigger to terminal count */
		return d >= c->n;
	case 2:		/* low for the one clock where the count is 1 */
		return !c->gate || d % c->n != c->n - 1;
	case 3:
		return !c->gate || d % c->n < (c->n + 1) / 2;
	default:	/* 4, 5: low for one clock at count 0 */
		return d != c->n;
	}
}
/* LAB pit: end */

/* rising edges of OUT in (0, d] */
static uint64_t edges_at(const struct pit_channel *c, uint64_t d)
{
	if (!c->loaded)
		return 0;
	switch (c->mode) {
	case 0:
	case 1:
		return d >= c->n;
	case 2:
	case 3:
		return d / c->n;
	default:
		return d >= (uint64_t)c->n + 1;
	}
}

/* the clock of the next rising edge after @d, 0 if none */
static uint64_t next_edge(const struct pit_channel *c, uint64_t d)
{
	if (!c->loaded || c->paused)
		return 0;
	switch (c->mode) {
	case 0:
	case 1:
		return d < c->n ? c->n : 0;
	case 2:
	case 3:
		return (d / c->n + 1) * c->n;
	default:
		return d < (uint64_t)c->n + 1 ? c->n + 1 : 0;
	}
}

/* ---- IRQ0 ---- */

static void irq_set(struct pit *p, int level)
{
	if (level == p->irq_line)
		return;
	p->irq_line = level;
	p->ops->set_irq(p->ctx, 0, level);
}

static void timer_arm(struct pit *p, uint64_t deadline)
{
	if (deadline == p->timer_deadline)
		return;
	p->timer_deadline = deadline;
	if (deadline)
		p->stats.timer_arms++;
	p->ops->timer_arm(p->ctx, deadline);
}

/*
 * Bring IRQ0 up to OUT0 now: an edge owed since the last update is sent
 * as a 0 -> 1 pulse (several owed merge into one, as late ticks do), then
 * the line follows OUT0.  Arm the host timer for the next rising edge.
 */
static void irq_update(struct pit *p)
{
	struct pit_channel *c = &p->ch[0];
	uint64_t t = now(p), d = clocks(c, t), e = edges_at(c, d), next;

	if (e > p->irq_edges) {
		irq_set(p, 0);
		irq_set(p, 1);
		p->stats.irq0_edges++;
		p->stats.irq0_coalesced += e - p->irq_edges - 1;
		p->irq_edges = e;
	}
	irq_set(p, out_at(c, d));
	next = next_edge(c, d);
	if (!next) {
		timer_arm(p, 0);
		return;
	}
	next = c->run_ns + (clocks_to_ns(next) - c->acc_ns);
	/* a period shorter than the minimum: edges merge (KVM clamps too) */
	if ((c->mode == 2 || c->mode == 3) &&
	    clocks_to_ns(c->n) < PIT_MIN_TIMER_NS)
		next = t + PIT_MIN_TIMER_NS;
	timer_arm(p, next);
}

static void changed(struct pit *p, unsigned ch)
{
	if (ch == 0)
		irq_update(p);
}

void pit_timer_expired(struct pit *p)
{
	p->timer_deadline = 0;
	irq_update(p);
}

/* ---- programming ---- */

void pit_init(struct pit *p, const struct pit_ops *ops, void *ctx)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->ctx = ctx;
	for (i = 0; i < PIT_NR_CHANNELS; i++) {
		p->ch[i].rw = 3;
		p->ch[i].gate = i != 2;	/* channel 2: port 0x61 bit 0 */
		p->ch[i].paused = true;
		p->ch[i].cr_n = 65536;
	}
}

/* The counting element takes N from the CR and starts (or restarts). */
static void start(struct pit_channel *c, uint64_t t)
{
	c->n = c->cr_n;
	c->loaded = true;
	c->armed = false;
	c->null_count = false;
	c->acc_ns = 0;
	c->run_ns = t;
	c->paused = !c->gate && c->mode != 1 && c->mode != 5;
}

static void restart_epoch(struct pit *p, unsigned ch)
{
	if (ch == 0)
		p->irq_edges = 0;
}

/* A whole count is in the CR ("Write Operations", each mode's text). */
static void count_written(struct pit *p, unsigned ch, uint64_t t)
{
	struct pit_channel *c = &p->ch[ch];

	c->cr_n = c->bcd ? from_bcd(c->cr) : c->cr;
	if (!c->cr_n)
		c->cr_n = modulus(c);
	c->null_count = true;
	if (c->mode == 1 || c->mode == 5) {
		c->armed = true;	/* loaded by the next gate trigger */
	} else {
		/* modes 2, 3 take a new count at once, as KVM and QEMU */
		start(c, t);
		restart_epoch(p, ch);
	}
	trace(p, "pit: ch%u mode %u count %u%s", ch, c->mode, c->cr_n,
	      c->armed ? " (waits for the gate)" : "");
}

static void write_count(struct pit *p, unsigned ch, uint8_t val)
{
	struct pit_channel *c = &p->ch[ch];
	uint64_t t = now(p);

	switch (c->rw) {
	case 1:
		c->cr = val;
		break;
	case 2:
		c->cr = (uint16_t)val << 8;
		break;
	default:
		if (!c->wr_msb) {
			c->wr_lsb = val;
			c->wr_msb = true;
			/* "Mode 0": the first byte stops the count, OUT low */
			if (c->mode == 0 && c->loaded) {
				c->loaded = false;
				c->paused = true;
				changed(p, ch);
			}
			return;
		}
		c->wr_msb = false;
		c->cr = c->wr_lsb | (uint16_t)val << 8;
		break;
	}
	count_written(p, ch, t);
	changed(p, ch);
}

static uint8_t status_of(struct pit_channel *c, uint64_t t)
{
	return (out_at(c, clocks(c, t)) ? PIT_ST_OUT : 0) |
	       (c->null_count ? PIT_ST_NULL : 0) | c->rw << 4 |
	       c->mode << 1 | (c->bcd ? PIT_BCD : 0);
}

/* "Counter Latch Command": a second latch before the read is ignored */
static void latch_count(struct pit_channel *c, uint64_t t)
{
	/* LAB pit: begin
	 * The Counter Latch Command (82C54 datasheet): the count of this
	 * moment, value_at(c, clocks(c, t)), is held in c->latch (in BCD if
	 * c->bcd: to_bcd()) until read; c->latch_left says how many bytes
	 * are still to be read: 2 when c->rw is LSB-then-MSB (3), else 1.
	 * A second latch command before the first is read is ignored.
	 * read_counter() below hands the latch out.  Graded by
	 * pit/counter_latch, pit/read_back_with_status and PIT calibration.
	 * stub: (void)c;
	 * stub: (void)t;
	 * stub: (void)to_bcd;
	 */
	uint32_t v;

	if (c->latch_left)
		return;
	v = value_at(c, clocks(c, t));
	c->latch = c->bcd ? to_bcd(v) : v;
	c->latch_left = c->rw == 3 ? 2 : 1;
	/* LAB pit: end */
}

static void readback(struct pit *p, uint8_t val, uint64_t t)
{
	struct pit_channel *c;
	unsigned i;

	for (i = 0; i < PIT_NR_CHANNELS; i++) {
		if (!(val & PIT_RB_CH(i)))
			continue;
		c = &p->ch[i];
		if (!(val & PIT_RB_NO_COUNT))
			latch_count(c, t);
		if (!(val & PIT_RB_NO_STATUS) && !c->status_latched) {
			c->status = status_of(c, t);
			c->status_latched = true;
		}
	}
}

static void control_word(struct pit *p, uint8_t val)
{
	unsigned ch = val >> PIT_SC_SHIFT;
	uint8_t rw = (val >> PIT_RW_SHIFT) & 3, mode = (val >> 1) & 7;
	uint64_t t = now(p);
	struct pit_channel *c;

	if (ch == 3) {
		readback(p, val, t);
		return;
	}
	c = &p->ch[ch];
	if (!rw) {
		latch_count(c, t);
		return;
	}
	/* "Control Word Format": modes 6 and 7 are 2 and 3 */
	c->mode = mode > 5 ? mode - 4 : mode;
	c->rw = rw;
	c->bcd = val & PIT_BCD;
	c->loaded = false;
	c->armed = false;
	c->paused = true;
	c->null_count = true;
	c->wr_msb = false;
	c->rd_msb = false;
	c->latch_left = 0;
	c->status_latched = false;
	restart_epoch(p, ch);
	trace(p, "pit: ch%u control 0x%02x: mode %u rw %u%s", ch, val,
	      c->mode, rw, c->bcd ? " bcd" : "");
	changed(p, ch);
}

static uint8_t read_counter(struct pit *p, unsigned ch)
{
	struct pit_channel *c = &p->ch[ch];
	uint32_t v;
	bool msb;

	if (c->status_latched) {	/* "Read-Back": status comes first */
		c->status_latched = false;
		return c->status;
	}
	if (c->latch_left) {
		msb = c->rw == 2 || (c->rw == 3 && c->latch_left == 1);
		c->latch_left--;
		return msb ? c->latch >> 8 : c->latch & 0xff;
	}
	v = value_at(c, clocks(c, now(p)));
	if (c->bcd)
		v = to_bcd(v);
	if (c->rw == 3) {
		msb = c->rd_msb;
		c->rd_msb = !c->rd_msb;
	} else {
		msb = c->rw == 2;
	}
	return msb ? (v >> 8) & 0xff : v & 0xff;
}

void pit_set_gate(struct pit *p, unsigned ch, bool level)
{
	struct pit_channel *c;
	uint64_t t;

	if (ch >= PIT_NR_CHANNELS || level == p->ch[ch].gate)
		return;
	c = &p->ch[ch];
	t = now(p);
	c->gate = level;
	if (level) {
		/* "Gate": a rising edge triggers modes 1, 5 and reloads 2, 3 */
		if (((c->mode == 1 || c->mode == 5) && (c->armed || c->loaded)) ||
		    ((c->mode == 2 || c->mode == 3) && c->loaded)) {
			start(c, t);
			restart_epoch(p, ch);
		} else if (c->loaded && c->paused) {
			c->run_ns = t;	/* modes 0, 4 go on */
			c->paused = false;
		}
	} else if (c->loaded && !c->paused && c->mode != 1 && c->mode != 5) {
		c->acc_ns += t - c->run_ns;	/* the count holds */
		c->paused = true;
	}
	changed(p, ch);
}

/* ---- ports ---- */

uint8_t pit_read(struct pit *p, uint16_t port)
{
	uint64_t t;
	uint8_t v;

	switch (port) {
	case PORT_PIT_CH0:
	case PORT_PIT_CH1:
	case PORT_PIT_CH2:
		return read_counter(p, port - PORT_PIT_CH0);
	case PORT_SYS_CTRL_B:
		t = now(p);
		v = p->port61 & 0xf;
		if ((t / PIT_REFRESH_NS) & 1)
			v |= SYS_B_REFRESH;
		if (out_at(&p->ch[2], clocks(&p->ch[2], t)))
			v |= SYS_B_OUT2;
		return v;
	default:	/* 0x43 is write-only: no data drives the bus */
		return 0xff;
	}
}

void pit_write(struct pit *p, uint16_t port, uint8_t val)
{
	switch (port) {
	case PORT_PIT_CH0:
	case PORT_PIT_CH1:
	case PORT_PIT_CH2:
		write_count(p, port - PORT_PIT_CH0, val);
		return;
	case PORT_PIT_CMD:
		control_word(p, val);
		return;
	case PORT_SYS_CTRL_B:
		/* bits 0-3 are written; 4-7 are status, read-only */
		p->port61 = val & 0xf;
		pit_set_gate(p, 2, val & SYS_B_GATE2);
		return;
	default:
		p->stats.bad_accesses++;
	}
}

uint16_t pit_count(struct pit *p, unsigned ch)
{
	struct pit_channel *c = &p->ch[ch % PIT_NR_CHANNELS];
	uint32_t v = value_at(c, clocks(c, now(p)));

	return c->bcd ? to_bcd(v) : v;
}

bool pit_out(struct pit *p, unsigned ch)
{
	struct pit_channel *c = &p->ch[ch % PIT_NR_CHANNELS];

	return out_at(c, clocks(c, now(p)));
}

uint64_t pit_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct pit *p = opaque;

	(void)cpu;
	if (size != 1 || off > 3) {
		p->stats.bad_accesses++;
		return ~0ull;
	}
	return pit_read(p, PORT_PIT_CH0 + off);
}

void pit_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu)
{
	struct pit *p = opaque;

	(void)cpu;
	if (size != 1 || off > 3) {
		p->stats.bad_accesses++;
		return;
	}
	pit_write(p, PORT_PIT_CH0 + off, val);
}

uint64_t port61_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct pit *p = opaque;

	(void)cpu;
	if (size != 1 || off) {
		p->stats.bad_accesses++;
		return ~0ull;
	}
	return pit_read(p, PORT_SYS_CTRL_B);
}

void port61_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu)
{
	struct pit *p = opaque;

	(void)cpu;
	if (size != 1 || off) {
		p->stats.bad_accesses++;
		return;
	}
	pit_write(p, PORT_SYS_CTRL_B, val);
}
