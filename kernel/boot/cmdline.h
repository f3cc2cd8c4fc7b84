/* SPDX-License-Identifier: MIT */
/*
 * The kernel command line as words.  Pure, like mbinfo.c: no console,
 * no kernel globals, so the unit tests build it for the host
 * (cmdline_boot.c holds what prints).
 *
 * irqlab-vmm and QEMU's -kernel pass the kernel's path as the first word,
 * then the user's words; GRUB (multiboot and multiboot2) passes only the
 * user's words.  A path never looks like a word the kernel reads, so the
 * first word is taken for the path only when it has no '=' and is not a
 * known key.  Words are separated by blanks (space, tab, any control
 * byte); there is no quoting.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#define CMDLINE_MAX		1024	/* bytes kept, NUL included */
#define CMDLINE_MAX_ARGS	32	/* words kept */

/* Why a word is not read (cmdline_why()). */
#define CMDLINE_USED		0	/* a known key=value: read */
#define CMDLINE_PATH		1	/* the kernel path (argv[0]) */
#define CMDLINE_UNKNOWN		2	/* key=value, key unknown */
#define CMDLINE_NOVALUE		3	/* a word without '=' */
#define CMDLINE_OVERRIDDEN	4	/* a later word sets the same key */

/* Copy and split @s (may be NULL: no words).  Replaces what was before. */
void cmdline_init(const char *s);
int cmdline_argc(void);
/* argv[@i], or NULL if @i >= argc */
const char *cmdline_arg(int i);
/* 1 if argv[0] was taken for the kernel path */
int cmdline_has_path(void);
/* CMDLINE_USED, _PATH, ...: what argv[@i] is; -1 if @i >= argc */
int cmdline_why(int i);
/* Words neither read nor the path: unknown, without '=', overridden. */
int cmdline_ignored(void);
/* 1 if @key is one the kernel reads (the table in cmdline.c). */
int cmdline_key_known(const char *key);
/* The value of the last "key=value" word, or NULL. */
const char *cmdline_get(const char *key);
/*
 * "@key=N": 1 and *@v if N is a decimal from @lo to @hi; 0 if there is
 * no such word; -1 if there is one, but not a number or out of range.
 */
int cmdline_parse_uint(const char *key, unsigned lo, unsigned hi,
		       unsigned *v);
/* 1 if the line had more bytes or words than kept. */
int cmdline_truncated(void);

/* cmdline_boot.c (prints: not in the host build) */

/*
 * cmdline_parse_uint(), else @def: absent, or (with a console line
 * saying so) not a number or out of range.
 */
unsigned cmdline_uint(const char *key, unsigned def, unsigned lo,
		      unsigned hi);
/* One console line per word (what it is, and why one is ignored). */
void cmdline_print(void);

#endif
