/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Routing results shared by OpenSM's threads (routing, SA) and the plugin's
 * worker: reference counted under the plugin's lock, freed by the last
 * holder.  Below both plugin.c and worker.c, so neither calls back into the
 * other.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibflow_osm.h"

void ibf_osm_result_put(ibf_osm_t *p, ibf_osm_result_t *res)
{
	bool last;

	if (!res)
		return;
	pthread_mutex_lock(&p->lock);
	last = --res->refs == 0;
	pthread_mutex_unlock(&p->lock);
	if (!last)
		return;
	ibf_routing_destroy(res->routing);
	ibf_lfts_destroy(res->lfts);
	ibf_fabric_destroy(res->fabric);
	free(res);
}

void ibf_osm_result_set_current(ibf_osm_t *p, ibf_osm_result_t *res)
{
	ibf_osm_result_t *old;

	pthread_mutex_lock(&p->lock);
	old = p->cur;
	p->cur = res;
	pthread_mutex_unlock(&p->lock);
	ibf_osm_result_put(p, old);
}

ibf_osm_result_t *ibf_osm_result_current(ibf_osm_t *p)
{
	ibf_osm_result_t *res;

	pthread_mutex_lock(&p->lock);
	res = p->cur;
	if (res)
		res->refs++;
	pthread_mutex_unlock(&p->lock);
	return res;
}

ibf_osm_result_t *ibf_osm_result_new(ibf_osm_t *p, const char *engine,
				     ibf_fabric_t *f)
{
	ibf_osm_result_t *res = calloc(1, sizeof(*res));

	if (!res)
		return NULL;
	res->refs = 1;
	res->fabric = f;
	snprintf(res->engine, sizeof(res->engine), "%s", engine);
	pthread_mutex_lock(&p->lock);
	res->seq = ++p->seq;
	pthread_mutex_unlock(&p->lock);
	return res;
}
