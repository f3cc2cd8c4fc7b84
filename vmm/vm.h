/* SPDX-License-Identifier: MIT */
/*
 * The machine's state: its configuration, the VM, its vCPUs and its
 * devices.  Types only: each .c file's functions are in its own header.
 * KVM calls live in vmm/kvm/ only; exit/exit.c and the device models see
 * a struct kvm_run and these structures, nothing else.
 */
#ifndef VMM_VM_H
#define VMM_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "apic/ioapic.h"
#include "boot/mem.h"
#include "dev/acpipm.h"
#include "dev/debugdev.h"
#include "dev/fw_cfg.h"
#include "dev/i8042.h"
#include "dev/pci.h"
#include "dev/pmtimer.h"
#include "dev/pvipi.h"
#include "dev/pvport.h"
#include "dev/rtc.h"
#include "dev/testdev.h"
#include "dev/uart.h"
#include "exit/bus.h"
#include "exit/stats.h"
#include "exit/timeline.h"
#include "irqchip/isa.h"
#include "irqchip/split.h"
#include "irqchip/user.h"
#include "kvm/cpuid.h"
#include "pc/pic.h"
#include "pc/hpet.h"
#include "pc/pit.h"

#define VMM_MAX_CPUS	64
#define VMM_MAX_MODULES	16

struct vmm_module {
	const char *path;
	const char *string;
};

enum irqchip_mode {
	IRQCHIP_USER,		/* interrupt controllers in irqlab (irqchip/) */
	IRQCHIP_KERNEL,		/* KVM_CREATE_IRQCHIP: LAPIC, IOAPIC, PIC in KVM */
	IRQCHIP_SPLIT,		/* KVM_CAP_SPLIT_IRQCHIP: LAPIC in KVM, ISA here */
};

/* --kvm-pv: no KVM leaf; KVM's signature and the PV features irqlab
 * offers; or the signature alone (features 0) */
enum kvm_pv_opt { KVMPV_OFF, KVMPV_ON, KVMPV_SIG };

struct vmm_config {
	unsigned cpus;
	uint64_t mem_mib;
	const char *kernel;
	const char *append;
	struct vmm_module mods[VMM_MAX_MODULES];
	unsigned nr_mods;
	const char *initrd;	/* --initrd: Linux's initial ramdisk */
	int protocol;		/* 0 auto, 1, 2 (multiboot), LOADER_PROTO_PVH */
	enum irqchip_mode irqchip;
	int x2apic;		/* CPUID x2APIC bit: -1 auto, 0 off, 1 on */
	bool hlt_in_guest;	/* KVM_X86_DISABLE_EXITS_HLT */
	unsigned halt_poll_us;	/* --halt-poll: spin before a HLT sleep */
	bool pv_ipi;		/* --pv-ipi: the doorbell, or KVM's hypercall */
	unsigned apic_mhz;	/* APIC timer input clock, --apic-mhz */
	unsigned trace;		/* TRACE_* */
	enum ioapic_policy ioapic_policy;	/* --ioapic */
	enum cpuid_freq cpuid_freq;		/* --cpuid-freq */
	enum cpuid_vendor cpu_vendor;		/* --cpu-vendor */
	bool pv_eoi;		/* --pv-eoi: irqlab's (user) or KVM's (kernel, split) */
	enum kvm_pv_opt kvm_pv;	/* --kvm-pv: KVM's PV leaves at 0x40000100 */
	bool kvm_pv_base;	/* --kvm-pv ...,base: at 0x40000000 instead */
	bool stats;
	const char *stats_json;
	const char *timeline;	/* --timeline FILE: docs/ANATOMY.md */
	unsigned timeout_s;	/* --timeout: 0 for none */
	bool no_seccomp;	/* --no-seccomp: no filter on the vCPUs */
	bool hpet;		/* --hpet=on: irqlab's HPET and its table */
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

/* irqlab's timer thread runs the PIT (user, split) or the HPET, or both */
static inline bool vm_timer_thread(const struct vmm_config *cfg)
{
	return irqchip_isa_in_vmm(cfg) || cfg->hpet;
}

enum vcpu_state {
	VCPU_PARKED,		/* not started, or in wait-for-SIPI (user irqchip) */
	VCPU_RUNNING,
	VCPU_HALTED,		/* guest HLT, sleeping in the VMM */
	VCPU_HALT_AWAKE,	/* still in HLT, awake to see what woke it */
	VCPU_DONE,
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
	struct tl_vcpu tl;	/* --timeline: this thread's stamps */
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
	pthread_mutex_t dev_lock;	/* COM1, RTC, i8042, PCI, PM1 (exit/machine.c) */
	struct uart com1;
	struct rtc rtc;
	struct i8042 i8042;
	struct pci_host pci;
	struct acpipm acpipm;	/* PM1a event and control: S5 power-off */
	/* an ISA IRQ line: irqchip/isa.c's, or KVM_IRQ_LINE (kernel irqchip) */
	void (*isa_line)(struct vm *vm, unsigned line, int level);
	/* kernel mode's HPET: legacy replacement stops KVM's 8254 (main.c:
	 * kvm_pit_hpet_legacy(); no KVM call in irqchip/isa.c) */
	void (*pit_hpet_legacy)(struct vm *vm, bool on);
	struct fw_cfg fw_cfg;
	struct debugdev debug;
	struct pvport pv;
	struct pmtimer pmtimer;
	struct testdev testdev;	/* pc-testdev IRQ lines at 0x2000 */

	unsigned phase;		/* enum irqlab_phase, relaxed atomic */
	uint32_t tl_next_id;	/* --timeline: the last IPI id given */
	struct tl_vcpu tl_pit;	/* --timeline: the PIT timer thread's */

	/* --irqchip=user (irqchip/user.c) */
	pthread_mutex_t apic_lock;	/* any LAPIC change, apic_route() */
	struct lapic *lapics[VMM_MAX_CPUS];
	bool user_msr;		/* KVM_CAP_X86_USER_SPACE_MSR + MSR filter */
	bool x2apic_ok;		/* x2APIC offered to the guest */
	bool tsc_deadline_ok;	/* TSC-deadline mode offered */
	uint32_t tsc_khz;	/* KVM_GET_TSC_KHZ */
	/* kvm/kvm.c: read the vCPU's TSC offset from KVM again, or NULL */
	void (*tsc_offset_sync)(struct vcpu *v);
	unsigned phys_bits;	/* MAXPHYADDR of the guest's CPUID */
	unsigned smi_warned;
	uint32_t rendezvous;	/* --ioapic=naive: vCPUs must stay out */
	uint64_t pv_ipi_status[PVIPI_NR_STATUS];	/* doorbell rings */

	/* --irqchip=user and split: the ISA side (irqchip/isa.c) */
	pthread_mutex_t isa_lock;	/* PIT, IOAPIC, PIC; before apic_lock */
	struct pit pit;
	int pit_tfd;			/* its host timer (a timerfd) */
	pthread_t pit_thread;		/* which waits on it (main.c) */
	bool pit_thread_stop;		/* under isa_lock: it is to end */
	struct ioapic ioapic;
	struct pic pic;			/* the 8259A pair, under isa_lock */
	uint32_t pic_intr;		/* its INTR output: atomic (irqchip/extint.c) */
	struct isa_dev isa_devs[12];
	struct hpet hpet;		/* --hpet=on, under isa_lock */
	uint64_t pit_deadline;		/* the timerfd serves both: their */
	uint64_t hpet_deadline;		/* deadlines, 0: none (isa_lock) */
	bool hpet_legacy;		/* LEG_RT_CNF: the PIT's IRQ0 cut */
	int pit_irq0;			/* the PIT's IRQ0 level meanwhile */
	struct split_state split;	/* --irqchip=split */
	unsigned nr_isa_devs;

	pthread_mutex_t lock;	/* vCPU states, stop */
	pthread_cond_t cond;
	bool stopping;
	int exit_status;
	pthread_t main_thread;
	uint64_t start_ns;
};

#endif
