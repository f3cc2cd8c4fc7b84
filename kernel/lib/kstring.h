/* SPDX-License-Identifier: MIT */
/*
 * The few <string.h> functions the kernel (and GCC's code generator) needs.
 * Not named string.h: with -Ikernel it would hide the C library's header
 * from host code that builds kernel files (mbinfo.c in the unit tests).
 */
#ifndef KERNEL_KSTRING_H
#define KERNEL_KSTRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

#endif
