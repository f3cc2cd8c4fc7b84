// SPDX-License-Identifier: MIT
/* Command-line words (cmdline.h).  A bounded copy split in place; no heap. */
#include <stddef.h>

#include "cmdline.h"
#include "kstring.h"
#include "printf.h"

static char buf[CMDLINE_MAX];
static const char *argv[CMDLINE_MAX_ARGS];
static int argc;
static int truncated;

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

void cmdline_init(const char *s)
{
	size_t n = 0;
	char *p = buf;

	argc = 0;
	truncated = 0;
	buf[0] = '\0';
	if (!s)
		return;
	while (s[n] && n < CMDLINE_MAX - 1) {
		buf[n] = s[n];
		n++;
	}
	buf[n] = '\0';
	truncated = s[n] != '\0';

	for (;;) {
		while (is_space(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == CMDLINE_MAX_ARGS) {
			truncated = 1;
			break;
		}
		argv[argc++] = p;
		while (*p && !is_space(*p))
			p++;
	}
}

int cmdline_argc(void)
{
	return argc;
}

const char *cmdline_arg(int i)
{
	return i >= 0 && i < argc ? argv[i] : NULL;
}

/* If @arg is "@key=value", the value; else NULL. */
static const char *match(const char *arg, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	return NULL;
}

const char *cmdline_get(const char *key)
{
	const char *v, *found = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		v = match(argv[i], key);
		if (v)
			found = v;	/* the last one wins */
	}
	return found;
}

unsigned cmdline_uint(const char *key, unsigned def, unsigned lo,
		      unsigned hi)
{
	const char *s = cmdline_get(key);
	unsigned long v = 0;

	if (!s)
		return def;
	for (; *s >= '0' && *s <= '9' && v <= hi; s++)
		v = v * 10 + (*s - '0');
	if (*s || v < lo || v > hi) {
		kprintf("cmdline: %s must be %u to %u; using %u\n", key, lo, hi,
			def);
		return def;
	}
	return v;
}

int cmdline_truncated(void)
{
	return truncated;
}
