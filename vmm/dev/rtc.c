// SPDX-License-Identifier: MIT
/*
 * MC146818A CMOS RTC (rtc.h).  The time registers are computed from the
 * wall clock at each read, in UTC (what Linux assumes of a PC's RTC), so
 * there is no update timer to run.  A guest that sets the time keeps an
 * offset from the host's clock.
 */
#include <string.h>

#include "rtc.h"

#define NS	1000000000ull
#define DAY	86400

/*
 * UTC calendar arithmetic, proleptic Gregorian (H. Hinnant's
 * days_from_civil and civil_from_days), instead of gmtime_r()/timegm(),
 * which may read /etc/localtime: a system call a vCPU thread must not
 * make (its seccomp filter) and a model has no business making.
 */
struct rtc_tm {
	int year, mon, mday;	/* mon 1-12 */
	int hour, min, sec;
	int wday;		/* 0 = Sunday */
};

static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void rtc_civil(int64_t t, struct rtc_tm *tm)
{
	int64_t days = (t >= 0 ? t : t - (DAY - 1)) / DAY, secs = t - days * DAY;
	int64_t z = days + 719468, era, doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->mday = doy - (153 * mp + 2) / 5 + 1;
	tm->mon = mp < 10 ? mp + 3 : mp - 9;
	tm->year = yoe + era * 400 + (tm->mon <= 2);
	tm->hour = secs / 3600;
	tm->min = secs / 60 % 60;
	tm->sec = secs % 60;
	tm->wday = ((days % 7) + 11) % 7;	/* 1970-01-01 was a Thursday */
}

/* The seconds of @tm; out-of-range fields carry, as timegm()'s do. */
static int64_t rtc_seconds(const struct rtc_tm *tm)
{
	int64_t y = tm->year + (tm->mon - 1) / 12, m = (tm->mon - 1) % 12 + 1;

	if (m < 1) {
		m += 12;
		y--;
	}
	return (days_from_civil(y, m, 1) + tm->mday - 1) * DAY +
	       tm->hour * 3600 + tm->min * 60 + tm->sec;
}

void rtc_init(struct rtc *r, uint64_t (*now_ns)(void *), void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->now_ns = now_ns;
	r->ctx = ctx;
	r->ram[RTC_REG_A] = 0x26;	/* 32.768 kHz time base, 1024 Hz rate */
	r->ram[RTC_REG_B] = RTC_B_24H;	/* 24-hour, BCD: the PC BIOS's choice */
}

/* The RTC's time in seconds; *@frac the ns into the current second. */
static int64_t rtc_time(struct rtc *r, uint64_t *frac)
{
	uint64_t now = r->now_ns(r->ctx);

	if (frac)
		*frac = now % NS;
	if (r->ram[RTC_REG_B] & RTC_B_SET)
		return r->frozen_s;
	return (int64_t)(now / NS) + r->offset_s;
}

/* Register B's DM bit: binary, or BCD (datasheet, "Data Mode") */
static uint8_t to_reg(const struct rtc *r, unsigned v)
{
	if (r->ram[RTC_REG_B] & RTC_B_DM)
		return v;
	return (v / 10) << 4 | v % 10;
}

static unsigned from_reg(const struct rtc *r, uint8_t v)
{
	if (r->ram[RTC_REG_B] & RTC_B_DM)
		return v;
	return (v >> 4) * 10 + (v & 0xf);
}

static uint8_t rtc_hours(const struct rtc *r, unsigned h)
{
	unsigned h12 = h % 12 ? h % 12 : 12;

	if (r->ram[RTC_REG_B] & RTC_B_24H)
		return to_reg(r, h);
	return to_reg(r, h12) | (h >= 12 ? RTC_HOUR_PM : 0);
}

static uint8_t rtc_time_reg(struct rtc *r, unsigned reg)
{
	struct rtc_tm tm;

	rtc_civil(rtc_time(r, NULL), &tm);
	switch (reg) {
	case RTC_SECONDS:
		return to_reg(r, tm.sec);
	case RTC_MINUTES:
		return to_reg(r, tm.min);
	case RTC_HOURS:
		return rtc_hours(r, tm.hour);
	case RTC_DAY_OF_WEEK:
		return to_reg(r, tm.wday + 1);		/* Sunday = 1 */
	case RTC_DAY_OF_MONTH:
		return to_reg(r, tm.mday);
	case RTC_MONTH:
		return to_reg(r, tm.mon);
	case RTC_YEAR:
		return to_reg(r, tm.year % 100);
	default:					/* RTC_CENTURY */
		return to_reg(r, tm.year / 100);
	}
}

static void rtc_set_time(struct rtc *r, int64_t t)
{
	if (r->ram[RTC_REG_B] & RTC_B_SET)
		r->frozen_s = t;
	else
		r->offset_s = t - (int64_t)(r->now_ns(r->ctx) / NS);
}

/* A write to a time register changes that field of the current time. */
static void rtc_write_time(struct rtc *r, unsigned reg, uint8_t val)
{
	unsigned v = from_reg(r, val & (reg == RTC_HOURS ? 0x7f : 0xff));
	struct rtc_tm tm;

	rtc_civil(rtc_time(r, NULL), &tm);
	switch (reg) {
	case RTC_SECONDS:
		tm.sec = v;
		break;
	case RTC_MINUTES:
		tm.min = v;
		break;
	case RTC_HOURS:
		if (!(r->ram[RTC_REG_B] & RTC_B_24H))
			v = v % 12 + (val & RTC_HOUR_PM ? 12 : 0);
		tm.hour = v;
		break;
	case RTC_DAY_OF_WEEK:
		return;			/* follows from the date */
	case RTC_DAY_OF_MONTH:
		tm.mday = v;
		break;
	case RTC_MONTH:
		tm.mon = v;
		break;
	case RTC_YEAR:
		tm.year = tm.year / 100 * 100 + v;
		break;
	default:			/* RTC_CENTURY */
		tm.year = v * 100 + tm.year % 100;
		break;
	}
	rtc_set_time(r, rtc_seconds(&tm));
}

static int is_time_reg(unsigned reg)
{
	return reg == RTC_SECONDS || reg == RTC_MINUTES || reg == RTC_HOURS ||
	       (reg >= RTC_DAY_OF_WEEK && reg <= RTC_YEAR) ||
	       reg == RTC_CENTURY;
}

static uint8_t rtc_read_data(struct rtc *r)
{
	unsigned reg = r->index;
	uint64_t frac;

	if (is_time_reg(reg))
		return rtc_time_reg(r, reg);
	switch (reg) {
	case RTC_REG_A:
		/* UIP: an update begins within 244 us (none while SET) */
		rtc_time(r, &frac);
		if (!(r->ram[RTC_REG_B] & RTC_B_SET) && frac >= NS - RTC_UIP_NS)
			return r->ram[RTC_REG_A] | RTC_A_UIP;
		return r->ram[RTC_REG_A];
	case RTC_REG_C:
		return 0;		/* no interrupt flags: nothing raises IRQ 8 */
	case RTC_REG_D:
		return RTC_D_VRT;	/* the battery is good */
	default:
		return r->ram[reg];
	}
}

static void rtc_write_data(struct rtc *r, uint8_t val)
{
	unsigned reg = r->index;
	int64_t t;

	if (is_time_reg(reg)) {
		rtc_write_time(r, reg, val);
		return;
	}
	switch (reg) {
	case RTC_REG_A:
		r->ram[reg] = val & ~RTC_A_UIP;		/* UIP is read-only */
		break;
	case RTC_REG_B:
		/* SET = 1 stops the updates; SET = 0 runs from the time set */
		t = rtc_time(r, NULL);
		r->ram[reg] = val;
		rtc_set_time(r, t);
		break;
	case RTC_REG_C:
	case RTC_REG_D:
		break;			/* read-only */
	default:
		r->ram[reg] = val;
	}
}

uint8_t rtc_read(struct rtc *r, unsigned port)
{
	if (port == RTC_PORT_DATA)
		return rtc_read_data(r);
	return 0xff;		/* the index port is write-only */
}

void rtc_write(struct rtc *r, unsigned port, uint8_t val)
{
	if (port == RTC_PORT_DATA)
		rtc_write_data(r, val);
	else
		r->index = val & 0x7f;	/* bit 7: the NMI mask, ignored */
}

uint64_t rtc_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct rtc *r = opaque;

	(void)cpu;
	if (size != 1) {
		r->bad_accesses++;
		return ~0ull;
	}
	return rtc_read(r, RTC_PORT_INDEX + off);
}

void rtc_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu)
{
	struct rtc *r = opaque;

	(void)cpu;
	if (size != 1) {
		r->bad_accesses++;
		return;
	}
	rtc_write(r, RTC_PORT_INDEX + off, val);
}
