// SPDX-License-Identifier: MIT
/*
 * A vCPU's registers: the entry state a boot protocol asks for (multiboot,
 * PVH, Linux's 64-bit entry: the loader's struct boot_entry), the state an
 * AP starts in after INIT and SIPI (SDM 9.4.4), IA32_APIC_BASE written back
 * to KVM, and the register dump of a guest failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "boot/loader.h"
#include "kvm.h"
#include "util.h"
#include "vm.h"

#define MSR_IA32_APIC_BASE_NR	0x1b

static void flat_segment(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel,
		.type = type, .present = 1, .dpl = 0, .db = 1, .s = 1,
		.l = 0, .g = 1,
	};
}

#define CR0_PE		(1u << 0)
#define CR0_ET		(1u << 4)
#define CR0_PG		(1u << 31)
#define CR4_PAE		(1u << 5)
#define EFER_LME	(1u << 8)
#define EFER_LMA	(1u << 10)

/*
 * vCPU 0's entry state (vmm/boot/loader.h).  BOOT_MODE_PM32: Multiboot 1
 * sec. 3.2, Multiboot 2 sec. 3.3 and the PVH ABI: CS a 32-bit
 * read/execute segment, DS/ES/FS/GS/SS read/write, base 0, limit
 * 0xffffffff, CR0.PE = 1, PG = 0, EFLAGS.VM = IF = 0; EAX and EBX as
 * the protocol says.  BOOT_MODE_LONG64: boot.rst "64-bit BOOT PROTOCOL":
 * 64-bit mode with the loader's page tables (CR3), CS __BOOT_CS (L=1),
 * DS/ES/SS __BOOT_DS, interrupts off, RSI the zero page.  GDTR points at
 * the GDT the loader wrote, so the selectors are real.
 */
void kvm_set_boot_state(struct vcpu *v, const struct boot_entry *e)
{
	bool lm = e->mode == BOOT_MODE_LONG64;
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_GET_SREGS: %s", v->id,
		    strerror(errno));
	flat_segment(&sregs.cs, e->cs, 0xb);	/* execute/read, accessed */
	flat_segment(&sregs.ds, e->ds, 0x3);	/* read/write, accessed */
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	if (lm) {
		sregs.cs.l = 1;
		sregs.cs.db = 0;
	}
	sregs.gdt.base = e->gdt_addr;
	sregs.gdt.limit = e->gdt_limit;
	sregs.idt.base = 0;
	sregs.idt.limit = 0;
	sregs.cr0 = CR0_PE | CR0_ET | (lm ? CR0_PG : 0);
	sregs.cr3 = lm ? e->cr3 : 0;
	sregs.cr4 = lm ? CR4_PAE : 0;
	sregs.efer = lm ? EFER_LME | EFER_LMA : 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_SREGS: %s", v->id,
		    strerror(errno));

	memset(&regs, 0, sizeof(regs));
	regs.rip = e->eip;
	regs.rax = e->eax;
	regs.rbx = e->ebx;
	regs.rsi = e->rsi;
	regs.rsp = e->rsp;
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

/*
 * SDM 9.4.4.1 and 10.1.1 (table 10-1): after INIT, a start-up IPI with
 * vector VV starts the AP in real mode at 000VV000h: CS selector VV00h,
 * CS base VV000h, IP 0.  The rest is the INIT state: CR0 60000010h,
 * flat 64 KiB real-mode segments, EFLAGS 2, EDX the processor signature.
 */
void kvm_set_sipi_state(struct vcpu *v, uint8_t vector)
{
	struct kvm_segment rm = {
		.limit = 0xffff, .type = 0x3, .present = 1, .s = 1,
	};
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_GET_SREGS: %s", v->id,
		    strerror(errno));
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = rm;
	sregs.cs = rm;
	sregs.cs.type = 0xb;			/* execute/read, accessed */
	sregs.cs.selector = (uint16_t)vector << 8;
	sregs.cs.base = (uint32_t)vector << 12;
	sregs.gdt.base = sregs.idt.base = 0;
	sregs.gdt.limit = sregs.idt.limit = 0xffff;
	sregs.ldt = (struct kvm_segment){ .limit = 0xffff, .type = 2, .present = 1 };
	sregs.tr = (struct kvm_segment){ .limit = 0xffff, .type = 0xb, .present = 1 };
	sregs.cr0 = 0x60000010;			/* CD, NW, ET */
	sregs.cr2 = sregs.cr3 = sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_SREGS: %s", v->id,
		    strerror(errno));
	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rdx = 0x600;			/* family 6 */
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_HOST, "vcpu%d: KVM_SET_REGS: %s", v->id,
		    strerror(errno));
}

/*
 * SDM 11.4.3: with IA32_APIC_BASE.EN clear, CPUID.1:EDX[9] reads 0.  KVM
 * computes that bit from its own copy of the MSR, so irqlab's value is
 * written back to KVM (a host write: the filter does not apply).
 */
void kvm_sync_apic_base(struct vcpu *v)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = MSR_IA32_APIC_BASE_NR };

	m.e.data = lapic_base(&v->irq.lapic);
	if (ioctl(v->fd, KVM_SET_MSRS, &m) != 1)
		warn("vcpu%d: KVM_SET_MSRS(IA32_APIC_BASE = %#llx) failed",
		     v->id, (unsigned long long)m.e.data);
}
