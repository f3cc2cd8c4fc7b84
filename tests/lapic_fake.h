/* SPDX-License-Identifier: MIT */
/*
 * A fake machine for the local APIC tests: a clock and a TSC the test
 * moves by hand, and a record of every call the model makes through
 * struct lapic_ops.
 */
#ifndef TESTS_LAPIC_FAKE_H
#define TESTS_LAPIC_FAKE_H

#include <stdint.h>

#include "apic/lapic.h"

#define FAKE_CPUS	4
#define FAKE_LOG	64

struct fake_machine {
	uint64_t now;			/* ns, what ops->now_ns returns */
	uint64_t tsc;			/* what ops->tsc returns */
	uint64_t armed[FAKE_CPUS];	/* last deadline given to timer_arm */
	unsigned arms[FAKE_CPUS];	/* timer_arm calls */
	struct lapic_ipi ipi[FAKE_LOG];
	int ipi_src[FAKE_LOG];
	unsigned nipi;
	uint8_t eoi[FAKE_LOG];		/* eoi_level vectors */
	unsigned neoi;
	unsigned ntrace;
};

extern struct fake_machine fake;
extern const struct lapic_ops fake_ops;		/* with ops->tsc */
extern const struct lapic_ops fake_ops_notsc;	/* without */

/* Clear the record; the clock starts at 1 s and the TSC at 0x10000. */
void fake_reset(void);
/* lapic_init() @l as CPU @cpu on the fake machine (CPU 0 is the BSP). */
void fake_lapic(struct lapic *l, int cpu, uint32_t apic_id);
/* Software-enable @l (SVR = 0x1ff). */
void fake_sw_enable(struct lapic *l);
/* Move @l into x2APIC mode through IA32_APIC_BASE. */
void fake_x2apic(struct lapic *l);
/* Deliver a fixed or lowest-priority message to what apic_route() picks. */
void fake_deliver(struct lapic *const *cpus, unsigned n, int src,
		  const struct lapic_ipi *ipi, uint64_t *mask);

#endif
