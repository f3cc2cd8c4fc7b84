// SPDX-License-Identifier: MIT
/*
 * The exit path without KVM: a struct kvm_run filled in by hand, the real
 * machine (bus map and devices) behind it, and the counters after.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "exit/exit.h"
#include "exit/machine.h"
#include "hw/apic.h"
#include "hw/irqlab.h"
#include "hw/ports.h"
#include "irqchip/user.h"
#include "vm.h"

#define RUN_SIZE	8192
#define DATA_OFF	4096	/* where KVM puts PIO data: the second page */

static struct vm vm;
static struct vcpu vcpus[2];
static struct vmm_config cfg = { .cpus = 2 };
static struct kvm_run *run;

static void setup(void)
{
	sigset_t set;

	/* vm_poweroff() signals the main thread with SIGUSR2: keep it pending */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	memset(&vm, 0, sizeof(vm));
	memset(vcpus, 0, sizeof(vcpus));
	vm.cfg = &cfg;
	vm.nr_vcpus = 2;
	vm.vcpus = vcpus;
	vm.run_size = RUN_SIZE;
	vm.main_thread = pthread_self();
	pthread_mutex_init(&vm.lock, NULL);
	pthread_cond_init(&vm.cond, NULL);
	cr_assert_eq(mem_init(&vm.mem, 2 << 20), 0);
	machine_init(&vm);
	run = calloc(1, RUN_SIZE);
	vcpus[0] = (struct vcpu){ .id = 0, .run = run, .vm = &vm };
	vcpus[1] = (struct vcpu){ .id = 1, .run = run, .vm = &vm };
}

static void teardown(void)
{
	mem_free(&vm.mem);
	free(run);
}

TestSuite(exit, .init = setup, .fini = teardown);

static enum exit_action pio(struct vcpu *v, int dir, uint16_t port,
			    unsigned size, unsigned count, uint64_t val)
{
	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = dir;
	run->io.port = port;
	run->io.size = size;
	run->io.count = count;
	run->io.data_offset = DATA_OFF;
	memcpy((char *)run + DATA_OFF, &val, size);
	return exit_dispatch(v);
}

static uint64_t pio_data(unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, (char *)run + DATA_OFF, size);
	return v;
}

static uint64_t cls(unsigned c)
{
	struct vcpu_stats *v[2] = { &vcpus[0].stats, &vcpus[1].stats };

	return stats_sum_class(v, 2, c);
}

Test(exit, unclaimed_port_reads_ones_and_is_counted)
{
	cr_assert_eq(pio(&vcpus[0], KVM_EXIT_IO_IN, 0x80, 4, 1, 0),
		     EXIT_CONTINUE);
	cr_assert_eq(pio_data(4), 0xffffffff);
	pio(&vcpus[1], KVM_EXIT_IO_OUT, 0x80, 1, 1, 0);
	cr_assert_eq(vm.pio.unclaimed_reads, 1);
	cr_assert_eq(vm.pio.unclaimed_writes, 1);
	cr_assert_eq(cls(IRQLAB_CNT_TOTAL), 2);
	cr_assert_eq(cls(IRQLAB_CNT_PIO), 2);
	cr_assert_eq(vcpus[0].stats.reason[IRQLAB_PHASE_EARLY][KVM_EXIT_IO], 1);
	cr_assert_eq(vcpus[1].stats.reason[IRQLAB_PHASE_EARLY][KVM_EXIT_IO], 1);
}

Test(exit, rep_ins_fills_every_element)
{
	memset((char *)run + DATA_OFF, 0, 16);
	pio(&vcpus[0], KVM_EXIT_IO_IN, 0x81, 2, 3, 0);
	cr_assert_eq(pio_data(6), 0xffffffffffff);
	cr_assert_eq(vm.pio.unclaimed_reads, 3, "one bus access per element");
	cr_assert_eq(cls(IRQLAB_CNT_PIO), 1, "but one exit");
}

Test(exit, fw_cfg_through_the_bus)
{
	pio(&vcpus[0], KVM_EXIT_IO_OUT, PORT_FW_CFG_SEL, 2, 1, FW_CFG_NB_CPUS);
	pio(&vcpus[0], KVM_EXIT_IO_IN, PORT_FW_CFG_DATA, 1, 1, 0);
	cr_assert_eq(pio_data(1), 2);
}

Test(exit, protocol_exits_are_kept_apart)
{
	struct irqlab_snapshot *s = (void *)(vm.mem.host + 0x1000);

	pio(&vcpus[0], KVM_EXIT_IO_IN, 0x80, 1, 1, 0);
	pio(&vcpus[0], KVM_EXIT_IO_IN, IRQLAB_PORT_SIG, 4, 1, 0);
	cr_assert_eq(pio_data(4), IRQLAB_SIGNATURE);
	s->size = sizeof(*s);
	pio(&vcpus[1], KVM_EXIT_IO_OUT, IRQLAB_PORT_SNAPSHOT, 4, 1, 0x1000);
	cr_assert_eq(s->ncpus, 2);
	cr_assert_eq(s->counter[IRQLAB_CNT_TOTAL], 1,
		     "the signature read and the snapshot are not counted");
	cr_assert_eq(s->counter[IRQLAB_CNT_PIO], 1);
	cr_assert_eq(s->counter[IRQLAB_CNT_PROTOCOL], 2,
		     "the snapshot counts itself in PROTOCOL");
	cr_assert_eq(s->count, IRQLAB_NR_COUNTERS);
	cr_assert_eq(s->counter[IRQLAB_CNT_RTE_WRITES], 0, "no IOAPIC here");
}

Test(exit, pv_doorbell_exits_are_work_not_protocol)
{
	/* --pv-ipi=off here: the doorbell is a bad access, but its exit is
	 * the guest's work all the same: total, pio and apic_send */
	pio(&vcpus[0], KVM_EXIT_IO_OUT, IRQLAB_PORT_PV_IPI, 4, 1, 0x1000);
	cr_assert_eq(cls(IRQLAB_CNT_TOTAL), 1);
	cr_assert_eq(cls(IRQLAB_CNT_PIO), 1);
	cr_assert_eq(cls(IRQLAB_CNT_APIC_SEND), 1);
	cr_assert_eq(cls(IRQLAB_CNT_PROTOCOL), 0);
	cr_assert_eq(vm.pv.bad_accesses, 1, "no doorbell without --pv-ipi");
	pio(&vcpus[0], KVM_EXIT_IO_IN, IRQLAB_PORT_PV_IPI, 4, 1, 0);
	cr_assert_eq(pio_data(4), 0xffffffff, "write-only");
	cr_assert_eq(cls(IRQLAB_CNT_APIC_SEND), 1, "a read sends nothing");
	cr_assert_eq(cls(IRQLAB_CNT_TOTAL), 2);
}

/* the IOAPIC's counters, VM-wide, appended after the exit classes */
static void no_tmr(void *ctx, unsigned cpu, const uint32_t *tmr)
{
	(void)ctx, (void)cpu, (void)tmr;
}

static uint64_t no_dest(void *ctx, uint32_t dest, bool logical)
{
	(void)ctx, (void)dest, (void)logical;
	return 0;
}

Test(exit, snapshot_has_the_ioapic_counters)
{
	static const struct ioapic_ops ops = { .tmr_update = no_tmr,
					       .dest_mask = no_dest };
	struct irqlab_snapshot *s = (void *)(vm.mem.host + 0x1000);

	pthread_mutex_init(&vm.isa_lock, NULL);
	cr_assert_eq(ioapic_init(&vm.ioapic, 2, 0, IOAPIC_OPTIMIZED, &ops,
				 NULL), 0);
	vm.ioapic.stats.rte_writes = 7;
	vm.ioapic.stats.tmr_updates = 3;
	vm.ioapic.stats.remote_tmr_updates = 2;
	s->size = sizeof(*s);
	pio(&vcpus[0], KVM_EXIT_IO_OUT, IRQLAB_PORT_SNAPSHOT, 4, 1, 0x1000);
	cr_assert_eq(s->counter[IRQLAB_CNT_RTE_WRITES], 7);
	cr_assert_eq(s->counter[IRQLAB_CNT_TMR_UPDATES], 3);
	cr_assert_eq(s->counter[IRQLAB_CNT_REMOTE_TMR_UPDATES], 2);
	cr_assert_eq(s->counter[IRQLAB_CNT_PROTOCOL], 1);
}

Test(exit, phase_marks_split_counts)
{
	pio(&vcpus[0], KVM_EXIT_IO_IN, 0x80, 1, 1, 0);
	pio(&vcpus[0], KVM_EXIT_IO_OUT, IRQLAB_PORT_PHASE, 4, 1,
	    IRQLAB_PHASE_CALIB);
	pio(&vcpus[0], KVM_EXIT_IO_IN, 0x80, 1, 1, 0);
	pio(&vcpus[1], KVM_EXIT_IO_IN, 0x80, 1, 1, 0);
	cr_assert_eq(vcpus[0].stats.cls[IRQLAB_PHASE_EARLY][IRQLAB_CNT_PIO], 1);
	cr_assert_eq(vcpus[0].stats.cls[IRQLAB_PHASE_CALIB][IRQLAB_CNT_PIO], 1);
	cr_assert_eq(vcpus[1].stats.cls[IRQLAB_PHASE_CALIB][IRQLAB_CNT_PIO], 1,
		     "the phase is machine-wide");
}

Test(exit, port_table_counts_by_direction)
{
	unsigned i;
	const struct stats_slot *hit = NULL;

	for (i = 0; i < 3; i++)
		pio(&vcpus[0], KVM_EXIT_IO_OUT, PORT_COM1, 1, 1, 'x');
	pio(&vcpus[0], KVM_EXIT_IO_IN, PORT_COM1 + 5, 1, 1, 0);
	cr_assert_eq(pio_data(1) & 0x60, 0x60, "LSR: THRE and TEMT");
	for (i = 0; i < STATS_TABLE_SIZE; i++)
		if (vcpus[0].stats.port.slot[i].key == PORT_COM1 + 1u)
			hit = &vcpus[0].stats.port.slot[i];
	cr_assert_not_null(hit);
	cr_assert_eq(hit->count[STATS_WR], 3);
	cr_assert_eq(hit->count[STATS_RD], 0);
}

Test(exit, mmio_unclaimed)
{
	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = 0xfed00000;
	run->mmio.len = 4;
	run->mmio.is_write = 0;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_CONTINUE);
	cr_assert_eq(*(uint32_t *)run->mmio.data, 0xffffffff);
	cr_assert_eq(vm.mmio.unclaimed_reads, 1);
	cr_assert_eq(cls(IRQLAB_CNT_MMIO), 1);
	run->mmio.len = 9;	/* nonsense from a test, not from KVM */
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_CONTINUE);
}

Test(exit, debug_exit_and_poweroff_port)
{
	pio(&vcpus[0], KVM_EXIT_IO_OUT, PORT_DEBUG_EXIT, 1, 1, 2);
	cr_assert(vm_stopping(&vm));
	cr_assert_eq(vm.exit_status, 5, "(2 << 1) | 1");
	pio(&vcpus[0], KVM_EXIT_IO_OUT, IRQLAB_PORT_POWEROFF, 4, 1, 0);
	cr_assert_eq(vm.exit_status, 5, "the first status wins");
}

Test(exit, failures_and_halt)
{
	run->exit_reason = KVM_EXIT_HLT;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_HALT);
	run->exit_reason = KVM_EXIT_SHUTDOWN;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_FAIL_SHUTDOWN);
	run->exit_reason = KVM_EXIT_INTERNAL_ERROR;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_FAIL_INTERNAL);
	run->exit_reason = KVM_EXIT_FAIL_ENTRY;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_FAIL_ENTRY);
	run->exit_reason = KVM_EXIT_DEBUG;
	cr_assert_eq(exit_dispatch(&vcpus[0]), EXIT_FAIL_UNHANDLED);
	cr_assert_eq(cls(IRQLAB_CNT_HLT), 1);
	cr_assert_eq(cls(IRQLAB_CNT_OTHER), 4);
}

Test(exit, json_report_shape)
{
	struct vcpu_stats *v[2] = { &vcpus[0].stats, &vcpus[1].stats };
	struct stats_report r = {
		.vcpu = v, .nr_vcpus = 2, .name_ctx = &vm,
		.port_name = machine_port_name, .mmio_name = machine_mmio_name,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pio(&vcpus[0], KVM_EXIT_IO_OUT, PORT_COM1, 1, 1, 'x');
	pio(&vcpus[1], KVM_EXIT_IO_IN, 0x80, 1, 1, 0);
	r.unclaimed_pio_rd = vm.pio.unclaimed_reads;
	stats_print_json(f, &r);
	fclose(f);
	cr_assert(strstr(buf, "\"exits\":{\"total\":2,\"by_reason\":{\"IO\":2}"),
		  "%s", buf);
	cr_assert(strstr(buf, "\"0x3f8\":1"), "%s", buf);
	cr_assert(strstr(buf, "\"by_mmio\":{}"), "%s", buf);
	cr_assert(strstr(buf, "\"early\":{\"total\":2"), "%s", buf);
	cr_assert(strstr(buf, "\"pio_in\":1"), "%s", buf);
	free(buf);
}

/*
 * --irqchip=user and CR8 (SDM 11.8.6.1; api.rst: kvm_run->cr8 is "in
 * (pre_kvm_run), out (post_kvm_run)"), driven as vcpu.c drives it:
 * irq_before_run() before KVM_RUN, irq_leave_guest() and exit_dispatch()
 * after it.  KVM_EXIT_SET_TPR (VMX and SVM: the guest lowered CR8) must go
 * round, not stop the VM as an unhandled exit.
 */
static void mmio_write32(struct vcpu *v, uint64_t gpa, uint32_t val)
{
	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = gpa;
	run->mmio.len = 4;
	run->mmio.is_write = 1;
	memcpy(run->mmio.data, &val, 4);
	cr_assert_eq(exit_dispatch(v), EXIT_CONTINUE);
}

Test(exit, cr8_follows_the_tpr_both_ways)
{
	struct vcpu *v = &vcpus[0];
	struct lapic *l = &v->irq.lapic;

	irq_init(&vm);
	mmio_write32(v, APIC_DEFAULT_BASE + APIC_SVR, 0x1ff);
	lapic_accept(l, 0x45, false);
	mmio_write32(v, APIC_DEFAULT_BASE + APIC_TPR, 0x5a);
	run->ready_for_interrupt_injection = 1;
	cr_assert_eq(irq_before_run(v), -1, "class 4 is held by TPR 0x5a");
	cr_assert_eq(run->cr8, 5, "a TPR write shows in CR8 at the entry");

	/* the guest lowers CR8 to 3: KVM_EXIT_SET_TPR on VMX and SVM */
	run->cr8 = 3;
	run->exit_reason = KVM_EXIT_SET_TPR;
	irq_leave_guest(v);
	cr_assert_eq(exit_dispatch(v), EXIT_CONTINUE, "SET_TPR goes round");
	cr_assert_eq(l->tpr, 0x30, "MOV to CR8 writes TPR[7:4], clears [3:0]");
	cr_assert_eq(v->stats.reason[IRQLAB_PHASE_EARLY][KVM_EXIT_SET_TPR], 1);
	cr_assert_eq(irq_before_run(v), 0x45, "what the lower TPR lets in");
	cr_assert_eq(run->cr8, 3);

	/* a raise exits to nobody: it comes back with the next KVM_RUN's
	 * return, an EINTR say, and holds the next vector back */
	lapic_accept(l, 0x81, false);
	run->cr8 = 0xf;
	irq_leave_guest(v);
	cr_assert_eq(l->tpr, 0xf0);
	cr_assert_eq(lapic_ppr(l), 0xf0);
	cr_assert_eq(irq_before_run(v), -1, "nothing above CR8 0xf");
	cr_assert_eq(run->cr8, 0xf);

	/* an unchanged CR8 leaves TPR[3:0] as the guest wrote it */
	mmio_write32(v, APIC_DEFAULT_BASE + APIC_TPR, 0x27);
	irq_before_run(v);
	cr_assert_eq(run->cr8, 2);
	irq_leave_guest(v);
	cr_assert_eq(l->tpr, 0x27);
}

/*
 * The exit times as a distribution: log2 buckets (as bpftrace's hist()),
 * per vCPU and per phase, and the percentiles read from them.
 */
Test(exit, handling_times_are_log2_histograms)
{
	struct vcpu_stats *v[2] = { &vcpus[0].stats, &vcpus[1].stats };
	struct stats_report r = { .vcpu = v, .nr_vcpus = 2 };
	uint64_t h[STATS_HIST_BUCKETS] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	unsigned i;

	cr_assert_eq(stats_bucket(0), 0);
	cr_assert_eq(stats_bucket(1), 0);
	cr_assert_eq(stats_bucket(2), 1);
	cr_assert_eq(stats_bucket(1023), 9);
	cr_assert_eq(stats_bucket(1024), 10);
	cr_assert_eq(stats_bucket(UINT64_MAX), STATS_HIST_BUCKETS - 1);
	/* 98 exits near 1 us, 2 near 1 ms: p50 in [1024, 2048), p99 not */
	h[10] = 98;
	h[20] = 2;
	cr_assert_eq(stats_hist_pct(h, 50), 2048);
	cr_assert_eq(stats_hist_pct(h, 98), 2048);
	cr_assert_eq(stats_hist_pct(h, 99), 2ull << 20);
	memset(h, 0, sizeof(h));
	cr_assert_eq(stats_hist_pct(h, 50), 0, "no exit: no percentile");

	for (i = 0; i < 3; i++)
		stats_time(&vcpus[0].stats, IRQLAB_PHASE_BENCH, KVM_EXIT_HLT,
			   1500);
	stats_time(&vcpus[1].stats, IRQLAB_PHASE_EARLY, KVM_EXIT_HLT, 5);
	cr_assert_eq(vcpus[0].stats.reason_ns[KVM_EXIT_HLT], 4500);
	cr_assert_eq(vcpus[0].stats.hist[IRQLAB_PHASE_BENCH][KVM_EXIT_HLT][10],
		     3);
	f = open_memstream(&buf, &len);
	stats_print_json(f, &r);
	fclose(f);
	cr_assert(strstr(buf, "\"exit_times\":{\"unit\":\"ns\""), "%s", buf);
	cr_assert(strstr(buf, "\"HLT\":{\"count\":4,\"sum_ns\":4505,"
			 "\"p50_ns_le\":2048,\"p99_ns_le\":2048"), "%s", buf);
	/* vCPU 1's one exit in bucket 2, the BSP's three in bucket 10 */
	cr_assert(strstr(buf, "\"by_vcpu\":[[0,0,0,0,0,0,0,0,0,0,3,"), "%s", buf);
	cr_assert(strstr(buf, "[0,0,1,0,"), "%s", buf);
	cr_assert(strstr(buf, "\"bench\":[0,0,0,0,0,0,0,0,0,0,3,"), "%s", buf);
	free(buf);
}
