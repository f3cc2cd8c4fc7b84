// SPDX-License-Identifier: MIT
/*
 * The board: which device answers at which port or address, and the few
 * machine-wide actions devices may take (print, power off, mark a phase).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "hw/irqlab.h"
#include "hw/ports.h"
#include "irqchip/isa.h"
#include "machine.h"
#include "util.h"
#include "vm.h"

/* All guest output (UART, debugcon, paravirtual console) goes to stdout. */
static void machine_out(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	fwrite(buf, 1, len, stdout);
}

static void machine_uart_tx(void *ctx, uint8_t byte)
{
	(void)ctx;
	putchar(byte);
}

static void machine_poweroff(void *ctx, int status)
{
	vm_poweroff(ctx, status);
}

static void machine_set_phase(void *ctx, unsigned phase)
{
	struct vm *vm = ctx;

	__atomic_store_n(&vm->phase, phase, __ATOMIC_RELAXED);
}

static void machine_snapshot(void *ctx, struct irqlab_snapshot *snap)
{
	struct vm *vm = ctx;
	struct vcpu_stats *v[VMM_MAX_CPUS];
	struct ioapic_stats io;
	unsigned i;

	for (i = 0; i < vm->nr_vcpus; i++)
		v[i] = &vm->vcpus[i].stats;
	stats_snapshot(v, vm->nr_vcpus, snap,
		       __atomic_load_n(&vm->phase, __ATOMIC_RELAXED));
	/* the IOAPIC's, one consistent set (isa_lock) */
	isa_ioapic_stats(vm, &io);
	snap->counter[IRQLAB_CNT_RTE_WRITES] = io.rte_writes;
	snap->counter[IRQLAB_CNT_TMR_UPDATES] = io.tmr_updates;
	snap->counter[IRQLAB_CNT_REMOTE_TMR_UPDATES] = io.remote_tmr_updates;
}

static void machine_pv_ipi(void *ctx, int cpu, uint64_t gpa)
{
	struct vm *vm = ctx;

	if (cpu >= 0 && (unsigned)cpu < vm->nr_vcpus)
		irq_pv_ipi(&vm->vcpus[cpu], gpa);
}

/* --pv-eoi=on with --irqchip=user: vCPU @cpu's flag word (irqchip/user.c) */
static int machine_pv_eoi(void *ctx, int cpu, uint32_t *word)
{
	struct vm *vm = ctx;

	if (!vm->cfg->pv_eoi || vm->cfg->irqchip != IRQCHIP_USER ||
	    cpu < 0 || (unsigned)cpu >= vm->nr_vcpus)
		return -1;
	irq_pveoi_register(&vm->vcpus[cpu], word);
	return 0;
}

static uint64_t machine_now(void *ctx)
{
	(void)ctx;
	return now_ns();
}

static uint64_t uart_bus_read(void *opaque, uint64_t off, unsigned size,
			      int cpu)
{
	(void)size, (void)cpu;
	return uart_read(opaque, off);
}

static void uart_bus_write(void *opaque, uint64_t off, unsigned size,
			   uint64_t val, int cpu)
{
	(void)size, (void)cpu;
	uart_write(opaque, off, val);
}

void machine_add(struct bus *bus, const struct bus_dev *d)
{
	if (bus_register(bus, d))
		die(EXIT_HOST, "%s: cannot register %s at 0x%llx", bus->name,
		    d->name, (unsigned long long)d->base);
}

void machine_init(struct vm *vm)
{
	bus_init(&vm->pio, "pio");
	bus_init(&vm->mmio, "mmio");

	uart_init(&vm->com1, machine_uart_tx, NULL, vm);
	fw_cfg_init(&vm->fw_cfg, vm->nr_vcpus);
	vm->debug = (struct debugdev){ machine_out, machine_poweroff, vm };
	vm->pv = (struct pvport){
		.mem = &vm->mem, .out = machine_out,
		.poweroff = machine_poweroff, .set_phase = machine_set_phase,
		.snapshot = machine_snapshot, .pv_eoi = machine_pv_eoi,
		.ctx = vm,
	};
	/* the doorbell is --irqchip=user's: with KVM's LAPIC, its hypercall */
	if (vm->cfg->pv_ipi && vm->cfg->irqchip == IRQCHIP_USER)
		vm->pv.pv_ipi = machine_pv_ipi;

	machine_add(&vm->pio, &(struct bus_dev){ "com1", PORT_COM1, 8,
		&vm->com1, uart_bus_read, uart_bus_write });
	machine_add(&vm->pio, &(struct bus_dev){ "debugcon", PORT_DEBUGCON, 1,
		&vm->debug, debugcon_read, debugcon_write });
	machine_add(&vm->pio, &(struct bus_dev){ "debug-exit", PORT_DEBUG_EXIT,
		4, &vm->debug, NULL, debug_exit_write });
	machine_add(&vm->pio, &(struct bus_dev){ "fw_cfg", PORT_FW_CFG_SEL, 2,
		&vm->fw_cfg, fw_cfg_read, fw_cfg_write });
	machine_add(&vm->pio, &(struct bus_dev){ "irqlab", IRQLAB_PORT_BASE,
		IRQLAB_PORT_LEN, &vm->pv, pvport_read, pvport_write });
	/* the FADT's PM_TMR_BLK (docs/ACPI.md) */
	pmtimer_init(&vm->pmtimer, machine_now, vm);
	machine_add(&vm->pio, &(struct bus_dev){ "pm_tmr", 0x608, 4,
		&vm->pmtimer, pmtimer_bus_read, pmtimer_bus_write });
}

const char *machine_port_name(void *ctx, uint16_t port)
{
	struct vm *vm = ctx;
	const struct bus_dev *d = bus_find(&vm->pio, port, NULL);

	return d ? d->name : NULL;
}

void machine_mmio_name(void *ctx, uint64_t addr, char *buf, size_t len)
{
	struct vm *vm = ctx;
	const struct bus_dev *d = bus_find(&vm->mmio, addr, NULL);

	if ((addr & ~0xfffull) == 0xfee00000ull)
		snprintf(buf, len, "lapic+0x%llx",
			 (unsigned long long)(addr & 0xfff));
	else if (d)
		snprintf(buf, len, "%s+0x%llx", d->name,
			 (unsigned long long)(addr - d->base));
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

bool vm_stopping(struct vm *vm)
{
	return __atomic_load_n(&vm->stopping, __ATOMIC_ACQUIRE);
}

/*
 * Any vCPU may end the VM.  The first status wins; the main thread, which
 * waits in sigwait(), is woken with SIGUSR2 and tears everything down.
 */
bool vm_poweroff(struct vm *vm, int status)
{
	bool first;

	pthread_mutex_lock(&vm->lock);
	first = !vm->stopping;
	if (first) {
		vm->exit_status = status;
		__atomic_store_n(&vm->stopping, true, __ATOMIC_RELEASE);
	}
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	if (first)
		pthread_kill(vm->main_thread, SIGUSR2);
	return first;
}
