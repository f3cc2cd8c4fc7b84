// SPDX-License-Identifier: MIT
/*
 * fw_cfg over I/O ports: write a 16-bit key to the selector port, then
 * each read of the data port returns the item's next byte (fw_cfg.rst,
 * "Selector Register", "Data Register").
 */
#include <stddef.h>
#include <stdint.h>

#include "fwcfg.h"
#include "hw/ports.h"
#include "lib/kstring.h"
#include "arch/x86.h"

static int present = -1;		/* -1: not probed yet */

static void select_read(uint16_t key, uint8_t *p, size_t n)
{
	outw(PORT_FW_CFG_SEL, key);
	while (n--)
		*p++ = inb(PORT_FW_CFG_DATA);
}

int fwcfg_present(void)
{
	uint8_t sig[4];

	/* without fw_cfg the data port is unclaimed and reads 0xff */
	if (present < 0) {
		select_read(FW_CFG_SIGNATURE, sig, sizeof(sig));
		present = memcmp(sig, "QEMU", 4) == 0;
	}
	return present;
}

void fwcfg_read(uint16_t key, void *buf, size_t n)
{
	if (fwcfg_present())
		select_read(key, buf, n);
	else
		memset(buf, 0, n);
}

unsigned fwcfg_nb_cpus(void)
{
	uint8_t b[2];

	fwcfg_read(FW_CFG_NB_CPUS, b, sizeof(b));
	return b[0] | b[1] << 8;	/* little endian (fw_cfg.rst) */
}
