/*
 * timeit: run a command N times and print, per run, one JSON line with its
 * wall time (CLOCK_MONOTONIC around fork + exec + wait4), exit status, the
 * child's peak RSS (wait4's ru_maxrss) and, with -T, the number of events
 * the child left in the ftrace buffer.
 *
 *   timeit [-n N] [-w W] [-o OUT] [-e ERR] [-t SECS] [-T TRACEFS] -- CMD [ARG...]
 *
 *   -n N        timed runs (default 10)
 *   -w W        warm-up runs first, printed with "warmup":1 (default 0)
 *   -o OUT      the child's stdout (default /dev/null); truncated per run
 *   -e ERR      the child's stderr (default: inherited)
 *   -t SECS     time limit per run: past it, print the child's threads
 *               (state, wchan, kernel stack) on stderr, SIGKILL it, and
 *               report "timeout":1 (status 137)
 *   -T TRACEFS  tracefs mount point: empty TRACEFS/trace before each run,
 *               and after it count the lines of TRACEFS/trace that do not
 *               start with '#', by "reason X" (kvm_userspace_exit's
 *               format), and read the "entries-in-buffer/entries-written"
 *               header: if the two differ the buffer lost events
 *
 * "%RUN%" in an argument becomes the run number (warm-ups: w1, w2, ...).
 * It is built static (gcc -static -O2) for the busybox initramfs of
 * tests/nested: guest-bench/boot-bench (runner/bootbench.py).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REASONS 32

struct trace_count {
	long events, in_buffer, written;
	int nr;
	char name[MAX_REASONS][32];
	long count[MAX_REASONS];
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char *subst(const char *arg, const char *run)
{
	const char *p = strstr(arg, "%RUN%");
	char *s;

	if (!p)
		return (char *)arg;
	if (asprintf(&s, "%.*s%s%s", (int)(p - arg), arg, run, p + 5) < 0)
		exit(125);
	return s;
}

static void trace_clear(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", dir);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		fprintf(stderr, "timeit: %s: %s\n", path, strerror(errno));
		exit(125);
	}
	close(fd);
}

static void trace_add(struct trace_count *t, const char *reason)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->name[i], reason)) {
			t->count[i]++;
			return;
		}
	if (t->nr == MAX_REASONS)
		reason = "other";
	else
		i = t->nr++;
	snprintf(t->name[i], sizeof(t->name[i]), "%s", reason);
	t->count[i]++;
}

static void trace_read(const char *dir, struct trace_count *t)
{
	char path[4096], line[1024], reason[32];
	FILE *f;
	char *p;

	memset(t, 0, sizeof(*t));
	t->in_buffer = t->written = -1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "timeit: %s: %s\n", path, strerror(errno));
		exit(125);
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p)
				sscanf(p, "entries-in-buffer/entries-written: %ld/%ld",
				       &t->in_buffer, &t->written);
			continue;
		}
		if (line[0] == '\n')
			continue;
		t->events++;
		p = strstr(line, "reason ");
		if (p && sscanf(p, "reason %31s", reason) == 1)
			trace_add(t, reason);
		else
			trace_add(t, "?");
	}
	fclose(f);
}

static void cat_file(const char *path, const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "%s%s", prefix, line);
	fclose(f);
}

/* The child ran past its time: say where each of its threads is. */
static void dump_threads(pid_t pid)
{
	char path[512], pre[320];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(pre, sizeof(pre), "timeit: %d/%s ", (int)pid, e->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
		cat_file(path, pre);
		fprintf(stderr, "%swchan ", pre);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", (int)pid, e->d_name);
		cat_file(path, "");
		fprintf(stderr, "\n");
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", (int)pid, e->d_name);
		cat_file(path, pre);
	}
	closedir(d);
}

static void usage(void)
{
	fprintf(stderr, "usage: timeit [-n N] [-w W] [-o OUT] [-e ERR] "
		"[-t SECS] [-T TRACEFS] -- CMD [ARG...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = "/dev/null", *err = NULL, *tracefs = NULL;
	int n = 10, warm = 0, limit = 0, c, i, r, status;
	sigset_t chld;

	while ((c = getopt(argc, argv, "+n:w:o:e:t:T:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 'e': err = optarg; break;
		case 't': limit = atoi(optarg); break;
		case 'T': tracefs = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc || n < 0 || warm < 0)
		usage();
	argv += optind;
	argc -= optind;
	/* SIGCHLD stays blocked: sigtimedwait() waits for it with the limit */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);

	for (r = 0; r < warm + n; r++) {
		int warmup = r < warm, timed_out = 0;
		char run[16], **av;
		struct rusage ru;
		struct trace_count t;
		long long t0, t1;
		pid_t pid;

		snprintf(run, sizeof(run), warmup ? "w%d" : "%d",
			 warmup ? r + 1 : r - warm + 1);
		av = calloc(argc + 1, sizeof(*av));
		for (i = 0; i < argc; i++)
			av[i] = subst(argv[i], run);
		if (tracefs)
			trace_clear(tracefs);
		fflush(stdout);

		t0 = now_ns();
		pid = fork();
		if (pid < 0) {
			perror("timeit: fork");
			return 125;
		}
		if (pid == 0) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
			if (err) {
				fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				if (fd < 0 || dup2(fd, 2) < 0)
					_exit(126);
			}
			fd = open("/dev/null", O_RDONLY);
			if (fd >= 0)
				dup2(fd, 0);
			sigprocmask(SIG_UNBLOCK, &chld, NULL);
			execvp(av[0], av);
			_exit(127);
		}
		if (limit) {
			struct timespec ts = { .tv_sec = limit };
			siginfo_t si;

			while (sigtimedwait(&chld, &si, &ts) < 0) {
				if (errno == EINTR)
					continue;
				fprintf(stderr, "timeit: run %s: no exit after %d s\n",
					run, limit);
				dump_threads(pid);
				kill(pid, SIGKILL);
				timed_out = 1;
				break;
			}
		}
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("timeit: wait4");
			return 125;
		}
		t1 = now_ns();

		printf("{\"run\":\"%s\",\"warmup\":%d,\"timeout\":%d,\"wall_ns\":%lld,"
		       "\"status\":%d,\"maxrss_kb\":%ld,"
		       "\"utime_us\":%lld,\"stime_us\":%lld",
		       run, warmup, timed_out, t1 - t0,
		       WIFEXITED(status) ? WEXITSTATUS(status)
					 : 128 + WTERMSIG(status),
		       ru.ru_maxrss,
		       ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec,
		       ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec);
		if (tracefs) {
			trace_read(tracefs, &t);
			printf(",\"trace\":{\"events\":%ld,\"in_buffer\":%ld,"
			       "\"written\":%ld,\"by_reason\":{",
			       t.events, t.in_buffer, t.written);
			for (i = 0; i < t.nr; i++)
				printf("%s\"%s\":%ld", i ? "," : "", t.name[i],
				       t.count[i]);
			printf("}}");
		}
		printf("}\n");
		for (i = 0; i < argc; i++)
			if (av[i] != argv[i])
				free(av[i]);
		free(av);
	}
	return 0;
}
