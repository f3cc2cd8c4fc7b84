/* SPDX-License-Identifier: MIT */
/*
 * KVM's own paravirtual CPUID leaves (Documentation/virt/kvm/x86/
 * cpuid.rst): which KVM_FEATURE_* bits --kvm-pv=on offers.
 *
 *   0x40000100  "KVMKVMKVM\0\0\0", EAX = 0x40000101 (the highest leaf)
 *   0x40000101  EAX = the KVM_FEATURE_* bits offered, EDX = 0 (no hints)
 *
 * They sit one base above irqlab's 0x40000000 leaves; Linux looks for
 * KVM's signature at every 0x100 from 0x40000000 (kvm_cpuid_base()).
 * docs/VMM.md "--kvm-pv" says which features and why.
 */
#ifndef VMM_CPUID_KVM_H
#define VMM_CPUID_KVM_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

/* cpuid.rst: the KVM_FEATURE_* bits of 0x40000001/0x40000101 EAX */
#define KVM_PV_CLOCKSOURCE	(1u << 0)
#define KVM_PV_NOP_IO_DELAY	(1u << 1)
#define KVM_PV_CLOCKSOURCE2	(1u << 3)
#define KVM_PV_STEAL_TIME	(1u << 5)
#define KVM_PV_PV_EOI		(1u << 6)
#define KVM_PV_PV_UNHALT	(1u << 7)
#define KVM_PV_PV_TLB_FLUSH	(1u << 9)
#define KVM_PV_PV_SEND_IPI	(1u << 11)
#define KVM_PV_PV_SCHED_YIELD	(1u << 13)
#define KVM_PV_CLOCK_STABLE	(1u << 24)
/* the features a guest uses through a hypercall (hypercalls.rst) */
#define KVM_PV_HYPERCALLS	(KVM_PV_PV_SEND_IPI | KVM_PV_PV_UNHALT | \
				 KVM_PV_PV_SCHED_YIELD)

/*
 * What --kvm-pv=on offers: of @supported (KVM's own 0x40000001 EAX from
 * KVM_GET_SUPPORTED_CPUID), the clock, steal time and no-I/O-delay bits
 * always, since KVM serves their MSRs whatever the irqchip; the PV
 * unhalt, TLB flush, send-IPI and sched-yield bits only when @kvm_lapic
 * (split, kernel): KVM implements them on its own LAPIC.  Never KVM's
 * PV EOI: Linux stalled with it on the nested rig (docs/VMM.md).
 */
uint32_t cpuid_kvm_pv_features(uint32_t supported, bool kvm_lapic);

/* The leaves themselves are written by cpuid_set_pv() (cpuid.h). */

#endif
