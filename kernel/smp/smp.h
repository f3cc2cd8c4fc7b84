/* SPDX-License-Identifier: MIT */
/*
 * Multiprocessor start-up (the per-CPU data is arch/percpu.h's), and the
 * interrupt vectors the kernel's IPIs and checks use.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "arch/percpu.h"

/* Interrupt vectors of the IPIs (the spurious vector is 0xff, lapic.c). */
#define IPI_VEC_CHECK	0x40	/* ipi_check.c: 0x40 + the sender's index */
#define IPI_VEC_WAKE	0xf0	/* wake an idle AP to look at its work */
#define VEC_TIMER_CHECK	0xe0	/* timer_check.c: the LAPIC timer */
#define VEC_IOAPIC_CHECK	0xe1	/* ioapic_check.c: the testdev line */
#define VEC_IOAPIC_CHECK_PIT	0xe2	/* ioapic_check.c: PIT channel 0 */
#define VEC_PIC_CHECK		0x30	/* pic_check.c: the PIC's 16 vectors */
#define VEC_PIC_CHECK_KICK	0xe3	/* pic_check.c: a self IPI */
#define VEC_LAPIC_CHECK_DEST	0xe8	/* lapic_check_dest.c */
#define VEC_LAPIC_CHECK_OLD	0xe9	/* lapic_check_base.c: the old base */
#define IPI_VEC_BCAST	0x80	/* ipi_check.c storm: 0x80 + the broadcaster */
#define VEC_STORM_TIMER	0xe4	/* ipi_check.c storm: the LAPIC timer, A */
#define VEC_STORM_TIMER_B	0xe5	/* ... and B, the vector it moves to */

#if IPI_VEC_CHECK + NR_CPUS > IPI_VEC_WAKE
#error "the check vectors run into the wake-up vector"
#endif
#if IPI_VEC_CHECK + NR_CPUS > IPI_VEC_BCAST || IPI_VEC_BCAST + NR_CPUS > 0xd0
#error "the storm's broadcast vectors overlap the check's or guest-bench's"
#endif

#ifndef __ASSEMBLY__

#include <stdint.h>

struct mbinfo;

/* BSP, first thing: GS base -> cpus[0].  Before it, this_cpu() reads
 * address 0 (harmless, but not a struct cpu). */
void smp_early_init(void);

/*
 * Enable the BSP's local APIC, find the CPUs (ACPI MADT) and start the
 * APs; print @smp (docs/RECORDS.md).  [@loader_lo, @loader_hi) is the
 * low memory that holds the loader's boot information: the AP
 * trampoline page avoids it.
 */
void smp_init(const struct mbinfo *mbi, uint64_t loader_lo,
	      uint64_t loader_hi);

/* CPUs online (1 without SMP). */
unsigned smp_nr_online(void);

/*
 * Make every online AP run @fn once from its idle loop, with interrupts
 * on; returns at once.  There is one work slot per CPU: call again only
 * once the APs took the last @fn (the caller's own handshake tells).
 */
void smp_run_on_aps(void (*fn)(void));

#endif /* __ASSEMBLY__ */
#endif
