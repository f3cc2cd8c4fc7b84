// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mem.h"

int mem_init(struct guest_mem *m, uint64_t size)
{
	void *p;

	/* MAP_NORESERVE: nothing is committed until the guest touches it. */
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->host = p;
	m->size = size;
	m->low_size = size < MEM_HOLE_START ? size : MEM_HOLE_START;
	return 0;
}

void mem_free(struct guest_mem *m)
{
	if (m->host)
		munmap(m->host, m->size);
	m->host = NULL;
}

void *mem_ptr(const struct guest_mem *m, uint64_t gpa, uint64_t len)
{
	uint64_t off;

	if (gpa < m->low_size) {
		if (len > m->low_size - gpa)
			return NULL;
		return m->host + gpa;
	}
	if (gpa < MEM_HIGH_START)
		return NULL;
	off = gpa - MEM_HIGH_START;
	if (off > mem_high_size(m) || len > mem_high_size(m) - off)
		return NULL;
	return m->host + m->low_size + off;
}

uint64_t mem_avail(const struct guest_mem *m, uint64_t gpa)
{
	if (gpa < m->low_size)
		return m->low_size - gpa;
	if (gpa >= MEM_HIGH_START && gpa - MEM_HIGH_START < mem_high_size(m))
		return mem_high_size(m) - (gpa - MEM_HIGH_START);
	return 0;
}

uint64_t mem_resident_kb(const struct guest_mem *m)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (m->size + page - 1) / page, i;
	unsigned char *vec = malloc(n);
	uint64_t resident = 0;

	if (!vec)
		return 0;
	if (mincore(m->host, m->size, vec) == 0)
		for (i = 0; i < n; i++)
			resident += vec[i] & 1;
	free(vec);
	return resident * (page / 1024);
}
