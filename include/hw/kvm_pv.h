/* SPDX-License-Identifier: MIT */
/*
 * KVM's paravirtual interface, the part irqlab uses on both sides
 * (Linux Documentation/virt/kvm/x86/cpuid.rst and msr.rst).  The kernel
 * cannot include Linux's uapi headers, so the numbers are here.
 *
 * KVM's leaves sit at a base B found by signature: B = 0x40000000 +
 * 0x100 * k, EBX ECX EDX = "KVMKVMKVM\0\0\0", EAX the highest leaf;
 * B + 1 EAX holds the KVM_FEATURE_* bits.  irqlab-vmm puts them at
 * 0x40000100, after its own leaves at 0x40000000, or with --kvm-pv=on,base
 * at 0x40000000 before its own (docs/PROTOCOL.md).
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

/*
 * kvmclock (msr.rst, MSR_KVM_SYSTEM_TIME_NEW; cpuid.rst,
 * KVM_FEATURE_CLOCKSOURCE2 = bit 3): the guest-physical address of a
 * struct kvm_pv_time, 4-byte aligned and within a page, with bit 0 set
 * enables it; KVM then keeps it current.  Time in ns = system_time +
 * (((TSC - tsc_timestamp) << tsc_shift, or >> -tsc_shift) *
 * tsc_to_system_mul) >> 32, read while version is even and unchanged.
 */
#define KVM_PV_FEATURE_CLOCKSOURCE2	3
#define KVM_PV_MSR_SYSTEM_TIME_NEW	0x4b564d01u
#define KVM_PV_CLOCK_TSC_STABLE		0x01	/* flags: PVCLOCK_TSC_STABLE_BIT */

struct kvm_pv_time {
	unsigned int version;
	unsigned int pad0;
	unsigned long long tsc_timestamp;
	unsigned long long system_time;
	unsigned int tsc_to_system_mul;
	signed char tsc_shift;
	unsigned char flags;
	unsigned char pad[2];
} __attribute__((packed));

#endif
