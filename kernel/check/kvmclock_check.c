// SPDX-License-Identifier: MIT
/*
 * check=kvmclock: KVM's paravirtual clock, read as Linux's pvclock reads
 * it (Linux Documentation/virt/kvm/x86/msr.rst, MSR_KVM_SYSTEM_TIME_NEW;
 * arch/x86/include/asm/pvclock.h).  The leaves are found by signature
 * wherever they sit (cpu_hv_base(): 0x40000100 under irqlab-vmm's
 * --kvm-pv=on, 0x40000000 with --kvm-pv=on,base or under QEMU/KVM).
 * Steps:
 *   - the leaves and KVM_FEATURE_CLOCKSOURCE2 are there (else SKIPPED);
 *   - after the MSR write, KVM has filled the structure: an even version,
 *     a multiplier;
 *   - 1000 reads in a row never go back;
 *   - over a window of KVMCLOCK_WINDOW_US of the TSC, kvmclock advances by
 *     the same time the calibrated TSC rate gives, within 0.1% (both come
 *     from the one TSC: what is checked is KVM's scale, and that the
 *     guest reads it right).
 * Prints @kvmclock (docs/RECORDS.md); check_failed() on a broken step.
 */
#include <stdint.h>

#include "arch/cpu.h"
#include "arch/x86.h"
#include "hw/kvm_pv.h"
#include "kvmclock_check.h"
#include "lib/printf.h"
#include "sys/calib_hw.h"
#include "sys/panic.h"

#define KVMCLOCK_WINDOW_US	10000
#define KVMCLOCK_READS		1000
#define KVMCLOCK_MAX_PPM	1000

static struct kvm_pv_time pvti __attribute__((aligned(64)));

/* pvclock_clocksource_read(): retried while KVM updates it */
static uint64_t kvmclock_ns(uint64_t *tsc_out)
{
	uint32_t v;
	uint64_t tsc, delta, ns;

	do {
		v = __atomic_load_n(&pvti.version, __ATOMIC_ACQUIRE);
		tsc = rdtsc();
		delta = tsc - pvti.tsc_timestamp;
		if (pvti.tsc_shift < 0)
			delta >>= -pvti.tsc_shift;
		else
			delta <<= pvti.tsc_shift;
		ns = pvti.system_time + (uint64_t)(((unsigned __int128)delta *
						    pvti.tsc_to_system_mul) >> 32);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((v & 1) || v != __atomic_load_n(&pvti.version,
						 __ATOMIC_ACQUIRE));
	if (tsc_out)
		*tsc_out = tsc;
	return ns;
}

void kvmclock_check(void)
{
	uint32_t r[4], base = cpu_hv_base(KVM_PV_SIGNATURE);
	uint64_t khz = calib_tsc_khz(), t0, t1, c0, c1, prev, now, want, got;
	int64_t err_ppm;
	unsigned i, back = 0;

	if (base) {
		cpuid(base + 1, 0, r);
		if (!(r[0] & (1u << KVM_PV_FEATURE_CLOCKSOURCE2)))
			base = 0;
	}
	if (!base || !khz) {
		kprintf("kvmclock: SKIPPED: %s\n", !base ? "no KVM leaves with "
			"KVM_FEATURE_CLOCKSOURCE2" : "no TSC rate");
		kprintf("@kvmclock base=0x%x ok=skipped\n", base);
		return;
	}
	wrmsr(KVM_PV_MSR_SYSTEM_TIME_NEW, (uint64_t)(uintptr_t)&pvti | 1);
	if (!pvti.tsc_to_system_mul || (pvti.version & 1)) {
		wrmsr(KVM_PV_MSR_SYSTEM_TIME_NEW, 0);
		check_failed("kvmclock", "KVM left the time structure empty",
			     "reason=kvmclock-empty version=%u mul=%u",
			     pvti.version, pvti.tsc_to_system_mul);
		return;
	}
	prev = kvmclock_ns(0);
	for (i = 0; i < KVMCLOCK_READS; i++) {
		now = kvmclock_ns(0);
		back += now < prev;
		prev = now;
	}
	t0 = kvmclock_ns(&c0);
	do
		t1 = kvmclock_ns(&c1);
	while ((c1 - c0) * 1000 / khz < KVMCLOCK_WINDOW_US);
	got = t1 - t0;
	want = (c1 - c0) * 1000000 / khz;
	err_ppm = ((int64_t)got - (int64_t)want) * 1000000 / (int64_t)want;
	kprintf("kvmclock: leaves at 0x%x, %s TSC, %u reads none back: %s; "
		"%lu ns over %lu ns of the TSC: %ld ppm\n", base,
		pvti.flags & KVM_PV_CLOCK_TSC_STABLE ? "stable" : "unstable",
		KVMCLOCK_READS, back ? "FAILED" : "ok", got, want, err_ppm);
	kprintf("@kvmclock base=0x%x stable=%u version=%u mul=%u shift=%d "
		"reads=%u back=%u ns=%lu tsc_ns=%lu err_ppm=%ld ok=%u\n", base,
		pvti.flags & KVM_PV_CLOCK_TSC_STABLE, pvti.version,
		pvti.tsc_to_system_mul, pvti.tsc_shift, KVMCLOCK_READS, back,
		got, want, err_ppm, !back && err_ppm <= KVMCLOCK_MAX_PPM &&
		err_ppm >= -KVMCLOCK_MAX_PPM);
	wrmsr(KVM_PV_MSR_SYSTEM_TIME_NEW, 0);
	if (back)
		check_failed("kvmclock", "kvmclock went back",
			     "reason=kvmclock-back back=%u", back);
	else if (err_ppm > KVMCLOCK_MAX_PPM || err_ppm < -KVMCLOCK_MAX_PPM)
		check_failed("kvmclock", "kvmclock's rate is not the TSC's",
			     "reason=kvmclock-rate err_ppm=%ld", err_ppm);
}
