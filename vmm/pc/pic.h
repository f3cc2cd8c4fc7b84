/* SPDX-License-Identifier: MIT */
/*
 * The PC's pair of 8259A programmable interrupt controllers (Intel 8259A
 * datasheet, 231468) and the PIIX edge/level control registers (ELCR,
 * 82371AB PIIX4 datasheet 4.1.10), as a pure state machine.  The master
 * sits at ports 0x20/0x21, the slave at 0xa0/0xa1, cascaded on the
 * master's IR2; ELCR1/ELCR2 at 0x4d0/0x4d1.
 *
 * The model takes the ISA lines through pic_set_irq() and tells the
 * machine about its INTR output through ops->intr.  pic_intack() is the
 * INTA cycle, for a machine that delivers ExtINT; one that does not just
 * reports the output.  It makes no KVM call and reads no clock.  The
 * caller serialises all calls on one struct pic.
 */
#ifndef VMM_PIC_H
#define VMM_PIC_H

#include <stdbool.h>
#include <stdint.h>

#define PIC_MASTER_CMD		0x20
#define PIC_MASTER_DATA		0x21
#define PIC_SLAVE_CMD		0xa0
#define PIC_SLAVE_DATA		0xa1
#define PIC_ELCR1		0x4d0
#define PIC_ELCR2		0x4d1
#define PIC_NR_LINES		16
#define PIC_CASCADE_LINE	2

/* 8259A datasheet, "Initialization Command Words" and "Operation
 * Command Words" */
#define PIC_ICW1		0x10	/* A0 = 0, D4 = 1 */
#define PIC_ICW1_IC4		0x01	/* ICW4 follows */
#define PIC_ICW1_SNGL		0x02	/* single: no ICW3 */
#define PIC_ICW1_LTIM		0x08	/* level-triggered inputs */
#define PIC_ICW4_AEOI		0x02
#define PIC_ICW4_SFNM		0x10
#define PIC_OCW3		0x08	/* A0 = 0, D4 = 0, D3 = 1 */
#define PIC_OCW3_RIS		0x01	/* read ISR (with RR) */
#define PIC_OCW3_RR		0x02	/* read register */
#define PIC_OCW3_P		0x04	/* poll */
#define PIC_OCW3_SMM		0x20
#define PIC_OCW3_ESMM		0x40
#define PIC_OCW2_EOI		0x20	/* OCW2: R SL EOI in bits 7:5 */
#define PIC_OCW2_SL		0x40
#define PIC_OCW2_R		0x80

/* PIIX4 4.1.10: IRQ 0, 1, 2 (ELCR1) and 8, 13 (ELCR2) are always edge */
#define PIC_ELCR1_MASK		0xf8
#define PIC_ELCR2_MASK		0xde

struct pic_ops {
	/* optional: the master's INTR output changed (level) */
	void (*intr)(void *ctx, int level);
	/* optional: one decoded event */
	void (*trace)(void *ctx, const char *line);
};

struct pic_chip {
	uint8_t irr, isr, imr;
	uint8_t line;		/* the input levels */
	uint8_t elcr, elcr_mask;
	uint8_t base;		/* ICW2 bits 7:3: the vector of IR0 */
	uint8_t icw3;
	uint8_t lowest;		/* the IR with the lowest priority (rotation) */
	uint8_t init;		/* the next ICW expected: 0 none, 2, 3, 4 */
	bool ready;		/* an ICW sequence has completed */
	bool icw4, single, ltim, aeoi, sfnm, rotate_aeoi;
	bool read_isr, poll, special_mask;
	bool out;		/* INTR */
};

struct pic_stats {
	uint64_t bad_accesses;	/* wrong width or offset */
	uint64_t intr_raises;	/* INTR went 0 -> 1 */
	uint64_t intacks;	/* INTA cycles, poll reads included */
	uint64_t spurious;	/* INTA with nothing pending: IR7 */
};

struct pic {
	const struct pic_ops *ops;
	void *ctx;
	struct pic_chip chip[2];	/* 0 master, 1 slave */
	struct pic_stats stats;
};

/* Power-on: uninitialised, everything clear, ELCR 0 (all edge). */
void pic_init(struct pic *p, const struct pic_ops *ops, void *ctx);

/* ISA line @line (0-15) is now at @level; -1 for a bad line. */
int pic_set_irq(struct pic *p, unsigned line, int level);
/* The master's INTR output. */
bool pic_output(const struct pic *p);
/* INTA: the vector to deliver (spurious IR7 if nothing is pending). */
uint8_t pic_intack(struct pic *p);

/* Ports 0x20, 0x21, 0xa0, 0xa1, 0x4d0, 0x4d1, byte accesses. */
uint8_t pic_read(struct pic *p, uint16_t port);
void pic_write(struct pic *p, uint16_t port, uint8_t val);

/*
 * struct bus_dev callbacks, one region per pair of ports: @opaque is the
 * pic for pic_master_* (0x20, @off 0-1), pic_slave_* (0xa0) and pic_elcr_*
 * (0x4d0).  Accesses wider than a byte are counted in bad_accesses, read
 * as all-ones and drop the write.
 */
uint64_t pic_master_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pic_master_write(void *opaque, uint64_t off, unsigned size,
		      uint64_t val, int cpu);
uint64_t pic_slave_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pic_slave_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		     int cpu);
uint64_t pic_elcr_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pic_elcr_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		    int cpu);

#endif
