// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the IOAPIC (vmm/apic/ioapic.c) wired, as in
 * vmm/irqchip/isa.c, to 1-8 local APICs (vmm/apic/lapic*.c): register
 * accesses, input lines raised and lowered, interrupts taken and EOIed by
 * the LAPICs (whose level EOIs reach ioapic_eoi()) and EOIR writes.
 *
 * Input: 2 config bytes, then ops.
 *   byte 0	bits 2:0: vCPUs - 1; bit 3: --ioapic=naive; bits 7:4: ID
 *   byte 1	bit i: CPU i's LAPIC starts software-disabled
 * The LAPICs are xAPIC, APIC ID i, flat logical ID 1 << i.  Each op: one
 * byte, bits 4:0 the op (modulo OP_NR), bits 7:5 the vCPU making an MMIO
 * access (7: none), then its operands, little-endian (0 past the end):
 *   0 SEL      idx:u8                 IOREGSEL = idx
 *   1 WIN_WR   val:u32                IOWIN write
 *   2 WIN_RD                          IOWIN read
 *   3 MMIO_WR  off:u16 size:u8 val:u32  any MMIO write (size: low 3 bits
 *		pick 4, 4, 4, 1, 2, 8, 3, 0; off up to 0xffff, past the page)
 *   4 MMIO_RD  off:u16 size:u8
 *   5 RTE      pin:u8 lo:u32 dest:u8  entry pin % 32 (>= 24: bad index),
 *		high dword then low, through IOREGSEL/IOWIN
 *   6 IRQ      pin:u8 level:u8        ioapic_set_irq(pin % 32, level & 1)
 *   7 PULSE    pin:u8                 raise, then lower
 *   8 EOIR     vec:u8                 EOI register write
 *   9 INTA     cpu:u8                 the CPU takes its pending vector
 *  10 LEOI     cpu:u8                 LAPIC EOI: a level one reaches
 *		ioapic_eoi() after the access, as isa.c queues it
 *  11 TPR      cpu:u8 val:u8
 *  12 SVR      cpu:u8 en:u8           LAPIC software enable (en & 1)
 *  13 DEST     cpu:u8 reg:u8 val:u8   the LAPIC's ID, LDR or DFR (reg % 3)
 *		bits 31:24 = val: where the IOAPIC's messages go moves
 *
 * Checked after every op, abort() on violation (docs/FUZZING.md):
 *  - entries hold only defined bits (datasheet 3.2.4), remote IRR only on
 *    a level entry, IOREGSEL 8 bits, the ID 4 bits;
 *  - no level set for a vCPU past ncpus (an index past the tables), each
 *    vCPU's set as the last tmr_update said, and as the table makes it
 *    (optimized: from the pins' routes, which are current for unmasked
 *    entries without remote IRR until a LAPIC ID moves; naive: the whole
 *    table, until a LAPIC ID moves);
 *  - every message comes from an unmasked entry: a level one from an
 *    asserted level entry without remote IRR, whose vector is in each
 *    target's level set before it arrives; an edge one from a rising line;
 *  - an asserted, unmasked level entry without remote IRR has just been
 *    sent and no LAPIC was there to take it;
 *  - the counters never go back (nor below their parts), deliveries and
 *    EOIs as many as the machine saw.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apic/apic_bus.h"
#include "apic/ioapic.h"
#include "apic/lapic_internal.h"
#include "hw/ioapic.h"

#define MAXCPU		8
#define NPIN		IOAPIC_NR_PINS

enum {
	OP_SEL, OP_WIN_WR, OP_WIN_RD, OP_MMIO_WR, OP_MMIO_RD, OP_RTE, OP_IRQ,
	OP_PULSE, OP_EOIR, OP_INTA, OP_LEOI, OP_TPR, OP_SVR, OP_DEST, OP_NR
};

static struct machine {
	struct ioapic io;
	unsigned n;
	struct lapic apic[MAXCPU];
	struct lapic *cpus[MAXCPU];
	uint32_t tmr[MAXCPU][8];	/* what tmr_update said */
	int rising_pin;			/* the op raising a line, else -1 */
	int took[NPIN];			/* the last message of each pin: took */
	uint32_t msg_pins;		/* the last message: pins that may send it */
	int msg_took;			/* and how many took it */
	uint64_t deliveries, eois;
	uint32_t eoi_level[MAXCPU][8];	/* LAPIC level EOIs to pass on */
	int dest_moved;			/* a LAPIC's ID, LDR or DFR written */
	struct ioapic_stats last;
	const uint8_t *p, *end;
} m;

#define check(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_ioapic: invariant failed: %s (line %d)\n", \
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

static uint32_t lo(uint64_t rte)
{
	return (uint32_t)rte;
}

/* 82093AA 3.2.4: fixed and lowest-priority entries only are level */
static int rte_level(uint64_t rte)
{
	uint32_t dm = lo(rte) & IOAPIC_RTE_DM_MASK;

	return (lo(rte) & IOAPIC_RTE_LEVEL) &&
	       (dm == IOAPIC_RTE_DM_FIXED || dm == IOAPIC_RTE_DM_LOWEST);
}

static int vtest(const uint32_t *set, unsigned v)
{
	return set[v / 32] & (1u << (v % 32));
}

/* ---- the machine: isa.c's ioapic_ops over LAPIC models ---- */

static uint64_t route(const struct lapic_ipi *msg)
{
	uint64_t mask;

	apic_route(m.cpus, m.n, -1, msg, &mask);
	check(!(mask >> m.n));
	return mask;
}

/*
 * Which entries may have sent @msg (their state as the message goes),
 * as a mask; identical entries route alike.
 */
static uint32_t msg_pins(const struct lapic_ipi *msg)
{
	const struct ioapic_pin *p;
	uint32_t pins = 0;
	uint64_t rte;
	int i;

	for (i = 0; i < NPIN; i++) {
		p = &m.io.pin[i];
		rte = p->rte;
		if ((lo(rte) & IOAPIC_RTE_MASKED) ||
		    (lo(rte) & IOAPIC_RTE_VECTOR) != msg->vector ||
		    (lo(rte) & IOAPIC_RTE_DM_MASK) != msg->delivery ||
		    !(lo(rte) & IOAPIC_RTE_LOGICAL) != !msg->logical ||
		    (rte >> 56) != msg->dest || rte_level(rte) != msg->level)
			continue;
		if (msg->level && p->level && !(lo(rte) & IOAPIC_RTE_REMOTE_IRR))
			pins |= 1u << i;
		if (!msg->level && i == m.rising_pin)
			pins |= 1u << i;
	}
	return pins;
}

static int ops_deliver(void *ctx, const struct lapic_ipi *msg)
{
	uint32_t pins = msg_pins(msg);
	uint64_t mask;
	unsigned c;
	int took = 0;

	(void)ctx;
	check(pins);		/* masked, or not due: no message */
	check(msg->shorthand == APIC_ICR_DEST_FIELD && msg->assert);
	m.deliveries++;
	mask = route(msg);
	for (c = 0; c < m.n; c++) {
		if (!(mask & (1ull << c)))
			continue;
		took++;
		if (msg->delivery != APIC_ICR_DM_FIXED &&
		    msg->delivery != APIC_ICR_DM_LOWEST)
			continue;
		/* the level set is there before the message (irq_fold) */
		if (msg->level)
			check(vtest(m.tmr[c], msg->vector));
		lapic_accept(m.cpus[c], msg->vector, vtest(m.tmr[c], msg->vector));
	}
	m.msg_pins = pins;
	m.msg_took = took;
	return took;
}

static uint64_t ops_dest_mask(void *ctx, uint32_t dest, bool logical)
{
	struct lapic_ipi msg = {
		.delivery = APIC_ICR_DM_FIXED, .logical = logical, .dest = dest,
	};

	(void)ctx;
	check(dest <= 0xff);
	return route(&msg);
}

static void ops_tmr_update(void *ctx, unsigned cpu, const uint32_t *tmr)
{
	(void)ctx;
	check(cpu < m.n);
	memcpy(m.tmr[cpu], tmr, sizeof(m.tmr[cpu]));
}

/*
 * The model's line for each message names its pin and how many took it:
 * that pin was one that could send it, and it is the pin's last word.
 */
static void ops_trace(void *ctx, const char *line)
{
	unsigned pin;
	int took;

	(void)ctx;
	check(line[0] && strlen(line) < 200);
	if (sscanf(line, "ioapic: pin %u -> vector %*x %*s dest %*x %*[^:]: "
		   "%d took it", &pin, &took) != 2)
		return;
	check(pin < NPIN && (m.msg_pins & (1u << pin)) && took == m.msg_took);
	m.took[pin] = took;
	m.msg_pins = 0;
}

static const struct ioapic_ops io_ops = {
	.deliver = ops_deliver,
	.dest_mask = ops_dest_mask,
	.tmr_update = ops_tmr_update,
	.trace = ops_trace,
};

static uint64_t ops_now(void *ctx)
{
	(void)ctx;
	return 1000000000ull;
}

static void ops_eoi_level(void *ctx, int cpu, uint8_t vector)
{
	(void)ctx;
	m.eoi_level[cpu][vector / 32] |= 1u << (vector % 32);
}

static const struct lapic_ops apic_ops = {
	.now_ns = ops_now,
	.eoi_level = ops_eoi_level,
};

/* ---- invariants ---- */

/* Each vCPU's level set as the table makes it. */
static void want_tmr(uint32_t set[MAXCPU][8])
{
	const struct ioapic_pin *p;
	uint64_t cpus;
	unsigned i, c, v;

	memset(set, 0, MAXCPU * 8 * sizeof(uint32_t));
	for (i = 0; i < NPIN; i++) {
		p = &m.io.pin[i];
		if (m.io.policy == IOAPIC_NAIVE) {
			if (!rte_level(p->rte))
				continue;
			cpus = ops_dest_mask(NULL, p->rte >> 56,
					     lo(p->rte) & IOAPIC_RTE_LOGICAL);
			v = lo(p->rte) & IOAPIC_RTE_VECTOR;
		} else {
			if (!p->tmr_valid)
				continue;
			cpus = p->tmr_cpus;
			v = p->tmr_vector;
		}
		for (c = 0; c < m.n; c++)
			if (cpus & (1ull << c))
				set[c][v / 32] |= 1u << (v % 32);
	}
}

static void check_pin(unsigned i)
{
	const struct ioapic_pin *p = &m.io.pin[i];
	uint64_t rte = p->rte, cpus;
	int live = !(lo(rte) & IOAPIC_RTE_MASKED) &&
		   !(lo(rte) & IOAPIC_RTE_REMOTE_IRR);

	check(!(rte & 0x00fffffffffe0000ull));
	check(!(lo(rte) & IOAPIC_RTE_DELIVS));
	if (lo(rte) & IOAPIC_RTE_REMOTE_IRR)
		check(lo(rte) & IOAPIC_RTE_LEVEL);
	check(!(p->tmr_cpus >> m.n));
	if (m.io.policy == IOAPIC_OPTIMIZED && live) {
		check(p->tmr_valid == rte_level(rte));
		if (p->tmr_valid)
			check(p->tmr_vector == (lo(rte) & IOAPIC_RTE_VECTOR));
		/* a LAPIC ID change reaches the routes at the next message */
		if (p->tmr_valid && !m.dest_moved) {
			cpus = ops_dest_mask(NULL, rte >> 56,
					     lo(rte) & IOAPIC_RTE_LOGICAL);
			check(p->tmr_cpus == cpus);
		}
	}
	/* an asserted level entry that can send has sent, to no one */
	if (live && p->level && rte_level(rte))
		check(m.took[i] == 0);
}

static void check_stats(void)
{
	const struct ioapic_stats *s = &m.io.stats, *o = &m.last;

	check(s->rte_writes >= o->rte_writes &&
	      s->rte_unchanged >= o->rte_unchanged &&
	      s->tmr_updates >= o->tmr_updates &&
	      s->remote_tmr_updates >= o->remote_tmr_updates &&
	      s->rendezvous >= o->rendezvous &&
	      s->bad_accesses >= o->bad_accesses);
	check(s->rte_unchanged <= s->rte_writes);
	check(s->remote_tmr_updates <= s->tmr_updates);
	check(s->deliveries == m.deliveries && s->eois == m.eois);
	m.last = *s;
}

static void check_all(void)
{
	uint32_t set[MAXCPU][8];
	unsigned c, i;

	check(m.io.regsel <= 0xff && !(m.io.id & ~IOAPIC_ID_MASK));
	for (i = 0; i < NPIN; i++)
		check_pin(i);
	for (c = 0; c < IOAPIC_MAX_CPUS; c++) {
		for (i = 0; i < 8; i++) {
			if (c >= m.n)
				check(!m.io.tmr[c][i]);
			else
				check(m.io.tmr[c][i] == m.tmr[c][i] &&
				      ioapic_tmr_word(&m.io, c, i) == m.tmr[c][i]);
		}
	}
	/* naive: the sets are the table's as of the last rebuild */
	if (m.io.policy == IOAPIC_OPTIMIZED || !m.dest_moved) {
		want_tmr(set);
		for (c = 0; c < m.n; c++)
			check(!memcmp(set[c], m.io.tmr[c], sizeof(set[c])));
	}
	check_stats();
}

/* ---- the ops ---- */

/* Level EOIs the LAPICs made during the op, to the IOAPIC after it. */
static void pass_eois(void)
{
	unsigned c, v;

	for (c = 0; c < m.n; c++)
		for (v = 0; v < 256; v++) {
			if (!m.eoi_level[c][v / 32]) {
				v |= 31;
				continue;
			}
			if (!vtest(m.eoi_level[c], v))
				continue;
			m.eoi_level[c][v / 32] &= ~(1u << (v % 32));
			m.eois++;
			ioapic_eoi(&m.io, v);
		}
}

static void set_irq(unsigned pin, int level)
{
	int ok = pin < NPIN;

	m.rising_pin = ok && level && !m.io.pin[pin].level ? (int)pin : -1;
	check((ioapic_set_irq(&m.io, pin, level) == 0) == ok);
	m.rising_pin = -1;
}

static void do_op(int src, unsigned op)
{
	static const unsigned sizes[8] = { 4, 4, 4, 1, 2, 8, 3, 0 };
	struct lapic *l;
	uint32_t v, off, sz;
	unsigned pin;

	switch (op) {
	case OP_SEL:
		ioapic_mmio_write(&m.io, src, IOAPIC_IOREGSEL, 4, get(1));
		break;
	case OP_WIN_WR:
		ioapic_mmio_write(&m.io, src, IOAPIC_IOWIN, 4, get(4));
		break;
	case OP_WIN_RD:
		ioapic_mmio_read(&m.io, IOAPIC_IOWIN, 4, &v);
		break;
	case OP_MMIO_WR:
		off = get(2);
		sz = sizes[get(1) & 7];
		if (off == IOAPIC_EOIR && sz == 4)
			m.eois++;
		ioapic_bus_write(&m.io, off, sz, get(4), src);
		break;
	case OP_MMIO_RD:
		off = get(2);
		ioapic_bus_read(&m.io, off, sizes[get(1) & 7], src);
		break;
	case OP_RTE:
		pin = get(1) % 32;
		v = get(4);
		ioapic_mmio_write(&m.io, src, IOAPIC_IOREGSEL, 4,
				  IOAPIC_REG_REDTBL + 2 * pin + 1);
		ioapic_mmio_write(&m.io, src, IOAPIC_IOWIN, 4, get(1) << 24);
		ioapic_mmio_write(&m.io, src, IOAPIC_IOREGSEL, 4,
				  IOAPIC_REG_REDTBL + 2 * pin);
		ioapic_mmio_write(&m.io, src, IOAPIC_IOWIN, 4, v);
		break;
	case OP_IRQ:
		pin = get(1) % 32;
		set_irq(pin, get(1) & 1);
		break;
	case OP_PULSE:
		pin = get(1) % 32;
		set_irq(pin, 1);
		set_irq(pin, 0);
		break;
	case OP_EOIR:
		m.eois++;
		ioapic_mmio_write(&m.io, src, IOAPIC_EOIR, 4, get(1));
		break;
	case OP_INTA:
		l = m.cpus[get(1) % m.n];
		if (lapic_pending_vector(l) >= 0)
			lapic_ack(l, lapic_pending_vector(l));
		break;
	case OP_LEOI:
		lapic_mmio_write(m.cpus[get(1) % m.n], APIC_EOI, 4, 0);
		break;
	case OP_TPR:
		l = m.cpus[get(1) % m.n];
		lapic_mmio_write(l, APIC_TPR, 4, get(1));
		break;
	case OP_SVR:
		l = m.cpus[get(1) % m.n];
		lapic_mmio_write(l, APIC_SVR, 4, 0xff | (get(1) & 1) << 8);
		break;
	case OP_DEST:
		l = m.cpus[get(1) % m.n];
		v = get(1);
		off = v % 3 == 0 ? APIC_ID : v % 3 == 1 ? APIC_LDR : APIC_DFR;
		lapic_mmio_write(l, off, 4, get(1) << 24 |
				 (off == APIC_DFR ? 0x0fffffffu : 0));
		m.dest_moved = 1;
		break;
	}
	pass_eois();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t cfg, off;
	unsigned c;

	memset(&m, 0, sizeof(m));
	m.p = data;
	m.end = data + len;
	m.rising_pin = -1;
	cfg = get(1);
	off = get(1);
	m.n = (cfg & 7) + 1;
	for (c = 0; c < m.n; c++) {
		struct lapic *l = &m.apic[c];

		m.cpus[c] = l;
		lapic_init(l, c, c, c == 0, 0, &apic_ops, NULL);
		lapic_mmio_write(l, APIC_LDR, 4, 1u << (24 + c));
		if (!(off & (1u << c)))
			lapic_mmio_write(l, APIC_SVR, 4, 0x1ff);
	}
	check(ioapic_init(&m.io, m.n, cfg >> 4, cfg & 8 ? IOAPIC_NAIVE :
			  IOAPIC_OPTIMIZED, &io_ops, NULL) == 0);
	check_all();
	while (m.p < m.end) {
		uint8_t b = get(1);

		do_op(b >> 5 == 7 ? -1 : (int)(b >> 5) % (int)m.n,
		      (b & 0x1f) % OP_NR);
		check_all();
	}
	return 0;
}
