// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the kernel's multiboot-info parser (kernel/boot/mbinfo.c,
 * built for the host) fed raw bytes and the VMM's own boot information
 * mutated.  Memory is one heap block of exactly the bytes given (ASan sees
 * a read past it), mapped at a guest address; phys() maps nothing else.
 * The first input byte picks the mode:
 *
 *   even: raw.  u32 magic (EAX), u32 base, u32 info (EBX), all little
 *	endian, then the bytes of memory at [base, base + rest).
 *   odd: patched.  Byte 1 picks one of NR_IMAGES images that the VMM's
 *	loader (vmm/boot/loader.c, bootinfo.c) built at start-up: Multiboot
 *	1 or 2, plain, with a command line, 3 modules and the RSDP copies
 *	of vmm/boot/acpi.c, or with 20 modules; its boot information region
 *	[info_start, info_end).  Byte 2 cuts that many bytes off its end;
 *	then patches, each u16 offset (mod the length) and a byte n, then
 *	n % 16 + 1 bytes written there (past the end: dropped).
 *
 * Invariants, abort() on violation: the result is 0 or an MBINFO_E* code
 * mbinfo_strerror() knows; at most MBINFO_MAX_MMAP and MBINFO_MAX_MODS
 * entries; every string the parser returns is NUL-terminated inside the
 * block (or the parser's own ""), the RSDP it returns lies inside with
 * the 20 bytes, or 36 if its revision is 2 or more, that acpi_parse()
 * reads; modules start <= end; an image the loader built
 * and nobody touched parses, with the loader's command line, name,
 * modules and RSDP.
 *
 * Seeds: IRQLAB_FUZZ_SEEDS=DIR build/fuzz/fuzz_mbinfo writes the images
 * as raw-mode seeds (and a patch-mode seed of each) into DIR and exits;
 * tests/fuzz/corpus/mbinfo/ was made so (docs/FUZZING.md).
 */
#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernel/boot/mbinfo.h"
#include "fuzz_patch.h"
#include "boot/acpi.h"
#include "boot/loader.h"
#include "boot/mem.h"

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_mbinfo: %s:%d: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} \
} while (0)

#define NR_IMAGES	6
#define IMG_LEN		0x1000
#define IMG_LOAD	0x100000u
#define MB1_OFF		0x100
#define MB2_OFF		0x200
#define RAM		(8u << 20)
#define APPEND		"console=pv check=ipi bench=ipi_pingpong iters=200"
#define PATH		"/boot/irqlab.elf"

struct image {
	uint8_t *bytes;
	size_t len;
	uint32_t magic, base, ebx;
	int protocol;
	unsigned nr_mods;
	bool full;		/* command line, module strings, RSDPs */
};

static struct image images[NR_IMAGES];
static struct acpi_result acpi;

/* The block the parser may see */
static const uint8_t *blk;
static uint64_t blk_base, blk_len;

static const void *phys(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	if (addr < blk_base || addr - blk_base > blk_len ||
	    len > blk_len - (addr - blk_base))
		return NULL;
	return blk + (addr - blk_base);
}

static bool inside(const void *p, uint64_t len)
{
	const uint8_t *b = p;

	return b >= blk && b <= blk + blk_len &&
	       len <= (uint64_t)(blk + blk_len - b);
}

/* a NUL-terminated string inside the block */
static bool string_inside(const char *s)
{
	uint64_t room;

	if (!inside(s, 0))
		return false;
	room = blk + blk_len - (const uint8_t *)s;
	return memchr(s, 0, room) != NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* A one-segment ELF32 kernel with both multiboot headers. */
static void kernel_image(uint8_t *img)
{
	Elf32_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32,
			     ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT,
		.e_entry = IMG_LOAD + 0x400, .e_phoff = sizeof(Elf32_Ehdr),
		.e_ehsize = sizeof(Elf32_Ehdr),
		.e_phentsize = sizeof(Elf32_Phdr), .e_phnum = 1,
	};
	Elf32_Phdr ph = {
		.p_type = PT_LOAD, .p_offset = 0, .p_vaddr = IMG_LOAD,
		.p_paddr = IMG_LOAD, .p_filesz = IMG_LEN,
		.p_memsz = 2 * IMG_LEN, .p_flags = PF_R | PF_W | PF_X,
		.p_align = 0x1000,
	};
	uint32_t flags = MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO;

	memset(img, 0, IMG_LEN);
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), &ph, sizeof(ph));
	/* Multiboot 3.1.1 and Multiboot2 3.1.1: magic, ..., checksum */
	put32(img + MB1_OFF, MB1_HEADER_MAGIC);
	put32(img + MB1_OFF + 4, flags);
	put32(img + MB1_OFF + 8, -(MB1_HEADER_MAGIC + flags));
	put32(img + MB2_OFF, MB2_HEADER_MAGIC);
	put32(img + MB2_OFF + 4, MB2_ARCH_I386);
	put32(img + MB2_OFF + 8, 24);	/* header and the end tag */
	put32(img + MB2_OFF + 12, -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + 24));
	put32(img + MB2_OFF + 20, 8);	/* end tag: type 0, size 8 */
}

static const char *const mod_names[3] = { "initrd", "", NULL };
static uint8_t mod_data[20][16];

static void build(struct image *im, unsigned i)
{
	static uint8_t kernel[IMG_LEN], area[ACPI_AREA_LEN];
	struct boot_module mods[20];
	struct acpi_config cfg;
	struct boot_params p;
	struct boot_entry e;
	struct guest_mem m;
	char err[256];
	unsigned k;

	kernel_image(kernel);
	acpi_default_config(&cfg, 4);
	CHECK(!acpi_build(area, ACPI_AREA_GPA, sizeof(area), &cfg, &acpi));
	im->protocol = i % 2 + 1;
	im->full = i / 2 == 1;
	im->nr_mods = i / 2 == 0 ? 0 : i / 2 == 1 ? 3 : 20;
	for (k = 0; k < im->nr_mods; k++) {
		mods[k].data = mod_data[k];
		mods[k].len = 1 + k % 16;
		mods[k].string = im->full ? mod_names[k % 3] : "m";
	}
	p = (struct boot_params){
		.image = kernel, .image_len = sizeof(kernel),
		.image_path = PATH, .protocol = im->protocol,
		.append = im->full ? APPEND : NULL,
		.mods = mods, .nr_mods = im->nr_mods,
		.rsdp_old = im->full ? acpi.rsdp_v1 : NULL,
		.rsdp_new = im->full ? acpi.rsdp_v2 : NULL,
		.rsdp_new_len = im->full ? sizeof(acpi.rsdp_v2) : 0,
	};
	CHECK(!mem_init(&m, RAM));
	if (loader_load(&m, &p, &e, err, sizeof(err))) {
		fprintf(stderr, "fuzz_mbinfo: loader: %s\n", err);
		abort();
	}
	im->magic = e.eax;
	im->base = e.info_start;
	im->ebx = e.ebx;
	im->len = e.info_end - e.info_start;
	im->bytes = malloc(im->len);
	CHECK(im->bytes && im->len);
	memcpy(im->bytes, mem_ptr(&m, e.info_start, im->len), im->len);
	mem_free(&m);
}

/* IRQLAB_FUZZ_SEEDS=DIR: each image as a raw seed and as a patch seed */
static void write_seeds(const char *dir)
{
	uint8_t hdr[13], patch[3];
	char name[64];
	unsigned i;

	for (i = 0; i < NR_IMAGES; i++) {
		struct image *im = &images[i];

		hdr[0] = 0;
		memcpy(hdr + 1, &im->magic, 4);
		memcpy(hdr + 5, &im->base, 4);
		memcpy(hdr + 9, &im->ebx, 4);
		snprintf(name, sizeof(name), "raw-mb%d-%s-%umods",
			 im->protocol, im->full ? "full" : "plain",
			 im->nr_mods);
		fuzz_write_seed(dir, name, hdr, sizeof(hdr), im->bytes, im->len);
		patch[0] = 1;
		patch[1] = i;
		patch[2] = 0;
		snprintf(name, sizeof(name), "patch-%u", i);
		fuzz_write_seed(dir, name, patch, sizeof(patch), NULL, 0);
	}
	printf("fuzz_mbinfo: %u raw and %u patch seeds in %s\n", NR_IMAGES,
	       NR_IMAGES, dir);
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("IRQLAB_FUZZ_SEEDS");
	unsigned i;

	(void)argc;
	(void)argv;
	for (i = 0; i < NR_IMAGES; i++)
		build(&images[i], i);
	if (dir)
		write_seeds(dir);
	return 0;
}

static void check_result(int ret, const struct mbinfo *mi)
{
	unsigned i;

	CHECK(ret <= 0 && ret >= MBINFO_ELAST);
	CHECK(strcmp(mbinfo_strerror(ret), "unknown error"));
	CHECK(mi->nr_mmap <= MBINFO_MAX_MMAP);
	CHECK(mi->nr_mods <= MBINFO_MAX_MODS);
	if (mi->cmdline)
		CHECK(string_inside(mi->cmdline));
	if (mi->loader_name)
		CHECK(string_inside(mi->loader_name));
	for (i = 0; i < mi->nr_mods; i++) {
		CHECK(mi->mods[i].start <= mi->mods[i].end);
		CHECK(!mi->mods[i].string[0] ||
		      string_inside(mi->mods[i].string));
	}
	/* what acpi_parse() reads: 20 bytes, 36 from revision 2 on */
	if (mi->rsdp)
		CHECK(inside(mi->rsdp, 20) &&
		      inside(mi->rsdp, ((const uint8_t *)mi->rsdp)[15] >= 2 ?
			     36 : 20));
	if (!ret)
		CHECK(mi->proto == 1 || mi->proto == 2 ||
		      mi->proto == MBINFO_PROTO_PVH);
}

/* The image as the loader built it: the parser reads what it wrote. */
static void check_pristine(const struct image *im, const struct mbinfo *mi)
{
	unsigned i;

	CHECK(mi->proto == im->protocol);
	CHECK(mi->loader_name && !strcmp(mi->loader_name, LOADER_NAME));
	CHECK(mi->cmdline && !strncmp(mi->cmdline, PATH, strlen(PATH)));
	if (im->full)
		CHECK(strstr(mi->cmdline, APPEND));
	CHECK(mi->nr_mods == (im->nr_mods < MBINFO_MAX_MODS ? im->nr_mods :
			      MBINFO_MAX_MODS));
	for (i = 0; i < mi->nr_mods; i++) {
		const char *want = im->full ? mod_names[i % 3] : "m";

		CHECK(!strcmp(mi->mods[i].string, want ? want : ""));
		CHECK(mi->mods[i].end - mi->mods[i].start == 1 + i % 16);
	}
	CHECK(mi->has_mem && mi->nr_mmap > 0);
	if (im->full && im->protocol == 2) {
		CHECK(mi->rsdp && mi->rsdp_new);
		CHECK(!memcmp(mi->rsdp, acpi.rsdp_v2, 36));
	}
}

static int fuzz_raw(const uint8_t *data, size_t size)
{
	uint32_t magic, base, ebx;
	struct mbinfo mi;
	uint8_t *copy;
	int ret;

	if (size < 13)
		return 0;
	memcpy(&magic, data + 1, 4);
	memcpy(&base, data + 5, 4);
	memcpy(&ebx, data + 9, 4);
	copy = malloc(size - 13 ? size - 13 : 1);
	CHECK(copy);
	memcpy(copy, data + 13, size - 13);
	blk = copy;
	blk_base = base;
	blk_len = size - 13;
	ret = mbinfo_parse(magic, ebx, phys, NULL, &mi);
	check_result(ret, &mi);
	free(copy);
	return 0;
}

static int fuzz_patch(const uint8_t *data, size_t size)
{
	const struct image *im;
	const uint8_t *ip = data + 3, *end = data + size;
	struct mbinfo mi;
	bool touched;
	uint8_t *copy;
	size_t len;
	int ret;

	if (size < 3)
		return 0;
	im = &images[data[1] % NR_IMAGES];
	copy = fuzz_patched(im->bytes, im->len, data[2], ip, end, &len, &touched);
	CHECK(copy);
	blk = copy;
	blk_base = im->base;
	blk_len = len;
	ret = mbinfo_parse(im->magic, im->ebx, phys, NULL, &mi);
	check_result(ret, &mi);
	if (!touched) {
		if (ret)
			fprintf(stderr, "fuzz_mbinfo: image %u: %s\n",
				data[1] % NR_IMAGES, mbinfo_strerror(ret));
		CHECK(ret == 0);
		check_pristine(im, &mi);
	}
	free(copy);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	return data[0] & 1 ? fuzz_patch(data, size) : fuzz_raw(data, size);
}
