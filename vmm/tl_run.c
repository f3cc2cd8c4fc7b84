// SPDX-License-Identifier: MIT
/*
 * --timeline FILE, around the run (docs/ANATOMY.md): the vCPU threads'
 * rings before the VM starts, KVM's tracepoints with KVM's LAPIC
 * (kvm/tracefs.c), and at the end the join of every ring into IPIs
 * (exit/timeline.c), written as Chrome Trace Event JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exit/tl_trace.h"
#include "irqchip/isa.h"
#include "kvm/kvm.h"
#include "kvm/tracefs.h"
#include "tl_run.h"
#include "util.h"
#include "vm.h"

void tl_run_alloc(struct vm *vm)
{
	unsigned i;

	for (i = 0; i < vm->nr_vcpus; i++)
		if (!tl_alloc(&vm->vcpus[i].tl))
			die(EXIT_HOST, "--timeline: out of memory");
	if (irqchip_isa_in_vmm(vm->cfg) && !tl_alloc(&vm->tl_pit))
		die(EXIT_HOST, "--timeline: out of memory");
}

static const char *const irqchip_names[] = {
	[IRQCHIP_USER] = "user", [IRQCHIP_KERNEL] = "kernel",
	[IRQCHIP_SPLIT] = "split",
};

/* the run's configuration, as "otherData" members */
static char *timeline_meta(const struct vm *vm, bool traced)
{
	const struct vmm_config *c = vm->cfg;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "\"vmm\":\"irqlab-vmm %s\",\"irqchip\":\"%s\","
		"\"cpus\":%u,\"pv_eoi\":%s,\"pv_ipi\":%s,\"hlt\":\"%s\","
		"\"halt_poll_us\":%u,\"kernel\":", cli_version,
		irqchip_names[c->irqchip], vm->nr_vcpus,
		c->pv_eoi ? "true" : "false", c->pv_ipi ? "true" : "false",
		c->hlt_in_guest ? "guest" : "exit", c->halt_poll_us);
	tl_json_string(f, c->kernel);
	fputs(",\"append\":", f);
	tl_json_string(f, c->append ? c->append : "");
	fprintf(f, ",\"host_points\":\"%s\"",
		c->irqchip == IRQCHIP_USER ? "irqlab-vmm" :
		traced ? "tracefs" : "none");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --timeline with KVM's LAPIC: its tracepoints (kvm/tracefs.c) */
static struct tracefs tfs;

static void timeline_tracefs_restore(void)
{
	tracefs_restore(&tfs);	/* also on die(): the settings are shared */
}

void tl_run_trace_start(struct vm *vm)
{
	if (!vm->cfg->timeline || vm->cfg->irqchip == IRQCHIP_USER)
		return;
	atexit(timeline_tracefs_restore);
	if (tracefs_start(&tfs))
		warn("--timeline: %s: with KVM's LAPIC the timeline has the "
		     "guest's points only", tfs.why);
}

static int timeline_trace_line(void *ctx, const char *line)
{
	return tl_trace_line(ctx, line);
}

/* KVM's events into @tr's streams; false if there are none */
static bool timeline_tracefs_read(struct vm *vm, struct tl_trace *tr)
{
	if (!tfs.on)
		return false;
	tr->ncpu = vm->nr_vcpus;
	if (tracefs_stop(&tfs, timeline_trace_line, tr)) {
		warn("--timeline: %s", tfs.why[0] ? tfs.why :
		     "out of memory reading the trace");
		return false;
	}
	if (tfs.lost)
		warn("--timeline: tracefs's ring lost %lu of KVM's events "
		     "(buffer_size_kb %s): the first IPIs lack host points",
		     tfs.lost, TRACEFS_BUFFER_KB);
	tl_trace_finish(tr);
	return true;
}

/*
 * --timeline FILE: the guest's rings (copied out of guest RAM, each no
 * longer than the size it registered) and the vCPU threads' own, joined
 * into IPIs (exit/timeline.c), written as Chrome Trace Event JSON.
 */
void tl_run_report(struct vm *vm)
{
	struct tl_cpu c[VMM_MAX_CPUS];
	struct tl_trace *tr = calloc(1, sizeof(*tr));
	bool traced = tr && timeline_tracefs_read(vm, tr);
	struct tl_result r;
	char *meta;
	FILE *f;
	unsigned i;

	memset(c, 0, sizeof(c));
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct tl_vcpu *t = &vm->vcpus[i].tl;
		struct irqlab_tl_stamp *st = NULL;
		uint32_t n = 0, count = 0;

		if (t->guest) {
			count = __atomic_load_n(&t->guest->count,
						__ATOMIC_RELAXED);
			n = count < t->guest_size ? count : t->guest_size;
			st = n ? malloc(n * sizeof(*st)) : NULL;
			if (st)
				memcpy(st, t->guest->stamp, n * sizeof(*st));
			else
				n = 0;
		}
		if (t->n || traced)
			kvm_tsc_offset_now(&vm->vcpus[i]);
		c[i] = (struct tl_cpu){
			.ev = traced ? tr->cpu[i].ev : t->ev,
			.n = traced ? tr->cpu[i].n : t->n,
			.dropped = t->dropped,
			.st = st, .nst = n,
			.st_dropped = count > n ? count - n : 0,
			.tsc_offset = vm->vcpus[i].irq.tsc_offset,
		};
		if (traced)	/* KVM's events: where they fall among these */
			tl_trace_gcounts(tr->cpu[i].ev, tr->cpu[i].n, &c[i]);
	}
	f = out_open("--timeline", vm->cfg->timeline);
	if (tl_join(c, vm->nr_vcpus, &r)) {
		warn("--timeline: out of memory");
	} else if (f) {
		meta = timeline_meta(vm, traced);
		struct tl_cpu pit = { .ev = vm->tl_pit.ev, .n = vm->tl_pit.n,
				      .tsc_offset = c[0].tsc_offset };

		tl_write_json(f, c, vm->nr_vcpus, &r, vm->tsc_khz, meta,
			      tl_on(&vm->tl_pit) ? &pit : NULL);
		free(meta);
		fprintf(stderr, "timeline: %u IPIs, %u complete, %u out of "
			"order: %s\n", r.n, r.complete, r.backwards,
			vm->cfg->timeline);
	}
	if (f && fclose(f))
		warn("--timeline %s: %s", vm->cfg->timeline, strerror(errno));
	tl_result_free(&r);
	for (i = 0; i < vm->nr_vcpus; i++) {
		free((void *)c[i].st);
		tl_free(&vm->vcpus[i].tl);
	}
	tl_free(&vm->tl_pit);
	if (tr)
		tl_trace_free(tr);
	free(tr);
}
