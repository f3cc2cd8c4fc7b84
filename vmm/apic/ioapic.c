// SPDX-License-Identifier: MIT
/*
 * The I/O APIC: 82093AA datasheet (290566-001) section 3 for the
 * registers and redirection entries, version 0x20's EOI register as in
 * the ICH9 datasheet 13.5.5.  docs/IOAPIC.md describes the model.
 *
 * TMR routes.  A pin whose entry is level-triggered with fixed or
 * lowest-priority delivery sends level messages: the vCPUs it can reach
 * must report the EOI of its vector (their "TMR" set, KVM's EOI-exit
 * bitmap).  The pin's route (vector, vCPU set) is brought up to date only
 * when the pin can deliver: unmasked with remote IRR clear.  While it is
 * masked nothing is delivered, so a stale route is harmless; while remote
 * IRR is set the old destination still owes the EOI, so its bit must stay.
 * The route is re-synced when either condition ends, and before every
 * level message, which asks ops->dest_mask again: so a LAPIC whose ID,
 * LDR or DFR changed needs no notice.  A vCPU's set is the union of the
 * routes that name it, and only vCPUs whose set really changed get
 * ops->tmr_update.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/apic.h"
#include "hw/ioapic.h"
#include "ioapic.h"

/* datasheet 3.2.4: the writable bits of each dword */
#define RTE_LO_WRITABLE	(IOAPIC_RTE_VECTOR | IOAPIC_RTE_DM_MASK | \
			 IOAPIC_RTE_LOGICAL | IOAPIC_RTE_ACTIVE_LOW | \
			 IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED)
#define RTE_HI_WRITABLE	(0xffu << IOAPIC_RTE_DEST_SHIFT)
#define RTE_RO		(IOAPIC_RTE_DELIVS | IOAPIC_RTE_REMOTE_IRR)

#define LAST_INDEX	(IOAPIC_REG_REDTBL + 2 * IOAPIC_NR_PINS - 1)

static void trace(struct ioapic *io, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void trace(struct ioapic *io, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!io->ops->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	io->ops->trace(io->ctx, line);
}

static uint32_t lo(uint64_t rte)
{
	return (uint32_t)rte;
}

static uint32_t rte_dest(uint64_t rte)
{
	return (uint32_t)(rte >> 32) >> IOAPIC_RTE_DEST_SHIFT;
}

/*
 * Datasheet 3.2.4: only fixed and lowest-priority entries are level-
 * triggered in effect; SMI, NMI, INIT and ExtINT are treated as edge.
 */
static bool rte_level(uint64_t rte)
{
	uint32_t dm = lo(rte) & IOAPIC_RTE_DM_MASK;

	return (lo(rte) & IOAPIC_RTE_LEVEL) &&
	       (dm == IOAPIC_RTE_DM_FIXED || dm == IOAPIC_RTE_DM_LOWEST);
}

static bool rte_masked(uint64_t rte)
{
	return lo(rte) & IOAPIC_RTE_MASKED;
}

int ioapic_init(struct ioapic *io, unsigned ncpus, uint8_t id,
		enum ioapic_policy policy, const struct ioapic_ops *ops,
		void *ctx)
{
	unsigned i;

	if (!ncpus || ncpus > IOAPIC_MAX_CPUS)
		return -1;
	memset(io, 0, sizeof(*io));
	io->ops = ops;
	io->ctx = ctx;
	io->ncpus = ncpus;
	io->policy = policy;
	io->id = (uint32_t)(id & 0xf) << IOAPIC_ID_SHIFT;
	/* datasheet 3.2.4: the mask bit is set at reset */
	for (i = 0; i < IOAPIC_NR_PINS; i++)
		io->pin[i].rte = IOAPIC_RTE_MASKED;
	return 0;
}

/* ---- TMR sets ---- */

static uint64_t all_cpus(const struct ioapic *io)
{
	return io->ncpus == 64 ? ~0ull : (1ull << io->ncpus) - 1;
}

static uint64_t pin_cpus(struct ioapic *io, uint64_t rte)
{
	uint64_t m = io->ops->dest_mask(io->ctx, rte_dest(rte),
					lo(rte) & IOAPIC_RTE_LOGICAL);

	return m & all_cpus(io);
}

/* @cpu's new set, for a write by vCPU @src (-1: none) */
static void tmr_send(struct ioapic *io, int src, unsigned cpu,
		     const uint32_t *tmr)
{
	memcpy(io->tmr[cpu], tmr, sizeof(io->tmr[cpu]));
	io->stats.tmr_updates++;
	if ((int)cpu != src)
		io->stats.remote_tmr_updates++;
	if (io->ops->tmr_update)
		io->ops->tmr_update(io->ctx, cpu, tmr);
}

/* LAB ioapic: begin
 * pin_sync(): keep the vCPUs' TMR sets (which vectors a LAPIC accepts
 * as level-triggered, SDM 11.8.4) true to @pin's entry, without stopping
 * every vCPU for each write, as bhyve's vioapic_write() does (the naive
 * policy below).  Only an unmasked level entry with remote IRR clear can
 * deliver, so only such an entry counts (see the top of the file); keep
 * what counted last in p->tmr_valid, p->tmr_vector, p->tmr_cpus, and
 * when it changes, send a new set (tmr_send()) only to the vCPUs whose
 * set changed: pin_cpus() says whom an entry's destination names.  An
 * edge entry's destination rewrite must cost no TMR update at all.
 * Graded by the ioapic Criterion tests, check=ioapic and
 * bench=ioapic_rotate (tmr_updates=0 for edge rotations).
 * stub: static void pin_sync(struct ioapic *io, int src, unsigned pin)
 * stub: {
 * stub: 	(void)io;
 * stub: 	(void)src;
 * stub: 	(void)pin;
 * stub: }
 */
static void cpu_tmr(const struct ioapic *io, unsigned cpu, uint32_t *tmr)
{
	const struct ioapic_pin *p;
	unsigned i;

	memset(tmr, 0, 8 * sizeof(*tmr));
	for (i = 0; i < IOAPIC_NR_PINS; i++) {
		p = &io->pin[i];
		if (p->tmr_valid && (p->tmr_cpus & (1ull << cpu)))
			tmr[p->tmr_vector / 32] |= 1u << (p->tmr_vector % 32);
	}
}

/* Recompute the sets of the vCPUs in @cpus; update those that changed. */
static void tmr_refresh(struct ioapic *io, int src, uint64_t cpus)
{
	uint32_t tmr[8];
	unsigned c;

	for (c = 0; c < io->ncpus; c++) {
		if (!(cpus & (1ull << c)))
			continue;
		cpu_tmr(io, c, tmr);
		if (!memcmp(tmr, io->tmr[c], sizeof(tmr)))
			continue;
		tmr_send(io, src, c, tmr);
	}
}

/* The route of @pin now, if it can deliver (see the top of the file). */
static void pin_sync(struct ioapic *io, int src, unsigned pin)
{
	struct ioapic_pin *p = &io->pin[pin];
	uint64_t rte = p->rte, cpus = 0, changed;
	bool valid = rte_level(rte);
	uint8_t vec = lo(rte) & IOAPIC_RTE_VECTOR;

	if (io->policy != IOAPIC_OPTIMIZED || rte_masked(rte) ||
	    (rte & IOAPIC_RTE_REMOTE_IRR))
		return;
	if (valid)
		cpus = pin_cpus(io, rte);
	if (valid == p->tmr_valid &&
	    (!valid || (vec == p->tmr_vector && cpus == p->tmr_cpus)))
		return;
	/* a vector change touches both sets; a move only the difference */
	if (valid && p->tmr_valid && vec == p->tmr_vector)
		changed = cpus ^ p->tmr_cpus;
	else
		changed = (p->tmr_valid ? p->tmr_cpus : 0) | cpus;
	trace(io, "ioapic: pin %u TMR route %s vector 0x%x cpus 0x%llx", pin,
	      valid ? "level" : "none", vec, (unsigned long long)cpus);
	p->tmr_valid = valid;
	p->tmr_vector = valid ? vec : 0;
	p->tmr_cpus = cpus;
	tmr_refresh(io, src, changed);
}
/* LAB ioapic: end */

/*
 * IOAPIC_NAIVE, after any change: stop every vCPU and rebuild every TMR
 * from the whole table, mask or not (bhyve's vioapic_update_tmr()).
 */
static void naive_rebuild(struct ioapic *io, int src)
{
	uint32_t tmr[IOAPIC_MAX_CPUS][8];
	uint64_t rte, cpus;
	unsigned i, c, v;

	io->stats.rendezvous++;
	if (io->ops->rendezvous)
		io->ops->rendezvous(io->ctx, src);
	memset(tmr, 0, sizeof(tmr));
	for (i = 0; i < IOAPIC_NR_PINS; i++) {
		rte = io->pin[i].rte;
		if (!rte_level(rte))
			continue;
		cpus = pin_cpus(io, rte);
		v = lo(rte) & IOAPIC_RTE_VECTOR;
		for (c = 0; c < io->ncpus; c++)
			if (cpus & (1ull << c))
				tmr[c][v / 32] |= 1u << (v % 32);
	}
	for (c = 0; c < io->ncpus; c++)
		tmr_send(io, src, c, tmr[c]);
}

/*
 * IOAPIC_NAIVE, before a level message: the sets were made from the
 * destinations at the last change of the table, and a LAPIC's ID, LDR or
 * DFR may have moved since.  A target whose set lacks the vector would
 * take the message as edge, its EOI would never come back, and remote
 * IRR would stay set for good: rebuild first, as for a change.
 */
static void naive_sync(struct ioapic *io, unsigned pin)
{
	uint64_t rte = io->pin[pin].rte, cpus = pin_cpus(io, rte);
	unsigned c, v = lo(rte) & IOAPIC_RTE_VECTOR;

	for (c = 0; c < io->ncpus; c++) {
		if ((cpus & (1ull << c)) &&
		    !(io->tmr[c][v / 32] & (1u << (v % 32)))) {
			trace(io, "ioapic: pin %u: vCPU %u lacks vector 0x%x: rebuild",
			      pin, c, v);
			naive_rebuild(io, -1);
			return;
		}
	}
}

/* ---- delivery ---- */

/* Datasheet 3.2.4, 2.4: one message for @pin's entry. */
static void pin_deliver(struct ioapic *io, unsigned pin)
{
	struct ioapic_pin *p = &io->pin[pin];
	bool level = rte_level(p->rte);
	struct lapic_ipi msg = {
		.vector = lo(p->rte) & IOAPIC_RTE_VECTOR,
		.delivery = lo(p->rte) & IOAPIC_RTE_DM_MASK,
		.logical = lo(p->rte) & IOAPIC_RTE_LOGICAL,
		.level = level,
		.assert = true,
		.shorthand = APIC_ICR_DEST_FIELD,
		.dest = rte_dest(p->rte),
	};
	int took;

	/* the TMR bits before the message */
	if (level && io->policy == IOAPIC_NAIVE)
		naive_sync(io, pin);
	else if (level)
		pin_sync(io, -1, pin);
	io->stats.deliveries++;
	took = io->ops->deliver(io->ctx, &msg);
	trace(io, "ioapic: pin %u -> vector 0x%x %s dest 0x%x %s: %d took it",
	      pin, msg.vector, level ? "level" : "edge", msg.dest,
	      msg.logical ? "logical" : "physical", took);
	/* datasheet 3.2.4: remote IRR is set when a LAPIC accepts it */
	if (level && took > 0)
		p->rte |= IOAPIC_RTE_REMOTE_IRR;
}

/* A level entry delivers while asserted, unmasked and remote IRR clear. */
static void pin_check_level(struct ioapic *io, unsigned pin)
{
	struct ioapic_pin *p = &io->pin[pin];

	if (p->level && rte_level(p->rte) && !rte_masked(p->rte) &&
	    !(p->rte & IOAPIC_RTE_REMOTE_IRR))
		pin_deliver(io, pin);
}

int ioapic_set_irq(struct ioapic *io, unsigned pin, int level)
{
	struct ioapic_pin *p;
	bool rising;

	if (pin >= IOAPIC_NR_PINS) {
		io->stats.bad_accesses++;
		return -1;
	}
	p = &io->pin[pin];
	rising = level && !p->level;
	p->level = level;
	if (rte_level(p->rte))
		pin_check_level(io, pin);
	else if (rising && !rte_masked(p->rte))
		/* datasheet 3.2.4: a masked edge is lost, not held */
		pin_deliver(io, pin);
	return 0;
}

void ioapic_eoi(struct ioapic *io, uint8_t vector)
{
	/* LAB ioapic: begin
	 * An EOI for @vector came back from a LAPIC (its TMR bit was set:
	 * the interrupt was level-triggered).  Datasheet 3.2.4: remote IRR
	 * of each level entry with that vector clears; the entry may then
	 * route anew (pin_sync()) and, if its line is still asserted,
	 * deliver again (pin_check_level()).
	 * stub: (void)io;
	 * stub: (void)vector;
	 */
	struct ioapic_pin *p;
	unsigned i;

	io->stats.eois++;
	for (i = 0; i < IOAPIC_NR_PINS; i++) {
		p = &io->pin[i];
		if ((lo(p->rte) & IOAPIC_RTE_VECTOR) != vector ||
		    !(p->rte & IOAPIC_RTE_REMOTE_IRR))
			continue;
		p->rte &= ~(uint64_t)IOAPIC_RTE_REMOTE_IRR;
		trace(io, "ioapic: pin %u EOI vector 0x%x%s", i, vector,
		      p->level ? ", still asserted" : "");
		pin_sync(io, -1, i);
		pin_check_level(io, i);
	}
	/* LAB ioapic: end */
}

/* ---- registers ---- */

static void rte_write(struct ioapic *io, int src, unsigned pin, bool high,
		      uint32_t val)
{
	struct ioapic_pin *p = &io->pin[pin];
	uint64_t old = p->rte, new;

	if (high)
		new = (old & 0xffffffffull) |
		      (uint64_t)(val & RTE_HI_WRITABLE) << 32;
	else
		new = (old & ~0xffffffffull) | (old & RTE_RO) |
		      (val & RTE_LO_WRITABLE);
	/* as KVM and QEMU: an edge entry has no remote IRR */
	if (!(new & IOAPIC_RTE_LEVEL))
		new &= ~(uint64_t)IOAPIC_RTE_REMOTE_IRR;
	io->stats.rte_writes++;
	if (new == old) {
		io->stats.rte_unchanged++;
		return;
	}
	p->rte = new;
	trace(io, "ioapic: pin %u %s <- 0x%08x: entry 0x%016llx", pin,
	      high ? "high" : "low", val, (unsigned long long)new);
	if (io->policy == IOAPIC_NAIVE)
		naive_rebuild(io, src);
	else
		pin_sync(io, src, pin);
	/* unmasked while asserted, or made level while asserted */
	pin_check_level(io, pin);
}

int ioapic_reg_read(struct ioapic *io, uint32_t index, uint32_t *val)
{
	unsigned pin;

	*val = 0;
	switch (index) {
	case IOAPIC_REG_ID:
		*val = io->id;
		return 0;
	case IOAPIC_REG_VER:
		*val = (IOAPIC_NR_PINS - 1) << IOAPIC_VER_MAXRED_SHIFT |
		       IOAPIC_VERSION;
		return 0;
	case IOAPIC_REG_ARB:
		/* the arbitration ID is loaded from the ID (as KVM) */
		*val = io->id;
		return 0;
	}
	if (index < IOAPIC_REG_REDTBL || index > LAST_INDEX) {
		io->stats.bad_accesses++;
		return -1;
	}
	pin = (index - IOAPIC_REG_REDTBL) / 2;
	if (index & 1)
		*val = (uint32_t)(io->pin[pin].rte >> 32);
	else
		*val = (uint32_t)io->pin[pin].rte;
	return 0;
}

int ioapic_reg_write(struct ioapic *io, int src, uint32_t index, uint32_t val)
{
	switch (index) {
	case IOAPIC_REG_ID:
		io->id = val & IOAPIC_ID_MASK;
		return 0;
	case IOAPIC_REG_VER:
	case IOAPIC_REG_ARB:
		return 0;		/* read-only */
	}
	if (index < IOAPIC_REG_REDTBL || index > LAST_INDEX) {
		io->stats.bad_accesses++;
		return -1;
	}
	rte_write(io, src, (index - IOAPIC_REG_REDTBL) / 2, index & 1, val);
	return 0;
}

int ioapic_mmio_read(struct ioapic *io, uint32_t off, unsigned size,
		     uint32_t *val)
{
	*val = 0;
	if (size != 4) {
		io->stats.bad_accesses++;
		return -1;
	}
	switch (off) {
	case IOAPIC_IOREGSEL:
		*val = io->regsel;
		return 0;
	case IOAPIC_IOWIN:
		return ioapic_reg_read(io, io->regsel, val);
	default:
		/* EOIR is write-only */
		io->stats.bad_accesses++;
		return -1;
	}
}

int ioapic_mmio_write(struct ioapic *io, int src, uint32_t off,
		      unsigned size, uint32_t val)
{
	if (size != 4) {
		io->stats.bad_accesses++;
		return -1;
	}
	switch (off) {
	case IOAPIC_IOREGSEL:
		io->regsel = val & 0xff;
		return 0;
	case IOAPIC_IOWIN:
		return ioapic_reg_write(io, src, io->regsel, val);
	case IOAPIC_EOIR:
		ioapic_eoi(io, val & 0xff);
		return 0;
	default:
		io->stats.bad_accesses++;
		return -1;
	}
}

uint64_t ioapic_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	uint32_t v;

	(void)cpu;
	if (off >= IOAPIC_MMIO_SIZE) {
		((struct ioapic *)opaque)->stats.bad_accesses++;
		return 0;
	}
	ioapic_mmio_read(opaque, (uint32_t)off, size, &v);
	return v;
}

void ioapic_bus_write(void *opaque, uint64_t off, unsigned size,
		      uint64_t val, int cpu)
{
	if (off >= IOAPIC_MMIO_SIZE) {
		((struct ioapic *)opaque)->stats.bad_accesses++;
		return;
	}
	ioapic_mmio_write(opaque, cpu, (uint32_t)off, size, (uint32_t)val);
}

uint64_t ioapic_rte(const struct ioapic *io, unsigned pin)
{
	return pin < IOAPIC_NR_PINS ? io->pin[pin].rte : 0;
}

uint32_t ioapic_tmr_word(const struct ioapic *io, unsigned cpu, unsigned i)
{
	if (cpu >= io->ncpus || i >= 8)
		return 0;
	return io->tmr[cpu][i];
}

const char *ioapic_policy_name(enum ioapic_policy p)
{
	return p == IOAPIC_NAIVE ? "naive" : "optimized";
}

int ioapic_policy_parse(const char *s, enum ioapic_policy *p)
{
	if (!strcmp(s, "naive"))
		*p = IOAPIC_NAIVE;
	else if (!strcmp(s, "optimized") || !strcmp(s, "opt"))
		*p = IOAPIC_OPTIMIZED;
	else
		return -1;
	return 0;
}
