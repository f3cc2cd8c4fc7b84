// SPDX-License-Identifier: MIT
/*
 * check=ipi ipi_storm=1: the IPI check as a storm.  Every CPU sends K
 * fixed IPIs to every other CPU, K self IPIs and K all-excluding-self
 * broadcasts, as the lockstep check does (ipi_check.c), but it never
 * waits for one IPI: each pass it sends to every target whose previous
 * IPI from it was counted, and skips the others.  Counts stay exact for
 * the same reason (SDM 11.8.4: one IRR bit per vector, so at most one IPI
 * per sender vector and target in flight): unicast and self IPIs carry
 * IPI_VEC_CHECK + sender, broadcasts IPI_VEC_BCAST + sender, each
 * counted per sender and target.
 *
 * Meanwhile each CPU's LAPIC timer runs periodic (ipi_timer_us, default
 * 1000; 0: off), and every LVT_EVERY passes the CPU rewrites its LVT
 * timer entry: masked, unmasked, moved to vector B, back to A.  SDM
 * 11.5.1: the mask "inhibits reception of the interrupt"; an interrupt
 * already accepted into IRR stays there and is still delivered.  So
 * right after each write, with interrupts off, the CPU reads IRR (and
 * ISR) for the vector it left: at most that many interrupts of it may
 * still come.  One more is a stale timer interrupt (stale_timer=).  An
 * ISR bit there (isr_busy=) would be an interrupt acknowledged that this
 * CPU never took, since no handler runs while the main loop does.
 *
 * A CPU that can send nothing halts (STI; HLT): an incoming IPI or its
 * own timer wakes it, so with the timer on no CPU spins on the host CPUs
 * the other vCPUs need.  Without the timer it spins with PAUSE.
 */
#include <stdint.h>

#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "hw/apic.h"
#include "arch/idt.h"
#include "ipi_check_int.h"
#include "dev/lapic.h"
#include "lib/printf.h"
#include "smp/smp.h"
#include "arch/x86.h"

#define TIMER_US_DEFAULT	1000
#define TIMER_US_MAX		1000000
#define LVT_EVERY		64	/* passes between LVT rewrites */
#define STALL_SECONDS		60	/* no progress this long: stop */
#define IDLE_TSC_EVERY		64	/* idle passes per TSC read */
#define TDCR_DIV1		0xb	/* SDM figure 11-10: divide by 1 */

struct storm_cpu {
	unsigned bsent;		/* broadcasts sent */
	unsigned tvec;		/* the LVT timer's vector; 0: masked */
	unsigned allow[2];	/* A, B interrupts still allowed: in IRR */
	unsigned timer_irqs;
	unsigned stale;		/* a timer interrupt not allowed */
	unsigned isr_busy;	/* the left vector in ISR at a rewrite */
	unsigned lvt_writes;
	unsigned passes, halts;
} __attribute__((aligned(64)));

static struct storm_cpu sc[NR_CPUS];
static uint32_t bgot[NR_CPUS][NR_CPUS];	/* [to][from]: broadcasts */
static unsigned timer_us, stopped;
static uint32_t tmict;
static uint64_t stall_tsc;

static void bcast_handler(struct trap_frame *tf)
{
	unsigned from = tf->vector - IPI_VEC_BCAST;

	__atomic_fetch_add(&bgot[this_cpu()->index][from], 1,
			   __ATOMIC_RELEASE);
	__atomic_fetch_add(&ipi.progress, 1, __ATOMIC_RELAXED);
	lapic_eoi();
}

/* Runs on the CPU whose main loop changes tvec and allow[] with IF = 0. */
static void timer_handler(struct trap_frame *tf)
{
	struct storm_cpu *c = &sc[this_cpu()->index];
	unsigned i = tf->vector - VEC_STORM_TIMER;

	c->timer_irqs++;
	if (tf->vector != c->tvec) {
		if (c->allow[i])
			c->allow[i]--;
		else
			c->stale++;
	}
	lapic_eoi();
}

void ipi_storm_prepare(void)
{
	uint64_t khz = calib_lapic_khz(), tsc_khz = calib_tsc_khz();
	unsigned v;

	timer_us = cmdline_uint("ipi_timer_us", TIMER_US_DEFAULT, 0,
				TIMER_US_MAX);
	if (!khz)
		khz = 1000000;		/* irqlab-vmm's and KVM's 1 GHz */
	tmict = (uint32_t)(khz * timer_us / 1000);
	if (timer_us && !tmict)
		tmict = 1;
	stall_tsc = (tsc_khz ? tsc_khz : 3000000) * 1000ull * STALL_SECONDS;
	for (v = 0; v < NR_CPUS; v++)
		idt_set_handler(IPI_VEC_BCAST + v, bcast_handler);
	idt_set_handler(VEC_STORM_TIMER, timer_handler);
	idt_set_handler(VEC_STORM_TIMER_B, timer_handler);
}

static unsigned vec_bit(unsigned reg, unsigned vec)
{
	return (lapic_read(reg + 0x10 * (vec / 32)) >> (vec % 32)) & 1;
}

/* An LVT timer value: periodic, @vec, or masked (keeping vector A). */
static uint32_t lvt_value(unsigned vec)
{
	return APIC_TIMER_PERIODIC |
	       (vec ? vec : VEC_STORM_TIMER | APIC_LVT_MASKED);
}

/*
 * Write the LVT timer entry for @next (0: masked), interrupts off, and
 * note how many interrupts of the vector left may still come: one if it
 * is in IRR (SDM 11.5.1, 11.8.4), none otherwise.
 */
static void lvt_set(struct storm_cpu *c, unsigned next)
{
	unsigned old = c->tvec, i;

	cli();
	lapic_write(APIC_LVT_TIMER, lvt_value(next));
	c->tvec = next;
	c->lvt_writes++;
	if (old && old != next) {
		i = old - VEC_STORM_TIMER;
		c->allow[i] = vec_bit(APIC_IRR, old);
		if (vec_bit(APIC_ISR, old)) {
			c->isr_busy++;
			c->allow[i]++;
		}
	}
	if (next)
		c->allow[next - VEC_STORM_TIMER] = 0;
	sti();
}

/* masked, A, B, A, masked, ... */
static void lvt_rewrite(struct storm_cpu *c)
{
	static const unsigned seq[4] = {
		0, VEC_STORM_TIMER, VEC_STORM_TIMER_B, VEC_STORM_TIMER
	};

	lvt_set(c, seq[c->lvt_writes % 4]);
}

/* Did every other CPU count broadcast number @n from @me? */
static int bcast_taken(unsigned me, unsigned n)
{
	unsigned t;

	for (t = 0; t < NR_CPUS; t++)
		if (ipi.member[t] && t != me &&
		    __atomic_load_n(&bgot[t][me], __ATOMIC_ACQUIRE) != n)
			return 0;
	return 1;
}

/* Did every target count every IPI @me sent it? */
static int all_taken(unsigned me, struct storm_cpu *c)
{
	unsigned t;

	for (t = 0; t < NR_CPUS; t++)
		if (ipi.member[t] &&
		    __atomic_load_n(&ipi.got[t][me], __ATOMIC_ACQUIRE) !=
		    ipi.sent[me][t])
			return 0;
	return ipi.nr_members < 2 || bcast_taken(me, c->bsent);
}

/* One pass: send what may be sent now.  Returns how many were sent. */
static unsigned storm_pass(unsigned me, struct storm_cpu *c)
{
	unsigned j, t, n = 0, vec = IPI_VEC_CHECK + me;

	for (j = 0; j < NR_CPUS; j++) {
		t = (me + j) % NR_CPUS;		/* j = 0: a self IPI */
		if (!ipi.member[t] || ipi.sent[me][t] >= ipi.k ||
		    __atomic_load_n(&ipi.got[t][me], __ATOMIC_ACQUIRE) !=
		    ipi.sent[me][t])
			continue;
		ipi.sent[me][t]++;
		if (t == me)
			lapic_send_self(vec);
		else
			lapic_send_ipi(cpus[t].apic_id, vec);
		n++;
	}
	if (ipi.nr_members > 1 && c->bsent < ipi.k &&
	    bcast_taken(me, c->bsent)) {
		c->bsent++;
		lapic_send_others(IPI_VEC_BCAST + me);
		n++;
	}
	return n;
}

/*
 * Nothing to do now: halt until an interrupt, the timer's at the latest.
 * Not while the timer is masked: nothing might ever come.
 */
static void storm_idle(struct storm_cpu *c)
{
	if (c->tvec) {
		c->halts++;
		hlt();
	} else {
		cpu_relax();
	}
}

/* Idle since *@since (0: not idle yet): true once that is a stall. */
static int stalled(uint64_t *since, unsigned idle)
{
	if (idle % IDLE_TSC_EVERY)
		return 0;
	if (!*since) {
		*since = rdtsc();
		return 0;
	}
	return rdtsc() - *since > stall_tsc;
}

void ipi_storm_run(void)
{
	unsigned me = this_cpu()->index, n, idle = 0;
	unsigned todo = (ipi.nr_members + (ipi.nr_members > 1)) * ipi.k;
	struct storm_cpu *c = &sc[me];
	uint64_t since = 0;

	__atomic_fetch_add(&ipi.arrived, 1, __ATOMIC_ACQ_REL);
	ipi_wait_all(&ipi.arrived);
	if (tmict) {
		lapic_write(APIC_TDCR, TDCR_DIV1);
		lvt_set(c, VEC_STORM_TIMER);
		lapic_write(APIC_TMICT, tmict);
	}
	while (todo) {
		n = storm_pass(me, c);
		todo -= n;
		if (++c->passes % LVT_EVERY == 0 && tmict)
			lvt_rewrite(c);
		if (n) {
			idle = 0;
			since = 0;
			continue;
		}
		if (stalled(&since, ++idle)) {
			__atomic_fetch_add(&ipi.stalls, 1, __ATOMIC_RELAXED);
			break;
		}
		storm_idle(c);
	}
	/*
	 * Finished only once every IPI this CPU sent was counted: the BSP
	 * turns interrupts off when all have finished, and one still on
	 * its way there would pass for lost.  Meanwhile, and then until
	 * every CPU is done, keep taking the others' IPIs.
	 */
	since = 0;
	idle = 0;
	while (!all_taken(me, c) && !stalled(&since, ++idle))
		storm_idle(c);
	__atomic_fetch_add(&ipi.finished, 1, __ATOMIC_RELEASE);
	since = 0;
	idle = 0;
	while (__atomic_load_n(&ipi.finished, __ATOMIC_ACQUIRE) <
	       ipi.nr_members && !stalled(&since, ++idle))
		storm_idle(c);
	if (tmict) {
		lvt_set(c, 0);
		lapic_write(APIC_TMICT, 0);	/* SDM 11.5.4: 0 stops it */
	}
	__atomic_fetch_add(&stopped, 1, __ATOMIC_RELEASE);
}

void ipi_storm_wait_stopped(void)
{
	ipi_wait_all(&stopped);
}

void ipi_storm_fold(uint64_t *sent, uint64_t *got, uint64_t *lost,
		    uint64_t *dup)
{
	unsigned f, t;
	uint32_t s, g;

	for (f = 0; f < NR_CPUS; f++)
		for (t = 0; t < NR_CPUS; t++) {
			if (!ipi.member[f] || !ipi.member[t] || f == t)
				continue;
			s = sc[f].bsent;
			g = __atomic_load_n(&bgot[t][f], __ATOMIC_ACQUIRE);
			*sent += s;
			*got += g;
			if (g < s)
				*lost += s - g;
			else
				*dup += g - s;
			if (g != s)
				kprintf("ipi_check: broadcast cpu %u -> cpu %u "
					"(vector 0x%x): sent %u received %u\n",
					f, t, IPI_VEC_BCAST + f, s, g);
		}
}

void ipi_storm_print(void)
{
	uint64_t b = 0, irqs = 0, stale = 0, busy = 0, lvt = 0, halts = 0;
	unsigned f, t;

	for (f = 0; f < NR_CPUS; f++) {
		for (t = 0; t < NR_CPUS; t++)
			b += bgot[t][f];
		irqs += sc[f].timer_irqs;
		stale += sc[f].stale;
		busy += sc[f].isr_busy;
		lvt += sc[f].lvt_writes;
		halts += sc[f].halts;
	}
	kprintf(" storm=1 bcast=%lu timer_us=%u timer_irqs=%lu lvt_writes=%lu "
		"stale_timer=%lu isr_busy=%lu halts=%lu", b, timer_us, irqs,
		lvt, stale, busy, halts);
}

/* a stall stops the sender with its count unfinished: a failure too */
int ipi_storm_ok(void)
{
	unsigned f;

	if (__atomic_load_n(&ipi.stalls, __ATOMIC_RELAXED))
		return 0;
	for (f = 0; f < NR_CPUS; f++)
		if (sc[f].stale || sc[f].isr_busy)
			return 0;
	return 1;
}
