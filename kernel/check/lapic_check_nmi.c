// SPDX-License-Identifier: MIT
/*
 * check=lapic, part nmi: NMIs sent by ICR (SDM vol. 3A 11.6.1, delivery
 * mode 100b) are latched, not merged, and outrank maskable interrupts.
 *
 *   race      nmi_rounds=N rounds (default 200, a few seconds where an
 *             exit costs 15 us; up to 1000000): the BSP sends
 *             itself an NMI while CPU 1 sends the BSP an NMI and then a
 *             fixed IPI.  Per round both NMIs arrive, and no more; and
 *             the fixed IPI's handler does not run before the NMIs sent
 *             ahead of it were taken (SDM 6.9: an NMI outranks a maskable
 *             interrupt; the two NMIs never overlap more than one in
 *             service and one latched, SDM 6.7.1).
 *   pending   the same number of rounds of: a self NMI whose handler
 *             sends ten more self NMIs.  While an NMI handler runs, NMIs
 *             are blocked until its IRET, and one more is held pending
 *             (SDM 6.7.1): exactly one more NMI, after the IRET.
 *
 * "Taken ahead of the fixed IPI": the AP's NMI always is (it was sent
 * first).  The BSP's own is too once the BSP's ICR write has completed
 * (phase), as the NMI is then pending when the fixed IPI can be taken.
 *
 * Each round's waits are bounded; the rounds stop after MAX_BAD failing
 * ones.  A failure with a LAPIC that is KVM's (split and kernel irqchip,
 * lapic_check_host.c) is HOST: irqlab-vmm sees none of these ICR writes.
 */
#include <stddef.h>
#include <stdint.h>

#include "hw/apic.h"
#include "boot/cmdline.h"
#include "arch/idt.h"
#include "dev/lapic.h"
#include "lapic_check.h"
#include "lapic_check_util.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define PART		"nmi"
#define VEC_FLUSH	0xa4	/* the AP's fixed IPI after its NMI */
#define NMI_VEC		2
#define ROUNDS_DEFAULT	200
#define ROUNDS_MAX	1000000
#define MAX_BAD		10	/* failing rounds before giving up */
#define WAIT_US		1000000	/* for what must come */
#define LATE_US		20000	/* for an NMI that should be there already */
#define QUIET_US	20000	/* "no more" */
#define AP_WAIT_US	2000000	/* the AP, for the BSP's next round */

/* ICR, delivery mode NMI, to physical APIC ID @dest (SDM 11.6.1). */
static void nmi_send(uint32_t dest)
{
	uint32_t lo = APIC_ICR_DEST_FIELD | APIC_ICR_DM_NMI | APIC_ICR_ASSERT;
	uint32_t hi;

	if (lapic_mode() == LAPIC_X2APIC) {
		wrmsr(X2APIC_MSR(APIC_ICR_LO), (uint64_t)dest << 32 | lo);
		return;
	}
	/* an NMI can come between lapic.c's ICR_HI and ICR_LO: put back
	 * the ICR_HI it wrote (and caches in struct cpu) */
	hi = lapic_read(APIC_ICR_HI);
	lapic_write(APIC_ICR_HI, dest << APIC_ICR_XAPIC_DEST_SHIFT);
	lapic_write(APIC_ICR_LO, lo);
	lapic_write(APIC_ICR_HI, hi);
}

static uint32_t bsp_id;
static unsigned rounds;

/* ---- race: the BSP's self NMI against the AP's NMI + fixed IPI ---- */

static uint32_t nmis;			/* NMIs this round */
static volatile uint32_t phase;		/* 1: the BSP's NMI ICR write done */
static uint32_t flushed;		/* the fixed IPI's handler ran */
static uint32_t nmis_at_flush, phase_at_flush;
static uint32_t go, ap_sent, ap_quit, ap_done;
static unsigned peer;			/* the AP that sends */

static void race_nmi(struct trap_frame *tf)
{
	(void)tf;
	__atomic_fetch_add(&nmis, 1, __ATOMIC_RELEASE);
}

static void race_flush(struct trap_frame *tf)
{
	(void)tf;
	nmis_at_flush = __atomic_load_n(&nmis, __ATOMIC_ACQUIRE);
	phase_at_flush = phase;
	lapic_eoi();
	__atomic_store_n(&flushed, 1, __ATOMIC_RELEASE);
}

/* CPU @peer: per round, an NMI and then the fixed IPI to the BSP. */
static void race_ap(void)
{
	uint32_t r;

	if (this_cpu()->index != peer)
		return;
	for (r = 1;; r++) {
		if (lc_wait_ge(&go, r, AP_WAIT_US) ||
		    __atomic_load_n(&ap_quit, __ATOMIC_ACQUIRE))
			break;
		nmi_send(bsp_id);
		lapic_send_ipi(bsp_id, VEC_FLUSH);
		__atomic_store_n(&ap_sent, r, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ap_done, 1, __ATOMIC_RELEASE);
}

struct race_result {
	unsigned done, lost, extra, first, stuck;
	int stuck_sent;		/* the AP had sent the fixed IPI */
	unsigned bad_round;	/* the first failing one, 1-based */
	uint32_t bad_nmis, bad_at_flush, bad_phase;
};

/* One round on the BSP (IF = 1); 0 if it held. */
static int race_round(uint32_t r, struct race_result *res)
{
	int bad = 0;
	uint32_t n;

	__atomic_store_n(&nmis, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&flushed, 0, __ATOMIC_RELEASE);
	nmis_at_flush = phase_at_flush = 0;
	phase = 0;
	__atomic_store_n(&go, r, __ATOMIC_RELEASE);
	nmi_send(bsp_id);
	phase = 1;
	if (lc_wait_ge(&flushed, 1, WAIT_US)) {
		res->stuck++;
		res->stuck_sent = __atomic_load_n(&ap_sent, __ATOMIC_ACQUIRE)
				  >= r;
		bad = 1;
	}
	(void)lc_wait_ge(&ap_sent, r, WAIT_US);
	(void)lc_wait_ge(&nmis, 2, LATE_US);
	n = __atomic_load_n(&nmis, __ATOMIC_ACQUIRE);
	if (n < 2)
		res->lost++;
	if (n > 2)
		res->extra++;
	if (!res->stuck && nmis_at_flush < 1 + phase_at_flush)
		res->first++;
	bad |= n != 2 || nmis_at_flush < 1 + phase_at_flush;
	if (bad && !res->bad_round) {
		res->bad_round = r;
		res->bad_nmis = n;
		res->bad_at_flush = nmis_at_flush;
		res->bad_phase = phase_at_flush;
	}
	return bad;
}

static void check_race(void)
{
	struct race_result res = { 0 };
	enum lc_result fail;
	uint64_t t0, us;
	unsigned nbad = 0;
	uint32_t r;

	peer = 1;
	if (smp_nr_online() < 2 ||
	    !__atomic_load_n(&cpus[peer].online, __ATOMIC_ACQUIRE)) {
		lc_step(PART, "race", LC_SKIP, "needs a second CPU");
		return;
	}
	idt_set_handler(NMI_VEC, race_nmi);
	idt_set_handler(VEC_FLUSH, race_flush);
	smp_run_on_aps(race_ap);
	sti();
	t0 = rdtsc();
	for (r = 1; r <= rounds && nbad < MAX_BAD && !res.stuck; r++) {
		nbad += race_round(r, &res);
		res.done++;
	}
	us = lc_tsc_us(rdtsc() - t0);
	__atomic_store_n(&ap_quit, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&go, r, __ATOMIC_RELEASE);
	(void)lc_wait_ge(&ap_done, 1, WAIT_US);
	lc_delay_us(QUIET_US);
	cli();
	kprintf("lapic_check: nmi: race: rounds=%u of %u us=%lu lost=%u "
		"extra=%u fixed_first=%u stuck=%u\n", res.done, rounds, us,
		res.lost, res.extra, res.first, res.stuck);
	fail = lc_apic_owner() == LC_APIC_HOST ? LC_HOST : LC_FAIL;
	if (!nbad)
		lc_expect(PART, "race", 1, "all rounds held");
	else if (res.stuck)
		lc_step(PART, "race", fail, "round %u: the fixed IPI did not "
			"run in %u us (the AP %s it); %u rounds failed before; "
			"LAPIC %s", res.done, WAIT_US, res.stuck_sent ?
			"sent" : "never sent", nbad - 1, lc_apic_owner_name());
	else
		lc_step(PART, "race", fail, "%u of %u rounds failed%s: lost "
			"%u, extra %u, fixed IPI first %u; round %u: %u NMIs, %u "
			"at the fixed IPI (self NMI %s); LAPIC %s", nbad,
			res.done, nbad >= MAX_BAD ? ", stopped" : "", res.lost,
			res.extra, res.first, res.bad_round, res.bad_nmis,
			res.bad_at_flush, res.bad_phase ? "sent" : "unsure",
			lc_apic_owner_name());
}

/* ---- pending: ten self NMIs from inside the handler ---- */

static uint32_t pnmis;		/* NMIs, all rounds */
static uint32_t nested;		/* an NMI that came inside the handler */
static volatile int in_nmi;
static volatile int armed;	/* the next NMI is a round's first */

static void pending_nmi(struct trap_frame *tf)
{
	int i;

	(void)tf;
	if (in_nmi)
		__atomic_fetch_add(&nested, 1, __ATOMIC_RELAXED);
	in_nmi = 1;
	__atomic_fetch_add(&pnmis, 1, __ATOMIC_RELEASE);
	if (armed) {		/* the round's first: ten more, blocked */
		armed = 0;
		for (i = 0; i < 10; i++)
			nmi_send(bsp_id);
	}
	in_nmi = 0;
}

static void check_pending(void)
{
	enum lc_result fail;
	uint64_t t0, us;
	uint32_t r, n, due;

	idt_set_handler(NMI_VEC, pending_nmi);
	t0 = rdtsc();
	for (r = 0; r < rounds; r++) {
		armed = 1;
		nmi_send(bsp_id);
		if (lc_wait_ge(&pnmis, 2 * (r + 1), WAIT_US) ||
		    __atomic_load_n(&pnmis, __ATOMIC_ACQUIRE) != 2 * (r + 1))
			break;
	}
	us = lc_tsc_us(rdtsc() - t0);
	lc_delay_us(QUIET_US);
	n = __atomic_load_n(&pnmis, __ATOMIC_ACQUIRE);
	due = 2 * (r < rounds ? r + 1 : rounds);
	kprintf("lapic_check: nmi: pending: rounds=%u of %u us=%lu nmis=%u "
		"nested=%u\n", r, rounds, us, n, nested);
	fail = lc_apic_owner() == LC_APIC_HOST ? LC_HOST : LC_FAIL;
	lc_step(PART, "pending", n == due && !nested ? LC_OK : fail,
		"round %u of %u: %u NMIs, %u due (2 a round: the self NMI, "
		"one for the ten in its handler), %u nested; LAPIC %s", r < rounds ? r + 1 : rounds,
		rounds, n, due, nested, lc_apic_owner_name());
}

void lapic_check_nmi(void)
{
	if (!lc_part_start(PART))
		return;
	rounds = cmdline_uint("nmi_rounds", ROUNDS_DEFAULT, 1, ROUNDS_MAX);
	bsp_id = lapic_id();
	check_race();
	check_pending();
	/* a late NMI finds the default handler: a panic names it */
	idt_set_handler(NMI_VEC, NULL);
	if (!lc_irr(VEC_FLUSH))
		idt_set_handler(VEC_FLUSH, NULL);
}
