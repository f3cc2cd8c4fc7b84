// SPDX-License-Identifier: MIT
/*
 * --timeline with KVM's LAPIC (split, kernel): KVM's own tracepoints
 * through tracefs (Documentation/trace/ftrace.rst, events.rst), since
 * KVM, not irqlab-vmm, does the host's part of each IPI there.  No kernel
 * module and no library: a few files of tracefs, written before the vCPU
 * threads start and read after they end, on the main thread.
 *
 * Needs root (tracefs is root's) and tracefs mounted at /sys/kernel/tracing
 * (or debugfs's tracing/).  The settings are the machine's, not this
 * process's: irqlab-vmm leaves tracefs alone if events are already on,
 * and puts back what it changed (trace_clock, buffer_size_kb,
 * options/event-fork, set_event_pid, set_event, tracing_on).
 *
 *   trace_clock x86-tsc     the host's TSC, as irqlab-vmm's own stamps
 *   set_event_pid + event-fork   this process and the threads it makes
 *   set_event kvm:...       the events tl_trace.c reads
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

static const char *const events =
	"kvm:kvm_exit kvm:kvm_entry kvm:kvm_apic_ipi kvm:kvm_apic_accept_irq "
	"kvm:kvm_inj_virq kvm:kvm_eoi kvm:kvm_pv_eoi kvm:kvm_vcpu_wakeup "
	"kvm:kvm_apic";

static int path(const struct tracefs *t, const char *file, char *buf,
		size_t len)
{
	return snprintf(buf, len, "%s/%s", t->dir, file) >= (int)len ? -1 : 0;
}

/* the file's first line, without its newline; -1 with errno */
static int get(const struct tracefs *t, const char *file, char *val,
	       size_t len)
{
	char p[128];
	ssize_t n;
	int fd;

	if (path(t, file, p, sizeof(p)))
		return -1;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, val, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	val[n] = 0;
	val[strcspn(val, "\n")] = 0;
	return 0;
}

/* write @val (truncating); -1 with errno */
static int put(const struct tracefs *t, const char *file, const char *val)
{
	char p[128];
	size_t len = strlen(val);
	int fd, err = 0;

	if (path(t, file, p, sizeof(p)))
		return -1;
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* set_event takes one event a write(2): the rest again */
	while (len && !err) {
		ssize_t n = write(fd, val, len);

		if (n <= 0) {
			if (!n)
				errno = EIO;
			err = -1;
		} else {
			val += n;
			len -= (size_t)n;
		}
	}
	close(fd);
	return err;
}

/* "local [global] x86-tsc": the one in brackets */
static void selected(const char *list, char *out, size_t len)
{
	const char *a = strchr(list, '['), *b = a ? strchr(a, ']') : NULL;

	snprintf(out, len, "%.*s", a && b ? (int)(b - a - 1) : 0,
		 a ? a + 1 : "");
}

/* @file could not be read or written: say so, put back what changed */
static int fail(struct tracefs *t, const char *file)
{
	snprintf(t->why, sizeof(t->why), "%s/%s: %s%s", t->dir, file,
		 strerror(errno), errno == EACCES || errno == EPERM ?
		 " (tracefs is root's)" : "");
	tracefs_restore(t);
	return -1;
}

int tracefs_start(struct tracefs *t)
{
	char buf[256], pid[32];

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/sys/kernel/tracing");
	if (access("/sys/kernel/tracing/trace", F_OK))
		snprintf(t->dir, sizeof(t->dir), "/sys/kernel/debug/tracing");
	if (get(t, "trace_clock", buf, sizeof(buf))) {
		snprintf(t->why, sizeof(t->why), "no tracefs at "
			 "/sys/kernel/tracing (mount -t tracefs nodev "
			 "/sys/kernel/tracing, as root): %s", strerror(errno));
		return -1;
	}
	selected(buf, t->clock, sizeof(t->clock));
	if (get(t, "set_event", buf, sizeof(buf)))
		return fail(t, "set_event (read)");
	if (buf[0]) {
		snprintf(t->why, sizeof(t->why), "tracefs is in use (%s/"
			 "set_event lists %.60s): left alone", t->dir, buf);
		return -1;
	}
	get(t, "buffer_size_kb", t->buffer_kb, sizeof(t->buffer_kb));
	get(t, "options/event-fork", t->event_fork, sizeof(t->event_fork));
	get(t, "tracing_on", t->tracing_on, sizeof(t->tracing_on));
	t->touched = true;
	if (put(t, "trace_clock", "x86-tsc"))
		return fail(t, "trace_clock");
	if (put(t, "buffer_size_kb", TRACEFS_BUFFER_KB))
		return fail(t, "buffer_size_kb");
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (put(t, "options/event-fork", "1") || put(t, "set_event_pid", pid))
		return fail(t, "set_event_pid");
	if (put(t, "set_event", events))
		return fail(t, "set_event");
	if (put(t, "trace", "") || put(t, "tracing_on", "1"))
		return fail(t, "tracing_on");
	t->on = true;
	return 0;
}

/*
 * Stop, hand each line to @line, and put tracefs back.  The header says
 * whether the ring lost events ("# entries-in-buffer/entries-written:").
 */
int tracefs_stop(struct tracefs *t, int (*line)(void *ctx, const char *l),
		 void *ctx)
{
	char p[128], *l = NULL;
	unsigned long kept, written;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (!t->on)
		return -1;
	put(t, "tracing_on", "0");
	if (path(t, "trace", p, sizeof(p)) || !(f = fopen(p, "re"))) {
		snprintf(t->why, sizeof(t->why), "%s/trace: %s", t->dir,
			 strerror(errno));
		tracefs_restore(t);
		return -1;
	}
	while (getline(&l, &cap, f) > 0) {
		if (sscanf(l, "# entries-in-buffer/entries-written: %lu/%lu",
			   &kept, &written) == 2 && written > kept)
			t->lost = written - kept;
		if (!err && line(ctx, l))
			err = -1;
	}
	free(l);
	fclose(f);
	tracefs_restore(t);
	return err;
}

void tracefs_restore(struct tracefs *t)
{
	if (!t->touched)
		return;
	t->touched = t->on = false;
	put(t, "tracing_on", "0");
	put(t, "set_event", "");
	put(t, "set_event_pid", "");
	if (t->event_fork[0])
		put(t, "options/event-fork", t->event_fork);
	if (t->clock[0])
		put(t, "trace_clock", t->clock);
	if (t->buffer_kb[0])
		put(t, "buffer_size_kb", t->buffer_kb);
	put(t, "trace", "");
	if (t->tracing_on[0])
		put(t, "tracing_on", t->tracing_on);
}
