// SPDX-License-Identifier: MIT
/*
 * irqlab-vmm: load a multiboot or Linux kernel, create the VM and its vCPU threads,
 * wait for the guest to power off, report the exits.
 *
 * The image is loaded into (lazily mapped) guest RAM before /dev/kvm is
 * opened, so a malformed kernel is reported the same with or without KVM.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/acpi.h"
#include "boot/loader.h"
#include "cli.h"
#include "exit/machine.h"
#include "irqchip/isa.h"
#include "irqchip/user.h"
#include "kvm/irqchip.h"
#include "kvm/jail.h"
#include "kvm/kvm.h"
#include "kvm/vcpu.h"
#include "tl_run.h"
#include "util.h"
#include "vm.h"

struct mapped_file {
	const uint8_t *data;
	size_t len;
};

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "an unknown kind of file";
}

/*
 * O_NONBLOCK: a FIFO with no writer must not hang the open; the type is
 * checked before anything is read.
 */
static struct mapped_file map_file(const char *path, const char *what)
{
	struct mapped_file f = { NULL, 0 };
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		die(EXIT_BADIMAGE, "%s %s: %s", what, path, strerror(errno));
	if (fstat(fd, &st) < 0)
		die(EXIT_BADIMAGE, "%s %s: %s", what, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die(EXIT_BADIMAGE, "%s %s: %s, not a regular file", what, path,
		    file_kind(st.st_mode));
	f.len = st.st_size;
	if (f.len) {
		f.data = mmap(NULL, f.len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (f.data == MAP_FAILED)
			die(EXIT_BADIMAGE, "%s %s: mmap: %s", what, path,
			    strerror(errno));
	}
	close(fd);
	return f;
}

static void unmap_file(struct mapped_file *f)
{
	if (f->len)
		munmap((void *)f->data, f->len);
}

static void load_kernel(struct vm *vm, struct boot_entry *entry)
{
	const struct vmm_config *cfg = vm->cfg;
	struct mapped_file img, mods[VMM_MAX_MODULES], initrd = { NULL, 0 };
	struct boot_module bm[VMM_MAX_MODULES];
	struct boot_params p;
	struct acpi_config acfg;
	struct acpi_result acpi;
	uint8_t *area;
	char err[256];
	unsigned i;

	img = map_file(cfg->kernel, "kernel");
	for (i = 0; i < cfg->nr_mods; i++) {
		mods[i] = map_file(cfg->mods[i].path, "module");
		bm[i] = (struct boot_module){ mods[i].data, mods[i].len,
					      cfg->mods[i].string };
	}
	if (cfg->initrd)
		initrd = map_file(cfg->initrd, "initrd");
	memset(&p, 0, sizeof(p));
	p.image = img.data;
	p.image_len = img.len;
	p.image_path = cfg->kernel;
	p.append = cfg->append;
	p.mods = bm;
	p.nr_mods = cfg->nr_mods;
	p.protocol = cfg->protocol;
	/* ACPI tables in the BIOS area (docs/ACPI.md), the RSDP for MB2 tags */
	acpi_default_config(&acfg, cfg->cpus);
	if (cfg->hpet) {
		acfg.hpet_addr = HPET_BASE;
		acfg.hpet_block_id = (uint32_t)hpet_cap_id();
	}
	area = mem_ptr(&vm->mem, ACPI_AREA_GPA, ACPI_AREA_LEN);
	if (!area || acpi_build(area, ACPI_AREA_GPA, ACPI_AREA_LEN, &acfg, &acpi))
		die(EXIT_HOST, "cannot build the ACPI tables");
	p.rsdp_old = acpi.rsdp_v1;
	p.rsdp_new = acpi.rsdp_v2;
	p.rsdp_new_len = sizeof(acpi.rsdp_v2);
	p.rsdp_gpa = acpi.rsdp_gpa;
	if (cfg->initrd) {
		/* an empty file is an empty initrd, not none */
		p.initrd = initrd.len ? initrd.data : (const uint8_t *)"";
		p.initrd_len = initrd.len;
	}
	if (loader_load(&vm->mem, &p, entry, err, sizeof(err)))
		die(EXIT_BADIMAGE, "%s: %s", cfg->kernel, err);
	/* the loader copied everything into guest RAM */
	unmap_file(&img);
	if (cfg->initrd)
		unmap_file(&initrd);
	for (i = 0; i < cfg->nr_mods; i++)
		unmap_file(&mods[i]);
}

static uint64_t peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss;
}

/* --pv-eoi=on, user irqchip: the model's flag, summed (docs/LAPIC.md) */
static void report_pveoi(const struct vm *vm)
{
	uint64_t arms = 0, lazy = 0, cancels = 0;
	unsigned i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		arms += vm->vcpus[i].irq.lapic.pveoi.arms;
		lazy += vm->vcpus[i].irq.lapic.pveoi.lazy;
		cancels += vm->vcpus[i].irq.lapic.pveoi.cancels;
	}
	fprintf(stderr, " pv-eoi: flag set %" PRIu64 " times: %" PRIu64
		" EOIs done lazily, %" PRIu64 " taken back\n", arms, lazy,
		cancels);
}

static void report(struct vm *vm)
{
	FILE *json = vm->cfg->stats_json ?
		     out_open("--stats-json", vm->cfg->stats_json) : NULL;

	struct vcpu_stats *v[VMM_MAX_CPUS];
	struct stats_report r;
	unsigned i;

	for (i = 0; i < vm->nr_vcpus; i++)
		v[i] = &vm->vcpus[i].stats;
	r = (struct stats_report){
		.vcpu = v,
		.nr_vcpus = vm->nr_vcpus,
		.wall_ns = now_ns() - vm->start_ns,
		.unclaimed_pio_rd = vm->pio.unclaimed_reads,
		.unclaimed_pio_wr = vm->pio.unclaimed_writes,
		.unclaimed_mmio_rd = vm->mmio.unclaimed_reads,
		.unclaimed_mmio_wr = vm->mmio.unclaimed_writes,
		.rss_peak_kb = peak_rss_kb(),
		.guest_resident_kb = mem_resident_kb(&vm->mem),
		.name_ctx = vm,
		.port_name = machine_port_name,
		.mmio_name = machine_mmio_name,
	};
	fflush(stdout);
	if (vm->cfg->stats) {
		stats_print_table(stderr, &r);
		jail_report(stderr);
	}
	if (vm->cfg->stats && vm->cfg->irqchip == IRQCHIP_SPLIT)
		fprintf(stderr, " irqchip split: route_commits %" PRIu64
			" for %" PRIu64 " IOAPIC redirection writes; %" PRIu64
			" MSIs signalled, %" PRIu64 " not taken, %" PRIu64
			" failed\n", vm->split.route_commits,
			vm->ioapic.stats.rte_writes, vm->split.msis,
			vm->split.msi_untaken, vm->split.msi_errors);
	if (vm->cfg->stats && vm->cfg->halt_poll_us) {
		uint64_t polls = 0, hits = 0;

		for (i = 0; i < vm->nr_vcpus; i++) {
			polls += vm->vcpus[i].irq.halt_polls;
			hits += vm->vcpus[i].irq.halt_poll_hits;
		}
		fprintf(stderr, " halt-poll %u us: %" PRIu64 " of %" PRIu64
			" polled HLTs woken while spinning\n",
			vm->cfg->halt_poll_us, hits, polls);
	}
	if (vm->cfg->stats && vm->cfg->pv_ipi &&
	    vm->cfg->irqchip == IRQCHIP_USER) {
		fprintf(stderr, " pv-ipi doorbell:");
		for (i = 0; i < PVIPI_NR_STATUS; i++)
			fprintf(stderr, " %s %" PRIu64, pvipi_status_name(i),
				vm->pv_ipi_status[i]);
		fputc('\n', stderr);
	}
	if (vm->cfg->stats && vm->cfg->pv_eoi &&
	    vm->cfg->irqchip == IRQCHIP_USER)
		report_pveoi(vm);
	if (json) {
		stats_print_json(json, &r);
		if (fclose(json))
			warn("--stats-json %s: %s", vm->cfg->stats_json,
			     strerror(errno));
	}
}

/*
 * The PIT's and the HPET's host timer thread (irqchip/isa.c; with
 * --irqchip=kernel, the HPET's only): jailed before it waits, as a vCPU
 * thread is (kvm/jail.c), since each expiry runs a model on state the
 * guest programmed.
 */
static void *pit_thread(void *arg)
{
	struct vm *vm = arg;

	jail_enter_pit();
	isa_timer_loop(vm);
	return NULL;
}

static void pit_thread_start(struct vm *vm)
{
	int err = pthread_create(&vm->pit_thread, NULL, pit_thread, vm);

	if (err)
		die(EXIT_HOST, "PIT timer thread: pthread_create: %s",
		    strerror(err));
}

static void pit_thread_stop(struct vm *vm)
{
	if (!vm_timer_thread(vm->cfg))	/* KVM's PIT, no HPET */
		return;
	isa_timer_stop(vm);
	pthread_join(vm->pit_thread, NULL);
}

/* Block the signals the main thread waits for, before any thread exists. */
static sigset_t main_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR2);	/* vm_poweroff() */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	return set;
}

/*
 * Wait for the end: SIGUSR2 from a vCPU's vm_poweroff(), SIGINT or
 * SIGTERM; or, with --timeout, the time running out: 0.
 */
static int wait_end(struct vm *vm, const sigset_t *set)
{
	uint64_t t, end = 0;
	struct timespec ts;
	int sig;

	if (vm->cfg->timeout_s)
		end = now_ns() + vm->cfg->timeout_s * 1000000000ull;
	for (;;) {
		if (!end) {
			if (sigwait(set, &sig))
				sig = SIGTERM;
		} else {
			t = now_ns();
			if (t >= end)
				return 0;
			ts.tv_sec = (end - t) / 1000000000ull;
			ts.tv_nsec = (end - t) % 1000000000ull;
			sig = sigtimedwait(set, NULL, &ts);
			if (sig < 0 && errno == EAGAIN)
				return 0;
			if (sig < 0)
				continue;	/* EINTR */
		}
		if (sig != SIGUSR2 || vm_stopping(vm))
			return sig;
	}
}

/* --timeout ran out: stop the VM, each vCPU's state in @was first.
 * False if the guest ended by itself meanwhile. */
static bool timeout_stop(struct vm *vm, enum vcpu_state *was)
{
	unsigned i;

	pthread_mutex_lock(&vm->lock);
	for (i = 0; i < vm->nr_vcpus; i++)
		was[i] = vm->vcpus[i].state;
	pthread_mutex_unlock(&vm->lock);
	return vm_poweroff(vm, EXIT_TIMEOUT);
}

/* ... and, the vCPUs stopped, say so and show where each one waits */
static void timeout_report(struct vm *vm, const enum vcpu_state *was)
{
	fflush(stdout);
	warn("--timeout %u: the guest has not ended after %u s: stopped "
	     "(status %d); each vCPU's LAPIC follows", vm->cfg->timeout_s,
	     vm->cfg->timeout_s, EXIT_TIMEOUT);
	kvm_dump_lapics(vm, was);
}

int main(int argc, char **argv)
{
	static struct vm vm;
	static struct vmm_config cfg;
	static enum vcpu_state was[VMM_MAX_CPUS];
	static char outbuf[BUFSIZ];
	struct boot_entry entry;
	bool timed_out;
	sigset_t set;
	unsigned i;
	int sig, err;

	cli_parse(argc, argv, &cfg);
	/* a buffer of our own: the vCPU thread that prints first allocates
	 * nothing (malloc and fstat are not in its seccomp filter) */
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	vm.cfg = &cfg;
	vm.start_ns = now_ns();
	vm.main_thread = pthread_self();
	pthread_mutex_init(&vm.lock, NULL);
	pthread_cond_init(&vm.cond, NULL);
	if (cfg.stats_json)
		out_check("--stats-json", cfg.stats_json);
	if (cfg.timeline)
		out_check("--timeline", cfg.timeline);

	err = mem_init(&vm.mem, cfg.mem_mib << 20);
	if (err)
		die(EXIT_HOST, "guest RAM (%llu MiB): %s",
		    (unsigned long long)cfg.mem_mib, strerror(-err));
	load_kernel(&vm, &entry);

	vm.nr_vcpus = cfg.cpus;
	vm.vcpus = calloc(cfg.cpus, sizeof(*vm.vcpus));
	if (!vm.vcpus)
		die(EXIT_HOST, "out of memory");
	kvm_init(&vm);
	kvm_setup_memory(&vm);
	kvm_create_vcpus(&vm);
	if (cfg.timeline)
		tl_run_alloc(&vm);
	machine_init(&vm);
	if (cfg.irqchip == IRQCHIP_USER)
		irq_init(&vm);
	if (irqchip_isa_in_vmm(&cfg))
		isa_init(&vm);
	else if (cfg.hpet)
		isa_hpet_kernel_init(&vm);
	kvm_set_boot_state(&vm.vcpus[0], &entry);
	if (cfg.irqchip == IRQCHIP_KERNEL)
		kvm_testdev_init(&vm);	/* else isa_init() added it */
	/* the devices' ISA lines (COM1's IRQ 4): KVM's or irqlab's */
	vm.isa_line = irqchip_isa_in_vmm(&cfg) ? isa_set_line : kvm_isa_line;
	vm.pit_hpet_legacy = kvm_pit_hpet_legacy;	/* kernel mode's HPET */

	tl_run_trace_start(&vm);	/* before any vCPU runs */
	jail_prepare(&vm);
	set = main_signals();	/* before any thread: they inherit the mask */
	if (vm_timer_thread(&cfg))
		pit_thread_start(&vm);
	for (i = 0; i < vm.nr_vcpus; i++)
		vcpu_start(&vm.vcpus[i]);
	/*
	 * Every thread runs now.  The APs wait for a SIPI: with KVM's LAPIC
	 * inside KVM_RUN, with irqlab's in irq_wait_sipi().
	 */
	for (i = 0; i < vm.nr_vcpus; i++)
		vcpu_release(&vm.vcpus[i]);

	sig = wait_end(&vm, &set);
	timed_out = !sig && timeout_stop(&vm, was);
	if (sig && sig != SIGUSR2) {
		fflush(stdout);
		warn("%s: stopping the guest", strsignal(sig));
		vm_poweroff(&vm, 128 + sig);
	}
	pit_thread_stop(&vm);	/* first: it kicks vCPUs, which then end */
	vcpus_stop(&vm);
	if (timed_out)
		timeout_report(&vm, was);
	report(&vm);
	if (cfg.timeline)
		tl_run_report(&vm);
	return vm.exit_status;
}
