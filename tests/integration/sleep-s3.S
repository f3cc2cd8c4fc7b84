/* A guest that asks for ACPI S3 and waits to be woken, for the answer to
 * a sleep state irqlab-vmm lacks (tests/integration/test_vmm_sleep.py):
 * PM1a_CNT (port 0x604) = SLP_TYP 1 (QEMU's DSDT gives \_S3 that value;
 * irqlab's has no \_S3) | SLP_EN, as Linux writes it after reading \_S3,
 * then `sti; hlt` for good.  ACPI 6.5 4.8.3.2.1. */
#include "guest64-head.S"
	mov $0x604, %dx
	mov $(1 << 10), %ax		/* SLP_TYP first, as Linux */
	out %ax, %dx
	mov $(1 << 10 | 1 << 13), %ax	/* then SLP_TYP | SLP_EN */
	out %ax, %dx
1:	sti
	hlt
	jmp 1b
#include "guest64-tail.S"
