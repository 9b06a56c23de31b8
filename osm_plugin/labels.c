/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The PGFT labels the plugin keeps (ibflow-dmodk, ibflow-uapr): every
 * node's label and every host port's place, by GUID and port, so that a
 * node, switch or link going down moves no other route whatever the
 * cabling.  Kept in memory across sweeps and in OpenSM's cache directory
 * (ibflow-labels.txt, the format of `ibflow route --labels-out`) across
 * restarts.  The file is written atomically (fsync, rename) when the
 * labels changed - a new node, not a node going down or coming back, whose
 * slot the labels keep - and only once the switches carry the new tables
 * (ROUTING_DONE), so the write never delays a routing.  A file that does
 * not parse, or no longer fits the fabric, is ignored with a warning and
 * replaced.  Only OpenSM's state manager thread comes here: it runs the
 * routing and reports ROUTING_DONE.
 */
#include "config.h"

#include <stdio.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_log.h>

#include <ibflow/labels_io.h>
#include <ibflow/pgft.h>

#include "ibflow_osm.h"

#define LABELS_FILE "ibflow-labels.txt"

static void labels_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", ibf_osm_cache_dir(), LABELS_FILE);
}

/* At the first routing: the labels an earlier OpenSM left. */
static void load_once(ibf_osm_t *p)
{
	char path[IBF_OSM_PATH_MAX];
	ibf_err_t err;

	if (p->labels_loaded)
		return;
	p->labels_loaded = true;
	labels_path(path, sizeof(path));
	ibf_err_clear(&err);
	if (ibf_labels_read(path, &p->labels, &err) == IBF_OK) {
		ibf_osm_logf(p, OSM_LOG_INFO, "labels of %u nodes read from %s",
			     p->labels->nnodes, path);
		return;
	}
	if (err.status != IBF_ERR_IO)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF20: %s ignored: %s",
			     path, err.msg);
}

const ibf_pgft_memory_t *ibf_osm_labels(ibf_osm_t *p)
{
	load_once(p);
	return p->labels;
}

void ibf_osm_labels_keep(ibf_osm_t *p, const ibf_osm_engine_t *e,
			 ibf_routing_t *r)
{
	const char *why = ibf_routing_report_str(r, "labels_ignored");
	char path[IBF_OSM_PATH_MAX];

	if (!r->pgft_memory)
		return;
	if (why) {
		labels_path(path, sizeof(path));
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF21: %s: the labels kept "
			     "in %s no longer fit the fabric (%s): labels found "
			     "afresh", e->osm_name, path, why);
	}
	p->labels_dirty |= !ibf_pgft_memory_equal(p->labels, r->pgft_memory);
	ibf_pgft_memory_destroy(p->labels);
	/* the routing is not published yet: taking its memory is safe */
	p->labels = r->pgft_memory;
	r->pgft_memory = NULL;
}

void ibf_osm_labels_flush(ibf_osm_t *p)
{
	char path[IBF_OSM_PATH_MAX];
	ibf_err_t err;

	if (!p->labels_dirty || !p->labels)
		return;
	p->labels_dirty = false;
	labels_path(path, sizeof(path));
	ibf_err_clear(&err);
	if (ibf_labels_write_file(path, p->labels, &err) != IBF_OK)
		ibf_osm_logf(p, OSM_LOG_ERROR, "ERR IBF22: labels not kept "
			     "across restarts: %s", err.msg);
}
