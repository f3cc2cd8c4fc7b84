// SPDX-License-Identifier: MIT
/*
 * Both ends of the boot: the VMM's loader writes the boot information,
 * the kernel's parser (kernel/boot/mbinfo.c, built for the host) reads it
 * back.  They must agree, for Multiboot 1 and 2 alike.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../kernel/boot/mbinfo.h"
#include "loader_images.h"
#include "boot/mem.h"

TestSuite(mbinfo, .init = ti_setup, .fini = ti_teardown);

static struct timage ti;
static uint8_t mod_data[3][5000];
static struct boot_module mods[3] = {
	{ mod_data[0], 5000, "initrd" },
	{ mod_data[1], 1, "" },
	{ mod_data[2], 0, NULL },
};
static const char rsdp_old[20] = "RSD PTR \x01v1";
static const char rsdp_new[36] = "RSD PTR \x02v2 rsdp, with an xsdt";

/* mbinfo's view of guest memory: the loader's own bounds check. */
static const void *phys(void *ctx, uint64_t addr, uint64_t len)
{
	return mem_ptr(ctx, addr, len);
}

static void load(int cls, int protocol, const char *append, unsigned nr_mods,
		 bool acpi, struct boot_entry *e)
{
	struct boot_params p;
	char err[256];
	unsigned i;

	ti_std_elf(&ti, cls);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
	ti_mb2(&ti);
	for (i = 0; i < 3; i++)
		memset(mod_data[i], 0x10 + i, sizeof(mod_data[i]));
	p = ti_params(&ti, protocol);
	p.append = append;
	p.mods = mods;
	p.nr_mods = nr_mods;
	if (acpi) {
		p.rsdp_old = rsdp_old;
		p.rsdp_new = rsdp_new;
		p.rsdp_new_len = sizeof(rsdp_new);
	}
	cr_assert_eq(loader_load(&ti_mem, &p, e, err, sizeof(err)), 0, "%s", err);
}

static void parse(const struct boot_entry *e, struct mbinfo *mi)
{
	int ret = mbinfo_parse(e->eax, e->ebx, phys, &ti_mem, mi);

	cr_assert_eq(ret, 0, "mbinfo_parse: %s", mbinfo_strerror(ret));
	cr_assert_eq(mi->proto, e->protocol);
}

/* A pointer mbinfo returned must lie in the boot information the loader wrote. */
static void assert_in_info(const struct boot_entry *e, const void *p, size_t len)
{
	const uint8_t *lo = ti_gpa(e->info_start, e->info_end - e->info_start);

	cr_assert((const uint8_t *)p >= lo &&
		  (const uint8_t *)p + len <= lo + (e->info_end - e->info_start));
}

/* [start, end) lies inside one available range of the parsed map. */
static bool in_available(const struct mbinfo *mi, uint64_t start, uint64_t end)
{
	const struct mbinfo_mmap *m;
	unsigned i;

	for (i = 0; i < mi->nr_mmap; i++) {
		m = &mi->mmap[i];
		if (m->type == MB_MEMORY_AVAILABLE && m->addr <= start &&
		    end <= m->addr + m->len)
			return true;
	}
	return false;
}

static void check_common(const struct boot_entry *e, const struct mbinfo *mi,
			 const char *cmdline, unsigned nr_mods, uint64_t ram)
{
	uint64_t low = ram < MEM_HOLE_START ? ram : MEM_HOLE_START;
	unsigned i;

	cr_assert_str_eq(mi->cmdline, cmdline);
	assert_in_info(e, mi->cmdline, strlen(cmdline) + 1);
	cr_assert_str_eq(mi->loader_name, LOADER_NAME);
	cr_assert(mi->has_mem);
	cr_assert_eq(mi->mem_lower_kb, 639);
	cr_assert_eq(mi->mem_upper_kb, (low - 0x100000) / 1024);

	cr_assert_eq(mi->nr_mmap, ram > low ? 5 : 4);
	cr_assert_eq(mi->mmap[0].addr, 0);
	cr_assert_eq(mi->mmap[0].len, LOADER_RESERVED_START);
	cr_assert_eq(mi->mmap[0].type, MB_MEMORY_AVAILABLE);
	cr_assert_eq(mi->mmap[1].type, MB_MEMORY_RESERVED);
	cr_assert_eq(mi->mmap[2].addr + mi->mmap[2].len, LOADER_RESERVED_END);
	cr_assert_eq(mi->mmap[2].type, MB_MEMORY_RESERVED);
	cr_assert_eq(mi->mmap[3].addr, LOADER_RESERVED_END);
	cr_assert_eq(mi->mmap[3].addr + mi->mmap[3].len, low);
	cr_assert_eq(mi->mmap[3].type, MB_MEMORY_AVAILABLE);
	if (ram > low) {
		cr_assert_eq(mi->mmap[4].addr, MEM_HIGH_START);
		cr_assert_eq(mi->mmap[4].len, ram - low);
	}
	/* what the loader put into RAM is in RAM the map calls available */
	cr_assert(in_available(mi, e->load_start, e->load_end));
	cr_assert(in_available(mi, e->info_start, e->info_end));

	cr_assert_eq(mi->nr_mods, nr_mods);
	for (i = 0; i < nr_mods; i++) {
		const struct mbinfo_module *m = &mi->mods[i];

		cr_assert_eq(m->start % 0x1000, 0);
		cr_assert_geq(m->start, i ? mi->mods[i - 1].end : e->load_end);
		cr_assert_eq(m->end - m->start, mods[i].len);
		cr_assert_leq(m->end, e->info_start);
		cr_assert_eq(memcmp(ti_gpa(m->start, mods[i].len), mods[i].data,
				    mods[i].len), 0);
		cr_assert(in_available(mi, m->start, m->end));
		cr_assert_str_eq(m->string, mods[i].string ? mods[i].string : "");
	}
}

Test(mbinfo, mb1_agrees)
{
	struct boot_entry e;
	struct mbinfo mi;

	load(ELFCLASS32, 1, "console=ttyS0 loglevel=7", 3, true, &e);
	parse(&e, &mi);
	check_common(&e, &mi, TI_PATH " console=ttyS0 loglevel=7", 3, TI_RAM);
	cr_assert_null(mi.rsdp, "Multiboot 1 has no ACPI field");
}

/* A phys() that maps only the boot information, to the byte. */
static uint64_t tight_lo, tight_hi;

static const void *tight_phys(void *ctx, uint64_t addr, uint64_t len)
{
	if (addr < tight_lo || addr > tight_hi || len > tight_hi - addr)
		return NULL;
	return mem_ptr(ctx, addr, len);
}

/* strings at the end of what phys() maps, inside a page, still parse */
Test(mbinfo, strings_at_the_end_of_mapped_memory)
{
	struct boot_entry e;
	struct mbinfo mi;
	int proto, ret;

	for (proto = 1; proto <= 2; proto++) {
		load(ELFCLASS32, proto, "console=ttyS0", 3, true, &e);
		tight_lo = e.info_start;
		tight_hi = e.info_end;
		cr_assert_neq(tight_hi % 4096, 0, "ends inside a page");
		ret = mbinfo_parse(e.eax, e.ebx, tight_phys, &ti_mem, &mi);
		cr_assert_eq(ret, 0, "mb%d: %s", proto, mbinfo_strerror(ret));
		cr_assert_str_eq(mi.cmdline, TI_PATH " console=ttyS0");
		cr_assert_str_eq(mi.loader_name, LOADER_NAME);
		cr_assert_str_eq(mi.mods[0].string, "initrd");
	}
}

Test(mbinfo, mb2_agrees)
{
	struct boot_entry e;
	struct mbinfo mi;

	load(ELFCLASS64, 0, "console=ttyS0 loglevel=7", 3, true, &e);
	cr_assert_eq(e.protocol, 2);
	parse(&e, &mi);
	check_common(&e, &mi, TI_PATH " console=ttyS0 loglevel=7", 3, TI_RAM);
	cr_assert_not_null(mi.rsdp);
	cr_assert(mi.rsdp_new, "the ACPI 2.0 copy wins");
	assert_in_info(&e, mi.rsdp, sizeof(rsdp_new));
	cr_assert_eq(memcmp(mi.rsdp, rsdp_new, sizeof(rsdp_new)), 0);
}

Test(mbinfo, mb2_old_rsdp_only)
{
	struct boot_params p;
	struct boot_entry e;
	struct mbinfo mi;
	char err[256];

	ti_std_elf(&ti, ELFCLASS64);
	ti_mb2(&ti);
	p = ti_params(&ti, 0);
	p.rsdp_old = rsdp_old;
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s", err);
	parse(&e, &mi);
	cr_assert_not_null(mi.rsdp);
	cr_assert_not(mi.rsdp_new);
	cr_assert_eq(memcmp(mi.rsdp, rsdp_old, sizeof(rsdp_old)), 0);
	check_common(&e, &mi, TI_PATH, 0, TI_RAM);
}

/* an old ACPI tag whose RSDP says revision 2 but holds 20 bytes: skipped */
Test(mbinfo, mb2_old_tag_claiming_revision_2_is_skipped)
{
	static const uint8_t info[48] = {
		48, 0, 0, 0, 0, 0, 0, 0,		/* total_size */
		14, 0, 0, 0, 28, 0, 0, 0,		/* ACPI old, 28 bytes */
		'R', 'S', 'D', ' ', 'P', 'T', 'R', ' ',
		0, 'I', 'R', 'Q', 'L', 'A', 'B', 2,	/* revision 2 */
		0, 0, 0, 0, 0, 0, 0, 0,			/* and padding */
		0, 0, 0, 0, 8, 0, 0, 0,			/* end tag */
	};
	struct mbinfo mi;

	memcpy(ti_gpa(0x200000, sizeof(info)), info, sizeof(info));
	cr_assert_eq(mbinfo_parse(MB2_BOOT_MAGIC, 0x200000, phys, &ti_mem,
				  &mi), 0);
	cr_assert_null(mi.rsdp, "36 bytes would be read from a 20-byte copy");
}

Test(mbinfo, both_agree_on_high_memory)
{
	const uint64_t ram = MEM_HOLE_START + (32ull << 20);
	struct boot_entry e;
	struct mbinfo mi;
	int protocol;

	mem_free(&ti_mem);
	cr_assert_eq(mem_init(&ti_mem, ram), 0);
	for (protocol = 1; protocol <= 2; protocol++) {
		load(ELFCLASS64, protocol, NULL, 1, false, &e);
		parse(&e, &mi);
		check_common(&e, &mi, TI_PATH, 1, ram);
		cr_assert_null(mi.rsdp);
	}
}

/* Every mix of protocol, module count and command line parses the same. */
Test(mbinfo, matrix)
{
	static const char *const appends[] = { NULL, "", "x", "a b  c" };
	struct boot_entry e;
	struct mbinfo mi;
	char want[64];
	unsigned a, n;
	int protocol;

	for (protocol = 1; protocol <= 2; protocol++)
		for (n = 0; n <= 3; n++)
			for (a = 0; a < 4; a++) {
				load(n & 1 ? ELFCLASS64 : ELFCLASS32, protocol,
				     appends[a], n, a & 1, &e);
				parse(&e, &mi);
				snprintf(want, sizeof(want), "%s%s%s", TI_PATH,
					 appends[a] && *appends[a] ? " " : "",
					 appends[a] ? appends[a] : "");
				check_common(&e, &mi, want, n, TI_RAM);
				cr_assert_eq(mi.rsdp != NULL, protocol == 2 && (a & 1));
			}
}
