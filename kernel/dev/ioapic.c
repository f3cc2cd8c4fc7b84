// SPDX-License-Identifier: MIT
/*
 * The I/O APIC: found in the ACPI MADT (ACPI 6.5 5.2.12.3), programmed
 * through IOREGSEL/IOWIN (82093AA datasheet 3.0), the redirection table
 * (datasheet 3.2.4).  The identity map makes [3 GiB, 4 GiB) uncached
 * (entry.S), so the registers are plain volatile 32-bit accesses.
 */
#include <stddef.h>
#include <stdint.h>

#include "boot/acpi_boot.h"
#include "hw/acpi.h"
#include "ioapic.h"
#include "lib/printf.h"
#include "arch/spinlock.h"

/* datasheet 3.2.4: the bits a write sets (delivery status and remote IRR
 * are read-only) */
#define RTE_LO_RW	(IOAPIC_RTE_VECTOR | IOAPIC_RTE_DM_MASK | \
			 IOAPIC_RTE_LOGICAL | IOAPIC_RTE_ACTIVE_LOW | \
			 IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED)
#define RTE_HI_RW	(0xffu << IOAPIC_RTE_DEST_SHIFT)

static volatile uint32_t *regs;
static const struct acpi_info *acpi;
static unsigned nr_pins;
static uint32_t version;
static int inited, present;
/* IOREGSEL then IOWIN is two accesses: one CPU at a time */
static struct spinlock lock = SPINLOCK_INIT;

static uint64_t lock_io(void)
{
	uint64_t f = irq_save();

	spin_lock(&lock);
	return f;
}

static void unlock_io(uint64_t f)
{
	spin_unlock(&lock);
	irq_restore(f);
}

static uint32_t rd(unsigned index)
{
	regs[IOAPIC_IOREGSEL / 4] = index;
	return regs[IOAPIC_IOWIN / 4];
}

static void wr(unsigned index, uint32_t v)
{
	regs[IOAPIC_IOREGSEL / 4] = index;
	regs[IOAPIC_IOWIN / 4] = v;
}

uint32_t ioapic_read(unsigned index)
{
	uint64_t f;
	uint32_t v;

	if (!present)
		return 0;
	f = lock_io();
	v = rd(index);
	unlock_io(f);
	return v;
}

void ioapic_write(unsigned index, uint32_t v)
{
	uint64_t f;

	if (!present)
		return;
	f = lock_io();
	wr(index, v);
	unlock_io(f);
}

static int pin_ok(unsigned pin)
{
	return present && pin < nr_pins;
}

uint64_t ioapic_rte_read(unsigned pin)
{
	uint64_t f, v;

	if (!pin_ok(pin))
		return 0;
	f = lock_io();
	v = rd(IOAPIC_REG_REDTBL + 2 * pin);
	v |= (uint64_t)rd(IOAPIC_REG_REDTBL + 2 * pin + 1) << 32;
	unlock_io(f);
	return v;
}

void ioapic_rte_write_lo_hi(unsigned pin, uint32_t lo, uint32_t hi)
{
	uint64_t f;

	if (!pin_ok(pin))
		return;
	f = lock_io();
	wr(IOAPIC_REG_REDTBL + 2 * pin, lo);
	wr(IOAPIC_REG_REDTBL + 2 * pin + 1, hi);
	unlock_io(f);
}

int ioapic_rte_write(unsigned pin, uint64_t rte)
{
	uint32_t lo = (uint32_t)rte, hi = (uint32_t)(rte >> 32);
	uint64_t f, back;

	if (!pin_ok(pin))
		return -1;
	f = lock_io();
	wr(IOAPIC_REG_REDTBL + 2 * pin, lo);
	wr(IOAPIC_REG_REDTBL + 2 * pin + 1, hi);
	back = rd(IOAPIC_REG_REDTBL + 2 * pin);
	back |= (uint64_t)rd(IOAPIC_REG_REDTBL + 2 * pin + 1) << 32;
	unlock_io(f);
	if (((uint32_t)back & RTE_LO_RW) != (lo & RTE_LO_RW) ||
	    ((uint32_t)(back >> 32) & RTE_HI_RW) != (hi & RTE_HI_RW))
		return -1;
	return 0;
}

static void set_lo(unsigned pin, uint32_t set, uint32_t clear)
{
	uint64_t f;
	uint32_t lo;

	if (!pin_ok(pin))
		return;
	f = lock_io();
	lo = rd(IOAPIC_REG_REDTBL + 2 * pin);
	wr(IOAPIC_REG_REDTBL + 2 * pin, ((lo & ~clear) | set) & RTE_LO_RW);
	unlock_io(f);
}

void ioapic_mask(unsigned pin)
{
	set_lo(pin, IOAPIC_RTE_MASKED, 0);
}

void ioapic_unmask(unsigned pin)
{
	set_lo(pin, 0, IOAPIC_RTE_MASKED);
}

int ioapic_isa_pin(unsigned irq, uint16_t *flags)
{
	uint32_t gsi = irq;
	unsigned i;

	if (flags)
		*flags = 0;
	if (!present)
		return -1;
	/* ACPI 6.5 5.2.12.5: an override names the GSI of an ISA IRQ */
	for (i = 0; i < acpi->nr_iso; i++) {
		if (acpi->iso[i].bus_irq != irq)
			continue;
		gsi = acpi->iso[i].gsi;
		if (flags)
			*flags = acpi->iso[i].flags;
		break;
	}
	if (gsi < acpi->ioapic_gsi_base ||
	    gsi - acpi->ioapic_gsi_base >= nr_pins)
		return -1;
	return (int)(gsi - acpi->ioapic_gsi_base);
}

int ioapic_present(void)
{
	return present;
}

uint32_t ioapic_version(void)
{
	return version;
}

void ioapic_find(const struct mbinfo *mbi)
{
	const char *from;
	int err;

	acpi = acpi_boot(mbi, &err, &from);
	if (acpi && (!acpi->has_ioapic || !acpi->ioapic_addr ||
		     acpi->ioapic_addr >= 0x100000000ull))
		acpi = NULL;
}

int ioapic_init(void)
{
	uint32_t ver;
	unsigned i;

	if (inited)
		return present ? 0 : -1;
	inited = 1;
	if (!acpi) {
		kprintf("ioapic: none in the MADT\n");
		return -1;
	}
	regs = (volatile uint32_t *)(uintptr_t)acpi->ioapic_addr;
	ver = rd(IOAPIC_REG_VER);
	if (ver == 0xffffffffu || !(ver & 0xf0)) {
		/* datasheet 3.2.2: 0x11 for the 82093AA, 0x20 with EOIR */
		kprintf("ioapic: at 0x%lx the version register reads 0x%x\n",
			acpi->ioapic_addr, ver);
		return -1;
	}
	version = ver & 0xff;
	nr_pins = ((ver >> IOAPIC_VER_MAXRED_SHIFT) & 0xff) + 1;
	present = 1;
	/* datasheet 3.2.4: masked at reset, but a loader may have left one
	 * on; one write per pin (masked, edge, vector 0) */
	for (i = 0; i < nr_pins; i++)
		ioapic_write(IOAPIC_REG_REDTBL + 2 * i, IOAPIC_RTE_MASKED);
	kprintf("ioapic: id %u at 0x%lx, version 0x%x, %u pins, GSI base %u\n",
		acpi->ioapic_id, acpi->ioapic_addr, version, nr_pins,
		acpi->ioapic_gsi_base);
	return 0;
}
