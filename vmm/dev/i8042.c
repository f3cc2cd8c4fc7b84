// SPDX-License-Identifier: MIT
/* The 8042 keyboard controller, with nothing behind it but its reset line
 * and an AT keyboard's answers (i8042.h). */
#include <string.h>

#include "i8042.h"

void i8042_init(struct i8042 *k, void (*reset)(void *),
		void (*irq)(void *, int), void *ctx)
{
	memset(k, 0, sizeof(*k));
	k->reset = reset;
	k->irq = irq;
	k->ctx = ctx;
	/* what a PC BIOS leaves: keyboard IRQ on, system flag, translation */
	k->ctr = I8042_CTR_KBDINT | I8042_CTR_SYS | I8042_CTR_XLATE;
	k->outport = 0x03;		/* not in reset, A20 on */
	k->status_sys = I8042_STR_SYS;
}

/* IRQ 1: keyboard data in the output buffer, and the command byte lets it */
static void i8042_update_irq(struct i8042 *k)
{
	int level = k->count && (k->ctr & I8042_CTR_KBDINT);

	if (level != k->irq_level) {
		k->irq_level = level;
		if (k->irq)
			k->irq(k->ctx, level);
	}
}

static void i8042_push(struct i8042 *k, uint8_t b)
{
	if (k->count == I8042_QUEUE)
		return;			/* the guest does not read: drop */
	k->queue[(k->head + k->count++) % I8042_QUEUE] = b;
}

static void i8042_pulse_reset(struct i8042 *k)
{
	k->resets++;
	if (k->reset)
		k->reset(k->ctx);
}

/* A byte for the keyboard: an AT keyboard's answer (no keyboard types). */
static void i8042_kbd_byte(struct i8042 *k, uint8_t b)
{
	switch (b) {
	case 0xee:			/* echo */
		i8042_push(k, 0xee);
		break;
	case 0xf2:			/* identify: MF2 keyboard */
		i8042_push(k, 0xfa);
		i8042_push(k, 0xab);
		i8042_push(k, 0x83);
		break;
	case 0xff:			/* reset: ACK, then BAT passed */
		i8042_push(k, 0xfa);
		i8042_push(k, 0xaa);
		break;
	default:			/* ACK everything else */
		i8042_push(k, 0xfa);
	}
}

/* The data byte of a two-byte command, or a byte for the keyboard. */
static void i8042_data(struct i8042 *k, uint8_t val)
{
	uint8_t cmd = k->pending;

	k->pending = 0;
	switch (cmd) {
	case 0x60:			/* write the command byte */
		k->ctr = val;
		k->status_sys = val & I8042_CTR_SYS ? I8042_STR_SYS : 0;
		break;
	case 0xd1:			/* write the output port */
		k->outport = val;
		if (!(val & 0x01))	/* bit 0 low: the CPU is held in reset */
			i8042_pulse_reset(k);
		break;
	case 0xd2:			/* as if the keyboard had sent it */
		i8042_push(k, val);
		break;
	default:
		i8042_kbd_byte(k, val);
	}
}

static void i8042_command(struct i8042 *k, uint8_t cmd)
{
	k->pending = 0;
	switch (cmd) {
	case 0x20:
		i8042_push(k, k->ctr);
		break;
	case 0x60:
	case 0xd1:
	case 0xd2:
		k->pending = cmd;
		break;
	case 0xa7:
		k->ctr |= I8042_CTR_AUXDIS;
		break;
	case 0xa8:
		k->ctr &= ~I8042_CTR_AUXDIS;
		break;
	case 0xaa:			/* self-test passed; sets the system flag */
		k->status_sys = I8042_STR_SYS;
		i8042_push(k, 0x55);
		break;
	case 0xab:			/* keyboard interface test: no error */
		i8042_push(k, 0x00);
		break;
	case 0xad:
		k->ctr |= I8042_CTR_KBDDIS;
		break;
	case 0xae:
		k->ctr &= ~I8042_CTR_KBDDIS;
		break;
	case 0xd0:
		i8042_push(k, k->outport);
		break;
	default:
		/* 0xf0-0xff pulse output port bits 3:0 whose command bit is 0;
		 * bit 0 is the reset line (0xfe) */
		if ((cmd & 0xf0) == 0xf0 && !(cmd & 0x01))
			i8042_pulse_reset(k);
		break;
	}
}

uint8_t i8042_read(struct i8042 *k, unsigned port)
{
	uint8_t b;

	if (port == I8042_PORT_CMD)
		return (k->count ? I8042_STR_OBF : 0) | k->status_sys |
		       k->last_cmd_port | I8042_STR_KEYLOCK;
	if (!k->count)
		return k->queue[(k->head + I8042_QUEUE - 1) % I8042_QUEUE];
	b = k->queue[k->head];
	k->head = (k->head + 1) % I8042_QUEUE;
	k->count--;
	i8042_update_irq(k);
	return b;
}

void i8042_write(struct i8042 *k, unsigned port, uint8_t val)
{
	if (port == I8042_PORT_CMD) {
		k->last_cmd_port = I8042_STR_CMD;
		i8042_command(k, val);
	} else {
		k->last_cmd_port = 0;
		i8042_data(k, val);
	}
	i8042_update_irq(k);
}

static uint64_t i8042_bus_read(void *opaque, unsigned port, unsigned size)
{
	struct i8042 *k = opaque;

	if (size != 1) {
		k->bad_accesses++;
		return ~0ull;
	}
	return i8042_read(k, port);
}

static void i8042_bus_write(void *opaque, unsigned port, unsigned size,
			    uint64_t val)
{
	struct i8042 *k = opaque;

	if (size != 1) {
		k->bad_accesses++;
		return;
	}
	i8042_write(k, port, val);
}

uint64_t i8042_data_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)off, (void)cpu;
	return i8042_bus_read(opaque, I8042_PORT_DATA, size);
}

void i8042_data_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu)
{
	(void)off, (void)cpu;
	i8042_bus_write(opaque, I8042_PORT_DATA, size, val);
}

uint64_t i8042_cmd_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	(void)off, (void)cpu;
	return i8042_bus_read(opaque, I8042_PORT_CMD, size);
}

void i8042_cmd_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		     int cpu)
{
	(void)off, (void)cpu;
	i8042_bus_write(opaque, I8042_PORT_CMD, size, val);
}
