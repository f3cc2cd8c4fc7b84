// SPDX-License-Identifier: MIT
/*
 * The PVH entry (vmm/boot/pvh.c): an ELF64 vmlinux with the Xen note
 * XEN_ELFNOTE_PHYS32_ENTRY, its segments loaded as multiboot's, and the
 * struct hvm_start_info EBX points at.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../kernel/boot/mbinfo.h"
#include "boot/mem.h"
#include "hw/pvh.h"
#include "loader_images.h"

TestSuite(pvh, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;

#define NOTE_PADDR	0x200000ull	/* PT_NOTE: not loaded */
#define PVH_ENTRY	(TI_TEXT + 0x40)

/* The standard segments and a PT_NOTE with @pad bytes of another note
 * first, then "Xen" type 18 with a @descsz-byte entry point. */
static void pvh_image(uint32_t descsz, uint64_t entry, uint32_t type)
{
	const struct tseg seg[] = {
		TSEG(TI_TEXT, TI_TEXT_LEN, TI_TEXT_LEN),
		TSEG(TI_DATA, TI_DATA_FILESZ, TI_DATA_MEMSZ),
		{ PT_NOTE, NOTE_PADDR, NOTE_PADDR, 48, 0, 0 },
	};
	uint32_t other[] = { 4, 4, 1, 0x554e47 /* "GNU" */, 0x12345678 };
	uint32_t hdr[] = { 4, descsz, type };
	uint8_t *n;

	/* the vmlinux's virtual entry: e_entry is not what PVH enters */
	ti_elf(&ti, ELFCLASS64, TI_ENTRY, seg, 3);
	n = ti.buf + ti.seg[2].offset;
	memset(n, 0, 48);
	memcpy(n, other, sizeof(other));
	memcpy(n + 20, hdr, sizeof(hdr));
	memcpy(n + 32, "Xen", 4);
	memcpy(n + 36, &entry, descsz <= 8 ? descsz : 8);
}

static uint64_t g64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, ti_gpa(gpa, 8), 8);
	return v;
}

static uint32_t g32(uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, ti_gpa(gpa, 4), 4);
	return v;
}

Test(pvh, entry_and_start_info)
{
	static const uint8_t rd[3000] = { 9, 8, 7 };
	struct boot_params p;
	struct boot_entry e;
	char err[256] = "";
	uint64_t si, mm, mod;

	pvh_image(8, PVH_ENTRY, 18);
	p = ti_params(&ti, 0);
	p.append = "console=ttyS0";
	p.initrd = rd;
	p.initrd_len = sizeof(rd);
	p.rsdp_gpa = 0xe0000;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.protocol, LOADER_PROTO_PVH);
	cr_assert_eq(e.mode, BOOT_MODE_PM32, "32-bit protected mode, paging off");
	cr_assert_eq(e.eip, PVH_ENTRY, "the note's entry, not e_entry");
	cr_assert_eq(e.cs, LOADER_GDT_CS);
	cr_assert_eq(g64(e.gdt_addr + 8), LOADER_GDT_CODE);
	si = e.ebx;
	cr_assert_eq(g32(si), 0x336ec578, "XEN_HVM_START_MAGIC_VALUE");
	cr_assert_eq(g32(si + 4), 1, "version 1: with the memory map");
	cr_assert_eq(g32(si + 12), 1, "one module: the initrd");
	cr_assert_str_eq(ti_gpa(g64(si + 24), 14), "console=ttyS0");
	cr_assert_eq(g64(si + 32), 0xe0000, "rsdp_paddr");
	mm = g64(si + 40);
	cr_assert_eq(g32(si + 48), 4, "memmap_entries (8 MiB of RAM)");
	cr_assert_eq(g64(mm + 24 * 3), 0x100000);
	cr_assert_eq(g64(mm + 24 * 3 + 8), TI_RAM - 0x100000);
	cr_assert_eq(g32(mm + 24 * 3 + 16), 1, "RAM");
	cr_assert_eq(g32(mm + 24 + 16), 2, "the EBDA, reserved");
	mod = g64(si + 16);
	cr_assert_eq(g64(mod + 8), sizeof(rd));
	cr_assert_eq(g64(mod) % 4096, 0);
	cr_assert_geq(g64(mod), TI_END, "after the kernel");
	cr_assert_eq(memcmp(ti_gpa(g64(mod), sizeof(rd)), rd, sizeof(rd)), 0);
	/* the segments, as for multiboot */
	cr_assert_eq(*(uint8_t *)ti_gpa(TI_TEXT, 1), ti_pattern(ti.seg[0].offset));
	cr_assert_eq(*(uint8_t *)ti_gpa(NOTE_PADDR, 1), 0, "PT_NOTE not loaded");
}

/* A 4-byte descriptor (a 32-bit kernel's .long) works too; no initrd */
Test(pvh, four_byte_note_no_initrd)
{
	struct boot_params p;
	struct boot_entry e;
	char err[256] = "";

	pvh_image(4, PVH_ENTRY, 18);
	p = ti_params(&ti, 0);
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.eip, PVH_ENTRY);
	cr_assert_eq(g32(e.ebx + 12), 0, "no module");
	cr_assert_eq(g64(e.ebx + 16), 0);
}

/* Multiboot wins when an image has both */
Test(pvh, multiboot_first)
{
	struct boot_params p;
	struct boot_entry e;
	char err[256] = "";

	pvh_image(8, PVH_ENTRY, 18);
	ti_mb2(&ti);
	p = ti_params(&ti, 0);
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.protocol, 2);
}

Test(pvh, forced_multiboot_ignores_the_note)
{
	pvh_image(8, PVH_ENTRY, 18);
	ti_expect_err(&ti, 1, "no multiboot1 header");
}

Test(pvh, refused)
{
	static const uint8_t rd[16];
	struct boot_module m = { rd, sizeof(rd), "" };
	struct boot_params p;

	pvh_image(8, PVH_ENTRY, 17);		/* another Xen note */
	ti_expect_err(&ti, 0, "no multiboot header");
	pvh_image(2, PVH_ENTRY, 18);		/* a descriptor of 2 bytes */
	ti_expect_err(&ti, 0, "no multiboot header");
	pvh_image(8, 0x100000000ull, 18);
	ti_expect_err(&ti, 0, "PVH entry point 0x100000000 above 4 GiB");
	pvh_image(8, 0x50000, 18);
	ti_expect_err(&ti, 0, "outside the loaded image");
	pvh_image(8, PVH_ENTRY, 18);
	p = ti_params(&ti, 0);
	p.mods = &m;
	p.nr_mods = 1;
	ti_expect_params_err(&p, "--module with a PVH kernel");
	/* a note running past its segment */
	pvh_image(8, PVH_ENTRY, 18);
	memset(ti.buf + ti.seg[2].offset + 24, 0xff, 4);	/* huge descsz */
	ti_expect_err(&ti, 0, "no multiboot header");
}

/* --pvh: the irqlab kernel has both, and PVH is asked for */
Test(pvh, forced_pvh_over_multiboot)
{
	struct boot_params p;
	struct boot_entry e;
	char err[256] = "";

	pvh_image(4, PVH_ENTRY, 18);
	ti_mb2(&ti);
	p = ti_params(&ti, LOADER_PROTO_PVH);
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.protocol, LOADER_PROTO_PVH);
	cr_assert_eq(e.eip, PVH_ENTRY);
}

Test(pvh, forced_pvh_needs_the_note)
{
	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	ti_expect_err(&ti, LOADER_PROTO_PVH, "no Xen PVH entry");
	ti_expect_err(&ti, 3, "bad boot protocol 3");
}

/* mbinfo-style phys for the kernel's parser: the loader's bounds check */
static const void *phys(void *ctx, uint64_t addr, uint64_t len)
{
	return mem_ptr(ctx, addr, len);
}

/* Both ends: the kernel's parser (kernel/boot/mbinfo.c) reads what the
 * loader wrote, with the magic boot/pvh.S puts in EAX. */
Test(pvh, kernel_reads_the_start_info)
{
	static const uint8_t rd[3000];
	struct boot_params p;
	struct boot_entry e;
	struct mbinfo mi;
	char err[256] = "";
	uint8_t *rsdp;

	pvh_image(8, PVH_ENTRY, 18);
	p = ti_params(&ti, 0);
	p.append = "check=ipi apic=x2apic";
	p.initrd = rd;
	p.initrd_len = sizeof(rd);
	p.rsdp_gpa = 0xe0000;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	rsdp = ti_gpa(0xe0000, 36);
	memcpy(rsdp, "RSD PTR ", 8);
	cr_assert_eq(mbinfo_parse(HVM_START_MAGIC, e.ebx, phys, &ti_mem, &mi), 0);
	cr_assert_eq(mi.proto, MBINFO_PROTO_PVH);
	cr_assert_str_eq(mbinfo_proto_name(mi.proto), "pvh");
	cr_assert_str_eq(mi.cmdline, "check=ipi apic=x2apic");
	cr_assert_eq(mi.nr_mods, 1);
	cr_assert_eq(mi.mods[0].end - mi.mods[0].start, sizeof(rd));
	cr_assert_str_eq(mi.mods[0].string, "");
	cr_assert_eq(mi.nr_mmap, 4);
	cr_assert_eq(mi.mmap[3].addr, 0x100000);
	cr_assert(mi.has_mem, "mem_lower/upper taken from the map");
	cr_assert_eq(mi.mem_upper_kb, (TI_RAM - 0x100000) >> 10);
	cr_assert_eq(mi.mem_lower_kb, mi.mmap[0].len >> 10);
	cr_assert_eq(mi.rsdp, rsdp);
	cr_assert_eq(mi.rsdp_new, 0, "revision 0: the 20-byte RSDP");
	rsdp[15] = 2;
	cr_assert_eq(mbinfo_parse(HVM_START_MAGIC, e.ebx, phys, &ti_mem, &mi), 0);
	cr_assert_eq(mi.rsdp_new, 1, "revision 2: the 36-byte RSDP");

	/* what the kernel refuses */
	memset(ti_gpa(e.ebx, 4), 0, 4);
	cr_assert_eq(mbinfo_parse(HVM_START_MAGIC, e.ebx, phys, &ti_mem, &mi),
		     MBINFO_EPVH, "no magic in the start info");
	cr_assert_eq(mbinfo_parse(HVM_START_MAGIC, TI_RAM, phys, &ti_mem, &mi),
		     MBINFO_EINFO, "start info outside memory");
}
