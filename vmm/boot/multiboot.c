// SPDX-License-Identifier: MIT
/*
 * Find and check the image's multiboot header: Multiboot 0.6.96 section
 * 3.1 and Multiboot2 2.0 section 3.1.  bootinfo.c builds what the
 * kernel gets in return.
 *
 * The image is untrusted: every read is bounds-checked against its length.
 * Multi-byte fields are read with memcpy (they need not be aligned in the
 * host buffer); host and guest are both little-endian x86.
 */
#include <string.h>

#include "hw/multiboot.h"
#include "loader_internal.h"

/* Multiboot 3.1.2: magic, flags, checksum; the kludge fields follow. */
#define MB1_FIXED_LEN	offsetof(struct mb1_header, header_addr)
#define MB1_KLUDGE_LEN	offsetof(struct mb1_header, mode_type)

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- finding the header ---- */

/*
 * Multiboot 3.1.1: the header is 32-bit aligned, wholly inside the first
 * 8192 bytes; 3.1.2: magic + flags + checksum == 0.  A magic with a bad
 * checksum is no header (GRUB goes on searching too), but *bad remembers
 * it so the error can say why nothing was found.
 */
static bool mb1_find(const struct boot_params *p, size_t *off, bool *bad)
{
	size_t end = p->image_len < MB1_SEARCH ? p->image_len : MB1_SEARCH;
	const uint8_t *h;
	size_t o;

	for (o = 0; o + MB1_FIXED_LEN <= end; o += 4) {
		h = p->image + o;
		if (get32(h) != MB1_HEADER_MAGIC)
			continue;
		if (get32(h) + get32(h + 4) + get32(h + 8) == 0) {
			*off = o;
			return true;
		}
		*bad = true;
	}
	return false;
}

/*
 * Multiboot2 3.1.1: 64-bit aligned, inside the first 32768 bytes;
 * 3.1.2: magic + architecture + header_length + checksum == 0.
 */
static bool mb2_find(const struct boot_params *p, size_t *off, bool *bad)
{
	size_t end = p->image_len < MB2_SEARCH ? p->image_len : MB2_SEARCH;
	const uint8_t *h;
	size_t o;

	for (o = 0; o + sizeof(struct mb2_header) <= end; o += 8) {
		h = p->image + o;
		if (get32(h) != MB2_HEADER_MAGIC)
			continue;
		if (get32(h) + get32(h + 4) + get32(h + 8) + get32(h + 12) == 0) {
			*off = o;
			return true;
		}
		*bad = true;
	}
	return false;
}

/* ---- Multiboot 1 header ---- */

/* Multiboot 3.1.2 (flags) and 3.1.3 (address fields). */
static int mb1_parse(struct loader *ld)
{
	const uint8_t *h = ld->p->image + ld->hdr.offset;
	uint32_t flags = get32(h + 4);
	uint32_t known = MB1_HF_PAGE_ALIGN | MB1_HF_MEMINFO | MB1_HF_VIDEO;
	uint32_t unknown = flags & MB1_HF_REQUIRED & ~known;

	/*
	 * Bit 0 (page-aligned modules) and bit 1 (memory info) are what we
	 * always do.  Bit 2 (video mode) is accepted, but irqlab has no
	 * display: the info carries no video fields (flags 11, 12 clear).
	 */
	if (unknown)
		return loader_fail(ld, "multiboot header: unsupported required flags 0x%x",
				   unknown);
	if (!(flags & MB1_HF_AOUT_KLUDGE))
		return 0;
	if (ld->p->image_len - ld->hdr.offset < MB1_KLUDGE_LEN)
		return loader_fail(ld, "truncated file: a.out kludge fields past the end");
	ld->hdr.has_addr = true;
	ld->hdr.header_addr = get32(h + 12);
	ld->hdr.load_addr = get32(h + 16);
	ld->hdr.load_end_addr = get32(h + 20);
	ld->hdr.bss_end_addr = get32(h + 24);
	ld->hdr.has_entry = true;
	ld->hdr.entry_addr = get32(h + 28);
	return 0;
}

/* ---- Multiboot 2 header ---- */

/* Multiboot2 3.6: the boot information types we can give this load. */
static bool mb2_can_provide(const struct boot_params *p, uint32_t type)
{
	switch (type) {
	case MB2_TAG_END:
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
	case MB2_TAG_MODULE:
	case MB2_TAG_BASIC_MEMINFO:
	case MB2_TAG_MMAP:
		return true;
	case MB2_TAG_ACPI_OLD:
		return p->rsdp_old != NULL;
	case MB2_TAG_ACPI_NEW:
		return p->rsdp_new != NULL;
	}
	return false;
}

/*
 * Multiboot2 3.1.4: if the request is not optional, the boot loader must
 * be able to give every type it names, or fail.  We always give all we can.
 */
static int mb2_info_request(struct loader *ld, const uint8_t *tag,
			    uint32_t size, bool optional)
{
	uint32_t i, type, n = (size - 8) / 4;

	if (optional)
		return 0;
	for (i = 0; i < n; i++) {
		type = get32(tag + 8 + 4 * i);
		if (!mb2_can_provide(ld->p, type))
			return loader_fail(ld, "multiboot2 header: cannot provide required boot info type %u%s",
					   type, type == MB2_TAG_ACPI_OLD ||
					   type == MB2_TAG_ACPI_NEW ?
					   " (no ACPI RSDP)" : "");
	}
	return 0;
}

static const char *mb2_unsupported_name(uint16_t type)
{
	switch (type) {
	case MB2_HT_EFI_BS:
		return "EFI boot services";
	case MB2_HT_ENTRY_EFI32:
		return "EFI i386 entry address";
	case MB2_HT_ENTRY_EFI64:
		return "EFI amd64 entry address";
	case MB2_HT_RELOCATABLE:
		return "relocatable";
	}
	return NULL;
}

/* Smallest valid size of each tag type we read (Multiboot2 3.1.4-3.1.13). */
static uint32_t mb2_tag_min_size(uint16_t type)
{
	switch (type) {
	case MB2_HT_ADDRESS:
		return sizeof(struct mb2_header_tag_address);
	case MB2_HT_ENTRY_ADDRESS:
	case MB2_HT_CONSOLE_FLAGS:
		return 12;
	case MB2_HT_FRAMEBUFFER:
		return 20;
	case MB2_HT_RELOCATABLE:
		return 24;
	}
	return sizeof(struct mb2_header_tag);
}

/* One header tag (Multiboot2 3.1.3 ff.), its size already checked to fit. */
static int mb2_tag(struct loader *ld, const uint8_t *tag, uint16_t type,
		   uint16_t flags, uint32_t size)
{
	bool optional = flags & MB2_HT_FLAG_OPTIONAL;
	const char *name = mb2_unsupported_name(type);

	if (size < mb2_tag_min_size(type))
		return loader_fail(ld, "multiboot2 header: tag type %u too short (%u bytes)",
				   type, size);
	switch (type) {
	case MB2_HT_INFO_REQUEST:
		return mb2_info_request(ld, tag, size, optional);
	case MB2_HT_ADDRESS:		/* 3.1.5: used even if optional */
		ld->hdr.has_addr = true;
		ld->hdr.header_addr = get32(tag + 8);
		ld->hdr.load_addr = get32(tag + 12);
		ld->hdr.load_end_addr = get32(tag + 16);
		ld->hdr.bss_end_addr = get32(tag + 20);
		return 0;
	case MB2_HT_ENTRY_ADDRESS:	/* 3.1.6: overrides the ELF entry */
		ld->hdr.has_entry = true;
		ld->hdr.entry_addr = get32(tag + 8);
		return 0;
	case MB2_HT_CONSOLE_FLAGS:	/* 3.1.9: our console is the serial port */
	case MB2_HT_MODULE_ALIGN:	/* 3.1.11: modules are page aligned anyway */
		return 0;
	case MB2_HT_FRAMEBUFFER:	/* 3.1.10 */
		if (!optional)
			return loader_fail(ld, "multiboot2 header: required framebuffer tag, but there is no framebuffer");
		return 0;
	}
	if (optional)
		return 0;
	if (name)
		return loader_fail(ld, "multiboot2 header: required %s tag (type %u) is not supported",
				   name, type);
	return loader_fail(ld, "multiboot2 header: unknown required tag type %u", type);
}

/* Multiboot2 3.1.2 (fixed fields) and 3.1.3 (the tags, 8-byte aligned). */
static int mb2_parse(struct loader *ld)
{
	const uint8_t *h = ld->p->image + ld->hdr.offset;
	uint32_t arch = get32(h + 4), hlen = get32(h + 8);
	uint32_t size;
	uint16_t type;
	uint64_t t;

	if (arch != MB2_ARCH_I386)
		return loader_fail(ld, "multiboot2 header: unsupported architecture %u", arch);
	if (hlen > ld->p->image_len - ld->hdr.offset)
		return loader_fail(ld, "truncated file: multiboot2 header_length %u past the end",
				   hlen);
	for (t = sizeof(struct mb2_header); ; t += loader_align_up(size, 8)) {
		if (t + sizeof(struct mb2_header_tag) > hlen)
			return loader_fail(ld, "multiboot2 header: no end tag within header_length %u",
					   hlen);
		type = get16(h + t);
		size = get32(h + t + 4);
		if (size < sizeof(struct mb2_header_tag) || size > hlen - t)
			return loader_fail(ld, "multiboot2 header: tag type %u at offset %llu: bad size %u",
					   type, (unsigned long long)t, size);
		if (type == MB2_HT_END)
			break;
		if (mb2_tag(ld, h + t, type, get16(h + t + 2), size))
			return -1;
	}
	if (size != sizeof(struct mb2_header_tag))
		return loader_fail(ld, "multiboot2 header: end tag size %u, must be 8", size);
	return 0;
}

/*
 * Protocol 0 takes Multiboot2 if the image has its header, else Multiboot 1;
 * 1 and 2 insist on one.
 */
int mb_parse_header(struct loader *ld)
{
	const struct boot_params *p = ld->p;
	bool bad1 = false, bad2 = false;
	size_t off;

	if (p->protocol != 1 && mb2_find(p, &off, &bad2)) {
		ld->hdr.protocol = 2;
		ld->hdr.offset = off;
		return mb2_parse(ld);
	}
	if (p->protocol != 2 && mb1_find(p, &off, &bad1)) {
		ld->hdr.protocol = 1;
		ld->hdr.offset = off;
		return mb1_parse(ld);
	}
	if (bad2)
		return loader_fail(ld, "multiboot2 header: bad checksum");
	if (bad1)
		return loader_fail(ld, "multiboot header: bad checksum");
	if (p->protocol == 1)
		return loader_fail(ld, "no multiboot1 header in the first %u bytes",
				   MB1_SEARCH);
	if (p->protocol == 2)
		return loader_fail(ld, "no multiboot2 header in the first %u bytes",
				   MB2_SEARCH);
	return loader_fail(ld, "no multiboot header (neither version 1 nor 2)");
}
