/* SPDX-License-Identifier: MIT */
/*
 * The frequency leaves of the guest's CPUID (--cpuid-freq), as a pure
 * editor of the table KVM_GET_SUPPORTED_CPUID gave: no ioctl here.
 *
 *   0x15        EBX/EAX = TSC / crystal, ECX = crystal Hz (SDM vol. 2A,
 *               CPUID leaf 15H); the crystal is the APIC timer's clock,
 *               as the SDM says it is when 0x15 enumerates it; EBX kept
 *               small enough for Linux's 32-bit arithmetic (cpuid.c)
 *   0x16        EAX = TSC base MHz, EBX = max MHz, ECX = bus MHz (leaf 16H)
 *   0x40000000  "irqlabirqlab", EAX = 0x40000010, the highest leaf
 *   0x40000001  EAX = irqlab's PV features (IRQLAB_FEATURE_*, hw/irqlab.h)
 *   0x40000010  EAX = TSC kHz, EBX = APIC bus kHz (VMware's timing leaf,
 *               which QEMU and illumos also read)
 *   0x40000100  "KVMKVMKVM\0\0\0", EAX = 0x40000101, only when KVM's PV
 *               features are offered (--kvm-pv)
 *   0x40000101  EAX = KVM_FEATURE_* bits (KVM's cpuid.rst, hw/kvm_pv.h)
 *   (--kvm-pv=on,base: KVM's pair at 0x40000000, irqlab's at 0x40000100)
 *
 * And the vendor (--cpu-vendor): leaf 0's EBX, EDX, ECX, and the same
 * string in 0x80000000's on AMD (zero on Intel), SDM vol. 2A and the APM
 * vol. 3, CPUID Fn0000_0000 and Fn8000_0000.
 */
#ifndef VMM_CPUID_H
#define VMM_CPUID_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

enum cpuid_freq {
	CPUID_FREQ_ON,		/* 0x15, 0x16 and 0x40000010 (the default) */
	CPUID_FREQ_OFF,		/* all three zeroed, as Hyper-V does */
	CPUID_FREQ_16,		/* leaf 0x16 only */
	CPUID_FREQ_HV,		/* leaf 0x40000010 only */
};

enum cpuid_vendor {
	CPUID_VENDOR_HOST,	/* the host's, as KVM lists it (the default) */
	CPUID_VENDOR_INTEL,	/* "GenuineIntel" */
	CPUID_VENDOR_AMD,	/* "AuthenticAMD" */
};

#define CPUID_HV_BASE		0x40000000u
#define CPUID_HV_TIMING		0x40000010u
#define CPUID_HV_SIGNATURE	"irqlabirqlab"

/* "on", "off", "16" or "hv"; -1 for anything else */
int cpuid_freq_parse(const char *s, enum cpuid_freq *f);

/*
 * The fraction @p / @q nearest @n / @d with @p <= @max_p (exact when the
 * lowest terms fit): leaf 0x15's ratio.  @n, @d > 0, @max_p >= 1.
 */
void cpuid_ratio_fit(uint64_t n, uint64_t d, uint64_t max_p, uint64_t *p,
		     uint64_t *q);

/* "host", "intel" or "amd"; -1 for anything else */
int cpuid_vendor_parse(const char *s, enum cpuid_vendor *v);

/*
 * Put @v's vendor string in leaves 0 and 0x80000000 of @c (nothing for
 * CPUID_VENDOR_HOST).  Only the string changes: the family, model and
 * feature bits stay the host's.  0, or -1 when @c has no leaf 0.
 */
int cpuid_set_vendor(struct kvm_cpuid2 *c, enum cpuid_vendor v);

/* @c's vendor string, NUL-terminated, into @buf (13 bytes); "" if none */
void cpuid_vendor_string(struct kvm_cpuid2 *c, char *buf);

/*
 * Edit @c (room for @max entries) for @mode, with the TSC at @tsc_khz and
 * the APIC timer clock at @apic_hz.  A rate of 0 (unknown) gives no leaf
 * that would need it: the advertised value is always the true one.
 * Returns 0, or -1 when @c has no room (then it is partly edited).
 */
int cpuid_set_freq(struct kvm_cpuid2 *c, unsigned max, enum cpuid_freq mode,
		   uint32_t tsc_khz, uint64_t apic_hz);

/*
 * KVM's PV features as KVM_GET_SUPPORTED_CPUID lists them: EAX of
 * 0x40000001 when 0x40000000 holds KVM's signature, else 0.  Call it
 * before cpuid_set_freq() puts irqlab's signature there.
 */
uint32_t cpuid_kvm_features(struct kvm_cpuid2 *c);

/*
 * irqlab's feature leaf, EAX = @irqlab_features, in place of whatever KVM's
 * table had there (its own features, meaningless under irqlab's
 * signature); and, if @kvm_features is not 0 or @kvm_sig is true, KVM's
 * leaf pair at 0x40000100 with them (the signature with no feature when
 * both are 0 and 1: --kvm-pv=sig).  The 0x40000000 max leaf is raised to cover
 * 0x40000001.  After cpuid_set_freq().  0, or -1 when @c has no room.
 */
int cpuid_set_pv(struct kvm_cpuid2 *c, unsigned max, uint32_t irqlab_features,
		 uint32_t kvm_features, bool kvm_sig);

/*
 * --kvm-pv=on,base: KVM's signature and features at 0x40000000 and
 * 0x40000001, where a guest that reads only the first base finds them,
 * and irqlab's at 0x40000100 and 0x40000101 (as QEMU stacks Hyper-V's
 * and KVM's); the timing leaf stays at 0x40000010, under KVM's base.
 * After cpuid_set_pv() with KVM's leaves.  0, or -1 when @c has no room.
 */
int cpuid_kvm_first(struct kvm_cpuid2 *c, unsigned max);

/*
 * MAXPHYADDR as the guest's CPUID states it (SDM 4.1.4):
 * CPUID.80000008H:EAX[7:0]; without that leaf, 36 if CPUID.01H:EDX.PAE,
 * else 32.
 */
unsigned cpuid_maxphyaddr(struct kvm_cpuid2 *c);

/* The entry for (@function, @index), or NULL. */
struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid2 *c, uint32_t function,
				    uint32_t index);

#endif
