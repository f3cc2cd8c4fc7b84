// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: QEMU's fw_cfg, traditional I/O interface
 * (vmm/dev/fw_cfg.c; QEMU docs/specs/fw_cfg.rst).  irqlab's has no DMA
 * interface: FW_CFG_ID says so, and the harness checks it.  The first
 * input byte is the vCPU count (1-256, 0 as 256); then a list of
 * operations, one opcode byte each (taken mod 4) and its argument bytes,
 * a missing argument reading as 0:
 *
 *	0 lo hi		select item lo | hi << 8 (a 16-bit write to 0x510)
 *	1 sz		read the data port (0x511), width 1 << (sz % 4)
 *	2 off sz v..	a write at port 0x510 + off % 4, width 1 << (sz % 4),
 *			value the next 8 bytes: all but the 16-bit selector
 *			write are ignored
 *	3 off sz	a read at 0x510 + off % 4 (only 0x511 has data)
 *
 * A shadow of the selector and offset follows.  Invariants, abort() on
 * violation: every byte read is the byte of the selected item at the
 * offset (signature "QEMU", ID 1, the CPU count as a little-endian u16
 * for NB_CPUS and MAX_CPUS, an empty file directory, 0 for the rest and
 * past an item's end), a read of width N advances the offset by N; the
 * selector port reads as all-ones and moves nothing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/ports.h"
#include "dev/fw_cfg.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_fw_cfg: %s:%d: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} \
} while (0)

static struct {
	uint16_t select;
	uint32_t offset;
	unsigned ncpus;
} s;

static uint8_t arg(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

/* fw_cfg.rst: the items irqlab has, byte @i of item @key */
static uint8_t expect_byte(uint16_t key, uint32_t i)
{
	switch (key) {
	case FW_CFG_SIGNATURE:
		return i < 4 ? "QEMU"[i] : 0;
	case FW_CFG_ID:
		return i == 0 ? 1 : 0;	/* bit 1 (DMA) clear */
	case FW_CFG_NB_CPUS:
	case FW_CFG_MAX_CPUS:
		return i < 2 ? (uint8_t)(s.ncpus >> (8 * i)) : 0;
	default:
		return 0;
	}
}

static void op_read(struct fw_cfg *f, uint64_t off, unsigned size)
{
	uint64_t v = fw_cfg_read(f, off, size, 0);
	unsigned i;

	if (off != 1) {
		CHECK(v == ~0ull);
		CHECK(f->offset == s.offset);
		return;
	}
	for (i = 0; i < size; i++)
		CHECK((uint8_t)(v >> (8 * i)) ==
		      expect_byte(s.select, s.offset + i));
	if (size < 8)
		CHECK(!(v >> (8 * size)));
	s.offset += size;
	CHECK(f->offset == s.offset);
}

static void op_write(struct fw_cfg *f, uint64_t off, unsigned size,
		     uint64_t val)
{
	fw_cfg_write(f, off, size, val, 0);
	if (off == 0 && size == 2) {
		s.select = val;
		s.offset = 0;
	}
	CHECK(f->select == s.select && f->offset == s.offset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ip = data, *end = data + size;
	struct fw_cfg f;
	uint64_t v;
	uint8_t a, b;
	unsigned i;

	s.ncpus = arg(&ip, end);
	if (!s.ncpus)
		s.ncpus = 256;
	s.select = 0;
	s.offset = 0;
	fw_cfg_init(&f, s.ncpus);
	while (ip < end) {
		switch (*ip++ % 4) {
		case 0:
			a = arg(&ip, end);
			op_write(&f, 0, 2, a | arg(&ip, end) << 8);
			break;
		case 1:
			op_read(&f, 1, 1u << (arg(&ip, end) % 4));
			break;
		case 2:
			a = arg(&ip, end);
			b = arg(&ip, end);
			for (v = 0, i = 0; i < 8; i++)
				v |= (uint64_t)arg(&ip, end) << (8 * i);
			op_write(&f, a % 4, 1u << (b % 4), v);
			break;
		default:
			a = arg(&ip, end);
			op_read(&f, a % 4, 1u << (arg(&ip, end) % 4));
			break;
		}
	}
	return 0;
}
