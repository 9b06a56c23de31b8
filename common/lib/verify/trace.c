/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Route tracing through LFTs: one pair at a time (ibf_trace) and one DLID
 * from every switch at once (ibf_trace_tree).  See trace.h.
 *
 * Both are on the hot path of `ibflow check` (10^8 pairs and more), so they
 * touch only the flat fabric arrays and never allocate or look at strings.
 */
#include <ibflow/trace.h>

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

const char *ibf_trace_result_str(ibf_trace_result_t r)
{
	switch (r) {
	case IBF_TRACE_OK:              return "ok";
	case IBF_TRACE_NO_ROUTE:        return "no route";
	case IBF_TRACE_DEAD_END:        return "dead end";
	case IBF_TRACE_LOOP:            return "loop";
	case IBF_TRACE_MISDELIVERED:    return "misdelivered";
	case IBF_TRACE_NO_SWITCH_TABLE: return "no switch table";
	}
	return "?";
}

static inline bool owns(const ibf_fabric_t *f, unsigned dlid, ibf_port_id_t p)
{
	return ibf_fabric_lid_owner(f, dlid) == p;
}

static inline ibf_trace_result_t set_info(ibf_trace_info_t *info,
					  ibf_trace_result_t r, unsigned nhops,
					  ibf_node_id_t node, unsigned port)
{
	if (info) {
		info->result = r;
		info->nhops = nhops;
		info->node = node;
		info->port = port;
	}
	return r;
}

/* The switch that switch node n forwards dlid to; only called on switches
 * already walked once, whose entries are known to lead to a switch. */
static ibf_node_id_t next_switch(const ibf_lfts_t *l, ibf_node_id_t n,
				 unsigned dlid)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned p = ibf_lfts_get(l, f->switch_index[n], dlid);

	return f->ports[f->ports[f->nodes[n].first_port + p].peer].node;
}

/* Brent found a cycle of length lam on the walk from switch x0: find the
 * first switch visited twice (the cycle's entry) and the tail length mu. */
static ibf_trace_result_t loop_info(const ibf_lfts_t *l, ibf_node_id_t x0,
				    unsigned dlid, unsigned lam,
				    ibf_trace_info_t *info, unsigned *nhops)
{
	ibf_node_id_t tort = x0, hare = x0;
	unsigned i, mu = 0;

	for (i = 0; i < lam; i++)
		hare = next_switch(l, hare, dlid);
	while (tort != hare) {
		tort = next_switch(l, tort, dlid);
		hare = next_switch(l, hare, dlid);
		mu++;
	}
	*nhops = 1 + mu + lam;
	return set_info(info, IBF_TRACE_LOOP, *nhops, tort,
			ibf_lfts_get(l, l->fabric->switch_index[tort], dlid));
}

ibf_trace_result_t ibf_trace_info(const ibf_lfts_t *l, ibf_port_id_t src,
				  unsigned dlid, ibf_port_id_t *hops_out,
				  unsigned max_hops, ibf_trace_info_t *info)
{
	const ibf_fabric_t *f = l->fabric;
	const ibf_port_t *ports = f->ports;
	const ibf_node_t *nodes = f->nodes;
	/* Brent's cycle finding needs no marks and stops within about
	 * tail + 2 * cycle <= 3 * switches hops: the walk is bounded. */
	unsigned n = 0, lam = 0, power = 1;
	ibf_node_id_t x0 = IBF_NO_ID, saved = IBF_NO_ID;
	ibf_port_id_t out = src;

	for (;;) {
		ibf_port_id_t in = ports[out].peer;
		ibf_node_id_t x;
		uint32_t si;
		unsigned p;

		if (in == IBF_NO_ID) /* only an unconnected source */
			return set_info(info, IBF_TRACE_DEAD_END, n,
					ports[out].node, ports[out].num);
		if (hops_out && n < max_hops)
			hops_out[n] = out;
		n++;
		x = ports[in].node;
		if (nodes[x].type != IBF_NODE_SWITCH)
			return set_info(info, owns(f, dlid, in) ?
					IBF_TRACE_OK : IBF_TRACE_MISDELIVERED,
					n, x, ports[in].num);
		if (x0 == IBF_NO_ID) {
			x0 = saved = x;
		} else {
			lam++;
			if (x == saved)
				return loop_info(l, x0, dlid, lam, info, &n);
			if (lam == power) {
				saved = x;
				power <<= 1;
				lam = 0;
			}
		}
		si = f->switch_index[x];
		if (!l->has_table[si])
			return set_info(info, IBF_TRACE_NO_SWITCH_TABLE, n, x,
					IBF_LFT_NO_PORT);
		p = ibf_lfts_get(l, si, dlid);
		if (p == IBF_LFT_NO_PORT)
			return set_info(info, IBF_TRACE_NO_ROUTE, n, x, p);
		if (p == 0)
			return set_info(info, owns(f, dlid, nodes[x].first_port) ?
					IBF_TRACE_OK : IBF_TRACE_MISDELIVERED,
					n, x, 0);
		out = nodes[x].first_port + p;
		if (p > nodes[x].nports || ports[out].peer == IBF_NO_ID)
			return set_info(info, IBF_TRACE_DEAD_END, n, x, p);
	}
}

ibf_trace_result_t ibf_trace(const ibf_lfts_t *l, ibf_port_id_t src,
			     unsigned dlid, ibf_port_id_t *hops_out,
			     unsigned max_hops, unsigned *nhops)
{
	ibf_trace_info_t info;
	ibf_trace_result_t r;

	r = ibf_trace_info(l, src, dlid, hops_out, max_hops, &info);
	if (nhops)
		*nhops = info.nhops;
	return r;
}

/* ---- one DLID from every switch ---------------------------------------- */

ibf_status_t ibf_trace_tree_create(const ibf_lfts_t *l, ibf_trace_tree_t **out)
{
	size_t n = l->nswitches ? l->nswitches : 1;
	ibf_trace_tree_t *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return IBF_ERR_NOMEM;
	t->lfts = l;
	if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(t->result, n),
			   IBF_CALLOC_ARRAY(t->port, n),
			   IBF_CALLOC_ARRAY(t->dist, n),
			   IBF_CALLOC_ARRAY(t->node, n),
			   IBF_CALLOC_ARRAY(t->done, n),
			   IBF_CALLOC_ARRAY(t->onstack, n),
			   IBF_CALLOC_ARRAY(t->pos, n),
			   IBF_CALLOC_ARRAY(t->next, n),
			   IBF_CALLOC_ARRAY(t->stack, n))) {
		ibf_trace_tree_destroy(t);
		return IBF_ERR_NOMEM;
	}
	*out = t;
	return IBF_OK;
}

void ibf_trace_tree_destroy(ibf_trace_tree_t *t)
{
	if (!t)
		return;
	IBF_FREE_ALL(t->result, t->port, t->dist, t->node, t->done, t->onstack,
		     t->pos, t->next, t->stack, t);
}

static inline void tree_set(ibf_trace_tree_t *t, uint32_t s,
			    ibf_trace_result_t r, uint32_t dist,
			    ibf_node_id_t node, unsigned port)
{
	t->result[s] = (uint8_t)r;
	t->dist[s] = dist;
	t->node[s] = node;
	t->port[s] = (uint8_t)port;
	t->done[s] = t->epoch;
}

/* Settle switch s if its entry ends the route there (or one link further,
 * at a CA); otherwise store the next switch and return false. */
static bool tree_step(ibf_trace_tree_t *t, uint32_t s)
{
	const ibf_lfts_t *l = t->lfts;
	const ibf_fabric_t *f = l->fabric;
	ibf_node_id_t x = f->switches[s];
	const ibf_node_t *node = &f->nodes[x];
	unsigned dlid = t->dlid, p;
	ibf_port_id_t in;

	if (!l->has_table[s]) {
		tree_set(t, s, IBF_TRACE_NO_SWITCH_TABLE, 0, x,
			 IBF_LFT_NO_PORT);
		return true;
	}
	p = ibf_lfts_get(l, s, dlid);
	if (p == IBF_LFT_NO_PORT) {
		tree_set(t, s, IBF_TRACE_NO_ROUTE, 0, x, p);
		return true;
	}
	if (p == 0) {
		tree_set(t, s, owns(f, dlid, node->first_port) ? IBF_TRACE_OK :
			 IBF_TRACE_MISDELIVERED, 0, x, 0);
		return true;
	}
	if (p > node->nports ||
	    (in = f->ports[node->first_port + p].peer) == IBF_NO_ID) {
		tree_set(t, s, IBF_TRACE_DEAD_END, 0, x, p);
		return true;
	}
	if (f->nodes[f->ports[in].node].type != IBF_NODE_SWITCH) {
		tree_set(t, s, owns(f, dlid, in) ? IBF_TRACE_OK :
			 IBF_TRACE_MISDELIVERED, 1, f->ports[in].node,
			 f->ports[in].num);
		return true;
	}
	t->next[s] = f->switch_index[f->ports[in].node];
	return false;
}

/* Every switch of a cycle is its own first revisit, a full turn away. */
static void tree_close_cycle(ibf_trace_tree_t *t, uint32_t from, uint32_t sp)
{
	uint32_t lam = sp - from, i;

	for (i = from; i < sp; i++) {
		uint32_t s = t->stack[i];

		tree_set(t, s, IBF_TRACE_LOOP, lam, t->lfts->fabric->switches[s],
			 ibf_lfts_get(t->lfts, s, t->dlid));
	}
}

/* Walk from s until a settled switch, an end or a cycle; then settle the
 * walked switches back to front: each ends as its successor, one link
 * further. */
static void tree_walk(ibf_trace_tree_t *t, uint32_t s)
{
	uint32_t sp = 0;

	for (;;) {
		if (t->done[s] == t->epoch)
			break;
		if (t->onstack[s] == t->epoch) {
			tree_close_cycle(t, t->pos[s], sp);
			sp = t->pos[s];
			break;
		}
		t->onstack[s] = t->epoch;
		t->pos[s] = sp;
		t->stack[sp++] = s;
		if (tree_step(t, s)) {
			sp--;
			break;
		}
		s = t->next[s];
	}
	while (sp > 0) {
		uint32_t x = t->stack[--sp], nx = t->next[x];

		tree_set(t, x, (ibf_trace_result_t)t->result[nx],
			 t->dist[nx] + 1, t->node[nx], t->port[nx]);
	}
}

void ibf_trace_tree_build(ibf_trace_tree_t *t, unsigned dlid)
{
	uint32_t s, n = t->lfts->nswitches;

	/* Epoch stamps avoid clearing the marks for every DLID. */
	if (++t->epoch == 0) {
		memset(t->done, 0, (n ? n : 1) * sizeof(*t->done));
		memset(t->onstack, 0, (n ? n : 1) * sizeof(*t->onstack));
		t->epoch = 1;
	}
	t->dlid = dlid;
	for (s = 0; s < n; s++)
		if (t->done[s] != t->epoch)
			tree_walk(t, s);
}

ibf_trace_result_t ibf_trace_tree_from(const ibf_trace_tree_t *t,
				       ibf_port_id_t src,
				       ibf_trace_info_t *info)
{
	const ibf_fabric_t *f = t->lfts->fabric;
	const ibf_port_t *sp = &f->ports[src];
	ibf_port_id_t in = sp->peer;
	ibf_node_id_t x;
	uint32_t s;

	if (in == IBF_NO_ID)
		return set_info(info, IBF_TRACE_DEAD_END, 0, sp->node,
				sp->num);
	x = f->ports[in].node;
	if (f->nodes[x].type != IBF_NODE_SWITCH)
		return set_info(info, owns(f, t->dlid, in) ? IBF_TRACE_OK :
				IBF_TRACE_MISDELIVERED, 1, x, f->ports[in].num);
	s = f->switch_index[x];
	return set_info(info, (ibf_trace_result_t)t->result[s],
			1 + t->dist[s], t->node[s], t->port[s]);
}
