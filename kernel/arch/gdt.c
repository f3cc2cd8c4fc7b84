// SPDX-License-Identifier: MIT
/*
 * The kernel GDT and the 64-bit TSS.  The TSS holds no task state in 64-bit
 * mode, only stack pointers: RSP0-2 for privilege changes and the seven IST
 * stacks (SDM vol. 3 sec. 7.7).
 *
 * Every CPU has its own TSS, IST stacks and GDT.  The TSS must be its
 * own: LTR marks its descriptor busy, and LTR of a busy descriptor raises
 * #GP (sec. 7.2.4), so two CPUs cannot load one.  A GDT per CPU keeps
 * the selectors the same on all of them (TSS_SEL).
 */
#include <stdint.h>

#include "gdt.h"
#include "percpu.h"

/* SDM vol. 3 sec. 7.7, figure 7-11: the 64-bit TSS, 104 bytes. */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];	/* ist[0] is IST1 */
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;	/* offset of the I/O permission bitmap */
} __attribute__((packed));

struct gdtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define IST_STACK_SIZE	4096

struct cpu_tables {
	uint8_t ist_stack[NR_IST][IST_STACK_SIZE];
	struct tss tss __attribute__((aligned(16)));
	uint64_t gdt[5];
};

static struct cpu_tables tables[NR_CPUS] __attribute__((aligned(16)));

/*
 * SDM vol. 3 sec. 7.2.3, figure 7-4: in 64-bit mode a TSS descriptor is 16
 * bytes; the second 8 hold base bits 63:32.  Type 9 = available 64-bit TSS,
 * S = 0 (system), P = 1, G = 0 (limit in bytes).
 */
static void set_tss_desc(uint64_t *d, uint64_t base, uint32_t limit)
{
	d[0] = (limit & 0xffff) |
	       ((base & 0xffffff) << 16) |
	       (0x89ull << 40) |		/* P=1, DPL=0, type=9 */
	       ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       (((base >> 24) & 0xff) << 56);
	d[1] = base >> 32;
}

void gdt_init(void)
{
	gdt_init_cpu(0);
}

void gdt_init_cpu(unsigned cpu)
{
	struct cpu_tables *t = &tables[cpu];
	struct tss *tss = &t->tss;
	uint64_t *gdt = t->gdt;
	struct gdtr gdtr = {
		.limit = sizeof(t->gdt) - 1,
		.base = (uint64_t)gdt,
	};
	unsigned i;

	/* stacks grow down: IST n points at the top of its array */
	for (i = 0; i < NR_IST; i++)
		tss->ist[i] = (uint64_t)t->ist_stack[i] + IST_STACK_SIZE;
	/* an I/O bitmap offset past the limit means "no bitmap"; the CPU
	 * consults it only when CPL > IOPL, never in ring 0 (SDM vol. 1,
	 * "I/O Permission Bit Map") */
	tss->iomap_base = sizeof(*tss);

	gdt[0] = 0;
	gdt[KERNEL_CS >> 3] = GDT_CODE64;
	gdt[KERNEL_DS >> 3] = GDT_DATA;
	set_tss_desc(&gdt[TSS_SEL >> 3], (uint64_t)tss, sizeof(*tss) - 1);

	asm volatile("lgdt %0" : : "m"(gdtr) : "memory");
	/* reload CS with a far return: push CS, push RIP, LRETQ */
	asm volatile("pushq %[cs]\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movw %w[ds], %%ds\n\t"
		     "movw %w[ds], %%es\n\t"
		     "movw %w[ds], %%ss"
		     : : [cs] "i"(KERNEL_CS), [ds] "r"(KERNEL_DS)
		     : "rax", "memory");
	/* LTR marks the descriptor busy (sec. 7.2.4) */
	asm volatile("ltr %w0" : : "r"(TSS_SEL) : "memory");
}
