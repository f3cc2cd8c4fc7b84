/*
 * A hostile guest for tests/integration/test_vmm_fuzz.py: ITERS accesses, each
 * one drawn by xorshift64* from SEED, to the devices irqlab-vmm emulates:
 *
 *   port out and in (1 in 4 each)  a port of the board's (PIC, PIT,
 *          port 0x61, ELCR, COM1, debugcon, fw_cfg, the irqlab ports, the
 *          PM timer, pc-testdev, CMOS), or 1 in 8 any port, at a random
 *          size with a random value.  The guest-physical addresses of the
 *          irqlab console, snapshot and PV EOI ports point mostly into
 *          free RAM, sometimes anywhere (so the snapshot scribbles on the
 *          PV EOI word too).
 *   LAPIC MMIO write, read         any dword of the 4 KiB page
 *   IOAPIC                         IOREGSEL then IOWIN, an IOWIN read, an
 *          EOIR write, or a byte-sized access (which must be refused)
 *   RDMSR, WRMSR                   the x2APIC range 0x800-0x8ff,
 *          IA32_APIC_BASE, IA32_TSC_DEADLINE; a #GP skips the 2-byte
 *          instruction.
 *
 * It runs with IF=0, so interrupts pile up but are not taken (an NMI is,
 * and returns).  With -DIRQS it runs with IF=1 and a full IDT instead:
 * every vector but the NMI's and #GP's goes to a handler that EOIs (xAPIC
 * and x2APIC) and returns, and TPR writes write 0 and SVR writes keep the
 * APIC enabled, so that interrupts do arrive.  Bit 10 of every ICR and
 * IOAPIC value is cleared, so there are no INIT or start-up messages,
 * which would park the BSP in wait-for-SIPI and end the run early;
 * everything else is random.  The
 * ports that end a run by design (isa-debug-exit 0xf4, the irqlab
 * power-off 0xed4) are left out.  The end is exit 0x10 (status 33).
 * Long mode, as pit-irq.S.
 */
#ifndef SEED
#define SEED	1
#endif
#ifndef ITERS
#define ITERS	4000
#endif
/*
 * The value in eax for register \reg (an offset or an MSR): an ICR write
 * loses bit 10 (no INIT, no start-up); with IRQS a TPR write writes 0
 * and an SVR write keeps the APIC enabled.
 */
	.macro tame reg, icr, tpr, svr
	cmp $\icr, \reg
	jne 1f
	and $~0x400, %eax
1:
#ifdef IRQS
	cmp $\tpr, \reg
	jne 2f
	xor %eax, %eax
2:	cmp $\svr, \reg
	jne 3f
	or $0x100, %eax
3:
#endif
	.endm

#include "guest64-head.S"
	idt_gate 2, nmi_handler
	idt_gate 13, gp_handler
#ifdef IRQS
	/*
	 * A full IDT: every vector to irq_handler but the NMI (2) and #GP
	 * (13).  Vectors 0-15 come too: the 8259A pair, never initialised
	 * here, hands out its reset base by ExtINT once the fuzz unmasks it.
	 */
	xor %ecx, %ecx
	lea irq_handler(%rip), %rax
	lea nmi_handler(%rip), %r9
	lea gp_handler(%rip), %r10
1:	mov %rax, %r8
	cmp $2, %ecx
	cmove %r9, %r8
	cmp $13, %ecx
	cmove %r10, %r8
	mov %rcx, %rdx
	shl $4, %rdx
	mov %r8w, fidt(%rdx)
	movw $0x08, fidt + 2(%rdx)
	movw $0x8e00, fidt + 4(%rdx)
	shr $16, %r8
	mov %r8w, fidt + 6(%rdx)
	shr $16, %r8
	mov %r8d, fidt + 8(%rdx)
	movl $0, fidt + 12(%rdx)
	inc %ecx
	cmp $256, %ecx
	jb 1b
	lidt fidtr
	mov $0xfee00000, %esi
	sti
#endif
	movabs $SEED, %r12
	mov $ITERS, %r13d
next:
	call rnd
	mov %rax, %r14
	mov %eax, %ecx
	and $7, %ecx
	jmp *kinds(,%rcx,8)
done:
	dec %r13d
	jnz next
	jmp finish

/* xorshift64* (Marsaglia; Vigna's multiplier): the state in r12 */
rnd:
	mov %r12, %rax
	shr $12, %rax
	xor %rax, %r12
	mov %r12, %rax
	shl $25, %rax
	xor %rax, %r12
	mov %r12, %rax
	shr $27, %rax
	xor %rax, %r12
	movabs $0x2545f4914f6cdd1d, %rax
	imul %r12, %rax
	ret

/* dx = a port from r14: ports[] or, 1 in 8, any */
pick_port:
	mov %r14, %rax
	shr $8, %rax
	test $7, %al
	jz 1f
	shr $3, %eax
	and $31, %eax
	movzwl ports(,%rax,2), %edx
	ret
1:	mov %r14, %rdx
	shr $16, %rdx
	and $0xffff, %edx
	ret

k_out:
	call pick_port
	cmp $0xf4, %dx
	jb 1f
	cmp $0xf7, %dx
	jbe done
	cmp $0xed4, %dx
	jb 1f
	cmp $0xed7, %dx
	jbe done
1:	mov %r14, %rax
	shr $32, %rax
	cmp $0xecc, %dx		/* the console, snapshot, PV EOI addresses */
	je 2f
	cmp $0xed8, %dx
	je 2f
	cmp $0xed0, %dx
	jne 3f
2:	test $0x30000, %r14d	/* 3 in 4: into free RAM at 4 MiB */
	jz 3f
	and $0x3ffffc, %eax
	add $0x400000, %eax
3:	bt $28, %r14
	jc 4f
	bt $29, %r14
	jc 5f
	out %al, %dx
	jmp done
4:	out %ax, %dx
	jmp done
5:	out %eax, %dx
	jmp done

k_in:
	call pick_port
	bt $28, %r14
	jc 4f
	bt $29, %r14
	jc 5f
	in %dx, %al
	jmp done
4:	in %dx, %ax
	jmp done
5:	in %dx, %eax
	jmp done

k_lapic_w:
	mov %r14, %rdx
	shr $8, %rdx
	and $0xffc, %edx
	mov %r14, %rax
	shr $32, %rax
	tame %edx, 0x300, 0x80, 0xf0
	mov %eax, (%rsi,%rdx)
	jmp done

k_lapic_r:
	mov %r14, %rdx
	shr $8, %rdx
	and $0xffc, %edx
	mov (%rsi,%rdx), %eax
	jmp done

k_ioapic:
	mov %r14, %rax
	shr $32, %rax
	and $~0x400, %eax
	mov %r14, %rcx
	shr $16, %rcx
	and $0xff, %ecx
	bt $8, %r14
	jc 2f
	bt $9, %r14
	jc 1f
	mov %ecx, (%rbx)	/* IOREGSEL, then IOWIN */
	mov %eax, 0x10(%rbx)
	jmp done
1:	mov 0x10(%rbx), %eax
	jmp done
2:	bt $9, %r14
	jc 3f
	mov %eax, 0x40(%rbx)	/* EOIR */
	jmp done
3:	mov %cl, (%rbx)		/* a byte: refused */
	jmp done

/* ecx = an MSR from r14 */
pick_msr:
	mov %r14, %rax
	shr $8, %rax
	and $7, %eax
	cmp $6, %eax
	je 1f
	ja 2f
	mov %r14, %rcx
	shr $16, %rcx
	and $0xff, %ecx
	add $0x800, %ecx
	ret
1:	mov $0x1b, %ecx		/* IA32_APIC_BASE */
	ret
2:	mov $0x6e0, %ecx	/* IA32_TSC_DEADLINE */
	ret

k_wrmsr:
	call pick_msr
	mov %r14, %rax
	shr $32, %rax
	mov %r14, %rdx
	shr $24, %rdx
	and $0xff, %edx
	tame %ecx, 0x830, 0x808, 0x80f
	cmp $0x1b, %ecx		/* mostly a sane base: EN, with or without x2APIC */
	jne 2f
	test $0x3000000, %r14d
	jz 2f
	mov $0xfee00900, %eax
	bt $26, %r14
	jnc 3f
	or $0x400, %eax
3:	xor %edx, %edx
2:	wrmsr
	jmp done

k_rdmsr:
	call pick_msr
	rdmsr
	jmp done

gp_handler:
	add $8, %rsp		/* the error code */
	addq $2, (%rsp)		/* past the faulting RDMSR or WRMSR */
	iretq
nmi_handler:
	iretq
#ifdef IRQS
irq_handler:
	push %rax
	push %rcx
	push %rdx
	movl $0, 0xb0(%rsi)	/* xAPIC EOI */
	mov $0x80b, %ecx	/* x2APIC EOI: #GP in xAPIC mode, skipped */
	xor %eax, %eax
	xor %edx, %edx
	wrmsr
	pop %rdx
	pop %rcx
	pop %rax
	iretq
#endif

finish:
#include "guest64-tail.S"
	.section .rodata
	.align 8
kinds:	.quad k_out, k_out, k_in, k_lapic_w, k_lapic_r, k_ioapic, k_wrmsr, k_rdmsr
ports:	.word 0x20, 0x21, 0xa0, 0xa1, 0x40, 0x41, 0x42, 0x43
	.word 0x61, 0x4d0, 0x4d1, 0x3f8, 0x3f9, 0x3fb, 0x3fd, 0xe9
	.word 0x510, 0x511, 0xec0, 0xec4, 0xec8, 0xecc, 0xed0, 0x608
	.word 0x2000, 0x2002, 0x2003, 0x2005, 0x200d, 0xed8, 0x70, 0x71
#ifdef IRQS
	.align 8
fidtr:	.word 256 * 16 - 1
	.quad fidt
	.bss
	.align 16
fidt:	.space 256 * 16
#endif
