// SPDX-License-Identifier: MIT
/*
 * Starting the application processors (SDM vol. 3A 9.4), per-CPU data,
 * and the APs' idle loop.
 *
 * After reset or INIT an AP waits for a STARTUP IPI; its vector names the
 * page where it starts in real mode.  The BSP copies the trampoline
 * (boot/trampoline.S) to a free page below 1 MiB, then for each AP in
 * turn sets its stack and index in ap_boot_*, sends INIT, STARTUP,
 * STARTUP (9.4.4.1), and waits until the AP says it is online.
 * One AP at a time: they share the trampoline and ap_boot_*.
 */
#include <stddef.h>
#include <stdint.h>

#include "boot/acpi_boot.h"
#include "arch/gdt.h"
#include "hw/apic.h"
#include "idle.h"
#include "arch/idt.h"
#include "lib/kstring.h"
#include "dev/lapic.h"
#include "boot/mbinfo.h"
#include "sys/panic.h"
#include "lib/printf.h"
#include "smp.h"
#include "arch/x86.h"

#define PAGE_SIZE	4096
#define KSTACK_SIZE	(16 * 1024)	/* as entry.S's boot stack */

/*
 * The trampoline page: 0x8000 if it is free, else the first free page in
 * [0x1000, 0x9f000).  Page 0 holds the real-mode IVT and the BIOS data
 * area; 0x9fc00 up is the EBDA and the BIOS.  A STARTUP vector is 8 bits,
 * so the page must lie below 1 MiB anyway.
 */
#define TRAMPOLINE_PREFERRED	0x8000
#define TRAMPOLINE_LOW		0x1000
#define TRAMPOLINE_HIGH		0x9f000

/*
 * Delays, in iterations of a loop around PAUSE: nothing is calibrated
 * yet (no timer).  PAUSE takes from ~10 cycles (older cores) to ~140
 * (Skylake and later), so 200000 iterations are ~1 to ~10 ms at 3 GHz;
 * under TCG each is a few host instructions.
 *
 * SDM 9.4.4.1 waits 10 ms after INIT and 200 us after each STARTUP.  We
 * skip the INIT wait on the CPUs Linux skips it on (smp_quirk_init_udelay
 * in arch/x86/kernel/smpboot.c: Intel family 6, AMD family 0xf and
 * later, Hygon 0x18 and later), which take INIT at once; there, and in
 * every VM, the spin would only cost time, or pause-loop VM exits.  After
 * a STARTUP we wait only until the AP's first store, and send the second
 * STARTUP only if it did not come: a CPU takes STARTUP only in its
 * wait-for-SIPI state, so a running AP would ignore it anyway.
 *
 * The online wait is a timeout, not a delay: it ends when the AP is up,
 * which takes microseconds on hardware; 20M iterations are ~0.1-1 s
 * there, and still enough for nested KVM under TCG, where one iteration
 * costs ~1 us.  An AP that missed it gets INIT again (smp_init), so it
 * cannot wake up late on the next AP's stack.
 */
#define INIT_DELAY_LOOPS	200000		/* "10 ms" */
#define SIPI_WAIT_LOOPS		200000		/* ">= 200 us" */
#define ONLINE_WAIT_LOOPS	20000000ul	/* the AP is lost */

struct cpu cpus[NR_CPUS];
static unsigned nr_cpus = 1;		/* cpus[] entries in use */
static unsigned nr_online = 1;

static uint8_t ap_stacks[NR_CPUS - 1][KSTACK_SIZE] __attribute__((aligned(16)));

/* boot/trampoline.S */
extern const char trampoline_start[], trampoline_end[], trampoline_started[];
extern uint64_t ap_boot_stack;
extern uint32_t ap_boot_cr3, ap_boot_cpu;

void ap_main(unsigned index) __attribute__((noreturn));

static void set_gs_base(struct cpu *c)
{
	c->self = c;
	c->index = c - cpus;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
}

void smp_early_init(void)
{
	set_gs_base(&cpus[0]);
}

unsigned smp_nr_online(void)
{
	return nr_online;
}

/* Spin until *@flag is non-zero or @loops ran out; 1 if it was set. */
static int spin_until(const void *flag, size_t size, unsigned long loops)
{
	unsigned long n;

	for (n = 0; n < loops; n++) {
		if (size == 1 ? __atomic_load_n((const uint8_t *)flag,
						__ATOMIC_ACQUIRE) :
		    __atomic_load_n((const int *)flag, __ATOMIC_ACQUIRE))
			return 1;
		cpu_relax();
	}
	return 0;
}

static void spin_delay(unsigned long loops)
{
	while (loops--)
		cpu_relax();
}

/* ---- interrupts every CPU takes ---- */

/* SDM 11.9: a spurious interrupt sets no ISR bit, so it gets no EOI. */
static void spurious_handler(struct trap_frame *tf)
{
	(void)tf;
}

/* The wake-up IPI only ends HLT; the idle loop then looks at ->work. */
static void wake_handler(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
}

/*
 * The idle loop.  Interrupts are off while it checks ->work: an IPI that
 * comes after the check waits in IRR, and STI; HLT takes it only once
 * HLT runs (STI delays interrupts by one instruction, SDM vol. 2B, STI),
 * so the wake-up is never lost between the check and the HLT.
 */
/* idle.c's wake condition: work was given */
static int has_work(void *arg)
{
	struct cpu *c = arg;

	return __atomic_load_n(&c->work, __ATOMIC_ACQUIRE) != NULL;
}

static void __attribute__((noreturn)) idle(struct cpu *c)
{
	void (*fn)(void);

	for (;;) {
		cli();
		fn = __atomic_exchange_n(&c->work, NULL, __ATOMIC_ACQUIRE);
		if (fn) {
			sti();
			fn();
			continue;
		}
		idle_wait(has_work, c);
	}
}

void smp_run_on_aps(void (*fn)(void))
{
	unsigned i;

	if (nr_online < 2)
		return;
	for (i = 1; i < nr_cpus; i++)
		if (__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			__atomic_store_n(&cpus[i].work, fn, __ATOMIC_RELEASE);
	/* one ICR write for all; a CPU that is not up ignores it */
	lapic_send_others(IPI_VEC_WAKE);
}

/* ---- the APs ---- */

/* Called by trampoline.S in 64-bit mode on the AP's own stack. */
void ap_main(unsigned index)
{
	struct cpu *c = &cpus[index];
	uint32_t id;

	set_gs_base(c);
	gdt_init_cpu(index);
	idt_load();
	lapic_init_ap();
	id = lapic_id();
	if (id != c->apic_id) {
		kprintf("smp: cpu %u has APIC ID %u, the firmware said %u\n",
			index, id, c->apic_id);
		c->apic_id = id;	/* IPIs go where it really is */
	}
	kprintf("smp: cpu %u online, APIC ID %u\n", index, id);
	__atomic_store_n(&c->online, 1, __ATOMIC_RELEASE);
	idle(c);
}

/* 1 if [p, p + PAGE_SIZE) is available RAM and holds no boot information. */
static int page_free(const struct mbinfo *mbi, uint64_t p, uint64_t lo,
		     uint64_t hi)
{
	unsigned i;

	if (p < hi && p + PAGE_SIZE > lo)
		return 0;
	if (!mbi->nr_mmap)
		return mbi->has_mem &&
		       p + PAGE_SIZE <= (uint64_t)mbi->mem_lower_kb * 1024;
	for (i = 0; i < mbi->nr_mmap; i++) {
		const struct mbinfo_mmap *m = &mbi->mmap[i];

		if (m->type == MB_MEMORY_AVAILABLE && p >= m->addr &&
		    p + PAGE_SIZE <= m->addr + m->len)
			return 1;
	}
	return 0;
}

static uint64_t pick_trampoline(const struct mbinfo *mbi, uint64_t lo,
				uint64_t hi)
{
	uint64_t p;

	if (page_free(mbi, TRAMPOLINE_PREFERRED, lo, hi))
		return TRAMPOLINE_PREFERRED;
	for (p = TRAMPOLINE_LOW; p < TRAMPOLINE_HIGH; p += PAGE_SIZE)
		if (page_free(mbi, p, lo, hi))
			return p;
	return 0;
}

/* 1 on the CPUs that need no 10 ms after INIT (see INIT_DELAY_LOOPS) */
static int init_delay_needless(void)
{
	uint32_t r[4], family;
	char vendor[12];

	cpuid(0, 0, r);
	memcpy(vendor, &r[1], 4);	/* EBX, EDX, ECX */
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;	/* DisplayFamily, as cpu.c */
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	if (!memcmp(vendor, "GenuineIntel", 12))
		return family == 6;
	if (!memcmp(vendor, "AuthenticAMD", 12))
		return family >= 0xf;
	if (!memcmp(vendor, "HygonGenuine", 12))
		return family >= 0x18;
	return 0;
}

/* INIT, STARTUP, STARTUP for cpus[@i]; 1 once it is online. */
static int boot_ap(unsigned i, uint64_t page, int skip_init_delay)
{
	volatile uint8_t *started = (volatile uint8_t *)(uintptr_t)
		(page + (trampoline_started - trampoline_start));
	struct cpu *c = &cpus[i];
	int sipi;

	*started = 0;
	ap_boot_stack = (uint64_t)ap_stacks[i - 1] + KSTACK_SIZE;
	ap_boot_cpu = i;

	lapic_send_init(c->apic_id);
	if (!skip_init_delay)
		spin_delay(INIT_DELAY_LOOPS);
	for (sipi = 0; sipi < 2; sipi++) {
		lapic_send_sipi(c->apic_id, page >> 12);
		if (spin_until((const void *)started, 1, SIPI_WAIT_LOOPS))
			break;
	}
	return spin_until(&c->online, sizeof(c->online), ONLINE_WAIT_LOOPS);
}

/*
 * Fill cpus[1..] with the APs the MADT lists (ACPI 6.5 5.2.12), from the
 * RSDP acpi_boot() finds (the multiboot2 tag's, the BIOS area's, or one in
 * an ACPI region of the memory map).
 * Returns the @smp record's source=: "acpi", or "none" when there is no
 * usable ACPI, and then there is only the BSP.
 */
static const char *find_cpus(const struct mbinfo *mbi, uint32_t bsp_id)
{
	const struct acpi_info *acpi;
	const char *from;
	int err, bsp_listed = 0;
	unsigned i;

	acpi = acpi_boot(mbi, &err, &from);
	if (!from) {
		kprintf("smp: no ACPI RSDP: only the BSP\n");
		return "none";
	}
	if (!acpi) {
		kprintf("smp: ACPI (RSDP from %s): %s: only the BSP\n", from,
			acpi_strerror(err));
		return "none";
	}
	kprintf("smp: ACPI %s RSDP from %s at 0x%lx; MADT: %u CPUs, LAPIC "
		"at 0x%lx\n", acpi->rsdp_rev ? "2.0+" : "1.0", from,
		acpi->rsdp_addr,
		acpi->nr_cpus, acpi->lapic_addr);
	if (lapic_mode() == LAPIC_XAPIC && acpi->lapic_addr != lapic_base())
		kprintf("smp: warning: the MADT says the LAPIC is at 0x%lx, "
			"IA32_APIC_BASE 0x%lx: using the MSR\n",
			acpi->lapic_addr, lapic_base());
	for (i = 0; i < acpi->nr_cpus; i++) {
		if (acpi->cpus[i].apic_id == bsp_id) {
			bsp_listed = 1;
			continue;
		}
		if (nr_cpus == NR_CPUS) {
			kprintf("smp: more than %u CPUs: the rest stay off\n",
				NR_CPUS);
			break;
		}
		cpus[nr_cpus].index = nr_cpus;
		cpus[nr_cpus].apic_id = acpi->cpus[i].apic_id;
		nr_cpus++;
	}
	if (!bsp_listed)
		kprintf("smp: warning: the MADT does not list the BSP "
			"(APIC ID %u)\n", bsp_id);
	return "acpi";
}

void smp_init(const struct mbinfo *mbi, uint64_t loader_lo,
	      uint64_t loader_hi)
{
	const char *source;
	uint64_t page;
	uint32_t r[4];
	unsigned i;
	int fast;

	idt_set_handler(APIC_SVR_VECTOR, spurious_handler);
	idt_set_handler(IPI_VEC_WAKE, wake_handler);

	cpus[0].online = 1;
	if (lapic_init() == LAPIC_NONE) {
		/* no IPIs without a local APIC: the BSP alone */
		cpuid(1, 0, r);
		cpus[0].apic_id = r[1] >> 24;	/* initial APIC ID */
		source = find_cpus(mbi, cpus[0].apic_id);
		kprintf("smp: no local APIC: only the BSP runs\n");
		kprintf("@smp online=1 apic=none cpus=%u bsp=%u source=%s "
			"rsdp=%s\n", nr_cpus, cpus[0].apic_id, source,
			acpi_boot_source());
		nr_cpus = 1;
		return;
	}
	cpus[0].apic_id = lapic_id();

	source = find_cpus(mbi, cpus[0].apic_id);
	page = nr_cpus > 1 ? pick_trampoline(mbi, loader_lo, loader_hi) : 0;
	if (nr_cpus > 1 && !page) {
		kprintf("smp: no free page below 1 MiB for the trampoline\n");
		nr_cpus = 1;
	}
	if (page && trampoline_end - trampoline_start > PAGE_SIZE)
		panic("the AP trampoline is larger than a page",
		      "reason=trampoline size=%ld",
		      (long)(trampoline_end - trampoline_start));
	if (page) {
		memcpy((void *)(uintptr_t)page, trampoline_start,
		       trampoline_end - trampoline_start);
		ap_boot_cr3 = (uint32_t)read_cr3();
		kprintf("smp: trampoline at 0x%lx, %u APs to start\n", page,
			nr_cpus - 1);
	}
	fast = init_delay_needless();
	for (i = 1; i < nr_cpus; i++) {
		if (lapic_mode() == LAPIC_XAPIC && cpus[i].apic_id > 0xfe) {
			kprintf("smp: APIC ID %u needs x2APIC: not started\n",
				cpus[i].apic_id);
			continue;
		}
		if (boot_ap(i, page, fast)) {
			nr_online++;
		} else {
			lapic_send_init(cpus[i].apic_id);	/* stop it */
			kprintf("smp: cpu %u (APIC ID %u) did not come up\n",
				i, cpus[i].apic_id);
		}
	}
	kprintf("@smp online=%u apic=%s cpus=%u bsp=%u source=%s rsdp=%s\n",
		nr_online, lapic_mode_name(), nr_cpus, cpus[0].apic_id, source,
		acpi_boot_source());
}
