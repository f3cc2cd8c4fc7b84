// SPDX-License-Identifier: MIT
/* The interrupt descriptor table (SDM vol. 3 sec. 6.10 and 6.14.1). */
#include <stdint.h>

#include "extable.h"
#include "gdt.h"
#include "halt.h"
#include "idt.h"
#include "percpu.h"
#include "tl.h"

/* SDM vol. 3 sec. 6.14.1, figure 6-8: a 16-byte 64-bit IDT gate. */
struct idt_gate {
	uint16_t offset_lo;	/* handler address bits 15:0 */
	uint16_t selector;	/* code segment of the handler */
	uint8_t ist;		/* bits 2:0: IST slot, 0 = no stack switch */
	uint8_t type_attr;	/* P (7), DPL (6:5), 0 (4), type (3:0) */
	uint16_t offset_mid;	/* bits 31:16 */
	uint32_t offset_hi;	/* bits 63:32 */
	uint32_t reserved;
};

#define GATE_P		0x80
#define GATE_INTR	0x0e	/* 64-bit interrupt gate: clears RFLAGS.IF */

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

extern const char trap_stubs[];		/* vectors.S */

static struct idt_gate idt[NR_VECTORS] __attribute__((aligned(16)));
static void (*handlers[NR_VECTORS])(struct trap_frame *tf);

static void set_gate(unsigned vec, uint64_t addr, unsigned ist)
{
	struct idt_gate *g = &idt[vec];

	g->offset_lo = addr & 0xffff;
	g->selector = KERNEL_CS;
	g->ist = ist & 7;
	g->type_attr = GATE_P | GATE_INTR;	/* DPL 0: no INT n from ring 3 */
	g->offset_mid = (addr >> 16) & 0xffff;
	g->offset_hi = addr >> 32;
	g->reserved = 0;
}

void idt_init(void)
{
	unsigned v;

	for (v = 0; v < NR_VECTORS; v++)
		set_gate(v, (uint64_t)(trap_stubs + v * TRAP_STUB_SIZE), 0);
	idt_set_ist(2, IST_NMI);
	idt_set_ist(8, IST_DF);
	idt_set_ist(18, IST_MC);
	idt_load();
}

/* All CPUs share the one IDT; each loads IDTR (SDM vol. 3 sec. 6.10). */
void idt_load(void)
{
	struct idtr idtr = {
		.limit = sizeof(idt) - 1,
		.base = (uint64_t)idt,
	};

	asm volatile("lidt %0" : : "m"(idtr));
}

void idt_set_ist(unsigned vec, unsigned ist)
{
	if (vec < NR_VECTORS)
		idt[vec].ist = ist & 7;
}

void idt_set_handler(unsigned vec, void (*fn)(struct trap_frame *tf))
{
	if (vec < NR_VECTORS)
		handlers[vec] = fn;
}

/* Called by trap_common (vectors.S) with interrupts off. */
void trap_dispatch(struct trap_frame *tf);

extern const struct extable_entry __ex_table_start[], __ex_table_end[];

/*
 * The exceptions an instruction raises as a fault, with RIP still at it
 * (SDM vol. 3 sec. 6.5, table 6-1): #DE #BR #UD #NM #TS #NP #SS #GP #PF
 * #MF #AC #XM.  Not an NMI (2), whose saved RIP is merely the next
 * instruction to run and may be a table entry's while it ran nothing
 * wrong, nor the traps and aborts (#DB 1, #BP 3, #OF 4, #DF 8, #MC 18).
 */
#define EXTABLE_VECTORS	(1u << 0 | 1u << 5 | 1u << 6 | 1u << 7 | \
			 1u << 10 | 1u << 11 | 1u << 12 | 1u << 13 | \
			 1u << 14 | 1u << 16 | 1u << 17 | 1u << 19)

int extable_fixup(struct trap_frame *tf)
{
	const struct extable_entry *e;

	if (tf->vector >= NR_EXCEPTIONS ||
	    !(EXTABLE_VECTORS & (1u << tf->vector)))
		return 0;
	for (e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == tf->rip) {
			tf->rip = e->resume;
			this_cpu()->fault_vector = (int)tf->vector;
			return 1;
		}
	return 0;
}

void trap_dispatch(struct trap_frame *tf)
{
	void (*fn)(struct trap_frame *tf) = handlers[tf->vector & 0xff];

	/* a fault an extable.h access expects: resume after it */
	if (extable_fixup(tf))
		return;
	/* an interrupt, not an exception: it ends idle.c's poll */
	if (tf->vector >= NR_EXCEPTIONS) {
		struct cpu *c = this_cpu();
		uint8_t outer = c->tl_vector;

		tl_stamp(IRQLAB_TL_HANDLER, tf->vector & 0xff, 0);
		c->tl_vector = tf->vector & 0xff;	/* lapic_eoi()'s */
		__atomic_store_n(&c->irqs, c->irqs + 1, __ATOMIC_RELAXED);
		halt_shadow_broken(tf);
		if (fn)
			fn(tf);
		else
			trap_panic(tf);
		c->tl_vector = outer;
		return;
	}
	if (fn)
		fn(tf);
	else
		trap_panic(tf);
}
