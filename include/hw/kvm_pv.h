/* SPDX-License-Identifier: MIT */
/*
 * KVM's paravirtual interface, the part irqlab uses on both sides
 * (Linux Documentation/virt/kvm/x86/cpuid.rst and msr.rst).  The kernel
 * cannot include Linux's uapi headers, so the numbers are here.
 *
 * KVM's leaves sit at a base B found by signature: B = 0x40000000 +
 * 0x100 * k, EBX ECX EDX = "KVMKVMKVM\0\0\0", EAX the highest leaf;
 * B + 1 EAX holds the KVM_FEATURE_* bits.  irqlab-vmm puts them at
 * 0x40000100, after its own leaves at 0x40000000 (docs/PROTOCOL.md).
 */
#ifndef HW_KVM_PV_H
#define HW_KVM_PV_H

#define KVM_PV_CPUID_BASE	0x40000100u	/* where irqlab-vmm puts them */
#define KVM_PV_SIGNATURE	"KVMKVMKVM\0\0\0"
#define KVM_PV_FEATURE_PV_EOI	6		/* KVM_FEATURE_PV_EOI */

/*
 * msr.rst, MSR_KVM_PV_EOI_EN: bit 0 enables; bits 63:2 the guest-physical
 * address of a 4-byte aligned, zeroed word in guest RAM.  KVM sets bit 0
 * of the word when the guest may skip the EOI write and instead clear the
 * bit; KVM changes it only while the vCPU is out of the guest.
 */
#define KVM_PV_MSR_EOI_EN	0x4b564d04u	/* MSR_KVM_PV_EOI_EN */
#define KVM_PV_EOI_ENABLED	1ull

#endif
