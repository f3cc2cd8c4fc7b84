// SPDX-License-Identifier: MIT
#include <string.h>

#include "hw/ports.h"
#include "fw_cfg.h"

void fw_cfg_init(struct fw_cfg *f, unsigned nr_cpus)
{
	memset(f, 0, sizeof(*f));
	f->nr_cpus = nr_cpus;
}

/* Byte @i of the selected item; items irqlab does not have read as 0. */
static uint8_t fw_cfg_byte(const struct fw_cfg *f, uint32_t i)
{
	static const char sig[4] = "QEMU";

	switch (f->select) {
	case FW_CFG_SIGNATURE:
		return i < 4 ? (uint8_t)sig[i] : 0;
	case FW_CFG_ID:
		return i == 0 ? 1 : 0;	/* traditional interface, no DMA */
	case FW_CFG_NB_CPUS:
	case FW_CFG_MAX_CPUS:
		return i < 2 ? (uint8_t)(f->nr_cpus >> (8 * i)) : 0;
	case FW_CFG_FILE_DIR:
		return 0;		/* big-endian count 0: no files */
	default:
		return 0;
	}
}

uint64_t fw_cfg_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct fw_cfg *f = opaque;
	uint64_t v = 0;
	unsigned i;

	(void)cpu;
	if (off != 1)		/* the selector port is write-only */
		return ~0ull;
	/* a wider read of the data port returns consecutive bytes */
	for (i = 0; i < size; i++)
		v |= (uint64_t)fw_cfg_byte(f, f->offset++) << (8 * i);
	return v;
}

void fw_cfg_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		  int cpu)
{
	struct fw_cfg *f = opaque;

	(void)cpu;
	/* data-port writes are ignored, as in QEMU since 2.4 */
	if (off == 0 && size == 2) {
		f->select = (uint16_t)val;
		f->offset = 0;
	}
}
