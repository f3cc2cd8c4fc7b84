// SPDX-License-Identifier: MIT
/*
 * VGA text mode 3 as the BIOS leaves it: 80 columns x 25 rows at
 * physical 0xb8000, two bytes a cell, the character then its attribute
 * (IBM VGA Technical Reference, "Alphanumeric Modes").  The page tables
 * map it 1:1.  The cursor is not moved: nobody types here.  Under UEFI
 * there is no text mode and the writes land in memory nobody shows.
 */
#include <stdint.h>

#include "vga.h"

#define VGA_TEXT	((volatile uint16_t *)0xb8000)
#define COLS		80
#define ROWS		25
#define ATTR		0x0700		/* light grey on black */

static unsigned row, col;

static void scroll(void)
{
	unsigned i;

	for (i = 0; i < COLS * (ROWS - 1); i++)
		VGA_TEXT[i] = VGA_TEXT[i + COLS];
	for (i = 0; i < COLS; i++)
		VGA_TEXT[COLS * (ROWS - 1) + i] = ATTR | ' ';
	row = ROWS - 1;
}

void vga_clear(void)
{
	unsigned i;

	for (i = 0; i < COLS * ROWS; i++)
		VGA_TEXT[i] = ATTR | ' ';
	row = col = 0;
}

void vga_putc(char c)
{
	if (c == '\n' || col == COLS) {
		col = 0;
		if (++row == ROWS)
			scroll();
		if (c == '\n')
			return;
	}
	if (c == '\r')
		return;
	VGA_TEXT[row * COLS + col++] = ATTR | (uint8_t)c;
}
