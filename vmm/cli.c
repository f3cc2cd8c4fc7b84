// SPDX-License-Identifier: MIT
/* irqlab-vmm [options] KERNEL */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/loader.h"
#include "cli.h"
#include "util.h"

#ifndef IRQLAB_VERSION_STR
#define IRQLAB_VERSION_STR "unknown"
#endif

const char cli_version[] = IRQLAB_VERSION_STR;
/* where make install puts the kernel: $(PREFIX)/share/irqlab */
#ifndef IRQLAB_DATADIR
#define IRQLAB_DATADIR "/usr/local/share/irqlab"
#endif
#define IRQLAB_KERNEL_NAME "irqlab.elf"

#define MEM_MIN_MIB	4
#define MEM_MAX_MIB	(64 * 1024)
#define TIMEOUT_MAX_S	1000000u	/* 11.5 days */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: irqlab-vmm [options] [KERNEL]\n"
"\n"
"Boot a multiboot (v1 or v2, ELF32/ELF64 or a.out-kludge) KERNEL, or a\n"
"Linux bzImage (boot protocol 2.12+, 64-bit entry), on KVM, with every\n"
"VM exit counted.  Without KERNEL, or with --kernel irqlab, it boots the\n"
"irqlab kernel, the first of: ../share/irqlab/irqlab.elf beside the\n"
"irqlab-vmm binary (as make install lays it out), kernel/irqlab.elf\n"
"beside it (the build tree), %s/irqlab.elf.\n"
"\n"
"      --kernel FILE       the KERNEL, as an option; irqlab: the irqlab\n"
"                          kernel, found as above\n"
"  -c, --cpus N            vCPUs (1-%d, default 1); the APs wait for a SIPI\n"
"  -m, --mem MIB           guest RAM in MiB (%d-%d, default 64)\n"
"  -a, --append CMDLINE    kernel command line: after argv[0] (the path)\n"
"                          for multiboot, the whole line for Linux\n"
"      --module FILE[,STR]\n"
"                          load FILE as a multiboot module with command\n"
"                          line STR; repeatable (at most %d)\n"
"      --initrd FILE       Linux: the initial ramdisk\n"
"      --multiboot 1|2     force the multiboot version (default: 2 if the\n"
"                          image has a multiboot2 header, else 1)\n"
"      --pvh               enter KERNEL at its Xen PVH note even when it\n"
"                          has a multiboot header (default: multiboot\n"
"                          first, PVH for an ELF vmlinux without one)\n"
"      --irqchip MODE      user (default): irqlab emulates the local APIC,\n"
"                          IOAPIC, PIT and PIC; kernel: KVM's in-kernel\n"
"                          LAPIC, IOAPIC, PIC and PIT; split: KVM's\n"
"                          LAPIC, irqlab's IOAPIC (MSIs), PIT and PIC\n"
"      --apic-mhz N        APIC timer input clock in MHz (1-10000, default\n"
"                          1000, as KVM's in-kernel APIC)\n"
"      --x2apic, --no-x2apic  show or hide the x2APIC CPUID bit (default:\n"
"                          shown when the LAPIC can do it)\n"
"      --hlt exit|guest    exit: HLT exits to the hypervisor (default);\n"
"                          guest: the vCPU halts in the guest\n"
"                          (KVM_X86_DISABLE_EXITS_HLT)\n"
"      --halt-poll US      user irqchip: before a HLT sleeps, spin for a\n"
"                          wake-up, in a window that adapts up to US\n"
"                          microseconds (0-10000, default 0: off), as\n"
"                          KVM's halt_poll_ns (200 on x86) does\n"
"      --pv-ipi on|off     paravirtual multicast IPIs, advertised in CPUID\n"
"                          (default off): user irqchip, irqlab's doorbell\n"
"                          (0x40000001 EAX bit 1); kernel and split, KVM's\n"
"                          KVM_HC_SEND_IPI (0x40000101 EAX bit 11)\n"
"      --cpuid-freq WHICH  the TSC and APIC timer rates in CPUID: on (leaves\n"
"                          0x15, 0x16, 0x40000010; default), off (zeroed, as\n"
"                          Hyper-V does), 16 (0x16 only), hv (0x40000010)\n"
"      --cpu-vendor WHO    the vendor string in CPUID: host (default), intel\n"
"                          or amd; family, model and features stay the\n"
"                          host's (Linux reads CPUID 0x15 only on Intel)\n"
"      --pv-eoi on|off     paravirtual EOI (default off): user irqchip,\n"
"                          irqlab's flag word (CPUID 0x40000001 bit 0);\n"
"                          kernel and split, KVM's MSR_KVM_PV_EOI_EN\n"
"                          (its leaves at 0x40000100 added to CPUID)\n"
"      --ioapic POLICY     optimized: an IOAPIC write does cross-vCPU work\n"
"                          only when a level vector moves between TMRs\n"
"                          (default); naive: every change stops every\n"
"                          vCPU (bhyve's rendezvous), for comparison\n"
"      --hpet on|off       an HPET (IA-PC HPET 1.0a: 100 MHz, 3 timers) at\n"
"                          0xfed00000 and an ACPI HPET table (default off),\n"
"                          in every irqchip mode (kernel: through\n"
"                          KVM_IRQ_LINE, as KVM has none)\n"
"      --trace LIST        decoded events on stderr; LIST: a comma-separated\n"
"                          list of lapic (user irqchip), ioapic, pit, pic\n"
"                          (user and split irqchip)\n"
"      --timeout SECONDS   stop a guest that has not ended after SECONDS\n"
"                          (1-%u; default: no limit): status 18, and each\n"
"                          vCPU's LAPIC state (IRR, ISR, TMR, TPR, PPR,\n"
"                          LVTs, timer) on stderr\n"
"      --no-seccomp        no seccomp filter on the vCPU threads and the\n"
"                          PIT's timer thread (by default each allows\n"
"                          only the system calls of its loop, and any\n"
"                          other ends irqlab-vmm with status 20;\n"
"                          docs/SECURITY.md)\n"
"      --kvm-pv off|on|sig[,base]\n"
"                          on: advertise KVM's paravirtual leaves at\n"
"                          0x40000100 (kvmclock, steal time; with KVM's\n"
"                          LAPIC also PV send-IPI, PV unhalt, TLB flush,\n"
"                          sched yield); sig: KVM's signature with no\n"
"                          feature (Linux then takes x2APIC, and nothing\n"
"                          else); off (default): the emulated hardware;\n"
"                          ,base: KVM's leaves at 0x40000000 and irqlab's\n"
"                          at 0x40000100, for a guest that reads only\n"
"                          the first\n"
"      --stats             print the exit table on stderr at exit\n"
"      --stats-json FILE   write the exit counters as JSON to FILE\n"
"      --timeline FILE     stamp every IPI, guest and host, phase by phase,\n"
"                          and write them to FILE in the Chrome Trace Event\n"
"                          format (Perfetto, chrome://tracing); the host's\n"
"                          phases with --irqchip=user (docs/ANATOMY.md)\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"Exit status:\n"
"  0   the guest entered ACPI S5\n"
"  N   the guest wrote N to irqlab's power-off port; (V<<1)|1: it wrote V\n"
"      to isa-debug-exit (0xf4); irqlab-vmm's own statuses are even\n"
"  2   bad usage\n"
"  4   bad kernel image\n"
"  6   KVM or host failure\n"
"  8   guest triple fault\n"
"  10  KVM internal error\n"
"  12  entry failure\n"
"  14  unhandled exit\n"
"  16  guest halted for good\n"
"  18  --timeout ran out\n"
"  20  a vCPU or the PIT's timer thread made a system call its seccomp\n"
"      filter does not allow\n"
"  22  the guest reset the machine (i8042)\n"
"  24  the guest asked for an ACPI sleep state other than S5 (soft-off),\n"
"      which this machine lacks\n"
"  128+N  stopped by signal N\n"
"\n"
"docs/VMM.md has the details.\n",
		IRQLAB_DATADIR, VMM_MAX_CPUS, MEM_MIN_MIB, MEM_MAX_MIB, VMM_MAX_MODULES,
		TIMEOUT_MAX_S);
}

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "irqlab-vmm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'irqlab-vmm --help'.\n");
	exit(EXIT_USAGE);
}

/* A decimal number in [min, max], the whole string, or a usage error. */
static uint64_t parse_num(const char *s, uint64_t min, uint64_t max,
			  const char *what)
{
	char *end;
	uint64_t v;

	errno = 0;
	if (*s < '0' || *s > '9')
		bad_usage(what, s);
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		bad_usage(what, s);
	return v;
}

/* "on" or "off", or the usage error @what */
static bool parse_on_off(const char *s, const char *what)
{
	if (!strcmp(s, "on"))
		return true;
	if (strcmp(s, "off"))
		bad_usage(what, s);
	return false;
}

enum {
	OPT_MODULE = 256,
	OPT_MULTIBOOT,
	OPT_PVH,
	OPT_STATS,
	OPT_STATS_JSON,
	OPT_TIMELINE,
	OPT_IRQCHIP,
	OPT_X2APIC,
	OPT_NO_X2APIC,
	OPT_HLT,
	OPT_HALT_POLL,
	OPT_APIC_MHZ,
	OPT_TRACE,
	OPT_IOAPIC,
	OPT_CPUID_FREQ,
	OPT_CPU_VENDOR,
	OPT_PV_IPI,
	OPT_TIMEOUT,
	OPT_NO_SECCOMP,
	OPT_HPET,
	OPT_PV_EOI,
	OPT_INITRD,
	OPT_KVM_PV,
	OPT_KERNEL,
};

static const struct option options[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "cpus", required_argument, NULL, 'c' },
	{ "mem", required_argument, NULL, 'm' },
	{ "append", required_argument, NULL, 'a' },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "kvm-pv", required_argument, NULL, OPT_KVM_PV },
	{ "multiboot", required_argument, NULL, OPT_MULTIBOOT },
	{ "pvh", no_argument, NULL, OPT_PVH },
	{ "irqchip", required_argument, NULL, OPT_IRQCHIP },
	{ "x2apic", no_argument, NULL, OPT_X2APIC },
	{ "no-x2apic", no_argument, NULL, OPT_NO_X2APIC },
	{ "hlt", required_argument, NULL, OPT_HLT },
	{ "halt-poll", required_argument, NULL, OPT_HALT_POLL },
	{ "apic-mhz", required_argument, NULL, OPT_APIC_MHZ },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "ioapic", required_argument, NULL, OPT_IOAPIC },
	{ "cpuid-freq", required_argument, NULL, OPT_CPUID_FREQ },
	{ "cpu-vendor", required_argument, NULL, OPT_CPU_VENDOR },
	{ "pv-ipi", required_argument, NULL, OPT_PV_IPI },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-seccomp", no_argument, NULL, OPT_NO_SECCOMP },
	{ "hpet", required_argument, NULL, OPT_HPET },
	{ "pv-eoi", required_argument, NULL, OPT_PV_EOI },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "stats-json", required_argument, NULL, OPT_STATS_JSON },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void add_module(struct vmm_config *cfg, char *arg)
{
	char *comma = strchr(arg, ',');
	struct vmm_module *m;

	if (cfg->nr_mods == VMM_MAX_MODULES)
		bad_usage("too many --module options (the limit is 16): %s",
			  arg);
	if (comma)
		*comma = '\0';
	if (!*arg)
		bad_usage("--module needs a file name%s", "");
	m = &cfg->mods[cfg->nr_mods++];
	m->path = arg;
	m->string = comma ? comma + 1 : "";
}

/* The irqlab kernel, for no KERNEL or --kernel irqlab: the first that
 * exists of ../share/irqlab beside the binary (an installed tree, at
 * whatever DESTDIR it was staged), kernel/ beside it (build/), and the
 * compiled-in data directory.  Points into a static buffer. */
static const char *find_irqlab_kernel(void)
{
	static char path[PATH_MAX + 64];
	char exe[PATH_MAX], tried[3 * sizeof(path)] = "";
	const char *dir = ".";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned i;

	if (n > 0) {
		exe[n] = '\0';
		dir = dirname(exe);
	}
	for (i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/../share/irqlab/%s",
				 dir, IRQLAB_KERNEL_NAME);
		else if (i == 1)
			snprintf(path, sizeof(path), "%s/kernel/%s", dir,
				 IRQLAB_KERNEL_NAME);
		else
			snprintf(path, sizeof(path), "%s/%s", IRQLAB_DATADIR,
				 IRQLAB_KERNEL_NAME);
		if (!access(path, R_OK))
			return path;
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried),
			 "%s%s", *tried ? ", " : "", path);
	}
	bad_usage("no KERNEL given, and no irqlab kernel found (looked at "
		  "%s; make install puts it there)", tried);
	return NULL;
}

/* --trace a,b,...: the event classes to decode */
static unsigned parse_trace(char *arg)
{
	unsigned t = 0;
	char *tok, *save;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "lapic"))
			t |= TRACE_LAPIC;
		else if (!strcmp(tok, "ioapic"))
			t |= TRACE_IOAPIC;
		else if (!strcmp(tok, "pit"))
			t |= TRACE_PIT;
		else if (!strcmp(tok, "pic"))
			t |= TRACE_PIC;
		else
			bad_usage("--trace: unknown class '%s' (known: lapic, "
				  "ioapic, pit, pic)", tok);
	}
	if (!t)
		bad_usage("--trace needs a class (known: lapic, ioapic, pit, "
			  "pic)%s", "");
	return t;
}

void cli_parse(int argc, char **argv, struct vmm_config *cfg)
{
	bool named_irqlab = false;
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->cpus = 1;
	cfg->mem_mib = 64;
	cfg->x2apic = -1;
	cfg->apic_mhz = 1000;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:m:a:hV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg->cpus = parse_num(optarg, 1, VMM_MAX_CPUS,
				"--cpus must be a number from 1 to 64, not '%s'");
			break;
		case 'm':
			cfg->mem_mib = parse_num(optarg, MEM_MIN_MIB, MEM_MAX_MIB,
				"--mem must be MiB from 4 to 65536, not '%s'");
			break;
		case 'a':
			cfg->append = optarg;
			break;
		case OPT_MODULE:
			add_module(cfg, optarg);
			break;
		case OPT_KERNEL:
			if (!*optarg)
				bad_usage("--kernel needs a file name, or irqlab%s",
					  "");
			cfg->kernel = optarg;
			named_irqlab = !strcmp(optarg, "irqlab");
			break;
		case OPT_INITRD:
			if (!*optarg)
				bad_usage("--initrd needs a file name%s", "");
			cfg->initrd = optarg;
			break;
		case OPT_MULTIBOOT:
			cfg->protocol = parse_num(optarg, 1, 2,
				"--multiboot must be 1 or 2, not '%s'");
			break;
		case OPT_PVH:
			cfg->protocol = LOADER_PROTO_PVH;
			break;
		case OPT_IRQCHIP:
			if (!strcmp(optarg, "user"))
				cfg->irqchip = IRQCHIP_USER;
			else if (!strcmp(optarg, "kernel"))
				cfg->irqchip = IRQCHIP_KERNEL;
			else if (!strcmp(optarg, "split"))
				cfg->irqchip = IRQCHIP_SPLIT;
			else
				bad_usage("--irqchip must be user, kernel or split, "
					  "not '%s'", optarg);
			break;
		case OPT_X2APIC:
			cfg->x2apic = 1;
			break;
		case OPT_NO_X2APIC:
			cfg->x2apic = 0;
			break;
		case OPT_HLT:
			if (!strcmp(optarg, "exit"))
				cfg->hlt_in_guest = false;
			else if (!strcmp(optarg, "guest"))
				cfg->hlt_in_guest = true;
			else
				bad_usage("--hlt must be exit or guest, not '%s'",
					  optarg);
			break;
		case OPT_HALT_POLL:
			cfg->halt_poll_us = parse_num(optarg, 0, 10000,
				"--halt-poll must be microseconds from 0 to 10000, not '%s'");
			break;
		case OPT_APIC_MHZ:
			cfg->apic_mhz = parse_num(optarg, 1, 10000,
				"--apic-mhz must be MHz from 1 to 10000, not '%s'");
			break;
		case OPT_IOAPIC:
			if (ioapic_policy_parse(optarg, &cfg->ioapic_policy))
				bad_usage("--ioapic must be optimized or naive, "
					  "not '%s'", optarg);
			break;
		case OPT_CPUID_FREQ:
			if (cpuid_freq_parse(optarg, &cfg->cpuid_freq))
				bad_usage("--cpuid-freq must be on, off, 16 or hv, "
					  "not '%s'", optarg);
			break;
		case OPT_CPU_VENDOR:
			if (cpuid_vendor_parse(optarg, &cfg->cpu_vendor))
				bad_usage("--cpu-vendor must be host, intel or amd, "
					  "not '%s'", optarg);
			break;
		case OPT_PV_IPI:
			cfg->pv_ipi = parse_on_off(optarg,
				"--pv-ipi must be on or off, not '%s'");
			break;
		case OPT_PV_EOI:
			cfg->pv_eoi = parse_on_off(optarg,
				"--pv-eoi must be on or off, not '%s'");
			break;
		case OPT_TRACE:
			cfg->trace |= parse_trace(optarg);
			break;
		case OPT_TIMEOUT:
			cfg->timeout_s = parse_num(optarg, 1, TIMEOUT_MAX_S,
				"--timeout must be whole seconds from 1 to 1000000, not '%s'");
			break;
		case OPT_HPET:
			cfg->hpet = parse_on_off(optarg,
				"--hpet must be on or off, not '%s'");
			break;
		case OPT_NO_SECCOMP:
			cfg->no_seccomp = true;
			break;
		case OPT_KVM_PV:
			cfg->kvm_pv_base = !strcmp(optarg, "on,base") ||
					   !strcmp(optarg, "sig,base");
			if (!strcmp(optarg, "sig") || !strcmp(optarg, "sig,base"))
				cfg->kvm_pv = KVMPV_SIG;
			else if (!strcmp(optarg, "on,base"))
				cfg->kvm_pv = KVMPV_ON;
			else
				cfg->kvm_pv = parse_on_off(optarg,
					"--kvm-pv must be off, on, sig, on,base "
					"or sig,base, not '%s'") ? KVMPV_ON :
					KVMPV_OFF;
			break;
		case OPT_STATS:
			cfg->stats = true;
			break;
		case OPT_STATS_JSON:
			cfg->stats_json = optarg;
			break;
		case OPT_TIMELINE:
			cfg->timeline = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("irqlab-vmm %s\n", IRQLAB_VERSION_STR);
			exit(0);
		case ':':
			bad_usage("option '%s' needs an argument",
				  argv[optind - 1]);
			break;
		default:
			/* getopt_long sets optopt to a known long option
			 * that was given an =argument it does not take */
			if (optopt && strchr(argv[optind - 1], '='))
				bad_usage("option '%s' takes no argument",
					  argv[optind - 1]);
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 < argc)
		bad_usage("one KERNEL only; unexpected '%s'", argv[optind + 1]);
	if (optind < argc && cfg->kernel)
		bad_usage("a KERNEL and --kernel: give one; unexpected '%s'",
			  argv[optind]);
	if (optind < argc)
		cfg->kernel = argv[optind];
	if (!cfg->kernel || named_irqlab)
		cfg->kernel = find_irqlab_kernel();
	if (cfg->halt_poll_us && cfg->irqchip != IRQCHIP_USER)
		bad_usage("--halt-poll is for --irqchip=user: %s", "with KVM's "
			  "LAPIC, KVM polls its own HLT (its halt_poll_ns)");
}
