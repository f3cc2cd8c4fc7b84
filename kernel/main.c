// SPDX-License-Identifier: MIT
/*
 * kmain: the kernel's C entry, called by entry.S in 64-bit mode with the
 * loader's EAX and EBX.  It reports what it finds as @records
 * (docs/RECORDS.md) and exits.
 */
#include <stdint.h>

#include "../guest-bench/cases/bench.h"
#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "sys/console.h"
#include "arch/cpu.h"
#include "boot/fwcfg.h"
#include "arch/gdt.h"
#include "arch/idt.h"
#include "smp/idle.h"
#include "dev/ioapic.h"
#include "check/ioapic_check.h"
#include "check/ipi_check.h"
#include "check/lapic_check.h"
#include "check/kvmclock_check.h"
#include "check/hpet_check.h"
#include "check/pic_check.h"
#include "check/timer_check.h"
#include "boot/mbinfo.h"
#include "sys/panic.h"
#include "dev/pic.h"
#include "lib/printf.h"
#include "dev/pv.h"
#include "dev/pv_ipi.h"
#include "dev/pveoi.h"
#include "dev/timeline.h"
#include "lib/kstring.h"
#include "smp/smp.h"
#include "arch/x86.h"

#ifndef IRQLAB_VERSION_STR
#define IRQLAB_VERSION_STR	"0.1"
#endif
/*
 * The records' format (docs/RECORDS.md "@kernel"): raised when a record
 * loses or changes a key a reader relies on, so that guest-bench/report
 * can tell a log of another kernel from a broken one.
 */
#define RECORDS_FORMAT		1

#define IDENTITY_END	0x100000000ull	/* entry.S maps [0, 4 GiB) */
#define LOW_MEM_END	0x100000ull	/* real-mode memory: 1 MiB */
#define CONV_MEM_END	0xa0000ull	/* conventional memory: 640 KiB */

void kmain(uint32_t magic, uint32_t info) __attribute__((noreturn));

static struct mbinfo mbi;
static struct cpu_info boot_cpu;

/* The conventional memory the boot information occupies: smp.c keeps
 * its AP trampoline out of [loader_lo, loader_hi).  What lies from
 * 640 KiB up (the BIOS's ROM, where QEMU's PVH start info points at the
 * RSDP) holds no trampoline, so it does not widen the span. */
static uint64_t loader_lo = LOW_MEM_END, loader_hi;

/* mbinfo_phys_fn for the identity map.  Address 0 would look like NULL,
 * and no loader puts anything there. */
static const void *phys_identity(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	if (addr == 0 || addr >= IDENTITY_END || len > IDENTITY_END - addr)
		return NULL;
	if (addr < CONV_MEM_END) {
		if (addr < loader_lo)
			loader_lo = addr;
		if (addr + len > loader_hi)
			loader_hi = addr + len;
	}
	return (const void *)(uintptr_t)addr;
}

/* 1 if check=a,b,... names @what */
static int check_wanted(const char *what)
{
	const char *s = cmdline_get("check");
	size_t n = strlen(what);

	while (s && *s) {
		if (!strncmp(s, what, n) && (s[n] == ',' || !s[n]))
			return 1;
		while (*s && *s != ',')
			s++;
		if (*s)
			s++;
	}
	return 0;
}

static const char *mmap_type(uint32_t type)
{
	switch (type) {
	case MB_MEMORY_AVAILABLE:
		return "available";
	case MB_MEMORY_RESERVED:
		return "reserved";
	case MB_MEMORY_ACPI:
		return "acpi-reclaimable";
	case MB_MEMORY_NVS:
		return "acpi-nvs";
	case MB_MEMORY_BADRAM:
		return "bad";
	default:
		return "unknown";
	}
}

static void print_mbinfo(void)
{
	const char *acpi = "";
	unsigned i;

	if (mbi.rsdp)
		acpi = mbi.rsdp_new ? ", ACPI 2.0+ RSDP" : ", ACPI 1.0 RSDP";
	kprintf("%s: loader \"%s\", cmdline \"%s\", mem %u KiB low "
		"+ %u KiB high, %u mmap entries, %u modules%s\n",
		mbi.proto == MBINFO_PROTO_PVH ? "pvh" :
		mbi.proto == 1 ? "multiboot1" : "multiboot2",
		mbi.loader_name ? mbi.loader_name : "",
		mbi.cmdline ? mbi.cmdline : "", mbi.mem_lower_kb,
		mbi.mem_upper_kb, mbi.nr_mmap, mbi.nr_mods, acpi);
	for (i = 0; i < mbi.nr_mmap; i++)
		kprintf("  mmap  %016lx-%016lx %s\n", mbi.mmap[i].addr,
			mbi.mmap[i].addr + mbi.mmap[i].len - 1,
			mmap_type(mbi.mmap[i].type));
	for (i = 0; i < mbi.nr_mods; i++)
		kprintf("  module %u: %016lx-%016lx \"%s\"\n", i,
			mbi.mods[i].start, mbi.mods[i].end, mbi.mods[i].string);
}

/*
 * crash=<what>: fault on purpose, to test the @panic path here and the
 * VMM's fault reporting.  Every known case stops in trap_panic().
 */
static const char *const crash_kinds[] = { "ud", "pf", "gp", "de", "bp", "df" };

static void crash(const char *what)
{
	unsigned i;

	for (i = 0; i < sizeof(crash_kinds) / sizeof(crash_kinds[0]); i++)
		if (!strcmp(what, crash_kinds[i]))
			break;
	if (i == sizeof(crash_kinds) / sizeof(crash_kinds[0])) {
		kprintf("crash: unknown crash=%s (try ud pf gp de bp df)\n",
			what);
		return;
	}
	kprintf("crash: faulting on purpose (crash=%s)\n", what);
	if (!strcmp(what, "ud")) {
		asm volatile("ud2");			/* #UD */
	} else if (!strcmp(what, "pf")) {
		/* above the 4 GiB the page tables map: #PF, not present */
		(void)*(volatile uint64_t *)IDENTITY_END;
	} else if (!strcmp(what, "gp")) {
		/* a non-canonical address: #GP(0) (SDM vol. 1 sec. 3.3.7.1) */
		(void)*(volatile uint64_t *)0x8000000000000000ull;
	} else if (!strcmp(what, "de")) {
		asm volatile("xor %%ecx, %%ecx; div %%ecx"	/* #DE */
			     : : : "eax", "ecx", "edx");
	} else if (!strcmp(what, "bp")) {
		asm volatile("int3");			/* #BP */
	} else if (!strcmp(what, "df")) {
		/*
		 * Push onto an unmapped stack: the #PF cannot push its frame
		 * there either, so the CPU raises #DF (SDM vol. 3 sec. 6.15,
		 * table 6-5), which runs on its IST stack.
		 */
		asm volatile("mov %0, %%rsp; push %%rax"
			     : : "r"(IDENTITY_END + 4096) : "memory");
	}
}

void kmain(uint32_t magic, uint32_t info)
{
	const char *what;
	int err;

	smp_early_init();	/* GS base first: the console lock uses it */
	console_init();
	gdt_init();
	idt_init();
	kprintf("irqlab kernel %s\n", IRQLAB_VERSION_STR);
	kprintf("@kernel version=%s records=%d\n", IRQLAB_VERSION_STR,
		RECORDS_FORMAT);

	err = mbinfo_parse(magic, info, phys_identity, NULL, &mbi);
	if (err) {
		kprintf("boot info: magic 0x%x, info at 0x%x: %s\n", magic,
			info, mbinfo_strerror(err));
		panic(mbinfo_strerror(err), "reason=mbinfo err=%d magic=0x%x "
		      "info=0x%x", err, magic, info);
	}
	cmdline_init(mbi.cmdline);
	console_setup();	/* console=vga */

	cpu_identify(&boot_cpu);
	cpu_print(&boot_cpu);

	kprintf("@boot proto=%s hv=%s pv=%d mem_kb=%u mmap=%u mods=%u "
		"fwcfg_cpus=%u argc=%d path=%d ignored=%d\n",
		mbinfo_proto_name(mbi.proto),
		pv_present() ? "irqlab" : boot_cpu.hv[0] ? boot_cpu.hv : "none",
		pv_present(), mbi.has_mem ? mbi.mem_lower_kb + mbi.mem_upper_kb : 0,
		mbi.nr_mmap, mbi.nr_mods, fwcfg_nb_cpus(), cmdline_argc(),
		cmdline_has_path(), cmdline_ignored());
	print_mbinfo();
	cmdline_print();

	calib_boot(&mbi);
	pic_mask_all();		/* the 8259s masked: IOAPIC and LAPICs only */
	ioapic_find(&mbi);	/* ioapic_init() on first use */
	idle_init();		/* haltpoll=: needs calibration; before the APs */
	smp_init(&mbi, loader_lo, loader_hi);
	pv_ipi_init();

	what = cmdline_get("crash");
	if (what)
		crash(what);
	if (check_wanted("ipi"))
		ipi_check();
	if (check_wanted("timer"))
		timer_check();
	if (check_wanted("ioapic"))
		ioapic_check();
	if (check_wanted("pic"))
		pic_check();
	if (check_wanted("lapic"))
		lapic_check();
	if (check_wanted("kvmclock"))
		kvmclock_check();
	if (check_wanted("hpet"))
		hpet_check();
	checks_done();	/* onfail=go: a failed check ends the boot here */
	bench_run();	/* bench=...: guest-bench/cases/, phase IRQLAB_PHASE_BENCH */

	pveoi_print_stats();
	tl_print();	/* timeline=on off irqlab-vmm: the @tl records */
	kprintf("@ready tsc=%lu\n", rdtsc());
	kernel_exit(KERNEL_EXIT_OK);
}
