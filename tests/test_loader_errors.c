// SPDX-License-Identifier: MIT
/*
 * The multiboot loader: images it must refuse.  Each load fails with -1,
 * a one-line reason naming the problem, and guest memory untouched.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

TestSuite(loader_err, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;

static void put32(size_t off, uint32_t v)
{
	memcpy(ti.buf + off, &v, sizeof(v));
}

/* ---- multiboot headers ---- */

Test(loader_err, no_header)
{
	ti_std_elf(&ti, ELFCLASS64);
	ti_expect_err(&ti, 0, "no multiboot header");
	ti_expect_err(&ti, 1, "no multiboot1 header");
	ti_expect_err(&ti, 2, "no multiboot2 header");
}

Test(loader_err, forced_protocol_absent)
{
	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, 0);
	ti_expect_err(&ti, 2, "no multiboot2 header");
	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	ti_expect_err(&ti, 1, "no multiboot1 header");
}

/* Multiboot 3.1.1: within 8192 bytes, 4-aligned; Multiboot2: 32768, 8. */
Test(loader_err, header_misplaced)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, 0);
	memmove(ti.buf + TI_MB1_OFF + 2, ti.buf + TI_MB1_OFF, 12);
	memset(ti.buf + TI_MB1_OFF, 0, 2);
	ti_expect_err(&ti, 0, "no multiboot header");

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	memmove(ti.buf + TI_MB2_OFF + 4, ti.buf + TI_MB2_OFF, 24);
	memset(ti.buf + TI_MB2_OFF, 0, 4);
	ti_expect_err(&ti, 0, "no multiboot header");

	ti_flat(&ti, 0x9000);
	memset(ti.buf, 0, ti.len);
	put32(8192, MB1_HEADER_MAGIC);
	put32(8200, -MB1_HEADER_MAGIC);
	ti_expect_err(&ti, 0, "no multiboot header");
}

Test(loader_err, mb2_header_beyond_32k)
{
	ti_flat(&ti, 0x9000);
	memset(ti.buf, 0, ti.len);
	put32(32768, MB2_HEADER_MAGIC);
	put32(32776, 24);
	put32(32780, -(MB2_HEADER_MAGIC + 24));
	put32(32784, 0);
	put32(32788, 8);
	ti.len = 32768 + 24;
	ti_expect_err(&ti, 2, "no multiboot2 header");
}

Test(loader_err, bad_checksum)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, 0);
	ti.buf[TI_MB1_OFF + 8] ^= 1;
	ti_expect_err(&ti, 0, "bad checksum");

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	ti.buf[TI_MB2_OFF + 12] ^= 1;
	ti_expect_err(&ti, 0, "bad checksum");
	ti_expect_err(&ti, 2, "multiboot2 header: bad checksum");
}

/* An mb2 header with a bad checksum is no header: a good mb1 one is used. */
Test(loader_err, bad_mb2_checksum_falls_back_to_mb1)
{
	struct boot_entry e;
	char err[256];

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, 0);
	ti_mb2(&ti);
	ti.buf[TI_MB2_OFF + 12] ^= 1;
	cr_assert_eq(ti_load(&ti, 0, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.protocol, 1);
}

Test(loader_err, mb1_unknown_required_flag)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_MEMINFO | (1u << 3));
	ti_expect_err(&ti, 0, "unsupported required flags 0x8");
	ti_mb1(&ti, 1u << 15);
	ti_expect_err(&ti, 0, "unsupported required flags 0x8000");
}

Test(loader_err, mb2_architecture)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	put32(TI_MB2_OFF + 4, 4);	/* MIPS */
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "unsupported architecture 4");
}

Test(loader_err, mb2_header_length)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	put32(TI_MB2_OFF + 8, ti.len - TI_MB2_OFF + 1);
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "truncated file");
	put32(TI_MB2_OFF + 8, 0xfffffff0);
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "truncated file");
	put32(TI_MB2_OFF + 8, 16);	/* no room for any tag */
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "no end tag");
}

Test(loader_err, mb2_no_end_tag)
{
	uint32_t entry = TI_ENTRY;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	put32(TI_MB2_OFF + 8, ti.mb2_pos - TI_MB2_OFF);
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "no end tag");
}

Test(loader_err, mb2_bad_tag_size)
{
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	put32(TI_MB2_OFF + 16 + 4, 4);	/* end tag of size 4 */
	ti_expect_err(&ti, 0, "bad size 4");
	put32(TI_MB2_OFF + 16 + 4, 16);	/* past header_length */
	ti_expect_err(&ti, 0, "bad size 16");
	put32(TI_MB2_OFF + 16 + 4, 8);
	/* header_length larger than the tags: the end tag is then size 16 */
	put32(TI_MB2_OFF + 8, 32);
	put32(TI_MB2_OFF + 16 + 4, 16);
	ti_mb2_fix(&ti);
	ti_expect_err(&ti, 0, "end tag size 16, must be 8");
}

Test(loader_err, mb2_tag_too_short)
{
	uint32_t addr[2] = { 0x100000, 0x100000 };

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "tag type 2 too short");

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, MB2_HT_FLAG_OPTIONAL, NULL, 0);
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "tag type 3 too short");
}

static void mb2_with_request(uint16_t flags, uint32_t type)
{
	const uint32_t req[2] = { MB2_TAG_CMDLINE, type };

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_INFO_REQUEST, flags, req, sizeof(req));
	ti_mb2_end(&ti);
}

/* Multiboot2 3.1.4: a required request we cannot satisfy. */
Test(loader_err, mb2_info_request_unsatisfiable)
{
	struct boot_params p;
	static const char rsdp[36] = "RSD PTR ";

	mb2_with_request(0, MB2_TAG_BOOTDEV);
	ti_expect_err(&ti, 0, "cannot provide required boot info type 5");
	mb2_with_request(0, MB2_TAG_FRAMEBUFFER);
	ti_expect_err(&ti, 0, "cannot provide required boot info type 8");
	mb2_with_request(0, MB2_TAG_ACPI_OLD);
	ti_expect_err(&ti, 0, "type 14 (no ACPI RSDP)");
	mb2_with_request(0, MB2_TAG_ACPI_NEW);
	p = ti_params(&ti, 0);
	p.rsdp_old = rsdp;		/* an old one does not satisfy "new" */
	ti_expect_params_err(&p, "type 15 (no ACPI RSDP)");
}

Test(loader_err, mb2_required_framebuffer)
{
	const uint32_t fb[3] = { 1024, 768, 32 };

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_FRAMEBUFFER, 0, fb, sizeof(fb));
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "no framebuffer");
}

static void mb2_with_tag(uint16_t type, uint32_t body_len)
{
	static const uint32_t body[8];

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, type, 0, body, body_len);
	ti_mb2_end(&ti);
}

Test(loader_err, mb2_required_efi_and_relocatable)
{
	mb2_with_tag(MB2_HT_EFI_BS, 0);
	ti_expect_err(&ti, 0, "required EFI boot services tag (type 7) is not supported");
	mb2_with_tag(MB2_HT_ENTRY_EFI32, 4);
	ti_expect_err(&ti, 0, "type 8) is not supported");
	mb2_with_tag(MB2_HT_ENTRY_EFI64, 4);
	ti_expect_err(&ti, 0, "type 9) is not supported");
	mb2_with_tag(MB2_HT_RELOCATABLE, 16);
	ti_expect_err(&ti, 0, "required relocatable tag (type 10) is not supported");
}

Test(loader_err, mb2_unknown_required_tag)
{
	mb2_with_tag(42, 8);
	ti_expect_err(&ti, 0, "unknown required tag type 42");
}

Test(loader_err, mb2_address_tag_without_entry)
{
	uint32_t addr[4] = { 0x100000 + TI_MB2_OFF, 0x100000, 0, 0 };

	ti_flat(&ti, 0x2000);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "address tag without an entry address tag");
}

/* ---- parameters ---- */

Test(loader_err, bad_params)
{
	static const struct boot_module m = { NULL, 10, "x" };
	static const char rsdp[20] = "RSD PTR ";
	struct boot_params p;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	p = ti_params(&ti, 3);
	ti_expect_params_err(&p, "bad boot protocol 3");
	p = ti_params(&ti, 0);
	p.nr_mods = 1;
	ti_expect_params_err(&p, "no module list");
	p.mods = &m;
	ti_expect_params_err(&p, "no data for module 0");
	p = ti_params(&ti, 0);
	p.rsdp_new = rsdp;
	p.rsdp_new_len = sizeof(rsdp);
	ti_expect_params_err(&p, "ACPI 2.0 RSDP of 20 bytes");
	p = ti_params(&ti, 0);
	p.image = NULL;
	ti_expect_params_err(&p, "no image data");
	p.image_len = 0;
	ti_expect_params_err(&p, "no multiboot header");
}

Test(loader_err, no_err_buffer)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	cr_assert_eq(ti_load(&ti, 0, &e, NULL, 0), -1);
	cr_assert_eq(loader_load(&ti_mem, NULL, &e, NULL, 0), -1);
}

/* ---- memory for modules and boot info ---- */

Test(loader_err, not_enough_memory_for_modules)
{
	static uint8_t m[TI_RAM];
	struct boot_module mod = { m, sizeof(m), "huge" };
	struct boot_params p;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, 0);
	p = ti_params(&ti, 0);
	p.mods = &mod;
	p.nr_mods = 1;
	ti_expect_params_err(&p, "not enough guest memory for modules/boot info");
	/* the module fits, to the last page: then the info does not */
	mod.len = TI_RAM - TI_END;
	ti_expect_params_err(&p, "not enough guest memory for modules/boot info");
}

/* A kernel ending in the last page leaves no room for the info. */
Test(loader_err, not_enough_memory_for_info)
{
	struct tseg seg = TSEG(TI_RAM - 0x1000, 0x10, 0x1000);

	ti_elf(&ti, ELFCLASS32, TI_RAM - 0x1000, &seg, 1);
	ti_mb2(&ti);
	ti_expect_err(&ti, 0, "not enough guest memory for modules/boot info");
}

/* --initrd is the Linux protocol's: a multiboot kernel takes --module */
Test(loader_err, initrd_for_multiboot)
{
	static const uint8_t rd[16];
	struct boot_params p;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	p = ti_params(&ti, 0);
	p.initrd = rd;
	p.initrd_len = sizeof(rd);
	ti_expect_params_err(&p, "--initrd is for a Linux kernel");
}
