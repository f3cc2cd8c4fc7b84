// SPDX-License-Identifier: MIT
/* The I/O APIC model: registers, pin semantics, EOI, write classification. */
#include <criterion/criterion.h>
#include <string.h>

#include "hw/apic.h"
#include "hw/ioapic.h"
#include "apic/ioapic.h"

#define NCPUS	4
#define LOG	64

static struct ioapic io;

static struct {
	unsigned nmsg;
	struct lapic_ipi msg[LOG];
	int took;			/* what deliver returns; -1: as routed */
	unsigned ntmr;
	unsigned tmr_cpu[LOG];
	uint32_t tmr[LOG][8];
	unsigned rendezvous;
	int rendezvous_src;
	unsigned ntrace;
	bool id_moved[NCPUS];		/* the guest wrote an APIC ID: */
	uint8_t new_id[NCPUS];		/* this one */
	uint32_t tmr_at_msg[NCPUS][8];	/* the sets as the last message went */
} f;

/* APIC ID = vCPU index unless moved; logical flat: LDR bit i is vCPU i */
static uint64_t fake_dest_mask(void *ctx, uint32_t dest, bool logical)
{
	uint64_t m = 0;
	unsigned i;

	(void)ctx;
	if (dest == 0xff)
		return (1ull << NCPUS) - 1;
	if (logical)
		return dest & ((1ull << NCPUS) - 1);
	for (i = 0; i < NCPUS; i++)
		if ((f.id_moved[i] ? f.new_id[i] : i) == dest)
			m |= 1ull << i;
	return m;
}

static int fake_deliver(void *ctx, const struct lapic_ipi *msg)
{
	unsigned i, w;

	(void)ctx;
	if (f.nmsg < LOG)
		f.msg[f.nmsg] = *msg;
	f.nmsg++;
	for (i = 0; i < NCPUS; i++)
		for (w = 0; w < 8; w++)
			f.tmr_at_msg[i][w] = ioapic_tmr_word(&io, i, w);
	if (f.took >= 0)
		return f.took;
	return __builtin_popcountll(fake_dest_mask(NULL, msg->dest,
						   msg->logical));
}

static void fake_tmr_update(void *ctx, unsigned cpu, const uint32_t *tmr)
{
	(void)ctx;
	cr_assert_lt(cpu, NCPUS);
	if (f.ntmr < LOG) {
		f.tmr_cpu[f.ntmr] = cpu;
		memcpy(f.tmr[f.ntmr], tmr, sizeof(f.tmr[0]));
	}
	f.ntmr++;
}

static void fake_rendezvous(void *ctx, int src)
{
	(void)ctx;
	f.rendezvous++;
	f.rendezvous_src = src;
}

static void fake_trace(void *ctx, const char *line)
{
	(void)ctx;
	cr_assert(line[0]);
	f.ntrace++;
}

static const struct ioapic_ops ops = {
	.deliver = fake_deliver,
	.dest_mask = fake_dest_mask,
	.tmr_update = fake_tmr_update,
	.rendezvous = fake_rendezvous,
	.trace = fake_trace,
};

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	f.took = -1;
	cr_assert_eq(ioapic_init(&io, NCPUS, 1, IOAPIC_OPTIMIZED, &ops, NULL), 0);
}

static void setup_naive(void)
{
	setup();
	io.policy = IOAPIC_NAIVE;
}

TestSuite(ioapic, .init = setup);
TestSuite(ioapic_naive, .init = setup_naive);

static uint32_t rd(uint32_t index)
{
	uint32_t v;

	cr_assert_eq(ioapic_mmio_write(&io, 0, IOAPIC_IOREGSEL, 4, index), 0);
	cr_assert_eq(ioapic_mmio_read(&io, IOAPIC_IOWIN, 4, &v), 0);
	return v;
}

/* as a guest: select, then write the window; @src is the writing vCPU */
static void wr_from(int src, uint32_t index, uint32_t val)
{
	cr_assert_eq(ioapic_mmio_write(&io, src, IOAPIC_IOREGSEL, 4, index), 0);
	cr_assert_eq(ioapic_mmio_write(&io, src, IOAPIC_IOWIN, 4, val), 0);
}

static void wr(uint32_t index, uint32_t val)
{
	wr_from(0, index, val);
}

static void set_rte(unsigned pin, uint32_t low, uint8_t dest)
{
	wr(IOAPIC_REG_REDTBL + 2 * pin + 1, (uint32_t)dest << 24);
	wr(IOAPIC_REG_REDTBL + 2 * pin, low);
}

static bool tmr_bit(unsigned cpu, uint8_t v)
{
	return ioapic_tmr_word(&io, cpu, v / 32) & (1u << (v % 32));
}

/* ---- registers ---- */

Test(ioapic, id_version_arbitration)
{
	cr_assert_eq(rd(IOAPIC_REG_ID), 1u << 24);
	cr_assert_eq(rd(IOAPIC_REG_VER), 0x00170020, "24 pins, version 0x20");
	cr_assert_eq(rd(IOAPIC_REG_ARB), 1u << 24);
	wr(IOAPIC_REG_ID, 0xffffffff);
	cr_assert_eq(rd(IOAPIC_REG_ID), 0x0f000000, "only bits 27:24");
	wr(IOAPIC_REG_VER, 0);
	cr_assert_eq(rd(IOAPIC_REG_VER), 0x00170020, "read-only");
	wr(IOAPIC_REG_ARB, 0);
	cr_assert_eq(rd(IOAPIC_REG_ARB), 0x0f000000);
	cr_assert_eq(io.stats.bad_accesses, 0);
}

Test(ioapic, reset_state_and_regsel)
{
	uint32_t v;
	unsigned pin;

	for (pin = 0; pin < IOAPIC_NR_PINS; pin++) {
		cr_assert_eq(rd(IOAPIC_REG_REDTBL + 2 * pin), IOAPIC_RTE_MASKED);
		cr_assert_eq(rd(IOAPIC_REG_REDTBL + 2 * pin + 1), 0);
	}
	cr_assert_eq(ioapic_mmio_write(&io, 0, IOAPIC_IOREGSEL, 4, 0x1234), 0);
	cr_assert_eq(ioapic_mmio_read(&io, IOAPIC_IOREGSEL, 4, &v), 0);
	cr_assert_eq(v, 0x34, "IOREGSEL keeps bits 7:0");
}

Test(ioapic, every_field_of_an_entry)
{
	uint32_t low = 0x5a | IOAPIC_RTE_DM_LOWEST | IOAPIC_RTE_LOGICAL |
		       IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_LEVEL |
		       IOAPIC_RTE_MASKED;

	wr(IOAPIC_REG_REDTBL + 6, 0xffffffff);
	cr_assert_eq(rd(IOAPIC_REG_REDTBL + 6), 0x1afff,
		     "delivery status, remote IRR and 31:17 are read-only");
	wr(IOAPIC_REG_REDTBL + 6, low);
	wr(IOAPIC_REG_REDTBL + 7, 0xffffffff);
	cr_assert_eq(rd(IOAPIC_REG_REDTBL + 7), 0xff000000,
		     "high dword: destination only");
	cr_assert_eq(ioapic_rte(&io, 3), 0xff00000000000000ull | low);
	cr_assert_eq(ioapic_rte(&io, IOAPIC_NR_PINS), 0);
}

Test(ioapic, hostile_accesses_are_counted_and_ignored)
{
	uint32_t v = 0x55;
	unsigned sizes[] = { 1, 2, 8, 0, 3 }, i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cr_assert_eq(ioapic_mmio_read(&io, IOAPIC_IOWIN, sizes[i], &v), -1);
		cr_assert_eq(v, 0);
		cr_assert_eq(ioapic_mmio_write(&io, 0, IOAPIC_IOREGSEL,
					       sizes[i], 0x10), -1);
	}
	cr_assert_eq(io.regsel, 0, "a bad-width select changed nothing");
	cr_assert_eq(ioapic_mmio_read(&io, 0x04, 4, &v), -1, "unaligned");
	cr_assert_eq(ioapic_mmio_read(&io, IOAPIC_EOIR, 4, &v), -1,
		     "EOIR is write-only");
	cr_assert_eq(ioapic_mmio_write(&io, 0, 0x20, 4, 1), -1);
	cr_assert_eq(ioapic_bus_read(&io, 0x100000, 4, 0), 0);
	ioapic_bus_write(&io, 0xffffffffffull, 4, 1, 0);
	/* IOREGSEL indexes past the table and in the 0x03-0x0f hole */
	cr_assert_eq(ioapic_mmio_write(&io, 0, IOAPIC_IOREGSEL, 4, 0x40), 0);
	cr_assert_eq(ioapic_mmio_read(&io, IOAPIC_IOWIN, 4, &v), -1);
	cr_assert_eq(v, 0);
	cr_assert_eq(ioapic_mmio_write(&io, 0, IOAPIC_IOWIN, 4, 0), -1);
	cr_assert_eq(ioapic_reg_write(&io, 0, 0x03, 1), -1);
	cr_assert_eq(ioapic_reg_write(&io, 0, 0xff, 1), -1);
	cr_assert_eq(ioapic_set_irq(&io, IOAPIC_NR_PINS, 1), -1);
	cr_assert_eq(ioapic_set_irq(&io, ~0u, 1), -1);
	cr_assert_eq(io.stats.bad_accesses,
		     2 * 5 + 3 + 2 + 2 + 2 + 2);
	cr_assert_eq(f.nmsg, 0);
	cr_assert_eq(io.stats.rte_writes, 0);
	/* the last entry is still reachable */
	wr(IOAPIC_REG_REDTBL + 47, 0x03000000);
	cr_assert_eq(ioapic_rte(&io, 23) >> 56, 3);
	cr_assert_eq(ioapic_init(&io, 0, 0, IOAPIC_OPTIMIZED, &ops, NULL), -1);
	cr_assert_eq(ioapic_init(&io, IOAPIC_MAX_CPUS + 1, 0,
				 IOAPIC_OPTIMIZED, &ops, NULL), -1);
}

/* ---- pins ---- */

Test(ioapic, edge_delivers_on_rising_edge_only)
{
	set_rte(4, 0x31, 2);
	cr_assert_eq(ioapic_set_irq(&io, 4, 1), 0);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.msg[0].vector, 0x31);
	cr_assert_eq(f.msg[0].delivery, APIC_ICR_DM_FIXED);
	cr_assert_eq(f.msg[0].dest, 2);
	cr_assert_not(f.msg[0].logical);
	cr_assert_not(f.msg[0].level);
	cr_assert(f.msg[0].assert);
	cr_assert_eq(f.msg[0].shorthand, APIC_ICR_DEST_FIELD);
	ioapic_set_irq(&io, 4, 1);
	cr_assert_eq(f.nmsg, 1, "held high: no new edge");
	ioapic_set_irq(&io, 4, 0);
	cr_assert_eq(f.nmsg, 1);
	ioapic_set_irq(&io, 4, 1);
	cr_assert_eq(f.nmsg, 2);
	cr_assert_eq(ioapic_rte(&io, 4) & IOAPIC_RTE_REMOTE_IRR, 0,
		     "edge entries never set remote IRR");
	ioapic_eoi(&io, 0x31);
	cr_assert_eq(f.nmsg, 2, "an EOI does not re-deliver an edge");
}

Test(ioapic, masked_edge_is_lost)
{
	set_rte(4, 0x31 | IOAPIC_RTE_MASKED, 0);
	ioapic_set_irq(&io, 4, 1);
	wr(IOAPIC_REG_REDTBL + 8, 0x31);	/* unmask while high */
	cr_assert_eq(f.nmsg, 0, "82093AA: a masked edge is not held");
	ioapic_set_irq(&io, 4, 0);
	ioapic_set_irq(&io, 4, 1);
	cr_assert_eq(f.nmsg, 1);
}

Test(ioapic, level_and_remote_irr)
{
	set_rte(9, 0x41 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_LOGICAL, 0x3);
	ioapic_set_irq(&io, 9, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert(f.msg[0].level);
	cr_assert(f.msg[0].logical);
	cr_assert_eq(f.msg[0].dest, 3);
	cr_assert(rd(IOAPIC_REG_REDTBL + 18) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_irq(&io, 9, 0);
	ioapic_set_irq(&io, 9, 1);
	cr_assert_eq(f.nmsg, 1, "remote IRR blocks a new message");
	/* a write of the low dword cannot clear the read-only remote IRR */
	wr(IOAPIC_REG_REDTBL + 18, 0x41 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_LOGICAL);
	cr_assert(rd(IOAPIC_REG_REDTBL + 18) & IOAPIC_RTE_REMOTE_IRR);
	cr_assert_eq(f.nmsg, 1);
	ioapic_eoi(&io, 0x42);
	cr_assert_eq(f.nmsg, 1, "another vector's EOI");
	ioapic_eoi(&io, 0x41);
	cr_assert_eq(f.nmsg, 2, "EOI while asserted: delivered again");
	ioapic_set_irq(&io, 9, 0);
	ioapic_eoi(&io, 0x41);
	cr_assert_eq(f.nmsg, 2, "EOI after the line fell: nothing");
	cr_assert_eq(rd(IOAPIC_REG_REDTBL + 18) & IOAPIC_RTE_REMOTE_IRR, 0);
}

Test(ioapic, eoi_register_redelivers)
{
	set_rte(10, 0x52 | IOAPIC_RTE_LEVEL, 1);
	ioapic_set_irq(&io, 10, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(ioapic_mmio_write(&io, 1, IOAPIC_EOIR, 4, 0x152), 0);
	cr_assert_eq(f.nmsg, 2, "EOIR takes the vector from bits 7:0");
	cr_assert_eq(io.stats.eois, 1);
}

Test(ioapic, level_nobody_took_leaves_remote_irr_clear)
{
	f.took = 0;
	set_rte(11, 0x60 | IOAPIC_RTE_LEVEL, 7);
	ioapic_set_irq(&io, 11, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(ioapic_rte(&io, 11) & IOAPIC_RTE_REMOTE_IRR, 0);
}

Test(ioapic, masked_while_asserted_then_unmask_delivers)
{
	set_rte(5, 0x44 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED, 1);
	ioapic_set_irq(&io, 5, 1);
	cr_assert_eq(f.nmsg, 0);
	wr(IOAPIC_REG_REDTBL + 10, 0x44 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.msg[0].vector, 0x44);
	cr_assert(ioapic_rte(&io, 5) & IOAPIC_RTE_REMOTE_IRR);
	/* masked again while in service; the EOI must not deliver */
	wr(IOAPIC_REG_REDTBL + 10, 0x44 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED);
	ioapic_eoi(&io, 0x44);
	cr_assert_eq(f.nmsg, 1);
	wr(IOAPIC_REG_REDTBL + 10, 0x44 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.nmsg, 2);
}

Test(ioapic, switching_to_edge_clears_remote_irr)
{
	set_rte(6, 0x45 | IOAPIC_RTE_LEVEL, 0);
	ioapic_set_irq(&io, 6, 1);
	cr_assert(ioapic_rte(&io, 6) & IOAPIC_RTE_REMOTE_IRR);
	wr(IOAPIC_REG_REDTBL + 12, 0x45);
	cr_assert_eq(ioapic_rte(&io, 6) & IOAPIC_RTE_REMOTE_IRR, 0);
	cr_assert_eq(f.nmsg, 1);
}

Test(ioapic, nmi_entries_are_edge_even_if_level)
{
	set_rte(7, 0x02 | IOAPIC_RTE_DM_NMI | IOAPIC_RTE_LEVEL, 0);
	ioapic_set_irq(&io, 7, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.msg[0].delivery, APIC_ICR_DM_NMI);
	cr_assert_not(f.msg[0].level);
	cr_assert_eq(ioapic_rte(&io, 7) & IOAPIC_RTE_REMOTE_IRR, 0);
	cr_assert_eq(f.ntmr, 0, "an NMI entry has no TMR route");
}

Test(ioapic, both_dwords_are_kept)
{
	set_rte(2, 0x30, 1);
	cr_assert_eq(io.stats.rte_writes, 2);
	/* the Windows pattern: low unchanged, then the high dword */
	wr(IOAPIC_REG_REDTBL + 4, 0x30);
	cr_assert_eq(io.stats.rte_unchanged, 1);
	wr(IOAPIC_REG_REDTBL + 5, 2u << 24);
	cr_assert_eq(io.stats.rte_writes, 4);
	cr_assert_eq(io.stats.rte_unchanged, 1);
	cr_assert_eq(rd(IOAPIC_REG_REDTBL + 4), 0x30, "low kept");
	cr_assert_eq(rd(IOAPIC_REG_REDTBL + 5), 2u << 24);
	/* the Linux order: high first, then low */
	wr(IOAPIC_REG_REDTBL + 5, 3u << 24);
	wr(IOAPIC_REG_REDTBL + 4, 0x33);
	cr_assert_eq(ioapic_rte(&io, 2), (3ull << 56) | 0x33);
	ioapic_set_irq(&io, 2, 1);
	cr_assert_eq(f.msg[0].dest, 3);
	cr_assert_eq(f.msg[0].vector, 0x33);
	cr_assert_gt(f.ntrace, 0);
}

/* ---- classification ---- */

Test(ioapic, destination_only_edge_change_does_no_cross_vcpu_work)
{
	unsigned i;

	set_rte(1, 0x31, 0);
	for (i = 0; i < 100; i++) {
		wr(IOAPIC_REG_REDTBL + 2, 0x31);
		wr(IOAPIC_REG_REDTBL + 3, (i % NCPUS) << 24);
	}
	cr_assert_eq(io.stats.rte_writes, 202);
	cr_assert_eq(io.stats.tmr_updates, 0);
	cr_assert_eq(io.stats.remote_tmr_updates, 0);
	cr_assert_eq(io.stats.rendezvous, 0);
	cr_assert_eq(f.ntmr, 0);
}

Test(ioapic, mask_polarity_and_masked_destination_do_nothing)
{
	unsigned i;

	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 1);
	cr_assert_eq(f.ntmr, 1, "the level route reaches vCPU 1");
	f.ntmr = 0;
	io.stats.tmr_updates = 0;
	io.stats.remote_tmr_updates = 0;
	wr(IOAPIC_REG_REDTBL + 6, 0x48 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW);
	wr(IOAPIC_REG_REDTBL + 6, 0x48 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED);
	for (i = 0; i < 8; i++)
		wr(IOAPIC_REG_REDTBL + 7, (i % NCPUS) << 24);
	wr(IOAPIC_REG_REDTBL + 7, 1u << 24);
	wr(IOAPIC_REG_REDTBL + 6, 0x48 | IOAPIC_RTE_LEVEL);	/* unmask */
	cr_assert_eq(io.stats.tmr_updates, 0);
	cr_assert_eq(io.stats.remote_tmr_updates, 0);
	cr_assert_eq(f.ntmr, 0);
	cr_assert(tmr_bit(1, 0x48));
}

Test(ioapic, level_move_updates_only_the_old_and_new_vcpu)
{
	unsigned i;

	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 1);
	cr_assert_eq(f.ntmr, 1);
	cr_assert_eq(f.tmr_cpu[0], 1);
	cr_assert(tmr_bit(1, 0x48));
	cr_assert_eq(io.stats.remote_tmr_updates, 1,
		     "vCPU 1 is not the writer: a remote update");

	memset(&f, 0, sizeof(f));
	f.took = -1;
	io.stats.remote_tmr_updates = 0;
	wr_from(2, IOAPIC_REG_REDTBL + 6, 0x48 | IOAPIC_RTE_LEVEL);
	wr_from(2, IOAPIC_REG_REDTBL + 7, 2u << 24);
	cr_assert_eq(f.ntmr, 2, "exactly two vCPUs: the old and the new");
	for (i = 0; i < 2; i++) {
		unsigned c = f.tmr_cpu[i], w;

		cr_assert(c == 1 || c == 2);
		for (w = 0; w < 8; w++)
			cr_assert_eq(f.tmr[i][w], c == 2 && w == 2 ?
				     1u << 8 : 0, "only bit 0x48 moves");
	}
	cr_assert_not(tmr_bit(1, 0x48));
	cr_assert(tmr_bit(2, 0x48));
	cr_assert_eq(io.stats.remote_tmr_updates, 1,
		     "vCPU 1's is remote, vCPU 2 is the writer");
	cr_assert_eq(io.stats.rendezvous, 0);
	/* delivered to the new destination only */
	ioapic_set_irq(&io, 3, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.msg[0].dest, 2);
}

Test(ioapic, level_vector_change_moves_the_bit_on_that_vcpu)
{
	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 1);
	f.ntmr = 0;
	wr(IOAPIC_REG_REDTBL + 6, 0x49 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.ntmr, 1);
	cr_assert_eq(f.tmr_cpu[0], 1);
	cr_assert_not(tmr_bit(1, 0x48));
	cr_assert(tmr_bit(1, 0x49));
	/* level -> edge drops it, edge -> level brings it back */
	wr(IOAPIC_REG_REDTBL + 6, 0x49);
	cr_assert_not(tmr_bit(1, 0x49));
	wr(IOAPIC_REG_REDTBL + 6, 0x49 | IOAPIC_RTE_LEVEL);
	cr_assert(tmr_bit(1, 0x49));
	/* delivery mode: NMI has no TMR route */
	wr(IOAPIC_REG_REDTBL + 6, 0x49 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_DM_NMI);
	cr_assert_not(tmr_bit(1, 0x49));
	cr_assert_eq(f.ntmr, 4);
}

Test(ioapic, shared_vector_bit_stays_while_another_pin_needs_it)
{
	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 1);
	set_rte(4, 0x48 | IOAPIC_RTE_LEVEL, 1);
	cr_assert_eq(f.ntmr, 1, "the second pin changed no set");
	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 0);
	cr_assert(tmr_bit(1, 0x48), "pin 4 still sends 0x48 to vCPU 1");
	cr_assert(tmr_bit(0, 0x48));
	cr_assert_eq(f.ntmr, 2, "only vCPU 0 changed");
}

Test(ioapic, in_service_level_move_keeps_the_old_bit_until_eoi)
{
	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL, 1);
	ioapic_set_irq(&io, 3, 1);		/* in service on vCPU 1 */
	f.ntmr = 0;
	wr(IOAPIC_REG_REDTBL + 7, 2u << 24);
	cr_assert(tmr_bit(1, 0x48), "vCPU 1 still owes the EOI");
	cr_assert_eq(f.ntmr, 0);
	ioapic_set_irq(&io, 3, 0);
	ioapic_eoi(&io, 0x48);
	cr_assert_not(tmr_bit(1, 0x48));
	cr_assert(tmr_bit(2, 0x48));
	cr_assert_eq(f.ntmr, 2);
	cr_assert_eq(f.nmsg, 1);
}

Test(ioapic, logical_and_broadcast_routes)
{
	set_rte(8, 0x50 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_LOGICAL |
		IOAPIC_RTE_DM_LOWEST, 0x5);
	cr_assert(tmr_bit(0, 0x50) && tmr_bit(2, 0x50),
		  "lowest priority: every candidate");
	cr_assert_not(tmr_bit(1, 0x50) || tmr_bit(3, 0x50));
	wr(IOAPIC_REG_REDTBL + 17, 0xffu << 24);
	cr_assert(tmr_bit(1, 0x50) && tmr_bit(3, 0x50));
	f.ntmr = 0;
	ioapic_set_irq(&io, 8, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.ntmr, 0, "resolved again before the message: unchanged");
}

/* ---- the naive policy ---- */

Test(ioapic_naive, a_rendezvous_per_change)
{
	unsigned i;

	set_rte(1, 0x31, 0);
	cr_assert_eq(io.stats.rendezvous, 1, "high 0 -> 0 is unchanged");
	io.stats = (struct ioapic_stats){ 0 };
	for (i = 1; i <= 100; i++) {
		wr_from(3, IOAPIC_REG_REDTBL + 2, 0x31);
		wr_from(3, IOAPIC_REG_REDTBL + 3, (i % NCPUS) << 24);
	}
	cr_assert_eq(io.stats.rte_writes, 200);
	cr_assert_eq(io.stats.rte_unchanged, 100);
	cr_assert_eq(io.stats.rendezvous, 100);
	cr_assert_eq(f.rendezvous_src, 3);
	cr_assert_eq(io.stats.tmr_updates, 100 * NCPUS, "every TMR rebuilt");
	cr_assert_eq(io.stats.remote_tmr_updates, 100 * (NCPUS - 1),
		     "all but the writer's");
}

Test(ioapic_naive, rebuild_is_still_correct)
{
	set_rte(3, 0x48 | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED, 1);
	cr_assert(tmr_bit(1, 0x48), "bhyve: masked level entries count");
	wr(IOAPIC_REG_REDTBL + 7, 2u << 24);
	cr_assert_not(tmr_bit(1, 0x48));
	cr_assert(tmr_bit(2, 0x48));
	ioapic_set_irq(&io, 3, 1);
	wr(IOAPIC_REG_REDTBL + 6, 0x48 | IOAPIC_RTE_LEVEL);
	cr_assert_eq(f.nmsg, 1);
	cr_assert_eq(f.msg[0].dest, 2);
}

/*
 * A LAPIC's ID moves after the entry was written: the level message must
 * still find its vector in the new target's set, or the target takes it
 * as edge and its EOI never clears remote IRR.
 */
static void moved_apic_id_gets_the_level_vector(void)
{
	set_rte(5, 0x61 | IOAPIC_RTE_LEVEL, 6);	/* APIC ID 6: nobody yet */
	cr_assert_not(tmr_bit(2, 0x61));
	f.id_moved[2] = true;			/* vCPU 2 writes its APIC ID */
	f.new_id[2] = 6;
	ioapic_set_irq(&io, 5, 1);
	cr_assert_eq(f.nmsg, 1);
	cr_assert(f.msg[0].level);
	cr_assert(f.tmr_at_msg[2][0x61 / 32] & (1u << (0x61 % 32)),
		  "vCPU 2's set has the vector before the message");
	cr_assert(ioapic_rte(&io, 5) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_irq(&io, 5, 0);
	ioapic_eoi(&io, 0x61);
	cr_assert_not(ioapic_rte(&io, 5) & IOAPIC_RTE_REMOTE_IRR);
}

Test(ioapic, moved_apic_id_gets_the_level_vector)
{
	moved_apic_id_gets_the_level_vector();
}

Test(ioapic_naive, moved_apic_id_gets_the_level_vector)
{
	moved_apic_id_gets_the_level_vector();
	cr_assert_eq(io.stats.rendezvous, 3,
		     "the two dwords written, then the rebuild before the message");
}

Test(ioapic, policy_names)
{
	enum ioapic_policy p;

	cr_assert_eq(ioapic_policy_parse("naive", &p), 0);
	cr_assert_eq(p, IOAPIC_NAIVE);
	cr_assert_eq(ioapic_policy_parse("optimized", &p), 0);
	cr_assert_eq(p, IOAPIC_OPTIMIZED);
	cr_assert_eq(ioapic_policy_parse("fast", &p), -1);
	cr_assert_str_eq(ioapic_policy_name(IOAPIC_NAIVE), "naive");
}
