/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The simulator's event queue: a FIFO per constant delay (events of one
 * delay are scheduled in time order) beside a binary heap for the rest.
 * Nearly every event of a packet hop is a FIFO event, so pushing and
 * popping cost O(1) and the heap holds only odd-sized packets and timed
 * starts.
 */
#include <stdlib.h>

#include "sim_internal.h"

int sim_evq_init(sim_evq_t *q)
{
	unsigned i;

	q->heap_cap = 1024;
	q->heap = malloc(q->heap_cap * sizeof(*q->heap));
	q->nheap = 0;
	q->nring = 0;
	q->seq = 0;
	for (i = 0; i < SIM_NFIFO; i++) {
		q->ring[i].delay = -1;
		q->ring[i].ev = NULL;
		q->ring[i].head = q->ring[i].count = q->ring[i].cap = 0;
	}
	return q->heap ? 0 : -1;
}

void sim_evq_free(sim_evq_t *q)
{
	unsigned i;

	free(q->heap);
	q->heap = NULL;
	for (i = 0; i < SIM_NFIFO; i++) {
		free(q->ring[i].ev);
		q->ring[i].ev = NULL;
	}
}

static int heap_push(sim_evq_t *q, const sim_ev_t *ev)
{
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
		if (!sim_ev_before(ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = *ev;
	return 0;
}

void sim_evq_heap_pop(sim_evq_t *q, sim_ev_t *out)
{
	sim_ev_t last;
	size_t i = 0, c;

	*out = q->heap[0];
	last = q->heap[--q->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= q->nheap)
			break;
		if (c + 1 < q->nheap && sim_ev_before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!sim_ev_before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nheap)
		q->heap[i] = last;
}

/* Double a ring, unwrapping it. */
static int ring_grow(sim_ring_t *r)
{
	size_t i, cap = r->cap ? 2 * r->cap : 4096;
	sim_ev_t *e = malloc(cap * sizeof(*e));

	if (!e)
		return -1;
	for (i = 0; i < r->count; i++)
		e[i] = r->ev[(r->head + i) & (r->cap - 1)];
	free(r->ev);
	r->ev = e;
	r->cap = cap;
	r->head = 0;
	return 0;
}

/* The ring of this delay, claiming a free one; NULL when all are taken. */
static sim_ring_t *ring_of(sim_evq_t *q, sim_ps_t delay)
{
	unsigned i;

	for (i = 0; i < q->nring; i++)
		if (q->ring[i].delay == delay)
			return &q->ring[i];
	if (q->nring == SIM_NFIFO)
		return NULL;
	q->ring[q->nring].delay = delay;
	return &q->ring[q->nring++];
}

int sim_evq_push_at(sim_evq_t *q, sim_ps_t t, uint32_t type, uint32_t a)
{
	sim_ev_t ev = { .t = t, .seq = q->seq++, .type = type, .a = a };

	return heap_push(q, &ev);
}

int sim_evq_push_slow(sim_evq_t *q, sim_ps_t now, sim_ps_t delay,
		      uint32_t type, uint32_t a, uint32_t b)
{
	sim_ring_t *r = ring_of(q, delay);

	if (!r) {
		sim_ev_t ev = { .t = now + delay, .seq = q->seq++,
				.type = type, .a = a, .b = b };

		return heap_push(q, &ev);
	}
	if (r->count == r->cap && ring_grow(r))
		return -1;
	/* the ring is there now, with room */
	return sim_evq_push(q, now, delay, type, a, b);
}
