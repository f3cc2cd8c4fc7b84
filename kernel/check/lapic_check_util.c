// SPDX-License-Identifier: MIT
/*
 * Helpers of the check=lapic parts (lapic_check_util.h), and the evidence
 * for LC_HOST.  A step may blame the host only for what it has seen:
 * irqlab-vmm's own count of exits (so "no exit came, so the VMM could not
 * act" is a measurement, not a guess), or a LAPIC that no register access
 * of ours ever reached irqlab-vmm for.
 */
#include <stdarg.h>
#include <stdint.h>

#include "sys/calib_hw.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "lib/printf.h"
#include "dev/pv.h"
#include "arch/x86.h"

uint64_t lc_us_to_tsc(uint64_t us)
{
	uint64_t khz = calib_tsc_khz();

	return us * (khz ? khz : 1000000) / 1000;
}

uint64_t lc_tsc_us(uint64_t tsc)
{
	uint64_t khz = calib_tsc_khz();

	return khz ? tsc * 1000 / khz : 0;
}

/*
 * The one wait: until *@v >= @want or @us pass, by the TSC at
 * calibration's rate.  Without a rate, @pauses: 100 PAUSEs a microsecond
 * (the tpr, nmi and window parts' bound), else lc_us_to_tsc()'s 1 GHz
 * (the timer and dest parts', as in their own loops).
 */
static int wait_ge(const volatile uint32_t *v, uint32_t want, uint64_t us,
		   int pauses)
{
	uint64_t t0 = rdtsc(), n = lc_us_to_tsc(us), i;

	if (pauses && !calib_tsc_khz()) {
		for (i = 0; i < 100 * us; i++) {
			if (__atomic_load_n(v, __ATOMIC_ACQUIRE) >= want)
				return 0;
			cpu_relax();
		}
		return __atomic_load_n(v, __ATOMIC_ACQUIRE) >= want ? 0 : -1;
	}
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
		if (rdtsc() - t0 > n)
			return -1;
		cpu_relax();
	}
	return 0;
}

static const volatile uint32_t never;	/* what a delay waits for */

int lc_wait_ge(const volatile uint32_t *v, uint32_t want, uint64_t us)
{
	return wait_ge(v, want, us, 1);
}

void lc_delay_us(uint64_t us)
{
	(void)wait_ge(&never, 1, us, 1);
}

int lc_wait_ge_sti(const volatile uint32_t *v, uint32_t want, uint64_t us)
{
	int r;

	sti();
	r = wait_ge(v, want, us, 0);
	cli();
	/* one that came between the last look and the CLI counts too */
	return r && __atomic_load_n(v, __ATOMIC_ACQUIRE) < want ? -1 : 0;
}

void lc_delay_us_sti(uint64_t us)
{
	sti();
	(void)wait_ge(&never, 1, us, 0);
	cli();
}

/* IRR, ISR: 8 registers of 32 vectors each, 0x10 apart (SDM table 11-1) */
static int vec_bit(unsigned reg, unsigned vec)
{
	return !!(lapic_read(reg + 0x10 * (vec / 32)) & (1u << (vec % 32)));
}

int lc_irr(unsigned vec)
{
	return vec_bit(APIC_IRR, vec);
}

int lc_isr(unsigned vec)
{
	return vec_bit(APIC_ISR, vec);
}

/*
 * On the stack, which is below 4 GiB (the port takes a 32-bit address),
 * so that a handler may take one while the code it interrupted does.
 */
void lc_exits_now(struct lc_exits *e)
{
	struct irqlab_snapshot snap;

	e->valid = !pv_snapshot(&snap) && snap.count > IRQLAB_CNT_APIC;
	e->total = snap.counter[IRQLAB_CNT_TOTAL];
	e->all = e->total + snap.counter[IRQLAB_CNT_PROTOCOL];
	e->irq_window = snap.counter[IRQLAB_CNT_IRQ_WINDOW];
	e->apic = snap.counter[IRQLAB_CNT_APIC];
	if (!e->valid)
		e->all = e->total = e->irq_window = e->apic = 0;
}

/* what two snapshots in a row differ by in ->all (1: each counts) */
static uint64_t snapshot_step;

enum lc_apic_owner lc_apic_owner(void)
{
	static enum lc_apic_owner owner;
	static int known;
	struct lc_exits a, b, c;

	if (known)
		return owner;
	known = 1;
	lc_exits_now(&a);
	lc_exits_now(&b);
	(void)lapic_read(APIC_TPR);
	lc_exits_now(&c);
	snapshot_step = b.all - a.all;
	if (!a.valid || !c.valid || !snapshot_step)
		owner = LC_APIC_UNKNOWN;
	else
		owner = c.apic > b.apic ? LC_APIC_IRQLAB : LC_APIC_HOST;
	return owner;
}

const char *lc_apic_owner_name(void)
{
	switch (lc_apic_owner()) {
	case LC_APIC_IRQLAB:
		return "irqlab-vmm's";
	case LC_APIC_HOST:
		return "KVM's";
	default:
		return "unknown";
	}
}

int lc_first_exit(const struct lc_exits *before, const struct lc_exits *at)
{
	return lc_apic_owner() != LC_APIC_UNKNOWN && before->valid &&
	       at->valid && at->all - before->all == 2 * snapshot_step;
}

const char *lc_exit_kind(const struct lc_exits *before,
			 const struct lc_exits *at)
{
	if (at->irq_window > before->irq_window)
		return "an interrupt-window exit";
	if (at->total == before->total)
		return "a protocol exit";
	return "an exit of another kind";
}

void lc_hit(const struct trap_frame *tf, struct lc_hit *hits, unsigned max,
	    uint32_t *n, int out_too)
{
	uint32_t i = __atomic_load_n(n, __ATOMIC_RELAXED);

	if (i < max) {
		hits[i].vec = tf->vector;
		hits[i].rip = tf->rip;
		hits[i].tsc = rdtsc();
		lc_exits_now(&hits[i].in);
	}
	lapic_eoi();
	if (i < max && out_too)
		lc_exits_now(&hits[i].out);
	__atomic_store_n(n, i + 1, __ATOMIC_RELEASE);
}

int lc_part_start(const char *part)
{
	uint64_t base, want;

	if (lapic_mode() == LAPIC_NONE) {
		lc_step(part, "all", LC_SKIP, "no local APIC");
		return 0;
	}
	/*
	 * A part before (id, base) that could not restore the boot's mode
	 * leaves the APIC off or in the other mode, where every access of
	 * ours would fault (SDM 11.12.5: the x2APIC MSRs #GP unless EN and
	 * EXTD are set): say so rather than die of it (Bochs 2.7, which
	 * does not enable an APIC again once IA32_APIC_BASE[11] is clear).
	 */
	base = rdmsr(MSR_IA32_APIC_BASE);
	want = APIC_BASE_EN | (lapic_mode() == LAPIC_X2APIC ? APIC_BASE_EXTD : 0);
	if ((base & (APIC_BASE_EN | APIC_BASE_EXTD)) != want) {
		lc_step(part, "all", LC_SKIP, "the local APIC is not in the "
			"boot's mode: IA32_APIC_BASE reads 0x%lx (an earlier "
			"part could not restore it)", base);
		return 0;
	}
	(void)lc_apic_owner();
	return 1;
}

void lc_rule(const char *part, const char *step, int good,
	     const char *fmt, ...)
{
	char seen[160];
	va_list ap;

	if (good) {
		lc_step(part, step, LC_OK, " ");
		return;
	}
	va_start(ap, fmt);
	kvsnprintf(seen, sizeof(seen), fmt, ap);
	va_end(ap);
	if (lc_apic_owner() == LC_APIC_HOST)
		lc_step(part, step, LC_HOST, "KVM's LAPIC: %s", seen);
	else
		lc_step(part, step, LC_FAIL, "%s", seen);
}
