// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the HPET (vmm/pc/hpet.c) against a fake clock.  The
 * input is a list of operations, one opcode byte each (taken mod 6) and
 * its argument bytes; a missing argument reads as 0:
 *
 *	0 reg sz v0..v7	write: offset reg * 4 (reg & 0x80: reg * 4 + 1,
 *			misaligned), sz % 4 picks 8, 4, 2 or 1 bytes, v the
 *			value, little-endian
 *	1 reg sz	read, the same offsets and widths
 *	2 n kind v	timer n % 3: kind % 4 = 0 its configuration (v's
 *			bits into INT_TYPE, INT_ENB, TYPE, VAL_SET, 32MODE
 *			and a route 20-23 or another), 1 its comparator, 2
 *			enable or halt the counter, 3 legacy replacement
 *	3 lo hi sh	advance the clock (lo | hi << 8) << (sh % 40) ns
 *	4		the host timer fires: the clock moves to the deadline
 *	5		the host timer fires early: hpet_timer_expired() now
 *
 * Invariants (IA-PC HPET 1.0a), abort() on violation:
 * - a bus access not 4 or 8 bytes, misaligned or past the block counts
 *   one bad access, reads all ones and changes nothing;
 * - GCAP_ID never changes; the read-only bits of each Tn_CONF stay;
 * - a host timer is armed in the future or not at all after an expiry,
 *   and an expiry raises nothing on a halted counter;
 * - lines: only GSI 20-23 routed, ISA 0 and 8 raised only under legacy
 *   replacement; a line is high between operations exactly while a
 *   timer holds it, a timer holds one only with its status bit set, and
 *   an edge timer has no status bit;
 * - the counter does not move while halted and does not go back while
 *   it runs (unless written), but for its wrap at 2^64;
 * - a 32-bit timer's comparator has nothing above bit 31.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc/hpet.h"

#define T0	1000000000ull

static struct {
	uint64_t now, armed;
	int gsi[24], isa[16];
	bool legacy;
} f;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_hpet: %s:%d: %s\n", __FILE__, __LINE__, \
			#cond); \
		abort(); \
	} \
} while (0)

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return f.now;
}

static void fake_gsi(void *ctx, unsigned gsi, int level)
{
	(void)ctx;
	CHECK(gsi >= 20 && gsi <= 23);
	f.gsi[gsi] = level;
}

static void fake_isa(void *ctx, unsigned irq, int level)
{
	(void)ctx;
	CHECK(irq == 0 || irq == 8);
	CHECK(f.legacy || !level);
	f.isa[irq] = level;
}

static void fake_legacy(void *ctx, bool on)
{
	(void)ctx;
	f.legacy = on;
}

static void fake_arm(void *ctx, uint64_t deadline)
{
	(void)ctx;
	f.armed = deadline;
}

static const struct hpet_ops ops = {
	.now_ns = fake_now, .set_gsi = fake_gsi, .set_isa = fake_isa,
	.legacy = fake_legacy, .timer_arm = fake_arm,
};

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

static const unsigned sizes[4] = { 8, 4, 2, 1 };

static bool bad(uint64_t off, unsigned size)
{
	return (size != 4 && size != 8) || (off & (size - 1)) ||
	       off + size > HPET_LEN;
}

static void check(struct hpet *h, uint64_t cap, const uint64_t *ro)
{
	const uint64_t ro_mask = HPET_TN_PER_INT_CAP | HPET_TN_SIZE_CAP |
				 HPET_TN_FSB_CAP | ~0xffffffffull;
	int want_gsi[24] = { 0 }, want_isa[16] = { 0 };
	unsigned n;

	CHECK(hpet_bus_read(h, HPET_GCAP_ID, 8, 0) == cap);
	for (n = 0; n < HPET_TIMERS; n++) {
		const struct hpet_timer *t = &h->t[n];

		CHECK((t->conf & ro_mask) == ro[n]);
		if (t->conf & HPET_TN_32MODE)
			CHECK(t->cmp <= 0xffffffffull);
		if (!(t->conf & HPET_TN_INT_TYPE))
			CHECK(!(h->isr & (1ull << n)) && t->line < 0);
		if ((t->conf & HPET_TN_INT_TYPE) &&
		    (t->conf & HPET_TN_INT_ENB) && (h->isr & (1ull << n)) &&
		    ((n < 2 && (h->conf & HPET_CONF_LEG_RT)) ||
		     (t->conf & HPET_TN_ROUTE_MASK)))
			CHECK(t->line >= 0);
		if (t->line >= 0) {
			CHECK(h->isr & (1ull << n));
			if (t->line_isa)
				want_isa[t->line] = 1;
			else
				want_gsi[t->line] = 1;
		}
	}
	CHECK(!(h->isr & ~7ull));
	CHECK(!memcmp(want_gsi, f.gsi, sizeof(want_gsi)));
	CHECK(!memcmp(want_isa, f.isa, sizeof(want_isa)));
}

static void route_bits(uint8_t v, uint64_t *conf)
{
	unsigned r = v & 0x80 ? (v >> 4) & 7 : 20 + ((v >> 4) & 3);

	*conf = (v & 1 ? HPET_TN_INT_TYPE : 0) | (v & 2 ? HPET_TN_INT_ENB : 0) |
		(v & 4 ? HPET_TN_TYPE : 0) | (v & 8 ? HPET_TN_VAL_SET : 0) |
		(v & 0x40 ? HPET_TN_32MODE : 0) |
		(uint64_t)r << HPET_TN_ROUTE_SHIFT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hpet h;
	const uint8_t *p = data, *end = data + size;
	uint64_t cap, ro[HPET_TIMERS], before, after, conf;
	unsigned n, i, sz;

	memset(&f, 0, sizeof(f));
	f.now = T0;
	hpet_init(&h, &ops, NULL);
	cap = hpet_bus_read(&h, HPET_GCAP_ID, 8, 0);
	for (n = 0; n < HPET_TIMERS; n++)
		ro[n] = h.t[n].conf & (HPET_TN_PER_INT_CAP | HPET_TN_SIZE_CAP |
				       HPET_TN_FSB_CAP | ~0xffffffffull);
	while (p < end) {
		uint8_t op = arg(&p, end) % 6, reg = 0, s = 0;
		uint64_t off = 0, v = 0, nbad = h.stats.bad_accesses;
		bool wrote_cnt = false;

		before = hpet_counter(&h);
		if (op <= 1) {
			reg = arg(&p, end);
			s = arg(&p, end);
			off = (uint64_t)(reg & 0x7f) * 8 + (reg & 0x80 ? 1 : 0);
			off += (s & 4) ? 4 : 0;
			sz = sizes[s % 4];
		}
		switch (op) {
		case 0:
			for (i = 0; i < 8; i++)
				v |= (uint64_t)arg(&p, end) << (8 * i);
			wrote_cnt = (off & ~7ull) == HPET_MAIN_CNT;
			hpet_bus_write(&h, off, sz, v, 0);
			if (bad(off, sz))
				CHECK(h.stats.bad_accesses == nbad + 1);
			break;
		case 1:
			v = hpet_bus_read(&h, off, sz, 0);
			if (bad(off, sz)) {
				CHECK(v == ~0ull);
				CHECK(h.stats.bad_accesses == nbad + 1);
			} else if (sz == 4) {
				CHECK(v <= 0xffffffffull);
			}
			break;
		case 2:
			n = arg(&p, end) % HPET_TIMERS;
			s = arg(&p, end);
			reg = arg(&p, end);
			switch (s % 4) {
			case 0:
				route_bits(reg, &conf);
				hpet_bus_write(&h, HPET_TN_CONF(n), 8, conf, 0);
				break;
			case 1:
				v = hpet_counter(&h) + ((uint64_t)reg << (s >> 2));
				hpet_bus_write(&h, HPET_TN_CMP(n), 8, v, 0);
				break;
			case 2:
				hpet_bus_write(&h, HPET_GEN_CONF, 8,
					       (h.conf & HPET_CONF_LEG_RT) |
					       (reg & 1), 0);
				break;
			default:
				hpet_bus_write(&h, HPET_GEN_CONF, 8,
					       (h.conf & HPET_CONF_ENABLE) |
					       (reg & 1 ? HPET_CONF_LEG_RT : 0),
					       0);
				break;
			}
			break;
		case 3: {
			uint64_t lo = arg(&p, end), hi = arg(&p, end);

			f.now += (lo | hi << 8) << (arg(&p, end) % 40);
			break;
		}
		case 4:
			if (f.armed > f.now)
				f.now = f.armed;
			/* fall through */
		default: {
			uint64_t irqs = h.stats.irqs[0] + h.stats.irqs[1] +
					h.stats.irqs[2];

			f.armed = 0;
			hpet_timer_expired(&h);
			CHECK(f.armed == 0 || f.armed > f.now);
			if (!(h.conf & HPET_CONF_ENABLE))
				CHECK(irqs == h.stats.irqs[0] +
				      h.stats.irqs[1] + h.stats.irqs[2]);
			break;
		}
		}
		after = hpet_counter(&h);
		if (!wrote_cnt) {
			if (h.conf & HPET_CONF_ENABLE)	/* or wrapped */
				CHECK(after >= before ||
				      (before >> 63 && !(after >> 63)));
			else if (!(op == 2 && (s % 4) == 2))
				CHECK(after == before);
		}
		check(&h, cap, ro);
	}
	return 0;
}
