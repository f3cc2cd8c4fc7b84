// SPDX-License-Identifier: MIT
/*
 * The local APIC register file, reached two ways: the xAPIC MMIO page
 * (SDM table 11-1, registers 16 bytes apart) and, in x2APIC mode, MSRs
 * 0x800-0x8ff (SDM table 11-6, MSR = 0x800 + offset / 16).  Both decode
 * to one register offset; reg_access() says what each mode allows.
 */
#include <string.h>

#include "lapic_internal.h"

#define ACC_R	1
#define ACC_W	2

/* Register names, by offset / 16, for --trace=lapic. */
static const char *const reg_names[0x40] = {
	[APIC_ID >> 4] = "ID", [APIC_LVR >> 4] = "LVR", [APIC_TPR >> 4] = "TPR",
	[APIC_APR >> 4] = "APR", [APIC_PPR >> 4] = "PPR", [APIC_EOI >> 4] = "EOI",
	[APIC_RRD >> 4] = "RRD", [APIC_LDR >> 4] = "LDR", [APIC_DFR >> 4] = "DFR",
	[APIC_SVR >> 4] = "SVR", [APIC_ESR >> 4] = "ESR",
	[APIC_LVT_CMCI >> 4] = "LVT_CMCI", [APIC_ICR_LO >> 4] = "ICR_LO",
	[APIC_ICR_HI >> 4] = "ICR_HI", [APIC_LVT_TIMER >> 4] = "LVT_TIMER",
	[APIC_LVT_THERM >> 4] = "LVT_THERM", [APIC_LVT_PERF >> 4] = "LVT_PERF",
	[APIC_LVT_LINT0 >> 4] = "LVT_LINT0", [APIC_LVT_LINT1 >> 4] = "LVT_LINT1",
	[APIC_LVT_ERROR >> 4] = "LVT_ERROR", [APIC_TMICT >> 4] = "TMICT",
	[APIC_TMCCT >> 4] = "TMCCT", [APIC_TDCR >> 4] = "TDCR",
	[APIC_SELF_IPI >> 4] = "SELF_IPI",
};

static const char *reg_name(uint32_t reg)
{
	if (reg >= APIC_ISR && reg < APIC_TMR)
		return "ISR";
	if (reg >= APIC_TMR && reg < APIC_IRR)
		return "TMR";
	if (reg >= APIC_IRR && reg < APIC_IRR + 0x80)
		return "IRR";
	if (reg < 0x400 && reg_names[reg >> 4])
		return reg_names[reg >> 4];
	return "reserved";
}

static bool is_vec_reg(uint32_t reg)		/* ISR, TMR, IRR: 0x100-0x270 */
{
	return reg >= APIC_ISR && reg < APIC_IRR + 0x80;
}

/* the LVT index of @reg, or -1 */
static int lvt_index(uint32_t reg)
{
	if (reg == APIC_LVT_CMCI)
		return LVT_CMCI;
	if (reg >= APIC_LVT_TIMER && reg <= APIC_LVT_ERROR)
		return LVT_TIMER + ((reg - APIC_LVT_TIMER) >> 4);
	return -1;
}

/* SDM figure 11-8: the writable bits of each LVT entry */
static uint32_t lvt_writable(const struct lapic *l, unsigned i)
{
	const uint32_t base = APIC_LVT_VECTOR | APIC_LVT_MASKED;

	switch (i) {
	case LVT_TIMER:
		return lapic_timer_lvt_mask(l);
	case LVT_LINT0:
	case LVT_LINT1:
		return base | APIC_LVT_DM_MASK | APIC_LVT_POLARITY | APIC_LVT_LEVEL;
	case LVT_ERROR:
		return base;
	default:			/* CMCI, thermal, perf */
		return base | APIC_LVT_DM_MASK;
	}
}

/* ... and their read-only status bits, which are not reserved */
static uint32_t lvt_status(unsigned i)
{
	if (i == LVT_LINT0 || i == LVT_LINT1)
		return APIC_LVT_PENDING | APIC_LVT_REMOTE_IRR;
	return APIC_LVT_PENDING;
}

/*
 * What each mode lets software do with a register (SDM tables 11-1 and
 * 11-6).  x2APIC drops APR, RRD, DFR and ICR_HI, makes ID and LDR
 * read-only, EOI write-only, and adds SELF IPI.  0: reserved.
 */
static unsigned reg_access(uint32_t reg, bool x2)
{
	if (is_vec_reg(reg))
		return ACC_R;
	if (lvt_index(reg) >= 0)
		return ACC_R | ACC_W;
	switch (reg) {
	case APIC_ID:
	case APIC_LDR:
		return x2 ? ACC_R : ACC_R | ACC_W;
	case APIC_LVR:
	case APIC_PPR:
	case APIC_TMCCT:
		return ACC_R;
	case APIC_APR:
	case APIC_RRD:
		return x2 ? 0 : ACC_R;
	case APIC_EOI:
		return x2 ? ACC_W : ACC_R | ACC_W;	/* xAPIC: reads 0 */
	case APIC_DFR:
	case APIC_ICR_HI:
		return x2 ? 0 : ACC_R | ACC_W;
	case APIC_SELF_IPI:
		return x2 ? ACC_W : 0;
	case APIC_TPR:
	case APIC_SVR:
	case APIC_ESR:
	case APIC_ICR_LO:
	case APIC_TMICT:
	case APIC_TDCR:
		return ACC_R | ACC_W;
	default:
		return 0;
	}
}

/*
 * SDM 11.12.1.3: in x2APIC mode a write setting a reserved bit #GPs.
 * These are the bits that exist; EOI and ESR take only 0 (table 11-6).
 */
static uint32_t x2apic_defined_bits(const struct lapic *l, uint32_t reg)
{
	int i = lvt_index(reg);

	if (i >= 0)
		return lvt_writable(l, i) | lvt_status(i);
	switch (reg) {
	case APIC_TPR:
	case APIC_SELF_IPI:
		return 0xff;
	case APIC_SVR:
		return APIC_SVR_VECTOR | APIC_SVR_ENABLE | APIC_SVR_FOCUS_DISABLE;
	case APIC_TMICT:
		return 0xffffffffu;
	case APIC_TDCR:
		return APIC_TDCR_MASK;
	default:			/* EOI, ESR */
		return 0;
	}
}

static uint32_t reg_read(const struct lapic *l, uint32_t reg)
{
	int i = lvt_index(reg);

	if (i >= 0)
		return l->lvt[i];
	if (reg >= APIC_ISR && reg < APIC_TMR)
		return l->isr[(reg - APIC_ISR) >> 4];
	if (reg >= APIC_TMR && reg < APIC_IRR)
		return l->tmr[(reg - APIC_TMR) >> 4];
	if (reg >= APIC_IRR && reg < APIC_IRR + 0x80)
		return l->irr[(reg - APIC_IRR) >> 4];
	switch (reg) {
	case APIC_ID:
		return lapic_x2apic(l) ? l->apic_id : l->id;
	case APIC_LVR:
		return APIC_LVR_VALUE;
	case APIC_TPR:
		return l->tpr;
	case APIC_APR:
		return lapic_apr(l);
	case APIC_PPR:
		return lapic_ppr(l);
	case APIC_LDR:
		return lapic_ldr(l);
	case APIC_DFR:
		return l->dfr;
	case APIC_SVR:
		return l->svr;
	case APIC_ESR:
		return l->esr;
	case APIC_ICR_LO:
		return l->icr_lo;	/* delivery status: always idle */
	case APIC_ICR_HI:
		return l->icr_hi;
	case APIC_TMICT:
		return l->tmict;
	case APIC_TMCCT:
		return lapic_timer_tmcct(l);
	case APIC_TDCR:
		return l->tdcr;
	default:			/* EOI, RRD (no remote read) */
		return 0;
	}
}

/*
 * The register file as KVM_GET_LAPIC gives it (struct kvm_lapic_state):
 * each register's 32 bits at its xAPIC offset in a 1 KiB page, whatever
 * the mode, so one printer serves both (lapic_print_page()).
 */
void lapic_regs_page(const struct lapic *l, uint8_t page[LAPIC_PAGE_SIZE])
{
	uint32_t reg, v;

	for (reg = 0; reg < LAPIC_PAGE_SIZE; reg += 0x10) {
		v = reg_read(l, reg);
		memcpy(page + reg, &v, 4);
		memset(page + reg + 4, 0, 12);
	}
}

static const char *const dm_names[8] = {
	"fixed", "lowest", "SMI", "dm3", "NMI", "INIT", "start-up", "dm7",
};
static const char *const sh_names[4] = { "", " self", " all", " others" };

static void lapic_send(struct lapic *l, const struct lapic_ipi *ipi)
{
	lapic_trace(l, "IPI %s vector %#x %s dest %#x%s", dm_names[ipi->delivery >> 8],
		    ipi->vector, ipi->logical ? "logical" : "physical", ipi->dest,
		    sh_names[ipi->shorthand >> 18]);
	if (l->ops->send_ipi)
		l->ops->send_ipi(l->ctx, l->cpu, ipi);
}

/*
 * SDM 11.6.1: an ICR_LO write (xAPIC) or ICR write (x2APIC) sends.  As on
 * the Pentium 4 and later (SDM 11.6.1, valid ICR combinations), an IPI
 * with level trigger and level 0, INIT level de-assert among them, does
 * nothing, and one with level 1 goes as edge-triggered.  Fixed and
 * lowest-priority IPIs with a vector below 16 set ESR bit 5 and are not
 * sent (SDM 11.5.3).  Reserved delivery modes 3 and 7 send nothing.
 */
static void lapic_send_icr(struct lapic *l)
{
	uint32_t lo = l->icr_lo;
	struct lapic_ipi ipi = {
		.vector = lo & APIC_ICR_VECTOR,
		.delivery = lo & APIC_ICR_DM_MASK,
		.logical = lo & APIC_ICR_LOGICAL,
		.level = false,
		.assert = true,
		.shorthand = lo & APIC_ICR_DEST_MASK,
		.dest = lapic_x2apic(l) ? l->icr_hi :
					  l->icr_hi >> APIC_ICR_XAPIC_DEST_SHIFT,
	};

	if ((lo & APIC_ICR_LEVEL) && !(lo & APIC_ICR_ASSERT)) {
		lapic_trace(l, "IPI %s level de-assert: no-op",
			    dm_names[ipi.delivery >> 8]);
		return;
	}
	switch (ipi.delivery) {
	case APIC_ICR_DM_FIXED:
	case APIC_ICR_DM_LOWEST:
		if (ipi.vector < 16) {
			lapic_error(l, APIC_ESR_SEND_ILLEGAL);
			return;
		}
		break;
	case APIC_ICR_DM_SMI:
	case APIC_ICR_DM_NMI:
	case APIC_ICR_DM_INIT:
	case APIC_ICR_DM_STARTUP:
		break;
	default:
		lapic_trace(l, "IPI with reserved delivery mode %u: not sent",
			    ipi.delivery >> 8);
		return;
	}
	lapic_send(l, &ipi);
}

/* SDM 11.12.11: SELF IPI is a fixed, edge, self-shorthand ICR write */
static void lapic_self_ipi(struct lapic *l, uint8_t vector)
{
	struct lapic_ipi ipi = {
		.vector = vector,
		.delivery = APIC_ICR_DM_FIXED,
		.assert = true,
		.shorthand = APIC_ICR_DEST_SELF,
	};

	if (vector < 16) {
		lapic_error(l, APIC_ESR_SEND_ILLEGAL);
		return;
	}
	lapic_send(l, &ipi);
}

/* One register write; reserved bits were checked (x2APIC) or are dropped here. */
static void reg_write(struct lapic *l, uint32_t reg, uint32_t val)
{
	int i = lvt_index(reg);

	if (i >= 0) {
		val &= lvt_writable(l, i);
		if (!lapic_sw_enabled(l))	/* SDM 11.4.7.2: masks stay set */
			val |= APIC_LVT_MASKED;
		if (i == LVT_TIMER)
			lapic_timer_set_lvt(l, val);
		else
			l->lvt[i] = val;
		return;
	}
	switch (reg) {
	case APIC_ID:
		l->id = val & 0xff000000u;
		break;
	case APIC_TPR:
		lapic_set_tpr(l, val);
		break;
	case APIC_EOI:
		lapic_eoi(l);
		break;
	case APIC_LDR:
		l->ldr = val & 0xff000000u;
		break;
	case APIC_DFR:		/* SDM 11.6.2.2: bits 27:0 read as 1 */
		l->dfr = (val & 0xf0000000u) | 0x0fffffffu;
		break;
	case APIC_SVR:
		lapic_set_svr(l, val);
		break;
	case APIC_ESR:		/* SDM 11.5.3: a write latches and clears */
		l->esr = l->esr_pending;
		l->esr_pending = 0;
		break;
	case APIC_ICR_LO:
		l->icr_lo = val & APIC_ICR_LO_MASK;
		lapic_send_icr(l);
		break;
	case APIC_ICR_HI:
		l->icr_hi = val & 0xff000000u;
		break;
	case APIC_TMICT:
		lapic_timer_set_tmict(l, val);
		break;
	case APIC_TDCR:
		lapic_timer_set_tdcr(l, val & APIC_TDCR_MASK);
		break;
	case APIC_SELF_IPI:
		lapic_self_ipi(l, val & 0xff);
		break;
	}
}

/*
 * xAPIC MMIO.  Reads of 1, 2 or 4 bytes within a register's first dword
 * work; other widths and bytes 4-15 read 0.  Writes must be 32-bit at the
 * register's offset, else they are ignored.  A reserved offset anywhere
 * in the page reads 0, drops the write and sets ESR bit 7 (SDM 11.5.3).
 * Writes to read-only registers are ignored.
 */
int lapic_mmio_read(struct lapic *l, uint32_t off, unsigned size, uint32_t *val)
{
	uint32_t reg = off & ~0xfu, byte = off & 0xf, v;

	*val = 0;
	if (!lapic_mmio_enabled(l)) {
		*val = 0xffffffffu;	/* not decoded: the bus floats */
		return -1;
	}
	if ((size != 1 && size != 2 && size != 4) || byte + size > 4) {
		lapic_trace(l, "rd %#x/%u: unsupported access, reads 0", off, size);
		return -1;
	}
	if (off >= 0x1000 || !(reg_access(reg, false) & ACC_R)) {
		lapic_trace(l, "rd %#x: reserved register", off);
		lapic_error(l, APIC_ESR_ILLEGAL_REG);
		return -1;
	}
	v = reg_read(l, reg) >> (8 * byte);
	*val = size == 4 ? v : v & ((1u << (8 * size)) - 1);
	lapic_trace(l, "rd %s = %#x", reg_name(reg), *val);
	return 0;
}

int lapic_mmio_write(struct lapic *l, uint32_t off, unsigned size, uint32_t val)
{
	uint32_t reg = off & ~0xfu;
	unsigned acc;

	if (!lapic_mmio_enabled(l))
		return -1;
	if (size != 4 || (off & 0xf)) {
		lapic_trace(l, "wr %#x/%u = %#x: unsupported access, ignored", off,
			    size, val);
		return -1;
	}
	acc = off < 0x1000 ? reg_access(reg, false) : 0;
	if (!acc) {
		lapic_trace(l, "wr %#x = %#x: reserved register", off, val);
		lapic_error(l, APIC_ESR_ILLEGAL_REG);
		return -1;
	}
	if (!(acc & ACC_W)) {
		lapic_trace(l, "wr %s = %#x: read-only, ignored", reg_name(reg), val);
		return -1;
	}
	lapic_trace(l, "wr %s = %#x", reg_name(reg), val);
	reg_write(l, reg, val);
	return 0;
}

static int msr_gp(const struct lapic *l, const char *what, uint32_t msr,
		  uint64_t val)
{
	lapic_trace(l, "#GP: %s %#x = %#llx", what, msr, (unsigned long long)val);
	return -1;
}

/* SDM 11.12.2: x2APIC MSRs #GP unless in x2APIC mode */
static bool x2apic_msr(const struct lapic *l, uint32_t msr)
{
	return msr >= MSR_X2APIC_BASE && msr <= MSR_X2APIC_END && lapic_x2apic(l);
}

int lapic_msr_read(struct lapic *l, uint32_t msr, uint64_t *val)
{
	uint32_t reg = (msr - MSR_X2APIC_BASE) << 4;

	*val = 0;
	if (msr == MSR_IA32_APIC_BASE) {
		*val = l->base;
		return 0;
	}
	if (msr == MSR_IA32_TSC_DEADLINE) {
		if (!lapic_tsc_deadline_ok(l))
			return msr_gp(l, "rdmsr", msr, 0);
		*val = lapic_tsc_deadline_read(l);
		return 0;
	}
	if (!x2apic_msr(l, msr) || !(reg_access(reg, true) & ACC_R))
		return msr_gp(l, "rdmsr", msr, 0);
	if (reg == APIC_ICR_LO)		/* SDM 11.12.9: one 64-bit ICR */
		*val = (uint64_t)l->icr_hi << 32 | l->icr_lo;
	else
		*val = reg_read(l, reg);
	lapic_trace(l, "rdmsr %s = %#llx", reg == APIC_ICR_LO ? "ICR" : reg_name(reg),
		    (unsigned long long)*val);
	return 0;
}

int lapic_msr_write(struct lapic *l, uint32_t msr, uint64_t val)
{
	uint32_t reg = (msr - MSR_X2APIC_BASE) << 4;

	if (msr == MSR_IA32_APIC_BASE)
		return lapic_base_write(l, val);
	if (msr == MSR_IA32_TSC_DEADLINE) {
		if (!lapic_tsc_deadline_ok(l))
			return msr_gp(l, "wrmsr", msr, val);
		lapic_tsc_deadline_write(l, val);
		return 0;
	}
	if (!x2apic_msr(l, msr) || !(reg_access(reg, true) & ACC_W))
		return msr_gp(l, "wrmsr", msr, val);
	lapic_trace(l, "wrmsr %s = %#llx", reg == APIC_ICR_LO ? "ICR" : reg_name(reg),
		    (unsigned long long)val);
	if (reg == APIC_ICR_LO) {
		if ((uint32_t)val & X2APIC_ICR_RESERVED)
			return msr_gp(l, "wrmsr ICR reserved bits", msr, val);
		l->icr_lo = (uint32_t)val & APIC_ICR_LO_MASK;
		l->icr_hi = val >> 32;
		lapic_send_icr(l);
		return 0;
	}
	/* SDM 11.12.1.3: bits 63:32 and the register's reserved bits */
	if ((val >> 32) || ((uint32_t)val & ~x2apic_defined_bits(l, reg)))
		return msr_gp(l, "wrmsr reserved bits", msr, val);
	reg_write(l, reg, val);
	return 0;
}
