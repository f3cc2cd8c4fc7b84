// SPDX-License-Identifier: MIT
/*
 * The board: which device answers at which port or address, and the few
 * machine-wide actions devices may take (print, power off, mark a phase).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hw/acpi.h"
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

/* --timeline: vCPU @cpu's guest ring (dev/pvport.c checked it) */
static void machine_tl_ring(void *ctx, int cpu, struct irqlab_tl_ring *ring,
			    uint32_t size)
{
	struct vm *vm = ctx;

	if (cpu >= 0 && (unsigned)cpu < vm->nr_vcpus) {
		vm->vcpus[cpu].tl.guest = ring;
		vm->vcpus[cpu].tl.guest_size = size;
	}
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

static uint64_t machine_wall_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* COM1's INTR is ISA IRQ 4 (the PC's wiring), through vm->isa_line */
static void machine_uart_irq(void *ctx, int level)
{
	struct vm *vm = ctx;

	if (vm->isa_line)
		vm->isa_line(vm, 4, level);
}

static void machine_i8042_irq(void *ctx, int level)
{
	struct vm *vm = ctx;

	if (vm->isa_line)
		vm->isa_line(vm, 1, level);
}

/*
 * A sleep state the DSDT does not offer (acpipm.h): no firmware can
 * resume the machine, so the run ends, saying what was asked for.
 */
static void machine_no_sleep(void *ctx, unsigned slp_typ)
{
	struct vm *vm = ctx;

	if (vm_poweroff(vm, EXIT_GUEST_SLEEP)) {
		fflush(stdout);
		warn("the guest asked for a sleep state this machine lacks: "
		     "SLP_TYP %u with SLP_EN in PM1a_CNT (port 0x%x); it offers "
		     "only S5, soft-off (the DSDT's \\_S5, SLP_TYP %u): the VM "
		     "ends (status %d)", slp_typ, ACPIPM_PORT + 4,
		     ACPI_SLP_TYP_S5, EXIT_GUEST_SLEEP);
	}
}

/* The 8042's reset line: there is no firmware to restart, so the VM ends */
static void machine_reset(void *ctx)
{
	struct vm *vm = ctx;

	if (vm_poweroff(vm, EXIT_GUEST_RESET)) {
		fflush(stdout);
		warn("the guest pulsed the reset line (i8042): the VM ends "
		     "(status %d)", EXIT_GUEST_RESET);
	}
}

/*
 * The legacy devices (COM1, RTC, i8042, PCI, ACPI PM1) are reached by any vCPU:
 * one lock, dev_lock, serialises them.  Their IRQ lines take isa_lock
 * (or KVM_IRQ_LINE) inside it; nothing takes dev_lock inside isa_lock.
 */
struct locked_dev {
	struct vm *vm;
	void *dev;
	uint64_t (*read)(void *dev, uint64_t off, unsigned size, int cpu);
	void (*write)(void *dev, uint64_t off, unsigned size, uint64_t val,
		      int cpu);
};

static uint64_t locked_read(void *opaque, uint64_t off, unsigned size,
			    int cpu)
{
	struct locked_dev *d = opaque;
	uint64_t v;

	pthread_mutex_lock(&d->vm->dev_lock);
	v = d->read(d->dev, off, size, cpu);
	pthread_mutex_unlock(&d->vm->dev_lock);
	return v;
}

static void locked_write(void *opaque, uint64_t off, unsigned size,
			 uint64_t val, int cpu)
{
	struct locked_dev *d = opaque;

	pthread_mutex_lock(&d->vm->dev_lock);
	d->write(d->dev, off, size, val, cpu);
	pthread_mutex_unlock(&d->vm->dev_lock);
}

static void machine_add_locked(struct vm *vm, const char *name,
			       uint64_t base, uint64_t len, void *dev,
			       uint64_t (*rd)(void *, uint64_t, unsigned, int),
			       void (*wr)(void *, uint64_t, unsigned, uint64_t,
					  int))
{
	static struct locked_dev devs[8];
	static unsigned n;
	struct locked_dev *d;

	if (n == ARRAY_SIZE(devs))
		die(EXIT_HOST, "machine: no room for %s", name);
	d = &devs[n++];
	*d = (struct locked_dev){ vm, dev, rd, wr };
	machine_add(&vm->pio, &(struct bus_dev){ name, base, len, d,
		locked_read, locked_write });
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

	pthread_mutex_init(&vm->dev_lock, NULL);
	uart_init(&vm->com1, machine_uart_tx, machine_uart_irq, vm);
	rtc_init(&vm->rtc, machine_wall_ns, vm);
	i8042_init(&vm->i8042, machine_reset, machine_i8042_irq, vm);
	pci_init(&vm->pci);
	acpipm_init(&vm->acpipm, machine_poweroff, vm);
	vm->acpipm.no_sleep = machine_no_sleep;
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
	if (vm->cfg->timeline)
		vm->pv.tl_ring = machine_tl_ring;

	machine_add_locked(vm, "com1", PORT_COM1, 8, &vm->com1, uart_bus_read,
			   uart_bus_write);
	machine_add_locked(vm, "rtc", RTC_PORT_INDEX, 2, &vm->rtc,
			   rtc_bus_read, rtc_bus_write);
	machine_add_locked(vm, "i8042-data", I8042_PORT_DATA, 1, &vm->i8042,
			   i8042_data_read, i8042_data_write);
	machine_add_locked(vm, "i8042-cmd", I8042_PORT_CMD, 1, &vm->i8042,
			   i8042_cmd_read, i8042_cmd_write);
	machine_add_locked(vm, "acpi-pm1", ACPIPM_PORT, ACPIPM_LEN,
			   &vm->acpipm, acpipm_bus_read, acpipm_bus_write);
	machine_add_locked(vm, "pci-conf", PCI_PORT_ADDR, PCI_PORT_LEN,
			   &vm->pci, pci_bus_read, pci_bus_write);
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
