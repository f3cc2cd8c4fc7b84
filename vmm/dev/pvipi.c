// SPDX-License-Identifier: MIT
/* The PV IPI doorbell's decoding and bounds (pvipi.h). */
#include <string.h>

#include "hw/apic.h"
#include "pvipi.h"

/* ICR bits 10:0 are the vector and the delivery mode (SDM 11.6.1) */
#define PVIPI_ICR_BITS	(APIC_ICR_DM_MASK | APIC_ICR_VECTOR)

enum pvipi_status pvipi_decode(const struct guest_mem *mem, uint64_t gpa,
			       unsigned nr_ids, struct pvipi_req *req)
{
	const void *p = mem_ptr(mem, gpa, sizeof(struct irqlab_pv_ipi));
	struct irqlab_pv_ipi s;
	unsigned w, first_bad;

	memset(req, 0, sizeof(*req));
	if (!p)
		return PVIPI_BAD_ADDR;
	/* one copy: a guest rewriting it meanwhile cannot split the checks */
	memcpy(&s, p, sizeof(s));
	req->vector = s.icr & APIC_ICR_VECTOR;
	req->delivery = s.icr & APIC_ICR_DM_MASK;
	if ((s.icr & ~PVIPI_ICR_BITS) || s.reserved ||
	    (req->delivery != APIC_ICR_DM_FIXED &&
	     req->delivery != APIC_ICR_DM_NMI))
		return PVIPI_BAD_FORMAT;
	memcpy(req->dest, s.dest, sizeof(req->dest));
	for (w = 0; w < IRQLAB_PV_IPI_MAX_IDS / 64; w++)
		req->nr_dest += __builtin_popcountll(s.dest[w]);
	if (!req->nr_dest)
		return PVIPI_EMPTY;
	first_bad = nr_ids < IRQLAB_PV_IPI_MAX_IDS ? nr_ids :
						     IRQLAB_PV_IPI_MAX_IDS;
	for (w = first_bad / 64; w < IRQLAB_PV_IPI_MAX_IDS / 64; w++) {
		uint64_t bad = s.dest[w];

		if (w == first_bad / 64)
			bad &= ~0ull << (first_bad % 64);
		if (bad)
			return PVIPI_OUT_OF_RANGE;
	}
	/* SDM 11.5.3: a fixed IPI with a vector below 16 is not sent; the
	 * sender's ESR gets "send illegal vector" (an NMI has no vector) */
	if (req->delivery == APIC_ICR_DM_FIXED && req->vector < 16)
		return PVIPI_ILLEGAL_VECTOR;
	return PVIPI_OK;
}

const char *pvipi_status_name(enum pvipi_status s)
{
	static const char *const names[PVIPI_NR_STATUS] = {
		"ok", "bad-addr", "bad-format", "empty", "out-of-range",
		"illegal-vector",
	};

	return s < PVIPI_NR_STATUS ? names[s] : "?";
}
