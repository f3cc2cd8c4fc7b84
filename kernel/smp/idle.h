/* SPDX-License-Identifier: MIT */
/*
 * How an idle CPU waits: HLT, or first a poll of its wake condition for
 * the window of haltpoll.h (haltpoll=NS or haltpoll=adaptive on the
 * command line).  The callers (sched.c, smp.c, the benchmark cases) check
 * their condition with IF = 0 and then call idle_wait().
 */
#ifndef KERNEL_IDLE_H
#define KERNEL_IDLE_H

#include <stdint.h>

/* BSP, before the APs idle: read haltpoll=; says it once */
void idle_init(void);
/*
 * With IF = 0, the caller's condition found false: wait until an
 * interrupt was handled or @woken(@arg) (may be NULL) is true.  Returns
 * with IF = 1, as after STI; HLT.
 */
void idle_wait(int (*woken)(void *), void *arg);
/* CPU @cpu polls now: a waker may skip its wake-up IPI (sched_wake) */
int idle_polling(unsigned cpu);
/* 1 when every other online CPU is in, or about to enter, idle's HLT */
int idle_all_halting(void);
/* TSC cycles spent polling, summed over the CPUs */
uint64_t idle_poll_cycles(void);
/* "off", "adaptive" or the window in ns: the @bench haltpoll= value */
const char *idle_haltpoll_name(void);

#endif
