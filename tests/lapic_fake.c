// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>
#include <string.h>

#include "apic/apic_bus.h"
#include "hw/apic.h"
#include "lapic_fake.h"

struct fake_machine fake;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return fake.now;
}

static uint64_t fake_tsc(void *ctx)
{
	(void)ctx;
	return fake.tsc;
}

static void fake_timer_arm(void *ctx, int cpu, uint64_t deadline_ns)
{
	(void)ctx;
	fake.armed[cpu] = deadline_ns;
	fake.arms[cpu]++;
}

static void fake_send_ipi(void *ctx, int cpu, const struct lapic_ipi *ipi)
{
	(void)ctx;
	if (fake.nipi < FAKE_LOG) {
		fake.ipi_src[fake.nipi] = cpu;
		fake.ipi[fake.nipi++] = *ipi;
	}
}

static void fake_eoi_level(void *ctx, int cpu, uint8_t vector)
{
	(void)ctx, (void)cpu;
	if (fake.neoi < FAKE_LOG)
		fake.eoi[fake.neoi++] = vector;
}

static void fake_trace(void *ctx, int cpu, const char *line)
{
	(void)ctx, (void)cpu;
	cr_assert(line[0], "trace lines are not empty");
	fake.ntrace++;
}

const struct lapic_ops fake_ops = {
	.now_ns = fake_now,
	.timer_arm = fake_timer_arm,
	.send_ipi = fake_send_ipi,
	.eoi_level = fake_eoi_level,
	.trace = fake_trace,
	.tsc = fake_tsc,
};

const struct lapic_ops fake_ops_notsc = {
	.now_ns = fake_now,
	.timer_arm = fake_timer_arm,
	.send_ipi = fake_send_ipi,
	.eoi_level = fake_eoi_level,
};

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.now = 1000000000ull;
	fake.tsc = 0x10000;
}

void fake_lapic(struct lapic *l, int cpu, uint32_t apic_id)
{
	lapic_init(l, cpu, apic_id, cpu == 0, 0, &fake_ops, NULL);
}

void fake_sw_enable(struct lapic *l)
{
	uint64_t v;

	if (lapic_x2apic(l)) {
		cr_assert_eq(lapic_msr_write(l, X2APIC_MSR(APIC_SVR), 0x1ff), 0);
		cr_assert_eq(lapic_msr_read(l, X2APIC_MSR(APIC_SVR), &v), 0);
		cr_assert_eq(v, 0x1ff);
	} else {
		cr_assert_eq(lapic_mmio_write(l, APIC_SVR, 4, 0x1ff), 0);
	}
	cr_assert(lapic_sw_enabled(l));
}

void fake_x2apic(struct lapic *l)
{
	cr_assert_eq(lapic_msr_write(l, MSR_IA32_APIC_BASE,
				     (lapic_base(l) & ~APIC_BASE_BSP) |
				     APIC_BASE_EXTD), 0);
	cr_assert(lapic_x2apic(l));
}

void fake_deliver(struct lapic *const *cpus, unsigned n, int src,
		  const struct lapic_ipi *ipi, uint64_t *mask)
{
	unsigned i;

	apic_route(cpus, n, src, ipi, mask);
	for (i = 0; i < n; i++)
		if (mask[i / 64] & (1ull << (i % 64)))
			lapic_accept(cpus[i], ipi->vector, ipi->level);
}
