// SPDX-License-Identifier: MIT
/*
 * Command-line words (cmdline.h).  A bounded copy split in place; no heap,
 * no console.
 */
#include <stddef.h>

#include "cmdline.h"
#include "lib/kstring.h"

/*
 * Every key the kernel reads, and who reads it.  A key missing here
 * still works, but every boot that passes it reports it as ignored
 * (tests/integration/test_cmdline_keys.py compares this with the
 * readers).
 */
static const char *const known_keys[] = {
	"apic",			/* lapic.c */
	"bench",		/* guest-bench/cases/bench.c */
	"calib",		/* calib_hw.c */
	"calib_max_us",		/* calib_hw.c */
	"calib_us",		/* calib_hw.c */
	"check",		/* main.c */
	"console",		/* console.c: console=vga */
	"crash",		/* main.c */
	"haltpoll",		/* idle.c */
	"icr_hi",		/* lapic.c */
	"ipi_k",		/* ipi_check.c */
	"ipi_storm",		/* ipi_check.c */
	"ipi_timer_us",		/* ipi_storm.c */
	"iters",		/* guest-bench/cases/bench.c */
	"nmi_rounds",		/* lapic_check_nmi.c */
	"onfail",		/* panic.c: check_failed() */
	"pveoi",		/* pveoi.c */
	"pvipi",		/* pv_ipi.c */
	"rotate_ms",		/* guest-bench/cases/case_ioapic.c */
	"threads",		/* guest-bench/cases/case_futex.c */
	"timeline",		/* timeline.c */
};

static char buf[CMDLINE_MAX];
static const char *argv[CMDLINE_MAX_ARGS];
static unsigned char why[CMDLINE_MAX_ARGS];	/* CMDLINE_USED, ... */
static int argc;
static int has_path;
static int truncated;

/* A blank: space, tab, or any control byte (a word never holds one). */
static int is_blank(char c)
{
	return c != '\0' && (unsigned char)c <= ' ';
}

/* The length of @arg's key: up to its '=', or -1 if it has none. */
static int key_len(const char *arg)
{
	int n;

	for (n = 0; arg[n]; n++)
		if (arg[n] == '=')
			return n;
	return -1;
}

static int known(const char *key, size_t n)
{
	unsigned i;

	for (i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
		if (strlen(known_keys[i]) == n &&
		    !strncmp(known_keys[i], key, n))
			return 1;
	return 0;
}

int cmdline_key_known(const char *key)
{
	return known(key, strlen(key));
}

/* 1 if argv[@i] and argv[@j] are key=value words with the same key. */
static int same_key(int i, int j)
{
	int n = key_len(argv[i]);

	return n >= 0 && n == key_len(argv[j]) &&
	       !strncmp(argv[i], argv[j], n);
}

/* Say what each word is, once the words are split. */
static void classify(void)
{
	int i, j, n;

	/* a path never has '=' and is never a known key alone */
	has_path = argc > 0 && key_len(argv[0]) < 0 &&
		   !cmdline_key_known(argv[0]);
	for (i = 0; i < argc; i++) {
		n = key_len(argv[i]);
		if (i == 0 && has_path)
			why[i] = CMDLINE_PATH;
		else if (n < 0)
			why[i] = CMDLINE_NOVALUE;
		else if (!known(argv[i], n))
			why[i] = CMDLINE_UNKNOWN;
		else
			why[i] = CMDLINE_USED;
		/* the last word with a key wins */
		for (j = i + 1; j < argc && why[i] == CMDLINE_USED; j++)
			if (same_key(i, j))
				why[i] = CMDLINE_OVERRIDDEN;
	}
}

void cmdline_init(const char *s)
{
	size_t n = 0;
	char *p = buf;

	argc = 0;
	has_path = 0;
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
		while (is_blank(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == CMDLINE_MAX_ARGS) {
			truncated = 1;
			break;
		}
		argv[argc++] = p;
		while (*p && !is_blank(*p))
			p++;
	}
	classify();
}

int cmdline_argc(void)
{
	return argc;
}

const char *cmdline_arg(int i)
{
	return i >= 0 && i < argc ? argv[i] : NULL;
}

int cmdline_has_path(void)
{
	return has_path;
}

int cmdline_why(int i)
{
	return i >= 0 && i < argc ? why[i] : -1;
}

int cmdline_ignored(void)
{
	int i, n = 0;

	for (i = 0; i < argc; i++)
		n += why[i] != CMDLINE_USED && why[i] != CMDLINE_PATH;
	return n;
}

const char *cmdline_get(const char *key)
{
	size_t n = strlen(key);
	int i;

	/* the last one wins; the path is not a key=value word */
	for (i = argc - 1; i >= has_path; i--)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	return NULL;
}

int cmdline_parse_uint(const char *key, unsigned lo, unsigned hi,
		       unsigned *v)
{
	const char *s = cmdline_get(key);
	unsigned long n = 0;

	if (!s)
		return 0;
	if (!*s)
		return -1;
	for (; *s >= '0' && *s <= '9' && n <= hi; s++)
		n = n * 10 + (*s - '0');
	if (*s || n < lo || n > hi)
		return -1;
	*v = n;
	return 1;
}

int cmdline_truncated(void)
{
	return truncated;
}
