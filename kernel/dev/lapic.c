// SPDX-License-Identifier: MIT
/*
 * The local APIC driver, xAPIC and x2APIC.
 *
 * Sections are those of the current SDM (docs/ARCHITECTURE.md): the APIC
 * is chapter 11 of vol. 3A, the MP start-up sequence sec. 9.4.4.1.
 *
 * xAPIC: the registers are 4 KiB of MMIO at the base in IA32_APIC_BASE
 * (SDM 11.4.1, table 11-1); entry.S maps [3 GiB, 4 GiB) uncached, where
 * the base always is in practice.  x2APIC: the same registers are MSRs
 * 0x800 + offset / 16 (SDM 11.12.1.2, table 11-6).  Under a hypervisor
 * each access is a VM exit unless the CPU virtualizes the APIC, so the
 * driver avoids the ones it can: it never reads the ICR, writes ICR_HI
 * only when the destination changes, and leaves registers alone that
 * already hold what it wants after INIT.
 */
#include <stdint.h>

#include "boot/cmdline.h"
#include "hw/apic.h"
#include "lib/kstring.h"
#include "lapic.h"
#include "lib/printf.h"
#include "pv_ipi.h"
#include "pveoi.h"
#include "timeline.h"
#include "arch/percpu.h"
#include "arch/tl.h"
#include "arch/x86.h"

/* entry.S maps [UC_START, 4 GiB) with PCD = PWT = 1: uncached */
#define UC_START	0xc0000000ull
#define UC_END		0x100000000ull

#define SPURIOUS_VECTOR	APIC_SVR_VECTOR		/* 0xff */
#define TDCR_DIVIDE_BY_1	0xb		/* SDM figure 11-10: 1011b */

#define PIC1_DATA	0x21	/* 8259 master: OCW1, the IRQ mask */
#define PIC2_DATA	0xa1	/* 8259 slave */

static enum lapic_mode mode;
static int initialised;		/* lapic_init() ran */
static int icr_hi_always;	/* icr_hi=always: as Linux, every send */
static uint64_t base;
static volatile uint32_t *mmio;

static uint32_t rd(unsigned off)
{
	if (mode == LAPIC_X2APIC)
		return (uint32_t)rdmsr(X2APIC_MSR(off));
	return mmio[off / 4];
}

static void wr(unsigned off, uint32_t v)
{
	if (mode == LAPIC_X2APIC)
		wrmsr(X2APIC_MSR(off), v);
	else
		mmio[off / 4] = v;
}

uint32_t lapic_read(unsigned off)
{
	return rd(off);
}

void lapic_write(unsigned off, uint32_t v)
{
	wr(off, v);
}

/*
 * SDM 11.12.3: a WRMSR to an x2APIC register is not serializing, so an
 * IPI may overtake this CPU's earlier stores (another CPU would take the
 * interrupt and not yet see the data it is about).  MFENCE orders the
 * stores, LFENCE keeps the WRMSR from running before the MFENCE ends
 * (what Linux's weak_wrmsr_fence() does).  xAPIC needs nothing: the ICR
 * write is a store, and stores are not reordered with older stores (SDM
 * vol. 3A 9.2.2).
 */
static void x2apic_fence(void)
{
	asm volatile("mfence; lfence" : : : "memory");
}

/*
 * Send an IPI (SDM 11.6.1, figure 11-12; x2APIC mode: 11.12.9).
 *
 * xAPIC: the write to ICR_LO sends, so ICR_HI (the destination) comes
 * first.  A shorthand ignores the destination field: then ICR_HI is not
 * written.  Interrupts are off between the two writes, so a handler on
 * this CPU cannot send in between and leave us its destination.
 *
 * x2APIC: one 64-bit WRMSR to 0x830, destination in bits 63:32.
 *
 * We never read the delivery-status bit (ICR bit 12) before or after.
 * In x2APIC mode it does not exist: "the Delivery Status bit is removed
 * since it is not needed" (SDM 11.12.9).  In xAPIC mode the SDM still
 * defines it (Send Pending until the target accepted the IPI), and Linux
 * waits for it to read idle before each ICR write.  We do not: irqlab-vmm's
 * model and KVM's in-kernel LAPIC deliver during the write, so the bit
 * always reads idle and each poll would only be one more VM exit.  This is
 * a choice for virtual machines, not an SDM guarantee: the SDM does not
 * say what an ICR write does while an older IPI is still pending.
 */
static void icr_write(uint32_t dest, uint32_t lo)
{
	struct cpu *c = this_cpu();
	uint64_t flags;

	if (mode == LAPIC_NONE)
		return;
	tl_stamp(IRQLAB_TL_SEND, lo & 0xff,
		 (lo & APIC_ICR_DEST_MASK) == APIC_ICR_DEST_FIELD ? dest :
		 IRQLAB_TL_DEST_SHORT);
	if (mode == LAPIC_X2APIC) {
		x2apic_fence();
		wrmsr(X2APIC_MSR(APIC_ICR_LO), (uint64_t)dest << 32 | lo);
		return;
	}
	flags = irq_save();
	/* ICR_HI is per CPU; c->icr_hi caches what this CPU wrote last */
	if ((lo & APIC_ICR_DEST_MASK) == APIC_ICR_DEST_FIELD &&
	    (c->icr_hi != dest || icr_hi_always)) {
		mmio[APIC_ICR_HI / 4] = dest << APIC_ICR_XAPIC_DEST_SHIFT;
		c->icr_hi = dest;
	}
	mmio[APIC_ICR_LO / 4] = lo;
	irq_restore(flags);
}

/*
 * IA32_APIC_BASE selects the mode (SDM 11.4.4, 11.12.1, 11.12.5):
 * EN = 0 disabled, EN = 1 xAPIC, EN = EXTD = 1 x2APIC.  xAPIC -> x2APIC
 * sets EXTD; x2APIC -> xAPIC directly is illegal (#GP), it goes through
 * disabled, which resets the APIC.  We write the MSR only to change it:
 * each WRMSR to it is a VM exit.
 */
static void set_mode(void)
{
	uint64_t v = rdmsr(MSR_IA32_APIC_BASE);

	if (mode == LAPIC_XAPIC && (v & APIC_BASE_EXTD)) {
		v &= ~(APIC_BASE_EN | APIC_BASE_EXTD);
		wrmsr(MSR_IA32_APIC_BASE, v);
	}
	if (!(v & APIC_BASE_EN)) {
		v |= APIC_BASE_EN;
		wrmsr(MSR_IA32_APIC_BASE, v);
	}
	if (mode == LAPIC_X2APIC && !(v & APIC_BASE_EXTD)) {
		v |= APIC_BASE_EXTD;
		wrmsr(MSR_IA32_APIC_BASE, v);
	}
}

/*
 * Software-enable the APIC: SVR bit 8, and the vector of spurious
 * interrupts (SDM 11.4.3, 11.9).  TPR 0 accepts every priority class
 * (SDM 11.8.3.1).
 */
static void enable_regs(void)
{
	this_cpu()->icr_hi = ~0u;	/* unknown until we write it */
	wr(APIC_TPR, 0);
	wr(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
}

enum lapic_mode lapic_init(void)
{
	const char *want = cmdline_get("apic"), *hi = cmdline_get("icr_hi");
	uint32_t r[4], lvr;
	int has_x2apic;

	if (initialised)	/* calibration may have enabled it already */
		return mode;
	initialised = 1;
	/* icr_hi=always writes xAPIC ICR_HI before every ICR_LO, as Linux's
	 * __default_send_IPI_dest_field() does: one exit more per IPI */
	icr_hi_always = hi && !strcmp(hi, "always");
	if (hi && strcmp(hi, "always") && strcmp(hi, "changed"))
		kprintf("lapic: warning: unknown icr_hi=%s (changed or "
			"always)\n", hi);
	cpuid(1, 0, r);
	if (!(r[3] & CPUID_1_EDX_APIC)) {
		kprintf("lapic: CPUID.1:EDX[9] is clear: no local APIC\n");
		mode = LAPIC_NONE;
		return mode;
	}
	has_x2apic = !!(r[2] & CPUID_1_ECX_X2APIC);
	mode = has_x2apic ? LAPIC_X2APIC : LAPIC_XAPIC;
	if (want && !strcmp(want, "xapic")) {
		mode = LAPIC_XAPIC;
	} else if (want && !strcmp(want, "x2apic")) {
		if (!has_x2apic)
			kprintf("lapic: warning: apic=x2apic, but "
				"CPUID.1:ECX[21] is clear (no x2APIC): "
				"using xAPIC\n");
	} else if (want) {
		kprintf("lapic: warning: unknown apic=%s (xapic or x2apic), "
			"using %s\n", want, lapic_mode_name());
	}

	base = rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR_MASK;
	if (mode == LAPIC_XAPIC && (base < UC_START || base >= UC_END)) {
		kprintf("lapic: warning: xAPIC base 0x%lx is outside the "
			"uncached map [0x%llx, 0x%llx): not using the APIC\n",
			base, UC_START, UC_END);
		mode = LAPIC_NONE;
		return mode;
	}
	mmio = (volatile uint32_t *)(uintptr_t)base;
	set_mode();
	/*
	 * SDM 11.4.8: an integrated APIC has version 1XH (0XH was the
	 * 82489DX).  CPUID can promise an APIC that nothing implements (a
	 * VMM without an APIC model): its MMIO then reads all ones, or 0.
	 */
	lvr = rd(APIC_LVR);
	if ((lvr & 0xf0) != 0x10) {
		kprintf("lapic: warning: CPUID says there is a local APIC, but "
			"its version register reads 0x%x: not using it\n", lvr);
		mode = LAPIC_NONE;
		return mode;
	}
	enable_regs();
	/*
	 * The firmware wires the 8259 PIC to the BSP's LINT0 as ExtINT
	 * ("virtual wire", SDM 11.5.1), and its PIT ticks on IRQ 0, which
	 * would come in on vector 8 (the BIOS's PIC base), a #DF lookalike,
	 * once we set IF.  Silence the source first: mask every 8259 IRQ
	 * (OCW1, 8259A data sheet), so its INT output drops while LINT0
	 * still listens to it; then mask LINT0.  The other order can leave
	 * an interrupt request latched that no one answers: QEMU 7.2 TCG
	 * then delivers a bogus vector at the next STI (a #GP with error
	 * code 0xfffffff2, seen in testing).  An AP's LVTs are masked after
	 * INIT (SDM 11.4.7.1, 11.4.7.3), so only the BSP does this.  LINT1
	 * (NMI) stays as the firmware set it.
	 */
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	wr(APIC_LVT_LINT0, APIC_LVT_MASKED);
	kprintf("lapic: %s, id %u, version 0x%x, base 0x%lx%s\n",
		lapic_mode_name(), lapic_id(), lvr, base,
		has_x2apic ? ", x2APIC capable" : "");
	pveoi_cpu_init();
	tl_cpu_init();
	return mode;
}

void lapic_init_ap(void)
{
	if (mode != LAPIC_NONE) {
		set_mode();
		enable_regs();
		pveoi_cpu_init();
		tl_cpu_init();
	}
}

enum lapic_mode lapic_mode(void)
{
	return mode;
}

const char *lapic_mode_name(void)
{
	switch (mode) {
	case LAPIC_XAPIC:
		return "xapic";
	case LAPIC_X2APIC:
		return "x2apic";
	default:
		return "none";
	}
}

uint64_t lapic_base(void)
{
	return base;
}

/* SDM 11.4.6: xAPIC ID in bits 31:24; 11.12.5.1: the x2APIC ID is 32 bits */
uint32_t lapic_id(void)
{
	switch (mode) {
	case LAPIC_XAPIC:
		return rd(APIC_ID) >> 24;
	case LAPIC_X2APIC:
		return rd(APIC_ID);
	default:
		return 0;
	}
}

/*
 * SDM 11.8.5: write 0 to EOI (x2APIC: a non-zero value raises #GP).  With
 * PV EOI (pveoi.c) a set flag is the EOI instead: no write, no exit.
 */
void lapic_eoi(void)
{
	struct cpu *c;

	if (mode == LAPIC_NONE)
		return;
	c = this_cpu();
	tl_stamp(IRQLAB_TL_EOI, c->tl_vector, 0);
	if (c->pveoi_on) {
		if (pveoi_take(&c->pveoi)) {
			__atomic_fetch_add(&c->pveoi_taken, 1, __ATOMIC_RELAXED);
			return;
		}
		__atomic_fetch_add(&c->pveoi_written, 1, __ATOMIC_RELAXED);
	}
	wr(APIC_EOI, 0);
}

/* Fixed delivery, edge, level = assert: SDM 11.6.1 wants the level bit
 * set for every delivery mode but INIT de-assert. */
#define ICR_FIXED(v)	(APIC_ICR_DM_FIXED | APIC_ICR_ASSERT | ((v) & 0xff))

void lapic_send_ipi(uint32_t apic_id, unsigned vector)
{
	icr_write(apic_id, APIC_ICR_DEST_FIELD | ICR_FIXED(vector));
}

void lapic_send_self(unsigned vector)
{
	/* SDM 11.12.11: the x2APIC SELF IPI register takes just the vector */
	if (mode == LAPIC_X2APIC) {
		tl_stamp(IRQLAB_TL_SEND, vector, IRQLAB_TL_DEST_SHORT);
		x2apic_fence();
		wrmsr(X2APIC_MSR(APIC_SELF_IPI), vector & 0xff);
		return;
	}
	icr_write(0, APIC_ICR_DEST_SELF | ICR_FIXED(vector));
}

void lapic_send_others(unsigned vector)
{
	icr_write(0, APIC_ICR_DEST_OTHERS | ICR_FIXED(vector));
}

void lapic_send_all(unsigned vector)
{
	icr_write(0, APIC_ICR_DEST_ALL | ICR_FIXED(vector));
}

/*
 * A destination set: one paravirtual send when the hypervisor offers it
 * (pv_ipi.h) and the set has more than one CPU, else an ICR write each.
 */
void lapic_send_mask(const uint64_t *mask, unsigned vector)
{
	unsigned i, n = 0;

	for (i = 0; i < NR_CPUS; i++)
		n += (mask[i / 64] >> (i % 64)) & 1;
	if (n > 1 && !pv_ipi_send(mask, vector))
		return;
	for (i = 0; i < NR_CPUS; i++)
		if ((mask[i / 64] >> (i % 64)) & 1)
			lapic_send_ipi(cpus[i].apic_id, vector);
}

/*
 * SDM 9.4.4.1 sends INIT as 000C4500H and STARTUP as 000C46XXH (there
 * to all excluding self; here to one APIC ID): edge, assert.  No INIT
 * de-assert follows: Pentium 4 and later ignore it, and x2APIC mode does
 * not support it (SDM 11.12.9).
 */
void lapic_send_init(uint32_t apic_id)
{
	icr_write(apic_id, APIC_ICR_DEST_FIELD | APIC_ICR_DM_INIT |
		  APIC_ICR_ASSERT);
}

void lapic_send_sipi(uint32_t apic_id, unsigned page)
{
	icr_write(apic_id, APIC_ICR_DEST_FIELD | APIC_ICR_DM_STARTUP |
		  APIC_ICR_ASSERT | (page & 0xff));
}

/*
 * The APIC timer for calibration (SDM 11.5.4): divide by 1 (TDCR 1011b,
 * figure 11-10), one-shot, masked, so it counts at the timer's input
 * clock and never interrupts.  Writing the initial count starts it; 0
 * stops it (and is then the only write).
 */
void lapic_timer_oneshot_masked(uint32_t count)
{
	if (mode == LAPIC_NONE)
		return;
	if (count) {
		wr(APIC_TDCR, TDCR_DIVIDE_BY_1);
		wr(APIC_LVT_TIMER, APIC_LVT_MASKED | APIC_TIMER_ONESHOT |
		   SPURIOUS_VECTOR);
	}
	wr(APIC_TMICT, count);
}

uint32_t lapic_timer_current(void)
{
	return mode == LAPIC_NONE ? 0 : rd(APIC_TMCCT);
}
