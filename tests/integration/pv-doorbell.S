/*
 * A tiny multiboot guest for tests/integration/test_pv_latency.py: the
 * PV IPI doorbell (port 0x0edc, docs/PROTOCOL.md) rung with each kind of
 * bad request, then one good one, on one vCPU run with --pv-ipi=on:
 *   an address in the MMIO hole, a struct across the end of RAM (64 MiB),
 *   an INIT (bad format), a reserved word set (bad format), an empty set,
 *   APIC ID 5 (out of range), vector 5 (illegal: ESR bit 5, SDM 11.5.3),
 *   and vector 0x41 to itself, which must arrive once.
 * It exits through isa-debug-exit with 0x10 (status 33) when the ESR
 * says "send illegal vector" and the good one arrived, else 0x11 (35).
 */
#define PORT_PV_IPI	0x0edc
#define RAM_END		0x4000000	/* irqlab-vmm's default -m 64 */

	/* ring the doorbell with the struct at \addr */
	.macro ring addr
	mov $\addr, %eax
	mov $PORT_PV_IPI, %dx
	out %eax, %dx
	.endm

	/* req = { icr, reserved, dest[0] }, dest[1..3] = 0 */
	.macro req_set icr, rsv, dest
	movl $\icr, req
	movl $\rsv, req + 4
	movq $\dest, req + 8
	.endm

#include "guest64-head.S"
	movl $0, 0x280(%rsi)		/* ESR: clear (SDM 11.5.3) */
	ring 0xfebff000			/* not RAM */
	ring (RAM_END-16)		/* 40 bytes across the end */
	req_set 0x541, 0, 1		/* INIT */
	ring req
	req_set 0x41, 1, 1		/* reserved word */
	ring req
	req_set 0x41, 0, 0		/* no destination */
	ring req
	req_set 0x41, 0, 0x20		/* APIC ID 5 of 1 vCPU */
	ring req
	req_set 0x05, 0, 1		/* vector 5 */
	ring req
	cmpl $0, count
	jne bad				/* none of them may deliver */
	movl $0, 0x280(%rsi)		/* latch the errors */
	mov 0x280(%rsi), %eax
	cmp $0x20, %eax			/* send illegal vector, alone */
	jne bad
	req_set 0x41, 0, 1		/* vector 0x41 to APIC ID 0 */
	ring req
	sti
	mov $100000000, %ecx
3:	cmpl $1, count
	je 4f
	pause
	loop 3b
	jmp bad
4:	cli
	jmp good
bad:
	mov $0x11, %al
	out %al, $0xf4
	hlt
	.data
	.align 64
req:	.space 40
	.text
good:
#include "guest64-tail.S"
