// SPDX-License-Identifier: MIT
/*
 * The multiboot loader: images that load.  Bytes where the headers say,
 * bss zeroed, the entry state of Multiboot 3.2 / Multiboot2 3.3, the GDT,
 * and where modules and the boot information go.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

TestSuite(loader, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;

/* Dirty all of RAM, so that zeroing is visible. */
static void dirty_ram(void)
{
	memset(ti_gpa(0, TI_RAM), 0xaa, TI_RAM);
}

static void assert_seg_loaded(const struct tseg *s)
{
	const uint8_t *g = ti_gpa(s->paddr, s->memsz);
	uint64_t i;

	cr_assert_eq(memcmp(g, ti.buf + s->offset, s->filesz), 0,
		     "segment at 0x%llx not copied", (unsigned long long)s->paddr);
	for (i = s->filesz; i < s->memsz; i++)
		cr_assert_eq(g[i], 0, "bss byte at 0x%llx not zeroed",
			     (unsigned long long)(s->paddr + i));
}

static void assert_std_loaded(const struct boot_entry *e, int protocol)
{
	cr_assert_eq(e->protocol, protocol);
	cr_assert_eq(e->eip, TI_ENTRY);
	cr_assert_eq(e->eax, protocol == 1 ? MB1_BOOT_MAGIC : MB2_BOOT_MAGIC);
	cr_assert_eq(e->load_start, TI_TEXT);
	cr_assert_eq(e->load_end, TI_END);
	cr_assert_geq(e->ebx, e->info_start);
	cr_assert_lt(e->ebx, e->info_end);
	assert_seg_loaded(&ti.seg[0]);
	assert_seg_loaded(&ti.seg[1]);
	/* the gap between the segments is not the loader's to touch */
	cr_assert_eq(*(uint8_t *)ti_gpa(TI_TEXT + TI_TEXT_LEN, 1), 0xaa);
}

static void load_ok(int protocol, struct boot_entry *e)
{
	char err[256];

	cr_assert_eq(ti_load(&ti, protocol, e, err, sizeof(err)), 0,
		     "load failed: %s", err);
	cr_assert_str_empty(err);
}

Test(loader, elf32_mb1)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
	dirty_ram();
	load_ok(0, &e);
	assert_std_loaded(&e, 1);
}

Test(loader, elf64_mb1)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
	dirty_ram();
	load_ok(0, &e);
	assert_std_loaded(&e, 1);
}

Test(loader, elf32_mb2)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2(&ti);
	dirty_ram();
	load_ok(0, &e);
	assert_std_loaded(&e, 2);
	cr_assert_eq(e.ebx % 8, 0, "Multiboot2 3.6.1: the info is 8-byte aligned");
}

Test(loader, elf64_mb2)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	dirty_ram();
	load_ok(0, &e);
	assert_std_loaded(&e, 2);
}

Test(loader, both_headers_auto_picks_mb2)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, MB1_HF_MEMINFO);
	ti_mb2(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.protocol, 2);
	cr_assert_eq(e.eax, MB2_BOOT_MAGIC);
	/* the info is in mb2 format: total_size, then reserved == 0 */
	cr_assert_eq(ti_get32(e.ebx) % 8, 0);
	cr_assert_eq(ti_get32(e.ebx + 4), 0);
}

Test(loader, both_headers_forced)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, MB1_HF_MEMINFO);
	ti_mb2(&ti);
	load_ok(1, &e);
	cr_assert_eq(e.protocol, 1);
	cr_assert_eq(e.eax, MB1_BOOT_MAGIC);
	cr_assert_eq(ti_get32(e.ebx) & MB1_INFO_MEM_MAP, MB1_INFO_MEM_MAP);
	load_ok(2, &e);
	cr_assert_eq(e.protocol, 2);
	cr_assert_eq(e.eax, MB2_BOOT_MAGIC);
}

Test(loader, mb1_video_flag_accepted_without_video_info)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_VIDEO | (1u << 20));	/* + an unknown optional bit */
	load_ok(0, &e);
	cr_assert_eq(ti_get32(e.ebx) & ((1u << 11) | (1u << 12)), 0);
}

/* A higher-half kernel: linked at -2 GiB, loaded at 1 MiB; e_entry virtual. */
Test(loader, elf64_entry_translated_to_physical)
{
	struct tseg seg[] = {
		{ PT_LOAD, 0x100000, 0xffffffff80100000ull, 0x800, 0x1000, 0 },
		{ PT_LOAD, 0x200000, 0xffffffff80200000ull, 0x100, 0x100, 0 },
	};
	struct boot_entry e;

	ti_elf(&ti, ELFCLASS64, 0xffffffff80200040ull, seg, 2);
	ti_mb2(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.eip, 0x200040);
	assert_seg_loaded(&ti.seg[0]);
	assert_seg_loaded(&ti.seg[1]);
}

/* Segments other than PT_LOAD, and empty ones, load nothing. */
Test(loader, elf_other_phdrs_ignored)
{
	struct tseg seg[] = {
		{ PT_NOTE, 0x9fc00, 0x9fc00, 0x10, 0x10, 0 },
		TSEG(TI_TEXT, 0x100, 0x200),
		TSEG(0x7000000000ull, 0, 0),	/* empty, outside RAM: harmless */
		{ PT_GNU_STACK, 0, 0, 0, 0, 0 },
	};
	struct boot_entry e;

	ti_elf(&ti, ELFCLASS64, TI_TEXT, seg, 4);
	ti_mb1(&ti, 0);
	load_ok(0, &e);
	cr_assert_eq(e.load_start, TI_TEXT);
	cr_assert_eq(e.load_end, TI_TEXT + 0x200);
	assert_seg_loaded(&ti.seg[1]);
}

Test(loader, mb2_entry_tag_overrides_elf_entry)
{
	uint32_t entry = TI_DATA + 0x10;
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.eip, entry);
}

/* Multiboot 3.1.3: a flat image at 2 MiB, header 0x200 into it. */
Test(loader, mb1_aout_kludge)
{
	const uint32_t load = 0x200000, len = 0x3000, bss_end = load + 0x5000;
	const uint8_t *g;
	struct boot_entry e;
	uint32_t i;

	ti_flat(&ti, len);
	ti_mb1_kludge(&ti, MB1_HF_PAGE_ALIGN, load + TI_MB1_OFF, load,
		      load + len, bss_end, load + 0x400);
	dirty_ram();
	load_ok(0, &e);
	cr_assert_eq(e.protocol, 1);
	cr_assert_eq(e.eip, load + 0x400);
	cr_assert_eq(e.load_start, load);
	cr_assert_eq(e.load_end, bss_end);
	g = ti_gpa(load, bss_end - load);
	cr_assert_eq(memcmp(g, ti.buf, len), 0);
	for (i = len; i < bss_end - load; i++)
		cr_assert_eq(g[i], 0);
	cr_assert_eq(*(uint8_t *)ti_gpa(load - 1, 1), 0xaa);
	cr_assert_eq(e.info_start, bss_end);	/* page aligned already */
}

/* load_end_addr 0: to the end of the file; bss_end_addr 0: no bss. */
Test(loader, mb1_aout_kludge_defaults)
{
	const uint32_t load = 0x300000, skip = 0x100, len = 0x2345;
	struct boot_entry e;

	ti_flat(&ti, len);
	/* the load starts 0x100 bytes into the file */
	ti_mb1_kludge(&ti, 0, load + TI_MB1_OFF - skip, load, 0, 0, load);
	dirty_ram();
	load_ok(0, &e);
	cr_assert_eq(e.load_start, load);
	cr_assert_eq(e.load_end, load + len - skip);
	cr_assert_eq(memcmp(ti_gpa(load, len - skip), ti.buf + skip, len - skip), 0);
	cr_assert_eq(*(uint8_t *)ti_gpa(load + len - skip, 1), 0xaa);
}

/* The kludge wins over an ELF header, as GRUB has it. */
Test(loader, mb1_aout_kludge_beats_elf)
{
	const uint32_t load = 0x400000;
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1_kludge(&ti, 0, load + TI_MB1_OFF, load, 0, 0, load + 4);
	load_ok(0, &e);
	cr_assert_eq(e.eip, load + 4);
	cr_assert_eq(e.load_start, load);
	cr_assert_eq(memcmp(ti_gpa(load, ti.len), ti.buf, ti.len), 0);
}

/* Multiboot2 3.1.5 + 3.1.6: address and entry address tags. */
Test(loader, mb2_address_tag)
{
	const uint32_t load = 0x180000, len = 0x2800;
	uint32_t addr[4] = { load + TI_MB2_OFF, load, load + len, load + 0x4000 };
	uint32_t entry = load + 0x1000;
	const uint8_t *g;
	struct boot_entry e;
	uint32_t i;

	ti_flat(&ti, len);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	dirty_ram();
	load_ok(0, &e);
	cr_assert_eq(e.protocol, 2);
	cr_assert_eq(e.eip, entry);
	cr_assert_eq(e.load_start, load);
	cr_assert_eq(e.load_end, load + 0x4000);
	g = ti_gpa(load, 0x4000);
	cr_assert_eq(memcmp(g, ti.buf, len), 0, "image (with its header) copied");
	for (i = len; i < 0x4000; i++)
		cr_assert_eq(g[i], 0);
}

/* Multiboot2 3.1.5: load_addr -1 loads the file from its beginning. */
Test(loader, mb2_address_tag_load_addr_minus_one)
{
	const uint32_t base = 0x500000, len = 0x1800;
	uint32_t addr[4] = { base + TI_MB2_OFF, 0xffffffff, 0, 0 };
	uint32_t entry = base + 0x20;
	struct boot_entry e;

	ti_flat(&ti, len);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_ADDRESS, 0, addr, sizeof(addr));
	ti_mb2_tag(&ti, MB2_HT_ENTRY_ADDRESS, 0, &entry, 4);
	ti_mb2_end(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.load_start, base);
	cr_assert_eq(e.load_end, base + len);
	cr_assert_eq(memcmp(ti_gpa(base, len), ti.buf, len), 0);
}

Test(loader, gdt_is_flat)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.gdt_limit, 3 * 8 - 1);
	cr_assert_eq(e.gdt_addr % 8, 0);
	cr_assert_geq(e.gdt_addr, e.info_start);
	cr_assert_leq(e.gdt_addr + 24ull, e.info_end);
	cr_assert_eq(ti_get64(e.gdt_addr), 0);
	cr_assert_eq(ti_get64(e.gdt_addr + LOADER_GDT_CS), LOADER_GDT_CODE);
	cr_assert_eq(ti_get64(e.gdt_addr + LOADER_GDT_DS), LOADER_GDT_DATA);
	/* decode the code descriptor: base 0, limit 0xfffff, G, D, P, type 0xb */
	cr_assert_eq(LOADER_GDT_CODE & 0xffff, 0xffff);
	cr_assert_eq((LOADER_GDT_CODE >> 48) & 0xf, 0xf);
	cr_assert_eq((LOADER_GDT_CODE >> 16) & 0xffffff, 0);
	cr_assert_eq(LOADER_GDT_CODE >> 56, 0);
	cr_assert_eq((LOADER_GDT_CODE >> 40) & 0xff, 0x9b);
	cr_assert_eq((LOADER_GDT_CODE >> 52) & 0xf, 0xc);
	cr_assert_eq((LOADER_GDT_DATA >> 40) & 0xff, 0x93);
}

/* Modules page aligned after the kernel, then the info, page aligned. */
Test(loader, layout_after_kernel)
{
	static uint8_t m0[5000], m1[3];
	struct boot_module mods[] = {
		{ m0, sizeof(m0), "first" }, { m1, sizeof(m1), NULL },
	};
	struct boot_params p;
	struct boot_entry e;
	char err[256];
	uint32_t m0_start, m1_start;

	memset(m0, 0x11, sizeof(m0));
	memset(m1, 0x22, sizeof(m1));
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN);
	p = ti_params(&ti, 0);
	p.mods = mods;
	p.nr_mods = 2;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	m0_start = ti_get32(ti_get32(e.ebx + 24));
	m1_start = ti_get32(ti_get32(e.ebx + 24) + 16);
	cr_assert_eq(m0_start, TI_END);		/* TI_END is page aligned */
	cr_assert_eq(m1_start, TI_END + 0x2000);
	cr_assert_eq(e.info_start, m1_start + 0x1000);
	cr_assert_eq(e.info_start % 0x1000, 0);
	cr_assert_gt(e.info_end, e.info_start);
	cr_assert_leq(e.info_end, TI_RAM);
	cr_assert_eq(memcmp(ti_gpa(m0_start, sizeof(m0)), m0, sizeof(m0)), 0);
	cr_assert_eq(memcmp(ti_gpa(m1_start, sizeof(m1)), m1, sizeof(m1)), 0);
}

/* A low kernel: what would touch [0x9fc00, 1 MiB) goes to 1 MiB instead. */
Test(loader, layout_skips_bios_area)
{
	static uint8_t small[0x800], big[0x97000];
	struct boot_module mods[] = {
		{ small, sizeof(small), "small" }, { big, sizeof(big), "big" },
	};
	struct tseg seg = TSEG(0x8000, 0x100, 0x1000);
	struct boot_params p;
	struct boot_entry e;
	char err[256];
	uint32_t list;

	memset(small, 0x44, sizeof(small));
	memset(big, 0x33, sizeof(big));
	ti_elf(&ti, ELFCLASS32, 0x8000, &seg, 1);
	ti_mb1(&ti, 0);
	p = ti_params(&ti, 0);
	p.mods = mods;
	p.nr_mods = 2;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.load_end, 0x9000);
	list = ti_get32(e.ebx + 24);			/* mods_addr */
	cr_assert_eq(ti_get32(list), 0x9000);		/* fits below the area */
	cr_assert_eq(ti_get32(list + 16), LOADER_RESERVED_END);	/* would cross */
	cr_assert_eq(ti_get32(list + 20), LOADER_RESERVED_END + sizeof(big));
	cr_assert_eq(e.info_start, LOADER_RESERVED_END + sizeof(big));
	cr_assert_eq(memcmp(ti_gpa(0x9000, sizeof(small)), small, sizeof(small)), 0);
	cr_assert_eq(memcmp(ti_gpa(LOADER_RESERVED_END, sizeof(big)), big,
			    sizeof(big)), 0);
}

/* Nothing big in the way: the info goes right after a low kernel. */
Test(loader, layout_low_kernel_low_info)
{
	struct tseg seg = TSEG(0x8000, 0x100, 0x1000);
	struct boot_entry e;

	ti_elf(&ti, ELFCLASS32, 0x8000, &seg, 1);
	ti_mb2(&ti);
	load_ok(0, &e);
	cr_assert_eq(e.info_start, 0x9000);
	cr_assert_lt(e.info_end, LOADER_RESERVED_START);
}
