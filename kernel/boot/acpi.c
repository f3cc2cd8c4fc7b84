// SPDX-License-Identifier: MIT
/*
 * The ACPI table parser (see acpi.h).  Section numbers refer to ACPI 6.5.
 *
 * Nothing the firmware wrote is trusted: every range is mapped through
 * phys() before it is read, a table's Length is checked against its header,
 * its kind, ACPI_MAX_TABLE_LEN and the memory it claims, and its checksum
 * is verified before any field past the header is used.  Structures are
 * copied into locals first, so a field is read once and no access depends
 * on the alignment of the firmware's memory.
 */
#include <stddef.h>
#include <stdint.h>

#include "hw/acpi.h"
#include "acpi.h"
#include "mbinfo.h"

#define COPY(dst, src)	__builtin_memcpy(&(dst), (src), sizeof(dst))

static uint8_t sum(const uint8_t *p, uint64_t len)
{
	uint8_t s = 0;

	while (len--)
		s += *p++;
	return s;
}

static int sig_is(const char *a, const char *sig)
{
	return !__builtin_memcmp(a, sig, ACPI_SIG_LEN);
}

/* ---- RSDP (5.2.5) ---- */

/*
 * 5.2.5.3: bytes 0-19 sum to 0; from revision 2 on, Length is at least
 * 36 and the extended checksum covers the 36 bytes this structure has in
 * every revision so far (ACPICA checks the same 36).  @p holds 20 bytes,
 * 36 if @more is set and the revision is 2 or more; otherwise the caller
 * passes @more 0 and we only look at the first 20.
 */
static int check_rsdp(const uint8_t *p, int more)
{
	struct acpi_rsdp r;

	if (__builtin_memcmp(p, ACPI_RSDP_SIG, 8))
		return ACPI_ENORSDP;
	if (sum(p, ACPI_RSDP_V1_LEN))
		return ACPI_ERSDP;
	if (p[15] < ACPI_RSDP_REV2 || !more)
		return 0;
	COPY(r, p);
	if (r.length < ACPI_RSDP_V2_LEN || sum(p, ACPI_RSDP_V2_LEN))
		return ACPI_ERSDP;
	return 0;
}

/* One candidate at @addr: a valid RSDP, mapped for all its bytes, or NULL. */
static const void *rsdp_at(acpi_phys_fn phys, void *ctx, uint64_t addr)
{
	const uint8_t *p = phys(ctx, addr, ACPI_RSDP_V1_LEN);

	if (!p || check_rsdp(p, 0))
		return NULL;
	if (p[15] < ACPI_RSDP_REV2)
		return p;
	p = phys(ctx, addr, ACPI_RSDP_V2_LEN);
	return p && !check_rsdp(p, 1) ? p : NULL;
}

static const void *scan(acpi_phys_fn phys, void *ctx, uint64_t start,
			uint64_t len)
{
	uint64_t a;

	for (a = start; a < start + len; a += ACPI_RSDP_ALIGN) {
		const void *p = rsdp_at(phys, ctx, a);

		if (p)
			return p;
	}
	return NULL;
}

const void *acpi_find_rsdp(acpi_phys_fn phys, void *ctx)
{
	const uint8_t *bda = phys(ctx, ACPI_BDA_EBDA_SEG, 2);
	const void *p;

	/*
	 * 5.2.5.1: first the first 1 KiB of the EBDA, whose segment is the
	 * u16 at 40:0Eh.  A segment that puts it inside the BDA, or not below
	 * 640 KiB, means there is none (irqlab-vmm leaves 0 there).
	 */
	if (bda) {
		uint16_t seg;
		uint64_t ebda;

		COPY(seg, bda);
		ebda = (uint64_t)seg << 4;
		if (ebda >= 0x500 && ebda + ACPI_EBDA_SCAN_LEN <= 0xa0000) {
			p = scan(phys, ctx, ebda, ACPI_EBDA_SCAN_LEN);
			if (p)
				return p;
		}
	}
	/* then the BIOS read-only area */
	return scan(phys, ctx, ACPI_BIOS_START, ACPI_BIOS_END - ACPI_BIOS_START);
}

/*
 * The first revision 2+ RSDP in [@start, @start + @len), else the first
 * of any revision (*@old, if none was found before).  ACPI 6.5 5.2.5.2:
 * on UEFI the RSDP is where the EFI configuration table says, with no
 * alignment rule (edk2 puts its 2.0 RSDP right after a 20-byte 1.0 one),
 * so every byte is a candidate: the region is mapped whole, searched for
 * the signature, and each hit checked as in the BIOS-area scan.
 */
static const void *scan_region(acpi_phys_fn phys, void *ctx, uint64_t start,
			       uint64_t len, const void **old)
{
	const uint8_t *base = phys(ctx, start, len), *p;
	uint64_t off;

	if (!base)
		return NULL;	/* not memory we can read */
	for (off = 0; off + ACPI_RSDP_V1_LEN <= len; off++) {
		if (base[off] != ACPI_RSDP_SIG[0] ||
		    __builtin_memcmp(base + off, ACPI_RSDP_SIG, 8))
			continue;
		p = rsdp_at(phys, ctx, start + off);
		if (p && p[15] >= ACPI_RSDP_REV2)
			return p;
		if (p && !*old)
			*old = p;
	}
	return NULL;
}

const void *acpi_find_rsdp_mmap(acpi_phys_fn phys, void *ctx,
				const struct mbinfo_mmap *map, unsigned n)
{
	const void *p, *old = NULL;
	uint64_t len;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (map[i].type != MB_MEMORY_ACPI &&
		    map[i].type != MB_MEMORY_NVS)
			continue;
		len = map[i].len < ACPI_MMAP_SCAN_MAX ? map[i].len :
		      ACPI_MMAP_SCAN_MAX;
		p = scan_region(phys, ctx, map[i].addr, len, &old);
		if (p)
			return p;
	}
	return old;
}

/* ---- tables (5.2.6) ---- */

/*
 * Map the table at @addr: its header, then all Length bytes; check Length
 * and the checksum, and the signature if @sig is given.
 */
static int get_table(acpi_phys_fn phys, void *ctx, uint64_t addr,
		     const char *sig, const uint8_t **out,
		     struct acpi_sdt_header *hdr)
{
	const uint8_t *p;

	if (!addr)
		return ACPI_ENOTABLE;
	p = phys(ctx, addr, sizeof(*hdr));
	if (!p)
		return ACPI_ENOTABLE;
	COPY(*hdr, p);
	if (sig && !sig_is(hdr->signature, sig))
		return ACPI_ESIG;
	if (hdr->length < sizeof(*hdr) || hdr->length > ACPI_MAX_TABLE_LEN)
		return ACPI_ELENGTH;
	p = phys(ctx, addr, hdr->length);
	if (!p)
		return ACPI_ELENGTH;	/* Length runs past memory */
	if (sum(p, hdr->length))
		return ACPI_ECHECKSUM;
	*out = p;
	return 0;
}

/* ---- MADT (5.2.12) ---- */

static void add_cpu(struct acpi_info *out, uint32_t apic_id, uint32_t uid,
		    uint32_t flags, int x2apic)
{
	unsigned i;

	/* 5.2.12.2: neither enabled nor online capable: ignore the entry */
	if (!(flags & (ACPI_LAPIC_ENABLED | ACPI_LAPIC_ONLINE_CAPABLE)))
		return;
	for (i = 0; i < out->nr_cpus; i++)
		if (out->cpus[i].apic_id == apic_id)
			return;		/* one processor, two entries */
	if (out->nr_cpus < ACPI_MAX_CPUS) {
		out->cpus[out->nr_cpus].apic_id = apic_id;
		out->cpus[out->nr_cpus].uid = uid;
		out->cpus[out->nr_cpus].x2apic = x2apic;
		out->nr_cpus++;
	}
}

/* One entry of @len bytes (>= 2, inside the MADT) at @e. */
static int madt_entry(const uint8_t *e, uint8_t type, uint8_t len,
		      struct acpi_info *out)
{
	struct acpi_madt_lapic lapic;
	struct acpi_madt_x2apic x2apic;
	struct acpi_madt_ioapic io;
	struct acpi_madt_iso iso;
	struct acpi_madt_lapic_nmi nmi;
	struct acpi_madt_x2apic_nmi x2nmi;
	struct acpi_madt_lapic_addr addr;

	/* 5.2.12: a later revision may lengthen an entry, never shorten it */
	switch (type) {
	case ACPI_MADT_LAPIC:			/* 5.2.12.2 */
		if (len < sizeof(lapic))
			return ACPI_EMADT;
		COPY(lapic, e);
		add_cpu(out, lapic.apic_id, lapic.uid, lapic.flags, 0);
		return 0;
	case ACPI_MADT_X2APIC:			/* 5.2.12.12 */
		if (len < sizeof(x2apic))
			return ACPI_EMADT;
		COPY(x2apic, e);
		add_cpu(out, x2apic.x2apic_id, x2apic.uid, x2apic.flags, 1);
		return 0;
	case ACPI_MADT_IOAPIC:			/* 5.2.12.3 */
		if (len < sizeof(io))
			return ACPI_EMADT;
		COPY(io, e);
		/* the one with the lowest GSI base serves the ISA IRQs */
		if (!out->has_ioapic || io.gsi_base < out->ioapic_gsi_base) {
			out->has_ioapic = 1;
			out->ioapic_id = io.id;
			out->ioapic_addr = io.addr;
			out->ioapic_gsi_base = io.gsi_base;
		}
		return 0;
	case ACPI_MADT_ISO:			/* 5.2.12.5: bus 0 is ISA */
		if (len < sizeof(iso))
			return ACPI_EMADT;
		COPY(iso, e);
		if (iso.bus == 0 && out->nr_iso < ACPI_MAX_ISO) {
			out->iso[out->nr_iso].bus_irq = iso.source;
			out->iso[out->nr_iso].gsi = iso.gsi;
			out->iso[out->nr_iso].flags = iso.flags;
			out->nr_iso++;
		}
		return 0;
	case ACPI_MADT_LAPIC_NMI:		/* 5.2.12.7: LINT0 or LINT1 */
		if (len < sizeof(nmi))
			return ACPI_EMADT;
		COPY(nmi, e);
		if (nmi.lint > 1)
			return ACPI_EMADT;
		/* the entry for all processors wins over one for a single one */
		if (out->nmi_lint < 0 || nmi.uid == ACPI_NMI_ALL_CPUS)
			out->nmi_lint = nmi.lint;
		return 0;
	case ACPI_MADT_X2APIC_NMI:		/* 5.2.12.13 */
		if (len < sizeof(x2nmi))
			return ACPI_EMADT;
		COPY(x2nmi, e);
		if (x2nmi.lint > 1)
			return ACPI_EMADT;
		if (out->nmi_lint < 0)
			out->nmi_lint = x2nmi.lint;
		return 0;
	case ACPI_MADT_LAPIC_ADDR:		/* 5.2.12.8: use it instead */
		if (len < sizeof(addr))
			return ACPI_EMADT;
		COPY(addr, e);
		out->lapic_addr = addr.addr;
		return 0;
	default:				/* 5.2.12: skip other types */
		return 0;
	}
}

static int parse_madt(const uint8_t *p, uint32_t len, struct acpi_info *out)
{
	struct acpi_madt m;
	uint64_t off;

	COPY(m, p);
	out->madt_flags = m.flags;
	out->lapic_addr = m.lapic_addr;
	/*
	 * 5.2.12: each structure starts with its type and length; the list
	 * fills the table to its Length.  An entry's length is at least 2, so
	 * every step moves on.
	 */
	for (off = sizeof(m); off < len; off += p[off + 1]) {
		uint8_t type, elen;
		int err;

		if (len - off < sizeof(struct acpi_madt_entry))
			return ACPI_EMADT;
		type = p[off];
		elen = p[off + 1];
		if (elen < sizeof(struct acpi_madt_entry) || elen > len - off)
			return ACPI_EMADT;
		err = madt_entry(p + off, type, elen, out);
		if (err)
			return err;
	}
	return 0;
}

/* ---- FADT (5.2.9) ---- */

/* An FADT of @len bytes holds all of @field (the X_ fields came in 2.0). */
#define HAS(len, field) \
	((len) >= __builtin_offsetof(struct acpi_fadt, field) + \
		  sizeof(((struct acpi_fadt *)0)->field))

/*
 * 5.2.9: a non-zero X_ address that OSPM can use replaces the 32-bit field.
 * We use an X_PM_TMR_BLK in I/O space; else PM_TMR_BLK, with PM_TMR_LEN 4.
 */
static uint16_t pm_timer(const struct acpi_fadt *f, uint32_t len)
{
	if (f->flags & ACPI_FADT_HW_REDUCED)
		return 0;		/* 4.1: no fixed hardware, no PM timer */
	if (HAS(len, x_pm_tmr_blk) && f->x_pm_tmr_blk.address) {
		if (f->x_pm_tmr_blk.space_id == ACPI_AS_IO &&
		    f->x_pm_tmr_blk.address <= 0xffff)
			return f->x_pm_tmr_blk.address;
		return 0;		/* in memory: not a port */
	}
	if (f->pm_tmr_len != ACPI_PM_TMR_LEN || f->pm_tmr_blk > 0xffff)
		return 0;
	return f->pm_tmr_blk;
}

/*
 * HPET spec 1.0a, 3.2.4: the block's address is a Generic Address in
 * system memory.  A table too short, or in another address space, is
 * not used (Linux's hpet_table_parse() says the same).
 */
static int parse_hpet(const uint8_t *p, uint32_t len, struct acpi_info *out)
{
	struct acpi_hpet h;

	if (len < sizeof(h))
		return ACPI_ELENGTH;
	__builtin_memcpy(&h, p, sizeof(h));
	if (h.base.space_id != ACPI_AS_MEMORY || !h.base.address)
		return 0;
	out->hpet_addr = h.base.address;
	out->hpet_block_id = h.block_id;
	return 0;
}

/* 5.2.10: FACS: signature, Length >= 64, no checksum. */
static int check_facs(acpi_phys_fn phys, void *ctx, uint64_t addr)
{
	const struct acpi_facs *p = phys(ctx, addr, sizeof(*p));
	struct acpi_facs facs;

	if (!p)
		return ACPI_ENOTABLE;
	COPY(facs, p);
	if (!sig_is(facs.signature, ACPI_SIG_FACS))
		return ACPI_ESIG;
	if (facs.length < sizeof(facs))
		return ACPI_ELENGTH;
	return 0;
}

static int parse_fadt(const uint8_t *p, uint32_t len, acpi_phys_fn phys,
		      void *ctx, struct acpi_info *out)
{
	struct acpi_sdt_header hdr;
	struct acpi_fadt f = { 0 };
	const uint8_t *dsdt_p;
	uint64_t dsdt, facs;
	int err;

	/* an older, shorter FADT: the fields past its Length read as 0 */
	__builtin_memcpy(&f, p, len < sizeof(f) ? len : sizeof(f));
	out->pm_tmr_port = pm_timer(&f, len);
	out->pm_tmr_32bit = out->pm_tmr_port &&
			    (f.flags & ACPI_FADT_TMR_VAL_EXT);

	/* X_DSDT and X_FIRMWARE_CTRL, when non-zero, replace the 32-bit ones */
	dsdt = HAS(len, x_dsdt) && f.x_dsdt ? f.x_dsdt : f.dsdt;
	if (dsdt) {
		err = get_table(phys, ctx, dsdt, ACPI_SIG_DSDT, &dsdt_p, &hdr);
		if (err)
			return err;
	}
	facs = HAS(len, x_firmware_ctrl) && f.x_firmware_ctrl ?
	       f.x_firmware_ctrl : f.firmware_ctrl;
	if (facs)
		return check_facs(phys, ctx, facs);
	return 0;
}

/* ---- the root: RSDT (5.2.7) or XSDT (5.2.8) ---- */

int acpi_parse(const void *rsdp, acpi_phys_fn phys, void *ctx,
	       struct acpi_info *out)
{
	const uint8_t *root, *p;
	struct acpi_sdt_header hdr;
	struct acpi_rsdp r = { 0 };
	uint32_t esize, n, i;
	int err, have_madt = 0, have_fadt = 0;
	uint8_t rev;
	uint64_t addr;

	__builtin_memset(out, 0, sizeof(*out));
	out->nmi_lint = -1;
	if (!rsdp)
		return ACPI_ENORSDP;
	err = check_rsdp(rsdp, 1);
	if (err)
		return err;
	/* a revision 0 RSDP may be a 20-byte copy: read no further */
	rev = ((const uint8_t *)rsdp)[15];
	__builtin_memcpy(&r, rsdp, rev >= ACPI_RSDP_REV2 ? ACPI_RSDP_V2_LEN :
			 ACPI_RSDP_V1_LEN);
	out->rsdp_rev = r.revision;
	out->rsdp_addr = (uint64_t)(uintptr_t)rsdp;

	/* 5.2.5.3: from revision 2 on, use the XSDT if there is one */
	if (r.revision >= ACPI_RSDP_REV2 && r.xsdt_addr) {
		err = get_table(phys, ctx, r.xsdt_addr, ACPI_SIG_XSDT,
				&root, &hdr);
		esize = 8;
	} else {
		err = get_table(phys, ctx, r.rsdt_addr, ACPI_SIG_RSDT,
				&root, &hdr);
		esize = 4;
	}
	if (err)
		return err;
	/* 5.2.7, 5.2.8: the Length implies the number of entries */
	if ((hdr.length - sizeof(hdr)) % esize)
		return ACPI_ELENGTH;
	n = (hdr.length - sizeof(hdr)) / esize;
	if (n > ACPI_MAX_TABLES)
		return ACPI_ETOOMANY;

	for (i = 0; i < n; i++) {
		struct acpi_sdt_header th;
		uint32_t a32;

		if (esize == 8) {
			COPY(addr, root + sizeof(hdr) + i * 8);
		} else {
			COPY(a32, root + sizeof(hdr) + i * 4);
			addr = a32;
		}
		if (!addr)
			continue;	/* an empty slot, as Linux skips it */
		err = get_table(phys, ctx, addr, NULL, &p, &th);
		if (err)
			return err;
		/* the first of each kind counts */
		if (sig_is(th.signature, ACPI_SIG_MADT) && !have_madt) {
			if (th.length < sizeof(struct acpi_madt))
				return ACPI_ELENGTH;
			err = parse_madt(p, th.length, out);
			have_madt = 1;
		} else if (sig_is(th.signature, ACPI_SIG_FADT) && !have_fadt) {
			if (th.length < ACPI_FADT_V1_LEN)
				return ACPI_ELENGTH;
			err = parse_fadt(p, th.length, phys, ctx, out);
			have_fadt = 1;
		} else if (sig_is(th.signature, ACPI_SIG_HPET) &&
			   !out->hpet_addr) {
			err = parse_hpet(p, th.length, out);
		}
		if (err)
			return err;
	}
	return have_madt ? 0 : ACPI_ENOMADT;
}

const char *acpi_strerror(int err)
{
	switch (err) {
	case 0:
		return "no error";
	case ACPI_ENORSDP:
		return "no RSDP";
	case ACPI_ERSDP:
		return "RSDP checksum or length wrong";
	case ACPI_ENOTABLE:
		return "table address 0 or not in memory";
	case ACPI_ELENGTH:
		return "table length wrong or past memory";
	case ACPI_ECHECKSUM:
		return "table checksum wrong";
	case ACPI_ESIG:
		return "table signature wrong";
	case ACPI_ENOMADT:
		return "no MADT";
	case ACPI_EMADT:
		return "MADT entry too short or past the end";
	case ACPI_ETOOMANY:
		return "too many tables in the RSDT/XSDT";
	default:
		return "unknown error";
	}
}
