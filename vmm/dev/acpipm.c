// SPDX-License-Identifier: MIT
/* The ACPI PM1a event and control blocks (acpipm.h): soft-off through \_S5,
 * and a clear answer to any other sleep request. */
#include <string.h>

#include "hw/acpi.h"
#include "acpipm.h"

void acpipm_init(struct acpipm *pm, void (*poweroff)(void *, int), void *ctx)
{
	memset(pm, 0, sizeof(*pm));
	pm->cnt = ACPI_PM1_SCI_EN;
	pm->poweroff = poweroff;
	pm->ctx = ctx;
}

/* 16-bit registers: PM1_STS at 0, PM1_EN at 2, PM1_CNT at 4 */
static uint16_t acpipm_reg(struct acpipm *pm, unsigned reg)
{
	switch (reg) {
	case 0:
		return 0;		/* no event sets a status bit */
	case 2:
		return pm->en;
	default:
		return pm->cnt;		/* SLP_EN reads 0 (4.8.3.2.1) */
	}
}

static void acpipm_set(struct acpipm *pm, unsigned reg, uint16_t v)
{
	unsigned typ;

	if (reg == 0)
		return;			/* write-1-to-clear of nothing */
	if (reg == 2) {
		pm->en = v;
		return;
	}
	typ = (v & ACPI_PM1_SLP_TYP_MASK) >> ACPI_PM1_SLP_TYP_SHIFT;
	pm->cnt = (v & ~ACPI_PM1_SLP_EN) | ACPI_PM1_SCI_EN;
	if (!(v & ACPI_PM1_SLP_EN))
		return;
	if (typ == ACPI_SLP_TYP_S5) {
		if (pm->poweroff)
			pm->poweroff(pm->ctx, 0);
		return;
	}
	pm->sleeps_refused++;		/* no \_Sx names this SLP_TYP */
	if (pm->no_sleep)
		pm->no_sleep(pm->ctx, typ);
}

/* Byte and word accesses inside one register; anything else is counted. */
static int acpipm_ok(struct acpipm *pm, uint64_t off, unsigned size)
{
	if ((size == 1 || size == 2) && (off & 1) + size <= 2 &&
	    off + size <= ACPIPM_LEN)
		return 1;
	pm->bad_accesses++;
	return 0;
}

uint64_t acpipm_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct acpipm *pm = opaque;
	uint16_t v;

	(void)cpu;
	if (!acpipm_ok(pm, off, size))
		return ~0ull;
	v = acpipm_reg(pm, off & ~1u);
	return size == 2 ? v : (uint8_t)(v >> (8 * (off & 1)));
}

void acpipm_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		      int cpu)
{
	struct acpipm *pm = opaque;
	unsigned reg = off & ~1u, sh = 8 * (off & 1);
	uint16_t v;

	(void)cpu;
	if (!acpipm_ok(pm, off, size))
		return;
	if (size == 2)
		v = val;
	else
		v = (acpipm_reg(pm, reg) & ~(0xff << sh)) | (val & 0xff) << sh;
	acpipm_set(pm, reg, v);
}
