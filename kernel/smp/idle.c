// SPDX-License-Identifier: MIT
/*
 * The idle wait (idle.h): a poll of the wake condition for the
 * haltpoll.h window, then STI; HLT.
 *
 * The poll runs with IF = 1, so an interrupt is taken at once and ends
 * it (trap_dispatch counts them in cpu->irqs).  While it polls, the CPU
 * says so in cpu->polling, and sched_wake() skips the reschedule IPI, as
 * Linux's wakers do for a CPU in poll_idle (TIF_POLLING_NRFLAG).  No
 * wake-up is lost: the waker stores its request, fences, then loads
 * ->polling; the poller stores ->polling = 0 (an exchange: a full
 * barrier), then checks the condition again before HLT.  One of the two
 * sees the other.
 */
#include <stdint.h>

#include "sys/calib_hw.h"
#include "boot/cmdline.h"
#include "arch/halt.h"
#include "haltpoll.h"
#include "idle.h"
#include "lib/printf.h"
#include "smp.h"
#include "arch/x86.h"

/*
 * The clock is read at every poll (Linux's poll_idle reads it every 200):
 * where the loop runs in KVM's emulator (kvm_pvm) one round of it took
 * 20-100 us, and a coarser check overshot a 200 us window by 2x.
 */
#define POLL_CLOCK_EVERY	1

static struct haltpoll hp[NR_CPUS];
static uint64_t poll_cyc[NR_CPUS];
static int enabled;
static uint64_t khz;
static char name[24] = "off";

void idle_init(void)
{
	const char *s = cmdline_get("haltpoll");
	struct haltpoll_params p;
	unsigned i;

	if (haltpoll_parse(s, &p)) {
		kprintf("idle: warning: haltpoll=%s is neither a window in ns "
			"(0-%u) nor adaptive: off\n", s, HALTPOLL_MAX_NS);
		return;
	}
	khz = calib_tsc_khz();
	if (!p.cap_ns)
		return;
	if (!khz) {
		kprintf("idle: warning: haltpoll needs the TSC frequency, "
			"which calibration did not find: off\n");
		return;
	}
	for (i = 0; i < NR_CPUS; i++)
		haltpoll_init(&hp[i], &p);
	if (p.adaptive)
		ksnprintf(name, sizeof(name), "adaptive");
	else
		ksnprintf(name, sizeof(name), "%lu", p.cap_ns);
	kprintf("idle: halt-polling %s%s\n", name, p.adaptive ?
		" (Linux's haltpoll governor: cap 200000 ns, grow_start "
		"50000, grow 2, shrink 2)" : " ns before HLT");
	__atomic_store_n(&enabled, 1, __ATOMIC_RELEASE);
}

/* TSC -> ns without overflow for any uptime */
static uint64_t tsc_ns(uint64_t t)
{
	return t / khz * 1000000 + t % khz * 1000000 / khz;
}

static int cond(int (*woken)(void *), void *arg)
{
	return woken && woken(arg);
}

/* The poll: 1 if the wait is over (an interrupt came, or @woken). */
static int poll(struct cpu *c, struct haltpoll *h, int (*woken)(void *),
		void *arg)
{
	uint32_t irqs = __atomic_load_n(&c->irqs, __ATOMIC_RELAXED);
	uint64_t t0 = rdtsc(), t = t0;
	unsigned long i;
	int hit = 0;

	haltpoll_enter(h, tsc_ns(t0));
	__atomic_store_n(&c->polling, 1, __ATOMIC_SEQ_CST);
	sti();
	for (i = 0;; i++) {
		if (__atomic_load_n(&c->irqs, __ATOMIC_RELAXED) != irqs ||
		    cond(woken, arg)) {
			hit = 1;
			break;
		}
		if (!(i % POLL_CLOCK_EVERY)) {
			t = rdtsc();
			if (!haltpoll_keep_polling(h, tsc_ns(t)))
				break;
		}
		cpu_relax();
	}
	cli();
	__atomic_exchange_n(&c->polling, 0, __ATOMIC_SEQ_CST);
	t = rdtsc();
	poll_cyc[c->index] += t - t0;
	/* an interrupt taken after the last look and before the CLI ended
	 * the wait too (a HLT now would wait for the next one); and a waker
	 * that saw ->polling sent no IPI: look again */
	if (!hit && (__atomic_load_n(&c->irqs, __ATOMIC_RELAXED) != irqs ||
		     cond(woken, arg)))
		hit = 1;
	if (hit)
		haltpoll_exit(h, tsc_ns(t), 1);
	return hit;
}

/* STI; HLT, saying so in ->halting (idle_all_halting() reads it) */
static void halt(struct cpu *c)
{
	__atomic_store_n(&c->halting, 1, __ATOMIC_RELEASE);
	sti_hlt();
	__atomic_store_n(&c->halting, 0, __ATOMIC_RELAXED);
}

void idle_wait(int (*woken)(void *), void *arg)
{
	struct cpu *c = this_cpu();
	struct haltpoll *h = &hp[c->index];

	if (!__atomic_load_n(&enabled, __ATOMIC_ACQUIRE)) {
		halt(c);
		return;
	}
	if (h->window_ns) {
		if (poll(c, h, woken, arg)) {
			sti();
			return;
		}
	} else {
		haltpoll_enter(h, tsc_ns(rdtsc()));
	}
	/* the interrupt comes only once HLT runs (STI shadow) */
	halt(c);
	haltpoll_exit(h, tsc_ns(rdtsc()), 0);
}

int idle_polling(unsigned cpu)
{
	return cpu < NR_CPUS &&
	       __atomic_load_n(&cpus[cpu].polling, __ATOMIC_SEQ_CST);
}

uint64_t idle_poll_cycles(void)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < NR_CPUS; i++)
		sum += __atomic_load_n(&poll_cyc[i], __ATOMIC_RELAXED);
	return sum;
}

const char *idle_haltpoll_name(void)
{
	return name;
}

int idle_all_halting(void)
{
	unsigned i, me = this_cpu()->index;

	for (i = 0; i < NR_CPUS; i++)
		if (i != me && __atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE) &&
		    !__atomic_load_n(&cpus[i].halting, __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}
