// SPDX-License-Identifier: MIT
/*
 * Interrupts taken inside STI's shadow, before a sti_hlt() HLT (halt.h).
 */
#include <stdint.h>

#include "halt.h"
#include "lib/printf.h"
#include "percpu.h"

#define HLT_LEN		1	/* F4 */

extern const uint64_t __sti_hlt_start[], __sti_hlt_end[];

static uint32_t broken;		/* how many */
static uint64_t first_rip;	/* the first one's HLT, vector and CPU */
static uint32_t first_vector, first_cpu;

int halt_shadow_broken(struct trap_frame *tf)
{
	const uint64_t *p;

	for (p = __sti_hlt_start; p < __sti_hlt_end; p++) {
		if (*p != tf->rip)
			continue;
		if (__atomic_fetch_add(&broken, 1, __ATOMIC_RELAXED) == 0) {
			first_rip = tf->rip;
			first_vector = (uint32_t)tf->vector;
			first_cpu = this_cpu()->index;
		}
		/* resume where the HLT this interrupt should have ended would */
		tf->rip += HLT_LEN;
		return 1;
	}
	return 0;
}

void halt_report(void)
{
	uint32_t n = __atomic_load_n(&broken, __ATOMIC_RELAXED);

	if (!n)
		return;
	kprintf("@fault kind=sti_shadow n=%u vector=0x%x cpu=%u rip=0x%lx\n", n,
		first_vector, first_cpu, first_rip);
	kprintf("fault: %u interrupt(s) came inside STI's shadow, before the "
		"HLT that follows it (SDM vol. 2B, STI); each resumed after "
		"the HLT, as the HLT would have\n", n);
}
