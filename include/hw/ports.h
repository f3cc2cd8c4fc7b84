/* SPDX-License-Identifier: MIT */
/* Fixed ISA port assignments irqlab uses, and QEMU's compatible devices. */
#ifndef HW_PORTS_H
#define HW_PORTS_H

#define PORT_COM1		0x3f8	/* 16550 UART, 8 registers */
#define PORT_DEBUGCON		0xe9	/* bochs/QEMU debugcon: a byte is a char */
#define PORT_DEBUG_EXIT		0xf4	/* QEMU isa-debug-exit: status (V<<1)|1 */

/* QEMU fw_cfg, I/O interface (docs/specs/fw_cfg.rst in QEMU) */
#define PORT_FW_CFG_SEL		0x510	/* 16-bit selector */
#define PORT_FW_CFG_DATA	0x511	/* 8-bit data, auto-increment */
#define FW_CFG_SIGNATURE	0x00	/* "QEMU" */
#define FW_CFG_ID		0x01	/* bit 0: traditional interface */
#define FW_CFG_NB_CPUS		0x05	/* u16, little endian */
#define FW_CFG_MAX_CPUS		0x0f	/* u16, little endian */
#define FW_CFG_FILE_DIR		0x19	/* u32 count, big endian, then files */

#endif
