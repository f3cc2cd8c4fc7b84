// SPDX-License-Identifier: MIT
/* Test images for the loader: see loader_images.h. */
#include <string.h>

#include <criterion/criterion.h>

#include "loader_images.h"
#include "boot/mem.h"

struct guest_mem ti_mem;

void ti_setup(void)
{
	cr_assert_eq(mem_init(&ti_mem, TI_RAM), 0);
}

void ti_teardown(void)
{
	mem_free(&ti_mem);
}

/* Never zero, and not periodic in any power of two. */
uint8_t ti_pattern(size_t file_off)
{
	return (file_off * 37 + 11) % 251 + 1;
}

static void put16(struct timage *ti, size_t off, uint16_t v)
{
	memcpy(ti->buf + off, &v, sizeof(v));
}

static void put32(struct timage *ti, size_t off, uint32_t v)
{
	memcpy(ti->buf + off, &v, sizeof(v));
}

static uint32_t get32(const struct timage *ti, size_t off)
{
	uint32_t v;

	memcpy(&v, ti->buf + off, sizeof(v));
	return v;
}

static void ehdr32(struct timage *ti, uint64_t entry)
{
	Elf32_Ehdr h = {
		.e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT,
		.e_entry = entry, .e_phoff = sizeof(h), .e_ehsize = sizeof(h),
		.e_phentsize = sizeof(Elf32_Phdr), .e_phnum = ti->nr_segs,
	};
	unsigned i;

	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS32;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(ti->buf, &h, sizeof(h));
	for (i = 0; i < ti->nr_segs; i++) {
		const struct tseg *s = &ti->seg[i];
		Elf32_Phdr ph = {
			.p_type = s->type, .p_offset = s->offset,
			.p_vaddr = s->vaddr, .p_paddr = s->paddr,
			.p_filesz = s->filesz, .p_memsz = s->memsz,
			.p_flags = PF_R | PF_W | PF_X, .p_align = 0x1000,
		};
		memcpy(ti->buf + sizeof(h) + i * sizeof(ph), &ph, sizeof(ph));
	}
}

static void ehdr64(struct timage *ti, uint64_t entry)
{
	Elf64_Ehdr h = {
		.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_entry = entry, .e_phoff = sizeof(h), .e_ehsize = sizeof(h),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = ti->nr_segs,
	};
	unsigned i;

	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(ti->buf, &h, sizeof(h));
	for (i = 0; i < ti->nr_segs; i++) {
		const struct tseg *s = &ti->seg[i];
		Elf64_Phdr ph = {
			.p_type = s->type, .p_offset = s->offset,
			.p_vaddr = s->vaddr, .p_paddr = s->paddr,
			.p_filesz = s->filesz, .p_memsz = s->memsz,
			.p_flags = PF_R | PF_W | PF_X, .p_align = 0x1000,
		};
		memcpy(ti->buf + sizeof(h) + i * sizeof(ph), &ph, sizeof(ph));
	}
}

void ti_elf(struct timage *ti, int cls, uint64_t entry,
	    const struct tseg *seg, unsigned n)
{
	size_t off = TI_DATA_OFF, i, j;

	cr_assert_leq(n, TI_MAX_SEGS);
	memset(ti, 0, sizeof(*ti));
	ti->nr_segs = n;
	for (i = 0; i < n; i++) {
		ti->seg[i] = seg[i];
		ti->seg[i].offset = off;
		cr_assert_leq(off + seg[i].filesz, TI_SIZE);
		for (j = 0; j < seg[i].filesz; j++)
			ti->buf[off + j] = ti_pattern(off + j);
		off = (off + seg[i].filesz + 15) & ~(size_t)15;
	}
	ti->len = off;
	if (cls == ELFCLASS64)
		ehdr64(ti, entry);
	else
		ehdr32(ti, entry);
}

void ti_std_elf(struct timage *ti, int cls)
{
	const struct tseg seg[] = {
		TSEG(TI_TEXT, TI_TEXT_LEN, TI_TEXT_LEN),
		TSEG(TI_DATA, TI_DATA_FILESZ, TI_DATA_MEMSZ),
	};

	ti_elf(ti, cls, TI_ENTRY, seg, 2);
}

void ti_flat(struct timage *ti, size_t len)
{
	size_t i;

	cr_assert_leq(len, TI_SIZE);
	memset(ti, 0, sizeof(*ti));
	for (i = 0; i < len; i++)
		ti->buf[i] = ti_pattern(i);
	ti->len = len;
}

void ti_mb1(struct timage *ti, uint32_t flags)
{
	put32(ti, TI_MB1_OFF, MB1_HEADER_MAGIC);
	put32(ti, TI_MB1_OFF + 4, flags);
	ti_mb1_fix(ti);
}

void ti_mb1_kludge(struct timage *ti, uint32_t flags, uint32_t header_addr,
		   uint32_t load_addr, uint32_t load_end_addr,
		   uint32_t bss_end_addr, uint32_t entry_addr)
{
	put32(ti, TI_MB1_OFF + 12, header_addr);
	put32(ti, TI_MB1_OFF + 16, load_addr);
	put32(ti, TI_MB1_OFF + 20, load_end_addr);
	put32(ti, TI_MB1_OFF + 24, bss_end_addr);
	put32(ti, TI_MB1_OFF + 28, entry_addr);
	ti_mb1(ti, flags | MB1_HF_AOUT_KLUDGE);
}

void ti_mb1_fix(struct timage *ti)
{
	put32(ti, TI_MB1_OFF + 8, -(get32(ti, TI_MB1_OFF) +
				    get32(ti, TI_MB1_OFF + 4)));
}

void ti_mb2_begin(struct timage *ti)
{
	put32(ti, TI_MB2_OFF, MB2_HEADER_MAGIC);
	put32(ti, TI_MB2_OFF + 4, MB2_ARCH_I386);
	ti->mb2_pos = TI_MB2_OFF + sizeof(struct mb2_header);
}

void ti_mb2_tag(struct timage *ti, uint16_t type, uint16_t flags,
		const void *body, uint32_t body_len)
{
	size_t t = ti->mb2_pos;

	cr_assert_leq(t + 8 + body_len, TI_DATA_OFF);
	put16(ti, t, type);
	put16(ti, t + 2, flags);
	put32(ti, t + 4, 8 + body_len);
	if (body_len)
		memcpy(ti->buf + t + 8, body, body_len);
	ti->mb2_pos = (t + 8 + body_len + 7) & ~(size_t)7;
}

void ti_mb2_end(struct timage *ti)
{
	ti_mb2_tag(ti, MB2_HT_END, 0, NULL, 0);
	put32(ti, TI_MB2_OFF + 8, ti->mb2_pos - TI_MB2_OFF);
	ti_mb2_fix(ti);
}

void ti_mb2_fix(struct timage *ti)
{
	put32(ti, TI_MB2_OFF + 12, -(get32(ti, TI_MB2_OFF) +
				     get32(ti, TI_MB2_OFF + 4) +
				     get32(ti, TI_MB2_OFF + 8)));
}

void ti_mb2(struct timage *ti)
{
	ti_mb2_begin(ti);
	ti_mb2_end(ti);
}

struct boot_params ti_params(const struct timage *ti, int protocol)
{
	return (struct boot_params){
		.image = ti->buf, .image_len = ti->len, .image_path = TI_PATH,
		.protocol = protocol,
	};
}

int ti_load(const struct timage *ti, int protocol, struct boot_entry *e,
	    char *err, size_t errlen)
{
	struct boot_params p = ti_params(ti, protocol);

	return loader_load(&ti_mem, &p, e, err, errlen);
}

void *ti_gpa(uint64_t gpa, uint64_t len)
{
	void *p = mem_ptr(&ti_mem, gpa, len);

	cr_assert_not_null(p, "guest range [0x%llx, +0x%llx) is not RAM",
			   (unsigned long long)gpa, (unsigned long long)len);
	return p;
}

uint32_t ti_get32(uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, ti_gpa(gpa, 4), sizeof(v));
	return v;
}

uint64_t ti_get64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, ti_gpa(gpa, 8), sizeof(v));
	return v;
}

/* The first TI_RAM bytes, at most (a test may use more RAM). */
bool ti_ram_is_zero(void)
{
	uint64_t n = ti_mem.low_size < TI_RAM ? ti_mem.low_size : TI_RAM;
	const uint64_t *g = ti_gpa(0, n);
	size_t i;

	for (i = 0; i < n / 8; i++)
		if (g[i])
			return false;
	return true;
}

void ti_expect_params_err(const struct boot_params *p, const char *what)
{
	struct boot_entry e;
	char err[256];

	memset(&e, 0x55, sizeof(e));
	cr_assert_eq(loader_load(&ti_mem, p, &e, err, sizeof(err)), -1,
		     "loaded, but should fail with \"%s\"", what);
	cr_assert_not_null(strstr(err, what), "error \"%s\", want \"%s\"", err, what);
	cr_assert_null(strchr(err, '\n'), "one line");
	cr_assert_eq(e.eip, 0, "boot_entry cleared");
	cr_assert(ti_ram_is_zero(), "a failed load wrote guest memory");
}

void ti_expect_err(const struct timage *ti, int protocol, const char *what)
{
	struct boot_params p = ti_params(ti, protocol);

	ti_expect_params_err(&p, what);
}
