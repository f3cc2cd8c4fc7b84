/* SPDX-License-Identifier: MIT */
/* The IDT, the trap frame, and per-vector handlers. */
#ifndef KERNEL_IDT_H
#define KERNEL_IDT_H

#define NR_VECTORS	256
#define NR_EXCEPTIONS	32	/* vectors 0-31 are architecture-defined */

/* vectors.S pads every entry stub to this many bytes: stub v is at
 * trap_stubs + v * TRAP_STUB_SIZE. */
#define TRAP_STUB_SIZE	16

#ifndef __ASSEMBLY__

#include <stdint.h>

/*
 * What the stack holds when trap_dispatch runs, lowest address first.
 * From @vector down, vectors.S pushed it; from @rip on, the CPU did
 * (SDM vol. 3 sec. 6.14.2, figure 6-9: in 64-bit mode SS:RSP is pushed
 * always).  @error is the CPU's error code, or 0 for vectors without one.
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rdi, rsi, rbp, rbx, rdx, rcx, rax;
	uint64_t vector;
	uint64_t error;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* Fill the IDT with the 256 stubs and load IDTR.  All gates are
 * interrupt gates: the CPU clears RFLAGS.IF on entry. */
void idt_init(void);
/* Load IDTR with the IDT idt_init() filled: an AP's part of it. */
void idt_load(void);

/*
 * Run @fn for @vec instead of the default, which reports the vector as
 * @panic and stops the kernel.  @fn == NULL restores the default.  When
 * @fn returns, the interrupted code resumes (IRETQ) with the frame's
 * registers, so a handler may change them.
 */
void idt_set_handler(unsigned vec, void (*fn)(struct trap_frame *tf));

/* Deliver @vec on IST stack @ist (1-7, see gdt.h), or 0: the current stack. */
void idt_set_ist(unsigned vec, unsigned ist);

/* The default handler (exception.c): print @panic for the frame, exit. */
void trap_panic(struct trap_frame *tf) __attribute__((noreturn));

#endif /* __ASSEMBLY__ */
#endif
