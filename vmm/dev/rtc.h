/* SPDX-License-Identifier: MIT */
/*
 * The PC's CMOS RTC, a Motorola MC146818A (datasheet; the same register
 * map in every PC chipset): index port 0x70, data port 0x71.  Pure: the
 * time comes from a callback (the host's CLOCK_REALTIME in the VMM), the
 * registers are computed from it at each read.  No interrupts: IRQ 8 is
 * never raised (the periodic, alarm and update-ended flags of register C
 * stay 0; docs/VMM.md).
 */
#ifndef VMM_RTC_H
#define VMM_RTC_H

#include <stdint.h>

#define RTC_PORT_INDEX		0x70
#define RTC_PORT_DATA		0x71

/* register numbers (MC146818A, "Address Map") */
#define RTC_SECONDS		0x00
#define RTC_SECONDS_ALARM	0x01
#define RTC_MINUTES		0x02
#define RTC_MINUTES_ALARM	0x03
#define RTC_HOURS		0x04
#define RTC_HOURS_ALARM		0x05
#define RTC_DAY_OF_WEEK		0x06
#define RTC_DAY_OF_MONTH	0x07
#define RTC_MONTH		0x08
#define RTC_YEAR		0x09
#define RTC_REG_A		0x0a
#define RTC_REG_B		0x0b
#define RTC_REG_C		0x0c
#define RTC_REG_D		0x0d
#define RTC_CENTURY		0x32	/* the IBM PC's choice; ACPI FADT CENTURY */
#define RTC_NREGS		128

#define RTC_A_UIP		0x80	/* update in progress */
#define RTC_B_SET		0x80	/* updates stopped while the time is set */
#define RTC_B_DM		0x04	/* binary (1) or BCD (0) data */
#define RTC_B_24H		0x02	/* 24-hour (1) or 12-hour (0) mode */
#define RTC_D_VRT		0x80	/* valid RAM and time */
#define RTC_HOUR_PM		0x80	/* 12-hour mode: PM */

/* UIP is set this long before each update (datasheet: tBUC = 244 us) */
#define RTC_UIP_NS		244000ull

struct rtc {
	uint64_t (*now_ns)(void *ctx);	/* wall clock, ns since the epoch */
	void *ctx;
	uint8_t index;			/* last index written to 0x70 */
	uint8_t ram[RTC_NREGS];		/* A, B, alarms and the CMOS RAM */
	int64_t offset_s;		/* guest time - host time */
	uint64_t frozen_s;		/* the time while B.SET is 1 */
	uint64_t bad_accesses;		/* wider than a byte */
};

void rtc_init(struct rtc *r, uint64_t (*now_ns)(void *), void *ctx);
uint8_t rtc_read(struct rtc *r, unsigned port);
void rtc_write(struct rtc *r, unsigned port, uint8_t val);
/* struct bus_dev callbacks, @off from RTC_PORT_INDEX; byte accesses only */
uint64_t rtc_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void rtc_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu);

#endif
