// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static void vmsg(const char *fmt, va_list ap)
{
	fputs("irqlab-vmm: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fflush(stdout);
	exit(status);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * --stats-json FILE and --timeline FILE (@opt) are checked at startup but
 * created only for the report, so a run that fails before it leaves no
 * file behind.  A FIFO, or a shell's >(...) pipe, is fine while something
 * reads it.
 */
void out_check(const char *opt, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			die(EXIT_USAGE, "%s %s: a directory", opt, path);
		if (access(path, W_OK))
			die(EXIT_USAGE, "%s %s: %s", opt, path,
			    strerror(errno));
		return;
	}
	if (errno != ENOENT)
		die(EXIT_USAGE, "%s %s: %s", opt, path, strerror(errno));
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? (slash == path ? "/" : path) : ".");
	if (access(dir, W_OK | X_OK))
		die(EXIT_USAGE, "%s %s: %s", opt, path, strerror(errno));
}

/* O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of hanging */
FILE *out_open(const char *opt, const char *path)
{
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		      O_NONBLOCK | O_NOCTTY, 0666);

	if (fd < 0) {
		warn("%s %s: %s%s", opt, path, strerror(errno),
		     errno == ENXIO ? " (a FIFO nobody reads)" : "");
		return NULL;
	}
	fcntl(fd, F_SETFL, 0);
	f = fdopen(fd, "w");
	if (!f) {
		warn("%s %s: %s", opt, path, strerror(errno));
		close(fd);
	}
	return f;
}
