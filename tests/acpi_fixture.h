/* SPDX-License-Identifier: MIT */
/*
 * The ACPI tests' fixture: a fake guest RAM, the tables vmm/boot/acpi.c built
 * into it, and small tools to read, edit and re-checksum them.
 */
#ifndef TESTS_ACPI_FIXTURE_H
#define TESTS_ACPI_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "../kernel/boot/acpi.h"
#include "boot/acpi.h"
#include "boot/mem.h"

#define TA_RAM		(8ull << 20)
#define TA_SPARE	0xf0000ull	/* free area bytes for tests' own tables */

extern struct guest_mem ta_mem;
extern struct acpi_result ta_res;	/* of the last ta_build() */

void ta_setup(void);			/* suite .init / .fini */
void ta_teardown(void);

/* The parser's view of guest memory: the VMM's own bounds check. */
const void *ta_phys(void *ctx, uint64_t addr, uint64_t len);

/* Host pointer to guest [addr, addr + len); fails the test if not RAM. */
uint8_t *ta_gpa(uint64_t addr, uint64_t len);
uint32_t ta_get32(uint64_t addr);
void ta_put32(uint64_t addr, uint32_t v);
void ta_put64(uint64_t addr, uint64_t v);
uint8_t ta_sum(const void *p, size_t len);

/* Recompute the checksum of the table at @addr, or of the RSDP. */
void ta_fix(uint64_t addr);
void ta_fix_rsdp(uint64_t addr);
/* Set the Length of the table at @addr and fix its checksum. */
void ta_set_len(uint64_t addr, uint32_t len);

/* The default machine with @ncpus vCPUs, at 0xe0000. */
void ta_build(unsigned ncpus);
/* acpi_parse() from the RSDP in guest memory, and expecting @err. */
int ta_parse(struct acpi_info *ai);
void ta_expect(int err);

#endif
