/* SPDX-License-Identifier: MIT */
/*
 * The 8254 programmable interval timer (Intel 8254 datasheet, 231164)
 * and system control port B (0x61) of the PC.  Shared by irqlab-vmm's
 * model (vmm/pc/pit.c) and the kernel's driver (kernel/dev/pit.c).
 */
#ifndef HW_PIT_H
#define HW_PIT_H

#define PIT_HZ			1193182u	/* 14.31818 MHz / 12 */
#define PORT_PIT_CH0		0x40
#define PORT_PIT_CH1		0x41
#define PORT_PIT_CH2		0x42
#define PORT_PIT_CMD		0x43		/* control word, write-only */
#define PORT_SYS_CTRL_B		0x61

/* Control word (datasheet "Control Word Format") */
#define PIT_SC_SHIFT		6		/* 3: read-back command */
#define PIT_SC(ch)		((unsigned)(ch) << PIT_SC_SHIFT)
#define PIT_SC_READBACK		(3u << PIT_SC_SHIFT)
#define PIT_RW_SHIFT		4
#define PIT_RW_LATCH		(0u << PIT_RW_SHIFT)	/* counter latch command */
#define PIT_RW_LSB		(1u << PIT_RW_SHIFT)
#define PIT_RW_MSB		(2u << PIT_RW_SHIFT)
#define PIT_RW_BOTH		(3u << PIT_RW_SHIFT)	/* LSB then MSB */
#define PIT_MODE_SHIFT		1
#define PIT_MODE(m)		((unsigned)(m) << PIT_MODE_SHIFT)
#define PIT_BCD			1u

/* Read-back command: bits 5/4 are active low (datasheet "Read-Back") */
#define PIT_RB_NO_COUNT		(1u << 5)
#define PIT_RB_NO_STATUS	(1u << 4)
#define PIT_RB_CH(ch)		(1u << (1 + (ch)))

/* Status byte */
#define PIT_ST_OUT		(1u << 7)
#define PIT_ST_NULL		(1u << 6)

/* Port 0x61 */
#define SYS_B_GATE2		(1u << 0)	/* gate of channel 2 */
#define SYS_B_SPKR		(1u << 1)	/* speaker data enable */
#define SYS_B_REFRESH		(1u << 4)	/* toggles every 15.085 us (ro) */
#define SYS_B_OUT2		(1u << 5)	/* OUT of channel 2 (ro) */

#endif
