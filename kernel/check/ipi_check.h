/* SPDX-License-Identifier: MIT */
/* check=ipi: the IPI delivery check (ipi_check.c). */
#ifndef KERNEL_IPI_CHECK_H
#define KERNEL_IPI_CHECK_H

/*
 * On all online CPUs at once: K fixed IPIs to every other CPU, K self
 * IPIs, K broadcasts each.  Prints @ipi_check; panics unless every IPI
 * arrived exactly once.  Call after smp_init(), with interrupts off.
 */
void ipi_check(void);

#endif
