// SPDX-License-Identifier: MIT
/*
 * One VM exit: classify it for the counters, then hand it to the bus.
 * Everything here reads and writes struct kvm_run only, so the unit tests
 * drive it with a kvm_run they fill in themselves.
 */
#include <string.h>

#include "hw/irqlab.h"
#include "util.h"
#include "vm.h"

bool exit_is_protocol_port(uint16_t port)
{
	return port >= IRQLAB_PORT_BASE &&
	       port < IRQLAB_PORT_BASE + IRQLAB_PORT_LEN;
}

static unsigned current_phase(struct vcpu *v)
{
	return __atomic_load_n(&v->vm->phase, __ATOMIC_RELAXED);
}

static void count(struct vcpu *v, unsigned reason, const int *cls)
{
	stats_exit(&v->stats, current_phase(v), reason, cls);
}

/*
 * KVM_EXIT_IO: @count elements of @size bytes at run + data_offset
 * (Documentation/virt/kvm/api.rst, "KVM_EXIT_IO").
 */
static void exit_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	unsigned size = run->io.size, i;
	bool out = run->io.direction == KVM_EXIT_IO_OUT;
	static const int cls_pio[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_PIO, -1 };
	static const int cls_proto[] = { IRQLAB_CNT_PROTOCOL, -1 };
	uint64_t val;

	/* the protocol's own exits are kept out of every other class */
	count(v, KVM_EXIT_IO, exit_is_protocol_port(run->io.port) ?
	      cls_proto : cls_pio);
	stats_table_inc(&v->stats.port, run->io.port, out ? STATS_WR : STATS_RD);

	if (size != 1 && size != 2 && size != 4)
		return;
	if (run->io.data_offset + (uint64_t)run->io.count * size >
	    v->vm->run_size)
		return;		/* KVM never does this; a test might */
	for (i = 0; i < run->io.count; i++, data += size) {
		if (out) {
			val = 0;
			memcpy(&val, data, size);
			bus_write(&v->vm->pio, run->io.port, size, val, v->id);
		} else {
			bus_read(&v->vm->pio, run->io.port, size, &val, v->id);
			memcpy(data, &val, size);
		}
	}
}

static void exit_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	unsigned len = run->mmio.len;
	static const int cls[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_MMIO, -1 };
	uint64_t val = 0;

	count(v, KVM_EXIT_MMIO, cls);
	stats_table_inc(&v->stats.mmio, run->mmio.phys_addr,
			run->mmio.is_write ? STATS_WR : STATS_RD);
	if (len == 0 || len > 8)
		return;
	if (run->mmio.is_write) {
		memcpy(&val, run->mmio.data, len);
		bus_write(&v->vm->mmio, run->mmio.phys_addr, len, val, v->id);
	} else {
		bus_read(&v->vm->mmio, run->mmio.phys_addr, len, &val, v->id);
		memcpy(run->mmio.data, &val, len);
	}
}

enum exit_action exit_dispatch(struct vcpu *v)
{
	static const int cls_hlt[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_HLT, -1 };
	static const int cls_win[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_IRQ_WINDOW, -1 };
	static const int cls_other[] = { IRQLAB_CNT_TOTAL, IRQLAB_CNT_OTHER, -1 };
	unsigned reason = v->run->exit_reason;

	switch (reason) {
	case KVM_EXIT_IO:
		exit_io(v);
		return EXIT_CONTINUE;
	case KVM_EXIT_MMIO:
		exit_mmio(v);
		return EXIT_CONTINUE;
	case KVM_EXIT_HLT:
		count(v, reason, cls_hlt);
		return EXIT_HALT;
	case KVM_EXIT_IRQ_WINDOW_OPEN:
		count(v, reason, cls_win);
		return EXIT_CONTINUE;
	case KVM_EXIT_SHUTDOWN:
	case KVM_EXIT_SYSTEM_EVENT:
		count(v, reason, cls_other);
		return EXIT_FAIL_SHUTDOWN;
	case KVM_EXIT_INTERNAL_ERROR:
		count(v, reason, cls_other);
		return EXIT_FAIL_INTERNAL;
	case KVM_EXIT_FAIL_ENTRY:
		count(v, reason, cls_other);
		return EXIT_FAIL_ENTRY;
	default:
		count(v, reason, cls_other);
		return EXIT_FAIL_UNHANDLED;
	}
}
