// SPDX-License-Identifier: MIT
/*
 * check=lapic, parts "base" and "id" (lapic_check.h): IA32_APIC_BASE
 * (SDM 11.4.4, 11.12.1, 11.12.5 and its figure "Local x2APIC State
 * Transitions with IA32_APIC_BASE, INIT, and RESET") and the ID
 * registers (SDM 11.4.6, 11.12.5.1).
 *
 * base: a reserved bit (at or above MAXPHYADDR, 0-7, 9) and EXTD
 *   without EN raise #GP and change nothing; the xAPIC page moves to
 *   RELOC and back, answering where the MSR says and not at the old
 *   address; the transitions, each once, around the cycle
 *
 *     xAPIC -> disabled -> (x2APIC: #GP) -> xAPIC -> x2APIC
 *           -> (xAPIC: #GP) -> disabled -> xAPIC
 *
 *   entered where the boot's mode is, so that it ends there.
 * id: the xAPIC ID is writable in xAPIC mode, the x2APIC ID is not.
 *
 * Clearing EN may reset the APIC (SDM 11.4.3: "prior initialization to
 * the APIC may be lost"), so both parts put back the boot's mode and
 * registers when done (restore()).  Interrupts stay off throughout.
 */
#include <stdint.h>

#include "arch/extable.h"
#include "arch/idt.h"
#include "hw/apic.h"
#include "lib/printf.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define EN		APIC_BASE_EN
#define EXTD		APIC_BASE_EXTD
/* where the xAPIC page moves: no device there on irqlab or QEMU, and
 * inside entry.S's uncached map */
#define RELOC		0xfef00000ull
#define MSR_X2APIC_ID	X2APIC_MSR(APIC_ID)
#define MSR_X2APIC_LDR	X2APIC_MSR(APIC_LDR)

/* What the boot set up, put back by restore(). */
static struct {
	uint64_t base;		/* IA32_APIC_BASE */
	uint64_t addr;		/* its address and BSP flag, EN = EXTD = 0 */
	uint32_t id;		/* initial APIC ID (x2APIC: 32 bits) */
	uint32_t lvr;
	uint32_t ldr, dfr;	/* xAPIC mode only */
	uint32_t svr;
	uint32_t regs[8];
	int has_x2apic;
	int off_checked;	/* the disabled state's own steps ran */
} boot;

/* Registers clearing EN may reset, restored in this order after SVR. */
static const unsigned saved_regs[8] = {
	APIC_TDCR, APIC_LVT_TIMER, APIC_LVT_THERM, APIC_LVT_PERF,
	APIC_LVT_LINT0, APIC_LVT_LINT1, APIC_LVT_ERROR, APIC_TPR,
};

static uint64_t apic_base(void)
{
	return rdmsr(MSR_IA32_APIC_BASE);
}

/* The xAPIC page at @base (entry.S maps [3 GiB, 4 GiB) uncached) */
static volatile uint32_t *page(uint64_t base)
{
	return (volatile uint32_t *)(uintptr_t)(base & APIC_BASE_ADDR_MASK);
}

/* SDM vol. 2A, CPUID 80000008H: EAX[7:0]; 36 where the leaf is absent */
static unsigned maxphyaddr(void)
{
	uint32_t r[4];

	cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000008)
		return 36;
	cpuid(0x80000008, 0, r);
	return r[0] & 0xff;
}

/* SDM 11.12.10.2: logical x2APIC ID = ID[19:4] << 16 | 1 << ID[3:0] */
static uint32_t x2apic_ldr(uint32_t id)
{
	return (id >> 4) << 16 | 1u << (id & 0xf);
}

/* Reach @want through legal transitions only (SDM 11.12.5.1): via
 * disabled, then xAPIC.  0 when IA32_APIC_BASE reads @want. */
static int goto_base(uint64_t want)
{
	if (apic_base() == want)
		return 0;
	if (wrmsr_safe(MSR_IA32_APIC_BASE, want) == NO_FAULT &&
	    apic_base() == want)
		return 0;
	wrmsr_safe(MSR_IA32_APIC_BASE, want & ~(EN | EXTD));
	if (want & EN)
		wrmsr_safe(MSR_IA32_APIC_BASE, want & ~EXTD);
	if (want & EXTD)
		wrmsr_safe(MSR_IA32_APIC_BASE, want);
	return apic_base() == want ? 0 : -1;
}

static void save(void)
{
	uint32_t r[4];
	unsigned i;

	boot.base = apic_base();
	boot.addr = boot.base & ~(EN | EXTD);
	boot.id = this_cpu()->apic_id;
	boot.lvr = lapic_read(APIC_LVR);
	if (lapic_mode() == LAPIC_XAPIC) {
		boot.ldr = lapic_read(APIC_LDR);
		boot.dfr = lapic_read(APIC_DFR);
	}
	for (i = 0; i < 8; i++)
		boot.regs[i] = lapic_read(saved_regs[i]);
	boot.svr = lapic_read(APIC_SVR);
	cpuid(1, 0, r);
	boot.has_x2apic = !!(r[2] & CPUID_1_ECX_X2APIC);
}

/* The boot's mode (lapic_init_ap(): SVR enabled, TPR 0), then its
 * registers; 0, or -1 if IA32_APIC_BASE cannot be put back. */
static int restore(const char *part)
{
	unsigned i;
	int r;

	r = goto_base(boot.base);
	if (r) {
		/* not in the boot's mode: in x2APIC mode every register
		 * access below would #GP (SDM 11.12.5); the parts after this
		 * one say they cannot run (lc_part_start()) */
		lc_step(part, "restore", LC_FAIL, "IA32_APIC_BASE reads "
			"0x%lx, not the boot's 0x%lx", apic_base(), boot.base);
		return r;
	}
	lapic_init_ap();
	if (lapic_mode() == LAPIC_XAPIC) {
		lapic_write(APIC_DFR, boot.dfr);
		lapic_write(APIC_LDR, boot.ldr);
	}
	for (i = 0; i < 8; i++)
		lapic_write(saved_regs[i], boot.regs[i]);
	lapic_write(APIC_SVR, boot.svr);
	return r;
}

/* WRMSR IA32_APIC_BASE = @v must raise #GP and change nothing. */
static int expect_gp(const char *step, uint64_t v)
{
	uint64_t before = apic_base(), after;
	int f = wrmsr_safe(MSR_IA32_APIC_BASE, v);

	after = apic_base();
	lc_rule("base", step, f == GP_VECTOR && after == before,
		"WRMSR 0x%lx: vector %d (-1: none), IA32_APIC_BASE 0x%lx -> "
		"0x%lx", v, f, before, after);
	if (after != before && goto_base(before))
		return -1;
	return 0;
}

/* SDM 11.4.4: bits 0-7, 9 and those at and above MAXPHYADDR are reserved */
static void check_reserved(void)
{
	unsigned maxphy = maxphyaddr();

	if (maxphy < 64)
		expect_gp("bit MAXPHYADDR set: #GP",
			  boot.base | 1ull << maxphy);
	expect_gp("reserved bit 0: #GP", boot.base | 1);
	expect_gp("reserved bit 9: #GP", boot.base | 1ull << 9);
}

/* SDM 11.12.5.1: EN = 0 with EXTD = 1 is the invalid state; "it is not
 * possible to get into this state" */
static int extd_without_en(void)
{
	return expect_gp("EXTD without EN: #GP", boot.addr | EXTD);
}

/* A legal transition to @v: 0 if IA32_APIC_BASE then reads @v. */
static int move(const char *step, uint64_t v)
{
	uint64_t before = apic_base();
	int f = wrmsr_safe(MSR_IA32_APIC_BASE, v);

	if (f == NO_FAULT && apic_base() == v)
		return 0;
	lc_rule("base", step, 0, "WRMSR 0x%lx: vector %d (-1: none), "
		"IA32_APIC_BASE 0x%lx -> 0x%lx", v, f, before, apic_base());
	return -1;
}

/* A write at the old base that came back as an MSI (below) */
static volatile uint32_t old_base_msis;

static void old_base_msi(struct trap_frame *tf)
{
	(void)tf;
	old_base_msis++;
	lapic_eoi();
}

/*
 * SDM 11.4.4: the base "specifies the base address of the APIC
 * registers"; software may move it.  The page answers at RELOC, a write
 * at the old address reaches nothing, and it comes back.
 *
 * "Nothing" as the APIC goes: QEMU decodes any write to 0xfee00000-
 * 0xfeefffff as an MSI (its apic-msi region), so the write at the old
 * TPR is a message to APIC 0 with the value as its vector.  The value is
 * a vector of this check's own, with a handler, and the check lets it
 * land after the move back and says so.
 */
static int relocate(void)
{
	uint64_t here = boot.addr | EN;
	uint64_t there = (here & ~APIC_BASE_ADDR_MASK) | RELOC;
	volatile uint32_t *old = page(here), *new = page(there);
	uint32_t lvr, id, tpr, lvr_old, tpr_old;

	if (move("relocate", there))
		return goto_base(here);
	lvr = new[APIC_LVR / 4];
	id = new[APIC_ID / 4] >> 24;
	new[APIC_TPR / 4] = 0x30;
	tpr = new[APIC_TPR / 4];
	lvr_old = old[APIC_LVR / 4];
	old_base_msis = 0;
	idt_set_handler(VEC_LAPIC_CHECK_OLD, old_base_msi);
	old[APIC_TPR / 4] = VEC_LAPIC_CHECK_OLD;	/* must reach nothing */
	tpr_old = new[APIC_TPR / 4];
	new[APIC_TPR / 4] = 0;
	lc_rule("base", "relocate: the registers answer at the new base",
		lvr == boot.lvr && id == (boot.id & 0xff) && tpr == 0x30,
		"at 0x%llx: LVR 0x%x (want 0x%x), ID %u (want %u), TPR 0x%x "
		"after writing 0x30", RELOC, lvr, boot.lvr, id, boot.id & 0xff,
		tpr);
	lc_rule("base", "relocate: not at the old base",
		lvr_old != boot.lvr && tpr_old == 0x30,
		"at 0x%llx: LVR reads 0x%x; TPR at the new base 0x%x after "
		"writing 0x%x at the old (want 0x30)",
		here & APIC_BASE_ADDR_MASK, lvr_old, tpr_old,
		VEC_LAPIC_CHECK_OLD);
	if (move("relocate back", here))
		return goto_base(here);
	/* a LAPIC that never moved took the old-base write as its TPR */
	old[APIC_TPR / 4] = 0;
	lc_delay_us_sti(1000);		/* an MSI from the old base lands */
	idt_set_handler(VEC_LAPIC_CHECK_OLD, NULL);
	if (old_base_msis)
		kprintf("lapic_check: note: relocate: the write at the old base "
			"came as an MSI, vector 0x%x, %u time(s) (QEMU's MSI "
			"window at 0xfee00000)\n", VEC_LAPIC_CHECK_OLD,
			old_base_msis);
	lvr = old[APIC_LVR / 4];
	lc_rule("base", "relocate back", lvr == boot.lvr,
		"at 0x%llx: LVR 0x%x (want 0x%x)", here & APIC_BASE_ADDR_MASK,
		lvr, boot.lvr);
	return 0;
}

/*
 * Disabled (SDM 11.4.3): "functionally equivalent to an IA-32 processor
 * without an on-chip APIC", CPUID.1:EDX[9] (APIC) reads 0; the x2APIC
 * MSRs raise #GP outside x2APIC mode (SDM 11.12.1.2).  Checked once.
 */
static void check_off(void)
{
	uint32_t r[4];
	uint64_t v;
	int f;

	if (boot.off_checked++)
		return;
	cpuid(1, 0, r);
	lc_rule("base", "disabled: CPUID.1:EDX[9] reads 0",
		!(r[3] & CPUID_1_EDX_APIC), "CPUID.1:EDX 0x%x", r[3]);
	f = rdmsr_safe(MSR_X2APIC_ID, &v);
	lc_rule("base", "disabled: RDMSR of the x2APIC ID: #GP",
		f == GP_VECTOR, "vector %d (-1: none), read 0x%lx", f, v);
}

static int xapic_off(void)
{
	if (move("xAPIC -> disabled", boot.addr))
		return -1;
	lc_step("base", "xAPIC -> disabled", LC_OK, " ");
	check_off();
	return 0;
}

static int x2apic_off(void)
{
	if (!boot.has_x2apic) {
		lc_step("base", "x2APIC -> disabled", LC_SKIP, "no x2APIC "
			"(CPUID.1:ECX[21] clear)");
		return 0;
	}
	if (move("x2APIC -> disabled", boot.addr))
		return -1;
	lc_step("base", "x2APIC -> disabled", LC_OK, " ");
	check_off();
	return 0;
}

/* SDM 11.12.5.1: "From the disabled state, the only valid x2APIC
 * transition using IA32_APIC_BASE is to the xAPIC mode" */
static int off_to_x2apic(void)
{
	return expect_gp("disabled -> x2APIC: #GP", boot.addr | EN | EXTD);
}

/* The xAPIC ID after disabled -> xAPIC: the initial one, kept across
 * x2APIC -> disabled (SDM 11.12.5.1) and restored by a reset (11.4.3). */
static int off_to_xapic(void)
{
	uint32_t id, lvr;

	if (move("disabled -> xAPIC", boot.addr | EN))
		return -1;
	id = page(boot.addr)[APIC_ID / 4] >> 24;
	lvr = page(boot.addr)[APIC_LVR / 4];
	lc_rule("base", "disabled -> xAPIC", id == (boot.id & 0xff) &&
		lvr == boot.lvr, "ID %u (want %u), LVR 0x%x (want 0x%x)", id,
		boot.id & 0xff, lvr, boot.lvr);
	return 0;
}

/* The same transition again, on the way back: not a step of its own */
static int off_to_xapic_quiet(void)
{
	return goto_base(boot.addr | EN);
}

/* SDM 11.12.5.1: the x2APIC ID is kept; the logical x2APIC ID "is
 * initialized by hardware during this transition" (11.12.10.2). */
static int xapic_to_x2apic(void)
{
	uint64_t id, ldr;

	if (!boot.has_x2apic) {
		lc_step("base", "xAPIC -> x2APIC", LC_SKIP, "no x2APIC "
			"(CPUID.1:ECX[21] clear)");
		return 0;
	}
	if (move("xAPIC -> x2APIC", boot.addr | EN | EXTD))
		return -1;
	id = rdmsr(MSR_X2APIC_ID);
	ldr = rdmsr(MSR_X2APIC_LDR);
	lc_rule("base", "xAPIC -> x2APIC", id == boot.id &&
		ldr == x2apic_ldr(boot.id), "x2APIC ID %lu (want %u), LDR "
		"0x%lx (want 0x%x)", id, boot.id, ldr, x2apic_ldr(boot.id));
	return 0;
}

/* SDM 11.12.5.1: "A transition from the x2APIC mode to xAPIC mode is
 * not valid, and the corresponding WRMSR ... causes a #GP" */
static int x2apic_to_xapic(void)
{
	if (!boot.has_x2apic) {
		lc_step("base", "x2APIC -> xAPIC: #GP", LC_SKIP, "no x2APIC "
			"(CPUID.1:ECX[21] clear)");
		return 0;
	}
	return expect_gp("x2APIC -> xAPIC: #GP", boot.addr | EN);
}

#define NR_STEPS	9

/*
 * Each transition once, starting from the boot's mode and ending there.
 * From xAPIC, the steps that cannot disable the APIC come first: a VMM
 * that takes EN = 0 and then never enables it again (QEMU 7.2) is thus
 * seen to relocate before it loses its APIC.
 */
static int (*const from_xapic[NR_STEPS])(void) = {
	relocate, extd_without_en, xapic_off, off_to_x2apic, off_to_xapic,
	xapic_to_x2apic, x2apic_to_xapic, x2apic_off, off_to_xapic_quiet,
};

static int (*const from_x2apic[NR_STEPS])(void) = {
	extd_without_en, x2apic_to_xapic, x2apic_off, off_to_x2apic,
	off_to_xapic, relocate, xapic_off, off_to_xapic_quiet,
	xapic_to_x2apic,
};

void lapic_check_base(void)
{
	int (*const *seq)(void);
	unsigned i;

	cli();
	if (!lc_part_start("base"))
		return;
	save();
	check_reserved();
	seq = lapic_mode() == LAPIC_X2APIC ? from_x2apic : from_xapic;
	for (i = 0; i < NR_STEPS; i++)
		if (seq[i]()) {
			lc_step("base", "the other transitions", LC_SKIP,
				"not run: after step %u IA32_APIC_BASE reads "
				"0x%lx, and no legal WRMSR undid it", i,
				apic_base());
			break;
		}
	restore("base");
}

/* SDM 11.4.6: the xAPIC ID register is read/write where the model lets
 * software change it ("processor model specific": a read-only ID, as
 * Bochs has, is no failure).  Only bits 31:24 are the ID. */
static void xapic_id(void)
{
	volatile uint32_t *p = page(boot.addr);
	uint32_t id = p[APIC_ID / 4], want = id ^ 0x80000000u, got, back;

	p[APIC_ID / 4] = want;
	got = p[APIC_ID / 4];
	p[APIC_ID / 4] = id;
	back = p[APIC_ID / 4];
	if (got >> 24 == id >> 24 && back >> 24 == id >> 24) {
		lc_step("id", "xAPIC ID writable", LC_SKIP, "read-only here "
			"(model specific, SDM 11.4.6): wrote 0x%x, reads 0x%x",
			want, got);
		return;
	}
	lc_rule("id", "xAPIC ID writable", got >> 24 == want >> 24 &&
		back >> 24 == id >> 24, "wrote 0x%x: reads 0x%x; wrote 0x%x "
		"back: reads 0x%x", want, got, id, back);
}

/* SDM 11.12.1.2, table of x2APIC MSRs: 802H (ID) is read-only, and a
 * WRMSR to a read-only x2APIC register raises #GP. */
static void x2apic_id(void)
{
	uint64_t got;
	int f = wrmsr_safe(MSR_X2APIC_ID, boot.id ^ 1);

	got = rdmsr(MSR_X2APIC_ID);
	lc_rule("id", "x2APIC ID read-only: #GP", f == GP_VECTOR &&
		got == boot.id, "WRMSR %u: vector %d (-1: none), reads %lu",
		boot.id ^ 1, f, got);
}

void lapic_check_id(void)
{
	cli();
	if (!lc_part_start("id"))
		return;
	save();
	if (goto_base(boot.addr | EN) == 0)
		xapic_id();
	else
		lc_step("id", "xAPIC ID writable", LC_FAIL, "cannot reach "
			"xAPIC mode: IA32_APIC_BASE reads 0x%lx", apic_base());
	if (!boot.has_x2apic)
		lc_step("id", "x2APIC ID read-only: #GP", LC_SKIP, "no x2APIC "
			"(CPUID.1:ECX[21] clear)");
	else if (goto_base(boot.addr | EN | EXTD) == 0)
		x2apic_id();
	else
		lc_step("id", "x2APIC ID read-only: #GP", LC_FAIL, "cannot "
			"reach x2APIC mode: IA32_APIC_BASE reads 0x%lx",
			apic_base());
	restore("id");
}
