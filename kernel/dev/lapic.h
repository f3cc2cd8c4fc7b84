/* SPDX-License-Identifier: MIT */
/*
 * The local APIC, in xAPIC mode (MMIO) or x2APIC mode (MSRs).  Every
 * CPU has its own; the BSP picks the mode for all (lapic_init) and each
 * AP enables its own in that mode (lapic_init_ap).  Registers and bits:
 * include/hw/apic.h.
 */
#ifndef KERNEL_LAPIC_H
#define KERNEL_LAPIC_H

#include <stdint.h>

enum lapic_mode {
	LAPIC_NONE,	/* CPUID.1:EDX[9] clear: no local APIC */
	LAPIC_XAPIC,
	LAPIC_X2APIC,
};

/*
 * BSP: pick the mode from CPUID.1 and the command line (apic=xapic or
 * apic=x2apic), enable this CPU's APIC: SVR with the spurious vector
 * 0xff, TPR 0, LINT0 masked.  Returns the mode; LAPIC_NONE leaves the
 * APIC alone and makes every other call a no-op.
 */
enum lapic_mode lapic_init(void);	/* again: returns the mode */
/* AP: enable this CPU's APIC in the mode the BSP chose. */
void lapic_init_ap(void);

enum lapic_mode lapic_mode(void);
/* "none", "xapic" or "x2apic": the @smp record's apic= value */
const char *lapic_mode_name(void);
/* The physical base of the xAPIC registers (IA32_APIC_BASE). */
uint64_t lapic_base(void);

/* A register by its xAPIC offset (include/hw/apic.h), in either mode. */
uint32_t lapic_read(unsigned off);
void lapic_write(unsigned off, uint32_t v);

/* This CPU's APIC ID: 8 bits in xAPIC mode, 32 in x2APIC mode. */
uint32_t lapic_id(void);
/* End of interrupt: the handler of a fixed interrupt calls this. */
void lapic_eoi(void);

/* Fixed, edge-triggered IPIs with @vector (SDM 11.6.1). */
void lapic_send_ipi(uint32_t apic_id, unsigned vector);
void lapic_send_self(unsigned vector);
void lapic_send_others(unsigned vector);	/* all excluding self */
void lapic_send_all(unsigned vector);		/* all including self */
/* The CPUs whose cpus[] index is set in @mask (NR_CPUS bits): a PV
 * multicast when offered (pv_ipi.h), else an ICR write each */
void lapic_send_mask(const uint64_t *mask, unsigned vector);

/* INIT, and STARTUP at real-mode address @page << 12 (SDM 9.4.4.1). */
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, unsigned page);

/*
 * The timer, for calibration: a masked one-shot at divide-by-1 from
 * @count (0 stops it: one register write; else three), and its current
 * count.  No-ops (0) without an APIC.
 */
void lapic_timer_oneshot_masked(uint32_t count);
uint32_t lapic_timer_current(void);

#endif
