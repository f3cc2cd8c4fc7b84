/* SPDX-License-Identifier: MIT */
/*
 * A pure parser of the boot information: Multiboot 1 and 2, and the
 * start info of the Xen PVH entry (include/hw/pvh.h).  It builds on
 * the host too: it uses no kernel code or globals and reaches loader
 * memory only through the caller's @phys function.
 */
#ifndef KERNEL_MBINFO_H
#define KERNEL_MBINFO_H

#include <stddef.h>
#include <stdint.h>

#include "hw/multiboot.h"

#define MBINFO_MAX_MODS		16	/* more modules are dropped */
#define MBINFO_MAX_MMAP		32	/* more map entries are dropped */
#define MBINFO_STRING_MAX	4096	/* longest string, NUL included */

/* mbinfo_parse() errors; mbinfo_strerror() says more. */
#define MBINFO_EMAGIC		(-1)	/* EAX is neither boot magic */
#define MBINFO_EINFO		(-2)	/* info not in memory, or misaligned */
#define MBINFO_ESIZE		(-3)	/* MB2 total_size too small */
#define MBINFO_ETAG		(-4)	/* an MB2 tag too small, or past the end */
#define MBINFO_ENOEND		(-5)	/* MB2 tags without an end tag */
#define MBINFO_ESTRING		(-6)	/* a string unterminated or not in memory */
#define MBINFO_EMODS		(-7)	/* module list not in memory, or end < start */
#define MBINFO_EMMAP		(-8)	/* memory map not in memory, or malformed */
#define MBINFO_EPVH		(-9)	/* PVH start info's magic is wrong */
#define MBINFO_ERSDP		(-10)	/* PVH rsdp_paddr not in memory */
#define MBINFO_ELAST		MBINFO_ERSDP	/* the lowest code */

#define MBINFO_PROTO_PVH	3	/* struct mbinfo's proto: 1, 2 or this */

struct mbinfo_module {
	uint64_t start, end;		/* [start, end) as the loader gave them */
	const char *string;		/* "" if the loader gave none */
};

struct mbinfo_mmap {
	uint64_t addr, len;
	uint32_t type;			/* MB_MEMORY_* */
};

struct mbinfo {
	int proto;			/* 1, 2 or MBINFO_PROTO_PVH */
	const char *cmdline;		/* NULL if none */
	const char *loader_name;	/* NULL if none */
	int has_mem;
	uint32_t mem_lower_kb, mem_upper_kb;
	unsigned nr_mmap;
	struct mbinfo_mmap mmap[MBINFO_MAX_MMAP];
	unsigned nr_mods;
	struct mbinfo_module mods[MBINFO_MAX_MODS];
	/* from MB2 ACPI new (15) tag, else old (14), or PVH's rsdp_paddr;
	 * NULL if none.  It holds 20 bytes, 36 if its revision is 2 or
	 * more (acpi_parse()) */
	const void *rsdp;
	int rsdp_new;			/* 1 if from the new tag */
};

/* @phys maps a physical range to a pointer, or NULL if it is not valid memory. */
typedef const void *(*mbinfo_phys_fn)(void *ctx, uint64_t addr, uint64_t len);

/*
 * Parse the boot information at physical @info_addr that a loader passed
 * with @magic (the EAX and EBX of Multiboot 1 3.2 / Multiboot 2 3.3; for
 * PVH, HVM_START_MAGIC and the start info's EBX).
 * Returns 0, or a negative MBINFO_E* code; never reads outside what @phys
 * returned.  The strings and @rsdp point into that memory.  On error *@out
 * is only partly filled.
 */
int mbinfo_parse(uint32_t magic, uint64_t info_addr, mbinfo_phys_fn phys,
		 void *ctx, struct mbinfo *out);

/* "mb1", "mb2" or "pvh": @boot's proto= */
const char *mbinfo_proto_name(int proto);

/* A short human description of an MBINFO_E* code. */
const char *mbinfo_strerror(int err);

#endif
