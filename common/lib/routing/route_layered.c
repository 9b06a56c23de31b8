/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * "layered": FatPaths layered routing (Besta et al., SC'20, section V) on
 * the LID offsets of InfiniBand, with deadlock-free SLs.
 *
 *  - n layers (--layers, default 2^LMC) on the 2^LMC LIDs of every
 *    endpoint: LID offset o belongs to layer o mod n (round-robin when
 *    2^LMC > n); 2^LMC < n is refused.
 *  - Router graph: switches and switch-switch links (layers.h).  Layer 0
 *    is all links (minimal paths); layers 1..n-1 are sampled (Listing 1) or
 *    built to minimize path overlap (Listing 2), seeded, and made connected
 *    again by adding back edges, so no pair ever falls back to layer 0.
 *  - Within a layer every DLID gets a shortest-path tree toward its
 *    switch: BFS distances to the destination switch over the layer's
 *    links, and at every switch the least used (so far, over all layers)
 *    of the ports that go one hop closer, lowest port number on ties.  A
 *    per-destination tree is what an LFT can express.
 *  - Switch LIDs are routed like layer 0.
 *  - A budget of VLs the traffic may rely on (--vls, default 1: MPI over
 *    UCX sends every packet on one SL, UCX_IB_SL).  Within the budget
 *    every DLID's route tree is grown inside a VL by a load-weighted
 *    Dijkstra search, each switch joining by a link whose new
 *    dependency keeps the VL's
 *    channel dependency graph acyclic (incremental topological order
 *    after Pearce & Kelly), else in the next VL, else the DLID takes its
 *    escape route in one spanning tree ("budget placement" below).
 *    The idea of guaranteeing progress with escape paths inside one CDG
 *    is Nue's (Domke, Hoefler, Matsuoka, HPDC'16); the granularity here
 *    is a DLID's tree, as an LFT holds it.
 *  - On a HyperX (a Hamming graph, layers.h) layer 0 is routed in
 *    dimension order first, minimal and acyclic on one VL (dor_tree).
 *  - On a Slim Fly (regular, diameter 2, neither a HyperX nor a
 *    two-level fat tree: ibf_rgraph_slimfly) layer 0's tree search
 *    charges non-minimal steps and the escape tree has fewer children a
 *    switch.
 *  - With a budget above one VL (the applications take the SL of their
 *    route, e.g. from the PathRecord), layers are placed as whole VLs
 *    first (fewer SLs): layer 0's trees one by one into the first VL that
 *    stays acyclic (greedy, as DFSSSP/LASH do), layers 1..n-1, each
 *    up*-down* hence acyclic, as whole layers.  Only when that needs more
 *    VLs than the budget are the routes placed within the budget as
 *    above.  SL = VL; SLs depend on the DLID only.
 *  - The report carries the layers, the VLs and the path diversity of the
 *    result (ibflow/diversity.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <ibflow/diversity.h>

#include "base/array.h"
#include "routing/cdg.h"
#include "routing/layers.h"
#include "routing/route_internal.h"

#define LAYERED_MAX_VLS 15u /* data VLs 0..14; SL 15 -> VL15 is management */

/* A frontier entry of the tree search: switch s joining by edge e, as
 * its channel (chan()), at the weighted cost of its way to t. */
struct hent {
	double cost;
	uint32_t ch;
};

/* The search's frontier: every switch outside the tree keeps the ways in
 * offered to it (pend, at most one a link, in its slice
 * adj_off[s]..adj_off[s + 1]) and the cheapest of them (best); a binary
 * heap orders the switches by their cheapest.  The heap holds one entry
 * a switch, not one a way in, and a switch's other ways in leave with
 * it when it joins. */
struct frontier {
	struct hent *pend;          /* [2 nedges] */
	uint32_t *npend, *best;     /* [nswitches] ways in, the cheapest */
	uint32_t *heap, *pos;       /* [nswitches] switches; their place */
	uint32_t n;                 /* switches in the heap */
};

/* One VL: its channel dependency graph and what it carries. */
struct vl {
	ibf_cdg_t g;          /* ordered: refuses a dependency closing a cycle */
	uint32_t ndlids;
	uint32_t ndeps_last;  /* added by the last successful try_vl() */
};

struct lay {
	const ibf_fabric_t *f;
	ibf_routing_t *r;
	ibf_rgraph_t g;
	ibf_layers_t ly;
	unsigned n, max_vls;
	double density;
	uint32_t *dist, *queue, *queue2; /* [nswitches] */
	uint8_t *down;              /* [nswitches] */
	uint32_t *cand_off, *cand;  /* per switch: ports one hop closer */
	uint32_t *use;              /* [nports] entries routed via a port */
	uint32_t *ep_off, *ep;      /* endpoints by attached switch (CSR) */
	/* VL assignment */
	uint32_t nch;
	uint32_t *ch_of_port;       /* [nports] channel of an egress port */
	uint8_t *ch_port;           /* [nch] port number at its tail */
	struct vl vl[LAYERED_MAX_VLS];
	unsigned nvl;
	/* budget placement: trees grown switch by switch */
	bool budget;                /* place every DLID when routed */
	uint8_t *tree;              /* [nedges] links of the escape tree */
	uint32_t *mark, epoch;      /* [nswitches] in the tree being grown */
	uint32_t *nh;               /* [nswitches] its edge toward t */
	uint32_t *depth;            /* [nswitches] its hops to t */
	double *cost;               /* [nswitches] its weighted way to t */
	struct frontier fr;         /* the search's frontier */
	double load_div;            /* link_cost's mean channel load, >= 1 */
	uint32_t *ch_pid;           /* [nch] port id of a channel's tail */
	const uint8_t *mask;        /* links of the layer being routed */
	uint64_t use_total;         /* sum of use[] */
	unsigned cur_layer;         /* of the DLID being routed */
	bool diameter2;             /* a Slim Fly (ibf_rgraph_slimfly) */
	uint32_t *esc_nh, *esc_ord; /* [nswitches] escape routes toward esc_for */
	uint32_t esc_for;
	uint32_t *seed, seed_epoch; /* [nswitches] put on escape routes */
	uint32_t nseeded, nstuck;
	uint64_t seeded_switches;   /* over all DLIDs, for the report */
	uint32_t *order;            /* [nswitches] switches still to join */
	uint8_t *edim;              /* [nedges] HyperX: dimension of a link */
	unsigned ndims;             /* > 0: layer 0 in dimension order */
	uint32_t dor_trees;         /* trees routed so */
	uint32_t escape_dlids;      /* DLIDs on their escape route */
	bool budget_fallback;       /* whole layers needed too many VLs */
	bool overflowed;            /* ... found by this run */
	bool escape_first;          /* escape dependencies put in first */
	bool impasse;               /* a DLID fitted nowhere without them */
	ibf_cdg_scratch_t pk;       /* ordered insertion work space */
	uint32_t *dep_a, *dep_b, ndep; /* one DLID's dependencies */
	uint32_t *smark, sepoch;    /* [nswitches] */
	uint64_t fallback_pairs;    /* always 0: layers are repaired */
};

static ibf_status_t nomem(ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_NOMEM, "layered: %s",
			   ibf_status_str(IBF_ERR_NOMEM));
}

/* ---- checks and setup -------------------------------------------------- */

static unsigned lmc_for(unsigned n)
{
	unsigned l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

static ibf_status_t check_opts(struct lay *L, const ibf_route_opts_t *o,
			       ibf_err_t *err)
{
	const ibf_fabric_t *f = L->f;
	uint32_t i;

	L->n = o->layers ? o->layers : 1u << f->lmc;
	L->max_vls = o->vls ? o->vls : IBF_ROUTE_VLS_DEFAULT;
	L->density = o->density > 0 ? o->density
				    : IBF_LAYERS_DEFAULT_DENSITY;
	if (L->max_vls > LAYERED_MAX_VLS)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "layered: --vls %u is more than the %u "
				   "data VLs InfiniBand has", L->max_vls,
				   LAYERED_MAX_VLS);
	if (L->density > 1.0)
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "layered: --density %g is not in (0, 1]",
				   L->density);
	for (i = 0; i < f->nendpoints; i++) {
		const ibf_port_t *p = &f->ports[f->endpoints[i]];

		/* LIDs the input carried are the subnet's: only a new
		 * sweep at a higher LMC changes them, --lmc does not */
		if (L->n > (1u << p->lmc) && f->lids_assumed)
			return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				"layered: %u layers need %u LIDs per port "
				"(2^LMC >= layers) but port 0x%016llx has "
				"LMC %u (%u LIDs); raise --lmc to %u or use "
				"--layers %u", L->n, L->n,
				(unsigned long long)p->guid, p->lmc,
				1u << p->lmc, lmc_for(L->n), 1u << p->lmc);
		if (L->n > (1u << p->lmc))
			return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				"layered: %u layers need %u LIDs per port "
				"(2^LMC >= layers) but port 0x%016llx has "
				"LMC %u (%u LIDs), as the subnet assigned "
				"them; use --layers %u, or set lmc %u in "
				"opensm.conf (opensm -l %u), let OpenSM sweep "
				"again and read the topology back", L->n, L->n,
				(unsigned long long)p->guid, p->lmc,
				1u << p->lmc, 1u << p->lmc, lmc_for(L->n),
				lmc_for(L->n));
		if (!ibf_node_is_switch(f, f->ports[p->peer].node))
			return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				"layered: port 0x%016llx is not attached to "
				"a switch", (unsigned long long)p->guid);
	}
	return IBF_OK;
}

/* Endpoints grouped by the switch they hang off, each group in PortGUID
 * order (then port number): the order routes are placed in, and so the
 * port use counts, must not depend on the fabric's node order. */
static void sort_group(const ibf_fabric_t *f, ibf_port_id_t *v, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		ibf_port_id_t x = v[i];
		const ibf_port_t *px = &f->ports[x];

		for (j = i; j > 0; j--) {
			const ibf_port_t *py = &f->ports[v[j - 1]];

			if (py->guid < px->guid ||
			    (py->guid == px->guid && py->num <= px->num))
				break;
			v[j] = v[j - 1];
		}
		v[j] = x;
	}
}

static int group_endpoints(struct lay *L)
{
	const ibf_fabric_t *f = L->f;
	uint32_t i, s;

	L->ep_off = calloc((size_t)f->nswitches + 1, sizeof(*L->ep_off));
	L->ep = malloc(((size_t)f->nendpoints + 1) * sizeof(*L->ep));
	if (!L->ep_off || !L->ep)
		return -1;
	for (i = 0; i < f->nendpoints; i++) {
		ibf_port_id_t peer = f->ports[f->endpoints[i]].peer;

		L->ep_off[f->switch_index[f->ports[peer].node] + 1]++;
	}
	for (s = 0; s < f->nswitches; s++)
		L->ep_off[s + 1] += L->ep_off[s];
	for (i = 0; i < f->nendpoints; i++) {
		ibf_port_id_t peer = f->ports[f->endpoints[i]].peer;

		s = f->switch_index[f->ports[peer].node];
		L->ep[L->ep_off[s]++] = f->endpoints[i];
	}
	for (s = f->nswitches; s > 0; s--)
		L->ep_off[s] = L->ep_off[s - 1];
	L->ep_off[0] = 0;
	for (s = 0; s < f->nswitches; s++)
		sort_group(f, L->ep + L->ep_off[s],
			   L->ep_off[s + 1] - L->ep_off[s]);
	return 0;
}

static int alloc_routing(struct lay *L)
{
	const ibf_fabric_t *f = L->f;
	size_t ns = f->nswitches + 1;

	L->dist = malloc(ns * sizeof(*L->dist));
	L->queue = malloc(ns * sizeof(*L->queue));
	L->queue2 = malloc(ns * sizeof(*L->queue2));
	L->down = malloc(ns);
	L->cand_off = malloc((ns + 1) * sizeof(*L->cand_off));
	L->cand = malloc((2 * (size_t)L->g.nedges + 1) * sizeof(*L->cand));
	L->use = calloc((size_t)f->nports + 1, sizeof(*L->use));
	L->smark = calloc(ns, sizeof(*L->smark));
	return L->dist && L->queue && L->queue2 && L->down && L->cand_off && L->cand && L->use &&
	       L->smark ? group_endpoints(L) : -1;
}

/* ---- routing inside a layer -------------------------------------------- */

/* Per switch, the ports whose link leads one hop closer to t by L->dist;
 * with rank (up/down), only the links that keep the path up/down: a
 * down-set member goes down within the down-set, the others go up. */
static void collect_candidates(struct lay *L, const uint8_t *mask,
			       const uint32_t *rank, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t s, k, nc = 0;

	for (s = 0; s < g->n; s++) {
		L->cand_off[s] = nc;
		if (L->dist[s] == UINT32_MAX || s == t)
			continue;
		for (k = g->adj_off[s]; k < g->adj_off[s + 1]; k++) {
			uint32_t e = g->adj_edge[k];
			uint32_t y = ibf_rgraph_other(g, e, s);

			if (!mask[e] || L->dist[y] + 1 != L->dist[s])
				continue;
			if (!rank || (L->down[s] ? (L->down[y] &&
						    rank[y] > rank[s])
						 : rank[y] < rank[s]))
				L->cand[nc++] = e;
		}
	}
	L->cand_off[g->n] = nc;
}

/* For destination switch t: BFS over the layer, then the candidates. */
static void candidates(struct lay *L, const uint8_t *mask, uint32_t t)
{
	ibf_rgraph_bfs(&L->g, mask, t, L->dist, L->queue);
	collect_candidates(L, mask, NULL, t);
}

/* One DLID whose owner hangs off switch t (host_port: t's port to it, 0
 * for t's own LID): every switch takes its least used candidate. */
static void route_dlid(struct lay *L, uint32_t t, unsigned dlid,
		       unsigned host_port)
{
	const ibf_fabric_t *f = L->f;
	const ibf_rgraph_t *g = &L->g;
	uint32_t s, k;

	ibf_lfts_set(L->r->lfts, t, dlid, (uint8_t)host_port);
	for (s = 0; s < g->n; s++) {
		ibf_port_id_t best = IBF_NO_ID;
		unsigned bport = 0;

		for (k = L->cand_off[s]; k < L->cand_off[s + 1]; k++) {
			unsigned p = ibf_rgraph_port(g, L->cand[k], s);
			ibf_port_id_t pid = ibf_node_port_id(f,
							f->switches[s], p);

			if (best == IBF_NO_ID || L->use[pid] < L->use[best] ||
			    (L->use[pid] == L->use[best] && p < bport)) {
				best = pid;
				bport = p;
			}
		}
		if (best == IBF_NO_ID)
			continue; /* t itself (the layer is connected) */
		L->use[best]++;
		ibf_lfts_set(L->r->lfts, s, dlid, (uint8_t)bport);
	}
}

/* Layer 0 routes all DLIDs toward switch t along one tree: fewer distinct
 * trees, fewer dependency patterns, fewer VLs for the cyclic minimal
 * routes (the other layers spread the load). */
static void copy_dlid(struct lay *L, uint32_t t, unsigned from, unsigned dlid,
		      unsigned host_port)
{
	const ibf_fabric_t *f = L->f;
	uint32_t s;

	for (s = 0; s < f->nswitches; s++) {
		uint8_t p = ibf_lfts_get(L->r->lfts, s, from);

		if (s == t) {
			ibf_lfts_set(L->r->lfts, s, dlid, (uint8_t)host_port);
		} else if (p != IBF_LFT_NO_PORT) {
			ibf_lfts_set(L->r->lfts, s, dlid, p);
			L->use[ibf_node_port_id(f, f->switches[s], p)]++;
		}
	}
}

/* Layers 1..n-1: up/down routing along the layer's order (layers.h), as
 * an LFT can hold it.  Switches with an all-down path to t (down = toward
 * higher rank) take a shortest such path, so whatever arrives at them
 * going down keeps going down; the others go up to the neighbour closest
 * to t.  Distances come from two monotone BFS queues merged (down-set
 * first, then the up extensions).  Every route is up* then down*: the
 * layer's channel dependencies are acyclic. */
static void updn_distances(struct lay *L, const uint8_t *mask,
			   const uint32_t *rank, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t *qa = L->queue, *qb = L->queue2, ha = 0, ta = 0, hb = 0,
		 tb = 0, x, y, k;

	for (x = 0; x < g->n; x++) {
		L->dist[x] = UINT32_MAX;
		L->down[x] = 0;
	}
	L->dist[t] = 0;
	L->down[t] = 1;
	qa[ta++] = t;
	while (ha < ta) { /* the down-set: x -> y down, rank[x] < rank[y] */
		y = qa[ha++];
		for (k = g->adj_off[y]; k < g->adj_off[y + 1]; k++) {
			uint32_t e = g->adj_edge[k];

			x = ibf_rgraph_other(g, e, y);
			if (mask[e] && !L->down[x] && rank[x] < rank[y]) {
				L->down[x] = 1;
				L->dist[x] = L->dist[y] + 1;
				qa[ta++] = x;
			}
		}
	}
	ha = 0;
	while (ha < ta || hb < tb) { /* up extensions, x -> y up */
		if (hb == tb || (ha < ta && L->dist[qa[ha]] <= L->dist[qb[hb]]))
			y = qa[ha++];
		else
			y = qb[hb++];
		for (k = g->adj_off[y]; k < g->adj_off[y + 1]; k++) {
			uint32_t e = g->adj_edge[k];

			x = ibf_rgraph_other(g, e, y);
			if (mask[e] && L->dist[x] == UINT32_MAX &&
			    rank[x] > rank[y]) {
				L->dist[x] = L->dist[y] + 1;
				qb[tb++] = x;
			}
		}
	}
}

static void updn_candidates(struct lay *L, const uint8_t *mask,
			    const uint32_t *rank, uint32_t t)
{
	updn_distances(L, mask, rank, t);
	collect_candidates(L, mask, rank, t);
}

static ibf_status_t route_budget(struct lay *L, uint32_t t, unsigned dlid,
				 unsigned host_port, ibf_err_t *err);
static void set_sl(struct lay *L, unsigned dlid, unsigned v);
static void copy_tree(struct lay *L, uint32_t t, unsigned from,
		      unsigned dlid, unsigned host_port);

/* Layer i's routes toward switch t: t's own LID (layer 0) and the LID
 * offsets of layer i of every endpoint on t; each placed into a VL at
 * once in budget mode. */
static ibf_status_t route_dest(struct lay *L, unsigned i, uint32_t t,
			       ibf_err_t *err)
{
	const ibf_fabric_t *f = L->f;
	const uint8_t *mask = ibf_layer_mask(&L->ly, i);
	const uint32_t *rank = ibf_layer_rank(&L->ly, i, L->g.n);
	ibf_status_t st = IBF_OK;
	uint32_t k;
	unsigned o, first = 0, dlid;

	L->mask = mask; /* budget mode: grow_once() searches on its own */
	L->cur_layer = i;
	if (i == 0 && !L->budget)
		candidates(L, mask, t);
	else if (!L->budget)
		updn_candidates(L, mask, rank, t);
	if (i == 0) {
		dlid = ibf_port_base_lid(f, ibf_node_port_id(f,
							    f->switches[t], 0));
		if (L->budget)
			st = route_budget(L, t, dlid, 0, err);
		else
			route_dlid(L, t, dlid, 0);
	}
	for (k = L->ep_off[t]; k < L->ep_off[t + 1] && st == IBF_OK; k++) {
		const ibf_port_t *p = &f->ports[L->ep[k]];
		unsigned host_port = f->ports[p->peer].num;

		for (o = i; o < (1u << p->lmc) && st == IBF_OK; o += L->n) {
			dlid = p->lid + o;
			if (i == 0 && first && L->budget) {
				/* the same dependencies */
				copy_tree(L, t, first, dlid, host_port);
				set_sl(L, dlid, L->r->sl_by_dlid[first]);
			} else if (i == 0 && first) {
				copy_dlid(L, t, first, dlid, host_port);
			} else if (L->budget) {
				st = route_budget(L, t, dlid, host_port, err);
			} else {
				route_dlid(L, t, dlid, host_port);
			}
			if (!first)
				first = dlid;
		}
	}
	return st;
}

/* Destinations in NodeGUID order (port use counts carry over). */
static void route_layer(struct lay *L, unsigned i)
{
	uint32_t ti;

	for (ti = 0; ti < L->g.n; ti++)
		(void)route_dest(L, i, L->g.ord[ti], NULL);
}

/* ---- deadlock freedom: DLIDs into VLs ----------------------------------- */

/* Channels are the directed switch-switch links: edge e gives 2e (from ea)
 * and 2e + 1 (from eb).  Links to hosts cannot be on a dependency cycle
 * (nothing depends on an ejection, an injection depends on nothing). */
static int alloc_channels(struct lay *L)
{
	const ibf_fabric_t *f = L->f;
	const ibf_rgraph_t *g = &L->g;
	uint32_t e;

	L->nch = 2 * g->nedges;
	L->ch_of_port = malloc(((size_t)f->nports + 1) *
			       sizeof(*L->ch_of_port));
	L->ch_port = malloc((size_t)L->nch + 1);
	L->ch_pid = malloc(((size_t)L->nch + 1) * sizeof(*L->ch_pid));
	L->dep_a = malloc(((size_t)f->nswitches + 1) * sizeof(*L->dep_a));
	L->dep_b = malloc(((size_t)f->nswitches + 1) * sizeof(*L->dep_b));
	if (!L->ch_of_port || !L->ch_port || !L->ch_pid || !L->dep_a ||
	    !L->dep_b || ibf_cdg_scratch_init(&L->pk, L->nch))
		return -1;
	for (e = 0; e < g->nedges; e++) {
		L->ch_pid[2 * e] = ibf_node_port_id(f, f->switches[g->ea[e]],
						    g->pa[e]);
		L->ch_pid[2 * e + 1] = ibf_node_port_id(f,
				f->switches[g->eb[e]], g->pb[e]);
		L->ch_of_port[L->ch_pid[2 * e]] = 2 * e;
		L->ch_of_port[L->ch_pid[2 * e + 1]] = 2 * e + 1;
		L->ch_port[2 * e] = g->pa[e];
		L->ch_port[2 * e + 1] = g->pb[e];
	}
	return 0;
}

/* The channel dependencies of one DLID's routes: from every switch with
 * endpoints, follow the LFTs; each switch passed adds (its egress link ->
 * the next switch's egress link) when both are switch-switch links. */
static void collect_deps(struct lay *L, unsigned dlid)
{
	const ibf_fabric_t *f = L->f;
	const ibf_lfts_t *lf = L->r->lfts;
	uint32_t s, x;

	L->sepoch++;
	L->ndep = 0;
	for (s = 0; s < f->nswitches; s++) {
		if (L->ep_off[s] == L->ep_off[s + 1])
			continue;
		for (x = s; L->smark[x] != L->sepoch;) {
			unsigned p = ibf_lfts_get(lf, x, dlid), q;
			ibf_port_id_t pid, peer, qid;
			uint32_t y;

			L->smark[x] = L->sepoch;
			if (p == 0 || p == IBF_LFT_NO_PORT)
				break;
			pid = ibf_node_port_id(f, f->switches[x], p);
			peer = f->ports[pid].peer;
			if (!ibf_node_is_switch(f, f->ports[peer].node))
				break;
			y = f->switch_index[f->ports[peer].node];
			q = ibf_lfts_get(lf, y, dlid);
			if (q != 0 && q != IBF_LFT_NO_PORT) {
				qid = ibf_node_port_id(f, f->switches[y], q);
				if (ibf_node_is_switch(f,
					f->ports[f->ports[qid].peer].node)) {
					L->dep_a[L->ndep] = L->ch_of_port[pid];
					L->dep_b[L->ndep++] =
						L->ch_of_port[qid];
				}
			}
			x = y;
		}
	}
}

static void rollback(struct lay *L, struct vl *c, const uint32_t *done,
		     uint32_t n)
{
	while (n--) {
		uint32_t a = L->dep_a[done[n]], b = L->dep_b[done[n]];

		ibf_cdg_remove_newest(&c->g, a, b, L->ch_port[b]);
	}
}

/* Put the collected dependencies into VL v: 0 done, 1 a cycle (VL left as
 * it was), -1 out of memory.  done: [nswitches] scratch. */
static int try_vl(struct lay *L, struct vl *c, uint32_t *done)
{
	uint32_t k, nd = 0;
	int rc;

	for (k = 0; k < L->ndep; k++) {
		uint32_t a = L->dep_a[k], b = L->dep_b[k];

		if (ibf_cdg_has(&c->g, a, L->ch_port[b]))
			continue;
		rc = ibf_cdg_insert(&c->g, &L->pk, a, b, L->ch_port[b]);
		if (rc) {
			rollback(L, c, done, nd);
			return rc;
		}
		done[nd++] = k;
	}
	c->ndeps_last = nd;
	return 0;
}

/* Whole-layer placement needs more VLs than the budget: the caller
 * places the routes within the budget instead (run). */
static ibf_status_t too_many(struct lay *L, const char *what,
			      unsigned id, ibf_err_t *err)
{
	L->overflowed = true;
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
		"layered: whole layers need more than %u VLs (%s %u closes a "
		"channel dependency cycle in each of VLs 0..%u)", L->max_vls,
		what, id, L->max_vls - 1);
}

static int open_vl(struct lay *L)
{
	if (ibf_cdg_init(&L->vl[L->nvl].g, L->nch, true))
		return -1;
	L->nvl++;
	return 0;
}

/* Layer 0 (minimal paths over all links, cyclic dependencies likely):
 * each DLID's tree into the first VL that stays acyclic with it. */
static ibf_status_t place_dlid(struct lay *L, unsigned dlid, uint32_t *done,
			       ibf_err_t *err)
{
	unsigned v;
	int rc;

	collect_deps(L, dlid);
	for (v = 0; v < L->max_vls; v++) {
		if (v == L->nvl && open_vl(L))
			return nomem(err);
		rc = try_vl(L, &L->vl[v], done);
		if (rc < 0)
			return nomem(err);
		if (rc == 0) {
			L->r->sl_by_dlid[dlid] = (uint8_t)v;
			L->vl[v].ndlids++;
			return IBF_OK;
		}
	}
	return too_many(L, "the route tree of DLID", dlid, err);
}

/* ---- budget placement ---------------------------------------------------
 *
 * A DLID's tree is grown from its switch t outward by a Dijkstra search
 * on link costs (link_cost: a hop, more off the DLID's layer, more the
 * more traffic the link carries already): the cheapest switch joins the
 * tree through a neighbour already in it (a route cannot loop) if its
 * one new dependency (this link -> the neighbour's link toward t) keeps
 * the VL's graph acyclic; otherwise that way in is dropped and the
 * switch waits for another neighbour to join.  So routes bend around
 * dependencies that would close a cycle at the least cost, and no
 * switch is left out while any acyclic way remains.  A switch that can
 * never join is an impasse: the tree is taken back and grown in the next
 * VL; after the last the DLID takes its escape route,
 * the path in one spanning tree of all switches, in the first VL it
 * fits.  The first run is optimistic; if an escape route fits nowhere,
 * the run starts again with every dependency between two tree links put
 * into the last VL before anything else (a walk that never turns back
 * cannot close a cycle in a tree), so that every escape route fits there;
 * an impasse in that VL then puts only the stuck switches (and those on
 * their way) on escape routes and grows the rest again (grow).  Those
 * free turns draw routes toward the tree's root, hence not always.
 */

#define NO_EDGE UINT32_MAX

/* The channel of edge e leaving router s (alloc_channels' numbering). */
static uint32_t chan(const ibf_rgraph_t *g, uint32_t e, uint32_t s)
{
	return g->ea[e] == s ? 2 * e : 2 * e + 1;
}

/* At most this many children per switch in the escape tree, while the
 * tree can be completed so: every turn of the tree is in the one VL's
 * CDG, so routes between the subtrees of a switch always pass it
 * acyclically and a hub with all its neighbours as children draws much
 * traffic (Slim Fly q = 11 with 17 switch links: 2.4x its all-to-all
 * time at no cap, docs/benchmarks.md).  7-8 was best on the four
 * fabrics measured there; 5 and 12 were worse. */
#define LAYERED_ESCAPE_CHILDREN 8u

/* On a Slim Fly (ibf_rgraph_slimfly: regular, diameter 2, neither a
 * HyperX nor a two-level fat tree), at most
 * this many: its one-VL pairwise all-to-all queues at the tree's top
 * (docs/benchmarks.md, "Layered on one VL: where a Slim Fly's pairwise
 * all-to-all loses"). */
#define LAYERED_ESCAPE_CHILDREN_D2 4u

/* One breadth-first pass of the escape tree over the switches in
 * L->queue[0..*tail): each adopts neighbours not in the tree yet while
 * it has fewer than cap children. */
static void escape_pass(struct lay *L, uint32_t root, uint32_t cap,
			uint32_t *tail)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t head, k;

	for (head = 0; head < *tail; head++) {
		uint32_t u = L->queue[head], nc = 0;

		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++)
			nc += L->tree[g->adj_edge[k]];
		nc -= u != root; /* the link to its parent */
		for (k = g->adj_off[u]; k < g->adj_off[u + 1] && nc < cap;
		     k++) {
			uint32_t e = g->adj_edge[k], y = ibf_rgraph_other(g, e, u);

			if (!L->mark[y]) {
				L->mark[y] = 1;
				L->tree[e] = 1;
				L->queue[(*tail)++] = y;
				nc++;
			}
		}
	}
}

/* The escape tree: breadth first over all links from the router of
 * least eccentricity (first in NodeGUID order on ties), so tree paths
 * stay short, with at most LAYERED_ESCAPE_CHILDREN children a switch
 * (one more each pass while switches are left out); tree[e] marks its
 * links. */
static void escape_tree(struct lay *L)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t i, u, root = g->ord[0], best = UINT32_MAX;
	uint32_t tail = 0, k, cap;

	for (i = 0; i < g->n; i++) {
		uint32_t ecc = 0;

		u = g->ord[i];
		ibf_rgraph_bfs(g, NULL, u, L->dist, L->queue);
		for (k = 0; k < g->n; k++)
			if (L->dist[k] > ecc)
				ecc = L->dist[k];
		if (ecc < best) {
			best = ecc;
			root = u;
		}
	}
	L->diameter2 = ibf_rgraph_slimfly(g, L->ndims > 0, L->dist, L->queue);
	memset(L->tree, 0, g->nedges);
	L->mark[root] = 1;
	L->queue[tail++] = root;
	for (cap = L->diameter2 ? LAYERED_ESCAPE_CHILDREN_D2 :
		   LAYERED_ESCAPE_CHILDREN; tail < g->n; cap++)
		escape_pass(L, root, cap, &tail);
	memset(L->mark, 0, g->n * sizeof(*L->mark));
}

/* Every dependency between two tree links into the last VL. */
static ibf_status_t insert_escape(struct lay *L, ibf_err_t *err)
{
	const ibf_rgraph_t *g = &L->g;
	struct vl *c = &L->vl[L->max_vls - 1];
	uint32_t y, i, j;
	int rc;

	for (y = 0; y < g->n; y++)
		for (i = g->adj_off[y]; i < g->adj_off[y + 1]; i++)
			for (j = g->adj_off[y]; j < g->adj_off[y + 1]; j++) {
				uint32_t e1 = g->adj_edge[i], e2 = g->adj_edge[j];
				uint32_t a, b;

				if (e1 == e2 || !L->tree[e1] || !L->tree[e2])
					continue;
				a = chan(g, e1, ibf_rgraph_other(g, e1, y));
				b = chan(g, e2, y);
				if (ibf_cdg_has(&c->g, a, L->ch_port[b]))
					continue;
				rc = ibf_cdg_insert(&c->g, &L->pk, a, b,
						    L->ch_port[b]);
				if (rc)
					return rc < 0 ? nomem(err) :
					       ibf_err_set(err, IBF_ERR_INVALID,
						"layered: the escape tree closes a "
						"dependency cycle");
			}
	return IBF_OK;
}

/* The escape route toward t: every switch's tree link toward t. */
/* The escape routes toward t, into esc_nh (every switch's tree link
 * toward t) and esc_ord (the switches from t outward). */
static void escape_routes(struct lay *L, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t head = 0, tail = 0, u, k;

	for (u = 0; u < g->n; u++)
		L->esc_nh[u] = NO_EDGE;
	L->mark[t] = ++L->epoch;
	L->esc_ord[tail++] = t;
	while (head < tail) {
		u = L->esc_ord[head++];
		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
			uint32_t e = g->adj_edge[k], y = ibf_rgraph_other(g, e, u);

			if (L->tree[e] && L->mark[y] != L->epoch) {
				L->mark[y] = L->epoch;
				L->esc_nh[y] = e;
				L->esc_ord[tail++] = y;
			}
		}
	}
	L->esc_for = t;
}

/* Switch s joins the tree by edge e if that keeps VL c acyclic: 1 yes,
 * 0 no, -1 out of memory.  New dependencies are logged for take-back. */
static int try_join(struct lay *L, struct vl *c, uint32_t s, uint32_t e,
		    uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t y = ibf_rgraph_other(g, e, s), a, b;
	int rc;

	if (L->mark[y] != L->epoch)
		return 0; /* not in the tree (yet) */
	if (y == t) {
		L->nh[s] = e;
		L->depth[s] = 1;
		return 1;
	}
	a = chan(g, e, s);
	b = chan(g, L->nh[y], y);
	if (!ibf_cdg_has(&c->g, a, L->ch_port[b])) {
		rc = ibf_cdg_insert(&c->g, &L->pk, a, b, L->ch_port[b]);
		if (rc)
			return rc < 0 ? -1 : 0;
		L->dep_a[L->ndep] = a;
		L->dep_b[L->ndep++] = b;
	}
	L->nh[s] = e;
	L->depth[s] = L->depth[y] + 1;
	return 1;
}

/* Take back the dependencies logged in L->dep_a/b, newest first. */
static void take_back(struct lay *L, struct vl *c)
{
	while (L->ndep) {
		L->ndep--;
		ibf_cdg_remove_newest(&c->g, L->dep_a[L->ndep],
				      L->dep_b[L->ndep],
				      L->ch_port[L->dep_b[L->ndep]]);
	}
}

/* What a route pays for leaving switch s by edge e: one hop, one more
 * off the layer being routed, and the traffic its port carries already
 * relative to the mean channel, so that trees spread over the fabric
 * (weights raised on used links, as Nue and DFSSSP balance). */
#define LAYERED_OFF_LAYER_COST 1.0
#define LAYERED_LOAD_COST 1.0
/* A Slim Fly (L->diameter2), layer 0: a link that does not bring the
 * route one hop nearer t costs this much more, so minimal routes are
 * kept wherever the VL's CDG allows (L->dist holds the hops to t). */
#define LAYERED_D2_DETOUR_COST 2.0

/* The mean channel's load for link_cost, set before a search (the use
 * counts change only between DLIDs). */
static void set_load_div(struct lay *L)
{
	double mean = (double)L->use_total / (L->nch ? L->nch : 1);

	L->load_div = mean > 1 ? mean : 1;
}

/* Leaving switch s by edge e, its channel ch = chan(e, s). */
static double link_cost(const struct lay *L, uint32_t s, uint32_t e,
			uint32_t ch)
{
	double c = 1.0 + (L->mask[e] ? 0.0 : LAYERED_OFF_LAYER_COST) +
		   LAYERED_LOAD_COST * (double)L->use[L->ch_pid[ch]] /
		   L->load_div;

	if (L->diameter2 && L->cur_layer == 0 &&
	    L->dist[ibf_rgraph_other(&L->g, e, s)] + 1 != L->dist[s])
		c += LAYERED_D2_DETOUR_COST;
	return c;
}

/* Cheapest first, ties by channel id (a numbering by GUIDs and ports, so
 * node order does not matter).  Channels are unique, so the order is
 * total and the search takes the ways in in the one order whatever the
 * frontier's layout. */
static bool hent_less(const struct hent *a, const struct hent *b)
{
	return a->cost < b->cost || (a->cost == b->cost && a->ch < b->ch);
}

static const struct hent *fr_key(const struct lay *L, uint32_t s)
{
	return &L->fr.pend[L->g.adj_off[s] + L->fr.best[s]];
}

static void fr_place(struct lay *L, uint32_t i, uint32_t s)
{
	L->fr.heap[i] = s;
	L->fr.pos[s] = i;
}

static void fr_up(struct lay *L, uint32_t i)
{
	uint32_t s = L->fr.heap[i];
	const struct hent *k = fr_key(L, s);

	while (i > 0 && hent_less(k, fr_key(L, L->fr.heap[(i - 1) / 2]))) {
		fr_place(L, i, L->fr.heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	fr_place(L, i, s);
}

static void fr_down(struct lay *L, uint32_t i)
{
	struct frontier *fr = &L->fr;
	uint32_t s = fr->heap[i], c;
	const struct hent *k = fr_key(L, s);

	while ((c = 2 * i + 1) < fr->n) {
		if (c + 1 < fr->n && hent_less(fr_key(L, fr->heap[c + 1]),
					       fr_key(L, fr->heap[c])))
			c++;
		if (!hent_less(fr_key(L, fr->heap[c]), k))
			break;
		fr_place(L, i, fr->heap[c]);
		i = c;
	}
	fr_place(L, i, s);
}

/* Switch x is offered a way in by channel ch at cost. */
static void fr_offer(struct lay *L, uint32_t x, double cost, uint32_t ch)
{
	struct frontier *fr = &L->fr;
	struct hent *p = fr->pend + L->g.adj_off[x];
	uint32_t i = fr->npend[x]++;

	p[i].cost = cost;
	p[i].ch = ch;
	if (i == 0) {
		fr->best[x] = 0;
		fr->heap[fr->n] = x;
		fr_up(L, fr->n++);
	} else if (hent_less(&p[i], &p[fr->best[x]])) {
		fr->best[x] = i;
		fr_up(L, fr->pos[x]);
	}
}

/* The switch of the cheapest way in, the heap's top, leaves the heap. */
static void fr_pop_switch(struct lay *L)
{
	struct frontier *fr = &L->fr;

	if (--fr->n) {
		fr_place(L, 0, fr->heap[fr->n]);
		fr_down(L, 0);
	}
}

/* The cheapest way in (the heap's top) was refused: its switch waits
 * with its other ways in, if it has any. */
static void fr_drop_best(struct lay *L)
{
	struct frontier *fr = &L->fr;
	uint32_t s = fr->heap[0], i, b = 0;
	struct hent *p = fr->pend + L->g.adj_off[s];

	p[fr->best[s]] = p[--fr->npend[s]];
	if (!fr->npend[s]) {
		fr_pop_switch(L);
		return;
	}
	for (i = 1; i < fr->npend[s]; i++)
		if (hent_less(&p[i], &p[b]))
			b = i;
	fr->best[s] = b;
	fr_down(L, 0);
}

/* Switch s has joined: its neighbours outside the tree may join by it. */
static void relax(struct lay *L, uint32_t s)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t k;

	for (k = g->adj_off[s]; k < g->adj_off[s + 1]; k++) {
		uint32_t e = g->adj_edge[k], x = ibf_rgraph_other(g, e, s);
		uint32_t ch = chan(g, e, x);

		if (L->mark[x] != L->epoch)
			fr_offer(L, x, L->cost[s] + link_cost(L, x, e, ch),
				 ch);
	}
}

/* Seeded switches join on their escape routes, t outward: 1 done, 0 one
 * did not fit (only outside the escape VL), -1 out of memory. */
static int join_seeded(struct lay *L, struct vl *c, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t k;
	int rc;

	for (k = 1; L->nseeded && k < g->n; k++) {
		uint32_t x = L->esc_ord[k], e = L->esc_nh[x];

		if (L->seed[x] != L->seed_epoch)
			continue;
		rc = try_join(L, c, x, e, t);
		if (rc != 1)
			return rc;
		L->mark[x] = L->epoch;
		L->cost[x] = L->cost[ibf_rgraph_other(g, e, x)] +
			     link_cost(L, x, e, chan(g, e, x));
	}
	return 1;
}

/* One try at the tree toward t in VL c, seeded switches first, then a
 * Dijkstra search from t over the links by link_cost(): the cheapest
 * frontier entry joins if its one new dependency keeps the VL acyclic
 * (try_join), else it is dropped (a dependency that closes a cycle
 * keeps closing one while the VL only grows) and the switch waits for
 * another way in.  1 every switch joined, 0 an impasse (dependencies
 * taken back; the nstuck switches left in L->order), -1 out of memory. */
static int grow_once(struct lay *L, struct vl *c, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t s, left = 0;
	int rc;

	L->epoch++;
	L->ndep = 0;
	L->fr.n = 0;
	set_load_div(L);
	for (s = 0; s < g->n; s++) {
		L->nh[s] = NO_EDGE;
		L->fr.npend[s] = 0;
	}
	L->mark[t] = L->epoch;
	L->depth[t] = 0;
	L->cost[t] = 0;
	L->nstuck = 0;
	rc = join_seeded(L, c, t);
	for (s = 0; rc == 1 && s < g->n; s++)
		if (L->mark[s] == L->epoch)
			relax(L, s);
	while (rc >= 0 && L->fr.n) {
		struct hent h;
		uint32_t e;

		s = L->fr.heap[0];
		h = *fr_key(L, s);
		e = h.ch / 2;
		rc = try_join(L, c, s, e, t);
		if (rc == 1) {
			fr_pop_switch(L);
			L->mark[s] = L->epoch;
			L->cost[s] = h.cost;
			relax(L, s);
		} else {
			fr_drop_best(L);
		}
	}
	if (rc < 0) {
		take_back(L, c);
		return -1;
	}
	for (s = 0; s < g->n; s++) /* NodeGUID order, as before */
		if (L->mark[g->ord[s]] != L->epoch)
			L->order[left++] = g->ord[s];
	if (!left)
		return 1;
	take_back(L, c);
	L->nstuck = left;
	return 0;
}

/* Grow the tree toward t in VL c: 1 every switch joined, 0 an impasse
 * (dependencies taken back), -1 out of memory.  In the last VL with the
 * escape tree's turns in it, an impasse is not the end: the switches
 * stuck (L->order[0..nstuck)) are put on their escape routes, with every
 * switch on the way, and the tree is grown again around them; the turns
 * of those routes are in the VL, so at worst every switch ends on its
 * escape route, which fits. */
static int grow(struct lay *L, struct vl *c, uint32_t t)
{
	bool escape_vl = L->escape_first && c == &L->vl[L->max_vls - 1];
	int rc;

	L->seed_epoch++;
	L->nseeded = 0;
	for (;;) {
		uint32_t k, added = 0;

		rc = grow_once(L, c, t);
		if (rc != 0 || !escape_vl)
			return rc;
		if (L->esc_for != t)
			escape_routes(L, t);
		for (k = 0; k < L->nstuck; k++) {
			uint32_t x = L->order[k];

			while (x != t && L->seed[x] != L->seed_epoch) {
				L->seed[x] = L->seed_epoch;
				added++;
				x = ibf_rgraph_other(&L->g, L->esc_nh[x], x);
			}
		}
		if (!added)
			return 0;
		L->nseeded += added;
		L->seeded_switches += added;
	}
}

/* Budget mode balances traffic, not trees: every port on DLID's route
 * from a switch with endpoints counts those endpoints. */
static void tree_use(struct lay *L, uint32_t t, unsigned dlid)
{
	const ibf_fabric_t *f = L->f;
	uint32_t s, x, hops;

	for (s = 0; s < f->nswitches; s++) {
		uint32_t k = L->ep_off[s + 1] - L->ep_off[s];

		for (x = s, hops = 0; k && x != t && hops < f->nswitches;
		     hops++) {
			unsigned p = ibf_lfts_get(L->r->lfts, x, dlid);
			ibf_port_id_t pid;

			if (p == 0 || p == IBF_LFT_NO_PORT)
				break;
			pid = ibf_node_port_id(f, f->switches[x], p);
			L->use[pid] += k;
			L->use_total += k;
			x = f->switch_index[f->ports[f->ports[pid].peer].node];
		}
	}
}

/* The routes L->nh toward t into VL c if they keep it acyclic: 1 in, 0 a
 * cycle (VL left as it was), -1 out of memory. */
static int fit_routes(struct lay *L, struct vl *c, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t s;
	int rc = 1;

	L->ndep = 0;
	for (s = 0; s < g->n && rc == 1; s++) {
		uint32_t e = L->nh[s], y, a, b;

		if (e == NO_EDGE || (y = ibf_rgraph_other(g, e, s)) == t)
			continue;
		a = chan(g, e, s);
		b = chan(g, L->nh[y], y);
		if (ibf_cdg_has(&c->g, a, L->ch_port[b]))
			continue;
		rc = ibf_cdg_insert(&c->g, &L->pk, a, b, L->ch_port[b]);
		if (rc == 0) {
			L->dep_a[L->ndep] = a;
			L->dep_b[L->ndep++] = b;
			rc = 1;
		} else if (rc == 1) {
			rc = 0;
		}
	}
	if (rc != 1)
		take_back(L, c);
	return rc;
}

/* Write the grown (or escape) tree L->nh for DLID. */
static void write_tree(struct lay *L, uint32_t t, unsigned dlid,
		       unsigned host_port)
{
	const ibf_fabric_t *f = L->f;
	uint32_t s;

	ibf_lfts_set(L->r->lfts, t, dlid, (uint8_t)host_port);
	for (s = 0; s < f->nswitches; s++) {
		unsigned p;

		if (s == t || L->nh[s] == NO_EDGE)
			continue;
		p = ibf_rgraph_port(&L->g, L->nh[s], s);
		ibf_lfts_set(L->r->lfts, s, dlid, (uint8_t)p);
	}
	tree_use(L, t, dlid);
}

static void copy_tree(struct lay *L, uint32_t t, unsigned from,
		      unsigned dlid, unsigned host_port)
{
	uint32_t s;

	for (s = 0; s < L->f->nswitches; s++)
		ibf_lfts_set(L->r->lfts, s, dlid, s == t ? (uint8_t)host_port :
			     ibf_lfts_get(L->r->lfts, s, from));
	tree_use(L, t, dlid);
}

static void set_sl(struct lay *L, unsigned dlid, unsigned v)
{
	L->r->sl_by_dlid[dlid] = (uint8_t)v;
	L->vl[v].ndlids++;
}

/* DLID's tree (candidates of its layer computed) grown in the first VL
 * that takes it, else its escape route in the last VL. */
/* A way of putting DLID's routes toward t into VL c: 1 in, 0 not, -1 out
 * of memory. */
typedef int (*fit_fn)(struct lay *L, struct vl *c, uint32_t t);

/* The first VL fit() puts the routes into, max_vls if none, or -1. */
static int first_vl(struct lay *L, uint32_t t, fit_fn fit)
{
	unsigned v;
	int rc;

	for (v = 0; v < L->max_vls; v++) {
		rc = fit(L, &L->vl[v], t);
		if (rc)
			return rc < 0 ? -1 : (int)v;
	}
	return (int)L->max_vls;
}

/* Of the links from x to y in dimension d, the one whose port at y
 * carries the least traffic so far (the first on ties). */
static uint32_t dor_link(struct lay *L, uint32_t x, uint32_t y, unsigned d)
{
	const ibf_rgraph_t *g = &L->g;
	const ibf_fabric_t *f = L->f;
	uint32_t k, best = NO_EDGE, bu = 0;

	for (k = g->adj_off[y]; k < g->adj_off[y + 1]; k++) {
		uint32_t e = g->adj_edge[k], u;

		if (L->edim[e] != d || ibf_rgraph_other(g, e, y) != x)
			continue;
		u = L->use[ibf_node_port_id(f, f->switches[y],
					    ibf_rgraph_port(g, e, y))];
		if (best == NO_EDGE || u < bu) {
			best = e;
			bu = u;
		}
	}
	return best;
}

/* The dimension-order tree toward t into L->nh (HyperX): a route fixes
 * the lowest differing dimension first, so the tree grows from t by the
 * highest dimension first.  Every dependency then leads from a lower
 * dimension to a higher one: all such trees together stay acyclic, with
 * minimal routes.  false if the tree is not complete and minimal (the
 * labels do not describe the fabric), L->nh then undefined. */
static bool dor_tree(struct lay *L, uint32_t t)
{
	const ibf_rgraph_t *g = &L->g;
	uint32_t n = 0, k, i, s;
	unsigned d;

	L->epoch++;
	for (s = 0; s < g->n; s++)
		L->nh[s] = NO_EDGE;
	L->mark[t] = L->epoch;
	L->depth[t] = 0;
	L->order[n++] = t;
	for (d = L->ndims; d-- > 0;) {
		uint32_t m = n;

		for (i = 0; i < m; i++) {
			uint32_t x = L->order[i];

			for (k = g->adj_off[x]; k < g->adj_off[x + 1]; k++) {
				uint32_t e = g->adj_edge[k];
				uint32_t y = ibf_rgraph_other(g, e, x);

				if (L->edim[e] != d || L->mark[y] == L->epoch)
					continue;
				L->mark[y] = L->epoch;
				L->nh[y] = dor_link(L, x, y, d);
				L->depth[y] = L->depth[x] + 1;
				L->order[n++] = y;
			}
		}
	}
	if (n != g->n)
		return false;
	ibf_rgraph_bfs(g, NULL, t, L->dist, L->queue2);
	for (s = 0; s < g->n; s++)
		if (L->depth[s] != L->dist[s])
			return false;
	return true;
}

static ibf_status_t route_budget(struct lay *L, uint32_t t, unsigned dlid,
				 unsigned host_port, ibf_err_t *err)
{
	int v = (int)L->max_vls;

	if (L->ndims && L->cur_layer == 0 && dor_tree(L, t)) {
		v = first_vl(L, t, fit_routes);
		L->dor_trees += v < (int)L->max_vls;
	}
	if (v == (int)L->max_vls) {
		if (L->diameter2 && L->cur_layer == 0)
			ibf_rgraph_bfs(&L->g, NULL, t, L->dist, L->queue2);
		v = first_vl(L, t, grow);
	}

	if (v == (int)L->max_vls) {
		if (L->esc_for != t)
			escape_routes(L, t);
		memcpy(L->nh, L->esc_nh, L->g.n * sizeof(*L->nh));
		v = first_vl(L, t, fit_routes);
		L->escape_dlids++;
	}
	if (v < 0)
		return nomem(err);
	if (v == (int)L->max_vls) {
		/* only without the escape dependencies put first */
		L->impasse = true;
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "layered: DLID "
				   "%u has no route that keeps a VL acyclic",
				   dlid);
	}
	write_tree(L, t, dlid, host_port);
	set_sl(L, dlid, (unsigned)v);
	return IBF_OK;
}

/* The layer of a DLID: its LID offset mod n; switch LIDs are layer 0. */
static unsigned dlid_layer(const struct lay *L, unsigned dlid)
{
	const ibf_port_t *p = &L->f->ports[ibf_fabric_lid_owner(L->f, dlid)];

	return ibf_node_is_switch(L->f, p->node) ? 0
						 : (dlid - p->lid) % L->n;
}

/* Layers 1..n-1 are up/down, acyclic by construction: a whole layer goes
 * into an existing VL if it stays acyclic there, else into a new one.
 * Returns 0, 1 (cycle: VL rolled back), -1 (no memory). */
static int push_dep(uint32_t **all, uint32_t *n, uint32_t *cap, uint32_t a,
		    uint32_t b)
{
	uint32_t *v = ibf_array_grow32(*all, cap, (uint64_t)*n + 2, sizeof(*v));

	if (!v)
		return -1;
	*all = v;
	v[(*n)++] = a;
	v[(*n)++] = b;
	return 0;
}

static int try_layer_vl(struct lay *L, unsigned i, struct vl *c,
			uint32_t *done)
{
	const ibf_fabric_t *f = L->f;
	uint32_t *all = NULL, nall = 0, cap = 0;
	unsigned dlid;
	uint32_t k;
	int rc = 0;

	for (dlid = 1; dlid <= f->lid_top && !rc; dlid++) {
		if (ibf_fabric_lid_owner(f, dlid) == IBF_NO_ID ||
		    dlid_layer(L, dlid) != i)
			continue;
		collect_deps(L, dlid);
		rc = try_vl(L, c, done);
		for (k = 0; !rc && k < c->ndeps_last; k++)
			rc = push_dep(&all, &nall, &cap, L->dep_a[done[k]],
				      L->dep_b[done[k]]);
	}
	if (rc) { /* undo the DLIDs already in, newest first */
		for (k = nall; k >= 2; k -= 2)
			ibf_cdg_remove_newest(&c->g, all[k - 2], all[k - 1],
					      L->ch_port[all[k - 1]]);
	}
	free(all);
	return rc;
}

static ibf_status_t place_layer(struct lay *L, unsigned i, uint32_t *done,
				ibf_err_t *err)
{
	const ibf_fabric_t *f = L->f;
	unsigned v, dlid;
	int rc;

	for (v = 0; v <= L->nvl && v < L->max_vls; v++) {
		if (v == L->nvl && open_vl(L))
			return nomem(err);
		rc = try_layer_vl(L, i, &L->vl[v], done);
		if (rc < 0)
			return nomem(err);
		if (rc == 0)
			break;
	}
	if (v == L->max_vls || v > L->nvl)
		return too_many(L, "layer", i, err);
	for (dlid = 1; dlid <= f->lid_top; dlid++)
		if (ibf_fabric_lid_owner(f, dlid) != IBF_NO_ID &&
		    dlid_layer(L, dlid) == i) {
			L->r->sl_by_dlid[dlid] = (uint8_t)v;
			L->vl[v].ndlids++;
		}
	return IBF_OK;
}

static ibf_status_t assign_sls(struct lay *L, ibf_err_t *err)
{
	const ibf_fabric_t *f = L->f;
	uint32_t *done;
	ibf_status_t st = IBF_OK;
	unsigned dlid, i;

	L->r->sl_by_dlid = calloc((size_t)f->lid_top + 1, 1);
	done = malloc(((size_t)f->nswitches + 1) * sizeof(*done));
	if (!L->r->sl_by_dlid || !done || alloc_channels(L)) {
		free(done);
		return nomem(err);
	}
	for (dlid = 1; dlid <= f->lid_top && st == IBF_OK; dlid++)
		if (ibf_fabric_lid_owner(f, dlid) != IBF_NO_ID &&
		    dlid_layer(L, dlid) == 0)
			st = place_dlid(L, dlid, done, err);
	for (i = 1; i < L->n && st == IBF_OK; i++)
		st = place_layer(L, i, done, err);
	free(done);
	L->r->nsls = L->nvl ? L->nvl : 1;
	return st;
}

/* ---- report ------------------------------------------------------------ */

static json_object *u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *hist_json(const uint64_t *h)
{
	json_object *a = json_object_new_array();
	unsigned i, last = 0;

	for (i = 0; i < IBF_DIVERSITY_HIST; i++)
		if (h[i])
			last = i + 1;
	for (i = 0; i < last; i++)
		json_object_array_add(a, u64(h[i]));
	return a;
}

/* Representative DLIDs for the diversity metrics: for switch t and layer
 * i, LID offset i of the first endpoint on t. */
static unsigned *diversity_reps(const struct lay *L)
{
	const ibf_fabric_t *f = L->f;
	unsigned *rep = calloc((size_t)f->nswitches * L->n + 1,
			       sizeof(*rep));
	uint32_t t;
	unsigned i;

	if (!rep)
		return NULL;
	for (t = 0; t < f->nswitches; t++)
		if (L->ep_off[t] < L->ep_off[t + 1])
			for (i = 0; i < L->n; i++)
				rep[(size_t)t * L->n + i] =
					f->ports[L->ep[L->ep_off[t]]].lid + i;
	return rep;
}

static json_object *diversity_json(const ibf_diversity_t *d)
{
	json_object *o = json_object_new_object();
	double np = d->pairs ? (double)d->pairs : 1.0;

	json_object_object_add(o, "router_pairs", u64(d->pairs));
	json_object_object_add(o, "broken_pairs", u64(d->broken));
	json_object_object_add(o, "distinct_paths_mean",
		json_object_new_double((double)d->distinct_sum / np));
	json_object_object_add(o, "distinct_paths_min",
			       u64(d->distinct_min));
	json_object_object_add(o, "distinct_paths_hist",
			       hist_json(d->distinct_hist));
	json_object_object_add(o, "cdp_mean",
		json_object_new_double((double)d->cdp_sum / np));
	json_object_object_add(o, "cdp_min", u64(d->cdp_min));
	json_object_object_add(o, "cdp_hist", hist_json(d->cdp_hist));
	json_object_object_add(o, "pairs_cdp_ge3", u64(d->pairs_cdp_ge3));
	json_object_object_add(o, "share_cdp_ge3",
		json_object_new_double(ibf_diversity_share_ge3(d)));
	return o;
}

static const char *const layer_keys[3] = { "layer", "links",
					     "links_added_back" };
static const char *const vl_keys[3] = { "vl", "dlids", "dependencies" };

/* Two figures of row i of a per-layer or per-VL table. */
typedef void (*row_fn)(const struct lay *L, unsigned i, uint64_t v[2]);

static void layer_row(const struct lay *L, unsigned i, uint64_t v[2])
{
	v[0] = L->ly.nin[i];
	v[1] = L->ly.repaired[i];
}

static void vl_row(const struct lay *L, unsigned i, uint64_t v[2])
{
	v[0] = L->vl[i].ndlids;
	v[1] = L->vl[i].g.ndeps;
}

/* [{key[0]: i, key[1]: v0, key[2]: v1}, ...] for i < n. */
static json_object *rows_json(const struct lay *L, unsigned n,
			      const char *const key[3], row_fn row)
{
	json_object *a = json_object_new_array();
	uint64_t v[2];
	unsigned i;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		row(L, i, v);
		json_object_object_add(o, key[0], u64(i));
		json_object_object_add(o, key[1], u64(v[0]));
		json_object_object_add(o, key[2], u64(v[1]));
		json_object_array_add(a, o);
	}
	return a;
}

static ibf_status_t report(struct lay *L, const ibf_route_opts_t *o,
			   ibf_err_t *err)
{
	json_object *r = json_object_new_object();
	ibf_diversity_t d;
	unsigned *rep = diversity_reps(L);
	ibf_status_t st;

	if (!rep || !r) {
		free(rep);
		json_object_put(r);
		return nomem(err);
	}
	st = ibf_diversity_compute(L->r->lfts, L->n, rep, &d, err);
	free(rep);
	if (st) {
		json_object_put(r);
		return st;
	}
	json_object_object_add(r, "layers", u64(L->n));
	json_object_object_add(r, "method", json_object_new_string(
		o->method == IBF_LAYERS_OVERLAP ? "overlap" : "random"));
	json_object_object_add(r, "density",
			       json_object_new_double(L->density));
	json_object_object_add(r, "seed", u64(o->seed));
	json_object_object_add(r, "offset_to_layer",
			       json_object_new_string("offset mod layers"));
	json_object_object_add(r, "router_links", u64(L->g.nedges));
	json_object_object_add(r, "per_layer", rows_json(L, L->n,
			       layer_keys, layer_row));
	json_object_object_add(r, "fallback_pairs", u64(L->fallback_pairs));
	json_object_object_add(r, "sl_depends_on", json_object_new_string(
		"dlid"));
	json_object_object_add(r, "vls_used", u64(L->r->nsls));
	json_object_object_add(r, "vl_budget", u64(L->max_vls));
	json_object_object_add(r, "placement", json_object_new_string(
		L->budget ? "dlid trees, escape trees" : "whole layers"));
	json_object_object_add(r, "whole_layers_overflowed",
			       json_object_new_boolean(L->budget_fallback));
	json_object_object_add(r, "escape_dlids", u64(L->escape_dlids));
	json_object_object_add(r, "escape_first",
			       json_object_new_boolean(L->escape_first));
	json_object_object_add(r, "switches_on_escape_routes",
			       u64(L->seeded_switches));
	json_object_object_add(r, "hyperx_dims", u64(L->ndims));
	json_object_object_add(r, "slimfly_rule",
			       json_object_new_boolean(L->diameter2));
	json_object_object_add(r, "dimension_order_trees",
			       u64(L->dor_trees));
	json_object_object_add(r, "per_vl", rows_json(L, L->nvl,
			       vl_keys, vl_row));
	json_object_object_add(r, "diversity", diversity_json(&d));
	ibf_route_report_set(L->r, r);
	return IBF_OK;
}

/* ---- engine ------------------------------------------------------------ */

static void lay_free(struct lay *L)
{
	unsigned v;

	for (v = 0; v < L->nvl; v++)
		ibf_cdg_free(&L->vl[v].g);
	ibf_layers_free(&L->ly);
	ibf_rgraph_free(&L->g);
	free(L->dist);
	free(L->queue);
	free(L->queue2);
	free(L->down);
	free(L->cand_off);
	free(L->cand);
	free(L->use);
	free(L->edim);
	free(L->ep_off);
	free(L->ep);
	free(L->ch_of_port);
	free(L->ch_port);
	ibf_cdg_scratch_free(&L->pk);
	free(L->tree);
	free(L->mark);
	free(L->nh);
	free(L->depth);
	free(L->cost);
	free(L->fr.pend);
	free(L->fr.npend);
	free(L->fr.best);
	free(L->fr.heap);
	free(L->fr.pos);
	free(L->ch_pid);
	free(L->esc_nh);
	free(L->esc_ord);
	free(L->seed);
	free(L->order);
	free(L->dep_a);
	free(L->dep_b);
	free(L->smark);
}

/* Router graph, layers and routing state. */
static ibf_status_t setup(struct lay *L, const ibf_route_opts_t *o,
			  ibf_err_t *err)
{
	ibf_layers_opts_t lo = { L->n, L->density, o->method, o->seed };
	ibf_status_t st;

	st = ibf_rgraph_build(L->f, &L->g, err);
	if (st)
		return st;
	st = ibf_layers_build(&L->g, &lo, &L->ly, err);
	if (st)
		return st;
	if (L->ly.ncomponents > 1)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "layered: the switches form %u separate "
				   "parts; routing needs them connected",
				   L->ly.ncomponents);
	return alloc_routing(L) ? nomem(err) : IBF_OK;
}

/* SLs as the applications see them: the highest VL in use + 1. */
static void count_sls(struct lay *L)
{
	unsigned v;

	L->r->nsls = 1;
	for (v = 0; v < L->nvl; v++)
		if (L->vl[v].ndlids)
			L->r->nsls = v + 1;
}

/* A HyperX: layer 0 in dimension order (dor_tree).  0, or -1 out of
 * memory. */
static int hyperx(struct lay *L)
{
	int rc;

	L->edim = malloc((size_t)L->g.nedges + 1);
	if (!L->edim)
		return -1;
	rc = ibf_rgraph_hamming(&L->g, L->edim, &L->ndims);
	if (rc != 1)
		L->ndims = 0;
	return rc < 0 ? -1 : 0;
}

/* Every DLID placed as it is routed, within max_vls VLs (see the top of
 * the file); destinations outer, layers inner, so no layer is favoured
 * by coming first. */
static ibf_status_t build_budget(struct lay *L, ibf_err_t *err)
{
	const ibf_fabric_t *f = L->f;
	size_t ns = (size_t)f->nswitches + 1;
	ibf_status_t st = IBF_OK;
	uint32_t ti;
	unsigned i;

	L->budget = true;
	L->tree = malloc((size_t)L->g.nedges + 1);
	L->mark = calloc(ns, sizeof(*L->mark));
	L->nh = malloc(ns * sizeof(*L->nh));
	L->depth = malloc(ns * sizeof(*L->depth));
	L->cost = malloc(ns * sizeof(*L->cost));
	L->fr.pend = malloc((2 * (size_t)L->g.nedges + 1) *
			    sizeof(*L->fr.pend));
	L->fr.npend = malloc(ns * sizeof(*L->fr.npend));
	L->fr.best = malloc(ns * sizeof(*L->fr.best));
	L->fr.heap = malloc(ns * sizeof(*L->fr.heap));
	L->fr.pos = malloc(ns * sizeof(*L->fr.pos));
	L->esc_nh = malloc(ns * sizeof(*L->esc_nh));
	L->esc_ord = malloc(ns * sizeof(*L->esc_ord));
	L->seed = calloc(ns, sizeof(*L->seed));
	L->esc_for = UINT32_MAX;
	L->order = malloc(ns * sizeof(*L->order));
	L->r->sl_by_dlid = calloc((size_t)f->lid_top + 1, 1);
	if (!L->tree || !L->mark || !L->nh || !L->depth || !L->cost ||
	    !L->fr.pend || !L->fr.npend || !L->fr.best || !L->fr.heap ||
	    !L->fr.pos || !L->esc_nh ||
	    !L->esc_ord || !L->seed || !L->order ||
	    !L->r->sl_by_dlid || alloc_channels(L))
		return nomem(err);
	while (L->nvl < L->max_vls)
		if (open_vl(L))
			return nomem(err);
	if (hyperx(L) < 0)
		return nomem(err);
	escape_tree(L);
	if (L->escape_first)
		st = insert_escape(L, err);
	/* the dimension-order trees first: the other layers' trees bend
	 * around their dependencies, not they around the others' */
	for (ti = 0; ti < L->g.n && L->ndims && st == IBF_OK; ti++)
		st = route_dest(L, 0, L->g.ord[ti], err);
	for (ti = 0; ti < L->g.n && st == IBF_OK; ti++)
		for (i = L->ndims ? 1 : 0; i < L->n && st == IBF_OK; i++)
			st = route_dest(L, i, L->g.ord[ti], err);
	count_sls(L);
	return st;
}

/* Whole layers into VLs (the applications use the routes' SLs). */
static ibf_status_t build_layers(struct lay *L, ibf_err_t *err)
{
	unsigned i;

	for (i = 0; i < L->n; i++)
		route_layer(L, i);
	return assign_sls(L, err);
}

/* How a run places the routes: whole layers, or every DLID within the
 * budget, optimistically or with the escape dependencies put first. */
enum attempt { WHOLE_LAYERS, BUDGET, BUDGET_ESCAPE_FIRST, DONE };

static ibf_status_t run_once(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			     ibf_routing_t *r, enum attempt *how,
			     ibf_err_t *err)
{
	struct lay L;
	ibf_status_t st;

	memset(&L, 0, sizeof(L));
	L.f = f;
	L.r = r;
	L.budget_fallback = *how != WHOLE_LAYERS;
	L.escape_first = *how == BUDGET_ESCAPE_FIRST;
	st = check_opts(&L, o, err);
	if (st == IBF_OK)
		st = setup(&L, o, err);
	if (st == IBF_OK && *how == WHOLE_LAYERS && L.max_vls == 1)
		*how = BUDGET;
	L.budget_fallback = L.budget_fallback && L.max_vls > 1;
	if (st == IBF_OK)
		st = *how == WHOLE_LAYERS ? build_layers(&L, err)
					  : build_budget(&L, err);
	if (st == IBF_OK)
		st = report(&L, o, err);
	*how = L.overflowed ? BUDGET : L.impasse && !L.escape_first ?
	       BUDGET_ESCAPE_FIRST : DONE;
	lay_free(&L);
	if (st) {
		free(r->sl_by_dlid);
		r->sl_by_dlid = NULL;
		ibf_route_report_set(r, NULL);
		r->nsls = 0;
	}
	return st;
}

/* Whole layers when they fit the budget (more than one VL), else every
 * DLID within it, first without the escape dependencies (they bend
 * routes toward the escape tree), and with them if a DLID then finds no
 * acyclic route: each a fresh start on cleared tables. */
static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	static const ibf_route_opts_t defaults;
	enum attempt how = WHOLE_LAYERS;
	ibf_status_t st;
	ibf_lfts_t *fresh;

	if (!o)
		o = &defaults;
	for (;;) {
		st = run_once(f, o, r, &how, err);
		if (how == DONE)
			return st;
		if (ibf_lfts_create(f, &fresh) != IBF_OK)
			return nomem(err);
		ibf_lfts_destroy(r->lfts);
		r->lfts = fresh;
		ibf_err_clear(err);
	}
}

const ibf_route_engine_t ibf_route_engine_layered = {
	"layered",
	"FatPaths layered routing on the LID offsets, deadlock-free within "
	"a VL budget",
	run,
	IBF_ROUTE_USES_SLS | IBF_ROUTE_LAYERS,
};
