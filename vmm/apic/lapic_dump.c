// SPDX-License-Identifier: MIT
/*
 * A LAPIC's state in text, for --timeout's dump: from the register page
 * alone (KVM_GET_LAPIC's layout, or lapic_regs_page() of the model), so
 * the user, split and kernel irqchips print alike.
 */
#include <string.h>

#include "lapic_dump.h"
#include "lapic_internal.h"

static uint32_t page_reg(const uint8_t *page, uint32_t off)
{
	uint32_t v;

	memcpy(&v, page + off, 4);
	return v;
}

/* IRR, ISR or TMR (SDM 11.8.4): the vectors set, lowest first, or "-" */
static void print_vectors(FILE *f, const char *indent, const char *name,
			  const uint8_t *page, uint32_t base)
{
	unsigned v, n = 0;

	fprintf(f, "%s%s", indent, name);
	for (v = 0; v < 256; v++)
		if (page_reg(page, base + (v >> 5) * 0x10) & (1u << (v & 31))) {
			fprintf(f, " 0x%02x", v);
			n++;
		}
	fprintf(f, "%s\n", n ? "" : " -");
}

/* SDM figure 11-10: TDCR bits 3, 1:0; 111b divides by 1 */
static unsigned tdcr_divisor(uint32_t tdcr)
{
	unsigned v = ((tdcr & 8) >> 1) | (tdcr & 3);

	return v == 7 ? 1 : 2u << v;
}

static void print_timer(FILE *f, const char *indent, const uint8_t *page)
{
	static const char *const mode[] = {
		"one-shot", "periodic", "TSC-deadline", "reserved mode 3",
	};
	uint32_t lvt = page_reg(page, APIC_LVT_TIMER);
	uint32_t tdcr = page_reg(page, APIC_TDCR);

	fprintf(f, "%stimer %s%s vector 0x%02x: TMICT %u TMCCT %u TDCR 0x%x "
		"(divide by %u)\n", indent, mode[(lvt >> 17) & 3],
		lvt & APIC_LVT_MASKED ? " masked" : "", lvt & APIC_LVT_VECTOR,
		page_reg(page, APIC_TMICT), page_reg(page, APIC_TMCCT), tdcr,
		tdcr_divisor(tdcr));
}

void lapic_print_page(FILE *f, const char *indent,
		      const uint8_t page[LAPIC_PAGE_SIZE])
{
	fprintf(f, "%sTPR 0x%02x PPR 0x%02x SVR 0x%03x ESR 0x%02x ID 0x%08x "
		"LDR 0x%08x DFR 0x%08x ICR 0x%08x:%08x\n", indent,
		page_reg(page, APIC_TPR), page_reg(page, APIC_PPR),
		page_reg(page, APIC_SVR), page_reg(page, APIC_ESR),
		page_reg(page, APIC_ID), page_reg(page, APIC_LDR),
		page_reg(page, APIC_DFR), page_reg(page, APIC_ICR_HI),
		page_reg(page, APIC_ICR_LO));
	print_vectors(f, indent, "IRR", page, APIC_IRR);
	print_vectors(f, indent, "ISR", page, APIC_ISR);
	print_vectors(f, indent, "TMR", page, APIC_TMR);
	fprintf(f, "%sLVT timer 0x%08x thermal 0x%08x perf 0x%08x LINT0 0x%08x "
		"LINT1 0x%08x error 0x%08x CMCI 0x%08x\n", indent,
		page_reg(page, APIC_LVT_TIMER), page_reg(page, APIC_LVT_THERM),
		page_reg(page, APIC_LVT_PERF), page_reg(page, APIC_LVT_LINT0),
		page_reg(page, APIC_LVT_LINT1), page_reg(page, APIC_LVT_ERROR),
		page_reg(page, APIC_LVT_CMCI));
	print_timer(f, indent, page);
}
