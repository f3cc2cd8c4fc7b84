// SPDX-License-Identifier: MIT
/*
 * The default trap handler: report the vector and the CPU state as one
 * @panic record (docs/RECORDS.md) and a few human lines, then stop.
 */
#include <stdint.h>

#include "console.h"
#include "arch/idt.h"
#include "panic.h"
#include "lib/printf.h"
#include "arch/x86.h"

/* SDM vol. 3 table 6-1; 28-30 are AMD's (AMD APM vol. 2 sec. 8.2). */
static const struct exc_name {
	const char *mnemonic;
	const char *name;
} exc_names[NR_EXCEPTIONS] = {
	[0]  = { "#DE", "Divide Error" },
	[1]  = { "#DB", "Debug Exception" },
	[2]  = { "NMI", "Nonmaskable Interrupt" },
	[3]  = { "#BP", "Breakpoint" },
	[4]  = { "#OF", "Overflow" },
	[5]  = { "#BR", "BOUND Range Exceeded" },
	[6]  = { "#UD", "Invalid Opcode" },
	[7]  = { "#NM", "Device Not Available" },
	[8]  = { "#DF", "Double Fault" },
	[9]  = { NULL, "Coprocessor Segment Overrun" },
	[10] = { "#TS", "Invalid TSS" },
	[11] = { "#NP", "Segment Not Present" },
	[12] = { "#SS", "Stack-Segment Fault" },
	[13] = { "#GP", "General Protection" },
	[14] = { "#PF", "Page Fault" },
	[16] = { "#MF", "x87 FPU Floating-Point Error" },
	[17] = { "#AC", "Alignment Check" },
	[18] = { "#MC", "Machine Check" },
	[19] = { "#XM", "SIMD Floating-Point Exception" },
	[20] = { "#VE", "Virtualization Exception" },
	[21] = { "#CP", "Control Protection Exception" },
	[28] = { "#HV", "Hypervisor Injection Exception" },
	[29] = { "#VC", "VMM Communication Exception" },
	[30] = { "#SX", "Security Exception" },
};

/* SDM vol. 3 sec. 4.7, figure 4-12: the page-fault error code. */
static void explain_pf(uint64_t err, uint64_t cr2)
{
	kprintf("  %s %s in %s mode at 0x%lx%s%s%s\n",
		err & (1 << 0) ? "protection violation on" : "not-present page on",
		err & (1 << 4) ? "an instruction fetch" :
		err & (1 << 1) ? "a write" : "a read",
		err & (1 << 2) ? "user" : "supervisor", cr2,
		err & (1 << 3) ? ", reserved bit set in a paging entry" : "",
		err & (1 << 5) ? ", protection key" : "",
		err & (1 << 6) ? ", shadow stack" : "");
}

/* SDM vol. 3 sec. 6.13, figure 6-7: a selector error code. */
static void explain_selector(uint64_t err)
{
	if (!err) {
		kprintf("  error code 0: not related to a segment selector\n");
		return;
	}
	kprintf("  %s index %lu%s\n",
		err & (1 << 1) ? "IDT" : err & (1 << 2) ? "LDT" : "GDT",
		(err & 0xffff) >> 3,
		err & (1 << 0) ? ", during delivery of an external event" : "");
}

static void dump_regs(const struct trap_frame *tf)
{
	kprintf("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
		tf->rax, tf->rbx, tf->rcx, tf->rdx);
	kprintf("  rsi %016lx rdi %016lx rbp %016lx rsp %016lx\n",
		tf->rsi, tf->rdi, tf->rbp, tf->rsp);
	kprintf("  r8  %016lx r9  %016lx r10 %016lx r11 %016lx\n",
		tf->r8, tf->r9, tf->r10, tf->r11);
	kprintf("  r12 %016lx r13 %016lx r14 %016lx r15 %016lx\n",
		tf->r12, tf->r13, tf->r14, tf->r15);
	kprintf("  rip %016lx cs %04lx rflags %08lx ss %04lx cr3 %016lx\n",
		tf->rip, tf->cs, tf->rflags, tf->ss, read_cr3());
}

void trap_panic(struct trap_frame *tf)
{
	static int panicking;
	uint64_t vec = tf->vector, cr2 = read_cr2();
	const char *mnemonic = "unhandled", *name = "Unhandled interrupt";

	/* a fault while reporting a fault: stop without more output */
	if (panicking++)
		kernel_exit(KERNEL_EXIT_PANIC);
	console_lock();		/* the report's lines together; kept till exit */

	if (vec < NR_EXCEPTIONS) {
		const struct exc_name *e = &exc_names[vec];

		mnemonic = e->mnemonic ? e->mnemonic : "reserved";
		name = e->name ? e->name : "Reserved vector";
	}
	kprintf("@panic vector=%lu name=%s error=0x%lx rip=0x%lx cr2=0x%lx "
		"rsp=0x%lx\n", vec, mnemonic, tf->error, tf->rip, cr2, tf->rsp);
	kprintf("panic: %s (vector %lu) at rip 0x%lx, error code 0x%lx\n",
		name, vec, tf->rip, tf->error);
	if (vec == 14)
		explain_pf(tf->error, cr2);
	else if (vec >= 10 && vec <= 13)
		explain_selector(tf->error);
	dump_regs(tf);
	kernel_exit(KERNEL_EXIT_PANIC);
}
