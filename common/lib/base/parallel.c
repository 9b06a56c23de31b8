/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Fork-join fan-out (see parallel.h).
 */
#include <pthread.h>
#include <stdlib.h>

#include "base/parallel.h"

struct fanout_slot {
	pthread_t tid;
	void (*task)(void *, unsigned);
	void *arg;
	unsigned index;
};

static void *slot_main(void *p)
{
	struct fanout_slot *s = p;

	s->task(s->arg, s->index);
	return NULL;
}

void ibf_parallel_run(unsigned n, void (*task)(void *arg, unsigned index),
		      void *arg)
{
	struct fanout_slot *slot = n > 1 ? calloc(n, sizeof(*slot)) : NULL;
	unsigned i, started = 1;

	if (slot) {
		for (; started < n; started++) {
			slot[started] = (struct fanout_slot){
				.task = task, .arg = arg, .index = started };
			if (pthread_create(&slot[started].tid, NULL,
					   slot_main, &slot[started]))
				break;
		}
	}
	for (i = started; i < n; i++)
		task(arg, i);
	if (n)
		task(arg, 0);
	for (i = 1; i < started; i++)
		pthread_join(slot[i].tid, NULL);
	free(slot);
}
