// SPDX-License-Identifier: MIT
/*
 * Console output.
 *
 * Under irqlab-vmm every port access is a VM exit, so a byte-at-a-time
 * UART costs one exit (or more) per character.  The paravirtual console
 * costs one per line: we collect a line and pass its address with one
 * outl(IRQLAB_PORT_CONSOLE).  The VMM prints the string verbatim, newline
 * included, so a line longer than the buffer is simply sent in pieces.
 *
 * Elsewhere (QEMU, hardware) the console is the 16550 on COM1.
 *
 * console_lock() makes one CPU's output one piece: kprintf takes it for
 * each call, so lines printed by one kprintf never interleave with
 * another CPU's.  It nests on the CPU that holds it, so a fault while
 * printing can still print its @panic.
 */
#include <stddef.h>

#include "boot/cmdline.h"
#include "console.h"
#include "hw/irqlab.h"
#include "hw/ports.h"
#include "lib/kstring.h"
#include "dev/pv.h"
#include "arch/percpu.h"
#include "arch/spinlock.h"
#include "dev/uart.h"
#include "dev/vga.h"

/*
 * The paravirtual console prints a whole string per exit, so lines are
 * batched: a record line ('@' first, docs/RECORDS.md) is sent at once,
 * with every plain line before it; plain lines wait for the next record,
 * a full buffer, or console_flush() (kernel_exit() calls it).  A boot
 * costs one exit per record instead of one per line.
 */
#define PV_BUF_MAX	2048	/* bytes per exit, < IRQLAB_CONSOLE_MAX */
#define PV_LINE_MAX	256	/* a longer line is sent in pieces */

/*
 * The VGA mirror keeps the last REPLAY_LINES record lines (the result of
 * a boot: the checks' and cases' records, @ready or @panic), each cut at
 * REPLAY_COLS, for console_replay() to show again at the end.
 */
#define REPLAY_LINES	20
#define REPLAY_COLS	160

static int use_pv, use_vga;
static char replay[REPLAY_LINES][REPLAY_COLS + 1];
static unsigned replay_n, replay_col;
static int in_record, at_bol = 1;
static char pv_line[PV_BUF_MAX + 1];	/* + the NUL */
static size_t pv_len;
static size_t pv_bol;			/* where the current line began */

static struct spinlock lock = SPINLOCK_INIT;
static struct cpu *owner;		/* the CPU holding @lock, or NULL */
static unsigned depth;			/* its console_lock() calls */

_Static_assert(PV_BUF_MAX < IRQLAB_CONSOLE_MAX, "console buffer too long");

void console_init(void)
{
	use_pv = pv_present();
	if (use_pv)
		return;
	uart_init(PORT_COM1);
	if (!uart_present(PORT_COM1)) {
		use_vga = 1;		/* no serial port: the screen */
		vga_clear();
	}
}

void console_setup(void)
{
	const char *c = cmdline_get("console");

	if (!use_vga && c && !strcmp(c, "vga")) {
		use_vga = 1;
		vga_clear();
	}
}

/* Keep the record lines that pass for console_replay() */
static void replay_keep(char c)
{
	char *l = replay[replay_n % REPLAY_LINES];

	if (at_bol) {
		in_record = c == '@';
		if (in_record)
			replay_col = 0;
	}
	at_bol = c == '\n';
	if (!in_record)
		return;
	if (c == '\n') {
		l[replay_col] = '\0';
		replay_n++;
		in_record = 0;
	} else if (replay_col < REPLAY_COLS) {
		l[replay_col++] = c;
	}
}

void console_replay(void)
{
	unsigned i, first = replay_n > REPLAY_LINES ? replay_n - REPLAY_LINES : 0;
	const char *s;

	if (!use_vga)
		return;
	vga_clear();
	for (s = "irqlab: the last records again (all of them went by above)\n";
	     *s; s++)
		vga_putc(*s);
	for (i = first; i < replay_n; i++) {
		for (s = replay[i % REPLAY_LINES]; *s; s++)
			vga_putc(*s);
		vga_putc('\n');
	}
}

static void pv_send(void)
{
	if (!pv_len)
		return;
	pv_line[pv_len] = '\0';
	pv_console_write(pv_line);	/* the VMM copies it during the exit */
	pv_len = 0;
	pv_bol = 0;
}

static void pv_putc(char c)
{
	pv_line[pv_len++] = c;
	if (c != '\n' && pv_len - pv_bol < PV_LINE_MAX)
		return;
	if (pv_line[pv_bol] == '@' || PV_BUF_MAX - pv_len < PV_LINE_MAX)
		pv_send();
	else
		pv_bol = pv_len;
}

void console_putc(char c)
{
	if (use_vga) {
		vga_putc(c);
		replay_keep(c);
	}
	if (use_pv) {
		pv_putc(c);
		return;
	}
	/* a terminal wants CR LF */
	if (c == '\n')
		uart_putc(PORT_COM1, '\r');
	uart_putc(PORT_COM1, c);
}

/*
 * this_cpu() is only compared, never dereferenced: before smp_early_init()
 * it reads a constant from address 0 on the one CPU there is, still a
 * fine owner token.
 */
void console_lock(void)
{
	struct cpu *me = this_cpu();

	/* only this CPU can have stored @me in @owner */
	if (__atomic_load_n(&owner, __ATOMIC_RELAXED) == me) {
		depth++;
		return;
	}
	spin_lock(&lock);
	__atomic_store_n(&owner, me, __ATOMIC_RELAXED);
	depth = 1;
}

void console_unlock(void)
{
	if (--depth)
		return;
	__atomic_store_n(&owner, NULL, __ATOMIC_RELAXED);
	spin_unlock(&lock);
}

void console_flush(void)
{
	if (use_pv)
		pv_send();
	else
		uart_flush(PORT_COM1);
}
