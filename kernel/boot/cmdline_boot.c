// SPDX-License-Identifier: MIT
/*
 * What the command line's parser (cmdline.c, pure) says on the console:
 * each word, why one is ignored, and a number out of range.
 */
#include "cmdline.h"
#include "lib/printf.h"

unsigned cmdline_uint(const char *key, unsigned def, unsigned lo,
		      unsigned hi)
{
	unsigned v;

	switch (cmdline_parse_uint(key, lo, hi, &v)) {
	case 1:
		return v;
	case 0:
		return def;
	default:
		kprintf("cmdline: %s must be %u to %u; using %u\n", key, lo, hi,
			def);
		return def;
	}
}

static const char *why_text(int why)
{
	switch (why) {
	case CMDLINE_USED:
		return "";
	case CMDLINE_PATH:
		return " (the kernel path)";
	case CMDLINE_UNKNOWN:
		return " (ignored: no such key)";
	case CMDLINE_NOVALUE:
		return " (ignored: not key=value)";
	case CMDLINE_OVERRIDDEN:
		return " (ignored: a later word sets the same key)";
	default:
		return " (?)";
	}
}

void cmdline_print(void)
{
	int i;

	for (i = 0; i < cmdline_argc(); i++)
		kprintf("  argv[%d] \"%s\"%s\n", i, cmdline_arg(i),
			why_text(cmdline_why(i)));
	if (cmdline_truncated())
		kprintf("cmdline: longer than %d bytes or %d words, cut\n",
			CMDLINE_MAX - 1, CMDLINE_MAX_ARGS);
}
