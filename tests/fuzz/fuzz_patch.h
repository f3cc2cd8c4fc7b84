/* SPDX-License-Identifier: MIT */
/*
 * A harness's "patched image" mode (fuzz_acpi.c, fuzz_mbinfo.c), and the
 * seed files it writes of its images.  The mode: a valid
 * image the VMM's own builders made, cut short by @cut bytes (when fewer
 * than its length) and patched by the rest of the input, read as runs of
 * "offset lo, offset hi, n - 1 (mod 16), then n bytes" (an offset past
 * the end wraps; a byte past the end is dropped).
 */
#ifndef FUZZ_PATCH_H
#define FUZZ_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The patched copy (malloc'd; NULL if out of memory), its length in
 * *@len, and in *@touched whether it differs from @src at all. */
static inline uint8_t *fuzz_patched(const uint8_t *src, size_t src_len,
				    uint8_t cut, const uint8_t *ip,
				    const uint8_t *end, size_t *len,
				    bool *touched)
{
	uint8_t *copy;

	*len = src_len - (cut < src_len ? cut : 0);
	*touched = *len != src_len;
	copy = malloc(*len);
	if (!copy)
		return NULL;
	memcpy(copy, src, *len);
	while (end - ip >= 3) {
		size_t off = (ip[0] | ip[1] << 8) % *len;
		unsigned n = ip[2] % 16 + 1, i;

		ip += 3;
		for (i = 0; i < n && ip < end; i++, ip++)
			if (off + i < *len)
				copy[off + i] = *ip;
		*touched = true;
	}
	return copy;
}

/* IRQLAB_FUZZ_SEEDS=DIR: seed file DIR/@name, @a then @b (may be NULL) */
static inline void fuzz_write_seed(const char *dir, const char *name,
				   const void *a, size_t alen, const void *b,
				   size_t blen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f)) {
		perror(path);
		abort();
	}
}

#endif
