// SPDX-License-Identifier: MIT
/* The posted-interrupt bitmap: posting, notification, folding, racing. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "irqchip/pir.h"

static bool irr_has(const uint32_t irr[8], unsigned v)
{
	return irr[v / 32] & (1u << (v % 32));
}

Test(pir, first_post_notifies_later_ones_ride_along)
{
	struct pir p;
	uint32_t irr[8] = { 0 };

	memset(&p, 0, sizeof(p));
	cr_assert(pir_post(&p, 0x30), "ON 0 -> 1: kick the target");
	cr_assert_not(pir_post(&p, 0xfb), "ON already set: no second kick");
	cr_assert_not(pir_post(&p, 0x30), "same vector again");
	cr_assert_eq(pir_fold(&p, irr), 2, "two words had bits");
	cr_assert(irr_has(irr, 0x30));
	cr_assert(irr_has(irr, 0xfb));
	cr_assert_not(irr_has(irr, 0x31));
	cr_assert_not(pir_pending(&p));
	cr_assert(pir_post(&p, 0x40), "after a fold the next post notifies");
}

Test(pir, empty_fold_changes_nothing)
{
	struct pir p;
	uint32_t irr[8] = { 0 }, zero[8] = { 0 };

	memset(&p, 0, sizeof(p));
	cr_assert_eq(pir_fold(&p, irr), 0);
	cr_assert_eq(memcmp(irr, zero, sizeof(irr)), 0);
	cr_assert_eq(pir_fold_always_xchg(&p, irr), 0);
}

Test(pir, both_folds_agree)
{
	struct pir a, b;
	uint32_t ia[8] = { 0 }, ib[8] = { 0 };
	unsigned v;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (v = 16; v < 256; v += 37) {
		pir_post(&a, v);
		pir_post(&b, v);
	}
	cr_assert_eq(pir_fold(&a, ia), pir_fold_always_xchg(&b, ib));
	cr_assert_eq(memcmp(ia, ib, sizeof(ia)), 0);
}

/* Two senders race a folding target: every vector lands, none is lost
 * without a pending notification. */
static struct pir race;
static volatile int go;

static void *sender(void *arg)
{
	unsigned base = (uintptr_t)arg, i;

	while (!go)
		;
	for (i = 0; i < 200000; i++)
		pir_post(&race, base + (i % 64));
	return NULL;
}

Test(pir, concurrent_posts_are_never_lost)
{
	pthread_t t[2];
	uint32_t irr[8] = { 0 };
	unsigned v;

	memset(&race, 0, sizeof(race));
	pthread_create(&t[0], NULL, sender, (void *)(uintptr_t)64);
	pthread_create(&t[1], NULL, sender, (void *)(uintptr_t)128);
	go = 1;
	for (v = 0; v < 100000; v++)
		pir_fold(&race, irr);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pir_fold(&race, irr);
	for (v = 64; v < 192; v++)
		cr_assert(irr_has(irr, v), "vector %u lost", v);
	cr_assert_not(pir_pending(&race));
	for (v = 0; v < 4; v++)
		cr_assert_eq(race.word[v], 0);
}

/*
 * KVM's APICv fix: a word with no bit set costs no atomic read-modify-
 * write.  The words go at the end of a read-only page and ON at the start
 * of the next, writable one: a fold with ON set and nothing posted may
 * load the words, but an exchange on one faults (a crash, here).  The
 * struct then sits 32 bytes off its 64-byte alignment; pir_fold() touches
 * only its 8- and 4-byte fields, each still naturally aligned.
 */
Test(pir, empty_words_get_no_atomic_rmw)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t irr[8] = { 0 };
	struct pir *p;

	cr_assert(m != MAP_FAILED);
	p = (struct pir *)(m + pg - offsetof(struct pir, on));
	p->on = 1;
	cr_assert_eq(mprotect(m, pg, PROT_READ), 0);
	cr_assert_eq(pir_fold(p, irr), 0, "no word had bits");
	cr_assert_not(pir_pending(p), "the fold cleared ON");
	munmap(m, 2 * pg);
}
