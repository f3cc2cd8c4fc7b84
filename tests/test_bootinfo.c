// SPDX-License-Identifier: MIT
/*
 * The boot information the loader builds: Multiboot 3.3 (struct mb1_info
 * and what it points at) and Multiboot2 3.6 (the tag list), read back from
 * guest memory field by field.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

TestSuite(bootinfo, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;
static uint8_t mod0[3000], mod1[10];
static const struct boot_module mods[] = {
	{ mod0, sizeof(mod0), "initrd.img root=/dev/ram0" },
	{ mod1, sizeof(mod1), NULL },
};

/* What the map must be for RAM of @size bytes (sizes used here only). */
struct range {
	uint64_t addr, len;
	uint32_t type;
};

static unsigned expected_mmap(uint64_t size, struct range *r)
{
	uint64_t low = size < MEM_HOLE_START ? size : MEM_HOLE_START;
	unsigned n = 0;

	r[n++] = (struct range){ 0, 0x9fc00, MB_MEMORY_AVAILABLE };
	r[n++] = (struct range){ 0x9fc00, 0x400, MB_MEMORY_RESERVED };
	r[n++] = (struct range){ 0xe0000, 0x20000, MB_MEMORY_RESERVED };
	r[n++] = (struct range){ 0x100000, low - 0x100000, MB_MEMORY_AVAILABLE };
	if (size > low)
		r[n++] = (struct range){ 1ull << 32, size - low, MB_MEMORY_AVAILABLE };
	return n;
}

static int load(int protocol, const char *append, unsigned nr_mods,
		struct boot_entry *e)
{
	struct boot_params p = ti_params(&ti, protocol);
	char err[256];
	int ret;

	memset(mod0, 0x5a, sizeof(mod0));
	memset(mod1, 0xa5, sizeof(mod1));
	p.append = append;
	p.mods = mods;
	p.nr_mods = nr_mods;
	ret = loader_load(&ti_mem, &p, e, err, sizeof(err));
	cr_assert_eq(ret, 0, "load failed: %s", err);
	return ret;
}

/* A guest string inside the info area. */
static const char *info_str(const struct boot_entry *e, uint32_t gpa)
{
	const char *s;

	cr_assert_geq(gpa, e->info_start);
	cr_assert_lt(gpa, e->info_end);
	s = ti_gpa(gpa, 1);
	cr_assert_not_null(memchr(s, 0, e->info_end - gpa), "unterminated");
	return s;
}

/* ---- Multiboot 1 ---- */

static const struct mb1_info *mb1_info(const struct boot_entry *e)
{
	cr_assert_eq(e->eax, MB1_BOOT_MAGIC);
	cr_assert_leq(e->ebx + sizeof(struct mb1_info), e->info_end);
	return ti_gpa(e->ebx, sizeof(struct mb1_info));
}

static void check_mb1_mmap(const struct boot_entry *e, uint64_t ram)
{
	const struct mb1_info *mi = mb1_info(e);
	struct range want[5];
	struct mb1_mmap_entry me;
	unsigned i, n = expected_mmap(ram, want);
	uint32_t a = mi->mmap_addr;

	cr_assert_eq(mi->mmap_length, n * sizeof(me));
	cr_assert_leq(a + mi->mmap_length, e->info_end);
	for (i = 0; i < n; i++, a += me.size + 4) {
		memcpy(&me, ti_gpa(a, sizeof(me)), sizeof(me));
		cr_assert_eq(me.size, 20);
		cr_assert_eq(me.addr, want[i].addr, "entry %u", i);
		cr_assert_eq(me.len, want[i].len, "entry %u", i);
		cr_assert_eq(me.type, want[i].type, "entry %u", i);
	}
}

Test(bootinfo, mb1_fields)
{
	const struct mb1_info *mi;
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
	load(0, "console=ttyS0 quiet", 0, &e);
	mi = mb1_info(&e);
	cr_assert_eq(mi->flags, MB1_INFO_MEMORY | MB1_INFO_CMDLINE |
		     MB1_INFO_MODS | MB1_INFO_MEM_MAP | MB1_INFO_LOADER_NAME);
	cr_assert_eq(mi->mem_lower, 639);
	cr_assert_eq(mi->mem_upper, (TI_RAM - 0x100000) / 1024);
	cr_assert_str_eq(info_str(&e, mi->cmdline), TI_PATH " console=ttyS0 quiet");
	cr_assert_str_eq(info_str(&e, mi->boot_loader_name), "irqlab-vmm");
	cr_assert_eq(mi->mods_count, 0);
	check_mb1_mmap(&e, TI_RAM);
}

Test(bootinfo, mb1_cmdline_without_append)
{
	struct boot_entry e;

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb1(&ti, 0);
	load(0, NULL, 0, &e);
	cr_assert_str_eq(info_str(&e, mb1_info(&e)->cmdline), TI_PATH);
	load(0, "", 0, &e);
	cr_assert_str_eq(info_str(&e, mb1_info(&e)->cmdline), TI_PATH);
}

Test(bootinfo, mb1_modules)
{
	const struct mb1_info *mi;
	struct mb1_module m[2];
	struct boot_entry e;
	unsigned i;

	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN);
	load(0, NULL, 2, &e);
	mi = mb1_info(&e);
	cr_assert_eq(mi->mods_count, 2);
	memcpy(m, ti_gpa(mi->mods_addr, sizeof(m)), sizeof(m));
	for (i = 0; i < 2; i++) {
		cr_assert_eq(m[i].mod_start % 0x1000, 0, "Multiboot 3.1.2 bit 0");
		cr_assert_geq(m[i].mod_start, e.load_end);
		cr_assert_eq(m[i].mod_end - m[i].mod_start, mods[i].len);
		cr_assert_leq(m[i].mod_end, e.info_start);
		cr_assert_eq(memcmp(ti_gpa(m[i].mod_start, mods[i].len),
				    mods[i].data, mods[i].len), 0);
	}
	cr_assert_geq(m[1].mod_start, m[0].mod_end);
	cr_assert_str_eq(info_str(&e, m[0].string), "initrd.img root=/dev/ram0");
	cr_assert_str_eq(info_str(&e, m[1].string), "");
}

/* RAM above the 3 GiB hole: mem_upper stops at the hole, the map goes on. */
Test(bootinfo, mb1_high_memory)
{
	const uint64_t ram = MEM_HOLE_START + (16ull << 20);
	struct boot_entry e;

	mem_free(&ti_mem);
	cr_assert_eq(mem_init(&ti_mem, ram), 0);
	ti_std_elf(&ti, ELFCLASS32);
	ti_mb1(&ti, MB1_HF_MEMINFO);
	load(0, NULL, 0, &e);
	cr_assert_eq(mb1_info(&e)->mem_upper, (MEM_HOLE_START - 0x100000) / 1024);
	check_mb1_mmap(&e, ram);
}

/* Less than 640 KiB of RAM: the map and mem_lower shrink to what is there. */
Test(bootinfo, mb1_tiny_ram)
{
	struct tseg seg = TSEG(0x8000, 0x100, 0x100);
	const struct mb1_info *mi;
	struct mb1_mmap_entry me;
	struct boot_entry e;

	mem_free(&ti_mem);
	cr_assert_eq(mem_init(&ti_mem, 0x80000), 0);
	ti_elf(&ti, ELFCLASS32, 0x8000, &seg, 1);
	ti_mb1(&ti, 0);
	load(0, NULL, 0, &e);
	mi = mb1_info(&e);
	cr_assert_eq(mi->mem_lower, 512);
	cr_assert_eq(mi->mem_upper, 0);
	cr_assert_eq(mi->mmap_length, 3 * sizeof(me));
	memcpy(&me, ti_gpa(mi->mmap_addr, sizeof(me)), sizeof(me));
	cr_assert_eq(me.addr, 0);
	cr_assert_eq(me.len, 0x80000);
	cr_assert_eq(me.type, MB_MEMORY_AVAILABLE);
}

/* ---- Multiboot 2 ---- */

/* Walk the tags (Multiboot2 3.6.1/3.6.2); returns the count, fills @tags. */
static unsigned mb2_walk(const struct boot_entry *e, uint32_t *tags,
			 unsigned max)
{
	uint32_t total, a, type, size;
	unsigned n = 0;

	cr_assert_eq(e->eax, MB2_BOOT_MAGIC);
	cr_assert_eq(e->ebx % 8, 0);
	total = ti_get32(e->ebx);
	cr_assert_eq(ti_get32(e->ebx + 4), 0, "reserved");
	cr_assert_leq(e->ebx + total, e->info_end);
	for (a = e->ebx + 8; ; a += (size + 7) & ~7u) {
		cr_assert_leq(a + 8, e->ebx + total, "tags run past total_size");
		type = ti_get32(a);
		size = ti_get32(a + 4);
		cr_assert_geq(size, 8);
		cr_assert_leq(a + size, e->ebx + total);
		cr_assert_lt(n, max);
		tags[n++] = a;
		if (type == MB2_TAG_END)
			break;
	}
	cr_assert_eq(size, 8, "end tag size");
	cr_assert_eq(a + 8, e->ebx + total, "end tag is last");
	return n;
}

/* The @nth tag of @type, or 0. */
static uint32_t mb2_find(const struct boot_entry *e, uint32_t type,
			 unsigned nth)
{
	uint32_t tags[64];
	unsigned i, n = mb2_walk(e, tags, 64);

	for (i = 0; i < n; i++)
		if (ti_get32(tags[i]) == type && nth-- == 0)
			return tags[i];
	return 0;
}

static void mb2_setup(void)
{
	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
}

Test(bootinfo, mb2_tags)
{
	uint32_t tags[64], t, type;
	unsigned i, n, seen[32] = { 0 };
	struct boot_entry e;

	mb2_setup();
	load(0, "a b", 2, &e);
	n = mb2_walk(&e, tags, 64);
	for (i = 0; i < n; i++) {
		type = ti_get32(tags[i]);
		cr_assert_lt(type, 32);
		seen[type]++;
	}
	cr_assert_eq(seen[MB2_TAG_CMDLINE], 1);
	cr_assert_eq(seen[MB2_TAG_LOADER_NAME], 1);
	cr_assert_eq(seen[MB2_TAG_MODULE], 2);
	cr_assert_eq(seen[MB2_TAG_BASIC_MEMINFO], 1);
	cr_assert_eq(seen[MB2_TAG_MMAP], 1);
	cr_assert_eq(seen[MB2_TAG_ACPI_OLD] + seen[MB2_TAG_ACPI_NEW], 0,
		     "no RSDP given, no ACPI tag");
	cr_assert_eq(seen[MB2_TAG_END], 1);
	cr_assert_eq(n, 7);

	t = mb2_find(&e, MB2_TAG_CMDLINE, 0);
	cr_assert_str_eq(info_str(&e, t + 8), TI_PATH " a b");
	cr_assert_eq(ti_get32(t + 4), 8 + sizeof(TI_PATH " a b"));
	t = mb2_find(&e, MB2_TAG_LOADER_NAME, 0);
	cr_assert_str_eq(info_str(&e, t + 8), "irqlab-vmm");
	t = mb2_find(&e, MB2_TAG_BASIC_MEMINFO, 0);
	cr_assert_eq(ti_get32(t + 4), 16);
	cr_assert_eq(ti_get32(t + 8), 639);
	cr_assert_eq(ti_get32(t + 12), (TI_RAM - 0x100000) / 1024);
}

Test(bootinfo, mb2_modules)
{
	uint32_t t, start, end;
	struct boot_entry e;
	unsigned i;

	mb2_setup();
	load(0, NULL, 2, &e);
	for (i = 0; i < 2; i++) {
		t = mb2_find(&e, MB2_TAG_MODULE, i);
		cr_assert_neq(t, 0);
		start = ti_get32(t + 8);
		end = ti_get32(t + 12);
		cr_assert_eq(start % 0x1000, 0);
		cr_assert_geq(start, e.load_end);
		cr_assert_eq(end - start, mods[i].len);
		cr_assert_leq(end, e.info_start);
		cr_assert_eq(memcmp(ti_gpa(start, end - start), mods[i].data,
				    mods[i].len), 0);
		cr_assert_str_eq(info_str(&e, t + 16),
				 mods[i].string ? mods[i].string : "");
		cr_assert_eq(ti_get32(t + 4), 16 + strlen(info_str(&e, t + 16)) + 1);
	}
}

static void check_mb2_mmap(const struct boot_entry *e, uint64_t ram)
{
	uint32_t t = mb2_find(e, MB2_TAG_MMAP, 0);
	struct range want[5];
	struct mb2_mmap_entry me;
	unsigned i, n = expected_mmap(ram, want);

	cr_assert_neq(t, 0);
	cr_assert_eq(ti_get32(t + 4), 16 + n * 24);
	cr_assert_eq(ti_get32(t + 8), 24, "entry_size");
	cr_assert_eq(ti_get32(t + 12), 0, "entry_version");
	for (i = 0; i < n; i++) {
		memcpy(&me, ti_gpa(t + 16 + i * 24, sizeof(me)), sizeof(me));
		cr_assert_eq(me.addr, want[i].addr, "entry %u", i);
		cr_assert_eq(me.len, want[i].len, "entry %u", i);
		cr_assert_eq(me.type, want[i].type, "entry %u", i);
		cr_assert_eq(me.zero, 0);
	}
}

Test(bootinfo, mb2_mmap)
{
	struct boot_entry e;

	mb2_setup();
	load(0, NULL, 0, &e);
	check_mb2_mmap(&e, TI_RAM);
}

Test(bootinfo, mb2_high_memory)
{
	const uint64_t ram = MEM_HOLE_START + (64ull << 20);
	struct boot_entry e;

	mem_free(&ti_mem);
	cr_assert_eq(mem_init(&ti_mem, ram), 0);
	mb2_setup();
	load(0, NULL, 0, &e);
	check_mb2_mmap(&e, ram);
	cr_assert_eq(ti_get32(mb2_find(&e, MB2_TAG_BASIC_MEMINFO, 0) + 12),
		     (MEM_HOLE_START - 0x100000) / 1024);
}

/* Multiboot2 3.6.16/3.6.17: the RSDPs are copied when the VMM has them. */
Test(bootinfo, mb2_acpi)
{
	static const char old[20] = "RSD PTR \x01old-rsdp-v1";
	static const char new[36] = "RSD PTR \x02new-rsdp-v2 with xsdt...";
	struct boot_params p;
	struct boot_entry e;
	char err[256];
	uint32_t t;

	mb2_setup();
	p = ti_params(&ti, 0);
	p.rsdp_old = old;
	p.rsdp_new = new;
	p.rsdp_new_len = sizeof(new);
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	t = mb2_find(&e, MB2_TAG_ACPI_OLD, 0);
	cr_assert_neq(t, 0);
	cr_assert_eq(ti_get32(t + 4), 8 + 20);
	cr_assert_eq(memcmp(ti_gpa(t + 8, 20), old, 20), 0);
	t = mb2_find(&e, MB2_TAG_ACPI_NEW, 0);
	cr_assert_neq(t, 0);
	cr_assert_eq(ti_get32(t + 4), 8 + 36);
	cr_assert_eq(memcmp(ti_gpa(t + 8, 36), new, 36), 0);

	p.rsdp_old = NULL;	/* only the new one */
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(mb2_find(&e, MB2_TAG_ACPI_OLD, 0), 0);
	cr_assert_neq(mb2_find(&e, MB2_TAG_ACPI_NEW, 0), 0);
}

/* Multiboot2 3.1.4: required requests for what we give are fine. */
Test(bootinfo, mb2_info_request_satisfied)
{
	static const char old[20] = "RSD PTR ";
	const uint32_t req[] = { MB2_TAG_CMDLINE, MB2_TAG_LOADER_NAME,
		MB2_TAG_MODULE, MB2_TAG_BASIC_MEMINFO, MB2_TAG_MMAP,
		MB2_TAG_ACPI_OLD };
	const uint32_t opt[] = { MB2_TAG_FRAMEBUFFER, MB2_TAG_BOOTDEV, 99 };
	struct boot_params p;
	struct boot_entry e;
	char err[256];

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_INFO_REQUEST, 0, req, sizeof(req));
	ti_mb2_tag(&ti, MB2_HT_INFO_REQUEST, MB2_HT_FLAG_OPTIONAL, opt, sizeof(opt));
	ti_mb2_end(&ti);
	p = ti_params(&ti, 0);
	p.rsdp_old = old;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_neq(mb2_find(&e, MB2_TAG_ACPI_OLD, 0), 0);
}

/* Tags we accept and ignore: console flags, module align, optional others. */
Test(bootinfo, mb2_tags_accepted)
{
	const uint32_t console = 3, fb[3] = { 1024, 768, 32 }, reloc[4] = { 0 };
	struct boot_entry e;
	char err[256];

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2_begin(&ti);
	ti_mb2_tag(&ti, MB2_HT_CONSOLE_FLAGS, 0, &console, 4);
	ti_mb2_tag(&ti, MB2_HT_MODULE_ALIGN, 0, NULL, 0);
	ti_mb2_tag(&ti, MB2_HT_FRAMEBUFFER, MB2_HT_FLAG_OPTIONAL, fb, sizeof(fb));
	ti_mb2_tag(&ti, MB2_HT_EFI_BS, MB2_HT_FLAG_OPTIONAL, NULL, 0);
	ti_mb2_tag(&ti, MB2_HT_ENTRY_EFI64, MB2_HT_FLAG_OPTIONAL, &console, 4);
	ti_mb2_tag(&ti, MB2_HT_RELOCATABLE, MB2_HT_FLAG_OPTIONAL, reloc, 16);
	ti_mb2_tag(&ti, 77, MB2_HT_FLAG_OPTIONAL, fb, 5);
	ti_mb2_end(&ti);
	cr_assert_eq(ti_load(&ti, 0, &e, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e.eip, TI_ENTRY);
	cr_assert_eq(mb2_find(&e, MB2_TAG_FRAMEBUFFER, 0), 0);
}
