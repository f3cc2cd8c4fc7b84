/* SPDX-License-Identifier: MIT */
/*
 * The ACPI PM1a event and control blocks (ACPI 6.5 4.8.3.1, 4.8.3.2) at
 * the FADT's ports: PM1a_EVT_BLK 0x600 (PM1_STS, PM1_EN: 2 bytes each)
 * and PM1a_CNT_BLK 0x604 (PM1_CNT, 2 bytes).  No event ever sets a
 * status bit; SCI_EN reads 1 (no SMI_CMD: the hardware is in ACPI mode
 * from reset).  Writing SLP_TYP = 5 (the DSDT's \_S5) with SLP_EN powers
 * the machine off: status 0.  The DSDT offers no other sleep state
 * (4.8.3.2.1: "the SLP_TYP value ... the \_Sx object"), and a machine must
 * not hang on a request it cannot honour: another SLP_TYP with SLP_EN
 * goes to ->no_sleep (irqlab-vmm ends the run and says so), or, without
 * one, is counted.  Pure: power-off and the refusal are callbacks.
 */
#ifndef VMM_ACPIPM_H
#define VMM_ACPIPM_H

#include <stdint.h>

#define ACPIPM_PORT		0x600	/* PM1a_EVT_BLK; PM1a_CNT_BLK at +4 */
#define ACPIPM_LEN		6

struct acpipm {
	uint16_t en;		/* PM1_EN */
	uint16_t cnt;		/* PM1_CNT, without SLP_EN */
	void (*poweroff)(void *ctx, int status);
	/* SLP_EN with a SLP_TYP no \_Sx object names (set after init) */
	void (*no_sleep)(void *ctx, unsigned slp_typ);
	void *ctx;
	uint64_t bad_accesses;
	uint64_t sleeps_refused;	/* such requests, with or without it */
};

void acpipm_init(struct acpipm *pm, void (*poweroff)(void *, int), void *ctx);
/* struct bus_dev callbacks, @off from ACPIPM_PORT */
uint64_t acpipm_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void acpipm_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu);

#endif
