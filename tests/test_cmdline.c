// SPDX-License-Identifier: MIT
/*
 * The kernel's command-line parser (kernel/boot/cmdline.c, built for the host):
 * irqlab-vmm and QEMU's -kernel put the kernel path first, GRUB does not,
 * and the words must mean the same either way.  Then the words it ignores,
 * and what it does with blanks, numbers and too much input.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../kernel/boot/cmdline.h"
#include "../kernel/boot/mbinfo.h"
#include "loader_images.h"
#include "boot/mem.h"

static void init(const char *s)
{
	cmdline_init(s);
}

/* The same words, with the path first and without it. */
Test(cmdline, with_and_without_argv0)
{
	static const char *const lines[] = {
		"/boot/irqlab.elf check=ipi iters=5",	/* irqlab-vmm */
		"irqlab32.elf check=ipi iters=5",	/* no '/' */
		"check=ipi iters=5",			/* GRUB */
	};
	unsigned i, v;

	for (i = 0; i < 3; i++) {
		init(lines[i]);
		cr_assert_eq(cmdline_has_path(), i < 2, "%s", lines[i]);
		cr_assert_eq(cmdline_argc(), i < 2 ? 3 : 2);
		cr_assert_str_eq(cmdline_get("check"), "ipi", "%s", lines[i]);
		cr_assert_eq(cmdline_parse_uint("iters", 1, 100, &v), 1);
		cr_assert_eq(v, 5);
		cr_assert_eq(cmdline_ignored(), 0, "%s", lines[i]);
		cr_assert_eq(cmdline_why(0),
			     i < 2 ? CMDLINE_PATH : CMDLINE_USED);
	}
}

/* The bug GRUB showed: its one word was taken for the path. */
Test(cmdline, grub_single_word)
{
	init("check=ipi,timer,ioapic");
	cr_assert_eq(cmdline_has_path(), 0);
	cr_assert_eq(cmdline_argc(), 1);
	cr_assert_str_eq(cmdline_get("check"), "ipi,timer,ioapic");
	cr_assert_eq(cmdline_why(0), CMDLINE_USED);
}

/* A known key without '=' is an option word, not a path: ignored. */
Test(cmdline, known_key_alone_is_not_a_path)
{
	init("check iters=3");
	cr_assert_eq(cmdline_has_path(), 0);
	cr_assert_eq(cmdline_why(0), CMDLINE_NOVALUE);
	cr_assert_eq(cmdline_why(1), CMDLINE_USED);
	cr_assert_eq(cmdline_ignored(), 1);
	cr_assert_null(cmdline_get("check"));
}

Test(cmdline, ignored_words)
{
	init("/k hello chekc=ipi checks=1 world");
	cr_assert_eq(cmdline_has_path(), 1);
	cr_assert_eq(cmdline_why(1), CMDLINE_NOVALUE);
	cr_assert_eq(cmdline_why(2), CMDLINE_UNKNOWN);
	cr_assert_eq(cmdline_why(3), CMDLINE_UNKNOWN, "a known key's prefix");
	cr_assert_eq(cmdline_why(4), CMDLINE_NOVALUE);
	cr_assert_eq(cmdline_why(5), -1);
	cr_assert_eq(cmdline_ignored(), 4);
	cr_assert_null(cmdline_get("check"));
}

/* Without a path, the first word is just another word. */
Test(cmdline, unknown_first_word_without_path)
{
	init("chekc=ipi check=timer");
	cr_assert_eq(cmdline_has_path(), 0);
	cr_assert_eq(cmdline_why(0), CMDLINE_UNKNOWN);
	cr_assert_eq(cmdline_ignored(), 1);
	cr_assert_str_eq(cmdline_get("check"), "timer");
}

Test(cmdline, last_word_wins)
{
	init("/k iters=5 check=ipi iters=7");
	cr_assert_str_eq(cmdline_get("iters"), "7");
	cr_assert_eq(cmdline_why(1), CMDLINE_OVERRIDDEN);
	cr_assert_eq(cmdline_why(3), CMDLINE_USED);
	cr_assert_eq(cmdline_ignored(), 1);
}

/* A path with '=' in it is taken for a word: the one known limit. */
Test(cmdline, path_with_equals_sign)
{
	init("/tmp/a=b/irqlab.elf check=ipi");
	cr_assert_eq(cmdline_has_path(), 0);
	cr_assert_eq(cmdline_why(0), CMDLINE_UNKNOWN);
	cr_assert_str_eq(cmdline_get("check"), "ipi");
}

Test(cmdline, empty)
{
	static const char *const lines[] = { NULL, "", "  \t " };
	unsigned i;

	for (i = 0; i < 3; i++) {
		init(lines[i]);
		cr_assert_eq(cmdline_argc(), 0);
		cr_assert_eq(cmdline_has_path(), 0);
		cr_assert_eq(cmdline_ignored(), 0);
		cr_assert_null(cmdline_get("check"));
		cr_assert_null(cmdline_arg(0));
		cr_assert_eq(cmdline_truncated(), 0);
	}
}

/* Every control byte separates words: none reaches a console line. */
Test(cmdline, blanks)
{
	init("\t/k\tcheck=ipi\n\r\x01iters=3 \x1f");
	cr_assert_eq(cmdline_argc(), 3);
	cr_assert_str_eq(cmdline_arg(0), "/k");
	cr_assert_str_eq(cmdline_get("check"), "ipi");
	cr_assert_str_eq(cmdline_get("iters"), "3");
}

Test(cmdline, numbers)
{
	unsigned v = 42;

	init("iters=7 ipi_k=0 threads=x calib_us= "
	     "rotate_ms=99999999999999999999"
	     " nmi_rounds=12a calib_max_us=4294967295");
	cr_assert_eq(cmdline_parse_uint("iters", 1, 7, &v), 1);
	cr_assert_eq(v, 7);
	v = 42;
	cr_assert_eq(cmdline_parse_uint("iters", 1, 6, &v), -1, "above hi");
	cr_assert_eq(cmdline_parse_uint("ipi_k", 1, 10, &v), -1, "below lo");
	cr_assert_eq(cmdline_parse_uint("threads", 1, 10, &v), -1);
	cr_assert_eq(cmdline_parse_uint("calib_us", 0, 10, &v), -1, "empty");
	cr_assert_eq(cmdline_parse_uint("rotate_ms", 0, ~0u, &v), -1,
		     "more than 32 bits");
	cr_assert_eq(cmdline_parse_uint("nmi_rounds", 0, 100, &v), -1);
	cr_assert_eq(v, 42, "untouched on error");
	cr_assert_eq(cmdline_parse_uint("crash", 0, 10, &v), 0, "absent");
	cr_assert_eq(cmdline_parse_uint("calib_max_us", 0, ~0u, &v), 1);
	cr_assert_eq(v, 4294967295u);
}

Test(cmdline, too_many_words)
{
	char s[CMDLINE_MAX_ARGS * 8 + 16] = "/k";
	int i;

	for (i = 0; i < CMDLINE_MAX_ARGS; i++)
		strcat(s, " iters=1");
	init(s);
	cr_assert_eq(cmdline_argc(), CMDLINE_MAX_ARGS);
	cr_assert_eq(cmdline_truncated(), 1);
}

Test(cmdline, too_long)
{
	char s[CMDLINE_MAX + 64];

	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	memcpy(s, "check=", 6);
	init(s);
	cr_assert_eq(cmdline_truncated(), 1);
	cr_assert_eq(strlen(cmdline_get("check")), CMDLINE_MAX - 1 - 6);
}

Test(cmdline, keys)
{
	static const char *const keys[] = {
		"apic", "bench", "calib", "calib_max_us", "calib_us", "check",
		"crash", "ipi_k", "iters", "nmi_rounds", "rotate_ms", "threads",
	};
	unsigned i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_assert(cmdline_key_known(keys[i]), "%s", keys[i]);
	cr_assert_not(cmdline_key_known(""));
	cr_assert_not(cmdline_key_known("chec"));
	cr_assert_not(cmdline_key_known("checks"));
}

/* ---- end to end: the VMM's loader writes it, the kernel reads it ---- */

TestSuite(cmdline_loader, .init = ti_setup, .fini = ti_teardown);

static const void *phys(void *ctx, uint64_t addr, uint64_t len)
{
	return mem_ptr(ctx, addr, len);
}

static void load_parse(int protocol, const char *path, struct mbinfo *mi)
{
	struct timage ti;
	struct boot_params p;
	struct boot_entry e;
	char err[256];
	int ret;

	ti_std_elf(&ti, 64);
	ti_mb1(&ti, MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO);
	ti_mb2(&ti);
	p = ti_params(&ti, protocol);
	p.image_path = path;
	p.append = "check=ipi iters=5";
	cr_assert_eq(loader_load(&ti_mem, &p, &e, err, sizeof(err)), 0, "%s",
		     err);
	ret = mbinfo_parse(e.eax, e.ebx, phys, &ti_mem, mi);
	cr_assert_eq(ret, 0, "%s", mbinfo_strerror(ret));
	cmdline_init(mi->cmdline);
}

/* irqlab-vmm's line (path first); then none, as GRUB passes it. */
Test(cmdline_loader, both_protocols_with_and_without_path)
{
	struct mbinfo mi;
	int proto, with;

	for (proto = 1; proto <= 2; proto++) {
		for (with = 0; with <= 1; with++) {
			load_parse(proto, with ? TI_PATH : NULL, &mi);
			cr_assert_eq(cmdline_has_path(), with, "mb%d", proto);
			if (with)
				cr_assert_str_eq(cmdline_arg(0), TI_PATH);
			cr_assert_str_eq(cmdline_get("check"), "ipi");
			cr_assert_str_eq(cmdline_get("iters"), "5");
			cr_assert_eq(cmdline_ignored(), 0);
		}
	}
}
