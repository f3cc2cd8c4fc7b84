/* SPDX-License-Identifier: MIT */
/*
 * The machine: configuration, the VM, its vCPUs and its devices.
 * KVM calls live in kvm.c, kvm_irqchip.c and vcpu.c only; exit.c and the device models
 * see a struct kvm_run and these structures, nothing else.
 */
#ifndef VMM_VM_H
#define VMM_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "exit/bus.h"
#include "kvm/cpuid.h"
#include "dev/debugdev.h"
#include "dev/fw_cfg.h"
#include "apic/ioapic.h"
#include "irqchip/user.h"
#include "pc/pic.h"
#include "pc/pit.h"
#include "dev/pmtimer.h"
#include "boot/mem.h"
#include "dev/pvport.h"
#include "exit/stats.h"
#include "dev/testdev.h"
#include "dev/uart.h"

#define VMM_MAX_CPUS	64
#define VMM_MAX_MODULES	16

struct vmm_module {
	const char *path;
	const char *string;
};

enum irqchip_mode {
	IRQCHIP_USER,		/* interrupt controllers in irqlab (irq.c) */
	IRQCHIP_KERNEL,		/* KVM_CREATE_IRQCHIP: LAPIC, IOAPIC, PIC in KVM */
	IRQCHIP_SPLIT,		/* KVM_CAP_SPLIT_IRQCHIP: LAPIC in KVM, ISA here */
};

struct vm;

/*
 * --irqchip=split: what isa.c asks of KVM (kvm_irqchip.c fills it in), so that
 * isa.c, linked into the unit tests, makes no KVM call.  An MSI is the
 * address and data of Intel SDM vol. 3 10.11.1.
 */
struct split_msi {
	uint32_t addr;		/* 0: no route */
	uint32_t data;
};

struct split_ops {
	/* KVM_SIGNAL_MSI: the number of LAPICs that took it, -1 on error */
	int (*signal_msi)(struct vm *vm, const struct split_msi *m);
	/* KVM_SET_GSI_ROUTING: GSI i (< n) -> @r[i], when r[i].addr != 0 */
	int (*set_routes)(struct vm *vm, const struct split_msi *r, unsigned n);
};

/* --irqchip=split, under isa_lock (isa.c) */
struct split_state {
	const struct split_ops *ops;
	struct split_msi route[24];	/* per IOAPIC pin, as last committed */
	uint64_t rte[24];		/* the entries, as at the last check */
	uint64_t route_commits;		/* KVM_SET_GSI_ROUTING calls */
	uint64_t msis;			/* KVM_SIGNAL_MSI calls */
	uint64_t msi_errors;
	bool extint_warned;
};

struct vmm_config {
	unsigned cpus;
	uint64_t mem_mib;
	const char *kernel;
	const char *append;
	struct vmm_module mods[VMM_MAX_MODULES];
	unsigned nr_mods;
	int protocol;		/* multiboot: 0 auto, 1, 2 */
	enum irqchip_mode irqchip;
	int x2apic;		/* CPUID x2APIC bit: -1 auto, 0 off, 1 on */
	bool hlt_in_guest;	/* KVM_X86_DISABLE_EXITS_HLT */
	unsigned halt_poll_us;	/* --halt-poll: spin before a HLT sleep */
	unsigned apic_mhz;	/* APIC timer input clock, --apic-mhz */
	unsigned trace;		/* TRACE_* */
	enum ioapic_policy ioapic_policy;	/* --ioapic */
	enum cpuid_freq cpuid_freq;		/* --cpuid-freq */
	bool stats;
	const char *stats_json;
	unsigned timeout_s;	/* --timeout: 0 for none */
};

#define TRACE_LAPIC	(1u << 0)
#define TRACE_IOAPIC	(1u << 1)
#define TRACE_PIT	(1u << 2)
#define TRACE_PIC	(1u << 3)
#define TRACE_ISA	(TRACE_IOAPIC | TRACE_PIT | TRACE_PIC)

/* the ISA side (IOAPIC, PIT, PIC) is irqlab's: user and split */
static inline bool irqchip_isa_in_vmm(const struct vmm_config *cfg)
{
	return cfg->irqchip != IRQCHIP_KERNEL;
}

enum vcpu_state {
	VCPU_PARKED,		/* not started, or in wait-for-SIPI (user irqchip) */
	VCPU_RUNNING,
	VCPU_HALTED,		/* guest HLT, sleeping in the VMM */
	VCPU_DONE,
};

struct vm;

/* isa.c: an ISA device's bus callbacks, called under vm->isa_lock */
struct isa_dev {
	struct vm *vm;
	void *dev;
	uint64_t (*read)(void *dev, uint64_t off, unsigned size, int cpu);
	void (*write)(void *dev, uint64_t off, unsigned size, uint64_t val,
		      int cpu);
};

struct vcpu {
	int id;
	int fd;
	struct kvm_run *run;
	struct vm *vm;
	pthread_t thread;
	bool thread_started;
	enum vcpu_state state;	/* under vm->lock */
	struct vcpu_irq irq;	/* --irqchip=user: LAPIC, PIR, requests */
	struct vcpu_stats stats;
};

struct vm {
	const struct vmm_config *cfg;
	int kvm_fd;
	int vm_fd;
	size_t run_size;
	struct guest_mem mem;
	unsigned nr_vcpus;
	struct vcpu *vcpus;

	struct bus pio;
	struct bus mmio;
	struct uart com1;
	struct fw_cfg fw_cfg;
	struct debugdev debug;
	struct pvport pv;
	struct pmtimer pmtimer;
	struct testdev testdev;	/* pc-testdev IRQ lines at 0x2000 */

	unsigned phase;		/* enum irqlab_phase, relaxed atomic */

	/* --irqchip=user (irq.c) */
	pthread_mutex_t apic_lock;	/* any LAPIC change, apic_route() */
	struct lapic *lapics[VMM_MAX_CPUS];
	bool user_msr;		/* KVM_CAP_X86_USER_SPACE_MSR + MSR filter */
	bool x2apic_ok;		/* x2APIC offered to the guest */
	bool tsc_deadline_ok;	/* TSC-deadline mode offered */
	uint32_t tsc_khz;	/* KVM_GET_TSC_KHZ */
	/* kvm.c: read the vCPU's TSC offset from KVM again, or NULL */
	void (*tsc_offset_sync)(struct vcpu *v);
	unsigned phys_bits;	/* MAXPHYADDR of the guest's CPUID */
	unsigned smi_warned;
	uint32_t rendezvous;	/* --ioapic=naive: vCPUs must stay out */

	/* --irqchip=user: the ISA side (isa.c) */
	pthread_mutex_t isa_lock;	/* PIT, IOAPIC, PIC; before apic_lock */
	struct pit pit;
	timer_t pit_timer;
	struct ioapic ioapic;
	struct pic pic;			/* the 8259A pair, under isa_lock */
	uint32_t pic_intr;		/* its INTR output: atomic (irq_extint.c) */
	struct isa_dev isa_devs[8];
	struct split_state split;	/* --irqchip=split */
	unsigned nr_isa_devs;

	pthread_mutex_t lock;	/* vCPU states, stop */
	pthread_cond_t cond;
	bool stopping;
	int exit_status;
	pthread_t main_thread;
	uint64_t start_ns;
};

/* machine.c: devices and the bus map */
void machine_init(struct vm *vm);
void machine_add(struct bus *bus, const struct bus_dev *d);
/* stop the VM with @status; false if it was stopping already */
bool vm_poweroff(struct vm *vm, int status);
bool vm_stopping(struct vm *vm);
const char *machine_port_name(void *vm, uint16_t port);
void machine_mmio_name(void *vm, uint64_t addr, char *buf, size_t len);

/* isa.c: PIT and IOAPIC of --irqchip=user */
void isa_init(struct vm *vm);
void isa_eoi(struct vm *vm, uint8_t vector);
void isa_set_line(struct vm *vm, unsigned line, int level);
bool isa_timer_armed(struct vm *vm);
/* the IOAPIC counters of a snapshot, read under isa_lock (0s if none) */
void isa_ioapic_stats(struct vm *vm, struct ioapic_stats *st);

/* isa_trace.c: --trace=ioapic,pit,pic, around one access (under isa_lock) */
struct isa_trace_snap {
	uint32_t regsel;
	struct ioapic_stats stats;
	uint64_t commits;
	uint32_t tmr[IOAPIC_MAX_CPUS][8];
};
void isa_trace_line(struct vm *vm, const char *line);
void isa_trace_begin(struct vm *vm, const struct isa_dev *d, int cpu,
		     struct isa_trace_snap *s);
void isa_trace_end(struct vm *vm, const struct isa_dev *d,
		   const struct isa_trace_snap *s, uint64_t off, unsigned size,
		   uint64_t val, bool write);

/* exit.c: one exit, as KVM reported it in vcpu->run */
enum exit_action {
	EXIT_CONTINUE,
	EXIT_HALT,		/* sleep until woken, then continue */
	EXIT_FAIL_SHUTDOWN,
	EXIT_FAIL_INTERNAL,
	EXIT_FAIL_ENTRY,
	EXIT_FAIL_UNHANDLED,
};
enum exit_action exit_dispatch(struct vcpu *v);
bool exit_is_protocol_port(uint16_t port);

/* kvm.c */
void kvm_init(struct vm *vm);
void kvm_setup_memory(struct vm *vm);
void kvm_create_vcpus(struct vm *vm);
void kvm_set_boot_state(struct vcpu *v, uint32_t eip, uint32_t eax,
			uint32_t ebx, uint32_t gdt, uint16_t gdt_limit);
void kvm_dump_vcpu(struct vcpu *v, const char *why);
void kvm_set_sipi_state(struct vcpu *v, uint8_t vector);
void kvm_inject_irq(struct vcpu *v, int vector);
void kvm_inject_nmi(struct vcpu *v);
bool kvm_nmi_ahead(struct vcpu *v);	/* irq_nmi_ahead() of KVM's state */
void kvm_init_events(struct vcpu *v);	/* INIT: drop KVM's NMI, interrupt */
/* each vCPU's LAPIC state on stderr, the vCPU threads stopped (--timeout);
 * @was: each vCPU's state before they were stopped */
void kvm_dump_lapics(struct vm *vm, const enum vcpu_state *was);
void kvm_inject_extint(struct vcpu *v, int vector);	/* split */
void kvm_irq_line(struct vm *vm, unsigned gsi, int level);
void kvm_testdev_init(struct vm *vm);	/* --irqchip=kernel */
void kvm_sync_apic_base(struct vcpu *v);

/* vcpu.c.  The kick signal interrupts KVM_RUN and sets immediate_exit. */
#define VCPU_SIG_KICK	SIGUSR1
void vcpu_start(struct vcpu *v);	/* create the thread (parked or not) */
void vcpu_release(struct vcpu *v);	/* PARKED -> RUNNING */
void vcpu_kick(struct vcpu *v);
void vcpus_stop(struct vm *vm);		/* stop and join every thread */

#endif
