/* SPDX-License-Identifier: MIT */
/*
 * The seccomp jail of the vCPU threads and the PIT's timer thread (jail.c,
 * docs/SECURITY.md): once set up, such a thread may make only the system
 * calls its loop makes.
 */
#ifndef VMM_JAIL_H
#define VMM_JAIL_H

#include <stdio.h>

struct vm;
struct vcpu;

/* main thread, the vCPUs created, their threads not yet started */
void jail_prepare(struct vm *vm);
/* on the vCPU's own thread, its setup done: the filter goes in */
void jail_enter(struct vcpu *v);
/* on the PIT's timer thread (user and split mode), before it waits */
void jail_enter_pit(void);
/* the --stats lines: on or off, how many system calls, on how many threads */
void jail_report(FILE *f);

#endif
