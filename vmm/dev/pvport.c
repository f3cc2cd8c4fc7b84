// SPDX-License-Identifier: MIT
/*
 * The irqlab protocol ports.  Every guest-supplied address and length is
 * checked against guest RAM; a bad one is counted and ignored, never fatal.
 */
#include <stdbool.h>
#include <string.h>

#include "pvport.h"

#define REG(port)	((port) - IRQLAB_PORT_BASE)

uint64_t pvport_read(void *opaque, uint64_t off, unsigned size, int cpu)
{
	struct pvport *pv = opaque;

	(void)cpu;
	if (size != 4) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return ~0ull;
	}
	switch (off) {
	case REG(IRQLAB_PORT_SIG):
		return IRQLAB_SIGNATURE;
	case REG(IRQLAB_PORT_VERSION):
		return IRQLAB_VERSION;
	default:
		return ~0ull;	/* the command ports are write-only */
	}
}

/* One exit prints a whole NUL-terminated string (at most CONSOLE_MAX). */
static void pvport_console(struct pvport *pv, uint64_t gpa)
{
	uint64_t n = mem_avail(pv->mem, gpa);
	const char *s, *nul;

	if (n > IRQLAB_CONSOLE_MAX)
		n = IRQLAB_CONSOLE_MAX;
	s = n ? mem_ptr(pv->mem, gpa, n) : NULL;
	if (!s) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	nul = memchr(s, 0, n);
	pv->out(pv->ctx, s, nul ? (size_t)(nul - s) : n);
}

static void pvport_snapshot(struct pvport *pv, uint64_t gpa)
{
	struct irqlab_snapshot snap;
	const void *size = mem_ptr(pv->mem, gpa, sizeof(uint32_t));
	uint32_t n;
	void *dst;

	if (!size) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(&n, size, sizeof(n));
	if (n > sizeof(snap))
		n = sizeof(snap);
	dst = mem_ptr(pv->mem, gpa, n);
	if (!dst || n < offsetof(struct irqlab_snapshot, counter)) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	memset(&snap, 0, sizeof(snap));
	pv->snapshot(pv->ctx, &snap);
	snap.size = n;
	/* tell the guest how many whole counters it got */
	if (snap.count > (n - offsetof(struct irqlab_snapshot, counter)) / 8)
		snap.count = (n - offsetof(struct irqlab_snapshot, counter)) / 8;
	memcpy(dst, &snap, n);
}

/*
 * A vCPU's PV EOI word: 4-byte aligned guest RAM, or 0 to turn it off.  A
 * bad address turns it off too, and is counted: the model never gets a
 * pointer outside guest RAM.
 */
static void pvport_pv_eoi(struct pvport *pv, uint64_t gpa, int cpu)
{
	uint32_t *word = NULL;
	bool bad = false;

	if (gpa) {
		word = (gpa & 3) ? NULL : mem_ptr(pv->mem, gpa, sizeof(*word));
		bad = !word;
	}
	if (!pv->pv_eoi || pv->pv_eoi(pv->ctx, cpu, word) || bad)
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
}

/*
 * A vCPU's timeline ring: 8-byte aligned, its header and @size stamps in
 * RAM in one piece, @size at most IRQLAB_TL_MAX; 0 turns it off.  @size is
 * read once, here: the guest cannot grow the ring afterwards.
 */
static void pvport_timeline(struct pvport *pv, uint64_t gpa, int cpu)
{
	struct irqlab_tl_ring *r = NULL;
	uint32_t size = 0;

	if (!pv->tl_ring) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	if (gpa) {
		r = (gpa & 7) ? NULL : mem_ptr(pv->mem, gpa, sizeof(*r));
		if (r)
			size = __atomic_load_n(&r->size, __ATOMIC_RELAXED);
		if (r && (size > IRQLAB_TL_MAX ||
			  !mem_ptr(pv->mem, gpa, sizeof(*r) + (uint64_t)size *
				   sizeof(struct irqlab_tl_stamp))))
			r = NULL;
		if (!r)
			__atomic_add_fetch(&pv->bad_accesses, 1,
					   __ATOMIC_RELAXED);
	}
	pv->tl_ring(pv->ctx, cpu, r, r ? size : 0);
}

void pvport_write(void *opaque, uint64_t off, unsigned size, uint64_t val,
		  int cpu)
{
	struct pvport *pv = opaque;

	/*
	 * PHASE also takes one byte: a Linux guest's userspace can reach a
	 * port only through /dev/port, whose write_port() does one outb
	 * per byte (drivers/char/mem.c).
	 */
	if (size == 1 && off == REG(IRQLAB_PORT_PHASE) &&
	    val < IRQLAB_NR_PHASES) {
		pv->set_phase(pv->ctx, (unsigned)val);
		return;
	}
	if (size != 4) {
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		return;
	}
	switch (off) {
	case REG(IRQLAB_PORT_PV_EOI):
		pvport_pv_eoi(pv, val, cpu);
		break;
	case REG(IRQLAB_PORT_PHASE):
		if (val < IRQLAB_NR_PHASES)
			pv->set_phase(pv->ctx, (unsigned)val);
		else
			__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		break;
	case REG(IRQLAB_PORT_CONSOLE):
		pvport_console(pv, val);
		break;
	case REG(IRQLAB_PORT_SNAPSHOT):
		pvport_snapshot(pv, val);
		break;
	case REG(IRQLAB_PORT_POWEROFF):
		pv->poweroff(pv->ctx, (int)(val & 0xff));
		break;
	case REG(IRQLAB_PORT_TIMELINE):
		pvport_timeline(pv, val, cpu);
		break;
	case REG(IRQLAB_PORT_PV_IPI):
		if (pv->pv_ipi)
			pv->pv_ipi(pv->ctx, cpu, val);
		else
			__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
		break;
	default:
		__atomic_add_fetch(&pv->bad_accesses, 1, __ATOMIC_RELAXED);
	}
}
