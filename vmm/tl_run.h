/* SPDX-License-Identifier: MIT */
/* --timeline FILE around the run (tl_run.c, docs/ANATOMY.md). */
#ifndef VMM_TL_RUN_H
#define VMM_TL_RUN_H

struct vm;

/* Each vCPU thread's ring, and the PIT thread's where irqlab runs it. */
void tl_run_alloc(struct vm *vm);
/* With KVM's LAPIC, KVM's tracepoints on, before any vCPU runs. */
void tl_run_trace_start(struct vm *vm);
/* The rings joined into IPIs, written to the --timeline file. */
void tl_run_report(struct vm *vm);

#endif
