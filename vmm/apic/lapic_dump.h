/* SPDX-License-Identifier: MIT */
/* A LAPIC's register page in text (lapic_dump.c), for --timeout. */
#ifndef VMM_LAPIC_DUMP_H
#define VMM_LAPIC_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "lapic.h"

/* the page's IRR, ISR, TMR, TPR, PPR, LVTs and timer, in lines of text,
 * each after @indent (pure: from the page alone, lapic_regs_page()'s or
 * KVM_GET_LAPIC's) */
void lapic_print_page(FILE *f, const char *indent,
		      const uint8_t page[LAPIC_PAGE_SIZE]);

#endif
