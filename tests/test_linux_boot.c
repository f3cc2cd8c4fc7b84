// SPDX-License-Identifier: MIT
/*
 * The Linux boot protocol loader (vmm/boot/linux.c) on synthetic
 * bzImages: the 64-bit entry state, the zero page field by field, the
 * page tables, the initrd's place, and each image or parameter it must
 * refuse, with guest memory untouched.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "boot/linux.h"
#include "boot/loader.h"
#include "boot/mem.h"

#define RAM		(32ull << 20)
#define IMG_SIZE	0x3000
#define SETUP_SECTS	3		/* the protected-mode part at 0x800 */
#define PM_OFF		((SETUP_SECTS + 1) * 512)
#define PREF		0x400000ull	/* pref_address */
#define INIT_SIZE	0x300000u
#define RSDP_GPA	0xe0000ull

static struct guest_mem mem;
static uint8_t img[IMG_SIZE];
static size_t img_len;

static void setup(void)
{
	cr_assert_eq(mem_init(&mem, RAM), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

TestSuite(linux_boot, .init = setup, .fini = teardown);

static void p16(size_t off, uint16_t v)
{
	memcpy(img + off, &v, 2);
}

static void p32(size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}

static void p64(size_t off, uint64_t v)
{
	memcpy(img + off, &v, 8);
}

static uint64_t g64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, mem_ptr(&mem, gpa, 8), 8);
	return v;
}

static uint32_t g32(uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, mem_ptr(&mem, gpa, 4), 4);
	return v;
}

static uint8_t g8(uint64_t gpa)
{
	return *(uint8_t *)mem_ptr(&mem, gpa, 1);
}

/* A bzImage as Debian's is, in small: protocol 2.15, relocatable,
 * XLF_KERNEL_64, the header to 0x268, pattern bytes for the kernel. */
static void std_image(void)
{
	size_t i;

	memset(img, 0, sizeof(img));
	img_len = IMG_SIZE;
	for (i = PM_OFF; i < img_len; i++)
		img[i] = (i * 37 + 11) % 251 + 1;
	img[LH_SETUP_SECTS] = SETUP_SECTS;
	p16(LH_BOOT_FLAG, LH_BOOT_FLAG_MAGIC);
	img[LH_JUMP] = 0xeb;
	img[LH_JUMP + 1] = 0x66;			/* header ends at 0x268 */
	p32(LH_HEADER, LH_HEADER_MAGIC);
	p16(LH_VERSION, 0x020f);
	img[LH_LOADFLAGS] = LH_LOADED_HIGH;
	p32(LH_CODE32_START, 0x100000);
	p32(LH_INITRD_ADDR_MAX, 0x7fffffff);
	p32(LH_KERNEL_ALIGNMENT, 0x200000);
	img[LH_RELOCATABLE] = 1;
	p16(LH_XLOADFLAGS, LH_XLF_KERNEL_64 | 0x2);
	p32(LH_CMDLINE_SIZE, 2047);
	p64(LH_PREF_ADDRESS, PREF);
	p32(LH_INIT_SIZE, INIT_SIZE);
}

static struct boot_params params(const char *append, const uint8_t *initrd,
				 size_t initrd_len)
{
	return (struct boot_params){
		.image = img, .image_len = img_len, .image_path = "bzImage",
		.append = append, .rsdp_gpa = RSDP_GPA,
		.initrd = initrd, .initrd_len = initrd_len,
	};
}

static void load_ok(const struct boot_params *p, struct boot_entry *e)
{
	char err[256] = "";

	cr_assert_eq(loader_load(&mem, p, e, err, sizeof(err)), 0, "%s", err);
}

static bool ram_is_zero(void)
{
	const uint64_t *g = mem_ptr(&mem, 0, RAM);
	size_t i;

	for (i = 0; i < RAM / 8; i++)
		if (g[i])
			return false;
	return true;
}

static void expect_err(const struct boot_params *p, const char *what)
{
	struct boot_entry e;
	char err[256];

	cr_assert_eq(loader_load(&mem, p, &e, err, sizeof(err)), -1,
		     "loaded, but should fail with \"%s\"", what);
	cr_assert_not_null(strstr(err, what), "error \"%s\", want \"%s\"",
			   err, what);
	cr_assert_null(strchr(err, '\n'), "one line");
	cr_assert(ram_is_zero(), "a failed load wrote guest memory");
}

/* boot.rst "64-bit BOOT PROTOCOL": the entry state */
Test(linux_boot, entry_state)
{
	struct boot_entry e;
	struct boot_params p;

	std_image();
	p = params("console=ttyS0", NULL, 0);
	load_ok(&p, &e);
	cr_assert_eq(e.protocol, LOADER_PROTO_LINUX);
	cr_assert_eq(e.mode, BOOT_MODE_LONG64);
	cr_assert_eq(e.eip, PREF + 0x200, "entry at the kernel + 0x200");
	cr_assert_eq(e.rsi, LINUX_ZP_GPA, "RSI: the zero page");
	cr_assert_eq(e.cs, 0x10, "__BOOT_CS");
	cr_assert_eq(e.ds, 0x18, "__BOOT_DS");
	cr_assert_eq(e.cr3, LINUX_PML4_GPA);
	cr_assert_eq(e.gdt_addr, LINUX_GDT_GPA);
	cr_assert_eq(e.gdt_limit, 31);
	cr_assert_eq(g64(LINUX_GDT_GPA + 0x10), 0x00af9b000000ffffull,
		     "flat 64-bit code, execute/read");
	cr_assert_eq(g64(LINUX_GDT_GPA + 0x18), 0x00cf93000000ffffull,
		     "flat data, read/write");
	cr_assert_eq(e.load_start, PREF);
	cr_assert_eq(e.load_end, PREF + INIT_SIZE);
	/* the protected-mode kernel, byte for byte, at pref_address */
	cr_assert_eq(memcmp(mem_ptr(&mem, PREF, IMG_SIZE - PM_OFF),
			    img + PM_OFF, IMG_SIZE - PM_OFF), 0);
	cr_assert_eq(g8(PREF - 1), 0, "nothing of the setup before it");
}

/* zero-page.rst and boot.rst "Details of header fields" */
Test(linux_boot, zero_page)
{
	static const uint8_t rd[5000] = { 1, 2, 3 };
	uint64_t zp = LINUX_ZP_GPA, rdaddr;
	struct boot_entry e;
	struct boot_params p;

	std_image();
	p = params("console=ttyS0 quiet", rd, sizeof(rd));
	load_ok(&p, &e);
	/* the header, copied from the image */
	cr_assert_eq(g32(zp + LH_HEADER), LH_HEADER_MAGIC);
	cr_assert_eq(g8(zp + LH_SETUP_SECTS), SETUP_SECTS);
	cr_assert_eq(g32(zp + LH_VERSION) & 0xffff, 0x020f);
	cr_assert_eq(g32(zp + LH_INIT_SIZE), INIT_SIZE);
	cr_assert_eq(g32(zp + LH_KERNEL_ALIGNMENT), 0x200000);
	cr_assert_eq(g8(zp + 0x268), 0, "nothing past the header's end");
	/* the fields a boot loader writes */
	cr_assert_eq(g8(zp + LH_TYPE_OF_LOADER), 0xff, "undefined loader");
	cr_assert_eq(g8(zp + LH_LOADFLAGS), LH_LOADED_HIGH | LH_CAN_USE_HEAP);
	cr_assert_eq(g32(zp + LH_CODE32_START), PREF, "where it was loaded");
	cr_assert_eq(g32(zp + LH_CMD_LINE_PTR), LINUX_CMDLINE_GPA);
	cr_assert_str_eq(mem_ptr(&mem, LINUX_CMDLINE_GPA, 20),
			 "console=ttyS0 quiet");
	cr_assert_eq(g32(zp + ZP_EXT_CMD_LINE_PTR), 0);
	cr_assert_eq(g64(zp + ZP_ACPI_RSDP_ADDR), RSDP_GPA, "2.14+");
	/* the initrd: page aligned, at the top of RAM, above the kernel */
	rdaddr = g32(zp + LH_RAMDISK_IMAGE);
	cr_assert_eq(g32(zp + LH_RAMDISK_SIZE), sizeof(rd));
	cr_assert_eq(rdaddr % 4096, 0);
	cr_assert_eq(rdaddr, (RAM - sizeof(rd)) & ~0xfffull);
	cr_assert_eq(memcmp(mem_ptr(&mem, rdaddr, sizeof(rd)), rd,
			    sizeof(rd)), 0);
	/* e820: the loader's memory map */
	cr_assert_eq(g8(zp + ZP_E820_ENTRIES), 4);
	cr_assert_eq(g64(zp + ZP_E820_TABLE), 0);
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 8), 0x9fc00);
	cr_assert_eq(g32(zp + ZP_E820_TABLE + 16), E820_RAM);
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 20), 0x9fc00, "EBDA");
	cr_assert_eq(g32(zp + ZP_E820_TABLE + 36), E820_RESERVED);
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 40), 0xe0000, "BIOS, ACPI");
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 48), 0x20000);
	cr_assert_eq(g32(zp + ZP_E820_TABLE + 56), E820_RESERVED);
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 60), 0x100000);
	cr_assert_eq(g64(zp + ZP_E820_TABLE + 68), RAM - 0x100000);
	cr_assert_eq(g32(zp + ZP_E820_TABLE + 76), E820_RAM);
}

/* A guest with RAM above 4 GiB gets that range in e820 too. */
Test(linux_boot, e820_high_ram)
{
	struct guest_mem big;
	struct boot_entry e;
	struct boot_params p;
	char err[256];
	uint64_t zp = LINUX_ZP_GPA + ZP_E820_TABLE + 4 * E820_ENTRY_SIZE;
	uint64_t v;

	cr_assert_eq(mem_init(&big, 4ull << 30), 0);
	std_image();
	p = params("", NULL, 0);
	cr_assert_eq(loader_load(&big, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(*(uint8_t *)mem_ptr(&big, LINUX_ZP_GPA + ZP_E820_ENTRIES,
					 1), 5);
	memcpy(&v, mem_ptr(&big, zp, 8), 8);
	cr_assert_eq(v, MEM_HIGH_START);
	memcpy(&v, mem_ptr(&big, zp + 8, 8), 8);
	cr_assert_eq(v, (4ull << 30) - MEM_HOLE_START);
	mem_free(&big);
}

/* The identity map covers the kernel, the zero page and the command line. */
Test(linux_boot, page_tables_identity_map)
{
	uint64_t va[] = { LINUX_ZP_GPA, LINUX_CMDLINE_GPA, PREF,
			  PREF + INIT_SIZE - 1, 0xfee00000 };
	struct boot_entry e;
	struct boot_params p;
	uint64_t pml4e, pdpte, pde;
	unsigned i;

	std_image();
	p = params("", NULL, 0);
	load_ok(&p, &e);
	for (i = 0; i < sizeof(va) / sizeof(va[0]); i++) {
		pml4e = g64(e.cr3 + 8 * ((va[i] >> 39) & 511));
		cr_assert_eq(pml4e & 1, 1, "PML4E present");
		pdpte = g64((pml4e & ~0xfffull) + 8 * ((va[i] >> 30) & 511));
		cr_assert_eq(pdpte & 1, 1, "PDPTE present");
		pde = g64((pdpte & ~0xfffull) + 8 * ((va[i] >> 21) & 511));
		cr_assert_eq(pde & 0x83, 0x83, "2 MiB page, present, writable");
		cr_assert_eq((pde & ~0x1fffffull) | (va[i] & 0x1fffff), va[i],
			     "identity for 0x%llx", (unsigned long long)va[i]);
	}
}

/* pref_address does not fit: a relocatable kernel goes lower, aligned. */
Test(linux_boot, relocated_when_pref_does_not_fit)
{
	struct boot_entry e;
	struct boot_params p;

	std_image();
	p64(LH_PREF_ADDRESS, 0x1000000000ull);		/* 64 GiB */
	p = params("", NULL, 0);
	load_ok(&p, &e);
	cr_assert_eq(e.load_start, 0x200000, "1 MiB, up to kernel_alignment");
	cr_assert_eq(e.eip, 0x200200);
}

/* initrd_addr_max bounds the initrd's end */
Test(linux_boot, initrd_below_addr_max)
{
	static const uint8_t rd[0x1800] = { 7 };
	struct boot_entry e;
	struct boot_params p;

	std_image();
	p32(LH_INITRD_ADDR_MAX, 0xffffff);
	p = params("", rd, sizeof(rd));
	load_ok(&p, &e);
	cr_assert_eq(g32(LINUX_ZP_GPA + LH_RAMDISK_IMAGE), 0x1000000 - 0x2000);
}

Test(linux_boot, truncated)
{
	struct boot_params p;

	std_image();
	img_len = 0x204;		/* the boot flag, half of "HdrS" */
	p = params("", NULL, 0);
	expect_err(&p, "truncated file: Linux setup header");
	std_image();
	img_len = 0x260;		/* "HdrS", not the 2.12 fields */
	p = params("", NULL, 0);
	expect_err(&p, "truncated file");
	std_image();
	img_len = PM_OFF;		/* no protected-mode kernel */
	p = params("", NULL, 0);
	expect_err(&p, "no protected-mode kernel");
}

Test(linux_boot, wrong_magic)
{
	struct boot_params p;

	std_image();
	memcpy(img + LH_HEADER, "HdrZ", 4);
	p = params("", NULL, 0);
	expect_err(&p, "\"HdrS\"");
}

Test(linux_boot, too_old_protocol)
{
	struct boot_params p;

	std_image();
	p16(LH_VERSION, 0x020b);
	p = params("", NULL, 0);
	expect_err(&p, "boot protocol 2.11 is too old");
}

Test(linux_boot, no_64bit_entry)
{
	struct boot_params p;

	std_image();
	p16(LH_XLOADFLAGS, 0);
	p = params("", NULL, 0);
	expect_err(&p, "XLF_KERNEL_64");
	std_image();
	img[LH_LOADFLAGS] = 0;
	p = params("", NULL, 0);
	expect_err(&p, "zImage");
}

Test(linux_boot, too_large_for_ram)
{
	struct boot_params p;

	std_image();
	p32(LH_INIT_SIZE, 64u << 20);
	p = params("", NULL, 0);
	expect_err(&p, "too large for guest RAM");
	/* not relocatable: pref_address or nothing */
	std_image();
	img[LH_RELOCATABLE] = 0;
	p64(LH_PREF_ADDRESS, RAM);
	p = params("", NULL, 0);
	expect_err(&p, "too large for guest RAM");
}

Test(linux_boot, bad_parameters)
{
	static const uint8_t rd[1];
	struct boot_module m = { rd, 1, "" };
	struct boot_params p;

	std_image();
	p32(LH_CMDLINE_SIZE, 8);
	p = params("console=ttyS0", NULL, 0);
	expect_err(&p, "cmdline_size 8");
	std_image();
	p = params("", rd, RAM);
	expect_err(&p, "initrd of");
	p = params("", NULL, 0);
	p.mods = &m;
	p.nr_mods = 1;
	expect_err(&p, "--module is for multiboot kernels");
	std_image();
	p32(LH_KERNEL_ALIGNMENT, 0x3000);
	p = params("", NULL, 0);
	expect_err(&p, "kernel_alignment");
}

/* Not a bzImage, not multiboot: the error names what was looked for. */
Test(linux_boot, neither)
{
	struct boot_params p;

	memset(img, 0, sizeof(img));
	img_len = IMG_SIZE;
	p = params("", NULL, 0);
	expect_err(&p, "no multiboot header");
}

/*
 * 3000 mutated headers, each in a buffer of its exact size (ASan sees a
 * read past the end): a load succeeds with the entry inside the kernel,
 * or fails with one line.
 */
Test(linux_boot, fuzz_headers)
{
	static const uint8_t rd[100];
	unsigned seed = 12345, i, j, n;
	struct boot_entry e;
	struct boot_params p;
	char err[256];
	uint8_t *copy;

	for (i = 0; i < 3000; i++) {
		std_image();
		n = 1 + (seed = seed * 1103515245 + 12345) % 8;
		for (j = 0; j < n; j++) {
			seed = seed * 1103515245 + 12345;
			img[0x1f1 + (seed >> 8) % (0x270 - 0x1f1)] = seed >> 20;
		}
		seed = seed * 1103515245 + 12345;
		img_len = i % 7 ? IMG_SIZE : (seed >> 4) % IMG_SIZE;
		copy = malloc(img_len ? img_len : 1);
		memcpy(copy, img, img_len);
		p = params("console=ttyS0", i % 2 ? rd : NULL, sizeof(rd));
		p.image = copy;
		err[0] = '\0';
		if (!loader_load(&mem, &p, &e, err, sizeof(err))) {
			cr_assert_eq(e.protocol, LOADER_PROTO_LINUX);
			cr_assert_eq(e.eip, e.load_start + 0x200);
			cr_assert_leq(e.load_end, RAM);
			memset(mem_ptr(&mem, 0, RAM), 0, RAM);
		} else {
			cr_assert(err[0] && !strchr(err, '\n'), "reason: %s", err);
		}
		free(copy);
	}
}
