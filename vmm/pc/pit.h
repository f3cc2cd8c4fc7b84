/* SPDX-License-Identifier: MIT */
/*
 * The 8254 PIT (Intel 8254 datasheet, 231164) and the PC's system control
 * port B (0x61), as a pure state machine.  Nothing ticks in the
 * background: every counter value and OUT level is computed from
 * ops->now_ns at 1.193182 MHz.  Channel 0's OUT drives ISA IRQ0 through
 * ops->set_irq; for its rising edges the model asks for a host timer with
 * ops->timer_arm, and the machine calls pit_timer_expired() when it fires.
 * The caller serialises the calls.  docs/IOAPIC.md (the PIT section) says
 * what is modelled.
 */
#ifndef VMM_PIT_H
#define VMM_PIT_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_NR_CHANNELS		3
/* channel 0's host timer never fires more often than this (KVM: 200 us) */
#define PIT_MIN_TIMER_NS	100000ull
#define PIT_REFRESH_NS		15085ull	/* port 0x61 bit 4 half-period */

struct pit_ops {
	uint64_t (*now_ns)(void *ctx);		/* host monotonic time */
	/* ISA line @line (0: IRQ0, IOAPIC pin 2 and PIC line 0) */
	void (*set_irq)(void *ctx, unsigned line, int level);
	/* absolute host deadline for pit_timer_expired(); 0 cancels */
	void (*timer_arm)(void *ctx, uint64_t deadline_ns);
	/* optional: one decoded event, for --trace=pit */
	void (*trace)(void *ctx, const char *line);
};

struct pit_channel {
	uint8_t mode;		/* 0-5 (6 and 7 are written as 2 and 3) */
	uint8_t rw;		/* 1 LSB, 2 MSB, 3 LSB then MSB */
	bool bcd;
	bool gate;
	uint16_t cr;		/* the count register as written */
	uint32_t cr_n;		/* its value in clocks: 0 means 65536 (10^4 BCD) */
	uint32_t n;		/* the count the counting element runs with */
	bool loaded;		/* counting from n (modes 1, 5: triggered) */
	bool armed;		/* modes 1, 5: a count waits for a trigger */
	bool null_count;	/* the CR holds a count not yet loaded */
	bool paused;		/* gate low (modes 0, 2, 3, 4), or a half write */
	uint64_t run_ns;	/* when counting (re)started or resumed */
	uint64_t acc_ns;	/* counted before that, while paused since */

	bool wr_msb;		/* RW 3: the next write is the MSB */
	uint8_t wr_lsb;
	bool rd_msb;		/* RW 3: the next live read is the MSB */
	uint8_t latch_left;	/* count latch: bytes still to read */
	uint16_t latch;
	bool status_latched;
	uint8_t status;
};

struct pit_stats {
	uint64_t irq0_edges;	/* rising edges sent on IRQ0 */
	uint64_t irq0_coalesced;	/* edges merged because the timer was late */
	uint64_t timer_arms;
	uint64_t bad_accesses;	/* non-byte accesses, writes to nothing */
};

struct pit {
	const struct pit_ops *ops;
	void *ctx;
	struct pit_channel ch[PIT_NR_CHANNELS];
	uint8_t port61;		/* bits 3:0 as written */
	/* IRQ0 */
	int irq_line;		/* level last given to set_irq(0) */
	uint64_t irq_edges;	/* rising edges of OUT0 sent since its load */
	uint64_t timer_deadline;	/* armed, 0 if none */
	struct pit_stats stats;
};

/* Power-on: every channel in mode 0 without a count, gates 0/1 high. */
void pit_init(struct pit *p, const struct pit_ops *ops, void *ctx);

/* Ports 0x40-0x43 and 0x61, byte accesses; other ports read 0xff. */
uint8_t pit_read(struct pit *p, uint16_t port);
void pit_write(struct pit *p, uint16_t port, uint8_t val);
/* Gate input of channel @ch (0 and 1 are tied high on a PC). */
void pit_set_gate(struct pit *p, unsigned ch, bool level);
/* The host timer armed through ops->timer_arm fired (early is harmless). */
void pit_timer_expired(struct pit *p);

/* Now: the counting element's value (as read, BCD if so) and OUT. */
uint16_t pit_count(struct pit *p, unsigned ch);
bool pit_out(struct pit *p, unsigned ch);

/*
 * struct bus_dev callbacks: pit_bus_* for ports 0x40-0x43 (@off 0-3),
 * port61_bus_* for 0x61 (@off 0).  Accesses wider than a byte are
 * counted in bad_accesses, read as all-ones and drop the write.
 */
uint64_t pit_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pit_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu);
uint64_t port61_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void port61_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu);

#endif
