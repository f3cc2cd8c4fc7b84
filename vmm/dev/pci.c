// SPDX-License-Identifier: MIT
/* PCI configuration mechanism #1 with an empty bus (pci.h). */
#include <string.h>

#include "pci.h"

void pci_init(struct pci_host *p)
{
	memset(p, 0, sizeof(*p));
}

/*
 * PCI 3.0 3.2.2.3.2: "only a DWORD access to CONFIG_ADDRESS" is one;
 * bytes and words at 0xcf8-0xcfb pass to the I/O space, where nothing
 * answers (all-ones, writes dropped).  Bits 1:0 read 0.  A CONFIG_DATA
 * access with the enable bit set is a configuration cycle that no device
 * claims (a master abort: all-ones); with it clear it is plain I/O.
 */
uint64_t pci_bus_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct pci_host *p = opaque;

	(void)cpu;
	if (off == 0 && size == 4)
		return p->addr;
	if (off >= PCI_PORT_DATA - PCI_PORT_ADDR && (p->addr & PCI_ADDR_ENABLE))
		p->config_reads++;
	return ~0ull;
}

void pci_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu)
{
	struct pci_host *p = opaque;

	(void)cpu;
	if (off == 0 && size == 4)
		p->addr = val & 0x80fffffcu;	/* 30:24 and 1:0 read 0 */
	else if (off >= PCI_PORT_DATA - PCI_PORT_ADDR &&
		 (p->addr & PCI_ADDR_ENABLE))
		p->config_writes++;
}
