/* SPDX-License-Identifier: MIT */
/*
 * Guest physical memory: one anonymous host mapping, populated lazily by the
 * host kernel as the guest (or the loader) touches it.  RAM runs from 0 to
 * min(size, MEM_HOLE_START); what is left goes above 4 GiB, so the 32-bit
 * MMIO window (IOAPIC, LAPIC, ...) is never RAM.
 */
#ifndef VMM_MEM_H
#define VMM_MEM_H

#include <stdint.h>
#include <stddef.h>

#define MEM_HOLE_START	0xc0000000ull	/* 3 GiB: start of the 32-bit MMIO hole */
#define MEM_HIGH_START	0x100000000ull	/* 4 GiB */

struct guest_mem {
	uint8_t *host;		/* mapping of all RAM bytes, low part first */
	uint64_t size;		/* bytes of RAM */
	uint64_t low_size;	/* bytes below MEM_HOLE_START */
};

/* Map @size bytes of RAM (lazily); 0 on success, -errno on failure. */
int mem_init(struct guest_mem *m, uint64_t size);
void mem_free(struct guest_mem *m);

/*
 * Host pointer to [gpa, gpa + len) if the whole range is RAM in one piece,
 * else NULL.  Every access on behalf of the guest goes through this check.
 */
void *mem_ptr(const struct guest_mem *m, uint64_t gpa, uint64_t len);

/* How many bytes from @gpa on are RAM in one piece (0 if @gpa is not RAM). */
uint64_t mem_avail(const struct guest_mem *m, uint64_t gpa);

/* KiB of guest RAM the host has resident (pages the guest or loader touched). */
uint64_t mem_resident_kb(const struct guest_mem *m);

/* Bytes of RAM above 4 GiB. */
static inline uint64_t mem_high_size(const struct guest_mem *m)
{
	return m->size - m->low_size;
}

#endif
