/* SPDX-License-Identifier: MIT */
/*
 * The 256 interrupt entry stubs and the common entry/exit path.
 *
 * Each stub makes the stack look the same for every vector: the CPU pushes
 * an error code only for some exceptions (SDM vol. 3 sec. 6.13 and table
 * 6-1), so the other stubs push a 0 in its place.  Then the stub pushes its
 * vector number and jumps to trap_common, which saves the general registers
 * and calls trap_dispatch(struct trap_frame *) (idt.h).
 */
#include "idt.h"

/* #DF #TS #NP #SS #GP #PF #AC #CP, and AMD's #VC and #SX */
#define HAS_ERROR_CODE(v)	((v) == 8 || (v) == 10 || (v) == 11 || \
				 (v) == 12 || (v) == 13 || (v) == 14 || \
				 (v) == 17 || (v) == 21 || (v) == 29 || \
				 (v) == 30)

	.text
	.balign	16
	.globl	trap_stubs
trap_stubs:
	vec = 0
	.rept	NR_VECTORS
1:	.ifeq	HAS_ERROR_CODE(vec)
	pushq	$0
	.endif
	pushq	$vec
	jmp	trap_common
	/* pad with int3; the assembler fails here if a stub outgrew the size */
	.org	1b + TRAP_STUB_SIZE, 0xcc
	vec = vec + 1
	.endr

/*
 * On entry the CPU has aligned RSP to 16 bytes and pushed SS, RSP, RFLAGS,
 * CS, RIP (SDM vol. 3 sec. 6.14.2); the stub pushed the error code and the
 * vector: 7 quadwords.  The 15 registers below make 22, so RSP is 16-byte
 * aligned at the call, as the System V ABI requires.
 */
trap_common:
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rbx
	pushq	%rbp
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	cld				/* the ABI wants DF = 0 in C code */
	mov	%rsp, %rdi
	call	trap_dispatch
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rbp
	popq	%rbx
	popq	%rdx
	popq	%rcx
	popq	%rax
	add	$16, %rsp		/* vector and error code */
	iretq

/* no executable stack (the GNU toolchain convention for .S files) */
	.section .note.GNU-stack, "", @progbits
