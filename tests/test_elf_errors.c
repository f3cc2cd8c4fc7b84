// SPDX-License-Identifier: MIT
/*
 * The multiboot loader: kernels it must refuse, for their ELF headers
 * (ELF gABI), their a.out kludge fields (Multiboot 3.1.3, Multiboot2
 * 3.1.5), or where their segments and entry point are.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

TestSuite(elf_err, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;

static void put16(size_t off, uint16_t v)
{
	memcpy(ti.buf + off, &v, sizeof(v));
}

static void put32(size_t off, uint32_t v)
{
	memcpy(ti.buf + off, &v, sizeof(v));
}

static void put64(size_t off, uint64_t v)
{
	memcpy(ti.buf + off, &v, sizeof(v));
}

/* An mb1-headed ELF image of @cls with these segments and entry. */
static void elf(int cls, uint64_t entry, const struct tseg *seg, unsigned n)
{
	ti_elf(&ti, cls, entry, seg, n);
	ti_mb1(&ti, 0);
}

static void std_elf(int cls)
{
	ti_std_elf(&ti, cls);
	ti_mb1(&ti, 0);
}

/* Offset of field @f of program header @i. */
#define PH64(i, f)	(sizeof(Elf64_Ehdr) + (i) * sizeof(Elf64_Phdr) + \
			 offsetof(Elf64_Phdr, f))
#define PH32(i, f)	(sizeof(Elf32_Ehdr) + (i) * sizeof(Elf32_Phdr) + \
			 offsetof(Elf32_Phdr, f))

/* ---- the ELF header ---- */

Test(elf_err, not_elf)
{
	std_elf(ELFCLASS32);
	ti.buf[1] = 'X';
	ti_expect_err(&ti, 0, "not an ELF image");
}

/* An ELF64 header cut short; the mb1 header sits over e_shoff/e_flags. */
Test(elf_err, truncated_ehdr)
{
	std_elf(ELFCLASS64);
	memmove(ti.buf + 40, ti.buf + TI_MB1_OFF, 12);
	ti.len = 56;
	ti_expect_err(&ti, 0, "truncated file: ELF header");
	ti.len = 63;
	ti_expect_err(&ti, 0, "truncated file: ELF header");
}

Test(elf_err, unsupported_class)
{
	std_elf(ELFCLASS32);
	ti.buf[EI_CLASS] = 3;
	ti_expect_err(&ti, 0, "unsupported ELF class 3");
	ti.buf[EI_CLASS] = ELFCLASSNONE;
	ti_expect_err(&ti, 0, "unsupported ELF class 0");
}

Test(elf_err, big_endian)
{
	std_elf(ELFCLASS64);
	ti.buf[EI_DATA] = ELFDATA2MSB;
	ti_expect_err(&ti, 0, "want little-endian");
}

Test(elf_err, unsupported_machine)
{
	std_elf(ELFCLASS32);
	put16(offsetof(Elf32_Ehdr, e_machine), EM_X86_64);
	ti_expect_err(&ti, 0, "unsupported ELF machine 62 for ELFCLASS32");
	std_elf(ELFCLASS64);
	put16(offsetof(Elf64_Ehdr, e_machine), EM_386);
	ti_expect_err(&ti, 0, "unsupported ELF machine 3 for ELFCLASS64");
	put16(offsetof(Elf64_Ehdr, e_machine), EM_AARCH64);
	ti_expect_err(&ti, 0, "unsupported ELF machine");
}

Test(elf_err, unsupported_type)
{
	std_elf(ELFCLASS64);
	put16(offsetof(Elf64_Ehdr, e_type), ET_DYN);
	ti_expect_err(&ti, 0, "unsupported ELF type 3");
	put16(offsetof(Elf64_Ehdr, e_type), ET_REL);
	ti_expect_err(&ti, 0, "unsupported ELF type 1");
}

Test(elf_err, unsupported_version)
{
	std_elf(ELFCLASS32);
	put32(offsetof(Elf32_Ehdr, e_version), 2);
	ti_expect_err(&ti, 0, "unsupported ELF version 2");
}

Test(elf_err, bad_phentsize)
{
	std_elf(ELFCLASS64);
	put16(offsetof(Elf64_Ehdr, e_phentsize), sizeof(Elf32_Phdr));
	ti_expect_err(&ti, 0, "e_phentsize");
}

Test(elf_err, phdrs_past_end)
{
	std_elf(ELFCLASS64);
	put64(offsetof(Elf64_Ehdr, e_phoff), ti.len - sizeof(Elf64_Phdr) + 1);
	ti_expect_err(&ti, 0, "truncated file: program headers past the end");
	put64(offsetof(Elf64_Ehdr, e_phoff), UINT64_MAX - 8);
	ti_expect_err(&ti, 0, "truncated file: program headers");
	std_elf(ELFCLASS32);
	put16(offsetof(Elf32_Ehdr, e_phnum), 0xffff);
	ti_expect_err(&ti, 0, "truncated file: program headers");
}

Test(elf_err, no_loadable_segment)
{
	std_elf(ELFCLASS64);
	put16(offsetof(Elf64_Ehdr, e_phnum), 0);
	ti_expect_err(&ti, 0, "no loadable segment");
	std_elf(ELFCLASS64);
	put32(PH64(0, p_type), PT_NOTE);
	put32(PH64(1, p_type), PT_DYNAMIC);
	ti_expect_err(&ti, 0, "no loadable segment");
}

Test(elf_err, too_many_segments)
{
	unsigned i;

	size_t ph;

	std_elf(ELFCLASS32);
	/* 33 copies of the first program header, after the segment bytes */
	ph = ti.len;
	put32(offsetof(Elf32_Ehdr, e_phoff), ph);
	put16(offsetof(Elf32_Ehdr, e_phnum), 33);
	for (i = 0; i < 33; i++)
		memcpy(ti.buf + ph + i * sizeof(Elf32_Phdr),
		       ti.buf + sizeof(Elf32_Ehdr), sizeof(Elf32_Phdr));
	ti.len = ph + 33 * sizeof(Elf32_Phdr);
	ti_expect_err(&ti, 0, "more than 32 ELF PT_LOAD segments");
}

/* ---- segments ---- */

Test(elf_err, segment_past_end_of_file)
{
	std_elf(ELFCLASS64);
	put64(PH64(1, p_offset), ti.len - TI_DATA_FILESZ + 1);
	ti_expect_err(&ti, 0, "file range past the end of the file");
	/* offset + filesz wraps around: must not pass */
	put64(PH64(1, p_offset), UINT64_MAX - 0x10);
	ti_expect_err(&ti, 0, "past the end of the file");
	std_elf(ELFCLASS32);
	put32(PH32(0, p_filesz), 0xffffffff);
	put32(PH32(0, p_memsz), 0xffffffff);
	ti_expect_err(&ti, 0, "past the end of the file");
}

Test(elf_err, filesz_above_memsz)
{
	std_elf(ELFCLASS32);
	put32(PH32(1, p_memsz), TI_DATA_FILESZ - 1);
	ti_expect_err(&ti, 0, "filesz 0x100 > memsz 0xff");
	put32(PH32(1, p_memsz), 0);
	ti_expect_err(&ti, 0, "filesz 0x100 > memsz 0x0");
}

Test(elf_err, segment_outside_ram)
{
	struct tseg beyond = TSEG(TI_RAM - 0x100, 0x80, 0x200);
	struct tseg hole = TSEG(0xfee00000, 0x10, 0x10);	/* LAPIC */
	struct tseg wrap = TSEG(UINT64_MAX - 0xff, 0x10, 0x200);

	elf(ELFCLASS32, beyond.paddr, &beyond, 1);
	ti_expect_err(&ti, 0, "outside guest RAM");
	elf(ELFCLASS64, hole.paddr, &hole, 1);
	ti_expect_err(&ti, 0, "outside guest RAM");
	elf(ELFCLASS64, wrap.paddr, &wrap, 1);
	ti_expect_err(&ti, 0, "outside guest RAM");
}

Test(elf_err, segment_in_bios_area)
{
	struct tseg in = TSEG(0xa0000, 0x10, 0x1000);
	struct tseg across_start = TSEG(0x9f000, 0x10, 0xc01);
	struct tseg across_end = TSEG(0xff000, 0x10, 0x2000);
	struct tseg ok = TSEG(0x9f000, 0x10, 0xc00);	/* ends at 0x9fc00 */
	struct boot_entry e;
	char err[256];

	elf(ELFCLASS32, in.paddr, &in, 1);
	ti_expect_err(&ti, 0, "in the reserved BIOS area");
	elf(ELFCLASS32, across_start.paddr, &across_start, 1);
	ti_expect_err(&ti, 0, "in the reserved BIOS area");
	elf(ELFCLASS32, across_end.paddr, &across_end, 1);
	ti_expect_err(&ti, 0, "in the reserved BIOS area");
	elf(ELFCLASS32, ok.paddr, &ok, 1);
	cr_assert_eq(ti_load(&ti, 0, &e, err, sizeof(err)), 0, "%s", err);
}

Test(elf_err, segments_overlap)
{
	struct tseg seg[] = {
		TSEG(0x100000, 0x100, 0x1000),
		TSEG(0x200000, 0x100, 0x100),
		TSEG(0x100fff, 0x10, 0x10),	/* one byte into the first */
	};
	struct tseg dup[] = {
		TSEG(0x300000, 0x10, 0x10), TSEG(0x300000, 0x10, 0x10),
	};
	struct tseg inside[] = {
		TSEG(0x300000, 0x10, 0x4000), TSEG(0x301000, 0x10, 0x10),
	};

	elf(ELFCLASS64, 0x100000, seg, 3);
	ti_expect_err(&ti, 0, "segments [0x100000, +0x1000) and [0x100fff, +0x10) overlap");
	elf(ELFCLASS64, 0x300000, dup, 2);
	ti_expect_err(&ti, 0, "overlap");
	elf(ELFCLASS32, 0x300000, inside, 2);
	ti_expect_err(&ti, 0, "overlap");
}

/* ---- entry point ---- */

Test(elf_err, entry_outside_image)
{
	std_elf(ELFCLASS32);
	put32(offsetof(Elf32_Ehdr, e_entry), TI_TEXT + TI_TEXT_LEN);	/* gap */
	ti_expect_err(&ti, 0, "entry point 0x101800 outside the loaded image");
	put32(offsetof(Elf32_Ehdr, e_entry), TI_END);
	ti_expect_err(&ti, 0, "outside the loaded image");
	put32(offsetof(Elf32_Ehdr, e_entry), 0);
	ti_expect_err(&ti, 0, "outside the loaded image");
}

Test(elf_err, entry_tag_outside_image)
{
	uint32_t entry = 0x50000;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "entry point 0x50000 outside the loaded image");
}

/* We start in 32-bit mode: an entry in RAM above 4 GiB cannot be reached. */
Test(elf_err, entry_above_4g)
{
	struct tseg seg[] = {
		TSEG(0x100000, 0x10, 0x10), TSEG(1ull << 32, 0x10, 0x1000),
	};

	mem_free(&ti_mem);
	cr_assert_eq(mem_init(&ti_mem, MEM_HOLE_START + (16ull << 20)), 0);
	elf(ELFCLASS64, (1ull << 32) + 8, seg, 2);
	ti_expect_err(&ti, 0, "entry point 0x100000008 above 4 GiB");
}

/* ---- a.out kludge / address tag ---- */

#define KL	0x200000u	/* where the flat image loads */

Test(elf_err, kludge_fields_truncated)
{
	ti_flat(&ti, TI_MB1_OFF + 0x20);
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL, 0, 0, KL);
	ti.len = TI_MB1_OFF + 0x1c;	/* entry_addr cut off */
	ti_expect_err(&ti, 0, "truncated file: a.out kludge fields");
}

Test(elf_err, kludge_load_past_end)
{
	ti_flat(&ti, 0x1000);
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL, KL + 0x1001, 0, KL);
	ti_expect_err(&ti, 0, "truncated file: a.out kludge load range past the end");
	/* starting 0x100 into the file, 0xf01 bytes are too many */
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF - 0x100, KL, KL + 0xf01, 0, KL);
	ti_expect_err(&ti, 0, "truncated file");
}

Test(elf_err, kludge_bad_addresses)
{
	ti_flat(&ti, 0x1000);
	ti_mb1_kludge(&ti, 0, KL, KL + 4, 0, 0, KL + 4);
	ti_expect_err(&ti, 0, "load_addr 0x200004 above header_addr 0x200000");
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL - 4, 0, 0, KL);
	ti_expect_err(&ti, 0, "lies before the start of the file");
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL, KL - 1, 0, KL);
	ti_expect_err(&ti, 0, "load_end_addr 0x1fffff below load_addr");
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL, KL + 0x800, KL + 0x7ff, KL);
	ti_expect_err(&ti, 0, "bss_end_addr 0x2007ff below load_end_addr");
	ti_mb1_kludge(&ti, 0, KL + TI_MB1_OFF, KL, KL + 0x800, 0, KL + 0x800);
	ti_expect_err(&ti, 0, "entry point 0x200800 outside the loaded image");
	ti_mb1_kludge(&ti, 0, 0xfffff000 + TI_MB1_OFF, 0xfffff000, 0, 0, 0xfffff000);
	ti_expect_err(&ti, 0, "outside guest RAM");
	ti_mb1_kludge(&ti, 0, 0xa0000 + TI_MB1_OFF, 0xa0000, 0, 0, 0xa0000);
	ti_expect_err(&ti, 0, "in the reserved BIOS area");
}

Test(elf_err, address_tag_bad)
{
	uint32_t addr[4] = { 0x100, 0xffffffff, 0, 0 };	/* header below offset */
	uint32_t entry = KL;

	ti_flat(&ti, 0x1000);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "address tag: header_addr 0x100 below the header's file offset");

	addr[0] = KL + TI_MB2_OFF;
	addr[1] = KL;
	addr[2] = KL + 0x2000;
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	ti_expect_err(&ti, 0, "truncated file: address tag load range past the end");
}
