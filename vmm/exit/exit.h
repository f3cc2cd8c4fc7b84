/* SPDX-License-Identifier: MIT */
/*
 * One exit, as KVM reported it in vcpu->run (exit.c): counted, then
 * handed to the bus, the LAPIC's registers or the IOAPIC's EOI.
 */
#ifndef VMM_EXIT_H
#define VMM_EXIT_H

struct vcpu;

/* what the vCPU's loop (kvm/vcpu.c) does next */
enum exit_action {
	EXIT_CONTINUE,
	EXIT_HALT,		/* sleep until woken, then continue */
	EXIT_FAIL_SHUTDOWN,
	EXIT_FAIL_INTERNAL,
	EXIT_FAIL_ENTRY,
	EXIT_FAIL_UNHANDLED,
};

enum exit_action exit_dispatch(struct vcpu *v);

#endif
