/* SPDX-License-Identifier: MIT */
/*
 * The ISA side of --irqchip=user and split (isa.c): the PIT, PIC and
 * IOAPIC models under one lock, their host timer and interrupt lines, and
 * the IOAPIC on irqlab's APIC bus.
 */
#ifndef VMM_IRQCHIP_ISA_H
#define VMM_IRQCHIP_ISA_H

#include <stdbool.h>
#include <stdint.h>

struct vm;
struct ioapic_stats;

/* an ISA device's bus callbacks, called under vm->isa_lock */
struct isa_dev {
	struct vm *vm;
	void *dev;
	uint64_t (*read)(void *dev, uint64_t off, unsigned size, int cpu);
	void (*write)(void *dev, uint64_t off, unsigned size, uint64_t val,
		      int cpu);
};

void isa_init(struct vm *vm);
/* --irqchip=kernel --hpet=on: the HPET alone, its lines KVM's */
void isa_hpet_kernel_init(struct vm *vm);
/* the PIT's and the HPET's timer thread (started by main.c): expiries until
 * isa_timer_stop() (or vm->stopping) tells it to end */
void isa_timer_loop(struct vm *vm);
void isa_timer_stop(struct vm *vm);
/* a LAPIC's EOI of level vector @vector (user.c, split mode's exit) */
void isa_eoi(struct vm *vm, uint8_t vector);
void isa_set_line(struct vm *vm, unsigned line, int level);
bool isa_timer_armed(struct vm *vm);
/* the IOAPIC counters of a snapshot, read under isa_lock (0s if none) */
void isa_ioapic_stats(struct vm *vm, struct ioapic_stats *st);

#endif
