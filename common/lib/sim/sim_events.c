/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The simulator's event queue: a FIFO for events a constant latency ahead
 * (they are scheduled in time order) beside a binary heap for the rest.
 * Most events of a packet hop are FIFO events, so the heap stays as small
 * as the number of links transmitting at once.
 */
#include <stdlib.h>

#include "sim_internal.h"

int sim_evq_init(sim_evq_t *q)
{
	q->heap_cap = 1024;
	q->heap = malloc(q->heap_cap * sizeof(*q->heap));
	q->ring_cap = 4096;
	q->ring = malloc(q->ring_cap * sizeof(*q->ring));
	q->nheap = q->head = q->count = 0;
	q->seq = 0;
	return q->heap && q->ring ? 0 : -1;
}

void sim_evq_free(sim_evq_t *q)
{
	free(q->heap);
	free(q->ring);
	q->heap = q->ring = NULL;
}

static inline bool ev_before(const sim_ev_t *a, const sim_ev_t *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_evq_push_heap(sim_evq_t *q, sim_ps_t t, uint32_t type, uint32_t a)
{
	sim_ev_t ev = { .t = t, .seq = q->seq++, .type = type, .a = a };
	size_t i, parent;

	if (q->nheap == q->heap_cap) {
		sim_ev_t *h = realloc(q->heap, 2 * q->heap_cap * sizeof(*h));

		if (!h)
			return -1;
		q->heap = h;
		q->heap_cap *= 2;
	}
	i = q->nheap++;
	while (i > 0) {
		parent = (i - 1) / 2;
		if (!ev_before(&ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = ev;
	return 0;
}

static void heap_pop(sim_evq_t *q, sim_ev_t *out)
{
	sim_ev_t last;
	size_t i = 0, c;

	*out = q->heap[0];
	last = q->heap[--q->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= q->nheap)
			break;
		if (c + 1 < q->nheap && ev_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!ev_before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nheap)
		q->heap[i] = last;
}

/* Double the ring, unwrapping it. */
static int ring_grow(sim_evq_t *q)
{
	size_t i, cap = 2 * q->ring_cap;
	sim_ev_t *r = malloc(cap * sizeof(*r));

	if (!r)
		return -1;
	for (i = 0; i < q->count; i++)
		r[i] = q->ring[(q->head + i) & (q->ring_cap - 1)];
	free(q->ring);
	q->ring = r;
	q->ring_cap = cap;
	q->head = 0;
	return 0;
}

int sim_evq_push_fifo(sim_evq_t *q, sim_ps_t t, uint32_t type, uint32_t a,
		      uint32_t b)
{
	sim_ev_t *e;

	if (q->count == q->ring_cap && ring_grow(q))
		return -1;
	e = &q->ring[(q->head + q->count) & (q->ring_cap - 1)];
	e->t = t;
	e->seq = q->seq++;
	e->type = type;
	e->a = a;
	e->b = b;
	q->count++;
	return 0;
}

bool sim_evq_pop(sim_evq_t *q, sim_ev_t *ev)
{
	const sim_ev_t *f = q->count ? &q->ring[q->head] : NULL;

	if (!f && !q->nheap)
		return false;
	if (f && (!q->nheap || ev_before(f, &q->heap[0]))) {
		*ev = *f;
		q->head = (q->head + 1) & (q->ring_cap - 1);
		q->count--;
		return true;
	}
	heap_pop(q, ev);
	return true;
}
