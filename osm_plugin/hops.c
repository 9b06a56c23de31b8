/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * OpenSM's min-hop matrices, filled by the plugin: prepared in
 * build_lid_matrices, filled by a thread beside the engine (plugin.c).
 *
 * Who reads them once an ibflow engine has routed: the multicast manager
 * (spanning-tree root by average/maximum least hops, then each switch's
 * port towards a member: the first port with the least hop count, or a
 * port already in the group with any path), OpenSM's dumps
 * (opensm-lid-matrix.dump, the hop columns of opensm-lfts.dump) and the
 * unicast cache.  SA PathRecords walk the LFTs, not the matrices; every
 * fallback engine builds its own before routing.
 *
 * The matrices cover switch LIDs only: hops[t][p] = 1 + least(n, t) for
 * each port p linked to another switch n, hops[t][0] = least(s, t) (0 for
 * the switch's own LID); a CA's distance is its leaf's plus one.  OpenSM
 * relaxes them over all LIDs once per iteration, up to the diameter; here
 * one BFS per switch gives the same numbers at a fraction of the cost.
 * The multicast trees then come out exactly as after OpenSM's own build.
 *
 * Where the BFS would not give OpenSM's numbers - hop weights from a
 * hop_weights_file, an unhealthy link (OpenSM does not relax through it) -
 * or anything unexpected, the plugin leaves the job to OpenSM.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <complib/cl_types.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>

#include "ibflow_osm.h"

#define NO_HOPS OSM_NO_PATH

/* The switch graph: switches in sw_guid_tbl order, each with its links to
 * other switches (port number, neighbour index). */
typedef struct hop_graph {
	unsigned n;
	osm_switch_t **sw;
	uint16_t *lid;
	uint32_t *off;            /* links of switch i: off[i] .. off[i+1] */
	uint32_t *nb;
	uint8_t *port;
	uint32_t *lid_idx;        /* base LID -> switch index */
	unsigned max_lid;
} hop_graph_t;

static void graph_free(hop_graph_t *g)
{
	free(g->sw);
	free(g->lid);
	free(g->off);
	free(g->nb);
	free(g->port);
	free(g->lid_idx);
}

static const char *collect_switches(osm_subn_t *subn, hop_graph_t *g)
{
	cl_map_item_t *it;
	unsigned i = 0, l;

	g->n = cl_qmap_count(&subn->sw_guid_tbl);
	g->max_lid = subn->max_ucast_lid_ho;
	g->sw = calloc(g->n ? g->n : 1, sizeof(*g->sw));
	g->lid = calloc(g->n ? g->n : 1, sizeof(*g->lid));
	g->off = calloc(g->n + 1, sizeof(*g->off));
	g->lid_idx = malloc((g->max_lid + 1) * sizeof(*g->lid_idx));
	if (!g->sw || !g->lid || !g->off || !g->lid_idx)
		return "out of memory";
	memset(g->lid_idx, 0xff, (g->max_lid + 1) * sizeof(*g->lid_idx));
	for (it = cl_qmap_head(&subn->sw_guid_tbl);
	     it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		l = cl_ntoh16(osm_node_get_base_lid(sw->p_node, 0));
		if (!l || l > g->max_lid || l >= sw->num_hops || !sw->hops ||
		    g->lid_idx[l] != UINT32_MAX)
			return "a switch LID outside OpenSM's tables";
		g->sw[i] = sw;
		g->lid[i] = (uint16_t)l;
		g->lid_idx[l] = i++;
	}
	return NULL;
}

/* The remote switch of port p of switch i, or NULL (a CA, nothing, the
 * switch itself: OpenSM's build skips those too). */
static osm_node_t *remote_switch(const hop_graph_t *g, unsigned i,
				 unsigned p)
{
	osm_node_t *node = g->sw[i]->p_node, *r;
	uint8_t rport;

	r = osm_node_get_remote_node(node, (uint8_t)p, &rport);
	return r && r->sw && r != node ? r : NULL;
}

static const char *collect_links(hop_graph_t *g)
{
	unsigned i, p, k = 0, cap = 0;

	for (i = 0; i < g->n; i++)
		cap += osm_node_get_num_physp(g->sw[i]->p_node);
	g->nb = malloc((cap ? cap : 1) * sizeof(*g->nb));
	g->port = malloc(cap ? cap : 1);
	if (!g->nb || !g->port)
		return "out of memory";
	for (i = 0; i < g->n; i++) {
		unsigned np = osm_node_get_num_physp(g->sw[i]->p_node);

		g->off[i] = k;
		for (p = 1; p < np && p < g->sw[i]->num_ports; p++) {
			osm_node_t *r = remote_switch(g, i, p);
			osm_physp_t *ph;
			unsigned l;

			if (!r)
				continue;
			ph = osm_node_get_physp_ptr(g->sw[i]->p_node, p);
			if (!ph || !osm_link_is_healthy(ph))
				return "an unhealthy switch link";
			l = cl_ntoh16(osm_node_get_base_lid(r, 0));
			if (l > g->max_lid || g->lid_idx[l] == UINT32_MAX)
				return "a neighbour switch outside OpenSM's table";
			g->nb[k] = g->lid_idx[l];
			g->port[k++] = (uint8_t)p;
		}
	}
	g->off[g->n] = k;
	return NULL;
}

/* Hop counts from every switch to switch t (links are symmetric). */
static void bfs(const hop_graph_t *g, unsigned t, uint8_t *dist,
		uint32_t *queue)
{
	unsigned head = 0, tail = 0, i, k;

	memset(dist, NO_HOPS, g->n);
	dist[t] = 0;
	queue[tail++] = t;
	while (head < tail) {
		i = queue[head++];
		if (dist[i] >= NO_HOPS - 1)
			continue;          /* deeper than a hop count can say */
		for (k = g->off[i]; k < g->off[i + 1]; k++)
			if (dist[g->nb[k]] == NO_HOPS) {
				dist[g->nb[k]] = dist[i] + 1;
				queue[tail++] = g->nb[k];
			}
	}
}

/* The rows of switch s (dist[t * n + s]: hops from s to switch t): port
 * 0 the least hops, each switch port the hops through it, every other
 * port no path.  One switch at a time: its rows are allocated together. */
static bool fill_switch(const hop_graph_t *g, unsigned s, const uint8_t *dist)
{
	osm_switch_t *sw = g->sw[s];
	unsigned t, k;

	for (t = 0; t < g->n; t++) {
		const uint8_t *d = dist + (size_t)t * g->n;
		uint8_t *row;

		if (d[s] == NO_HOPS)
			continue;
		if (sw->hops[g->lid[t]])
			memset(sw->hops[g->lid[t]], NO_HOPS, sw->num_ports);
		/* allocates the row as OpenSM does, sets port 0 */
		if (osm_switch_set_hops(sw, g->lid[t], 0, d[s]) != CL_SUCCESS)
			return false;
		row = sw->hops[g->lid[t]];
		for (k = g->off[s]; k < g->off[s + 1]; k++)
			if (d[g->nb[k]] < NO_HOPS - 1)
				row[g->port[k]] = d[g->nb[k]] + 1;
	}
	return true;
}

struct ibf_osm_hops {
	hop_graph_t g;
};

const char *ibf_osm_hops_prepare(struct osm_subn *subn,
				 struct ibf_osm_hops **out)
{
	struct ibf_osm_hops *h;
	const char *why;

	*out = NULL;
	if (subn->opt.hop_weights_file)
		return "hop_weights_file is set";
	h = calloc(1, sizeof(*h));
	if (!h)
		return "out of memory";
	why = collect_switches(subn, &h->g);
	if (!why)
		why = collect_links(&h->g);
	if (why) {
		ibf_osm_hops_free(h);
		return why;
	}
	*out = h;
	return NULL;
}

bool ibf_osm_hops_fill(struct ibf_osm_hops *h)
{
	const hop_graph_t *g = &h->g;
	/* hops between every two switches: n^2 bytes (2.6 MB for the 1,620
	 * switches of 11,664 hosts) */
	uint8_t *dist = malloc(g->n ? (size_t)g->n * g->n : 1);
	uint32_t *queue = malloc((g->n ? g->n : 1) * sizeof(*queue));
	bool ok = dist && queue;
	unsigned t;

	for (t = 0; ok && t < g->n; t++)
		bfs(g, t, dist + (size_t)t * g->n, queue);
	for (t = 0; ok && t < g->n; t++)
		ok = fill_switch(g, t, dist);
	free(dist);
	free(queue);
	return ok;
}

void ibf_osm_hops_free(struct ibf_osm_hops *h)
{
	if (!h)
		return;
	graph_free(&h->g);
	free(h);
}
