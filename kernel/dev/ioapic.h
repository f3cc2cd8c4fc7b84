/* SPDX-License-Identifier: MIT */
/*
 * The I/O APIC driver (Intel 82093AA datasheet; include/hw/ioapic.h):
 * the IOAPIC with the lowest GSI base that the ACPI MADT lists, its
 * redirection table, and the ISA IRQ -> pin mapping of the MADT's
 * interrupt source overrides.
 */
#ifndef KERNEL_IOAPIC_H
#define KERNEL_IOAPIC_H

#include <stdint.h>

#include "hw/ioapic.h"

struct mbinfo;

/*
 * At boot: find the IOAPIC in the ACPI MADT (acpi_boot).  No register
 * access, so no exit: the boot stays within its exit budget
 * (tests/integration/test_vmm_boot.py), and the entries are masked from reset
 * (datasheet 3.2.4) until a user calls ioapic_init().
 */
void ioapic_find(const struct mbinfo *mbi);
/*
 * Before first use: check that the version register answers and mask
 * every redirection entry (one write per pin).  0, or -1 without an
 * IOAPIC (then every other call is a no-op or fails).  Again: the same.
 */
int ioapic_init(void);
int ioapic_present(void);
uint32_t ioapic_version(void);		/* VER bits 7:0 */

/* An indirect register (IOREGSEL index), through IOWIN. */
uint32_t ioapic_read(unsigned index);
void ioapic_write(unsigned index, uint32_t v);

/* Entry @pin, both dwords (bits 63:56 the destination). */
uint64_t ioapic_rte_read(unsigned pin);
/*
 * Write entry @pin: the low dword, then the high dword (the order
 * Windows uses, and the one the datasheet's table lists), then read both
 * back.  Program a new entry masked and unmask it last, so no message
 * goes to a half-written destination.  0, or -1 if a writable bit did
 * not read back (or no IOAPIC / a bad pin).
 */
int ioapic_rte_write(unsigned pin, uint64_t rte);
/*
 * The same two writes, low then high, without the read-back: four MMIO
 * accesses (IOREGSEL, IOWIN, twice), as a guest OS rotating a
 * destination does them (guest-bench/cases/case_ioapic.c).
 */
void ioapic_rte_write_lo_hi(unsigned pin, uint32_t lo, uint32_t hi);
/* Only the low dword: the mask bit set or clear, the rest as it reads. */
void ioapic_mask(unsigned pin);
void ioapic_unmask(unsigned pin);

/*
 * The pin of ISA IRQ @irq: the MADT override's GSI if there is one
 * (IRQ0 -> GSI 2 on a PC), else @irq, minus the IOAPIC's GSI base.  The
 * override's polarity and trigger go to *@flags (ACPI_INTI_*, 0: the
 * ISA default, active high, edge) when @flags is not NULL.  -1 if no
 * IOAPIC or the pin is out of range.
 */
int ioapic_isa_pin(unsigned irq, uint16_t *flags);

#endif
