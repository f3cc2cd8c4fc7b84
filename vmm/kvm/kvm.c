// SPDX-License-Identifier: MIT
/*
 * The KVM side of the machine: /dev/kvm, the VM, guest RAM slots, vCPUs
 * and their CPUID.  regs.c sets and dumps the vCPUs' registers (the entry
 * states); irqchip.c has the interrupt side (injection, KVM's irqchip
 * lines and routes, the split irqchip).
 * Documentation/virt/kvm/api.rst is the reference for every ioctl here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include "boot/loader.h"
#include "cpuid_kvm.h"
#include "hw/irqlab.h"
#include "hw/kvm_pv.h"
#include "irqchip.h"
#include "kvm.h"
#include "util.h"
#include "vm.h"

/* Addresses KVM needs on Intel for real-mode emulation (api.rst). */
#define KVM_TSS_ADDR		0xfffbd000u
#define KVM_IDENTITY_ADDR	0xfffbc000u

#define CPUID_MAX_ENTRIES	256
#define MSR_IA32_TSC		0x10
#define MSR_IA32_APIC_BASE_NR	0x1b
#define MSR_IA32_TSC_DEADLINE_NR 0x6e0

int kvm_vm_ioctl(struct vm *vm, unsigned long req, void *arg)
{
	return ioctl(vm->vm_fd, req, arg);
}

int kvm_check(struct vm *vm, long cap)
{
	int r = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, cap);

	return r < 0 ? 0 : r;
}

#ifndef KVM_CAP_X86_APIC_BUS_CYCLES_NS
#define KVM_CAP_X86_APIC_BUS_CYCLES_NS 232	/* Linux 6.11 */
#endif

/*
 * KVM's in-kernel APIC runs its timer at 1 GHz unless the APIC bus cycle
 * is set (KVM_CAP_X86_APIC_BUS_CYCLES_NS, whole ns): so --apic-mhz must
 * divide 1000 there, and this KVM must have the capability.
 */
static void kvm_set_apic_bus(struct vm *vm, unsigned mhz)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_APIC_BUS_CYCLES_NS,
		.args[0] = 1000 / mhz,
	};

	if (1000 % mhz)
		die(EXIT_USAGE, "--apic-mhz %u with KVM's LAPIC: KVM takes "
		    "a whole number of ns per APIC bus cycle (1000 / MHz)", mhz);
	if (!kvm_check(vm, KVM_CAP_X86_APIC_BUS_CYCLES_NS) ||
	    kvm_vm_ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
		die(EXIT_HOST, "--apic-mhz %u with KVM's LAPIC: this KVM "
		    "has no KVM_CAP_X86_APIC_BUS_CYCLES_NS; its APIC runs at "
		    "1000 MHz", mhz);
}

/* What must be set before the first vCPU exists (api.rst, KVM_ENABLE_CAP). */
static void kvm_enable_vm_caps(struct vm *vm)
{
	const struct vmm_config *cfg = vm->cfg;

	if (cfg->hlt_in_guest) {
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_X86_DISABLE_EXITS,
			.args[0] = KVM_X86_DISABLE_EXITS_HLT,
		};

		if (!(kvm_check(vm, KVM_CAP_X86_DISABLE_EXITS) &
		      KVM_X86_DISABLE_EXITS_HLT))
			die(EXIT_HOST, "--hlt=guest: this KVM cannot disable "
			    "HLT exits (KVM_CAP_X86_DISABLE_EXITS)");
		if (kvm_vm_ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
			die(EXIT_HOST, "KVM_ENABLE_CAP(DISABLE_EXITS_HLT): %s",
			    strerror(errno));
	}
	if (cfg->irqchip != IRQCHIP_USER && cfg->apic_mhz != 1000)
		kvm_set_apic_bus(vm, cfg->apic_mhz);
	if (cfg->irqchip == IRQCHIP_SPLIT)
		kvm_enable_split(vm);
	if (cfg->irqchip == IRQCHIP_KERNEL) {
		if (!kvm_check(vm, KVM_CAP_IRQCHIP))
			die(EXIT_HOST, "--irqchip=kernel: no KVM_CAP_IRQCHIP");
		if (kvm_vm_ioctl(vm, KVM_CREATE_IRQCHIP, NULL) < 0)
			die(EXIT_HOST, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
		kvm_pc_routing(vm);
		/* KVM's 8254 beside its IOAPIC, so the guest sees one board */
		struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };

		if (kvm_vm_ioctl(vm, KVM_CREATE_PIT2, &pit) < 0)
			die(EXIT_HOST, "KVM_CREATE_PIT2: %s", strerror(errno));
	}
}

/*
 * --irqchip=user and the MSRs of the LAPIC (Documentation/virt/kvm/api.rst,
 * KVM_CAP_X86_USER_SPACE_MSR and KVM_X86_SET_MSR_FILTER).  With no LAPIC
 * in KVM, an x2APIC MSR (0x800-0x8ff) is one KVM does not handle, so with
 * KVM_MSR_EXIT_REASON_INVAL it exits to userspace instead of raising #GP.
 * api.rst does not say so for the x2APIC range: it is probed, not assumed.
 * IA32_APIC_BASE and IA32_TSC_DEADLINE are MSRs KVM does handle, so a
 * filter that denies them turns their accesses into FILTER exits.
 */
static void kvm_setup_user_msr(struct vm *vm)
{
	static uint8_t deny;	/* one MSR per range, its bit clear: deny */
	struct kvm_msr_filter f = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges = {
			{ KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE, 1,
			  MSR_IA32_APIC_BASE_NR, &deny },
			{ KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE, 1,
			  MSR_IA32_TSC_DEADLINE_NR, &deny },
		},
	};
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_INVAL | KVM_MSR_EXIT_REASON_FILTER,
	};
	const char *fail = NULL;

	/* CHECK_EXTENSION says 1, not the reasons: ENABLE_CAP checks those */
	if (!kvm_check(vm, KVM_CAP_X86_USER_SPACE_MSR))
		fail = "no KVM_CAP_X86_USER_SPACE_MSR";
	else if (!kvm_check(vm, KVM_CAP_X86_MSR_FILTER))
		fail = "no KVM_CAP_X86_MSR_FILTER";
	else if (kvm_vm_ioctl(vm, KVM_ENABLE_CAP, &cap) < 0)
		fail = "KVM_ENABLE_CAP(USER_SPACE_MSR, INVAL | FILTER) failed";
	else if (kvm_vm_ioctl(vm, KVM_X86_SET_MSR_FILTER, &f) < 0)
		fail = "KVM_X86_SET_MSR_FILTER failed";
	if (fail) {
		warn("%s: the LAPIC MSRs cannot reach irqlab, so x2APIC and "
		     "TSC-deadline stay hidden and IA32_APIC_BASE is KVM's", fail);
		return;
	}
	vm->user_msr = true;
}

/* A /proc/cpuinfo flags line names the flag (vmx or svm), as a word. */
static bool cpu_has_flag(const char *flag)
{
	char line[4096], *p;
	size_t n = strlen(flag);
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (p = strstr(line, flag); p && !found; p = strstr(p + 1, flag))
			found = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n');
		break;
	}
	fclose(f);
	return found;
}

/*
 * Why there is no /dev/kvm, as far as userspace can tell: a kernel with
 * KVM in it (loaded or built in) that made no device, or a CPU with
 * neither VT-x nor AMD-V (a VM without nested virtualization), or no
 * module loaded.  Only the first two can be told apart from here; dmesg
 * has the kernel's own reason.
 */
static const char *kvm_absent_why(void)
{
	bool hw = cpu_has_flag("vmx") || cpu_has_flag("svm");

	if (!access("/sys/module/kvm", F_OK))
		return hw ? "the kernel has KVM but made no /dev/kvm (dmesg "
			    "says why)" :
			    "the kernel has KVM but made no /dev/kvm (dmesg "
			    "says why), and the CPU shows neither vmx nor svm";
	if (!hw)
		return "the CPU shows neither vmx nor svm (a VM without nested "
		       "virtualization?)";
	return "the kvm module is not loaded (modprobe kvm_intel or kvm_amd)";
}

void kvm_init(struct vm *vm)
{
	int ver;

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			die(EXIT_HOST, "/dev/kvm: %s: KVM is not available on "
			    "this host: %s; make run-nested runs irqlab-vmm on "
			    "KVM inside QEMU TCG", strerror(errno),
			    kvm_absent_why());
		die(EXIT_HOST, "/dev/kvm: %s", strerror(errno));
	}
	ver = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
	if (ver != KVM_API_VERSION)
		die(EXIT_HOST, "KVM API version %d, expected %d", ver,
		    KVM_API_VERSION);
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		die(EXIT_HOST, "KVM_CREATE_VM: %s", strerror(errno));
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, KVM_TSS_ADDR) < 0)
		die(EXIT_HOST, "KVM_SET_TSS_ADDR: %s", strerror(errno));
	{
		uint64_t id = KVM_IDENTITY_ADDR;

		if (kvm_vm_ioctl(vm, KVM_SET_IDENTITY_MAP_ADDR, &id) < 0)
			die(EXIT_HOST, "KVM_SET_IDENTITY_MAP_ADDR: %s",
			    strerror(errno));
	}
	kvm_enable_vm_caps(vm);
	if (vm->cfg->irqchip == IRQCHIP_USER)
		kvm_setup_user_msr(vm);
	vm->run_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if ((long)vm->run_size <= 0)
		die(EXIT_HOST, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
}

/* Slot 0: RAM below the 32-bit hole; slot 1: the rest, from 4 GiB. */
void kvm_setup_memory(struct vm *vm)
{
	struct kvm_userspace_memory_region r = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = vm->mem.low_size,
		.userspace_addr = (uintptr_t)vm->mem.host,
	};

	if (kvm_vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die(EXIT_HOST, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	if (!mem_high_size(&vm->mem))
		return;
	r.slot = 1;
	r.guest_phys_addr = MEM_HIGH_START;
	r.memory_size = mem_high_size(&vm->mem);
	r.userspace_addr = (uintptr_t)vm->mem.host + vm->mem.low_size;
	if (kvm_vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die(EXIT_HOST, "KVM_SET_USER_MEMORY_REGION (high): %s",
		    strerror(errno));
}

static struct kvm_cpuid2 *kvm_supported_cpuid(struct vm *vm)
{
	struct kvm_cpuid2 *c;

	c = calloc(1, sizeof(*c) + CPUID_MAX_ENTRIES * sizeof(c->entries[0]));
	if (!c)
		die(EXIT_HOST, "out of memory");
	c->nent = CPUID_MAX_ENTRIES;
	if (ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, c) < 0)
		die(EXIT_HOST, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
	return c;
}

#define CPUID1_ECX_X2APIC	(1u << 21)
#define CPUID1_ECX_TSC_DEADLINE	(1u << 24)
#define CPUID1_ECX_HYPERVISOR	(1u << 31)
#define CPUID1_EDX_APIC		(1u << 9)

/*
 * The CPUID features that depend on the interrupt controller.  With
 * --irqchip=kernel or split, KVM's LAPIC is there: APIC and x2APIC
 * (unless --no-x2apic) stay as KVM reports them, and TSC-deadline is set
 * when KVM emulates it (KVM_CAP_TSC_DEADLINE_TIMER).  With
 * --irqchip=user, irqlab's LAPIC is there: APIC always, x2APIC and
 * TSC-deadline when KVM lets their MSRs reach irqlab (vm->x2apic_ok,
 * vm->tsc_deadline_ok).  KVM lists TSC-deadline as emulated, not
 * supported, so irqlab sets that bit itself.
 */
static void kvm_cpuid_apic_bits(const struct vm *vm, struct kvm_cpuid_entry2 *e)
{
	if (vm->cfg->irqchip == IRQCHIP_USER) {
		e->edx |= CPUID1_EDX_APIC;
		e->ecx &= ~(CPUID1_ECX_X2APIC | CPUID1_ECX_TSC_DEADLINE);
		if (vm->x2apic_ok)
			e->ecx |= CPUID1_ECX_X2APIC;
		if (vm->tsc_deadline_ok)
			e->ecx |= CPUID1_ECX_TSC_DEADLINE;
	} else {
		if (vm->cfg->x2apic == 0)
			e->ecx &= ~CPUID1_ECX_X2APIC;
		if (vm->tsc_deadline_ok)
			e->ecx |= CPUID1_ECX_TSC_DEADLINE;
	}
}

/*
 * Per-vCPU CPUID.  ECX[31] says a hypervisor is present (KVM's supported
 * list leaves it clear), so the guest reads the 0x40000000 leaves.  The
 * APIC ID fields name the vCPU (SDM vol. 2A, CPUID leaf 01H EBX[31:24],
 * leaf 0BH EDX).
 */
static void kvm_set_cpuid(struct vcpu *v, const struct kvm_cpuid2 *base)
{
	size_t sz = sizeof(*base) + base->nent * sizeof(base->entries[0]);
	struct kvm_cpuid2 *c = malloc(sz);
	unsigned i;

	if (!c)
		die(EXIT_HOST, "out of memory");
	memcpy(c, base, sz);
	for (i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function == 1) {
			e->ebx = (e->ebx & 0x00ffffff) | ((uint32_t)v->id << 24);
			e->ecx |= CPUID1_ECX_HYPERVISOR;
			kvm_cpuid_apic_bits(v->vm, e);
		} else if (e->function == 0xb || e->function == 0x1f) {
			e->edx = v->id;
		}
	}
	if (ioctl(v->fd, KVM_SET_CPUID2, c) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_CPUID2: %s", v->id,
		    strerror(errno));
	free(c);
}

/* Say once what an x2APIC request will get, and decide it for user mode. */
static void kvm_check_x2apic(struct vm *vm, const struct kvm_cpuid2 *c)
{
	unsigned i;

	if (vm->cfg->irqchip == IRQCHIP_USER) {
		vm->x2apic_ok = vm->user_msr && vm->cfg->x2apic != 0;
		if (vm->cfg->x2apic == 1 && !vm->user_msr)
			warn("--x2apic: this KVM cannot forward the x2APIC MSRs "
			     "to irqlab; the x2APIC bit stays hidden");
		return;
	}
	if (vm->cfg->x2apic != 1)
		return;
	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == 1 &&
		    !(c->entries[i].ecx & CPUID1_ECX_X2APIC))
			warn("--x2apic: this KVM does not offer x2APIC");
}

/*
 * The guest TSC of --irqchip=user's TSC-deadline mode: KVM's TSC offset
 * (KVM_VCPU_TSC_OFFSET, Linux 5.16), else one sample of IA32_TSC taken
 * against the host TSC, good to the ioctl's duration.
 */
static void kvm_tsc_offset(struct vcpu *v)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = MSR_IA32_TSC };
	uint64_t off;
	struct kvm_device_attr a = {
		.group = KVM_VCPU_TSC_CTRL, .attr = KVM_VCPU_TSC_OFFSET,
		.addr = (uintptr_t)&off,
	};
	uint64_t t0, t1;

	if (!ioctl(v->fd, KVM_HAS_DEVICE_ATTR, &a) &&
	    !ioctl(v->fd, KVM_GET_DEVICE_ATTR, &a)) {
		v->irq.tsc_offset = (int64_t)off;
		v->irq.tsc_known = true;
		v->vm->tsc_offset_sync = kvm_tsc_offset;	/* cheap: again */
		return;
	}
	t0 = __rdtsc();
	if (ioctl(v->fd, KVM_GET_MSRS, &m) != 1)
		return;
	t1 = __rdtsc();
	v->irq.tsc_offset = (int64_t)(m.e.data - (t0 + (t1 - t0) / 2));
	v->irq.tsc_known = true;
}

/*
 * --timeline: the offset as it stands when the run ends.  KVM may have
 * moved it since the vCPU was made (its TSC synchronisation at the first
 * entries), and the guest's stamps are on the TSC the guest saw.
 */
void kvm_tsc_offset_now(struct vcpu *v)
{
	kvm_tsc_offset(v);
}

/* TSC-deadline mode for --irqchip=user needs its MSR, the rate and the
 * guest TSC; KVM must not scale the TSC (irqlab never asks it to).
 * KVM's own LAPIC has it whenever KVM_CAP_TSC_DEADLINE_TIMER says so,
 * whatever the host CPU (KVM runs it on an hrtimer; QEMU offers it the
 * same way). */
static void kvm_check_tsc(struct vm *vm)
{
	int khz = ioctl(vm->vcpus[0].fd, KVM_GET_TSC_KHZ, 0);

	vm->tsc_khz = khz > 0 ? khz : 0;
	if (vm->cfg->irqchip != IRQCHIP_USER) {
		vm->tsc_deadline_ok = kvm_check(vm, KVM_CAP_TSC_DEADLINE_TIMER);
		return;
	}
	kvm_tsc_offset(&vm->vcpus[0]);
	vm->tsc_deadline_ok = vm->user_msr && vm->tsc_khz &&
			      vm->vcpus[0].irq.tsc_known;
}

static void kvm_create_vcpu(struct vm *vm, unsigned i)
{
	struct vcpu *v = &vm->vcpus[i];

	v->id = i;
	v->vm = vm;
	v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, i);
	if (v->fd < 0)
		die(EXIT_HOST, "KVM_CREATE_VCPU %u: %s", i, strerror(errno));
	v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_HOST, "vcpu%u: mmap kvm_run: %s", i, strerror(errno));
}

/*
 * kvm_pvm (KVM on PVM) runs a guest that is not a PVM guest largely in
 * KVM's instruction emulator, whose VMCALL/VMMCALL only patches the
 * instruction to the host's own and runs it again (emulator_fix_hypercall
 * in arch/x86/kvm/x86.c): the guest stays on it for good (seen: RIP stuck
 * on a VMCALL, kvm:kvm_emulate_insn firing on it without end).  The
 * module files say which KVM /dev/kvm is.
 */
static bool kvm_hypercalls_loop(void)
{
	return !access("/sys/module/kvm_pvm", F_OK) &&
	       access("/sys/module/kvm_intel", F_OK) &&
	       access("/sys/module/kvm_amd", F_OK);
}

/*
 * The PV leaves (cpuid.h): --pv-eoi and --pv-ipi are irqlab's bits with
 * its LAPIC; with KVM's, KVM_FEATURE_PV_EOI, and KVM_FEATURE_PV_SEND_IPI
 * if this KVM has it and its hypercalls work.
 */
static void kvm_cpuid_pv(struct vm *vm, struct kvm_cpuid2 *c, uint32_t kvm_has)
{
	uint32_t irqlab = 0, kvm = 0;

	if (vm->cfg->pv_ipi && vm->cfg->irqchip == IRQCHIP_USER)
		irqlab |= IRQLAB_FEATURE_PV_IPI;
	if (vm->cfg->pv_eoi && vm->cfg->irqchip == IRQCHIP_USER)
		irqlab |= IRQLAB_FEATURE_PV_EOI;
	if (vm->cfg->timeline)
		irqlab |= IRQLAB_FEATURE_TIMELINE;
	if (vm->cfg->kvm_pv == KVMPV_ON) {
		kvm |= cpuid_kvm_pv_features(kvm_has,
					     vm->cfg->irqchip != IRQCHIP_USER);
		if (!kvm)
			warn("--kvm-pv=on: this KVM offers none of the PV "
			     "features irqlab would advertise");
	}
	if (vm->cfg->pv_eoi && vm->cfg->irqchip != IRQCHIP_USER)
		kvm |= KVM_PV_PV_EOI;
	if (vm->cfg->pv_ipi && vm->cfg->irqchip != IRQCHIP_USER) {
		if (kvm_has & KVM_PV_PV_SEND_IPI)
			kvm |= KVM_PV_PV_SEND_IPI;
		else
			warn("--pv-ipi: this KVM does not offer "
			     "KVM_FEATURE_PV_SEND_IPI; not advertised");
	}
	/* send-IPI, unhalt (KVM_HC_KICK_CPU) and sched-yield are hypercalls */
	if ((kvm & KVM_PV_HYPERCALLS) && kvm_hypercalls_loop()) {
		warn("/dev/kvm is kvm_pvm, whose emulator never completes a "
		     "guest hypercall: KVM_FEATURE_PV_SEND_IPI not advertised "
		     "(nor PV_UNHALT, PV_SCHED_YIELD)");
		kvm &= ~KVM_PV_HYPERCALLS;
	}
	if (cpuid_set_pv(c, CPUID_MAX_ENTRIES, irqlab, kvm,
			 vm->cfg->kvm_pv == KVMPV_SIG))
		die(EXIT_HOST, "CPUID: no room for the PV leaves");
	if (vm->cfg->kvm_pv_base && vm->cfg->kvm_pv != KVMPV_OFF &&
	    cpuid_kvm_first(c, CPUID_MAX_ENTRIES))
		die(EXIT_HOST, "CPUID: no room for the PV leaves");
}

/*
 * --cpu-vendor: only the string changes.  The guest still runs on the
 * host's CPU, so where the two vendors differ (SYSENTER in 64-bit mode,
 * VMCALL against VMMCALL) it is KVM that emulates or faults: say so.
 */
static void kvm_cpuid_vendor(struct vm *vm, struct kvm_cpuid2 *c)
{
	char host[13], guest[13];

	cpuid_vendor_string(c, host);
	if (cpuid_set_vendor(c, vm->cfg->cpu_vendor))
		die(EXIT_HOST, "CPUID: KVM lists no leaf 0");
	cpuid_vendor_string(c, guest);
	if (strcmp(host, guest))
		warn("--cpu-vendor: the guest sees %s on this %s CPU; family, "
		     "model and features stay the host's", guest, host);
}

void kvm_create_vcpus(struct vm *vm)
{
	struct kvm_cpuid2 *cpuid = kvm_supported_cpuid(vm);
	uint32_t kvm_has = cpuid_kvm_features(cpuid);
	unsigned i;

	kvm_check_x2apic(vm, cpuid);
	/* the guest's MAXPHYADDR bounds IA32_APIC_BASE (SDM 11.4.4), as it
	 * bounds KVM's own copy, which kvm_sync_apic_base() writes */
	vm->phys_bits = cpuid_maxphyaddr(cpuid);
	for (i = 0; i < vm->nr_vcpus; i++)
		kvm_create_vcpu(vm, i);
	kvm_check_tsc(vm);
	/* the rates the guest really gets: KVM's TSC, the APIC timer of
	 * --apic-mhz (KVM's in-kernel APIC is held to it, kvm_set_apic_bus) */
	if (cpuid_set_freq(cpuid, CPUID_MAX_ENTRIES, vm->cfg->cpuid_freq,
			   vm->tsc_khz, vm->cfg->apic_mhz * 1000000ull))
		die(EXIT_HOST, "CPUID: no room for the frequency leaves");
	if (vm->cfg->cpuid_freq != CPUID_FREQ_OFF && !vm->tsc_khz)
		warn("KVM_GET_TSC_KHZ failed: no CPUID frequency leaves");
	kvm_cpuid_pv(vm, cpuid, kvm_has);
	kvm_cpuid_vendor(vm, cpuid);
	for (i = 0; i < vm->nr_vcpus; i++) {
		if (i && vm->cfg->irqchip == IRQCHIP_USER)
			kvm_tsc_offset(&vm->vcpus[i]);
		kvm_set_cpuid(&vm->vcpus[i], cpuid);
	}
	free(cpuid);
}
