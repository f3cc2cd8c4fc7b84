// SPDX-License-Identifier: MIT
/*
 * memset/memcpy/memmove use the string instructions: GCC may emit calls to
 * them even with -ffreestanding (GCC manual, "C Dialect Options"), and a
 * plain C loop here could itself be turned back into a call to memset.
 */
#include "kstring.h"

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	asm volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	const char *s = src;
	char *d = dst;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	/* overlapping, dst above src: copy backwards with EFLAGS.DF set */
	s += n - 1;
	d += n - 1;
	asm volatile("std; rep movsb; cld"
		     : "+D"(d), "+S"(s), "+c"(n) : : "memory", "cc");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}
