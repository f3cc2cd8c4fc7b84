// SPDX-License-Identifier: MIT
/*
 * The timeline (exit/timeline.c): the join of the VMM's stamps and the
 * guest's into IPIs, phase by phase, its JSON, and the guest ring's port
 * (dev/pvport.c).  The stamps here are written by hand, as a run would
 * leave them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dev/pvport.h"
#include "exit/timeline.h"
#include "exit/tl_trace.h"
#include "hw/irqlab.h"

#define VEC	0xd2

static struct tl_event ev[2][32];
static struct irqlab_tl_stamp st[2][32];
static struct tl_cpu cpu[2];

static void reset(void)
{
	memset(ev, 0, sizeof(ev));
	memset(st, 0, sizeof(st));
	memset(cpu, 0, sizeof(cpu));
	cpu[0].ev = ev[0];
	cpu[1].ev = ev[1];
	cpu[0].st = st[0];
	cpu[1].st = st[1];
}

TestSuite(timeline, .init = reset);

static void vmm(int c, enum tl_kind k, uint64_t tsc, uint32_t id,
		uint32_t seq, unsigned peer)
{
	/* as tl_add() records it: the guest's stamps so far */
	ev[c][cpu[c].n++] = (struct tl_event){ .tsc = tsc, .id = id,
		.seq = seq, .kind = (uint8_t)k, .vector = VEC,
		.peer = (uint16_t)peer, .gcount = cpu[c].nst };
}

static void guest(int c, unsigned kind, uint64_t tsc, uint32_t seq)
{
	st[c][cpu[c].nst++] = (struct irqlab_tl_stamp){ .tsc = tsc,
		.seq = seq, .kind = (uint8_t)kind, .vector = VEC };
}

/* one x2APIC IPI, CPU 0 to a CPU 1 asleep in HLT (user irqchip) */
static void one_wake(uint32_t id, uint32_t seq, uint64_t t)
{
	guest(0, IRQLAB_TL_SEND, t, seq);
	vmm(0, TL_EXIT, t + 10, 0, seq, 0);
	vmm(0, TL_POST, t + 20, id, seq, 1);
	vmm(0, TL_WAKE, t + 25, id, 0, 1);
	vmm(1, TL_WOKE, t + 40, id, 0, 0);
	vmm(1, TL_INJECT, t + 50, id, 0, 0);
	vmm(1, TL_ENTRY, t + 55, 0, 0, 0);
	guest(1, IRQLAB_TL_HANDLER, t + 100, 0);
	guest(1, IRQLAB_TL_EOI, t + 150, 0);
	vmm(1, TL_EOI, t + 200, id, 0, 0);
}

Test(timeline, a_wake_has_every_phase_in_order)
{
	struct tl_result r;
	const struct tl_ipi *p;

	one_wake(1, 1, 1000);
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.complete, 1);
	cr_assert_eq(r.backwards, 0);
	p = &r.ipi[0];
	cr_assert_eq(p->from, 0);
	cr_assert_eq(p->to, 1);
	cr_assert_eq(p->notify, TL_WAKE);
	cr_assert_eq(p->t[TP_SEND], 1000);
	cr_assert_eq(p->t[TP_ICR_HI], 0, "x2APIC: one ICR exit");
	cr_assert_eq(p->t[TP_EXIT], 1010);
	cr_assert_eq(p->t[TP_POST], 1020);
	cr_assert_eq(p->t[TP_NOTIFY], 1025);
	cr_assert_eq(p->t[TP_OUT], 1040);
	cr_assert_eq(p->t[TP_INJECT], 1050);
	cr_assert_eq(p->t[TP_ENTRY], 1055);
	cr_assert_eq(p->t[TP_HANDLER], 1100);
	cr_assert_eq(p->t[TP_EOI], 1150);
	cr_assert_eq(p->t[TP_EOI_EXIT], 1200);
	cr_assert_str_eq(tl_phase_name(TP_NOTIFY, p), "wake");
	cr_assert_str_eq(tl_phase_name(TP_OUT, p), "awake");
	cr_assert_str_eq(tl_phase_name(TP_EXIT, p), "ICR exit");
	tl_result_free(&r);
}

Test(timeline, the_vmm_stamps_move_to_the_guest_clock)
{
	struct tl_result r;

	/* the guest's TSC runs 5000 ahead of the host's */
	one_wake(1, 1, 1000);
	cpu[0].tsc_offset = cpu[1].tsc_offset = 5000;
	st[0][0].tsc += 5000;
	st[1][0].tsc += 5000;
	st[1][1].tsc += 5000;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.ipi[0].t[TP_EXIT], 6010);
	cr_assert_eq(r.ipi[0].t[TP_HANDLER], 6100);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

Test(timeline, xapic_has_two_icr_exits)
{
	struct tl_result r;

	guest(0, IRQLAB_TL_SEND, 1000, 1);
	vmm(0, TL_ICR_HI, 1005, 0, 1, 0);
	vmm(0, TL_ENTRY, 1006, 0, 0, 0);	/* back in, then ICR_LO */
	vmm(0, TL_EXIT, 1010, 0, 1, 0);
	vmm(0, TL_POST, 1020, 1, 1, 1);
	vmm(0, TL_KICK, 1025, 1, 0, 1);
	vmm(1, TL_KICKED, 1040, 1, 0, 0);
	vmm(1, TL_INJECT, 1050, 1, 0, 0);
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.ipi[0].t[TP_ICR_HI], 1005);
	cr_assert_eq(r.ipi[0].t[TP_EXIT], 1010);
	cr_assert_str_eq(tl_phase_name(TP_EXIT, &r.ipi[0]),
			 "ICR_HI to ICR_LO exit");
	cr_assert_str_eq(tl_phase_name(TP_OUT, &r.ipi[0]), "out of KVM_RUN");
	cr_assert_eq(r.ipi[0].t[TP_OUT], 1040);
	tl_result_free(&r);
}

Test(timeline, each_ipi_of_a_vector_keeps_its_own_points)
{
	struct tl_result r;

	one_wake(1, 1, 1000);
	one_wake(2, 2, 2000);
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.n, 2);
	cr_assert_eq(r.complete, 2);
	cr_assert_eq(r.ipi[1].id, 2);
	cr_assert_eq(r.ipi[1].t[TP_SEND], 2000);
	cr_assert_eq(r.ipi[1].t[TP_INJECT], 2050);
	cr_assert_eq(r.ipi[1].t[TP_HANDLER], 2100);
	cr_assert_eq(r.ipi[1].t[TP_EOI_EXIT], 2200);
	tl_result_free(&r);
}

Test(timeline, pv_eoi_leaves_no_eoi_exit)
{
	struct tl_result r;

	one_wake(1, 1, 1000);
	cpu[1].n--;		/* the flag took the EOI: no exit */
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.complete, 1);
	cr_assert_eq(r.ipi[0].t[TP_EOI], 1150);
	cr_assert_eq(r.ipi[0].t[TP_EOI_EXIT], 0);
	tl_result_free(&r);
}

Test(timeline, a_clock_the_order_contradicts_is_moved_the_least)
{
	struct tl_result r;

	one_wake(1, 1, 1000);
	st[0][0].tsc = 1015;	/* the guest's send after the VMM's exit */
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.fix[0][0], 5, "CPU 0's stamps 5 cycles later");
	cr_assert_eq(r.fix[0][1], 5);
	cr_assert_eq(r.fix[1][1], 0, "CPU 1's offset agrees: kept");
	cr_assert_eq(r.unsure[0], 0);
	cr_assert_eq(r.ipi[0].t[TP_EXIT], 1015);
	cr_assert_eq(r.ipi[0].t[TP_POST], 1025);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

Test(timeline, bounds_that_cross_are_unsure_and_each_event_held_in_its_window)
{
	struct tl_result r;

	one_wake(1, 1, 1000);
	/* CPU 1: its handler 45 after the entry, but its EOI stamp 100
	 * after the EOI's exit: no one offset satisfies both */
	st[1][1].tsc = 1300;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.unsure[1], 1);
	cr_assert_eq(r.fix[1][0], 72);
	/* the entry came before the guest's next stamp (the handler), the
	 * EOI's exit after its last (the EOI) */
	cr_assert_eq(r.ipi[0].t[TP_ENTRY], 1100);
	cr_assert_eq(r.ipi[0].t[TP_EOI], 1300);
	cr_assert_eq(r.ipi[0].t[TP_EOI_EXIT], 1300, "not before its stamp");
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

Test(timeline, a_hostile_ring_only_leaves_points_out)
{
	struct tl_result r;
	unsigned i;

	one_wake(1, 7, 1000);
	srand(1);
	for (i = cpu[0].nst; i < 32; i++)	/* garbage after the send */
		st[0][i] = (struct irqlab_tl_stamp){ .tsc = (uint64_t)rand(),
			.seq = (uint32_t)rand(), .kind = (uint8_t)rand(),
			.vector = (uint8_t)rand() };
	cpu[0].nst = 32;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.ipi[0].t[TP_INJECT], 1050);
	tl_result_free(&r);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

Test(timeline, the_json_has_slices_joined_by_flows)
{
	struct tl_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	one_wake(1, 1, 1000);
	one_wake(2, 2, 2000);
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	struct tl_event fires[3] = { { .tsc = 500, .kind = TL_TIMER },
				     { .tsc = 1500, .kind = TL_TIMER },
				     { .tsc = 2500, .kind = TL_TIMER } };
	struct tl_cpu pit = { .ev = fires, .n = 3 };

	tl_write_json(f, cpu, 2, &r, 1000, "\"irqchip\":\"user\"", &pit);
	fclose(f);
	cr_assert(strstr(buf, "\"traceEvents\":["));
	cr_assert(strstr(buf, "\"irqchip\":\"user\",\"tsc_khz\":1000"));
	cr_assert(strstr(buf, "\"clock_fix_cyc\":[[0,0],[0,0]],"
			      "\"clock_unsure\":[0,0]"), "%s", buf);
	/* 10 points, 9 phases, per IPI */
	cr_assert_eq(count(buf, "\"ph\":\"X\""), 18);
	cr_assert_eq(count(buf, "\"ph\":\"s\""), 2);
	cr_assert_eq(count(buf, "\"ph\":\"t\""), 14);
	cr_assert_eq(count(buf, "\"ph\":\"f\""), 2);
	cr_assert_eq(count(buf, "\"name\":\"thread_name\""), 3);
	/* the PIT timer thread's track: the fires from the first point on */
	cr_assert(strstr(buf, "\"tid\":2,\"ts\":0,\"name\":\"thread_name\","
			      "\"args\":{\"name\":\"pit-timer\"}"), "%s", buf);
	cr_assert_eq(count(buf, "\"ph\":\"i\""), 2);
	/* 1000 kHz: a tick is 1 us; the second IPI's send 1000 ticks on */
	cr_assert(strstr(buf, "\"ts\":1000.000,\"dur\":10.000"), "%s", buf);
	free(buf);
	tl_result_free(&r);
}

static struct irqlab_tl_ring *got;
static uint32_t got_size;
static int calls;

static void on_ring(void *ctx, int c, struct irqlab_tl_ring *ring,
		    uint32_t size)
{
	(void)ctx;
	(void)c;
	got = ring;
	got_size = size;
	calls++;
}

Test(timeline, the_port_takes_only_a_ring_in_ram)
{
	struct guest_mem mem;
	struct pvport pv = { .mem = &mem, .tl_ring = on_ring };
	struct irqlab_tl_ring *r;

	cr_assert_eq(mem_init(&mem, 1u << 20), 0);
	r = mem_ptr(&mem, 0x2000, sizeof(*r));
	r->size = 16;
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0x2000,
		     0);
	cr_assert_eq(got, r);
	cr_assert_eq(got_size, 16);
	cr_assert_eq(pv.bad_accesses, 0);
	r->size = 1u << 19;	/* 8 MiB of stamps: past the 1 MiB of RAM */
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0x2000,
		     0);
	cr_assert_null(got);
	cr_assert_eq(pv.bad_accesses, 1);
	r->size = IRQLAB_TL_MAX + 1;
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0x2000,
		     0);
	cr_assert_null(got);
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0x2004,
		     0);	/* not 8-byte aligned */
	cr_assert_null(got);
	cr_assert_eq(pv.bad_accesses, 3);
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0, 0);
	cr_assert_null(got);	/* off */
	cr_assert_eq(pv.bad_accesses, 3);
	pv.tl_ring = NULL;	/* no --timeline: a bad access */
	pvport_write(&pv, IRQLAB_PORT_TIMELINE - IRQLAB_PORT_BASE, 4, 0x2000,
		     0);
	cr_assert_eq(pv.bad_accesses, 4);
	cr_assert_eq(calls, 5);
	mem_free(&mem);
}

Test(timeline, recording_stops_at_the_ring_s_end)
{
	struct tl_vcpu t = { 0 };
	unsigned i;

	cr_assert(!tl_on(&t), "off until allocated");
	cr_assert(tl_alloc(&t));
	cr_assert(tl_on(&t));
	for (i = 0; i < TL_EVENTS + 5; i++)
		tl_add(&t, TL_EXIT, i, 0, 0, 0, 0);
	cr_assert_eq(t.n, TL_EVENTS);
	cr_assert_eq(t.dropped, 5);
	cr_assert_eq(t.ev[TL_EVENTS - 1].tsc, TL_EVENTS - 1);
	tl_free(&t);
	cr_assert(!tl_on(&t));
}

Test(timeline, with_kvm_s_lapic_the_guest_s_points_alone)
{
	struct tl_result r;

	/* no TL_POST: irqlab-vmm saw no IPI; the guest's send names CPU 1 */
	guest(0, IRQLAB_TL_SEND, 1000, 1);
	st[0][0].dest = 1;
	guest(1, IRQLAB_TL_HANDLER, 900, 0);	/* an earlier one's */
	guest(1, IRQLAB_TL_HANDLER, 1100, 0);
	guest(1, IRQLAB_TL_EOI, 1150, 0);
	guest(0, IRQLAB_TL_SEND, 2000, 2);
	st[0][1].dest = 7;			/* no such CPU: left out */
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.complete, 1);
	cr_assert_eq(r.ipi[0].to, 1);
	cr_assert_eq(r.ipi[0].t[TP_SEND], 1000);
	cr_assert_eq(r.ipi[0].t[TP_HANDLER], 1100);
	cr_assert_eq(r.ipi[0].t[TP_EOI], 1150);
	cr_assert_eq(r.ipi[0].t[TP_POST], 0);
	tl_result_free(&r);
}

Test(timeline, a_kick_is_taken_after_it_was_sent_whatever_the_clocks)
{
	struct tl_result r;
	unsigned i;

	/* PV EOI: no EOI exit, so CPU 1's own bounds are loose; its host
	 * stamps run 500 early, which its own order cannot show */
	one_wake(1, 1, 1000);
	cpu[1].n--;
	for (i = 0; i < cpu[1].n; i++)
		ev[1][i].tsc -= 500;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	/* woken no earlier than the wake was sent (1025) */
	cr_assert_eq(r.ipi[0].t[TP_OUT], 1025);
	cr_assert_eq(r.ipi[0].t[TP_INJECT], 1035);
	cr_assert_eq(r.ipi[0].t[TP_ENTRY], 1040);
	cr_assert_eq(r.fix[1][0], 485);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

Test(timeline, a_sender_is_held_by_where_its_target_stood)
{
	struct tl_result r;
	unsigned i;

	/* CPU 0's host stamps run 500 late, and it has no guest stamp after
	 * its send to bound them; CPU 1 took the IPI before its handler's
	 * stamp (1100), so the wake was sent before that too */
	one_wake(1, 1, 1000);
	for (i = 0; i < cpu[0].n; i++)
		ev[0][i].tsc += 500;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.unsure[0], 0);
	cr_assert_eq(r.unsure[1], 0);
	cr_assert_eq(r.fix[0][0], -440, "the least move back that fits");
	cr_assert_eq(r.ipi[0].t[TP_EXIT], 1070);
	cr_assert_eq(r.ipi[0].t[TP_NOTIFY], 1085);
	cr_assert_eq(r.ipi[0].t[TP_OUT], 1085, "woken once the wake was sent");
	cr_assert_eq(r.ipi[0].t[TP_HANDLER], 1100);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

Test(timeline, a_target_a_timer_woke_first_is_no_pair_for_the_wake)
{
	struct tl_result r;

	/* CPU 1's APIC timer woke it (no sender's id: 0) before the sender
	 * began its wake at 1025; it found the IPI posted and injected it.
	 * Its wake is not the sender's, so nothing moves CPU 1's clock. */
	one_wake(1, 1, 1000);
	ev[1][0].tsc = 1021;
	ev[1][0].id = 0;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.fix[1][0], 0);
	cr_assert_eq(r.ipi[0].t[TP_OUT], 0, "woken, but not by this IPI");
	cr_assert_eq(r.ipi[0].t[TP_INJECT], 1050);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}

/* ---- KVM's tracepoints (exit/tl_trace.c) ----------------------------- */

static const char *const wake_trace[] = {
	"# tracer: nop",
	/* as tracefs aligns them: spaces before the CPU and the TSC */
	"      irqlab-vmm-118     [001] d..1.   1000: kvm_entry: vcpu 0, "
	"rip 0x1",
	" irqlab-vmm-119 [000] d..1. 1001: kvm_entry: vcpu 1, rip 0x1",
	" irqlab-vmm-118 [001] ..... 2000: kvm_exit: vcpu 0 reason msr rip "
	"0x10 info1 0x1 info2 0x0 intr_info 0x00000000 error_code 0x00000000",
	" irqlab-vmm-118 [001] ..... 2010: kvm_apic_ipi: dst 1 vec 210 "
	"(Fixed|physical|assert|edge|dst)",
	" irqlab-vmm-118 [001] ..... 2020: kvm_apic_accept_irq: apicid 1 vec "
	"210 (Fixed|edge)",
	" irqlab-vmm-118 [001] d..1. 2030: kvm_entry: vcpu 0, rip 0x12",
	" irqlab-vmm-119 [000] ..... 2100: kvm_vcpu_wakeup: wait time 1000 ns, "
	"polling valid",
	" irqlab-vmm-119 [000] .N... 2110: kvm_inj_virq: IRQ 0xd2",
	" irqlab-vmm-119 [000] d..1. 2120: kvm_entry: vcpu 1, rip 0x3",
	" irqlab-vmm-119 [000] ..... 2300: kvm_exit: vcpu 1 reason msr rip "
	"0x20 info1 0x1 info2 0x0 intr_info 0x00000000 error_code 0x00000000",
	" irqlab-vmm-119 [000] ..... 2310: kvm_eoi: apicid 1 vector 210",
	/* another clock, a thread no vCPU ran on: skipped */
	" irqlab-vmm-119 [000] ..... 12.345678: kvm_inj_virq: IRQ 0xd2",
	" irqlab-vmm-115 [000] ...1. 2400: kvm_inj_virq: IRQ 0xd2",
};

Test(timeline, kvm_s_tracepoints_give_the_host_points)
{
	static struct tl_trace t = { .ncpu = 2 };
	struct tl_result r;
	const struct tl_ipi *p;
	unsigned i;

	for (i = 0; i < sizeof(wake_trace) / sizeof(*wake_trace); i++)
		cr_assert_eq(tl_trace_line(&t, wake_trace[i]), 0);
	tl_trace_finish(&t);
	cpu[0].ev = t.cpu[0].ev;
	cpu[0].n = t.cpu[0].n;
	cpu[1].ev = t.cpu[1].ev;
	cpu[1].n = t.cpu[1].n;
	guest(0, IRQLAB_TL_SEND, 1990, 1);
	guest(1, IRQLAB_TL_HANDLER, 2200, 0);
	guest(1, IRQLAB_TL_EOI, 2290, 0);
	for (i = 0; i < 2; i++)
		tl_trace_gcounts(t.cpu[i].ev, t.cpu[i].n, &cpu[i]);
	/* the ICR exit after the send (stamp 0), the entry back before the
	 * next; the injection and its entry before the handler (stamp 0) */
	cr_assert_eq(t.cpu[0].ev[0].kind, TL_EXIT);
	cr_assert_eq(t.cpu[0].ev[0].gcount, 1);
	cr_assert_eq(t.cpu[0].ev[3].kind, TL_ENTRY);
	cr_assert_eq(t.cpu[0].ev[3].gcount, 1);
	cr_assert_eq(t.cpu[1].ev[1].kind, TL_INJECT);
	cr_assert_eq(t.cpu[1].ev[1].gcount, 0);
	cr_assert_eq(t.cpu[1].ev[2].gcount, 0);
	cr_assert_eq(t.cpu[1].ev[3].kind, TL_EOI);
	cr_assert_eq(t.cpu[1].ev[3].gcount, 2, "after the EOI stamp (1)");
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.n, 1);
	p = &r.ipi[0];
	cr_assert_eq(p->notify, TL_WAKE);
	cr_assert_eq(p->t[TP_SEND], 1990);
	cr_assert_eq(p->t[TP_EXIT], 2000);
	cr_assert_eq(p->t[TP_POST], 2020);
	cr_assert_eq(p->t[TP_OUT], 2100);
	cr_assert_eq(p->t[TP_INJECT], 2110);
	cr_assert_eq(p->t[TP_ENTRY], 2120);
	cr_assert_eq(p->t[TP_HANDLER], 2200);
	cr_assert_eq(p->t[TP_EOI], 2290);
	cr_assert_eq(p->t[TP_EOI_EXIT], 2300);
	cr_assert_eq(r.complete, 1);
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
	tl_trace_free(&t);
}

Test(timeline, a_kick_in_the_trace_is_an_interrupt_exit)
{
	static struct tl_trace t = { .ncpu = 2 };
	static const char *const lines[] = {
		" a-1 [0] d..1. 10: kvm_entry: vcpu 0, rip 0x1",
		" b-2 [1] d..1. 11: kvm_entry: vcpu 1, rip 0x1",
		" a-1 [0] ..... 20: kvm_exit: vcpu 0 reason EXTERNAL_INTERRUPT "
		"rip 0x2",
		" a-1 [0] ..... 21: kvm_exit: vcpu 0 reason MSR_WRITE rip 0x2",
		" a-1 [0] ..... 22: kvm_apic_ipi: dst 1 vec 208 (Fixed|physical|"
		"assert|edge|dst)",
		" a-1 [0] ..... 23: kvm_apic_accept_irq: apicid 1 vec 208 "
		"(Fixed|edge)",
		" b-2 [1] ..... 30: kvm_exit: vcpu 1 reason interrupt rip 0x5",
		" b-2 [1] ..... 31: kvm_inj_virq: IRQ 0xd0",
		" b-2 [1] ..... 32: kvm_inj_virq: IRQ 0xd0 [reinjected]",
		/* a timer's accept on its own thread is no IPI */
		" b-2 [1] ..... 40: kvm_apic_accept_irq: apicid 1 vec 236 "
		"(Fixed|edge)",
		/* KVM's PV EOI: no EOI exit */
		" b-2 [1] ..... 50: kvm_exit: vcpu 1 reason hlt rip 0x6",
		" b-2 [1] ..... 51: kvm_eoi: apicid 1 vector 208",
		" b-2 [1] ..... 52: kvm_pv_eoi: apicid 1 vector 208",
	};
	unsigned i, posts = 0;

	for (i = 0; i < sizeof(lines) / sizeof(*lines); i++)
		cr_assert_eq(tl_trace_line(&t, lines[i]), 0);
	tl_trace_finish(&t);
	for (i = 0; i < t.cpu[0].n; i++)
		posts += t.cpu[0].ev[i].kind == TL_POST;
	cr_assert_eq(posts, 1);
	/* exit 21 (the ICR write's), post 23, then a kick */
	cr_assert_eq(t.cpu[0].ev[1].kind, TL_EXIT);
	cr_assert_eq(t.cpu[0].ev[1].tsc, 21);
	cr_assert_eq(t.cpu[0].ev[1].seq, 1);
	cr_assert_eq(t.cpu[0].ev[3].kind, TL_KICK);
	cr_assert_eq(t.cpu[1].n, 2, "the kick and one injection");
	cr_assert_eq(t.cpu[1].ev[1].id, t.cpu[0].ev[2].id);
	tl_trace_free(&t);
}

Test(timeline, a_guest_that_stamps_nothing_keeps_the_host_s_one_clock)
{
	struct tl_result r;

	/* Linux: no guest ring; KVM gave the vCPUs offsets 1000 apart */
	vmm(0, TL_EXIT, 1010, 0, 1, 0);
	vmm(0, TL_POST, 1020, 1, 1, 1);
	vmm(0, TL_WAKE, 1025, 1, 0, 1);
	vmm(1, TL_WOKE, 1040, 1, 0, 0);
	vmm(1, TL_INJECT, 1050, 1, 0, 0);
	vmm(1, TL_ENTRY, 1055, 0, 0, 0);
	cpu[0].tsc_offset = 5000;
	cpu[1].tsc_offset = 6000;
	cr_assert_eq(tl_join(cpu, 2, &r), 0);
	cr_assert_eq(r.ipi[0].t[TP_POST], 6020);
	cr_assert_eq(r.ipi[0].t[TP_OUT], 6040, "CPU 0's offset for all");
	cr_assert_eq(r.backwards, 0);
	tl_result_free(&r);
}
