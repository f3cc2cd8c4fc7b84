// SPDX-License-Identifier: MIT
/*
 * The KVM side of the machine: /dev/kvm, the VM, guest RAM slots, vCPUs,
 * CPUID, and the multiboot entry state.  Documentation/virt/kvm/api.rst
 * is the reference for every ioctl here.
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

#include "util.h"
#include "vm.h"

/* Addresses KVM needs on Intel for real-mode emulation (api.rst). */
#define KVM_TSS_ADDR		0xfffbd000u
#define KVM_IDENTITY_ADDR	0xfffbc000u

#define CPUID_MAX_ENTRIES	256

static int kvm_vm_ioctl(struct vm *vm, unsigned long req, void *arg)
{
	return ioctl(vm->vm_fd, req, arg);
}

static int kvm_check(struct vm *vm, long cap)
{
	int r = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, cap);

	return r < 0 ? 0 : r;
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
	if (cfg->irqchip == IRQCHIP_KERNEL) {
		if (!kvm_check(vm, KVM_CAP_IRQCHIP))
			die(EXIT_HOST, "--irqchip=kernel: no KVM_CAP_IRQCHIP");
		if (kvm_vm_ioctl(vm, KVM_CREATE_IRQCHIP, NULL) < 0)
			die(EXIT_HOST, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
	}
}

void kvm_init(struct vm *vm)
{
	int ver;

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
			die(EXIT_HOST, "/dev/kvm: %s: KVM is not available on "
			    "this host", strerror(errno));
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
 * --irqchip=kernel, KVM's LAPIC is there: APIC, x2APIC (unless
 * --no-x2apic) and TSC-deadline stay as KVM reports them.  With
 * --irqchip=user there is no local APIC in this machine yet, so all three
 * are cleared: the guest is told the truth.
 */
static void kvm_cpuid_apic_bits(const struct vmm_config *cfg,
				struct kvm_cpuid_entry2 *e)
{
	if (cfg->irqchip == IRQCHIP_USER) {
		e->ecx &= ~(CPUID1_ECX_X2APIC | CPUID1_ECX_TSC_DEADLINE);
		e->edx &= ~CPUID1_EDX_APIC;
	} else if (cfg->x2apic == 0) {
		e->ecx &= ~CPUID1_ECX_X2APIC;
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
			kvm_cpuid_apic_bits(v->vm->cfg, e);
		} else if (e->function == 0xb || e->function == 0x1f) {
			e->edx = v->id;
		}
	}
	if (ioctl(v->fd, KVM_SET_CPUID2, c) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_CPUID2: %s", v->id,
		    strerror(errno));
	free(c);
}

/* Say once what an x2APIC request will get. */
static void kvm_check_x2apic(struct vm *vm, const struct kvm_cpuid2 *c)
{
	unsigned i;

	if (vm->cfg->x2apic != 1)
		return;
	if (vm->cfg->irqchip == IRQCHIP_USER) {
		warn("--x2apic: --irqchip=user has no local APIC yet; the "
		     "x2APIC bit stays hidden");
		return;
	}
	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == 1 &&
		    !(c->entries[i].ecx & CPUID1_ECX_X2APIC))
			warn("--x2apic: this KVM does not offer x2APIC");
}

void kvm_create_vcpus(struct vm *vm)
{
	struct kvm_cpuid2 *cpuid = kvm_supported_cpuid(vm);
	unsigned i;

	kvm_check_x2apic(vm, cpuid);
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->id = i;
		v->vm = vm;
		v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, i);
		if (v->fd < 0)
			die(EXIT_HOST, "KVM_CREATE_VCPU %u: %s", i,
			    strerror(errno));
		v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE,
			      MAP_SHARED, v->fd, 0);
		if (v->run == MAP_FAILED)
			die(EXIT_HOST, "vcpu%u: mmap kvm_run: %s", i,
			    strerror(errno));
		kvm_set_cpuid(v, cpuid);
	}
	free(cpuid);
}

static void flat_segment(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel,
		.type = type, .present = 1, .dpl = 0, .db = 1, .s = 1,
		.l = 0, .g = 1,
	};
}

/*
 * Multiboot 1 sec. 3.2 and Multiboot 2 sec. 3.3, "machine state": EAX the
 * magic, EBX the info address, CS a 32-bit read/execute code segment with
 * offset 0 and limit 0xffffffff, DS/ES/FS/GS/SS a 32-bit read/write data
 * segment likewise, A20 enabled, CR0.PG = 0 and CR0.PE = 1, EFLAGS.VM = 0
 * and IF = 0.  ESP, GDTR and IDTR are undefined: GDTR points at the flat
 * GDT the loader wrote, so the selectors are real.
 */
void kvm_set_boot_state(struct vcpu *v, uint32_t eip, uint32_t eax,
			uint32_t ebx, uint32_t gdt, uint16_t gdt_limit)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_GET_SREGS: %s", v->id,
		    strerror(errno));
	flat_segment(&sregs.cs, 0x08, 0xb);	/* execute/read, accessed */
	flat_segment(&sregs.ds, 0x10, 0x3);	/* read/write, accessed */
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.gdt.base = gdt;
	sregs.gdt.limit = gdt_limit;
	sregs.idt.base = 0;
	sregs.idt.limit = 0;
	sregs.cr0 = 0x11;			/* PE, ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_SREGS: %s", v->id,
		    strerror(errno));

	memset(&regs, 0, sizeof(regs));
	regs.rip = eip;
	regs.rax = eax;
	regs.rbx = ebx;
	regs.rflags = 0x2;			/* bit 1 is reserved, set */
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_REGS: %s", v->id,
		    strerror(errno));
}

void kvm_dump_vcpu(struct vcpu *v, const char *why)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	fflush(stdout);
	fprintf(stderr, "irqlab-vmm: vcpu%d: %s\n", v->id, why);
	if (ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s) < 0) {
		fprintf(stderr, "  (registers unavailable: %s)\n",
			strerror(errno));
		return;
	}
	fprintf(stderr,
		"  RIP=%016llx RSP=%016llx RFLAGS=%08llx\n"
		"  RAX=%016llx RBX=%016llx RCX=%016llx RDX=%016llx\n"
		"  CS=%04x (base %llx, l=%u db=%u)  SS=%04x\n"
		"  CR0=%08llx CR2=%016llx CR3=%016llx CR4=%08llx EFER=%08llx\n",
		r.rip, r.rsp, r.rflags, r.rax, r.rbx, r.rcx, r.rdx,
		s.cs.selector, s.cs.base, s.cs.l, s.cs.db, s.ss.selector,
		s.cr0, s.cr2, s.cr3, s.cr4, s.efer);
	/* AMD: KVM's SHUTDOWN intercept reinitialises the VMCB and resets the
	 * vCPU before userspace sees the exit (svm.c, shutdown_interception) */
	if (v->run->exit_reason == KVM_EXIT_SHUTDOWN && r.rip == 0xfff0 &&
	    s.cs.base == 0xffff0000)
		fprintf(stderr, "  (these are reset values: on AMD, KVM resets a "
			"vCPU that shut down, so the faulting state is lost)\n");
}
