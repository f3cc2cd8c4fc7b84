/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration mechanism #1 (PCI Local Bus 3.0, 3.2.2.3.2) at
 * 0xcf8 (CONFIG_ADDRESS) and 0xcfc-0xcff (CONFIG_DATA), with no device on
 * any bus: every configuration read gives all-ones, which is what a
 * master abort returns, so the vendor ID 0xffff says "no device".  Pure.
 */
#ifndef VMM_PCI_H
#define VMM_PCI_H

#include <stdint.h>

#define PCI_PORT_ADDR		0xcf8
#define PCI_PORT_DATA		0xcfc
#define PCI_PORT_LEN		8	/* 0xcf8-0xcff */
#define PCI_ADDR_ENABLE		0x80000000u

struct pci_host {
	uint32_t addr;		/* CONFIG_ADDRESS as last written (dword) */
	uint64_t config_reads;	/* with the enable bit set */
	uint64_t config_writes;
};

void pci_init(struct pci_host *p);
/* struct bus_dev callbacks, @off from 0xcf8 */
uint64_t pci_bus_read(void *opaque, uint64_t off, unsigned size, int cpu);
void pci_bus_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		   int cpu);

#endif
