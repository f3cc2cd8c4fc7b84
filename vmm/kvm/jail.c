// SPDX-License-Identifier: MIT
/*
 * The vCPU threads' seccomp jail (docs/SECURITY.md).  A vCPU thread runs
 * the guest and every model the guest drives, so once its setup is done
 * (its APIC timer created) it may make only the system calls its loop
 * makes: KVM_RUN and the few other KVM ioctls of its irqchip mode, on its
 * own vCPU fd or the VM fd; futex; the timers; write to stdout and
 * stderr; the kick and power-off signals; its own exit.  Anything else
 * traps (SECCOMP_RET_TRAP): the SIGSYS handler names the call on stderr
 * and ends the process with EXIT_SECCOMP.
 *
 * The PIT's timer thread (--irqchip=user and split: main.c, irqchip/
 * isa.c; with --irqchip=kernel --hpet=on, the HPET's) runs the models on
 * state the guest programmed, so it has a filter of its own: read and
 * re-arm its timerfd, the locks, the delivery of its lines (post and
 * kick, KVM_SIGNAL_MSI in split mode, KVM_IRQ_LINE in kernel mode).
 *
 * libseccomp builds each filter on the main thread, exported as BPF; the
 * thread then only loads it (two system calls, no allocation).  Filters
 * are per thread (seccomp(2)): the main thread is not jailed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "irqchip/user.h"
#include "jail.h"
#include "util.h"
#include "vm.h"

#define M_USER		(1u << IRQCHIP_USER)
#define M_KERNEL	(1u << IRQCHIP_KERNEL)
#define M_SPLIT		(1u << IRQCHIP_SPLIT)
#define M_ALL		(M_USER | M_KERNEL | M_SPLIT)
#define M_ISA		(M_USER | M_SPLIT)	/* irqlab's PIT, IOAPIC, PIC */
#define M_KHPET		(1u << 3)	/* kernel mode's HPET (--hpet=on) */

/* The ioctls of the vCPU loop, by mode, on the vCPU fd unless vm_fd. */
static const struct {
	unsigned long req;
	unsigned modes;
	bool vm_fd;
} jail_ioctls[] = {
	{ KVM_RUN, M_ALL, false },
	/* kvm_dump_vcpu(), after a guest failure */
	{ KVM_GET_REGS, M_ALL, false },
	{ KVM_GET_SREGS, M_ALL, false },
	/* injection: irqlab's LAPIC (user), the PIC's ExtINT (split) */
	{ KVM_INTERRUPT, M_ISA, false },
	{ KVM_NMI, M_USER, false },
	{ KVM_GET_VCPU_EVENTS, M_USER, false },
	{ KVM_SET_VCPU_EVENTS, M_USER, false },	/* INIT drops events */
	/* INIT-SIPI-SIPI: the start-up state (kvm_set_sipi_state()) */
	{ KVM_SET_SREGS, M_USER, false },
	{ KVM_SET_REGS, M_USER, false },
	{ KVM_SET_MSRS, M_USER, false },	/* kvm_sync_apic_base() */
	/* the guest TSC for TSC-deadline mode (kvm_tsc_offset()) */
	{ KVM_GET_MSRS, M_USER, false },
	{ KVM_HAS_DEVICE_ATTR, M_USER, false },
	{ KVM_GET_DEVICE_ATTR, M_USER, false },
	/* irqlab's IOAPIC into KVM's LAPICs (split), pc-testdev (kernel) */
	{ KVM_SIGNAL_MSI, M_SPLIT, true },
	{ KVM_SET_GSI_ROUTING, M_SPLIT, true },
	{ KVM_IRQ_LINE, M_KERNEL, true },
	/* the HPET's legacy replacement with KVM's 8254 (kernel, --hpet) */
	{ KVM_GET_PIT2, M_KHPET, true },
	{ KVM_SET_PIT2, M_KHPET, true },
};

/* The other calls, by mode; the argument rules are in jail_build(). */
static const struct {
	int nr;
	unsigned modes;
} jail_calls[] = {
	{ SCMP_SYS(futex), M_ALL },		/* locks, sleeps, wakes */
	{ SCMP_SYS(write), M_ALL },		/* fd 1 and 2 only */
	{ SCMP_SYS(timer_settime), M_USER },	/* the APIC timer */
	{ SCMP_SYS(timerfd_settime), M_ISA | M_KHPET },	/* its fd only */
	{ SCMP_SYS(clock_gettime), M_ALL },	/* if the vDSO falls back */
	{ SCMP_SYS(sched_yield), M_ISA },	/* isa.c, --ioapic=naive */
	{ SCMP_SYS(getpid), M_ALL },		/* pthread_kill() */
	{ SCMP_SYS(tgkill), M_ALL },		/* kick, power-off: SIGUSR1/2 */
	{ SCMP_SYS(rt_sigprocmask), M_ALL },	/* pthread_kill(), exit */
	{ SCMP_SYS(rt_sigreturn), M_ALL },	/* the kick handler */
	{ SCMP_SYS(restart_syscall), M_ALL },	/* a futex wait after SIGCONT */
	{ SCMP_SYS(madvise), M_ALL },		/* thread exit: MADV_DONTNEED */
	{ SCMP_SYS(exit), M_ALL },		/* thread exit */
	{ SCMP_SYS(exit_group), M_ALL },	/* die() */
};

/*
 * The PIT's timer thread, in user and split mode: its loop (read, an
 * expiry under isa_lock, timerfd_settime) and IRQ0's delivery, which
 * posts and kicks as an IPI does (or, split, KVM_SIGNAL_MSI on the VM fd,
 * the one ioctl), and may start --ioapic=naive's rendezvous for a level
 * entry (sched_yield).  The argument rules are jail_add_call()'s.
 */
static const int jail_pit_calls[] = {
	SCMP_SYS(read),			/* its timerfd only */
	SCMP_SYS(timerfd_settime),	/* its timerfd only */
	SCMP_SYS(futex), SCMP_SYS(write), SCMP_SYS(clock_gettime),
	SCMP_SYS(sched_yield), SCMP_SYS(getpid), SCMP_SYS(tgkill),
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(restart_syscall),
	SCMP_SYS(madvise), SCMP_SYS(exit), SCMP_SYS(exit_group),
};

/* FUTEX_* | FUTEX_PRIVATE_FLAG, as glibc's locks and conditions use */
static const int jail_futex_ops[] = {
	FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE,
	FUTEX_WAIT_BITSET_PRIVATE, FUTEX_WAKE_BITSET_PRIVATE,
	FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
};

#define JAIL_NAMES	512	/* x86-64 syscall numbers are below this */

static struct {
	const char *off;	/* why the filter is off, or NULL */
	struct sock_fprog prog[VMM_MAX_CPUS];
	unsigned nr_calls;	/* system calls the filter allows */
	unsigned nr_ioctls;	/* ioctl requests among them */
	unsigned nr_vcpus;
	unsigned installed;	/* atomic */
	bool pit;		/* the PIT's timer thread has a filter */
	const char *pit_name;	/* "the PIT's" or (kernel mode) "the HPET's" */
	struct sock_fprog pit_prog;
	unsigned pit_calls, pit_ioctls;
	unsigned pit_installed;	/* atomic */
	int selftest;		/* IRQLAB_SECCOMP_SELFTEST's number, or -1 */
	bool selftest_pit;	/* ... made by the PIT's thread (pit:NAME) */
	const char *names[JAIL_NAMES];	/* for the SIGSYS handler */
} jail = { .selftest = -1 };

#define JAIL_PIT	(-2)		/* jail_vcpu of the PIT's thread */
static __thread int jail_vcpu = -1;

/* ---- the SIGSYS handler: async-signal-safe only (signal-safety(7)) ---- */

static size_t put_str(char *buf, size_t n, size_t cap, const char *s)
{
	while (*s && n < cap)
		buf[n++] = *s++;
	return n;
}

static size_t put_num(char *buf, size_t n, size_t cap, long v)
{
	char d[24];
	int i = 0;

	if (v < 0) {
		n = put_str(buf, n, cap, "-");
		v = -v;
	}
	do
		d[i++] = '0' + v % 10;
	while ((v /= 10) && i < (int)sizeof(d));
	while (i && n < cap)
		buf[n++] = d[--i];
	return n;
}

static void jail_sigsys(int sig, siginfo_t *si, void *uc)
{
	char buf[256];
	size_t n = 0, cap = sizeof(buf) - 1;
	int nr = si->si_syscall;
	const char *name = nr >= 0 && nr < JAIL_NAMES && jail.names[nr] ?
			   jail.names[nr] : "?";
	ssize_t r;

	(void)sig;
	(void)uc;
	if (jail_vcpu == JAIL_PIT) {
		n = put_str(buf, n, cap, "irqlab-vmm: ");
		n = put_str(buf, n, cap, jail.pit_name);
		n = put_str(buf, n, cap, " timer thread");
	} else {
		n = put_str(buf, n, cap, "irqlab-vmm: vCPU ");
		n = put_num(buf, n, cap, jail_vcpu);
	}
	n = put_str(buf, n, cap, ": system call ");
	n = put_str(buf, n, cap, name);
	n = put_str(buf, n, cap, " (");
	n = put_num(buf, n, cap, nr);
	n = put_str(buf, n, cap, ") is not allowed by the seccomp filter; "
		    "--no-seccomp turns the filter off\n");
	r = write(STDERR_FILENO, buf, n);
	(void)r;
	_exit(EXIT_SECCOMP);
}

/* ---- building the filters (main thread) -------------------------------- */

static void jail_rule(scmp_filter_ctx ctx, int nr, unsigned n,
		      const struct scmp_arg_cmp *cmp)
{
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, cmp);

	if (r)
		die(EXIT_HOST, "seccomp: a rule for system call %d: %s", nr,
		    strerror(-r));
}

static void jail_add_ioctls(scmp_filter_ctx ctx, const struct vcpu *v,
			    unsigned mode)
{
	unsigned i;

	jail.nr_ioctls = 0;
	for (i = 0; i < ARRAY_SIZE(jail_ioctls); i++) {
		/* the kernel reads the request as 32 bits (ioctl(2)) */
		struct scmp_arg_cmp c[2] = {
			SCMP_A0(SCMP_CMP_EQ, jail_ioctls[i].vm_fd ?
				v->vm->vm_fd : v->fd),
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
				jail_ioctls[i].req),
		};

		if (!(jail_ioctls[i].modes & mode))
			continue;
		jail_rule(ctx, SCMP_SYS(ioctl), 2, c);
		jail.nr_ioctls++;
	}
}

static void jail_add_call(scmp_filter_ctx ctx, const struct vm *vm, int nr)
{
	struct scmp_arg_cmp c[2];
	unsigned i;

	if (nr == SCMP_SYS(read) || nr == SCMP_SYS(timerfd_settime)) {
		c[0] = SCMP_A0(SCMP_CMP_EQ, vm->pit_tfd);
		jail_rule(ctx, nr, 1, c);
	} else if (nr == SCMP_SYS(futex)) {
		for (i = 0; i < ARRAY_SIZE(jail_futex_ops); i++) {
			c[0] = SCMP_A1(SCMP_CMP_EQ, jail_futex_ops[i]);
			jail_rule(ctx, nr, 1, c);
		}
	} else if (nr == SCMP_SYS(write)) {
		c[0] = SCMP_A0(SCMP_CMP_EQ, STDOUT_FILENO);
		jail_rule(ctx, nr, 1, c);
		c[0] = SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO);
		jail_rule(ctx, nr, 1, c);
	} else if (nr == SCMP_SYS(tgkill)) {
		c[0] = SCMP_A0(SCMP_CMP_EQ, getpid());
		c[1] = SCMP_A2(SCMP_CMP_EQ, VCPU_SIG_KICK);
		jail_rule(ctx, nr, 2, c);
		c[1] = SCMP_A2(SCMP_CMP_EQ, SIGUSR2);	/* vm_poweroff() */
		jail_rule(ctx, nr, 2, c);
	} else if (nr == SCMP_SYS(madvise)) {
		c[0] = SCMP_A2(SCMP_CMP_EQ, MADV_DONTNEED);
		jail_rule(ctx, nr, 1, c);
	} else {
		jail_rule(ctx, nr, 0, NULL);
	}
}

/* An empty filter: a call not allowed traps */
static scmp_filter_ctx jail_new(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);

	/* another ABI's call (int 0x80, x32): the whole process, not the
	 * thread only, which would leave the VM waiting for it */
	if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				     SCMP_ACT_KILL_PROCESS))
		die(EXIT_HOST, "seccomp_init failed");
	return ctx;
}

/* @ctx as BPF, through a memfd (libseccomp 2.5 exports to an fd) */
static void jail_export(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	off_t len;
	void *buf;
	int fd;

	fd = memfd_create("irqlab-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(ctx, fd))
		die(EXIT_HOST, "seccomp: cannot export the filter");
	len = lseek(fd, 0, SEEK_END);
	buf = len > 0 ? malloc(len) : NULL;
	if (!buf || pread(fd, buf, len, 0) != len)
		die(EXIT_HOST, "seccomp: cannot read the filter back");
	close(fd);
	seccomp_release(ctx);
	prog->filter = buf;
	prog->len = len / sizeof(struct sock_filter);
}

/* The mode bits of @vm's filters: its irqchip, and M_KHPET */
static unsigned jail_mode(const struct vm *vm)
{
	unsigned mode = 1u << vm->cfg->irqchip;

	if (vm->cfg->hpet && vm->cfg->irqchip == IRQCHIP_KERNEL)
		mode |= M_KHPET;
	return mode;
}

static void jail_build(const struct vcpu *v, struct sock_fprog *prog)
{
	unsigned mode = jail_mode(v->vm), i;
	scmp_filter_ctx ctx = jail_new();

	jail_add_ioctls(ctx, v, mode);
	jail.nr_calls = 1;	/* ioctl */
	for (i = 0; i < ARRAY_SIZE(jail_calls); i++) {
		if (!(jail_calls[i].modes & mode))
			continue;
		jail_add_call(ctx, v->vm, jail_calls[i].nr);
		jail.nr_calls++;
	}
	jail_export(ctx, prog);
}

/* The timer thread: split mode's KVM_SIGNAL_MSI or kernel mode's
 * KVM_IRQ_LINE, and its calls */
static void jail_build_pit(const struct vm *vm)
{
	scmp_filter_ctx ctx = jail_new();
	unsigned i;

	jail.pit_ioctls = 0;
	if (vm->cfg->irqchip != IRQCHIP_USER) {
		struct scmp_arg_cmp c[2] = {
			SCMP_A0(SCMP_CMP_EQ, vm->vm_fd),
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
				vm->cfg->irqchip == IRQCHIP_SPLIT ?
				KVM_SIGNAL_MSI : KVM_IRQ_LINE),
		};

		jail_rule(ctx, SCMP_SYS(ioctl), 2, c);
		jail.pit_ioctls = 1;
	}
	jail.pit_calls = !!jail.pit_ioctls;
	for (i = 0; i < ARRAY_SIZE(jail_pit_calls); i++) {
		jail_add_call(ctx, vm, jail_pit_calls[i]);
		jail.pit_calls++;
	}
	jail_export(ctx, &jail.pit_prog);
	jail.pit = true;
	jail.pit_name = irqchip_isa_in_vmm(vm->cfg) ? "the PIT's" :
			"the HPET's";
}

/*
 * IRQLAB_SECCOMP_SELFTEST=NAME: vCPU 0 makes that call; pit:NAME, the
 * PIT's timer thread (docs/SECURITY.md)
 */
static void jail_selftest_parse(const struct vm *vm)
{
	const char *s = getenv("IRQLAB_SECCOMP_SELFTEST");

	if (!s || !*s)
		return;
	if (!strncmp(s, "pit:", 4)) {
		if (!vm_timer_thread(vm->cfg))
			die(EXIT_USAGE, "IRQLAB_SECCOMP_SELFTEST: %s: the PIT's "
			    "timer thread is irqlab's only with --irqchip="
			    "user or split (or --hpet=on, the HPET's)", s);
		jail.selftest_pit = true;
		s += 4;
	}
	jail.selftest = seccomp_syscall_resolve_name(s);
	if (jail.selftest < 0)
		die(EXIT_USAGE, "IRQLAB_SECCOMP_SELFTEST: no system call '%s'",
		    s);
	warn("IRQLAB_SECCOMP_SELFTEST: %s calls %s (%d) with zero "
	     "arguments once its filter is in",
	     !jail.selftest_pit ? "vCPU 0" : irqchip_isa_in_vmm(vm->cfg) ?
	     "the PIT's timer thread" : "the HPET's timer thread", s,
	     jail.selftest);
}

void jail_prepare(struct vm *vm)
{
	struct sigaction sa;
	unsigned i;

	jail.nr_vcpus = vm->nr_vcpus;
	jail_selftest_parse(vm);
	if (vm->cfg->no_seccomp) {
		jail.off = "--no-seccomp";
		return;
	}
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the sanitizer runtimes map memory and read /proc at any time */
	jail.off = "a sanitizer build";
	warn("the seccomp filter is off in a sanitizer build "
	     "(docs/SECURITY.md)");
	return;
#endif
	for (i = 0; i < JAIL_NAMES; i++)
		jail.names[i] = seccomp_syscall_resolve_num_arch(
					SCMP_ARCH_NATIVE, i);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = jail_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	for (i = 0; i < vm->nr_vcpus; i++)
		jail_build(&vm->vcpus[i], &jail.prog[i]);
	if (vm_timer_thread(vm->cfg))
		jail_build_pit(vm);
}

/* ---- on the jailed threads ---------------------------------------------- */

/* seccomp(2): without CAP_SYS_ADMIN, no_new_privs first */
static int jail_load(const struct sock_fprog *prog)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

void jail_enter(struct vcpu *v)
{
	jail_vcpu = v->id;
	if (!jail.off) {
		if (jail_load(&jail.prog[v->id]))
			die(EXIT_HOST, "vcpu%d: seccomp: %s", v->id,
			    strerror(errno));
		__atomic_add_fetch(&jail.installed, 1, __ATOMIC_RELAXED);
	}
	if (v->id == 0 && jail.selftest >= 0 && !jail.selftest_pit)
		syscall(jail.selftest, 0, 0, 0, 0, 0, 0);
}

void jail_enter_pit(void)
{
	jail_vcpu = JAIL_PIT;
	if (!jail.off) {
		if (jail_load(&jail.pit_prog))
			die(EXIT_HOST, "PIT timer thread: seccomp: %s",
			    strerror(errno));
		__atomic_add_fetch(&jail.pit_installed, 1, __ATOMIC_RELAXED);
	}
	if (jail.selftest >= 0 && jail.selftest_pit)
		syscall(jail.selftest, 0, 0, 0, 0, 0, 0);
}

void jail_report(FILE *f)
{
	if (jail.off) {
		fprintf(f, " seccomp: off (%s)\n", jail.off);
		return;
	}
	fprintf(f, " seccomp: each vCPU thread may make %u system calls "
		"(%u ioctl requests); filters in: %u of %u vCPUs\n",
		jail.nr_calls, jail.nr_ioctls,
		__atomic_load_n(&jail.installed, __ATOMIC_RELAXED),
		jail.nr_vcpus);
	if (jail.pit)
		fprintf(f, " seccomp: %s timer thread may make %u system "
			"calls (%u ioctl request%s); filter in: %s\n",
			jail.pit_name, jail.pit_calls, jail.pit_ioctls,
			jail.pit_ioctls == 1 ? "" : "s",
			__atomic_load_n(&jail.pit_installed, __ATOMIC_RELAXED) ?
			"yes" : "no");
}
