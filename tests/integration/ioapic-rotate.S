/*
 * A tiny multiboot guest for tests/integration/test_vmm_irq.py: the Windows
 * pattern of the IOAPIC redirection storm.  IOAPIC pin 4 is an edge entry
 * (vector 0x31); the guest rewrites its low dword unchanged, then its high
 * dword with the destination rotated over APIC IDs 0-3, ROTATIONS times
 * (default 10000), and exits through isa-debug-exit with 0x10 (status
 * 33).  In --irqchip=split no rotation needs a GSI route commit; with
 * --ioapic=naive each one does.  Long mode, as pit-irq.S.
 */
#ifndef ROTATIONS
#define ROTATIONS 10000
#endif
#include "guest64-head.S"
	/* pin 4 edge vector 0x31; rotate its destination */
	movl $0x18, (%rbx)
	movl $0x31, 0x10(%rbx)
	xor %ecx, %ecx
4:	movl $0x18, (%rbx)
	movl $0x31, 0x10(%rbx)
	movl $0x19, (%rbx)
	mov %ecx, %eax
	and $3, %eax
	shl $24, %eax
	mov %eax, 0x10(%rbx)
	inc %ecx
	cmp $ROTATIONS, %ecx
	jb 4b
#include "guest64-tail.S"
