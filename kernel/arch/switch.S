/* SPDX-License-Identifier: MIT */
/*
 * The context switch of kernel/smp/sched.c.  The System V ABI lets a call
 * clobber every register but RBX, RBP, R12-R15 (and RSP), so those are
 * all a switch between two C contexts must keep; RFLAGS too, so that
 * each context keeps its own IF.
 *
 *   void sched_switch(uint64_t *save, uint64_t next)
 *
 * pushes them on the current stack, stores RSP in *save (RDI), loads
 * next (RSI) and pops the other context's.  A new thread's stack is
 * built by sched_spawn to look the same, with sched_thread_start as
 * the return address and the struct thread in RBX.
 */
	.text
	.globl	sched_switch
sched_switch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushfq
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popfq
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

/* A new thread's first instructions: sched_thread_main(thread), which
 * never returns; RSP is 16-byte aligned at the call (sched_spawn). */
	.globl	sched_thread_start
sched_thread_start:
	movq	%rbx, %rdi
	call	sched_thread_main
	ud2

	.section .note.GNU-stack, "", @progbits
