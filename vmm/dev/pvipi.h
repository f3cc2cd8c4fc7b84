/* SPDX-License-Identifier: MIT */
/*
 * The PV IPI doorbell's request (include/hw/irqlab.h, struct
 * irqlab_pv_ipi), decoded and bounded.  Pure: it reads guest RAM through
 * mem_ptr() and says what to send; irqchip/user.c sends it.
 */
#ifndef VMM_PVIPI_H
#define VMM_PVIPI_H

#include <stdint.h>

#include "boot/mem.h"
#include "hw/irqlab.h"

enum pvipi_status {
	PVIPI_OK,
	PVIPI_BAD_ADDR,		/* the struct is not in RAM in one piece */
	PVIPI_BAD_FORMAT,	/* reserved bits set, or a delivery mode
				 * other than fixed and NMI */
	PVIPI_EMPTY,		/* no destination */
	PVIPI_OUT_OF_RANGE,	/* an APIC ID no vCPU of the machine has */
	PVIPI_ILLEGAL_VECTOR,	/* fixed, vector < 16: SDM 11.5.3 */
	PVIPI_NR_STATUS
};

struct pvipi_req {
	uint8_t vector;
	uint32_t delivery;	/* APIC_ICR_DM_FIXED or APIC_ICR_DM_NMI */
	uint64_t dest[IRQLAB_PV_IPI_MAX_IDS / 64];	/* APIC IDs */
	unsigned nr_dest;
};

/*
 * Read the struct at @gpa into @req.  The APIC IDs the machine has are
 * 0..@nr_ids-1: a set bit at or above @nr_ids is PVIPI_OUT_OF_RANGE and
 * the whole request is refused (nothing is sent).  Checks in the order of
 * enum pvipi_status; the first failing one is returned.
 */
enum pvipi_status pvipi_decode(const struct guest_mem *mem, uint64_t gpa,
			       unsigned nr_ids, struct pvipi_req *req);
/* "ok", "bad-addr", ...: for --stats */
const char *pvipi_status_name(enum pvipi_status s);

#endif
