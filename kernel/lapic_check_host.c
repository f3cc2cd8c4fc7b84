// SPDX-License-Identifier: MIT
/*
 * Evidence for LC_HOST (lapic_check_host.h).  A step may blame the host
 * only for what it has seen: irqlab-vmm's own count of exits (so "no exit
 * came, so the VMM could not act" is a measurement, not a guess), or a
 * LAPIC that no register access of ours ever reached irqlab-vmm for.
 */
#include <stdint.h>

#include "calib_hw.h"
#include "cmdline.h"
#include "hw/apic.h"
#include "lapic.h"
#include "lapic_check_host.h"
#include "printf.h"
#include "pv.h"
#include "x86.h"

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

uint64_t lc_tsc_us(uint64_t tsc)
{
	uint64_t khz = calib_tsc_khz();

	return khz ? tsc * 1000 / khz : 0;
}

int lc_wait_ge(const volatile uint32_t *v, uint32_t want, unsigned us)
{
	uint64_t khz = calib_tsc_khz(), t0 = rdtsc();
	unsigned long n;

	if (!khz) {
		for (n = 0; n < 100ul * us; n++) {
			if (__atomic_load_n(v, __ATOMIC_ACQUIRE) >= want)
				return 0;
			cpu_relax();
		}
		return __atomic_load_n(v, __ATOMIC_ACQUIRE) >= want ? 0 : -1;
	}
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want) {
		if (rdtsc() - t0 > khz * us / 1000)
			return -1;
		cpu_relax();
	}
	return 0;
}

void lc_delay_us(unsigned us)
{
	static const volatile uint32_t never;

	(void)lc_wait_ge(&never, 1, us);
}

unsigned lc_cmdline_uint(const char *key, unsigned def, unsigned lo,
			 unsigned hi)
{
	const char *s = cmdline_get(key);
	unsigned long v = 0;

	if (!s)
		return def;
	for (; *s >= '0' && *s <= '9' && v <= hi; s++)
		v = v * 10 + (*s - '0');
	if (*s || v < lo || v > hi) {
		kprintf("lapic_check: %s must be %u to %u; using %u\n", key, lo,
			hi, def);
		return def;
	}
	return v;
}

int lc_irr_has(unsigned vec)
{
	return !!(lapic_read(APIC_IRR + 0x10 * (vec / 32)) &
		  (1u << (vec % 32)));
}
