// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: two local APICs (vmm/apic/) on one APIC bus, driven
 * by MMIO and MSR accesses, ICR sends between them, interrupt acks, EOIs
 * and a fake clock that moves only when the input says so.
 *
 * Input: 3 config bytes, then ops.
 *   byte 0, 1	the initial APIC IDs of CPU 0 (the BSP) and CPU 1
 *   byte 2	bit 0: CPUID has x2APIC; bit 1: TSC-deadline (tsc_khz =
 *		1000 * (1 + bits 5:2)); bits 7:6: timer clock 1000, 1, 100,
 *		10000 MHz (--apic-mhz's range)
 * Each op: one byte, bit 7 the CPU, bits 6:0 the op (modulo OP_NR), then
 * its operands, little-endian (missing bytes read as 0):
 *   0 MMIO_WR   off:u16 size:u8 val:u32   lapic_mmio_write (size: the
 *		 low 3 bits pick 4, 4, 4, 1, 2, 8, 3, 0)
 *   1 MMIO_RD   off:u16 size:u8           lapic_mmio_read
 *   2 REG_WR    reg:u8 val:u32            MMIO write of register reg << 4
 *   3 MSR_WR    kind:u8 idx:u8 val:u64    kind % 4: 0 x2APIC 0x800 + idx,
 *		 1 IA32_APIC_BASE, 2 IA32_TSC_DEADLINE, 3 MSR idx
 *   4 MSR_RD    kind:u8 idx:u8
 *   5 CLOCK     ns:u16 shift:u8           the clock moves ns << (shift %
 *		 40), the TSC with it; due timers fire
 *   6 TIMER                               the clock jumps to the earliest
 *		 armed deadline, which fires
 *   7 INTA                                the CPU takes its pending vector
 *   8 EOI                                 EOI through the mode's interface
 *   9 ACCEPT    vec:u8 level:u8           a message from an IOAPIC
 *  10 ROUTE     vec dm flags dest:u32     apic_route() from no CPU (flags:
 *		 bit 0 logical, 1 level, 2-3 shorthand), then delivery
 *  11 CR8       val:u8                    lapic_set_cr8
 *  12 TSC       ticks:u32                 the TSC moves alone
 *  13 RESET     how:u8                    lapic_reset (odd) or INIT reset
 *  14 ICR       lo:u32 hi:u32             an ICR send in the mode's way
 *  15 SVR       vec:u8                    SVR = 0x100 | vec (enable)
 *  16 X2APIC                              IA32_APIC_BASE = EN | EXTD
 * The machine around them is the VMM's (vmm/irqchip/user.c): fixed and
 * lowest-priority IPIs are accepted, edge; NMI, INIT and SIPI set flags;
 * an INIT resets the target's APIC before its next op.
 *
 * Checked after every op, abort() on violation (docs/FUZZING.md):
 *  - registers hold only their defined bits (an index past a table in
 *    the struct would show up there; ASan sees the rest);
 *  - no vector 0-15 in IRR, ISR, TMR; none at all when hardware-disabled;
 *    every LVT masked when software-disabled;
 *  - PPR as SDM 11.8.3.1 computes it from TPR and ISR; each ISR priority
 *    class holds one vector at most (only a class above PPR is taken);
 *    lapic_pending_vector() is the highest IRR vector iff its class is
 *    above PPR's;
 *  - an EOI retires exactly the highest ISR vector and reports it to the
 *    IOAPICs iff its TMR bit is set;
 *  - TMCCT never above TMICT; a running count has a host deadline armed,
 *    the host timer is the model's deadline, a TSC deadline is armed iff
 *    the host timer is; a deadline reached fires and leaves the timer
 *    disarmed or armed strictly in the future (never armed in the past
 *    forever); an unmasked timer delivers its vector;
 *  - apic_route(): targets exist and are enabled, one at most for lowest
 *    priority, the sender for "self", never the sender for "others"; the
 *    lowest-priority winner is an enabled target with the lowest APR;
 *  - every armed deadline lies ahead of the clock;
 *  - arbitration sequence numbers never go back but on RESET.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apic/apic_bus.h"
#include "apic/lapic_internal.h"

#define NCPU		2
#define NOW0		1000000000ull
#define NOW_MAX		(1ull << 62)

enum {
	OP_MMIO_WR, OP_MMIO_RD, OP_REG_WR, OP_MSR_WR, OP_MSR_RD, OP_CLOCK,
	OP_TIMER, OP_INTA, OP_EOI, OP_ACCEPT, OP_ROUTE, OP_CR8, OP_TSC,
	OP_RESET, OP_ICR, OP_SVR, OP_X2APIC, OP_NR
};

struct cpu_flags {
	unsigned nmi, sipi;
	int init, wait_sipi;
};

static struct machine {
	uint64_t now, tsc, tsc_khz;
	uint64_t armed[NCPU];
	struct lapic apic[NCPU];
	struct lapic *cpus[NCPU];
	struct cpu_flags f[NCPU];
	int eoi_vec, eoi_calls;		/* what the last EOI reported */
	uint64_t arb_seq[NCPU];
	const uint8_t *p, *end;		/* the input not yet read */
} m;

#define check(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_lapic: invariant failed: %s (line %d)\n", \
			#cond, __LINE__); \
		abort(); \
	} \
} while (0)

static uint64_t get(unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n && m.p < m.end; i++)
		v |= (uint64_t)*m.p++ << (8 * i);
	return v;
}

/* ---- the machine around the LAPICs ---- */

static uint64_t ops_now(void *ctx)
{
	(void)ctx;
	return m.now;
}

static uint64_t ops_tsc(void *ctx)
{
	(void)ctx;
	return m.tsc;
}

static void ops_timer_arm(void *ctx, int cpu, uint64_t deadline)
{
	(void)ctx;
	check(cpu >= 0 && cpu < NCPU);
	m.armed[cpu] = deadline;
}

static void check_route(int src, const struct lapic_ipi *ipi, uint64_t mask)
{
	unsigned i;

	check(!(mask >> NCPU));
	for (i = 0; i < NCPU; i++)
		if (mask & (1ull << i))
			check(lapic_hw_enabled(m.cpus[i]));
	if (ipi->delivery == APIC_ICR_DM_LOWEST)
		check(!(mask & (mask - 1)));
	if (ipi->shorthand == APIC_ICR_DEST_SELF)
		check(src >= 0 ? !(mask & ~(1ull << src)) : !mask);
	if (ipi->shorthand == APIC_ICR_DEST_OTHERS && src >= 0)
		check(!(mask & (1ull << src)));
}

/* Fixed and lowest priority: accepted, as irq_deliver() does. */
static void deliver(int t, const struct lapic_ipi *ipi)
{
	struct lapic *l = m.cpus[t];
	struct cpu_flags *f = &m.f[t];

	switch (ipi->delivery) {
	case APIC_ICR_DM_FIXED:
	case APIC_ICR_DM_LOWEST:
		lapic_accept(l, ipi->vector, ipi->level);
		if (lapic_sw_enabled(l) && ipi->vector >= 16)
			check(vec_test(l->irr, ipi->vector));
		break;
	case APIC_ICR_DM_NMI:
		f->nmi++;
		break;
	case APIC_ICR_DM_INIT:
		f->init = 1;
		break;
	case APIC_ICR_DM_STARTUP:
		if (f->wait_sipi || f->init)
			f->sipi++;
		break;
	}
}

/*
 * Lowest priority (SDM 11.6.2.4): the winner is a software-enabled
 * target of the same message sent fixed, with the lowest APR of them.
 */
static void check_lowest(int src, const struct lapic_ipi *ipi, uint64_t win)
{
	struct lapic_ipi fixed = *ipi;
	uint64_t all;
	unsigned i, w = win & 1 ? 0 : 1;

	fixed.delivery = APIC_ICR_DM_FIXED;
	apic_route(m.cpus, NCPU, src, &fixed, &all);
	for (i = 0; i < NCPU; i++) {
		if (!(all & (1ull << i)) || !lapic_sw_enabled(m.cpus[i]))
			continue;
		check(win);	/* an enabled target: someone wins */
		check(lapic_apr(m.cpus[w]) <= lapic_apr(m.cpus[i]));
	}
	if (win)
		check((all & win) && lapic_sw_enabled(m.cpus[w]));
}

static void route(int src, const struct lapic_ipi *ipi)
{
	uint64_t mask;
	unsigned i;

	apic_route(m.cpus, NCPU, src, ipi, &mask);
	check_route(src, ipi, mask);
	if (ipi->delivery == APIC_ICR_DM_LOWEST)
		check_lowest(src, ipi, mask);
	for (i = 0; i < NCPU; i++)
		if (mask & (1ull << i))
			deliver(i, ipi);
}

static void ops_send_ipi(void *ctx, int cpu, const struct lapic_ipi *ipi)
{
	(void)ctx;
	check(cpu >= 0 && cpu < NCPU);
	if (ipi->delivery == APIC_ICR_DM_FIXED ||
	    ipi->delivery == APIC_ICR_DM_LOWEST)
		check(ipi->vector >= 16);
	route(cpu, ipi);
}

static void ops_eoi_level(void *ctx, int cpu, uint8_t vector)
{
	const struct lapic *l = &m.apic[cpu];

	(void)ctx;
	check(vector >= 16 && vec_test(l->tmr, vector) && !vec_test(l->isr, vector));
	m.eoi_vec = vector;
	m.eoi_calls++;
}

static void ops_trace(void *ctx, int cpu, const char *line)
{
	(void)ctx, (void)cpu;
	check(line[0] && strlen(line) < 160);
}

static const struct lapic_ops ops = {
	.now_ns = ops_now,
	.timer_arm = ops_timer_arm,
	.send_ipi = ops_send_ipi,
	.eoi_level = ops_eoi_level,
	.trace = ops_trace,
	.tsc = ops_tsc,
};

/* ---- invariants ---- */

static uint32_t lvt_bits(unsigned i)
{
	const uint32_t base = APIC_LVT_VECTOR | APIC_LVT_MASKED | APIC_LVT_PENDING;

	switch (i) {
	case LVT_TIMER:
		return base | APIC_LVT_TIMER_MODE;
	case LVT_LINT0:
	case LVT_LINT1:
		return base | APIC_LVT_DM_MASK | APIC_LVT_POLARITY |
		       APIC_LVT_LEVEL | APIC_LVT_REMOTE_IRR;
	case LVT_ERROR:
		return base;
	default:
		return base | APIC_LVT_DM_MASK;
	}
}

static void check_regs(const struct lapic *l)
{
	unsigned i;

	check(l->tpr <= 0xff);
	check(!(l->svr & ~(APIC_SVR_VECTOR | APIC_SVR_ENABLE |
			   APIC_SVR_FOCUS_DISABLE)));
	check(!(l->id & 0x00ffffffu) && !(l->ldr & 0x00ffffffu));
	check((l->dfr & 0x0fffffffu) == 0x0fffffffu);
	check(!(l->tdcr & ~APIC_TDCR_MASK));
	check(!(l->icr_lo & ~APIC_ICR_LO_MASK));
	if (!lapic_x2apic(l))
		check(!(l->icr_hi & 0x00ffffffu));
	check(!((l->esr | l->esr_pending) & ~(APIC_ESR_SEND_ILLEGAL |
		APIC_ESR_RECV_ILLEGAL | APIC_ESR_ILLEGAL_REG)));
	for (i = 0; i < LAPIC_NR_LVT; i++) {
		check(!(l->lvt[i] & ~lvt_bits(i)));
		if (!(l->svr & APIC_SVR_ENABLE))
			check(l->lvt[i] & APIC_LVT_MASKED);
	}
	check(!(l->base & ~(APIC_BASE_ADDR_MASK | APIC_BASE_BSP |
			    APIC_BASE_EN | APIC_BASE_EXTD)));
	check(!!(l->base & APIC_BASE_BSP) == l->bsp);
	check(lapic_hw_enabled(l) || !(l->base & APIC_BASE_EXTD));
}

static void check_vectors(const struct lapic *l)
{
	int isrv = vec_highest(l->isr), irrv = vec_highest(l->irr), pv;
	unsigned cls, i, want;
	uint8_t ppr = lapic_ppr(l);

	check(!((l->irr[0] | l->isr[0] | l->tmr[0]) & 0xffff));
	if (!lapic_hw_enabled(l))
		for (i = 0; i < 8; i++)
			check(!l->irr[i] && !l->isr[i] && !l->tmr[i]);
	/* SDM 11.8.3.1 */
	want = isrv >= 0 && prio_class(isrv) > prio_class(l->tpr) ?
	       (unsigned)isrv & 0xf0 : l->tpr;
	check(ppr == want);
	for (cls = 0; cls < 16; cls++) {
		uint32_t half = (l->isr[cls / 2] >> (16 * (cls % 2))) & 0xffff;

		check(!(half & (half - 1)));
	}
	pv = lapic_pending_vector(l);
	if (!lapic_hw_enabled(l) || irrv < 0 ||
	    prio_class(irrv) <= prio_class(ppr))
		check(pv == -1);
	else
		check(pv == irrv);
	check(lapic_apr(l) <= 0xff);
}

static void check_timer(int c)
{
	const struct lapic *l = m.cpus[c];
	uint32_t mode = l->lvt[LVT_TIMER] & APIC_LVT_TIMER_MODE;

	check(m.armed[c] == l->timer_deadline_ns);
	/* the clock moved only with due timers fired: all ahead of it */
	check(!m.armed[c] || m.armed[c] > m.now);
	check(lapic_timer_tmcct(l) <= l->tmict);
	if (l->timer_running)
		check(l->tmict && l->timer_deadline_ns &&
		      mode != APIC_TIMER_TSCDEADLINE);
	if (mode == APIC_TIMER_TSCDEADLINE)
		check(!l->tsc_deadline == !l->timer_deadline_ns);
	else
		check(!l->tsc_deadline && (l->timer_running ||
					   !l->timer_deadline_ns));
	check(l->arb_seq >= m.arb_seq[c]);
	m.arb_seq[c] = l->arb_seq;
}

static void check_all(void)
{
	int c;

	for (c = 0; c < NCPU; c++) {
		check_regs(m.cpus[c]);
		check_vectors(m.cpus[c]);
		check_timer(c);
	}
}

/* ---- the ops ---- */

static uint32_t msr_of(unsigned kind, unsigned idx)
{
	switch (kind % 4) {
	case 0:
		return MSR_X2APIC_BASE + idx;
	case 1:
		return MSR_IA32_APIC_BASE;
	case 2:
		return MSR_IA32_TSC_DEADLINE;
	default:
		return idx;
	}
}

/* A due timer fires: it ends disarmed or armed in the future. */
static void fire(int c)
{
	struct lapic *l = m.cpus[c];
	uint32_t lvt = l->lvt[LVT_TIMER];
	int deliver = !(lvt & APIC_LVT_MASKED) && lapic_sw_enabled(l) &&
		      (lvt & APIC_LVT_VECTOR) >= 16;

	if (!m.armed[c] || m.now < m.armed[c])
		return;
	m.armed[c] = 0;		/* a one-shot host timer (timer_settime) */
	lapic_timer_expired(l);
	check(!m.armed[c] || m.armed[c] > m.now);
	if (deliver)
		check(vec_test(l->irr, lvt & APIC_LVT_VECTOR));
}

static void clock_advance(uint64_t ns)
{
	int c;

	if (ns > NOW_MAX - m.now)
		ns = NOW_MAX - m.now;
	m.now += ns;
	m.tsc += (uint64_t)((unsigned __int128)ns * m.tsc_khz / 1000000);
	for (c = 0; c < NCPU; c++)
		fire(c);
}

static void op_timer(void)
{
	uint64_t d = 0;
	int c;

	for (c = 0; c < NCPU; c++)
		if (m.armed[c] && (!d || m.armed[c] < d))
			d = m.armed[c];
	if (d > m.now)
		clock_advance(d - m.now);
	for (c = 0; c < NCPU; c++)
		fire(c);
}

static void op_eoi(struct lapic *l)
{
	int h = vec_highest(l->isr), lvl = h >= 0 && vec_test(l->tmr, h), rc;
	uint32_t isr[8];

	memcpy(isr, l->isr, sizeof(isr));
	m.eoi_calls = 0;
	if (lapic_x2apic(l))
		rc = lapic_msr_write(l, X2APIC_MSR(APIC_EOI), 0);
	else
		rc = lapic_mmio_write(l, APIC_EOI, 4, 0);
	if (rc || h < 0) {
		check(!memcmp(isr, l->isr, sizeof(isr)) && !m.eoi_calls);
		return;
	}
	vec_clear(isr, h);
	check(!memcmp(isr, l->isr, sizeof(isr)));
	check(m.eoi_calls == lvl && (!lvl || m.eoi_vec == h));
}

static void op_icr(struct lapic *l, uint32_t lo, uint32_t hi)
{
	if (lapic_x2apic(l)) {
		lapic_msr_write(l, X2APIC_MSR(APIC_ICR_LO), (uint64_t)hi << 32 | lo);
		return;
	}
	lapic_mmio_write(l, APIC_ICR_HI, 4, hi);
	lapic_mmio_write(l, APIC_ICR_LO, 4, lo);
}

static void op_route(void)
{
	struct lapic_ipi ipi = { .assert = true };
	unsigned fl;

	ipi.vector = get(1);
	ipi.delivery = (get(1) & 7) << 8;
	fl = get(1);
	ipi.logical = fl & 1;
	ipi.level = fl & 2;
	ipi.shorthand = ((fl >> 2) & 3) << 18;
	ipi.dest = get(4);
	route(-1, &ipi);
}

static void op_caps(uint8_t b)
{
	struct lapic_caps caps = {
		.x2apic = b & 1,
		.tsc_khz = b & 2 ? 1000 * (1 + ((b >> 2) & 15)) : 0,
	};
	int c;

	m.tsc_khz = caps.tsc_khz ? caps.tsc_khz : 1000000;
	for (c = 0; c < NCPU; c++)
		lapic_set_caps(m.cpus[c], &caps);
}

static void do_op(int c, unsigned op)
{
	static const unsigned sizes[8] = { 4, 4, 4, 1, 2, 8, 3, 0 };
	struct lapic *l = m.cpus[c];
	uint64_t v;
	uint32_t u, off;

	switch (op) {
	case OP_MMIO_WR:
		off = get(2);
		u = sizes[get(1) & 7];
		lapic_mmio_write(l, off, u, get(4));
		break;
	case OP_MMIO_RD:
		off = get(2);
		lapic_mmio_read(l, off, sizes[get(1) & 7], &u);
		break;
	case OP_REG_WR:
		off = (get(1) & 0x3f) << 4;
		lapic_mmio_write(l, off, 4, get(4));
		break;
	case OP_MSR_WR:
		u = get(1);
		off = msr_of(u, get(1));
		lapic_msr_write(l, off, get(8));
		break;
	case OP_MSR_RD:
		u = get(1);
		lapic_msr_read(l, msr_of(u, get(1)), &v);
		break;
	case OP_CLOCK:
		v = get(2);
		clock_advance(v << (get(1) % 40));
		break;
	case OP_TIMER:
		op_timer();
		break;
	case OP_INTA:
		if (lapic_pending_vector(l) >= 0)
			lapic_ack(l, lapic_pending_vector(l));
		break;
	case OP_EOI:
		op_eoi(l);
		break;
	case OP_ACCEPT:
		u = get(1);
		lapic_accept(l, u, get(1) & 1);
		break;
	case OP_ROUTE:
		op_route();
		break;
	case OP_CR8:
		lapic_set_cr8(l, get(1));
		break;
	case OP_TSC:
		m.tsc += get(4);
		break;
	case OP_RESET:
		if (get(1) & 1) {
			lapic_reset(l);
			m.arb_seq[c] = 0;	/* RESET clears it */
		} else
			lapic_init_reset(l);
		break;
	case OP_ICR:
		u = get(4);
		op_icr(l, u, get(4));
		break;
	case OP_SVR:
		u = 0x100 | get(1);
		lapic_mmio_write(l, APIC_SVR, 4, u);
		lapic_msr_write(l, X2APIC_MSR(APIC_SVR), u);
		break;
	case OP_X2APIC:
		lapic_msr_write(l, MSR_IA32_APIC_BASE, APIC_DEFAULT_BASE |
				APIC_BASE_EN | APIC_BASE_EXTD);
		break;
	}
}

/* SDM 11.4.7.3: an INIT resets the APIC, kept ID and mode; then wait for SIPI */
static void take_init(void)
{
	int c;

	for (c = 0; c < NCPU; c++) {
		if (!m.f[c].init)
			continue;
		m.f[c].init = 0;
		lapic_init_reset(m.cpus[c]);
		m.f[c].wait_sipi = 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const uint64_t mhz[4] = { 1000, 1, 100, 10000 };
	uint8_t cfg;
	int c;

	memset(&m, 0, sizeof(m));
	m.p = data;
	m.end = data + len;
	m.now = NOW0;
	m.tsc = 0x10000;
	for (c = 0; c < NCPU; c++)
		m.cpus[c] = &m.apic[c];
	lapic_init(&m.apic[0], 0, get(1), true, 0, &ops, NULL);
	lapic_init(&m.apic[1], 1, get(1), false, 0, &ops, NULL);
	cfg = get(1);
	for (c = 0; c < NCPU; c++)
		m.apic[c].timer_hz = mhz[cfg >> 6] * 1000000ull;
	op_caps(cfg);
	check_all();
	while (m.p < m.end) {
		uint8_t b = get(1);

		do_op(b >> 7, (b & 0x7f) % OP_NR);
		take_init();
		check_all();
	}
	return 0;
}
