/* SPDX-License-Identifier: MIT */
/*
 * Boot-time calibration: calib/ bound to this machine's CPUID, TSC, PIT,
 * PM timer and local APIC, the choice of a source, and the @calib record
 * (docs/RECORDS.md, docs/CALIB.md).
 */
#ifndef KERNEL_CALIB_HW_H
#define KERNEL_CALIB_HW_H

#include <stdint.h>

struct mbinfo;

/*
 * Calibrate on the BSP, before the APs start: enables the local APIC
 * (lapic_init), finds the PM timer in the ACPI FADT, runs the method the
 * command line asks for (calib=auto|cpuid|pit|pmtimer|all, default auto)
 * in phase IRQLAB_PHASE_CALIB, prints @calib, and goes back to
 * IRQLAB_PHASE_EARLY.
 */
void calib_boot(const struct mbinfo *mbi);

/* What calib_boot() found, 0 if nothing. */
uint64_t calib_tsc_khz(void);
uint64_t calib_lapic_khz(void);

#endif
