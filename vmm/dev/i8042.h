/* SPDX-License-Identifier: MIT */
/*
 * The 8042 keyboard controller of the PC/AT (IBM PC/AT Technical
 * Reference, "Keyboard Controller"; the commands as every PC chipset
 * keeps them): data port 0x60, status/command port 0x64.  irqlab has no
 * keyboard or mouse behind it.  What a guest gets:
 *
 *   - status: output-buffer full, the system flag (set by the self-test),
 *     command/data, keyboard not inhibited; the input buffer is never
 *     full (commands complete at once);
 *   - commands 0x20/0x60 (read/write the command byte), 0xaa (self-test:
 *     0x55), 0xab (keyboard interface test: 0x00), 0xad/0xae (disable/
 *     enable the keyboard), 0xa7/0xa8 (disable/enable the aux port: the
 *     command byte's bit), 0xd0/0xd1 (read/write the output port),
 *     0xd2 (a byte as if from the keyboard); others are ignored;
 *   - a byte to port 0x60 for the keyboard: ACK 0xfa (0xff: 0xfa, 0xaa;
 *     0xf2: 0xfa, 0xab, 0x83; 0xee: 0xee), as an AT keyboard answers;
 *   - the reset line: command 0xfe (any 0xf0-0xff pulse with bit 0 clear)
 *     or an output-port write with bit 0 clear resets the CPU, which
 *     irqlab-vmm cannot do without firmware: the VM ends (docs/VMM.md).
 *
 * The keyboard's IRQ 1 follows "output buffer full of keyboard data" when
 * the command byte enables it.  Pure: reset and the IRQ are callbacks.
 */
#ifndef VMM_I8042_H
#define VMM_I8042_H

#include <stdbool.h>
#include <stdint.h>

#define I8042_PORT_DATA		0x60
#define I8042_PORT_CMD		0x64	/* status on read */

#define I8042_STR_OBF		0x01	/* output buffer full */
#define I8042_STR_IBF		0x02	/* input buffer full (never) */
#define I8042_STR_SYS		0x04	/* system flag */
#define I8042_STR_CMD		0x08	/* last write was to 0x64 */
#define I8042_STR_KEYLOCK	0x10	/* 1: keyboard not inhibited */
#define I8042_STR_AUXDATA	0x20	/* the output byte is the aux port's */

#define I8042_CTR_KBDINT	0x01	/* command byte: keyboard IRQ 1 on */
#define I8042_CTR_SYS		0x04
#define I8042_CTR_KBDDIS	0x10
#define I8042_CTR_AUXDIS	0x20
#define I8042_CTR_XLATE		0x40

#define I8042_QUEUE		16

struct i8042 {
	uint8_t ctr;		/* the command byte */
	uint8_t outport;	/* bit 0: reset line (1 = not in reset), bit 1: A20 */
	uint8_t status_sys;	/* I8042_STR_SYS after a self-test */
	uint8_t last_cmd_port;	/* I8042_STR_CMD */
	uint8_t pending;	/* a command waiting for its data byte, or 0 */
	uint8_t queue[I8042_QUEUE];	/* bytes for the output buffer */
	unsigned head, count;
	int irq_level;
	void (*reset)(void *ctx);		/* the CPU's reset line pulsed */
	void (*irq)(void *ctx, int level);	/* IRQ 1, may be NULL */
	void *ctx;
	uint64_t resets;
	uint64_t bad_accesses;	/* wider than a byte */
};

void i8042_init(struct i8042 *k, void (*reset)(void *),
		void (*irq)(void *, int), void *ctx);
uint8_t i8042_read(struct i8042 *k, unsigned port);
void i8042_write(struct i8042 *k, unsigned port, uint8_t val);
/* struct bus_dev callbacks for 0x60 and 0x64 (@off from each base) */
uint64_t i8042_data_read(void *opaque, uint64_t off, unsigned size, int cpu);
void i8042_data_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu);
uint64_t i8042_cmd_read(void *opaque, uint64_t off, unsigned size, int cpu);
void i8042_cmd_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		     int cpu);

#endif
