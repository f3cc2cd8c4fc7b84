// SPDX-License-Identifier: MIT
/*
 * The timeline's rings (docs/ANATOMY.md; the stamps: arch/tl.h).  Each
 * CPU stamps into its own ring, the first TL_CPUS CPUs only.
 *
 *   irqlab-vmm --timeline  CPUID 0x40000001 EAX bit 2: each CPU writes
 *                          its ring's address to IRQLAB_PORT_TIMELINE,
 *                          and the VMM reads the rings when the run ends
 *   timeline=on            any other hypervisor, or bare metal: the rings
 *                          are printed as @tl records before @ready
 *
 * timeline=off keeps the stamps off where irqlab-vmm offers them.
 */
#include <stdint.h>

#include "arch/cpu.h"
#include "arch/percpu.h"
#include "arch/tl.h"
#include "arch/x86.h"
#include "boot/cmdline.h"
#include "hw/irqlab.h"
#include "lib/kstring.h"
#include "lib/printf.h"
#include "pv.h"
#include "timeline.h"

#define TL_CPUS		16
#define TL_STAMPS	8192	/* 128 KiB a CPU */

static struct tl_pool {
	struct irqlab_tl_ring hdr;
	struct irqlab_tl_stamp stamp[TL_STAMPS];
} pool[TL_CPUS] __attribute__((aligned(64)));

static enum { TL_OFF, TL_VMM, TL_PRINT } how;
static int decided;

static int vmm_offers(void)
{
	uint32_t r[4], base;

	if (!pv_present() || !(base = cpu_hv_base("irqlabirqlab")))
		return 0;
	cpuid(base + 1, 0, r);
	return !!(r[0] & IRQLAB_FEATURE_TIMELINE);
}

static void tl_decide(void)
{
	const char *want = cmdline_get("timeline");

	if (want && strcmp(want, "on") && strcmp(want, "off"))
		kprintf("timeline: warning: unknown timeline=%s (on or off)\n",
			want);
	if (want && !strcmp(want, "off"))
		how = TL_OFF;
	else if (vmm_offers())
		how = TL_VMM;
	else if (want && !strcmp(want, "on"))
		how = TL_PRINT;
	if (how != TL_OFF)
		kprintf("timeline: stamps on, %s\n", how == TL_VMM ?
			"read by irqlab-vmm" : "printed as @tl records");
	decided = 1;
}

/*
 * What one stamp costs this CPU: 64 of them into a scratch ring, timed by
 * the TSC (the stamps' own RDTSC included), before the real ring is on.
 * The @timeline record says it (docs/RECORDS.md).
 */
#define TL_PROBE	64

static uint64_t stamp_cost(void)
{
	static struct {
		struct irqlab_tl_ring hdr;
		struct irqlab_tl_stamp stamp[TL_PROBE];
	} scratch;
	struct cpu *c = this_cpu();
	uint64_t t0, t1;
	unsigned i;

	scratch.hdr.size = TL_PROBE;
	scratch.hdr.count = 0;
	c->tl = &scratch.hdr;
	t0 = rdtsc();
	for (i = 0; i < TL_PROBE; i++)
		tl_stamp(IRQLAB_TL_EOI, 0, 0);
	t1 = rdtsc();
	c->tl = NULL;
	return (t1 - t0) / TL_PROBE;
}

void tl_cpu_init(void)
{
	struct cpu *c = this_cpu();
	struct irqlab_tl_ring *r;

	if (!decided) {
		tl_decide();
		if (how != TL_OFF)
			kprintf("@timeline stamps=%s cpus=%u ring=%u "
				"stamp_cyc=%lu\n", how == TL_VMM ? "vmm" :
				"print", TL_CPUS, TL_STAMPS, stamp_cost());
	}
	if (how == TL_OFF || c->index >= TL_CPUS)
		return;
	r = &pool[c->index].hdr;
	r->size = TL_STAMPS;
	r->count = 0;
	r->sends = 0;
	if (how == TL_VMM)
		outl(IRQLAB_PORT_TIMELINE, (uint32_t)(uintptr_t)r);
	c->tl = r;
}

static const char *const kinds[] = {
	[IRQLAB_TL_SEND] = "send", [IRQLAB_TL_HANDLER] = "handler",
	[IRQLAB_TL_EOI] = "eoi",
};

/* timeline=on off irqlab-vmm: every CPU's stamps, then a count */
void tl_print(void)
{
	unsigned i, k;

	if (how != TL_PRINT)
		return;
	for (i = 0; i < TL_CPUS && i < NR_CPUS; i++) {
		struct irqlab_tl_ring *r = cpus[i].tl;
		uint32_t n;

		if (!r)
			continue;
		cpus[i].tl = NULL;	/* stop: what follows is not counted */
		n = r->count < r->size ? r->count : r->size;
		for (k = 0; k < n; k++) {
			const struct irqlab_tl_stamp *s = &r->stamp[k];

			kprintf("@tl cpu=%u kind=%s vector=0x%x seq=%u dest=%u "
				"tsc=%lu\n", i, s->kind < 4 && kinds[s->kind] ?
				kinds[s->kind] : "?", s->vector, s->seq,
				s->dest, s->tsc);
		}
		kprintf("@tl_end cpu=%u stamps=%u dropped=%u sends=%u\n", i, n,
			r->count - n, r->sends);
	}
}
