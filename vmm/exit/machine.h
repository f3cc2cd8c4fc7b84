/* SPDX-License-Identifier: MIT */
/*
 * The board (machine.c): which device answers at which port or address,
 * and the machine-wide actions: power off, and the VM's stop flag.
 */
#ifndef VMM_MACHINE_H
#define VMM_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bus;
struct bus_dev;
struct vm;

/* the devices every irqchip mode has, and their bus map */
void machine_init(struct vm *vm);
/* bus_register(), or die: the map is irqlab's own, not the guest's */
void machine_add(struct bus *bus, const struct bus_dev *d);
/* stop the VM with @status; false if it was stopping already */
bool vm_poweroff(struct vm *vm, int status);
bool vm_stopping(struct vm *vm);
/* stats_report namers: the device at @port or @addr (@vm: the machine) */
const char *machine_port_name(void *vm, uint16_t port);
void machine_mmio_name(void *vm, uint64_t addr, char *buf, size_t len);

#endif
