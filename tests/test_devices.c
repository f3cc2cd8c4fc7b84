// SPDX-License-Identifier: MIT
/* fw_cfg, debugcon/isa-debug-exit and the irqlab protocol port. */
#include <criterion/criterion.h>
#include <string.h>

#include "dev/debugdev.h"
#include "dev/fw_cfg.h"
#include "hw/irqlab.h"
#include "hw/ports.h"
#include "dev/pvport.h"

static void select_item(struct fw_cfg *f, uint16_t key)
{
	fw_cfg_write(f, 0, 2, key, 0);
}

static uint8_t data_byte(struct fw_cfg *f)
{
	return fw_cfg_read(f, 1, 1, 0);
}

Test(fw_cfg, signature_and_cpu_count)
{
	struct fw_cfg f;
	char sig[5] = { 0 };
	unsigned i;

	fw_cfg_init(&f, 4);
	select_item(&f, FW_CFG_SIGNATURE);
	for (i = 0; i < 4; i++)
		sig[i] = data_byte(&f);
	cr_assert_str_eq(sig, "QEMU");
	cr_assert_eq(data_byte(&f), 0, "past the end reads 0");

	select_item(&f, FW_CFG_NB_CPUS);
	cr_assert_eq(data_byte(&f), 4);
	cr_assert_eq(data_byte(&f), 0);
	select_item(&f, FW_CFG_NB_CPUS);	/* reselecting rewinds */
	cr_assert_eq(fw_cfg_read(&f, 1, 2, 0), 4, "a 16-bit read takes 2 bytes");

	select_item(&f, FW_CFG_ID);
	cr_assert_eq(data_byte(&f), 1, "traditional interface, no DMA");
	select_item(&f, 0x1234);
	cr_assert_eq(data_byte(&f), 0, "unknown items read 0");
	cr_assert_eq(fw_cfg_read(&f, 0, 2, 0) & 0xffff, 0xffff,
		     "the selector is write-only: it floats");
	fw_cfg_write(&f, 1, 1, 0x55, 0);	/* data writes are ignored */
	select_item(&f, FW_CFG_SIGNATURE);
	cr_assert_eq(data_byte(&f), 'Q');
}

static char dbg_out[16];
static unsigned dbg_n;
static int dbg_status = -1;

static void dbg_print(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	while (len-- && dbg_n < sizeof(dbg_out) - 1)
		dbg_out[dbg_n++] = *buf++;
}

static void dbg_poweroff(void *ctx, int status)
{
	(void)ctx;
	dbg_status = status;
}

Test(debugdev, debugcon_and_debug_exit)
{
	struct debugdev d = { dbg_print, dbg_poweroff, NULL };

	cr_assert_eq(debugcon_read(&d, 0, 1, 0), 0xe9, "bochs detection value");
	debugcon_write(&d, 0, 1, 'o', 0);
	debugcon_write(&d, 0, 1, 'k', 0);
	cr_assert_str_eq(dbg_out, "ok");
	debug_exit_write(&d, 0, 1, 0, 0);
	cr_assert_eq(dbg_status, 1, "QEMU: (0 << 1) | 1");
	debug_exit_write(&d, 0, 4, 0x10, 0);
	cr_assert_eq(dbg_status, 0x21);
}

/* ---- the protocol port, against 1 MiB of fake guest RAM ---- */

static struct guest_mem mem;
static char pv_out[8192];
static size_t pv_n;
static int pv_status = -1;
static unsigned pv_phase;

static void pv_print(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	memcpy(pv_out + pv_n, buf, len);
	pv_n += len;
}

static void pv_off(void *ctx, int status)
{
	(void)ctx;
	pv_status = status;
}

static void pv_set_phase(void *ctx, unsigned phase)
{
	(void)ctx;
	pv_phase = phase;
}

static void pv_snap(void *ctx, struct irqlab_snapshot *s)
{
	unsigned i;

	(void)ctx;
	s->count = IRQLAB_NR_COUNTERS;
	s->ncpus = 2;
	for (i = 0; i < IRQLAB_NR_COUNTERS; i++)
		s->counter[i] = 100 + i;
}

static int pv_eoi_cpu;
static uint32_t *pv_eoi_word;

static int pv_eoi(void *ctx, int cpu, uint32_t *word)
{
	(void)ctx;
	pv_eoi_cpu = cpu;
	pv_eoi_word = word;
	return 0;
}

static struct pvport pv;

static void pv_setup(void)
{
	cr_assert_eq(mem_init(&mem, 1 << 20), 0);
	pv = (struct pvport){ .mem = &mem, .out = pv_print, .poweroff = pv_off,
			      .set_phase = pv_set_phase, .snapshot = pv_snap,
			      .pv_eoi = pv_eoi };
	pv_eoi_cpu = -1;
	pv_eoi_word = NULL;
	pv_n = 0;
	memset(pv_out, 0, sizeof(pv_out));
}

static void pv_teardown(void)
{
	mem_free(&mem);
}

TestSuite(pvport, .init = pv_setup, .fini = pv_teardown);

#define R(port)	((port) - IRQLAB_PORT_BASE)

Test(pvport, signature_and_version)
{
	cr_assert_eq(pvport_read(&pv, R(IRQLAB_PORT_SIG), 4, 0), IRQLAB_SIGNATURE);
	cr_assert_eq(pvport_read(&pv, R(IRQLAB_PORT_VERSION), 4, 0), IRQLAB_VERSION);
	cr_assert_eq(pvport_read(&pv, R(IRQLAB_PORT_SIG), 1, 0), ~0ull,
		     "only 32-bit accesses");
	cr_assert_eq(pv.bad_accesses, 1);
}

Test(pvport, console_prints_one_string_per_write)
{
	strcpy((char *)mem.host + 0x2000, "hello, guest\n");
	pvport_write(&pv, R(IRQLAB_PORT_CONSOLE), 4, 0x2000, 0);
	cr_assert_str_eq(pv_out, "hello, guest\n");
}

Test(pvport, console_is_bounded_by_ram_and_length)
{
	/* no NUL before the end of RAM: prints what is there, no further */
	memset(mem.host + (1 << 20) - 5, 'x', 5);
	pvport_write(&pv, R(IRQLAB_PORT_CONSOLE), 4, (1 << 20) - 5, 0);
	cr_assert_eq(pv_n, 5);
	/* no NUL for 8 KiB: at most IRQLAB_CONSOLE_MAX bytes */
	pv_n = 0;
	memset(mem.host, 'y', 8192);
	pvport_write(&pv, R(IRQLAB_PORT_CONSOLE), 4, 0, 0);
	cr_assert_eq(pv_n, IRQLAB_CONSOLE_MAX);
	/* outside RAM: ignored and counted */
	pv_n = 0;
	pvport_write(&pv, R(IRQLAB_PORT_CONSOLE), 4, 0xfee00000, 0);
	cr_assert_eq(pv_n, 0);
	cr_assert_eq(pv.bad_accesses, 1);
}

Test(pvport, snapshot_respects_guest_size)
{
	struct irqlab_snapshot *s = (void *)(mem.host + 0x3000);
	uint64_t *after = (uint64_t *)(mem.host + 0x3000 + 16 + 3 * 8);

	s->size = 16 + 3 * 8;		/* room for three counters */
	*after = 0xdeadbeef;
	pvport_write(&pv, R(IRQLAB_PORT_SNAPSHOT), 4, 0x3000, 0);
	cr_assert_eq(s->count, 3);
	cr_assert_eq(s->ncpus, 2);
	cr_assert_eq(s->counter[0], 100);
	cr_assert_eq(s->counter[2], 102);
	cr_assert_eq(*after, 0xdeadbeef, "nothing written past size");

	s->size = sizeof(*s) + 100;	/* larger than the VMM's: clamped */
	pvport_write(&pv, R(IRQLAB_PORT_SNAPSHOT), 4, 0x3000, 0);
	cr_assert_eq(s->count, IRQLAB_NR_COUNTERS);
	cr_assert_eq(s->size, sizeof(*s));

	pvport_write(&pv, R(IRQLAB_PORT_SNAPSHOT), 4, (1 << 20) - 2, 0);
	cr_assert_eq(pv.bad_accesses, 1, "snapshot across the end of RAM");
}

Test(pvport, phase_and_poweroff)
{
	pvport_write(&pv, R(IRQLAB_PORT_PHASE), 4, IRQLAB_PHASE_CALIB, 0);
	cr_assert_eq(pv_phase, IRQLAB_PHASE_CALIB);
	pvport_write(&pv, R(IRQLAB_PORT_PHASE), 4, 99, 0);
	cr_assert_eq(pv_phase, IRQLAB_PHASE_CALIB, "bad phase ignored");
	cr_assert_eq(pv.bad_accesses, 1);
	pvport_write(&pv, R(IRQLAB_PORT_POWEROFF), 4, 0x131, 0);
	cr_assert_eq(pv_status, 0x31, "exit statuses are 8 bits");
}

/* /dev/port's one outb: PHASE only, a phase that exists only */
Test(pvport, phase_by_one_byte)
{
	pvport_write(&pv, R(IRQLAB_PORT_PHASE), 1, IRQLAB_PHASE_BENCH, 0);
	cr_assert_eq(pv_phase, IRQLAB_PHASE_BENCH);
	cr_assert_eq(pv.bad_accesses, 0);
	pvport_write(&pv, R(IRQLAB_PORT_PHASE), 1, IRQLAB_NR_PHASES, 0);
	cr_assert_eq(pv_phase, IRQLAB_PHASE_BENCH, "bad phase ignored");
	cr_assert_eq(pv.bad_accesses, 1);
	pvport_write(&pv, R(IRQLAB_PORT_PHASE) + 1, 1, 0, 0);
	pvport_write(&pv, R(IRQLAB_PORT_PHASE), 2, IRQLAB_PHASE_EARLY, 0);
	pvport_write(&pv, R(IRQLAB_PORT_POWEROFF), 1, 0, 0);
	cr_assert_eq(pv_phase, IRQLAB_PHASE_BENCH);
	cr_assert_eq(pv.bad_accesses, 4, "other bytes and widths stay bad");
	cr_assert_eq(pv_status, -1, "no power-off by one byte");
}

/* PV EOI: the word must be 4-byte aligned guest RAM; 0 turns it off */
Test(pvport, pv_eoi_word_is_checked)
{
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0x4000, 1);
	cr_assert_eq(pv_eoi_cpu, 1, "per vCPU: the writer's");
	cr_assert_eq(pv_eoi_word, mem_ptr(&mem, 0x4000, 4));
	cr_assert_eq(pv.bad_accesses, 0);
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0x4002, 1);
	cr_assert_null(pv_eoi_word, "misaligned: off");
	cr_assert_eq(pv.bad_accesses, 1);
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, (1 << 20) - 2, 0);
	cr_assert_null(pv_eoi_word, "straddles the end of RAM: off");
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0xfee000b0, 0);
	cr_assert_null(pv_eoi_word, "not RAM: off");
	cr_assert_eq(pv.bad_accesses, 3);
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0x4000, 0);
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0, 0);
	cr_assert_null(pv_eoi_word, "0: off, not an error");
	cr_assert_eq(pv.bad_accesses, 3);
}

Test(pvport, pv_eoi_not_offered_is_counted)
{
	pv.pv_eoi = NULL;
	pvport_write(&pv, R(IRQLAB_PORT_PV_EOI), 4, 0x4000, 0);
	cr_assert_eq(pv.bad_accesses, 1);
}
