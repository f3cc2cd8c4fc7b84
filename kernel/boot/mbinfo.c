// SPDX-License-Identifier: MIT
/*
 * The boot information parser (see mbinfo.h): Multiboot 1 and 2, and
 * the start info of the Xen PVH entry.
 *
 * Nothing the loader wrote is trusted: every range is mapped through
 * phys() before it is read, every size is checked against the memory it
 * claims, and every loop advances by at least its minimum entry size.
 * Each structure is first copied into a local variable, so a field is read
 * once and no access depends on the alignment of the loader's memory.
 */
#include <stddef.h>
#include <stdint.h>

#include "hw/multiboot.h"
#include "hw/pvh.h"
#include "mbinfo.h"

#define COPY(dst, src)	__builtin_memcpy(&(dst), (src), sizeof(dst))
#define ALIGN8(x)	(((x) + 7) & ~(uint64_t)7)

/*
 * Find a NUL-terminated string at @addr, at most MBINFO_STRING_MAX bytes
 * with its NUL.  We map it page by page, so a short string near the end
 * of memory is fine, then map the whole string once for the pointer.
 * Where @phys maps less than the rest of the page (memory, or what the
 * caller lets us see, ends inside it) we go on a byte at a time.
 */
static int get_string(mbinfo_phys_fn phys, void *ctx, uint64_t addr,
		      const char **out)
{
	uint64_t done = 0;

	if (addr > UINT64_MAX - MBINFO_STRING_MAX)
		return MBINFO_ESTRING;
	while (done < MBINFO_STRING_MAX) {
		uint64_t a = addr + done;
		uint64_t n = 4096 - (a & 4095);
		const char *p;
		uint64_t i;

		if (n > MBINFO_STRING_MAX - done)
			n = MBINFO_STRING_MAX - done;
		p = phys(ctx, a, n);
		if (!p) {
			n = 1;
			p = phys(ctx, a, n);
		}
		if (!p)
			return MBINFO_ESTRING;
		for (i = 0; i < n; i++) {
			if (p[i] == '\0') {
				*out = phys(ctx, addr, done + i + 1);
				return *out ? 0 : MBINFO_ESTRING;
			}
		}
		done += n;
	}
	return MBINFO_ESTRING;
}

/* A string stored inside a tag: @len bytes at @p, which must hold a NUL. */
static int tag_string(const char *p, uint64_t len, const char **out)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == '\0') {
			*out = p;
			return 0;
		}
	}
	return MBINFO_ESTRING;
}

static void add_mmap(struct mbinfo *out, uint64_t addr, uint64_t len,
		     uint32_t type)
{
	if (out->nr_mmap < MBINFO_MAX_MMAP) {
		out->mmap[out->nr_mmap].addr = addr;
		out->mmap[out->nr_mmap].len = len;
		out->mmap[out->nr_mmap].type = type;
		out->nr_mmap++;
	}
}

static int add_module(struct mbinfo *out, uint64_t start, uint64_t end,
		      const char *string)
{
	if (end < start)
		return MBINFO_EMODS;
	if (out->nr_mods < MBINFO_MAX_MODS) {
		out->mods[out->nr_mods].start = start;
		out->mods[out->nr_mods].end = end;
		out->mods[out->nr_mods].string = string;
		out->nr_mods++;
	}
	return 0;
}

/* ---- Multiboot 1 ---- */

/* Multiboot 1 3.3: mods_count entries of struct mb1_module at mods_addr. */
static int mb1_mods(const struct mb1_info *mi, mbinfo_phys_fn phys,
		    void *ctx, struct mbinfo *out)
{
	uint32_t i, n = mi->mods_count;
	const struct mb1_module *mods;

	if (n > MBINFO_MAX_MODS)
		n = MBINFO_MAX_MODS;	/* the rest are dropped unread */
	if (!n)
		return 0;
	mods = phys(ctx, mi->mods_addr, (uint64_t)n * sizeof(*mods));
	if (!mods)
		return MBINFO_EMODS;
	for (i = 0; i < n; i++) {
		struct mb1_module m;
		const char *s = "";
		int err;

		COPY(m, &mods[i]);
		/* 3.3 calls the string required; tolerate 0 as "none" */
		if (m.string) {
			err = get_string(phys, ctx, m.string, &s);
			if (err)
				return err;
		}
		err = add_module(out, m.mod_start, m.mod_end, s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Multiboot 1 3.3: mmap_length bytes at mmap_addr; each entry starts with
 * a u32 size that does not count itself, so the next entry is at
 * size + 4.  A size below 20 cannot hold base, length and type.
 */
static int mb1_mmap(const struct mb1_info *mi, mbinfo_phys_fn phys,
		    void *ctx, struct mbinfo *out)
{
	uint64_t off = 0, len = mi->mmap_length;
	const uint8_t *p;

	if (!len)
		return 0;
	p = phys(ctx, mi->mmap_addr, len);
	if (!p)
		return MBINFO_EMMAP;
	while (off < len) {
		struct mb1_mmap_entry e;
		uint32_t size;

		if (len - off < sizeof(size))
			return MBINFO_EMMAP;
		COPY(size, p + off);
		if (size < sizeof(e) - sizeof(size) ||
		    size > len - off - sizeof(size))
			return MBINFO_EMMAP;
		COPY(e, p + off);
		add_mmap(out, e.addr, e.len, e.type);
		off += sizeof(size) + (uint64_t)size;
	}
	return 0;
}

static int parse_mb1(uint64_t addr, mbinfo_phys_fn phys, void *ctx,
		     struct mbinfo *out)
{
	const struct mb1_info *p = phys(ctx, addr, sizeof(*p));
	struct mb1_info mi;
	int err;

	if (!p)
		return MBINFO_EINFO;
	COPY(mi, p);
	out->proto = 1;

	/* 3.3: each group of fields is valid only if its flags bit is set */
	if (mi.flags & MB1_INFO_MEMORY) {
		out->has_mem = 1;
		out->mem_lower_kb = mi.mem_lower;
		out->mem_upper_kb = mi.mem_upper;
	}
	if (mi.flags & MB1_INFO_CMDLINE) {
		err = get_string(phys, ctx, mi.cmdline, &out->cmdline);
		if (err)
			return err;
	}
	if (mi.flags & MB1_INFO_LOADER_NAME) {
		err = get_string(phys, ctx, mi.boot_loader_name,
				 &out->loader_name);
		if (err)
			return err;
	}
	if (mi.flags & MB1_INFO_MODS) {
		err = mb1_mods(&mi, phys, ctx, out);
		if (err)
			return err;
	}
	if (mi.flags & MB1_INFO_MEM_MAP) {
		err = mb1_mmap(&mi, phys, ctx, out);
		if (err)
			return err;
	}
	return 0;
}

/* ---- Multiboot 2 ---- */

/* 3.6.8: entry_size is a multiple of 8 and at least one struct mb2_mmap_entry. */
static int mb2_mmap(const uint8_t *tag, uint32_t size, struct mbinfo *out)
{
	struct mb2_tag_mmap t;
	uint64_t off;

	if (size < sizeof(t))
		return MBINFO_ETAG;
	COPY(t, tag);
	if (t.entry_size < sizeof(struct mb2_mmap_entry) || t.entry_size % 8)
		return MBINFO_EMMAP;
	for (off = sizeof(t); size - off >= t.entry_size; off += t.entry_size) {
		struct mb2_mmap_entry e;

		COPY(e, tag + off);
		add_mmap(out, e.addr, e.len, e.type);
	}
	return 0;
}

/* One tag of @size bytes (>= 8, within the info) at @tag. */
static int mb2_tag(const uint8_t *tag, uint32_t type, uint32_t size,
		   struct mbinfo *out)
{
	struct mb2_tag_basic_meminfo mem;
	struct mb2_tag_module mod;
	const char *s;
	int err;

	switch (type) {
	case MB2_TAG_CMDLINE:			/* 3.6.3 */
		return tag_string((const char *)tag + 8, size - 8, &out->cmdline);
	case MB2_TAG_LOADER_NAME:		/* 3.6.4 */
		return tag_string((const char *)tag + 8, size - 8,
				  &out->loader_name);
	case MB2_TAG_MODULE:			/* 3.6.6 */
		if (size < sizeof(mod))
			return MBINFO_ETAG;
		COPY(mod, tag);
		err = tag_string((const char *)tag + sizeof(mod),
				 size - sizeof(mod), &s);
		if (err)
			return err;
		return add_module(out, mod.mod_start, mod.mod_end, s);
	case MB2_TAG_BASIC_MEMINFO:		/* 3.6.2 */
		if (size < sizeof(mem))
			return MBINFO_ETAG;
		COPY(mem, tag);
		out->has_mem = 1;
		out->mem_lower_kb = mem.mem_lower;
		out->mem_upper_kb = mem.mem_upper;
		return 0;
	case MB2_TAG_MMAP:			/* 3.6.8 */
		return mb2_mmap(tag, size, out);
	case MB2_TAG_ACPI_OLD:			/* 3.6.12: a 20-byte RSDP */
		if (size < 8 + 20)
			return MBINFO_ETAG;
		/*
		 * acpi_parse() reads 36 bytes of an RSDP of revision 2 or
		 * more (byte 15, ACPI 6.5 5.2.5.3): a copy that claims it
		 * in a tag too short for them is skipped.
		 */
		if (tag[8 + 15] >= 2 && size < 8 + 36)
			return 0;
		if (!out->rsdp_new)
			out->rsdp = tag + 8;
		return 0;
	case MB2_TAG_ACPI_NEW:			/* 3.6.13: ACPI 2.0+ RSDP, 36 bytes */
		if (size < 8 + 36)
			return MBINFO_ETAG;
		out->rsdp = tag + 8;
		out->rsdp_new = 1;
		return 0;
	default:				/* 3.6: ignore unknown tags */
		return 0;
	}
}

/*
 * Multiboot 2 3.6.1: the info is 8-byte aligned and starts with total_size
 * (including itself) and a reserved u32; then tags, each 8-byte aligned,
 * until a tag of type 0 and size 8.
 */
static int parse_mb2(uint64_t addr, mbinfo_phys_fn phys, void *ctx,
		     struct mbinfo *out)
{
	const struct mb2_info_header *hp;
	struct mb2_info_header hdr;
	const uint8_t *base;
	uint64_t off;

	if (addr & 7)
		return MBINFO_EINFO;
	hp = phys(ctx, addr, sizeof(*hp));
	if (!hp)
		return MBINFO_EINFO;
	COPY(hdr, hp);
	if (hdr.total_size < sizeof(hdr) + sizeof(struct mb2_tag))
		return MBINFO_ESIZE;
	base = phys(ctx, addr, hdr.total_size);
	if (!base)
		return MBINFO_EINFO;
	out->proto = 2;

	off = sizeof(hdr);
	for (;;) {
		struct mb2_tag t;
		int err;

		/* off may pass total_size after the padding of the last tag */
		if (off >= hdr.total_size || hdr.total_size - off < sizeof(t))
			return MBINFO_ENOEND;
		COPY(t, base + off);
		if (t.size < sizeof(t) || t.size > hdr.total_size - off)
			return MBINFO_ETAG;
		if (t.type == MB2_TAG_END)
			return 0;
		err = mb2_tag(base + off, t.type, t.size, out);
		if (err)
			return err;
		/* t.size >= 8, so every step moves on */
		off += ALIGN8((uint64_t)t.size);
	}
}

/* ---- Xen PVH (include/hw/pvh.h) ---- */

/* start_info.h: nr_modules entries of struct hvm_modlist_entry; the
 * first is Linux's initrd, a string per module is optional (0: none). */
static int pvh_mods(const struct hvm_start_info *si, mbinfo_phys_fn phys,
		    void *ctx, struct mbinfo *out)
{
	uint32_t i, n = si->nr_modules;
	const struct hvm_modlist_entry *mods;

	if (n > MBINFO_MAX_MODS)
		n = MBINFO_MAX_MODS;
	if (!n)
		return 0;
	mods = phys(ctx, si->modlist_paddr, (uint64_t)n * sizeof(*mods));
	if (!mods)
		return MBINFO_EMODS;
	for (i = 0; i < n; i++) {
		struct hvm_modlist_entry m;
		const char *s = "";
		int err;

		COPY(m, &mods[i]);
		if (m.size > UINT64_MAX - m.paddr)
			return MBINFO_EMODS;
		if (m.cmdline_paddr) {
			err = get_string(phys, ctx, m.cmdline_paddr, &s);
			if (err)
				return err;
		}
		err = add_module(out, m.paddr, m.paddr + m.size, s);
		if (err)
			return err;
	}
	return 0;
}

/*
 * start_info.h version 1: memmap_entries e820 entries.  PVH has no
 * mem_lower/mem_upper, so they are taken from the map as Multiboot 1
 * 3.3 defines them: RAM from 0 (at most 640 KiB), and from 1 MiB to
 * the first hole.
 */
static int pvh_mmap(const struct hvm_start_info *si, mbinfo_phys_fn phys,
		    void *ctx, struct mbinfo *out)
{
	uint32_t i, n = si->memmap_entries;
	const struct hvm_memmap_entry *map;

	if (si->version < 1 || !n)
		return 0;
	if (n > MBINFO_MAX_MMAP)
		n = MBINFO_MAX_MMAP;
	map = phys(ctx, si->memmap_paddr, (uint64_t)n * sizeof(*map));
	if (!map)
		return MBINFO_EMMAP;
	for (i = 0; i < n; i++) {
		struct hvm_memmap_entry e;

		COPY(e, &map[i]);
		if (e.size > UINT64_MAX - e.addr)
			return MBINFO_EMMAP;
		add_mmap(out, e.addr, e.size, e.type);
		if (e.type != MB_MEMORY_AVAILABLE)
			continue;
		if (e.addr == 0) {
			out->mem_lower_kb = e.size > 0xa0000 ? 640 : e.size >> 10;
			out->has_mem = 1;
		} else if (e.addr <= 0x100000 && e.addr + e.size > 0x100000 &&
			   (e.addr + e.size - 0x100000) >> 10 <= UINT32_MAX) {
			out->mem_upper_kb = (e.addr + e.size - 0x100000) >> 10;
			out->has_mem = 1;
		}
	}
	return 0;
}

/* ACPI 6.4 sec. 5.2.5.3: 20 bytes, 36 from revision 2 (byte 15) on. */
static int pvh_rsdp(uint64_t addr, mbinfo_phys_fn phys, void *ctx,
		    struct mbinfo *out)
{
	const uint8_t *r;

	if (!addr)
		return 0;
	r = phys(ctx, addr, 20);
	if (!r)
		return MBINFO_ERSDP;
	if (r[15] >= 2) {
		r = phys(ctx, addr, 36);
		if (!r)
			return MBINFO_ERSDP;
		out->rsdp_new = 1;
	}
	out->rsdp = r;
	return 0;
}

static int parse_pvh(uint64_t addr, mbinfo_phys_fn phys, void *ctx,
		     struct mbinfo *out)
{
	struct hvm_start_info si = { 0 };
	const void *p = phys(ctx, addr, HVM_START_INFO_V0_SIZE);
	int err;

	if (!p)
		return MBINFO_EINFO;
	__builtin_memcpy(&si, p, HVM_START_INFO_V0_SIZE);
	if (si.magic != HVM_START_MAGIC)
		return MBINFO_EPVH;
	if (si.version >= 1) {
		p = phys(ctx, addr, sizeof(si));
		if (!p)
			return MBINFO_EINFO;
		COPY(si, p);
	}
	out->proto = MBINFO_PROTO_PVH;
	if (si.cmdline_paddr) {
		err = get_string(phys, ctx, si.cmdline_paddr, &out->cmdline);
		if (err)
			return err;
	}
	err = pvh_mods(&si, phys, ctx, out);
	if (!err)
		err = pvh_mmap(&si, phys, ctx, out);
	if (!err)
		err = pvh_rsdp(si.rsdp_paddr, phys, ctx, out);
	return err;
}

int mbinfo_parse(uint32_t magic, uint64_t info_addr, mbinfo_phys_fn phys,
		 void *ctx, struct mbinfo *out)
{
	__builtin_memset(out, 0, sizeof(*out));
	if (magic == MB1_BOOT_MAGIC)
		return parse_mb1(info_addr, phys, ctx, out);
	if (magic == MB2_BOOT_MAGIC)
		return parse_mb2(info_addr, phys, ctx, out);
	if (magic == HVM_START_MAGIC)	/* boot/pvh.S puts it in EAX */
		return parse_pvh(info_addr, phys, ctx, out);
	return MBINFO_EMAGIC;
}

const char *mbinfo_strerror(int err)
{
	switch (err) {
	case 0:
		return "no error";
	case MBINFO_EMAGIC:
		return "EAX holds no multiboot magic, nor the PVH entry's";
	case MBINFO_EINFO:
		return "boot information not in memory or misaligned";
	case MBINFO_ESIZE:
		return "multiboot2 total_size too small";
	case MBINFO_ETAG:
		return "multiboot2 tag too small or past the end";
	case MBINFO_ENOEND:
		return "multiboot2 tags without an end tag";
	case MBINFO_ESTRING:
		return "string not terminated in memory";
	case MBINFO_EMODS:
		return "bad module list";
	case MBINFO_EMMAP:
		return "bad memory map";
	case MBINFO_EPVH:
		return "PVH start info without its magic";
	case MBINFO_ERSDP:
		return "RSDP not in memory";
	default:
		return "unknown error";
	}
}

const char *mbinfo_proto_name(int proto)
{
	switch (proto) {
	case 1:
		return "mb1";
	case 2:
		return "mb2";
	case MBINFO_PROTO_PVH:
		return "pvh";
	default:
		return "none";
	}
}
