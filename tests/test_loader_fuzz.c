// SPDX-License-Identifier: MIT
/*
 * The multiboot loader against junk: mutated valid images and random
 * bytes.  Nothing may crash; a failure must say why; a success must
 * describe a sane guest (entry in the image, info in RAM).  The images
 * are copied to buffers of their exact size, so building the tests with
 * -fsanitize=address also catches any read past the end of the file.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

TestSuite(loader_fuzz, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64* (Vigna): reproducible, good enough to spread mutations. */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Values that sit on the edges the loader checks. */
static uint64_t rnd_value(void)
{
	static const uint64_t edge[] = {
		0, 1, 8, 0xfff, 0x1000, 0x9fc00, 0xa0000, 0x100000, 0x7fffff,
		TI_RAM, 0xffffffff, 0x100000000ull, UINT64_MAX, UINT64_MAX - 7,
	};

	if (rnd() & 1)
		return edge[rnd_below(sizeof(edge) / sizeof(edge[0]))];
	return rnd() >> rnd_below(64);
}

static void base_image(unsigned kind)
{
	const uint32_t req[] = { MB2_TAG_CMDLINE, MB2_TAG_MMAP, MB2_TAG_ACPI_NEW };
	uint32_t entry = TI_ENTRY;
	uint32_t addr[4] = { 0x200000 + TI_MB2_OFF, 0x200000, 0, 0x204000 };

	switch (kind % 5) {
	case 0:
		ti_std_elf(&ti, ELFCLASS32);
		ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
		break;
	case 1:
		ti_std_elf(&ti, ELFCLASS64);
		ti_mb2_begin(&ti);
		ti_mb2_tag(&ti, MB2_HT_INFO_REQUEST, 0, req, sizeof(req));
		ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
		ti_mb2_end(&ti);
		break;
	case 2:
		ti_flat(&ti, 0x3000);
		ti_mb1_kludge(&ti, 0, 0x200000 + TI_MB1_OFF, 0x200000,
			      0x203000, 0x205000, 0x200400);
		break;
	case 3:
		ti_flat(&ti, 0x2000);
		entry = 0x200800;
		ti_mb2_begin(&ti);
		ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
		ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
		ti_mb2_end(&ti);
		break;
	default:
		ti_std_elf(&ti, ELFCLASS64);
		ti_mb1(&ti, MB1_HF_MEMINFO);
		ti_mb2(&ti);
		break;
	}
}

/* Mostly where the headers are; recompute checksums now and then. */
static void mutate(void)
{
	unsigned i, n = 1 + rnd_below(8);
	size_t span, pos;
	uint64_t v;

	for (i = 0; i < n; i++) {
		span = (rnd() & 3) ? 0x600 : ti.len;
		if (span > ti.len)
			span = ti.len;
		if (!span)
			return;
		pos = rnd_below(span);
		if (rnd() & 1) {
			ti.buf[pos] = rnd();
		} else {
			pos &= ~(size_t)3;
			v = rnd_value();
			memcpy(ti.buf + pos, &v, pos + 8 <= TI_SIZE ? 8 : 4);
		}
	}
	if (rnd() & 1)
		ti_mb1_fix(&ti);
	if (rnd() & 1)
		ti_mb2_fix(&ti);
	if (!(rnd() & 7))
		ti.len = rnd_below(ti.len + 1);
}

static void put32(size_t off, uint32_t v)
{
	memcpy(ti.buf + off, &v, sizeof(v));
}

/* Random bytes; half the time a multiboot 1 or 2 header goes in. */
static void random_image(void)
{
	uint32_t flags, hlen;
	size_t i, off;

	memset(&ti, 0, sizeof(ti));
	ti.len = rnd_below(rnd() & 1 ? 0x800 : TI_SIZE);
	for (i = 0; i < ti.len; i++)
		ti.buf[i] = rnd();
	if (ti.len < 32 || (rnd() & 1))
		return;
	off = rnd_below(ti.len - 31) & ~(size_t)7;
	if (rnd() & 1) {
		flags = rnd_value();
		put32(off, MB1_HEADER_MAGIC);
		put32(off + 4, flags);
		put32(off + 8, -(MB1_HEADER_MAGIC + flags));
	} else {
		hlen = rnd() & 1 ? rnd_below(64) : rnd_value();
		put32(off, MB2_HEADER_MAGIC);
		put32(off + 4, MB2_ARCH_I386);
		put32(off + 8, hlen);
		put32(off + 12, -(MB2_HEADER_MAGIC + hlen));
	}
}

static void check_one(unsigned iter)
{
	static const uint8_t modbytes[3000] = { 1, 2, 3 };
	static const char rsdp[36] = "RSD PTR ";
	struct boot_module mods[2] = {
		{ modbytes, rnd_below(sizeof(modbytes)), "m0" },
		{ modbytes, rnd_below(sizeof(modbytes)), NULL },
	};
	struct boot_params p = ti_params(&ti, rnd_below(3));
	uint8_t *image = malloc(ti.len ? ti.len : 1);
	struct boot_entry e;
	char err[256];
	int ret;

	cr_assert_not_null(image);
	memcpy(image, ti.buf, ti.len);
	p.image = image;
	p.nr_mods = rnd_below(3);
	p.mods = mods;
	p.append = rnd() & 1 ? "fuzz=1" : NULL;
	if (rnd() & 1) {
		p.rsdp_old = rsdp;
		p.rsdp_new = rsdp;
		p.rsdp_new_len = sizeof(rsdp);
	}
	strcpy(err, "untouched");
	ret = loader_load(&ti_mem, &p, &e, err, sizeof(err));
	free(image);
	if (ret) {
		cr_assert_eq(ret, -1, "iteration %u", iter);
		cr_assert(err[0] && strcmp(err, "untouched"),
			  "iteration %u: failed without a reason", iter);
		cr_assert_null(strchr(err, '\n'));
		return;
	}
	cr_assert_str_empty(err);
	cr_assert(e.protocol == 1 || e.protocol == 2);
	cr_assert_eq(e.eax, e.protocol == 1 ? MB1_BOOT_MAGIC : MB2_BOOT_MAGIC);
	cr_assert(e.eip >= e.load_start && e.eip < e.load_end, "iteration %u", iter);
	cr_assert(e.info_start >= e.load_end && e.info_end <= ti_mem.low_size);
	cr_assert(e.ebx >= e.info_start && e.ebx < e.info_end);
	cr_assert(e.gdt_addr >= e.info_start && e.gdt_addr + 24ull <= e.info_end);
}

Test(loader_fuzz, mutated_images)
{
	unsigned i;

	for (i = 0; i < 4000; i++) {
		base_image(i);
		mutate();
		check_one(i);
	}
}

Test(loader_fuzz, random_bytes)
{
	unsigned i;

	for (i = 0; i < 1500; i++) {
		random_image();
		check_one(i);
	}
}

/* The fuzzer must reach success paths too, or it tests only the front door. */
Test(loader_fuzz, mutations_still_load_sometimes)
{
	struct boot_params p;
	struct boot_entry e;
	unsigned i, ok = 0;
	char err[256];

	for (i = 0; i < 500; i++) {
		base_image(i);
		mutate();
		p = ti_params(&ti, 0);
		ok += loader_load(&ti_mem, &p, &e, err, sizeof(err)) == 0;
	}
	cr_assert_gt(ok, 50, "only %u of 500 mutated images loaded", ok);
	cr_assert_lt(ok, 450, "%u of 500 mutated images loaded", ok);
}
