// SPDX-License-Identifier: MIT
/*
 * The PC devices Linux probes: the MC146818A RTC (vmm/dev/rtc.c), PCI
 * configuration mechanism #1 with no device (pci.c), the 8042 with its
 * reset line (i8042.c), the ACPI PM1 blocks and S5 (acpipm.c).
 */
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "hw/acpi.h"
#include "dev/acpipm.h"
#include "dev/i8042.h"
#include "dev/pci.h"
#include "dev/rtc.h"

/* ---- RTC ---- */

/* 2024-02-29 23:59:58 UTC, a Thursday */
#define T0	1709251198ull
#define NS	1000000000ull

static uint64_t clock_ns;

static uint64_t fake_now(void *ctx)
{
	(void)ctx;
	return clock_ns;
}

static struct rtc r;

static uint8_t cmos(unsigned reg)
{
	rtc_write(&r, RTC_PORT_INDEX, reg);
	return rtc_read(&r, RTC_PORT_DATA);
}

static void cmos_set(unsigned reg, uint8_t v)
{
	rtc_write(&r, RTC_PORT_INDEX, reg);
	rtc_write(&r, RTC_PORT_DATA, v);
}

static void rtc_setup(void)
{
	clock_ns = T0 * NS;
	rtc_init(&r, fake_now, NULL);
}

TestSuite(rtc, .init = rtc_setup);

Test(rtc, bcd_24h_by_default)
{
	cr_assert_eq(cmos(RTC_REG_B) & (RTC_B_DM | RTC_B_24H), RTC_B_24H);
	cr_assert_eq(cmos(RTC_SECONDS), 0x58);
	cr_assert_eq(cmos(RTC_MINUTES), 0x59);
	cr_assert_eq(cmos(RTC_HOURS), 0x23);
	cr_assert_eq(cmos(RTC_DAY_OF_WEEK), 5, "Thursday: Sunday is 1");
	cr_assert_eq(cmos(RTC_DAY_OF_MONTH), 0x29);
	cr_assert_eq(cmos(RTC_MONTH), 0x02);
	cr_assert_eq(cmos(RTC_YEAR), 0x24);
	cr_assert_eq(cmos(RTC_CENTURY), 0x20);
	cr_assert_eq(cmos(RTC_REG_D), RTC_D_VRT, "valid RAM and time");
}

Test(rtc, follows_the_clock)
{
	clock_ns += 3 * NS;		/* 2024-03-01 00:00:01 */
	cr_assert_eq(cmos(RTC_SECONDS), 0x01);
	cr_assert_eq(cmos(RTC_HOURS), 0x00);
	cr_assert_eq(cmos(RTC_DAY_OF_MONTH), 0x01);
	cr_assert_eq(cmos(RTC_MONTH), 0x03);
}

Test(rtc, binary_and_12_hour_modes)
{
	cmos_set(RTC_REG_B, RTC_B_DM);		/* binary, 12-hour */
	cr_assert_eq(cmos(RTC_SECONDS), 58);
	cr_assert_eq(cmos(RTC_HOURS), 11 | RTC_HOUR_PM, "11 PM");
	cr_assert_eq(cmos(RTC_YEAR), 24);
	cmos_set(RTC_REG_B, 0);			/* BCD, 12-hour */
	cr_assert_eq(cmos(RTC_HOURS), 0x11 | RTC_HOUR_PM);
	clock_ns += 2 * NS;			/* midnight: 12 AM */
	cr_assert_eq(cmos(RTC_HOURS), 0x12);
}

/* MC146818A: UIP is 1 from 244 us before an update, never while SET */
Test(rtc, update_in_progress)
{
	cr_assert_eq(cmos(RTC_REG_A) & RTC_A_UIP, 0);
	clock_ns = T0 * NS + NS - RTC_UIP_NS - 1;
	cr_assert_eq(cmos(RTC_REG_A) & RTC_A_UIP, 0);
	clock_ns++;
	cr_assert_eq(cmos(RTC_REG_A), 0x26 | RTC_A_UIP);
	cmos_set(RTC_REG_B, RTC_B_24H | RTC_B_SET);
	cr_assert_eq(cmos(RTC_REG_A) & RTC_A_UIP, 0);
	cmos_set(RTC_REG_A, 0xff);
	cr_assert_eq(cmos(RTC_REG_A), 0x7f, "UIP is read-only");
}

/* Bit 7 of port 0x70 masks NMIs on a PC: ignored, the index is 6:0. */
Test(rtc, nmi_mask_bit_ignored)
{
	rtc_write(&r, RTC_PORT_INDEX, 0x80 | RTC_MINUTES);
	cr_assert_eq(rtc_read(&r, RTC_PORT_DATA), 0x59);
	cr_assert_eq(rtc_read(&r, RTC_PORT_INDEX), 0xff, "write-only");
}

/* A guest that sets the time keeps it, running on from there. */
Test(rtc, set_time)
{
	cmos_set(RTC_REG_B, RTC_B_24H | RTC_B_SET);
	cmos_set(RTC_HOURS, 0x08);
	cmos_set(RTC_YEAR, 0x28);		/* a leap year too */
	clock_ns += 100 * NS;			/* stopped while SET */
	cr_assert_eq(cmos(RTC_SECONDS), 0x58);
	cmos_set(RTC_REG_B, RTC_B_24H);
	clock_ns += 5 * NS;
	cr_assert_eq(cmos(RTC_SECONDS), 0x03);
	cr_assert_eq(cmos(RTC_MINUTES), 0x00);
	cr_assert_eq(cmos(RTC_HOURS), 0x09);
	cr_assert_eq(cmos(RTC_YEAR), 0x28);
	cr_assert_eq(cmos(RTC_MONTH), 0x02);
}

/* The model's own calendar against libc's, in binary mode, 1901-2250 */
Test(rtc, calendar_matches_gmtime)
{
	int64_t t;
	struct tm tm;
	time_t tt;

	cmos_set(RTC_REG_B, RTC_B_24H | RTC_B_DM);
	for (t = -2100000000ll; t < 8800000000ll; t += 999983) {
		clock_ns = 0;
		r.offset_s = t;
		tt = t;
		gmtime_r(&tt, &tm);
		cr_assert_eq(cmos(RTC_SECONDS), tm.tm_sec, "t=%lld", (long long)t);
		cr_assert_eq(cmos(RTC_MINUTES), tm.tm_min);
		cr_assert_eq(cmos(RTC_HOURS), tm.tm_hour);
		cr_assert_eq(cmos(RTC_DAY_OF_WEEK), tm.tm_wday + 1);
		cr_assert_eq(cmos(RTC_DAY_OF_MONTH), tm.tm_mday);
		cr_assert_eq(cmos(RTC_MONTH), tm.tm_mon + 1);
		cr_assert_eq(cmos(RTC_YEAR), tm.tm_year % 100);
		cr_assert_eq(cmos(RTC_CENTURY), (tm.tm_year + 1900) / 100);
		/* writing back what it reads changes nothing */
		cmos_set(RTC_DAY_OF_MONTH, tm.tm_mday);
		cr_assert_eq(r.offset_s, t);
	}
	/* a month of 13 carries into the next year, as timegm()'s does */
	clock_ns = T0 * NS;
	r.offset_s = 0;
	cmos_set(RTC_MONTH, 13);
	cr_assert_eq(cmos(RTC_YEAR), 25);
	cr_assert_eq(cmos(RTC_MONTH), 1);
	cr_assert_eq(cmos(RTC_DAY_OF_MONTH), 29);
}

Test(rtc, cmos_ram_and_register_c)
{
	cmos_set(0x0f, 0x5a);
	cmos_set(0x7f, 0xa5);
	cr_assert_eq(cmos(0x0f), 0x5a);
	cr_assert_eq(cmos(0x7f), 0xa5);
	cmos_set(RTC_REG_C, 0xff);
	cr_assert_eq(cmos(RTC_REG_C), 0, "no interrupt flags, read-only");
	cmos_set(RTC_REG_D, 0);
	cr_assert_eq(cmos(RTC_REG_D), RTC_D_VRT);
	cr_assert_eq(rtc_bus_read(&r, 1, 2, 0), ~0ull, "word access");
	cr_assert_eq(r.bad_accesses, 1);
}

/* ---- PCI ---- */

Test(pci, no_device_behind_mechanism_1)
{
	struct pci_host p;

	pci_init(&p);
	pci_bus_write(&p, 0, 4, 0x80000000u, 0);	/* bus 0, dev 0, reg 0 */
	cr_assert_eq(pci_bus_read(&p, 0, 4, 0), 0x80000000u, "latched");
	cr_assert_eq(pci_bus_read(&p, 4, 4, 0) & 0xffffffff, 0xffffffffu,
		     "vendor ID 0xffff: no device");
	cr_assert_eq(pci_bus_read(&p, 6, 2, 0) & 0xffff, 0xffff);
	pci_bus_write(&p, 4, 4, 0x12345678, 0);		/* dropped */
	cr_assert_eq(p.config_reads, 2);
	cr_assert_eq(p.config_writes, 1);
	/* bits 30:24 and 1:0 read 0 */
	pci_bus_write(&p, 0, 4, 0xffffffffu, 0);
	cr_assert_eq(pci_bus_read(&p, 0, 4, 0), 0x80fffffcu);
	/* a byte at 0xcfb is not CONFIG_ADDRESS (Linux's type 1 probe) */
	pci_bus_write(&p, 3, 1, 0x01, 0);
	cr_assert_eq(pci_bus_read(&p, 0, 4, 0), 0x80fffffcu);
	cr_assert_eq(pci_bus_read(&p, 0, 1, 0) & 0xff, 0xff);
	/* enable clear: CONFIG_DATA is plain I/O, not a config cycle */
	pci_bus_write(&p, 0, 4, 0, 0);
	cr_assert_eq(pci_bus_read(&p, 4, 4, 0) & 0xffffffff, 0xffffffffu);
	cr_assert_eq(p.config_reads, 2);
}

/* ---- i8042 ---- */

static struct i8042 k;
static int resets, kbd_irq;

static void on_reset(void *ctx)
{
	(void)ctx;
	resets++;
}

static void on_irq(void *ctx, int level)
{
	(void)ctx;
	kbd_irq = level;
}

static void kbc_setup(void)
{
	resets = kbd_irq = 0;
	i8042_init(&k, on_reset, on_irq, NULL);
}

TestSuite(i8042, .init = kbc_setup);

static uint8_t status(void)
{
	return i8042_read(&k, I8042_PORT_CMD);
}

Test(i8042, self_test_and_status)
{
	cr_assert_eq(status() & (I8042_STR_OBF | I8042_STR_IBF), 0,
		     "empty, never busy");
	i8042_write(&k, I8042_PORT_CMD, 0xaa);
	cr_assert_eq(status() & (I8042_STR_OBF | I8042_STR_SYS | I8042_STR_CMD),
		     I8042_STR_OBF | I8042_STR_SYS | I8042_STR_CMD);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0x55, "self-test passed");
	cr_assert_eq(status() & I8042_STR_OBF, 0);
	i8042_write(&k, I8042_PORT_CMD, 0xab);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0x00);
	cr_assert_eq(resets, 0);
}

Test(i8042, command_byte)
{
	i8042_write(&k, I8042_PORT_CMD, 0x20);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA),
		     I8042_CTR_KBDINT | I8042_CTR_SYS | I8042_CTR_XLATE);
	i8042_write(&k, I8042_PORT_CMD, 0x60);
	i8042_write(&k, I8042_PORT_DATA, I8042_CTR_KBDDIS);
	cr_assert_eq(status() & I8042_STR_CMD, 0, "the last write was data");
	i8042_write(&k, I8042_PORT_CMD, 0xae);
	i8042_write(&k, I8042_PORT_CMD, 0xa7);
	i8042_write(&k, I8042_PORT_CMD, 0x20);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), I8042_CTR_AUXDIS);
	cr_assert_eq(status() & I8042_STR_SYS, 0, "SYS follows the byte");
}

/* The keyboard's answers, and IRQ 1 while its byte waits (CTR bit 0) */
Test(i8042, keyboard_answers_and_irq1)
{
	i8042_write(&k, I8042_PORT_DATA, 0xff);		/* reset */
	cr_assert_eq(kbd_irq, 1);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0xfa, "ACK");
	cr_assert_eq(kbd_irq, 1);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0xaa, "BAT passed");
	cr_assert_eq(kbd_irq, 0);
	i8042_write(&k, I8042_PORT_DATA, 0xf2);		/* identify */
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0xfa);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0xab);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0x83);
	i8042_write(&k, I8042_PORT_CMD, 0x60);
	i8042_write(&k, I8042_PORT_DATA, 0);		/* IRQ off */
	i8042_write(&k, I8042_PORT_DATA, 0xf4);
	cr_assert_eq(kbd_irq, 0);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA), 0xfa);
}

/* The reset line: command 0xfe, or the output port's bit 0 low */
Test(i8042, reset_line)
{
	i8042_write(&k, I8042_PORT_CMD, 0xff);		/* pulses nothing */
	cr_assert_eq(resets, 0);
	i8042_write(&k, I8042_PORT_CMD, 0xfe);
	cr_assert_eq(resets, 1);
	i8042_write(&k, I8042_PORT_CMD, 0xd0);
	cr_assert_eq(i8042_read(&k, I8042_PORT_DATA) & 1, 1, "not in reset");
	i8042_write(&k, I8042_PORT_CMD, 0xd1);
	i8042_write(&k, I8042_PORT_DATA, 0x02);		/* bit 0 low */
	cr_assert_eq(resets, 2);
	i8042_write(&k, I8042_PORT_CMD, 0xd1);
	i8042_write(&k, I8042_PORT_DATA, 0x03);
	cr_assert_eq(resets, 2);
}

Test(i8042, bounded_queue_and_bad_access)
{
	unsigned i;

	for (i = 0; i < 100; i++)
		i8042_write(&k, I8042_PORT_DATA, 0xf4);
	cr_assert_eq(k.count, I8042_QUEUE, "the guest never read: bounded");
	cr_assert_eq(i8042_cmd_read(&k, 0, 2, 0), ~0ull);
	i8042_data_write(&k, 0, 4, 0xfe, 0);
	cr_assert_eq(k.bad_accesses, 2);
	cr_assert_eq(resets, 0);
}

/* ---- ACPI PM1 ---- */

static int off_status = -1;

static void on_poweroff(void *ctx, int st)
{
	(void)ctx;
	off_status = st;
}

static int refused_typ = -1;

static void on_no_sleep(void *ctx, unsigned typ)
{
	(void)ctx;
	refused_typ = (int)typ;
}

/* ACPI 6.5 4.8.3.2.1: SLP_TYP is the value of an \_Sx object; the DSDT
 * has \_S5 alone, so S3's (QEMU's DSDT gives it 1) is refused, clearly */
Test(acpipm, a_sleep_state_not_offered_is_refused)
{
	struct acpipm pm;

	acpipm_init(&pm, on_poweroff, NULL);
	pm.no_sleep = on_no_sleep;
	off_status = -1;
	acpipm_bus_write(&pm, 4, 2, 1 << ACPI_PM1_SLP_TYP_SHIFT, 0);
	cr_assert_eq(refused_typ, -1, "SLP_TYP alone asks for nothing");
	acpipm_bus_write(&pm, 4, 2, 1 << ACPI_PM1_SLP_TYP_SHIFT |
			 ACPI_PM1_SLP_EN, 0);
	cr_assert_eq(refused_typ, 1, "S3's SLP_TYP refused, named");
	cr_assert_eq(off_status, -1, "not taken for a power-off");
	cr_assert_eq(pm.sleeps_refused, 1);
	acpipm_bus_write(&pm, 4, 2, ACPI_SLP_TYP_S5 << ACPI_PM1_SLP_TYP_SHIFT |
			 ACPI_PM1_SLP_EN, 0);
	cr_assert_eq(off_status, 0, "S5 still powers off");
	cr_assert_eq(pm.sleeps_refused, 1);
}

Test(acpipm, sci_en_and_s5_poweroff)
{
	struct acpipm pm;
	uint16_t typ5 = ACPI_SLP_TYP_S5 << ACPI_PM1_SLP_TYP_SHIFT;

	acpipm_init(&pm, on_poweroff, NULL);
	cr_assert_eq(acpipm_bus_read(&pm, 4, 2, 0) & ACPI_PM1_SCI_EN, 1,
		     "ACPI mode from reset");
	cr_assert_eq(acpipm_bus_read(&pm, 0, 2, 0), 0, "no status bit");
	acpipm_bus_write(&pm, 2, 2, 0x0120, 0);
	cr_assert_eq(acpipm_bus_read(&pm, 2, 2, 0), 0x0120, "PM1_EN");
	/* Linux writes SLP_TYP first, then SLP_TYP | SLP_EN */
	acpipm_bus_write(&pm, 4, 2, typ5 | 1, 0);
	cr_assert_eq(off_status, -1);
	acpipm_bus_write(&pm, 4, 2, 1 << ACPI_PM1_SLP_TYP_SHIFT |
			 ACPI_PM1_SLP_EN, 0);
	cr_assert_eq(off_status, -1, "S1 is not offered: no power-off");
	cr_assert_eq(pm.sleeps_refused, 1, "and no callback: counted");
	cr_assert_eq(acpipm_bus_read(&pm, 4, 2, 0) & ACPI_PM1_SLP_EN, 0,
		     "SLP_EN reads 0");
	acpipm_bus_write(&pm, 5, 1, (typ5 | ACPI_PM1_SLP_EN) >> 8, 0);
	cr_assert_eq(off_status, 0, "S5: off, status 0");
	acpipm_bus_write(&pm, 3, 2, 0, 0);		/* straddles two */
	cr_assert_eq(pm.bad_accesses, 1);
}
