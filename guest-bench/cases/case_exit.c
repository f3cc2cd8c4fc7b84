// SPDX-License-Identifier: MIT
/*
 * exit_cost.*: one instruction that a hypervisor traps, n times, each
 * timed alone by the TSC (the RDTSC pair's own cost included):
 *   cpuid     CPUID leaf 0: always an exit under VMX and SVM
 *             (SDM vol. 3 25.1.2);
 *   pio       INB of port EXIT_PIO_PORT, which neither irqlab-vmm nor
 *             QEMU's PC claims: under irqlab-vmm a full round trip to
 *             the VMM's userspace (it reads all-ones);
 *   apic_read the TPR through lapic_read(): an MMIO read in xAPIC mode,
 *             an RDMSR in x2APIC mode (may be accelerated in-kernel);
 *   mmio      a 32-bit load from EXIT_MMIO_ADDR, in the 32-bit MMIO hole
 *             (never RAM: vmm/boot/mem.h MEM_HOLE_START) and claimed by no
 *             device of irqlab-vmm (vmm/exit/machine.c, vmm/irqchip/isa.c: the IOAPIC
 *             is at 0xfec00000) nor of KVM's in-kernel irqchip, nor of
 *             QEMU's PC: an EPT/NPT miss that KVM hands to userspace as
 *             KVM_EXIT_MMIO, where bus_read() answers all-ones.
 * (exit_cost.hlt is in case_ipi.c, beside the self IPI it uses.)
 */
#include <stdint.h>

#include "bench.h"
#include "hw/apic.h"
#include "dev/lapic.h"
#include "arch/x86.h"

/* Unclaimed in irqlab-vmm (vmm/exit/machine.c's bus) and in QEMU's PC. */
#define EXIT_PIO_PORT	0x0ee0
/* Unclaimed too; entry.S maps it uncached ([3 GiB, 4 GiB) is UC). */
#define EXIT_MMIO_ADDR	0xfeb00000ul

enum exit_kind { EXIT_CPUID, EXIT_PIO, EXIT_APIC, EXIT_MMIO };

static void exit_once(enum exit_kind k)
{
	uint32_t r[4];

	switch (k) {
	case EXIT_CPUID:
		cpuid(0, 0, r);
		break;
	case EXIT_PIO:
		(void)inb(EXIT_PIO_PORT);
		break;
	case EXIT_APIC:
		(void)lapic_read(APIC_TPR);
		break;
	case EXIT_MMIO:
		(void)*(volatile uint32_t *)EXIT_MMIO_ADDR;
		break;
	}
}

static void exit_cost(const char *name, enum exit_kind k)
{
	uint64_t *s = bench_buf(0), t0;
	unsigned i, n = bench_iters();
	struct bench_exits e;

	if (k == EXIT_APIC && lapic_mode() == LAPIC_NONE) {
		bench_skip(name, "no-apic");
		return;
	}
	/* the counters are the whole VM's: the other CPUs' HLTs go first */
	bench_settle_aps();
	bench_exits_begin(&e);
	for (i = 0; i < n; i++) {
		t0 = rdtsc();
		exit_once(k);
		s[i] = rdtsc() - t0;
	}
	bench_exits_end(&e);
	bench_report(name, s, n, &e, 1);
}

void case_exit_cpuid(void)
{
	exit_cost("exit_cost.cpuid", EXIT_CPUID);
}

void case_exit_pio(void)
{
	exit_cost("exit_cost.pio", EXIT_PIO);
}

void case_exit_apic_read(void)
{
	exit_cost("exit_cost.apic_read", EXIT_APIC);
}

void case_exit_mmio(void)
{
	exit_cost("exit_cost.mmio", EXIT_MMIO);
}
