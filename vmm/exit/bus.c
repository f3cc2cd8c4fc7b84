// SPDX-License-Identifier: MIT
/* Port I/O and MMIO dispatch: see bus.h. */
#include <errno.h>
#include <string.h>

#include "bus.h"

void bus_init(struct bus *bus, const char *name)
{
	memset(bus, 0, sizeof(*bus));
	bus->name = name;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

int bus_register(struct bus *bus, const struct bus_dev *dev)
{
	unsigned i, pos;

	if (dev->len == 0 || dev->base + dev->len < dev->base)
		return -EINVAL;
	if (bus->nr_devs == BUS_MAX_DEVS)
		return -ENOSPC;
	for (i = 0; i < bus->nr_devs; i++)
		if (ranges_overlap(dev->base, dev->len, bus->devs[i].base,
				   bus->devs[i].len))
			return -EEXIST;
	/* keep the table sorted so bus_find can binary-search it */
	for (pos = 0; pos < bus->nr_devs; pos++)
		if (bus->devs[pos].base > dev->base)
			break;
	memmove(&bus->devs[pos + 1], &bus->devs[pos],
		(bus->nr_devs - pos) * sizeof(*dev));
	bus->devs[pos] = *dev;
	bus->nr_devs++;
	return 0;
}

const struct bus_dev *bus_find(const struct bus *bus, uint64_t addr, int *idx)
{
	unsigned lo = 0, hi = bus->nr_devs;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		const struct bus_dev *d = &bus->devs[mid];

		if (addr < d->base) {
			hi = mid;
		} else if (addr - d->base >= d->len) {
			lo = mid + 1;
		} else {
			if (idx)
				*idx = mid;
			return d;
		}
	}
	return NULL;
}

static uint64_t ones(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

bool bus_read(struct bus *bus, uint64_t addr, unsigned size, uint64_t *val,
	      int cpu)
{
	const struct bus_dev *d = bus_find(bus, addr, NULL);

	if (!d || !d->read) {
		*val = ones(size);
		__atomic_add_fetch(&bus->unclaimed_reads, 1, __ATOMIC_RELAXED);
		return false;
	}
	*val = d->read(d->opaque, addr - d->base, size, cpu) & ones(size);
	return true;
}

bool bus_write(struct bus *bus, uint64_t addr, unsigned size, uint64_t val,
	       int cpu)
{
	const struct bus_dev *d = bus_find(bus, addr, NULL);

	if (!d || !d->write) {
		__atomic_add_fetch(&bus->unclaimed_writes, 1, __ATOMIC_RELAXED);
		return false;
	}
	d->write(d->opaque, addr - d->base, size, val & ones(size), cpu);
	return true;
}
