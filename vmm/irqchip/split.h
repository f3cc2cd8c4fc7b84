/* SPDX-License-Identifier: MIT */
/*
 * --irqchip=split (split.c): irqlab's IOAPIC in front of KVM's LAPICs.
 * Its messages go to KVM as MSIs, and each level entry is a GSI route,
 * from which KVM builds its EOI-exit bitmaps.  What split.c asks of KVM
 * goes through struct split_ops (kvm/irqchip.c fills it in), so that
 * split.c, linked into the unit tests, makes no KVM call.
 */
#ifndef VMM_IRQCHIP_SPLIT_H
#define VMM_IRQCHIP_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

struct ioapic_ops;
struct vm;

/* An MSI: the address and data of SDM 11.11.1 and 11.11.2. */
struct split_msi {
	uint32_t addr;		/* 0: no route */
	uint32_t data;
};

struct split_ops {
	/* KVM_SIGNAL_MSI: the number of LAPICs that took it, -1 on error */
	int (*signal_msi)(struct vm *vm, const struct split_msi *m);
	/* KVM_SET_GSI_ROUTING: GSI i (< n) -> @r[i], when r[i].addr != 0 */
	int (*set_routes)(struct vm *vm, const struct split_msi *r, unsigned n);
};

/* under vm->isa_lock */
struct split_state {
	const struct split_ops *ops;
	struct split_msi route[24];	/* per IOAPIC pin, as last committed */
	uint64_t rte[24];		/* the entries, as at the last check */
	uint64_t route_commits;		/* KVM_SET_GSI_ROUTING calls */
	uint64_t msis;			/* KVM_SIGNAL_MSI calls */
	uint64_t msi_errors;
	uint64_t msi_untaken;		/* 0: no LAPIC took it (merged, blocked) */
	bool extint_warned;
};

/* the IOAPIC's ops in split mode (@ctx: the struct vm) */
extern const struct ioapic_ops split_ioapic_ops;
/* after ioapic_init(): the entries as they start (all masked) */
void split_init(struct vm *vm);
/* after each IOAPIC write: commit the routes if a pin's route changed */
void split_sync(struct vm *vm);

#endif
