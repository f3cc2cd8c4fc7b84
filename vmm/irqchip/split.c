// SPDX-License-Identifier: MIT
/*
 * --irqchip=split: irqlab's IOAPIC (and PIC, PIT: isa.c) in front of
 * KVM's LAPICs (api.rst, KVM_CAP_SPLIT_IRQCHIP).  The IOAPIC's messages
 * go to KVM as MSIs (KVM_SIGNAL_MSI), and the level entries are MSI
 * routes of reserved GSIs, from which KVM builds the EOI-exit bitmaps
 * that bring a level vector's EOI back as KVM_EXIT_IOAPIC_EOI (isa_eoi()).
 * KVM itself is reached through vm->split.ops (kvm/irqchip.c).  Called
 * under vm->isa_lock, as the rest of the ISA side.
 */
#include <string.h>

#include "hw/apic.h"
#include "hw/ioapic.h"
#include "split.h"
#include "util.h"
#include "vm.h"

/*
 * SDM 11.11.1: address FEEx_xxxxh with the destination in bits 19:12, RH
 * (bit 3) for lowest priority and DM (bit 2) logical.  SDM 11.11.2: data
 * with the vector, the delivery mode in bits 10:8, and for a level
 * message assert (bit 14) and trigger (bit 15).
 */
static struct split_msi split_msi_of(uint8_t vector, uint32_t delivery,
				     bool logical, bool level, uint32_t dest)
{
	struct split_msi m;

	m.addr = 0xfee00000u | (dest & 0xff) << 12 |
		 (delivery == APIC_ICR_DM_LOWEST ? 1u << 3 : 0) |
		 (logical ? 1u << 2 : 0);
	m.data = vector | (delivery & 0x700) | 1u << 14 |
		 (level ? 1u << 15 : 0);
	return m;
}

static int split_deliver(void *ctx, const struct lapic_ipi *msg)
{
	struct vm *vm = ctx;
	struct split_msi m;
	int r;

	/*
	 * ExtINT: KVM's LAPIC takes a PIC vector only by KVM_INTERRUPT and
	 * only while its LVT0 accepts PIC interrupts (extint.c), and it
	 * ignores an MSI with delivery mode ExtINT (__apic_accept_irq()).
	 * So an ExtINT entry has nowhere to go; LINT0 works instead.
	 */
	if (msg->delivery == IOAPIC_RTE_DM_EXTINT) {
		if (!vm->split.extint_warned) {
			vm->split.extint_warned = true;
			warn("IOAPIC: an ExtINT entry under --irqchip=split: KVM's "
			     "LAPIC takes the PIC's vector only through LVT0 "
			     "(LINT0 ExtINT); dropped");
		}
		return 0;
	}
	m = split_msi_of(msg->vector, msg->delivery, msg->logical, msg->level,
			 msg->dest);
	/* a level entry's route as it delivers (its remote IRR is set only
	 * after this): one its EOI moved or a write while it was held */
	if (msg->level)
		split_sync(vm);
	vm->split.msis++;
	r = vm->split.ops->signal_msi(vm, &m);
	if (r < 0)
		vm->split.msi_errors++;
	else if (!r)	/* api.rst: "0 if the guest blocked the MSI" */
		vm->split.msi_untaken++;
	return r < 0 ? 0 : r;
}

/*
 * KVM's LAPICs are out of sight: the IOAPIC's own bookkeeping (its TMR
 * sets and counters) takes APIC ID n for vCPU n, as KVM_CREATE_VCPU
 * gives, and a logical destination as every vCPU.  KVM derives the real
 * EOI-exit bitmaps from the routes (split_sync()).
 */
static uint64_t split_dest_mask(void *ctx, uint32_t dest, bool logical)
{
	struct vm *vm = ctx;
	uint64_t all = vm->nr_vcpus == 64 ? ~0ull : (1ull << vm->nr_vcpus) - 1;

	if (logical || dest == 0xff)
		return all;
	return dest < vm->nr_vcpus ? 1ull << dest : 0;
}

/*
 * No tmr_update and no rendezvous: KVM keeps the vCPUs' EOI-exit bitmaps
 * itself, from the routes split_sync() commits, and each commit makes KVM
 * rescan them on every vCPU before it enters again (KVM_REQ_SCAN_IOAPIC),
 * which is --ioapic=naive's rendezvous here.
 */
const struct ioapic_ops split_ioapic_ops = {
	.deliver = split_deliver,
	.dest_mask = split_dest_mask,
};

/*
 * The route KVM needs for a pin: only a level entry (fixed or lowest
 * priority, 82093AA 3.2.4) has one, because KVM sets a vCPU's EOI-exit
 * bit (KVM_EXIT_IOAPIC_EOI) for the vector of each level MSI route of a
 * reserved GSI that names it (api.rst, KVM_CAP_SPLIT_IRQCHIP).  Mask and
 * polarity are not in it, nor is anything of an edge entry: delivery is
 * by KVM_SIGNAL_MSI, which needs no route.
 */
static struct split_msi split_route_of(uint64_t rte)
{
	uint32_t lo = (uint32_t)rte, dm = lo & IOAPIC_RTE_DM_MASK;

	if (!(lo & IOAPIC_RTE_LEVEL) ||
	    (dm != IOAPIC_RTE_DM_FIXED && dm != IOAPIC_RTE_DM_LOWEST))
		return (struct split_msi){ 0, 0 };
	return split_msi_of(lo & IOAPIC_RTE_VECTOR, dm,
			    lo & IOAPIC_RTE_LOGICAL, true,
			    (uint32_t)(rte >> 32) >> IOAPIC_RTE_DEST_SHIFT);
}

/*
 * After an IOAPIC write, an EOI, and before a level message: commit the
 * routes only when the effective route of a pin changed.  Each commit
 * makes KVM rescan every vCPU's EOI-exit bitmap (KVM_REQ_SCAN_IOAPIC),
 * the split-mode form of the rendezvous.  --ioapic=naive commits on any
 * change of any entry, as a VMM that rebuilds the routes on every
 * redirection write.
 *
 * A pin whose remote IRR is set keeps the route it delivered by until
 * its EOI (82093AA 3.2.4: remote IRR is the message in flight, and only
 * the LAPIC that took it will EOI it), as irqlab's own IOAPIC keeps its
 * TMR route (apic/ioapic.c pin_sync()).  KVM needs this before Linux 6.2:
 * its rescan sets a vCPU's EOI-exit bit only for routes that name the
 * vCPU (arch/x86/kvm/irq_comm.c kvm_scan_ioapic_routes()), so a route
 * moved away from the CPU that has the vector in service or pending lost
 * that EOI, and remote IRR stayed set for good.  Commit fceb3a36c29a
 * ("KVM: x86: ioapic: Fix level-triggered EOI and userspace I/OAPIC
 * reconfigure race", v6.2) adds kvm_apic_pending_eoi() there, as
 * kvm_ioapic_scan_entry() had for KVM's own IOAPIC; Debian's 6.1.192 does
 * not have it (docs/VMM.md, "Split mode and a moved level entry").
 */
void split_sync(struct vm *vm)
{
	struct split_state *s = &vm->split;
	struct split_msi r[IOAPIC_NR_PINS];
	bool changed = false;
	unsigned i;

	for (i = 0; i < IOAPIC_NR_PINS; i++) {
		uint64_t now = ioapic_rte(&vm->ioapic, i);
		/* as written: remote IRR and delivery status are not */
		uint64_t rte = now & ~(uint64_t)(IOAPIC_RTE_REMOTE_IRR |
						  IOAPIC_RTE_DELIVS);

		if (now & IOAPIC_RTE_REMOTE_IRR)
			r[i] = s->route[i];	/* held until its EOI */
		else
			r[i] = split_route_of(rte);
		if (vm->cfg->ioapic_policy == IOAPIC_NAIVE)
			changed |= rte != s->rte[i];
		else
			changed |= memcmp(&r[i], &s->route[i], sizeof(r[i])) != 0;
		s->rte[i] = rte;
	}
	if (!changed)
		return;
	s->route_commits++;
	if (s->ops->set_routes(vm, r, IOAPIC_NR_PINS))
		warn("--irqchip=split: KVM_SET_GSI_ROUTING failed");
	memcpy(s->route, r, sizeof(r));
}

void split_init(struct vm *vm)
{
	unsigned i;

	for (i = 0; i < IOAPIC_NR_PINS; i++)
		vm->split.rte[i] = ioapic_rte(&vm->ioapic, i);
}
