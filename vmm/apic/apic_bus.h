/* SPDX-License-Identifier: MIT */
/*
 * The APIC bus (apic_bus.c): which local APICs an interrupt message
 * reaches, SDM 11.6.2 and 11.12.10, and lowest-priority arbitration.
 * The caller holds whatever serialises the LAPICs against each other.
 */
#ifndef VMM_APIC_BUS_H
#define VMM_APIC_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include "lapic.h"

bool lapic_match_dest(const struct lapic *l, uint32_t dest, bool logical);
/*
 * The targets of @ipi sent by CPU @src (-1: no CPU, e.g. the IOAPIC) as a
 * bit per CPU in @mask[(n + 63) / 64].  Lowest priority leaves one bit:
 * the lowest APR among the software-enabled targets, ties to the one that
 * won least recently, then to the lowest index (docs/LAPIC.md).  That
 * records the win in the winner's arb_seq.
 */
void apic_route(struct lapic *const *cpus, unsigned n, int src,
		const struct lapic_ipi *ipi, uint64_t *mask);
/*
 * The CPUs whose physical APIC ID is set in @ids (@nr_ids bits): the
 * targets of the PV IPI doorbell, into @mask as above.
 */
void apic_route_set(struct lapic *const *cpus, unsigned n, const uint64_t *ids,
		    unsigned nr_ids, uint64_t *mask);

#endif
