// SPDX-License-Identifier: MIT
/* The halt-poll window (haltpoll.h): pure, time passed in. */
#include <stdint.h>

#include "haltpoll.h"
#include "lib/kstring.h"

int haltpoll_parse(const char *s, struct haltpoll_params *p)
{
	uint64_t v = 0;

	*p = (struct haltpoll_params){ 0 };
	if (!s)
		return 0;
	if (!strcmp(s, "adaptive")) {
		p->cap_ns = HALTPOLL_CAP_NS;
		p->adaptive = 1;
		p->grow_start_ns = HALTPOLL_GROW_START_NS;
		p->grow = HALTPOLL_GROW;
		p->shrink = HALTPOLL_SHRINK;
		p->allow_shrink = 1;
		return 0;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > HALTPOLL_MAX_NS)
			return -1;
	}
	p->cap_ns = v;
	return 0;
}

void haltpoll_init(struct haltpoll *h, const struct haltpoll_params *p)
{
	*h = (struct haltpoll){ .p = *p };
	/* Linux's haltpoll_enable_device(): poll_limit_ns = 0 */
	h->window_ns = p->adaptive ? 0 : p->cap_ns;
}

void haltpoll_enter(struct haltpoll *h, uint64_t now_ns)
{
	h->start_ns = now_ns;
}

int haltpoll_keep_polling(const struct haltpoll *h, uint64_t now_ns)
{
	return now_ns - h->start_ns < h->window_ns;
}

/* adjust_poll_limit() of Linux's haltpoll governor */
static void adjust(struct haltpoll *h, uint64_t block_ns)
{
	const struct haltpoll_params *p = &h->p;
	uint64_t v;

	if (block_ns > h->window_ns && block_ns <= p->cap_ns) {
		v = h->window_ns * p->grow;
		if (v < p->grow_start_ns)
			v = p->grow_start_ns;
		if (v > p->cap_ns)
			v = p->cap_ns;
		if (v != h->window_ns)
			h->grows++;
		h->window_ns = v;
	} else if (block_ns > p->cap_ns && p->allow_shrink) {
		v = p->shrink ? h->window_ns / p->shrink : 0;
		if (v < p->grow_start_ns)
			v = 0;
		if (v != h->window_ns)
			h->shrinks++;
		h->window_ns = v;
	}
}

void haltpoll_exit(struct haltpoll *h, uint64_t now_ns, int in_poll)
{
	/* the governor reflects on a HLT only (haltpoll_reflect()) */
	if (h->p.adaptive && !in_poll)
		adjust(h, now_ns - h->start_ns);
}
