// SPDX-License-Identifier: MIT
/* The 8254 PIT and port 0x61 against a fake clock. */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/pit.h"
#include "pc/pit.h"

#define T0	1000000000ull

static struct pit pit;
static struct {
	uint64_t now;
	int line;
	unsigned rises, falls;
	uint64_t armed;
	unsigned arms, ntrace;
} f;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return f.now;
}

static void fake_set_irq(void *ctx, unsigned line, int level)
{
	(void)ctx;
	cr_assert_eq(line, 0);
	cr_assert_neq(level, f.line, "set_irq only on a change");
	if (level)
		f.rises++;
	else
		f.falls++;
	f.line = level;
}

static void fake_timer_arm(void *ctx, uint64_t deadline)
{
	(void)ctx;
	f.armed = deadline;
	f.arms++;
}

static void fake_trace(void *ctx, const char *line)
{
	(void)ctx;
	cr_assert(line[0]);
	f.ntrace++;
}

static const struct pit_ops ops = {
	.now_ns = fake_now,
	.set_irq = fake_set_irq,
	.timer_arm = fake_timer_arm,
	.trace = fake_trace,
};

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	f.now = T0;
	pit_init(&pit, &ops, NULL);
}

TestSuite(pit, .init = setup);

/* the first ns at which @k clocks have passed since T0 */
static uint64_t ns_of(uint64_t k)
{
	return (k * 1000000000ull + PIT_HZ - 1) / PIT_HZ;
}

static void at(uint64_t k)
{
	f.now = T0 + ns_of(k);
}

static void program(unsigned ch, unsigned mode, uint16_t count)
{
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(ch) | PIT_RW_BOTH | PIT_MODE(mode));
	pit_write(&pit, PORT_PIT_CH0 + ch, count & 0xff);
	pit_write(&pit, PORT_PIT_CH0 + ch, count >> 8);
}

static uint16_t read16(unsigned ch)
{
	uint16_t lo = pit_read(&pit, PORT_PIT_CH0 + ch);

	return lo | pit_read(&pit, PORT_PIT_CH0 + ch) << 8;
}

static void gate2(bool on)
{
	pit_write(&pit, PORT_SYS_CTRL_B, on ? SYS_B_GATE2 : 0);
}

struct point {
	uint64_t d;
	uint16_t count;
	bool out;
};

static void expect(unsigned ch, const struct point *pts, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		at(pts[i].d);
		cr_assert_eq(read16(ch), pts[i].count, "d=%lu: count %u",
			     (unsigned long)pts[i].d, read16(ch));
		cr_assert_eq(pit_out(&pit, ch), pts[i].out, "d=%lu: OUT",
			     (unsigned long)pts[i].d);
	}
}

Test(pit, mode0_interrupt_on_terminal_count)
{
	static const struct point pts[] = {
		{ 0, 100, 0 }, { 1, 99, 0 }, { 50, 50, 0 }, { 99, 1, 0 },
		{ 100, 0, 1 }, { 101, 0xffff, 1 }, { 100 + 65536, 0, 1 },
	};

	gate2(true);
	program(2, 0, 100);
	expect(2, pts, 7);
}

Test(pit, mode0_first_byte_stops_the_count)
{
	gate2(true);
	program(2, 0, 100);
	at(100);
	cr_assert(pit_out(&pit, 2));
	pit_write(&pit, PORT_PIT_CH2, 50);
	cr_assert_not(pit_out(&pit, 2), "OUT low at once");
	at(500);
	cr_assert_not(pit_out(&pit, 2));
	pit_write(&pit, PORT_PIT_CH2, 0);
	at(500 + 49);
	cr_assert_eq(read16(2), 1);
	at(500 + 50);
	cr_assert(pit_out(&pit, 2));
}

Test(pit, mode1_retriggerable_one_shot)
{
	static const struct point pts[] = {
		{ 0, 50, 0 }, { 49, 1, 0 }, { 50, 0, 1 }, { 60, 0xfff6, 1 },
	};

	program(2, 1, 50);
	cr_assert(pit_out(&pit, 2), "high until triggered");
	at(1000);
	cr_assert(pit_out(&pit, 2), "no gate edge, no count");
	f.now = T0;
	gate2(true);			/* the trigger */
	expect(2, pts, 4);
	/* retrigger in the middle: a fresh 50 */
	gate2(false);
	at(100);
	gate2(true);
	f.now = T0 + ns_of(100) + ns_of(49);
	cr_assert_not(pit_out(&pit, 2));
	f.now = T0 + ns_of(100) + ns_of(51);
	cr_assert(pit_out(&pit, 2));
}

Test(pit, mode2_rate_generator)
{
	static const struct point pts[] = {
		{ 0, 10, 1 }, { 1, 9, 1 }, { 8, 2, 1 }, { 9, 1, 0 },
		{ 10, 10, 1 }, { 19, 1, 0 }, { 20, 10, 1 }, { 10005, 5, 1 },
	};

	gate2(true);
	program(2, 2, 10);
	expect(2, pts, 8);
}

Test(pit, mode3_square_wave_even_and_odd)
{
	static const struct point even[] = {
		{ 0, 10, 1 }, { 1, 8, 1 }, { 4, 2, 1 }, { 5, 10, 0 },
		{ 6, 8, 0 }, { 9, 2, 0 }, { 10, 10, 1 }, { 15, 10, 0 },
	};
	/* odd N: high (N+1)/2 clocks: N, N-1, N-3; low: N, N-3 */
	static const struct point odd[] = {
		{ 0, 5, 1 }, { 1, 4, 1 }, { 2, 2, 1 }, { 3, 5, 0 },
		{ 4, 2, 0 }, { 5, 5, 1 },
	};

	gate2(true);
	program(2, 3, 10);
	expect(2, even, 8);
	f.now = T0;
	program(2, 7, 5);		/* mode 7 is mode 3 */
	expect(2, odd, 6);
	cr_assert_eq(pit.ch[2].mode, 3);
}

Test(pit, mode4_software_strobe)
{
	static const struct point pts[] = {
		{ 0, 10, 1 }, { 9, 1, 1 }, { 10, 0, 0 }, { 11, 0xffff, 1 },
		{ 10 + 65536, 0, 1 },
	};

	gate2(true);
	program(2, 4, 10);
	expect(2, pts, 5);
}

Test(pit, mode5_hardware_strobe)
{
	static const struct point pts[] = {
		{ 0, 10, 1 }, { 10, 0, 0 }, { 11, 0xffff, 1 },
	};

	program(2, 5, 10);
	at(20);
	cr_assert(pit_out(&pit, 2));
	f.now = T0;
	gate2(true);
	expect(2, pts, 3);
}

Test(pit, gate_pauses_modes_0_and_4_and_reloads_2_and_3)
{
	gate2(true);
	program(2, 0, 100);
	at(30);
	gate2(false);
	at(80);
	cr_assert_eq(read16(2), 70, "held while the gate is low");
	gate2(true);
	f.now = T0 + ns_of(80) + ns_of(70);
	cr_assert_eq(read16(2), 0);
	cr_assert(pit_out(&pit, 2));

	f.now = T0;
	program(2, 2, 10);
	at(9);
	cr_assert_not(pit_out(&pit, 2));
	gate2(false);
	cr_assert(pit_out(&pit, 2), "gate low forces OUT high");
	at(15);
	gate2(true);			/* reload */
	f.now = T0 + ns_of(15) + ns_of(3);
	cr_assert_eq(read16(2), 7);
}

Test(pit, counter_latch)
{
	gate2(true);
	program(2, 0, 1000);
	at(10);
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(2) | PIT_RW_LATCH);
	at(500);
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(2) | PIT_RW_LATCH);	/* ignored */
	cr_assert_eq(read16(2), 990, "the first latch holds");
	cr_assert_eq(read16(2), 500, "then live again");
	/* LSB-only and MSB-only access */
	f.now = T0;
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(2) | PIT_RW_MSB | PIT_MODE(0));
	pit_write(&pit, PORT_PIT_CH2, 0x12);
	at(0x100);
	cr_assert_eq(pit_read(&pit, PORT_PIT_CH2), 0x11);
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(2) | PIT_RW_LSB | PIT_MODE(0));
	f.now = T0;
	pit_write(&pit, PORT_PIT_CH2, 0x80);
	at(0x10);
	cr_assert_eq(pit_read(&pit, PORT_PIT_CH2), 0x70);
	cr_assert_eq(pit_read(&pit, PORT_PIT_CH2), 0x70, "no flip-flop");
}

Test(pit, read_back_with_status)
{
	uint8_t st;

	pit_write(&pit, PORT_PIT_CMD, PIT_SC(1) | PIT_RW_BOTH | PIT_MODE(2) | PIT_BCD);
	pit_write(&pit, PORT_PIT_CMD, PIT_SC_READBACK | PIT_RB_NO_COUNT | PIT_RB_CH(1));
	st = pit_read(&pit, PORT_PIT_CH1);
	cr_assert_eq(st, PIT_ST_OUT | PIT_ST_NULL | PIT_RW_BOTH | PIT_MODE(2) | PIT_BCD,
		     "status 0x%x", st);
	pit_write(&pit, PORT_PIT_CH1, 0x00);
	pit_write(&pit, PORT_PIT_CH1, 0x10);	/* BCD 1000 */
	at(1);
	/* both: status first, then the count, latched together */
	pit_write(&pit, PORT_PIT_CMD, PIT_SC_READBACK | PIT_RB_CH(1) | PIT_RB_CH(0));
	at(300);
	st = pit_read(&pit, PORT_PIT_CH1);
	cr_assert_eq(st & PIT_ST_NULL, 0, "the count is loaded");
	cr_assert(st & PIT_ST_OUT);
	cr_assert_eq(read16(1), 0x0999, "BCD 999 latched at d=1");
	cr_assert_eq(read16(1), 0x0700, "live BCD 700");
	/* channel 0 was latched too: its power-on state, mode 0, OUT low */
	st = pit_read(&pit, PORT_PIT_CH0);
	cr_assert_eq(st, PIT_RW_BOTH, "status 0x%x", st);
}

Test(pit, port61_bits)
{
	uint8_t v;

	pit_write(&pit, PORT_SYS_CTRL_B, 0xff);
	v = pit_read(&pit, PORT_SYS_CTRL_B);
	cr_assert_eq(v & 0xf, 0xf, "bits 0-3 as written");
	cr_assert_eq(v & 0xc0, 0, "status bits 6-7 stay clear");
	/* bit 4 toggles every 15.085 us */
	f.now = 10 * PIT_REFRESH_NS;
	cr_assert_eq(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_REFRESH, 0);
	f.now += PIT_REFRESH_NS;
	cr_assert(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_REFRESH);
	f.now += PIT_REFRESH_NS;
	cr_assert_eq(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_REFRESH, 0);
	/* bit 5 is OUT2: the classic calibration loop, mode 0 on channel 2 */
	f.now = T0;
	pit_write(&pit, PORT_SYS_CTRL_B, SYS_B_SPKR);	/* gate off */
	program(2, 0, 1193);
	cr_assert_eq(pit_read(&pit, PORT_SYS_CTRL_B) & ~SYS_B_REFRESH, SYS_B_SPKR);
	at(5000);
	cr_assert_eq(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_OUT2, 0,
		     "gate low: not counting");
	f.now = T0;
	pit_write(&pit, PORT_SYS_CTRL_B, SYS_B_GATE2);
	at(1192);
	cr_assert_eq(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_OUT2, 0);
	at(1193);
	cr_assert(pit_read(&pit, PORT_SYS_CTRL_B) & SYS_B_OUT2);
}

Test(pit, irq0_periodic_with_a_host_timer)
{
	const uint16_t n = 11932;	/* 10 ms */

	program(0, 2, n);
	cr_assert_eq(f.line, 1, "mode 2: OUT high");
	cr_assert_eq(f.armed, T0 + ns_of(n));
	f.now = f.armed;
	pit_timer_expired(&pit);
	cr_assert_eq(f.rises, 2, "a fresh edge: 0 then 1");
	cr_assert_eq(f.line, 1);
	cr_assert_eq(f.armed, T0 + ns_of(2 * n));
	cr_assert_eq(pit.stats.irq0_edges, 1);
	f.now = T0 + ns_of(5 * n) + 100;	/* late by 3 periods */
	pit_timer_expired(&pit);
	cr_assert_eq(pit.stats.irq0_edges, 2);
	cr_assert_eq(pit.stats.irq0_coalesced, 3, "edges 3, 4, 5 merged");
	cr_assert_eq(f.armed, T0 + ns_of(6 * n));
	f.now = T0 + ns_of(6 * n) - 1;		/* early: nothing */
	pit_timer_expired(&pit);
	cr_assert_eq(pit.stats.irq0_edges, 2);
	cr_assert_eq(f.armed, T0 + ns_of(6 * n));
}

Test(pit, irq0_one_shot_mode0)
{
	program(0, 0, 1193);
	cr_assert_eq(f.line, 0);
	cr_assert_eq(f.armed, T0 + ns_of(1193));
	f.now = f.armed;
	pit_timer_expired(&pit);
	cr_assert_eq(f.line, 1);
	cr_assert_eq(f.rises, 1);
	cr_assert_eq(pit.timer_deadline, 0, "one-shot: no more timer");
	cr_assert_eq(f.arms, 1);
	f.now += 1000000000;
	pit_timer_expired(&pit);
	cr_assert_eq(f.rises, 1);
	/* a new control word drops OUT, a new count re-arms */
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(0) | PIT_RW_LSB | PIT_MODE(0));
	cr_assert_eq(f.line, 0);
	pit_write(&pit, PORT_PIT_CH0, 0);	/* 0 is 65536 */
	cr_assert_eq(f.armed, f.now + ns_of(65536));
	cr_assert_gt(f.ntrace, 0);
}

Test(pit, hostile_programming)
{
	/* count 1 in mode 2 would be a 1.19 MHz timer: clamped */
	program(0, 2, 1);
	cr_assert_geq(f.armed, f.now + PIT_MIN_TIMER_NS);
	f.now = f.armed;
	pit_timer_expired(&pit);
	cr_assert_geq(f.armed, f.now + PIT_MIN_TIMER_NS);
	/* non-BCD digits in BCD mode: taken as 9 */
	pit_write(&pit, PORT_PIT_CMD, PIT_SC(1) | PIT_RW_BOTH | PIT_MODE(4) | PIT_BCD);
	pit_write(&pit, PORT_PIT_CH1, 0xff);
	pit_write(&pit, PORT_PIT_CH1, 0xff);
	cr_assert_eq(pit.ch[1].n, 9999);
	/* widths other than a byte, 0x43 reads */
	cr_assert_eq(pit_bus_read(&pit, 0, 2, 0), ~0ull);
	pit_bus_write(&pit, 0, 4, 0x34, 0);
	cr_assert_eq(port61_bus_read(&pit, 0, 2, 0), ~0ull);
	port61_bus_write(&pit, 1, 1, 0, 0);
	cr_assert_eq(pit_bus_read(&pit, 3, 1, 0), 0xff);
	cr_assert_eq(pit.stats.bad_accesses, 4);
	pit_write(&pit, 0x44, 0);
	cr_assert_eq(pit.stats.bad_accesses, 5);
	cr_assert_eq(pit_read(&pit, 0x44), 0xff);
	pit_set_gate(&pit, 7, true);		/* no such channel */
}
