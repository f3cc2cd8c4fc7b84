/* SPDX-License-Identifier: MIT */
/*
 * Multiboot kernel images built in memory, for the loader's tests: an ELF32
 * or ELF64 file (header, program headers, segment bytes), or a flat a.out
 * kludge file, plus the multiboot 1 and/or 2 headers put into it.
 *
 *	0x000	ELF header, program headers
 *	0x200	multiboot 1 header (TI_MB1_OFF)
 *	0x400	multiboot 2 header (TI_MB2_OFF)
 *	0x1000	the segments' bytes, one after the other (TI_DATA_OFF)
 *
 * Segment bytes are never zero (ti_pattern), so a test can tell copied
 * bytes from zeroed ones.
 */
#ifndef TESTS_LOADER_IMAGES_H
#define TESTS_LOADER_IMAGES_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/multiboot.h"
#include "boot/loader.h"

#define TI_SIZE		0x10000
#define TI_MB1_OFF	0x200
#define TI_MB2_OFF	0x400
#define TI_DATA_OFF	0x1000
#define TI_RAM		(8ull << 20)	/* guest RAM of each test */
#define TI_PATH		"/boot/irqlab.elf"
#define TI_MAX_SEGS	8

/* The standard image: text at 1 MiB, data + bss two pages further. */
#define TI_TEXT		0x100000ull
#define TI_TEXT_LEN	0x1800ull
#define TI_DATA		0x102000ull
#define TI_DATA_FILESZ	0x100ull
#define TI_DATA_MEMSZ	0x3000ull
#define TI_ENTRY	(TI_TEXT + 0x10)
#define TI_END		(TI_DATA + TI_DATA_MEMSZ)

struct tseg {
	uint32_t type;
	uint64_t paddr;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t offset;	/* set by ti_elf(): where its bytes are */
};

#define TSEG(pa, fsz, msz)	{ PT_LOAD, (pa), (pa), (fsz), (msz), 0 }

struct timage {
	uint8_t buf[TI_SIZE];
	size_t len;
	struct tseg seg[TI_MAX_SEGS];
	unsigned nr_segs;
	size_t mb2_pos;		/* where ti_mb2_tag() puts the next tag */
};

/* The guest RAM of the running test (ti_setup/ti_teardown as suite init/fini). */
extern struct guest_mem ti_mem;
void ti_setup(void);
void ti_teardown(void);

uint8_t ti_pattern(size_t file_off);

/* An ELF file of class ELFCLASS32/64 with these segments; no multiboot header. */
void ti_elf(struct timage *ti, int cls, uint64_t entry,
	    const struct tseg *seg, unsigned n);
/* The standard two-segment image (TI_TEXT, TI_DATA). */
void ti_std_elf(struct timage *ti, int cls);
/* A flat file of @len pattern bytes (for the a.out kludge). */
void ti_flat(struct timage *ti, size_t len);

/* Multiboot 1 header at TI_MB1_OFF; the kludge variant sets flag 16. */
void ti_mb1(struct timage *ti, uint32_t flags);
void ti_mb1_kludge(struct timage *ti, uint32_t flags, uint32_t header_addr,
		   uint32_t load_addr, uint32_t load_end_addr,
		   uint32_t bss_end_addr, uint32_t entry_addr);
void ti_mb1_fix(struct timage *ti);	/* recompute the checksum */

/* Multiboot 2 header at TI_MB2_OFF: begin, tags, end (adds the end tag). */
void ti_mb2_begin(struct timage *ti);
void ti_mb2_tag(struct timage *ti, uint16_t type, uint16_t flags,
		const void *body, uint32_t body_len);
void ti_mb2_end(struct timage *ti);
void ti_mb2_fix(struct timage *ti);	/* recompute the checksum */
/* An mb2 header with only an end tag. */
void ti_mb2(struct timage *ti);

/* Parameters for @ti: TI_PATH, no append, no modules, @protocol. */
struct boot_params ti_params(const struct timage *ti, int protocol);
int ti_load(const struct timage *ti, int protocol, struct boot_entry *e,
	    char *err, size_t errlen);

/*
 * The load must fail with an error containing @what, one line, leaving
 * guest memory all zero (as ti_setup() made it) and the boot_entry cleared.
 */
void ti_expect_params_err(const struct boot_params *p, const char *what);
void ti_expect_err(const struct timage *ti, int protocol, const char *what);
bool ti_ram_is_zero(void);

/* Host pointer to guest [gpa, gpa + len); fails the test if not RAM. */
void *ti_gpa(uint64_t gpa, uint64_t len);
uint32_t ti_get32(uint64_t gpa);
uint64_t ti_get64(uint64_t gpa);

#endif
