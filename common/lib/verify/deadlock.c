/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Deadlock check: channel dependency graphs per VL (SL->VL identity).
 *
 * No route is stored.  For one DLID the forwarding tables form a function
 * over the switches, so the routes of all sources to it form an in-tree:
 * walking from each source's first switch and stopping at a switch already
 * walked for this (DLID, VL) visits every switch once per VL, and each
 * visited switch contributes the single dependency "arrive from it, leave
 * by the next switch's entry".  A dependency is stored as one bit keyed by
 * (in-channel, out-port number of the next switch): 256 bits per channel
 * and VL, allocated for the VLs in use.  Injection channels (host to
 * switch) have no incoming dependency and ejection channels no outgoing
 * one, so neither can close a cycle and both are left out.
 *
 * Cycles are found by an iterative DFS (white/grey/black); the first back
 * edge met in a VL gives its cycle.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/deadlock.h>
#include <ibflow/sl_io.h>

#include "routing/cdg.h"

struct cdgs {
	const ibf_fabric_t *f;
	const ibf_lfts_t *l;
	ibf_cdg_t vl[IBF_NSLS];    /* channels = egress port ids; deps NULL
				    * until the VL carries a route */
	uint32_t *stamp;           /* [nswitches * IBF_NSLS] */
	uint32_t cur;
};

static ibf_status_t use_vl(struct cdgs *g, unsigned vl, ibf_err_t *err)
{
	if (g->vl[vl].deps)
		return IBF_OK;
	if (ibf_cdg_init(&g->vl[vl], g->f->nports, false))
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory for the "
				   "dependency graph of VL %u", vl);
	return IBF_OK;
}

/* Follow dlid from switch s on vl until a switch already walked. */
static void walk(struct cdgs *g, uint32_t s, unsigned vl, unsigned dlid)
{
	const ibf_fabric_t *f = g->f;

	while (g->stamp[(size_t)s * IBF_NSLS + vl] != g->cur) {
		ibf_node_id_t n = f->switches[s], nn;
		unsigned e = ibf_lfts_get(g->l, s, dlid), e2;
		ibf_port_id_t c, peer;

		g->stamp[(size_t)s * IBF_NSLS + vl] = g->cur;
		if (e == 0 || e > f->nodes[n].nports)
			return;
		c = ibf_node_port_id(f, n, e);
		peer = f->ports[c].peer;
		if (peer == IBF_NO_ID)
			return;
		nn = f->ports[peer].node;
		if (!ibf_node_is_switch(f, nn))
			return;
		s = f->switch_index[nn];
		e2 = ibf_lfts_get(g->l, s, dlid);
		if (e2 >= 1 && e2 <= f->nodes[nn].nports)
			ibf_cdg_mark(&g->vl[vl], c, e2);
	}
}

static bool dlid_checked(const ibf_fabric_t *f, unsigned lid, bool switches)
{
	ibf_port_id_t p = ibf_fabric_lid_owner(f, lid);

	if (!lid || p == IBF_NO_ID)
		return false;
	if (ibf_node_is_switch(f, f->ports[p].node))
		return switches;
	return f->endpoint_index[p] < f->nendpoints;
}

static ibf_status_t build(struct cdgs *g, const ibf_sls_t *sls, bool switches,
			  ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	const ibf_fabric_t *f = g->f;
	unsigned lid, vl;
	uint32_t e;
	ibf_status_t st;

	for (lid = 1; lid <= f->lid_top; lid++) {
		ibf_port_id_t owner = ibf_fabric_lid_owner(f, lid);

		if (!dlid_checked(f, lid, switches))
			continue;
		g->cur++;
		for (e = 0; e < f->nendpoints; e++) {
			ibf_port_id_t src = f->endpoints[e];
			ibf_port_id_t peer = f->ports[src].peer;

			if (src == owner || peer == IBF_NO_ID ||
			    !ibf_node_is_switch(f, f->ports[peer].node))
				continue;
			vl = ibf_sls_get(sls, src, lid);
			if (vl >= IBF_NSLS)
				return ibf_err_set(err, IBF_ERR_RANGE, "SL %u "
						   "out of range", vl);
			st = use_vl(g, vl, err);
			if (st != IBF_OK)
				return st;
			rep->routes[vl]++;
			walk(g, f->switch_index[f->ports[peer].node], vl, lid);
		}
	}
	return IBF_OK;
}

/* ---- cycle search ---------------------------------------------------- */

/* The channel leaving the head switch of channel c by port. */
static uint32_t next_channel(void *arg, uint32_t c, unsigned port)
{
	const ibf_fabric_t *f = arg;

	return ibf_node_port_id(f, f->ports[f->ports[c].peer].node, port);
}

static ibf_status_t search(const struct cdgs *g, unsigned vl,
			   ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	ibf_status_t st;

	rep->deps[vl] = g->vl[vl].ndeps;
	st = ibf_cdg_find_cycle(&g->vl[vl], next_channel, (void *)g->f,
				&rep->cycle[vl], &rep->cycle_len[vl], err);
	rep->cyclic[vl] = rep->cycle_len[vl] > 0;
	return st;
}

ibf_status_t ibf_deadlock_check(const ibf_lfts_t *l, const ibf_sls_t *sls,
				const ibf_deadlock_opts_t *opts,
				ibf_deadlock_report_t *rep, ibf_err_t *err)
{
	struct cdgs g = { .f = l->fabric, .l = l };
	unsigned vl;
	ibf_status_t st;

	memset(rep, 0, sizeof(*rep));
	g.stamp = calloc((size_t)g.f->nswitches * IBF_NSLS + 1,
			 sizeof(*g.stamp));
	if (!g.stamp)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = build(&g, sls, opts && opts->switches, rep, err);
	for (vl = 0; vl < IBF_NSLS; vl++) {
		if (!g.vl[vl].deps)
			continue;
		if (rep->routes[vl])
			rep->nvls++;
		if (st == IBF_OK)
			st = search(&g, vl, rep, err);
		ibf_cdg_free(&g.vl[vl]);
	}
	free(g.stamp);
	if (st != IBF_OK)
		ibf_deadlock_report_free(rep);
	return st;
}

void ibf_deadlock_report_free(ibf_deadlock_report_t *rep)
{
	unsigned vl;

	for (vl = 0; vl < IBF_NSLS; vl++)
		free(rep->cycle[vl]);
	memset(rep, 0, sizeof(*rep));
}

bool ibf_deadlock_found(const ibf_deadlock_report_t *rep)
{
	unsigned vl;

	for (vl = 0; vl < IBF_NSLS; vl++)
		if (rep->cyclic[vl])
			return true;
	return false;
}
