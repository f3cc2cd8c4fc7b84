/* SPDX-License-Identifier: MIT */
/* check=ipi inside: what ipi_check.c and ipi_storm.c share. */
#ifndef KERNEL_IPI_CHECK_INT_H
#define KERNEL_IPI_CHECK_INT_H

#include <stdint.h>

#include "smp/smp.h"

struct ipi_state {
	/* fixed and self IPIs, vector IPI_VEC_CHECK + from */
	uint32_t sent[NR_CPUS][NR_CPUS];	/* [from][to]: @from only */
	uint32_t got[NR_CPUS][NR_CPUS];	/* [to][from]: @to's handler */
	uint8_t member[NR_CPUS];	/* online when the check began */
	unsigned nr_members;
	unsigned k;			/* ipi_k: IPIs per pair */
	unsigned arrived, finished, stalls;
	unsigned progress;		/* IPIs counted, by all handlers */
};

extern struct ipi_state ipi;

/* Wait until *@count reaches nr_members, or nothing moved for a while. */
void ipi_wait_all(unsigned *count);

/* ipi_storm.c: ipi_storm=1 */
void ipi_storm_prepare(void);		/* BSP: handlers, timer count */
void ipi_storm_run(void);		/* each CPU, interrupts on */
void ipi_storm_wait_stopped(void);	/* BSP: every CPU's timer stopped */
/* the broadcasts into the sums of @ipi_check */
void ipi_storm_fold(uint64_t *sent, uint64_t *got, uint64_t *lost,
		    uint64_t *dup);
void ipi_storm_print(void);		/* the storm's keys of @ipi_check */
int ipi_storm_ok(void);		/* no stall, stale timer irq, ISR busy */

#endif
