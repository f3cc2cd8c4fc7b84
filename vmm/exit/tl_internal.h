/* SPDX-License-Identifier: MIT */
/* Between the timeline's join (timeline.c) and its clock (tl_clock.c). */
#ifndef VMM_TL_INTERNAL_H
#define VMM_TL_INTERNAL_H

#include "timeline.h"

/* Event @ks of vCPU @s's thread came before event @kt of vCPU @t's: a
 * kick or wake before it was taken, a post before its injection. */
struct tl_pair {
	uint16_t s, t;
	uint32_t ks, kt;
};

/* Each vCPU's @fix (allocated here; the caller frees it), the least and
 * most of it in @range, and its stretches whose bounds crossed. */
int tl_clock(struct tl_cpu *cpu, unsigned ncpu, const struct tl_pair *p,
	     uint32_t np, int64_t (*range)[2], uint32_t *unsure);
/* Event @e of @c on the guest's clock. */
uint64_t tl_ev_time(const struct tl_cpu *c, const struct tl_event *e);

#endif
