/* A guest that spins forever with interrupts off, for --timeout
 * (tests/integration/test_vmm_timeout.py): TPR 0x20, then `jmp .`. */
#include "guest64-head.S"
	movl $0x20, 0x80(%rsi)		/* TPR */
1:	jmp 1b
#include "guest64-tail.S"
