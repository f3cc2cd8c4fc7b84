/* SPDX-License-Identifier: MIT */
/* The timeline's rings (timeline.c, docs/ANATOMY.md). */
#ifndef KERNEL_DEV_TIMELINE_H
#define KERNEL_DEV_TIMELINE_H

/* This CPU's ring, if the stamps are on: each CPU calls it once. */
void tl_cpu_init(void);
/* timeline=on without irqlab-vmm: the @tl records of every CPU. */
void tl_print(void);

#endif
