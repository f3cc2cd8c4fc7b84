// SPDX-License-Identifier: MIT
/*
 * --trace=ioapic,pit,pic: one decoded line per register access of the
 * IOAPIC, the 8254 (with port 0x61) and the 8259A pair on stderr, in the
 * format of
 * --trace=lapic: "t=SECONDS vcpu=N what".  A line raised by no vCPU (the
 * PIT's host timer) prints vcpu=-.  The models' own trace lines (an
 * IOAPIC delivery, EOI or TMR route; a PIT count load or control word)
 * come through the same printer.
 *
 * An IOAPIC write is traced with the counters of the model before and
 * after it, so the line says what the write classification decided: no
 * cross-vCPU work, a TMR update of some vCPUs (82093AA 3.2.4: the trigger,
 * vector, destination or delivery mode of a level entry moved), or, with
 * --ioapic=naive, a rendezvous of every vCPU.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hw/ioapic.h"
#include "hw/pit.h"
#include "isa.h"
#include "trace.h"
#include "util.h"
#include "vm.h"

static __thread int trace_cpu = -1;

void isa_trace_line(struct vm *vm, const char *line)
{
	uint64_t t = now_ns() - vm->start_ns;
	char who[16];

	if (trace_cpu < 0)
		snprintf(who, sizeof(who), "-");
	else
		snprintf(who, sizeof(who), "%d", trace_cpu);
	fprintf(stderr, "t=%" PRIu64 ".%06" PRIu64 " vcpu=%s %s\n",
		t / 1000000000, t / 1000 % 1000000, who, line);
}

static const char *const dm_name[8] = {
	"fixed", "lowest", "smi", "reserved3", "nmi", "init", "reserved6",
	"extint",
};

/* 82093AA 3.2.4: every field of a redirection entry */
static void rte_decode(char *buf, size_t len, uint64_t rte)
{
	uint32_t lo = (uint32_t)rte;

	snprintf(buf, len, "vector 0x%02x %s %s %s%s%s %s dest 0x%02x",
		 lo & IOAPIC_RTE_VECTOR, dm_name[(lo >> 8) & 7],
		 lo & IOAPIC_RTE_LOGICAL ? "logical" : "physical",
		 lo & IOAPIC_RTE_LEVEL ? "level" : "edge",
		 lo & IOAPIC_RTE_ACTIVE_LOW ? " active-low" : "",
		 lo & IOAPIC_RTE_REMOTE_IRR ? " remote-irr" : "",
		 lo & IOAPIC_RTE_MASKED ? "masked" : "unmasked",
		 (uint32_t)(rte >> 32) >> IOAPIC_RTE_DEST_SHIFT);
}

/* the indirect register IOREGSEL names */
static void reg_name(char *buf, size_t len, uint32_t index)
{
	if (index == IOAPIC_REG_ID)
		snprintf(buf, len, "ID");
	else if (index == IOAPIC_REG_VER)
		snprintf(buf, len, "VER");
	else if (index == IOAPIC_REG_ARB)
		snprintf(buf, len, "ARB");
	else if (index >= IOAPIC_REG_REDTBL &&
		 index < IOAPIC_REG_REDTBL + 2 * IOAPIC_NR_PINS)
		snprintf(buf, len, "pin %u %s", (index - IOAPIC_REG_REDTBL) / 2,
			 index & 1 ? "high" : "low");
	else
		snprintf(buf, len, "bad index 0x%02x", index);
}

/* ---- before / after one access ---- */

void isa_trace_begin(struct vm *vm, const struct isa_dev *d, int cpu,
		     struct isa_trace_snap *s)
{
	unsigned c, i;

	trace_cpu = cpu;
	if (d->dev != &vm->ioapic)
		return;
	s->regsel = vm->ioapic.regsel;
	s->stats = vm->ioapic.stats;
	s->commits = vm->split.route_commits;
	for (c = 0; c < vm->nr_vcpus && c < IOAPIC_MAX_CPUS; c++)
		for (i = 0; i < 8; i++)
			s->tmr[c][i] = ioapic_tmr_word(&vm->ioapic, c, i);
}

/* Which vCPUs' level-vector sets the write changed, as a mask. */
static uint64_t tmr_moved(struct vm *vm, const struct isa_trace_snap *s)
{
	uint64_t m = 0;
	unsigned c, i;

	for (c = 0; c < vm->nr_vcpus && c < IOAPIC_MAX_CPUS; c++)
		for (i = 0; i < 8; i++)
			if (s->tmr[c][i] != ioapic_tmr_word(&vm->ioapic, c, i))
				m |= 1ull << c;
	return m;
}

static void ioapic_outcome(struct vm *vm, const struct isa_trace_snap *s,
			   char *buf, size_t len)
{
	const struct ioapic_stats *a = &s->stats, *b = &vm->ioapic.stats;
	int n;

	if (b->rendezvous != a->rendezvous)
		n = snprintf(buf, len, "rendezvous of all %u vCPUs, %" PRIu64
			     " TMR updates", vm->nr_vcpus,
			     b->tmr_updates - a->tmr_updates);
	else if (b->tmr_updates != a->tmr_updates)
		n = snprintf(buf, len, "TMR update of cpus 0x%" PRIx64
			     ", %" PRIu64 " of another vCPU", tmr_moved(vm, s),
			     b->remote_tmr_updates - a->remote_tmr_updates);
	else if (b->rte_unchanged != a->rte_unchanged)
		n = snprintf(buf, len, "unchanged, no cross-vCPU work");
	else
		n = snprintf(buf, len, "no cross-vCPU work");
	if (vm->cfg->irqchip == IRQCHIP_SPLIT && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; %s",
			 vm->split.route_commits != s->commits ?
			 "GSI routes committed" : "routes kept");
}

static void trace_ioapic(struct vm *vm, const struct isa_trace_snap *s,
			 uint64_t off, unsigned size, uint64_t val, bool write)
{
	char line[256], reg[32], rte[128], out[96];
	uint32_t idx = s->regsel;
	bool is_rte = idx >= IOAPIC_REG_REDTBL &&
		      idx < IOAPIC_REG_REDTBL + 2 * IOAPIC_NR_PINS;

	if (size != 4 || (off != IOAPIC_IOREGSEL && off != IOAPIC_IOWIN &&
			  !(write && off == IOAPIC_EOIR))) {
		snprintf(line, sizeof(line), "ioapic: bad %s of %u bytes at "
			 "+0x%" PRIx64 ", ignored", write ? "write" : "read",
			 size, off);
	} else if (off == IOAPIC_IOREGSEL) {
		reg_name(reg, sizeof(reg), (uint32_t)val & 0xff);
		snprintf(line, sizeof(line), "ioapic: %s IOREGSEL 0x%02x (%s)",
			 write ? "write" : "read", (uint32_t)val & 0xff, reg);
	} else if (off == IOAPIC_EOIR) {
		snprintf(line, sizeof(line), "ioapic: write EOIR vector 0x%02x",
			 (uint32_t)val & 0xff);
	} else {
		reg_name(reg, sizeof(reg), idx);
		rte[0] = out[0] = '\0';
		if (is_rte)
			rte_decode(rte, sizeof(rte), ioapic_rte(&vm->ioapic,
				   (idx - IOAPIC_REG_REDTBL) / 2));
		if (write)
			ioapic_outcome(vm, s, out, sizeof(out));
		snprintf(line, sizeof(line), "ioapic: %s %s = 0x%08x%s%s%s%s",
			 write ? "write" : "read", reg, (uint32_t)val,
			 is_rte ? ": " : "", rte, write ? ": " : "", out);
	}
	isa_trace_line(vm, line);
}

/* 8254 "Control Word Format", "Counter Latch Command", "Read-Back" */
static void trace_pit(struct vm *vm, const struct isa_dev *d, uint64_t off,
		      unsigned size, uint64_t val, bool write)
{
	char line[160];
	uint8_t v = val;

	if (size != 1) {
		snprintf(line, sizeof(line), "pit: bad %u-byte %s, ignored",
			 size, write ? "write" : "read");
	} else if (d->read == port61_bus_read) {
		snprintf(line, sizeof(line), "pit: %s port 0x61 = 0x%02x: gate2 "
			 "%u speaker %u%s%s", write ? "write" : "read", v,
			 v & SYS_B_GATE2 ? 1 : 0, v & SYS_B_SPKR ? 1 : 0,
			 write ? "" : v & SYS_B_OUT2 ? " out2 1" : " out2 0",
			 write ? "" : v & SYS_B_REFRESH ? " refresh 1" :
			 " refresh 0");
	} else if (off == 3 && write && (v >> 6) == 3) {
		snprintf(line, sizeof(line), "pit: read-back 0x%02x:%s%s of%s%s%s",
			 v, v & 0x20 ? "" : " count", v & 0x10 ? "" : " status",
			 v & 2 ? " ch0" : "", v & 4 ? " ch1" : "",
			 v & 8 ? " ch2" : "");
	} else if (off == 3 && write && !(v & 0x30)) {
		snprintf(line, sizeof(line), "pit: ch%u counter latch", v >> 6);
	} else if (off == 3) {
		return;		/* the model traces the control word itself */
	} else {
		snprintf(line, sizeof(line), "pit: %s ch%u = 0x%02x",
			 write ? "write" : "read", (unsigned)off, v);
	}
	isa_trace_line(vm, line);
}

void isa_trace_end(struct vm *vm, const struct isa_dev *d,
		   const struct isa_trace_snap *s, uint64_t off, unsigned size,
		   uint64_t val, bool write)
{
	unsigned t = vm->cfg->trace;

	if (d->dev == &vm->ioapic && (t & TRACE_IOAPIC))
		trace_ioapic(vm, s, off, size, val, write);
	else if (d->dev == &vm->pit && (t & TRACE_PIT))
		trace_pit(vm, d, off, size, val, write);
	trace_cpu = -1;
}
