/* SPDX-License-Identifier: MIT */
/*
 * x86-64 registers, bits and instructions the kernel uses.
 *
 * Section numbers are those of the current Intel SDM (docs/ARCHITECTURE.md;
 * vol. 3A: ch. 4 paging, ch. 6 interrupts, ch. 7 tasks, ch. 9 MP,
 * ch. 10 initialization, ch. 11 APIC).
 * The constants are usable from assembly too (entry.S).
 */
#ifndef KERNEL_X86_H
#define KERNEL_X86_H

/* CR0 and CR4 bits (SDM vol. 3 sec. 2.5) */
#define CR0_PE		(1 << 0)	/* protection enable */
#define CR0_WP		(1 << 16)	/* write protect in ring 0 */
#define CR0_PG		0x80000000	/* paging */
#define CR0_NW		(1 << 29)	/* not write-through (set after INIT) */
#define CR0_CD		(1 << 30)	/* cache disable (set after INIT) */
#define CR4_PAE		(1 << 5)	/* physical address extension */

/* IA32_EFER (SDM vol. 3 sec. 2.2.1, vol. 4 table 2-2) */
#define MSR_EFER	0xc0000080
#define EFER_LME	(1 << 8)	/* IA-32e mode enable */
#define EFER_LMA	(1 << 10)	/* IA-32e mode active (read only) */

/* IA32_GS_BASE: the GS segment base in 64-bit mode (SDM vol. 3 sec. 3.4.4) */
#define MSR_GS_BASE	0xc0000101

/* RFLAGS.IF (SDM vol. 1 sec. 3.4.3) */
#define RFLAGS_IF	(1 << 9)

/* Paging-structure entry bits (SDM vol. 3 sec. 4.5, the "Format of a ..." tables) */
#define PTE_P		(1 << 0)	/* present */
#define PTE_W		(1 << 1)	/* writable */
#define PTE_PWT		(1 << 3)	/* page-level write-through */
#define PTE_PCD		(1 << 4)	/* page-level cache disable */
#define PTE_PS		(1 << 7)	/* in a PDE: maps a 2 MiB page */

/* CPUID bits checked before entering long mode (SDM vol. 2A, CPUID) */
#define CPUID_80000001_EDX_LM	(1 << 29)	/* Intel 64 architecture */
#define CPUID_1_ECX_HYPERVISOR	0x80000000	/* reserved by Intel for VMMs */
#define CPUID_1_ECX_X2APIC	(1 << 21)	/* x2APIC mode available */
#define CPUID_1_EDX_APIC	(1 << 9)	/* an on-chip local APIC */

#ifndef __ASSEMBLY__

#include <stdint.h>

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	asm volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* "memory": the VMM may read guest memory named by the value (irqlab ports). */
static inline void outb(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outw(uint16_t port, uint16_t v)
{
	asm volatile("outw %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
		     "d"((uint32_t)(v >> 32)) : "memory");
}

/* regs[0..3] = EAX, EBX, ECX, EDX of CPUID(@leaf, @subleaf) */
static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	asm volatile("cpuid"
		     : "=a"(regs[0]), "=b"(regs[1]), "=c"(regs[2]), "=d"(regs[3])
		     : "a"(leaf), "c"(subleaf));
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void cli(void)
{
	asm volatile("cli" : : : "memory");
}

static inline void sti(void)
{
	asm volatile("sti" : : : "memory");
}

/* RFLAGS, then IF = 0: pair with irq_restore() */
static inline uint64_t irq_save(void)
{
	uint64_t flags;

	asm volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		sti();
}

static inline void hlt(void)
{
	asm volatile("hlt" : : : "memory");
}

static inline void cpu_relax(void)
{
	asm volatile("pause" : : : "memory");
}

#endif /* __ASSEMBLY__ */
#endif
