// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the irqlab protocol port (vmm/dev/pvport.c,
 * docs/PROTOCOL.md) against a real guest-RAM buffer.  Guest RAM is one
 * heap block of exactly its size (ASan sees any byte past it): LOW bytes
 * at guest address 0 and, if the first input byte is odd, HIGH more at
 * 4 GiB, as struct guest_mem lays out RAM above the hole (mem.h).  Then a
 * list of operations, one opcode byte each (taken mod 8) and its
 * argument bytes, a missing argument reading as 0.  An address argument
 * is 3 bytes k lo hi, d = lo | hi << 8: k % 4 picks d, LOW - d, 4 GiB + d
 * or 4 GiB + HIGH - d (so both ends of both parts are near):
 *
 *	0 addr		outl(CONSOLE, addr)
 *	1 addr		outl(SNAPSHOT, addr)
 *	2 addr n b..	poke n % 64 bytes into RAM at addr (the guest writes
 *			a string or a snapshot size), where RAM
 *	3 addr lo hi	write the u32 lo | hi << 8 at addr (a snapshot size)
 *	4 off sz v0-7	a write at port off % 0x20, width 1 << (sz % 4),
 *			value the next 8 bytes
 *	5 off sz	a read at port off % 0x20, width 1 << (sz % 4)
 *	6 v		outl(PHASE, v % 8)
 *	7 v		outl(POWEROFF, v | 0x100)
 *
 * Op 4 reaches the PV ports too: PV_EOI (the word's address) and PV_IPI
 * (the doorbell's struct, decoded by vmm/dev/pvipi.c as irqchip/user.c
 * would, for a machine of 1 + the first input byte % 255 APIC IDs).
 *
 * Invariants, abort() on violation: nothing is read or written outside
 * guest RAM (ASan, and:) the console's text is the guest's string at the
 * address, up to its NUL, at most IRQLAB_CONSOLE_MAX bytes and within RAM;
 * a snapshot changes only the bytes [addr, addr + min(size, sizeof))
 * and tells the size it wrote and no more whole counters than fit; a bad
 * address, size, phase or width counts one bad access and calls nothing
 * (but one byte to PHASE, a phase that exists: /dev/port's outb);
 * the signature and version read back, the command ports read all-ones;
 * a PV EOI word handed on is 4-byte aligned inside guest RAM; a doorbell
 * request decoded "ok" names at least one APIC ID, none at or above the
 * machine's, and a fixed vector of 16 or more.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/pvipi.h"
#include "dev/pvport.h"
#include "hw/apic.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_pvport: %s:%d: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} \
} while (0)

#define LOW	0x3000u
#define HIGH	0x1800u
#define REG(p)	((p) - IRQLAB_PORT_BASE)

static struct guest_mem mem;
static uint8_t *before;		/* RAM before a snapshot */
static struct {
	unsigned outs, phases, poweroffs, snapshots;
	const char *out_buf;
	size_t out_len;
	unsigned phase;
	int status;
} s;

static void fake_out(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	/* within guest RAM, and at most one exit's worth */
	CHECK((const uint8_t *)buf >= mem.host);
	CHECK((const uint8_t *)buf + len <= mem.host + mem.size);
	CHECK(len <= IRQLAB_CONSOLE_MAX);
	s.outs++;
	s.out_buf = buf;
	s.out_len = len;
}

static void fake_poweroff(void *ctx, int status)
{
	(void)ctx;
	s.poweroffs++;
	s.status = status;
}

static void fake_set_phase(void *ctx, unsigned phase)
{
	(void)ctx;
	CHECK(phase < IRQLAB_NR_PHASES);
	s.phases++;
	s.phase = phase;
}

static unsigned nr_ids;

static int fake_pv_eoi(void *ctx, int cpu, uint32_t *word)
{
	uint8_t *w = (uint8_t *)word;

	(void)ctx, (void)cpu;
	if (word)
		CHECK(!((uintptr_t)w & 3) && w >= mem.host &&
		      w + 4 <= mem.host + mem.size);
	return 0;
}

static void fake_pv_ipi(void *ctx, int cpu, uint64_t gpa)
{
	struct pvipi_req req;
	unsigned i, n = 0;

	(void)ctx, (void)cpu;
	if (pvipi_decode(&mem, gpa, nr_ids, &req) != PVIPI_OK)
		return;
	for (i = 0; i < IRQLAB_PV_IPI_MAX_IDS; i++)
		if (req.dest[i / 64] >> (i % 64) & 1) {
			CHECK(i < nr_ids);
			n++;
		}
	CHECK(n && n == req.nr_dest);
	CHECK(req.delivery == APIC_ICR_DM_NMI || req.vector >= 16);
}

/* the timeline's ring: aligned, in RAM with all the stamps it claims */
static void fake_tl_ring(void *ctx, int cpu, struct irqlab_tl_ring *r,
			 uint32_t size)
{
	uint8_t *p = (uint8_t *)r;

	(void)ctx, (void)cpu;
	if (!r) {
		CHECK(!size);
		return;
	}
	CHECK(!((uintptr_t)p & 7) && size <= IRQLAB_TL_MAX);
	CHECK(p >= mem.host && p + sizeof(*r) + (uint64_t)size *
	      sizeof(struct irqlab_tl_stamp) <= mem.host + mem.size);
}

static void fake_snapshot(void *ctx, struct irqlab_snapshot *snap)
{
	unsigned i;

	(void)ctx;
	s.snapshots++;
	snap->count = IRQLAB_NR_COUNTERS;
	snap->ncpus = 2;
	snap->phase = s.phase;
	for (i = 0; i < IRQLAB_NR_COUNTERS; i++)
		snap->counter[i] = 0x1111111111111111ull * (i + 1);
}

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

static uint64_t addr_arg(const uint8_t **p, const uint8_t *end)
{
	uint8_t k = arg(p, end), lo = arg(p, end);
	uint64_t d = lo | (uint64_t)arg(p, end) << 8;

	switch (k % 4) {
	case 0:
		return d;
	case 1:
		return mem.low_size - d;
	case 2:
		return MEM_HIGH_START + d;
	default:
		return MEM_HIGH_START + mem_high_size(&mem) - d;
	}
}

static void op_console(struct pvport *pv, uint64_t gpa)
{
	uint64_t bad = pv->bad_accesses, n = mem_avail(&mem, gpa);
	unsigned outs = s.outs;
	const char *str;

	pvport_write(pv, REG(IRQLAB_PORT_CONSOLE), 4, gpa, 0);
	if (!n) {
		CHECK(pv->bad_accesses == bad + 1 && s.outs == outs);
		return;
	}
	CHECK(s.outs == outs + 1 && pv->bad_accesses == bad);
	if (n > IRQLAB_CONSOLE_MAX)
		n = IRQLAB_CONSOLE_MAX;
	str = mem_ptr(&mem, gpa, n);
	CHECK(s.out_buf == str);
	CHECK(s.out_len == strnlen(str, n));
}

static void op_snapshot(struct pvport *pv, uint64_t gpa)
{
	uint64_t bad = pv->bad_accesses, lo, hi;
	const uint8_t *p = mem_ptr(&mem, gpa, 4);
	unsigned snaps = s.snapshots;
	struct irqlab_snapshot snap;
	uint32_t n = 0;

	if (p) {
		memcpy(&n, p, 4);
		if (n > sizeof(snap))
			n = sizeof(snap);
	}
	memcpy(before, mem.host, mem.size);
	pvport_write(pv, REG(IRQLAB_PORT_SNAPSHOT), 4, gpa, 0);
	if (!p || n < offsetof(struct irqlab_snapshot, counter) ||
	    !mem_ptr(&mem, gpa, n)) {
		CHECK(pv->bad_accesses == bad + 1 && s.snapshots == snaps);
		CHECK(!memcmp(before, mem.host, mem.size));
		return;
	}
	CHECK(pv->bad_accesses == bad && s.snapshots == snaps + 1);
	/* only [gpa, gpa + n) changed */
	lo = (const uint8_t *)mem_ptr(&mem, gpa, n) - mem.host;
	hi = lo + n;
	CHECK(!memcmp(before, mem.host, lo));
	CHECK(!memcmp(before + hi, mem.host + hi, mem.size - hi));
	memcpy(&snap, mem.host + lo, n);
	CHECK(snap.size == n);
	CHECK(snap.count <= IRQLAB_NR_COUNTERS);
	CHECK(offsetof(struct irqlab_snapshot, counter) + 8ull * snap.count
	      <= n);
}

static void op_poke(const uint8_t **p, const uint8_t *end)
{
	uint64_t gpa = addr_arg(p, end);
	unsigned n = arg(p, end) % 64, i;
	uint8_t *dst = mem_ptr(&mem, gpa, n);

	for (i = 0; i < n; i++) {
		uint8_t b = arg(p, end);

		if (dst)
			dst[i] = b;
	}
}

static void op_port_write(struct pvport *pv, uint64_t off, unsigned size,
			  uint64_t val)
{
	unsigned calls = s.outs + s.phases + s.poweroffs + s.snapshots;
	unsigned phases = s.phases;
	uint64_t bad = pv->bad_accesses;

	if (size == 4 && off == REG(IRQLAB_PORT_CONSOLE)) {
		op_console(pv, val);
		return;
	}
	if (size == 4 && off == REG(IRQLAB_PORT_SNAPSHOT)) {
		op_snapshot(pv, val);
		return;
	}
	pvport_write(pv, off, size, val, 0);
	if (size == 1 && off == REG(IRQLAB_PORT_PHASE) &&
	    val < IRQLAB_NR_PHASES) {
		/* /dev/port's one byte (pvport.c) */
		CHECK(pv->bad_accesses == bad && s.phases == phases + 1 &&
		      s.phase == val);
	} else if (size != 4) {
		CHECK(pv->bad_accesses == bad + 1);
		CHECK(calls == s.outs + s.phases + s.poweroffs + s.snapshots);
	}
}

static void op_port_read(struct pvport *pv, uint64_t off, unsigned size)
{
	uint64_t bad = pv->bad_accesses, v = pvport_read(pv, off, size, 0);

	if (size != 4) {
		CHECK(v == ~0ull && pv->bad_accesses == bad + 1);
		return;
	}
	if (off == REG(IRQLAB_PORT_SIG))
		CHECK(v == IRQLAB_SIGNATURE);
	else if (off == REG(IRQLAB_PORT_VERSION))
		CHECK(v == IRQLAB_VERSION);
	else
		CHECK(v == ~0ull);
}

static void op_phase(struct pvport *pv, unsigned v)
{
	uint64_t bad = pv->bad_accesses;
	unsigned phases = s.phases;

	pvport_write(pv, REG(IRQLAB_PORT_PHASE), 4, v, 0);
	if (v < IRQLAB_NR_PHASES)
		CHECK(s.phases == phases + 1 && s.phase == v);
	else
		CHECK(s.phases == phases && pv->bad_accesses == bad + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data, *end = data + size;
	struct pvport pv = {
		.mem = &mem,
		.out = fake_out,
		.poweroff = fake_poweroff,
		.set_phase = fake_set_phase,
		.snapshot = fake_snapshot,
		.pv_eoi = fake_pv_eoi,
		.pv_ipi = fake_pv_ipi,
		.tl_ring = fake_tl_ring,
	};
	uint8_t a, b;
	uint64_t v;
	unsigned i;

	memset(&s, 0, sizeof(s));
	nr_ids = 1 + (size ? data[0] % 255 : 0);
	mem.low_size = LOW;
	mem.size = LOW + (arg(&ip, end) & 1 ? HIGH : 0);
	mem.host = calloc(1, mem.size);
	before = malloc(mem.size);
	CHECK(mem.host && before);
	while (ip < end) {
		switch (*ip++ % 8) {
		case 0:
			op_console(&pv, addr_arg(&ip, end));
			break;
		case 1:
			op_snapshot(&pv, addr_arg(&ip, end));
			break;
		case 2:
			op_poke(&ip, end);
			break;
		case 3:
			v = addr_arg(&ip, end);
			a = arg(&ip, end);
			b = arg(&ip, end);
			if (mem_ptr(&mem, v, 4))
				memcpy(mem_ptr(&mem, v, 4),
				       &(uint32_t){ a | b << 8 }, 4);
			break;
		case 4:
			a = arg(&ip, end);
			b = arg(&ip, end);
			for (v = 0, i = 0; i < 8; i++)
				v |= (uint64_t)arg(&ip, end) << (8 * i);
			op_port_write(&pv, a % IRQLAB_PORT_LEN, 1u << (b % 4), v);
			break;
		case 5:
			a = arg(&ip, end);
			op_port_read(&pv, a % IRQLAB_PORT_LEN,
				     1u << (arg(&ip, end) % 4));
			break;
		case 6:
			op_phase(&pv, arg(&ip, end) % 8);
			break;
		default:
			a = arg(&ip, end);
			pvport_write(&pv, REG(IRQLAB_PORT_POWEROFF), 4,
				     a | 0x100, 0);
			CHECK(s.poweroffs && s.status == a);
			break;
		}
	}
	free(mem.host);
	free(before);
	return 0;
}
