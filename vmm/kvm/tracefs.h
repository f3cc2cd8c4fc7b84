/* SPDX-License-Identifier: MIT */
/* KVM's tracepoints through tracefs, for --timeline (tracefs.c). */
#ifndef VMM_TRACEFS_H
#define VMM_TRACEFS_H

#include <stdbool.h>

#define TRACEFS_BUFFER_KB	"16384"	/* per CPU, the kernel's memory */

struct tracefs {
	char dir[64];
	char why[384];		/* why it is not on */
	/* what to put back */
	char clock[32], buffer_kb[32], event_fork[8], tracing_on[8];
	bool touched, on;
	unsigned long lost;	/* events the ring overwrote */
};

/* KVM's events on, for this process; -1 and @why if not */
int tracefs_start(struct tracefs *t);
/* off; each line of the trace to @line (stops at its -1); tracefs put
 * back as it was */
int tracefs_stop(struct tracefs *t, int (*line)(void *ctx, const char *l),
		 void *ctx);
void tracefs_restore(struct tracefs *t);

#endif
