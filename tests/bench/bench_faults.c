/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The fault campaign: dmodk on degraded fat trees against the baselines
 * and the optimum (docs/benchmarks.md, "Degraded fat trees").
 *
 *   bench_faults campaign SPEC links|hosts PCT N [--seed S]
 *                [--patterns LIST] [--engines LIST] [--no-opt]
 *                [--netdir DIR] [--verbose]
 *     N scenarios: PCT% of the inter-switch links (links) or of the hosts
 *     (hosts) of the generated tree SPEC fail at random (at least one).
 *     Every scenario is routed offline by each engine (default dmodk,
 *     minhop) with the LIDs of the complete tree, and judged here:
 *      - valid: every pair traced by this file's own walk is delivered or
 *        stops at a switch without an entry; no loop, dead end or wrong
 *        host; dmodk/uapr routes are up*-down* (levels of the complete
 *        tree) and leave unrouted exactly the pairs an independent BFS
 *        over (node, may-still-go-up) states finds without an up*-down*
 *        path;
 *      - index: LFTI throughput index of each pattern (aggregate MMF rate
 *        / crossbar aggregate over its instances; unrouted pairs get 0),
 *        ranks on the dmodk host order of the degraded tree;
 *      - opt: the MMF optimum over all shortest up*-down* paths of the
 *        degraded tree (iterated LP with GLPK, Nace-Pioro dual test);
 *      - changed: LFT entries (switch, LID in use) that differ from the
 *        same engine's tables on the complete tree, per failed element.
 *     --netdir writes healthy.net and scen-NNN.net (ibsim) and
 *     scen-NNN.nfaults for the OpenSM part of tests/bench/bench_faults.sh.
 *
 *   bench_faults files [--seed S] [--no-opt] HEALTHY_TOPO TOPO ORDER PATTERNS
 *                NAME=HLFTS,LFTS...
 *     The same judgement of tables read back from OpenSM on ibsim: TOPO
 *     (ibnetdiscover of the degraded fabric) with each engine's tables
 *     LFTS, HLFTS its tables on the complete fabric HEALTHY_TOPO (same
 *     LIDs: the sweeps share OpenSM's guid2lid), ranks in ORDER (host
 *     list).  Prints one line per engine and one for the optimum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glpk.h>

#include <ibflow/gen.h>
#include <ibflow/hosts.h>
#include <ibflow/lfts_io.h>
#include <ibflow/mmf.h>
#include <ibflow/mmf_opt.h>
#include <ibflow/pgft.h>
#include <ibflow/patterns.h>
#include <ibflow/route.h>
#include <ibflow/topo_io.h>
#include <ibflow/trace.h>

#define MAX_ENG 8
#define MAX_PAT 8
#define MAX_HOPS 64

static void die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_faults: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- levels of the complete tree ---------------------------------------- */

/* BFS distance from the CAs on the complete tree, stored by NodeGUID
 * lookups into the degraded one. */
static unsigned *levels(const ibf_fabric_t *f)
{
	unsigned *lv = malloc(sizeof(*lv) * f->nnodes);
	ibf_node_id_t *q = malloc(sizeof(*q) * f->nnodes), n;
	uint32_t qh = 0, qt = 0;

	for (n = 0; n < f->nnodes; n++) {
		lv[n] = UINT32_MAX;
		if (!ibf_node_is_switch(f, n)) {
			lv[n] = 0;
			q[qt++] = n;
		}
	}
	while (qh < qt) {
		ibf_node_id_t a = q[qh++];
		unsigned p;

		for (p = 1; p <= f->nodes[a].nports; p++) {
			ibf_port_id_t pe = ibf_node_port(f, a, p)->peer;
			ibf_node_id_t b;

			if (pe == IBF_NO_ID)
				continue;
			b = f->ports[pe].node;
			if (lv[b] == UINT32_MAX) {
				lv[b] = lv[a] + 1;
				q[qt++] = b;
			}
		}
	}
	free(q);
	return lv;
}

static unsigned *map_levels(const ibf_fabric_t *full, const unsigned *lf,
			    const ibf_fabric_t *d)
{
	unsigned *lv = malloc(sizeof(*lv) * d->nnodes);
	ibf_node_id_t n, m;

	for (n = 0; n < d->nnodes; n++) {
		m = ibf_fabric_node_by_guid(full, d->nodes[n].guid);
		if (m == IBF_NO_ID) {
			fprintf(stderr, "bench_faults: node 0x%llx not in the "
				"complete tree\n",
				(unsigned long long)d->nodes[n].guid);
			exit(2);
		}
		lv[n] = lf[m];
	}
	return lv;
}

/* ---- degraded copies ------------------------------------------------------ */

/* Copy of g without the links cut[] (indices of g's ports, one end) and
 * the nodes drop[]; nodes not connected to the first remaining host are
 * left out too (OpenSM would not see them).  Same GUIDs and LIDs. */
static ibf_fabric_t *degrade(const ibf_fabric_t *g, const uint8_t *cutp,
			     const uint8_t *drop)
{
	ibf_fabric_t *f;
	ibf_err_t err;
	ibf_finalize_opts_t fo = { g->lmc };
	ibf_node_id_t n, *map = malloc(sizeof(*map) * g->nnodes), id;
	ibf_node_id_t *q = malloc(sizeof(*q) * g->nnodes);
	uint8_t *keep = calloc(g->nnodes, 1);
	uint32_t qh = 0, qt = 0;
	unsigned p;

	for (n = 0; n < g->nnodes && qt == 0; n++)
		if (!ibf_node_is_switch(g, n) && !drop[n]) {
			keep[n] = 1;
			q[qt++] = n;
		}
	while (qh < qt) {
		ibf_node_id_t a = q[qh++];

		for (p = 1; p <= g->nodes[a].nports; p++) {
			ibf_port_id_t pi = ibf_node_port_id(g, a, p);
			ibf_port_id_t pe = g->ports[pi].peer;
			ibf_node_id_t b;

			if (pe == IBF_NO_ID || cutp[pi] || cutp[pe])
				continue;
			b = g->ports[pe].node;
			if (drop[b] || keep[b])
				continue;
			keep[b] = 1;
			q[qt++] = b;
		}
	}
	if (ibf_fabric_create(&f) != IBF_OK)
		die("create", NULL);
	for (n = 0; n < g->nnodes; n++) {
		const ibf_node_t *nd = &g->nodes[n];

		map[n] = IBF_NO_ID;
		if (!keep[n])
			continue;
		if (ibf_fabric_add_node(f, nd->type, nd->guid,
					ibf_node_desc(g, n), nd->nports, &id,
					&err) != IBF_OK)
			die("add_node", &err);
		map[n] = id;
		for (p = 0; p <= nd->nports; p++) {
			const ibf_port_t *pp = ibf_node_port(g, n, p);
			bool sw = nd->type == IBF_NODE_SWITCH;

			if ((sw && p) || (!sw && !p))
				continue;
			if (ibf_fabric_set_port(f, id, p, pp->guid, pp->lid,
						pp->lmc, &err) != IBF_OK)
				die("set_port", &err);
		}
	}
	for (n = 0; n < g->nnodes; n++)
		for (p = 1; p <= g->nodes[n].nports; p++) {
			ibf_port_id_t pi = ibf_node_port_id(g, n, p);
			const ibf_port_t *a = &g->ports[pi], *b;

			if (a->peer == IBF_NO_ID || a->peer < pi ||
			    cutp[pi] || cutp[a->peer])
				continue;
			b = &g->ports[a->peer];
			if (map[n] == IBF_NO_ID || map[b->node] == IBF_NO_ID)
				continue;
			if (ibf_fabric_link(f, map[n], p, map[b->node], b->num,
					    a->width, a->speed, &err) !=
			    IBF_OK)
				die("link", &err);
		}
	if (ibf_fabric_finalize(f, &fo, &err) != IBF_OK)
		die("finalize", &err);
	free(map);
	free(q);
	free(keep);
	return f;
}

/* ---- judging a routing ---------------------------------------------------- */

typedef struct judge {
	uint64_t pairs, delivered, unrouted, bad, not_updown, too_long;
} judge_t;

/* Shortest up*-down* hop count from endpoint src to the node dst (BFS
 * over (node, may still go up) states), UINT32_MAX if none. */
static unsigned updown_dist(const ibf_fabric_t *f, const unsigned *lv,
			    ibf_port_id_t src, ibf_node_id_t dst,
			    unsigned *d, uint32_t *q)
{
	uint32_t nn = f->nnodes, qh = 0, qt = 0, i;
	unsigned res = UINT32_MAX;

	for (i = 0; i < 2 * nn; i++)
		d[i] = UINT32_MAX;
	i = f->ports[f->ports[src].peer].node;
	d[2 * i] = 1;
	q[qt++] = 2 * i;
	while (qh < qt && res == UINT32_MAX) {
		uint32_t st = q[qh++], a = st / 2, up = !(st & 1);
		unsigned p;

		for (p = 1; p <= f->nodes[a].nports; p++) {
			ibf_port_id_t pe = ibf_node_port(f, a, p)->peer;
			uint32_t b, ns;

			if (pe == IBF_NO_ID)
				continue;
			b = f->ports[pe].node;
			if (!ibf_node_is_switch(f, b)) {
				if (b == dst && pe != src)
					res = d[st] + 1;
				continue;
			}
			if (lv[b] > lv[a] && up)
				ns = 2 * b;
			else if (lv[b] < lv[a])
				ns = 2 * b + 1;
			else
				continue;
			if (d[ns] == UINT32_MAX) {
				d[ns] = d[st] + 1;
				q[qt++] = ns;
			}
		}
	}
	return res;
}

/* Hosts pairs (endpoint, endpoint base LID) traced by this file's walk. */
static judge_t judge(const ibf_fabric_t *f, const ibf_lfts_t *l,
		     const unsigned *lv, bool updown)
{
	judge_t j = { 0 };
	unsigned *d = malloc(sizeof(*d) * 2 * f->nnodes);
	uint32_t *q = malloc(sizeof(*q) * 2 * f->nnodes);
	uint32_t a, b;

	for (a = 0; a < f->nendpoints; a++)
		for (b = 0; b < f->nendpoints; b++) {
			ibf_port_id_t s = f->endpoints[a], t = f->endpoints[b];
			unsigned dlid = f->ports[t].lid, hops = 0, want;
			ibf_port_id_t out = s;
			unsigned prev = 0;
			bool down = false, ok = true, done = false;

			if (a == b)
				continue;
			j.pairs++;
			while (!done) {
				ibf_port_id_t in = f->ports[out].peer;
				ibf_node_id_t node = f->ports[in].node;
				unsigned e;

				if (lv[node] < prev)
					down = true;
				else if (lv[node] > prev && down)
					ok = false;
				prev = lv[node];
				if (!ibf_node_is_switch(f, node)) {
					if (in == t)
						j.delivered++;
					else
						j.bad++;
					done = true;
					break;
				}
				e = l->port[(size_t)f->switch_index[node] *
					    l->stride + dlid];
				if (e == IBF_LFT_NO_PORT) {
					j.unrouted++;
					done = true;
					ok = true;
					hops = UINT32_MAX;
					break;
				}
				if (e == 0 || e > f->nodes[node].nports ||
				    ++hops > MAX_HOPS) {
					j.bad++;
					done = true;
					break;
				}
				out = ibf_node_port_id(f, node, e);
				if (f->ports[out].peer == IBF_NO_ID) {
					j.bad++;
					done = true;
				}
			}
			if (!updown)
				continue;
			if (!ok)
				j.not_updown++;
			want = updown_dist(f, lv, s, f->ports[t].node, d, q);
			/* unrouted exactly when no up*-down* path exists */
			if ((want == UINT32_MAX) != (hops == UINT32_MAX))
				j.bad++;
			else if (want != UINT32_MAX && hops + 1 != want)
				j.too_long++;
		}
	free(d);
	free(q);
	return j;
}

/* Entries (switch, LID in use in d) that differ between the tables lh on
 * the complete tree h and ld on d, matched by NodeGUID. */
static uint64_t changed(const ibf_fabric_t *h, const ibf_lfts_t *lh,
			const ibf_fabric_t *d, const ibf_lfts_t *ld)
{
	uint64_t c = 0;
	uint32_t s, lid;

	for (s = 0; s < d->nswitches; s++) {
		ibf_node_id_t m = ibf_fabric_node_by_guid(h,
					d->nodes[d->switches[s]].guid);
		uint32_t hs;

		if (m == IBF_NO_ID)
			continue;
		hs = h->switch_index[m];
		for (lid = 1; lid <= d->lid_top; lid++)
			if (ibf_fabric_lid_owner(d, lid) != IBF_NO_ID &&
			    (lid > h->lid_top ||
			     ibf_lfts_get(lh, hs, lid) !=
			     ibf_lfts_get(ld, s, lid)))
				c++;
	}
	return c;
}

/* ---- MMF of a routing, unrouted pairs at rate 0 ----------------------------- */

static double routing_aggregate(const ibf_lfts_t *l, const ibf_traffic_t *tr)
{
	ibf_traffic_t ok = { 0 };
	ibf_mmf_problem_t p;
	ibf_mmf_summary_t sum;
	ibf_err_t err;
	double *rate, agg;
	uint32_t i;

	ok.flows = malloc(sizeof(*ok.flows) * (tr->n + 1));
	for (i = 0; i < tr->n; i++) {
		const ibf_flow_t *fl = &tr->flows[i];
		unsigned nh;

		if (ibf_trace(l, fl->src, l->fabric->ports[fl->dst].lid, NULL,
			      0, &nh) == IBF_TRACE_OK)
			ok.flows[ok.n++] = *fl;
	}
	if (!ok.n) {
		free(ok.flows);
		return 0;
	}
	if (ibf_flowpaths_build(l, &ok, IBF_FLOWPATHS_SINGLE, &p, &err))
		die("flowpaths", &err);
	rate = malloc(sizeof(*rate) * ok.n);
	if (ibf_mmf_solve(&p, rate, NULL, &err) ||
	    ibf_mmf_summarize(&p, rate, &sum, &err))
		die("mmf", &err);
	agg = sum.aggregate;
	free(rate);
	ibf_mmf_problem_free(&p);
	free(ok.flows);
	return agg;
}

static double crossbar_aggregate(const ibf_fabric_t *f,
				 const ibf_traffic_t *tr)
{
	ibf_mmf_problem_t p;
	ibf_mmf_summary_t sum;
	ibf_err_t err;
	double *rate = malloc(sizeof(*rate) * (tr->n + 1)), agg;

	if (ibf_flowpaths_crossbar(f, tr, &p, &err) ||
	    ibf_mmf_solve(&p, rate, NULL, &err) ||
	    ibf_mmf_summarize(&p, rate, &sum, &err))
		die("crossbar", &err);
	agg = sum.aggregate;
	free(rate);
	ibf_mmf_problem_free(&p);
	return agg;
}

/* ---- the optimum over shortest up*-down* paths (LP) ------------------------ */

typedef struct paths {
	uint32_t n, cap;        /* paths */
	uint32_t *flow;         /* [n] */
	uint32_t *first;        /* [n + 1] into link[] */
	uint32_t nl, lcap;
	uint32_t *link;         /* egress port ids */
} paths_t;

typedef struct topo_ctx {
	const ibf_fabric_t *f;
	const unsigned *lv;
	uint8_t *downleaf;      /* [node * nleafslots]: reaches leaf down */
	uint32_t *leafidx;      /* node -> leaf index or UINT32_MAX */
	uint32_t nleaves;
} topo_ctx_t;

static bool reach_down(const topo_ctx_t *c, ibf_node_id_t n,
		       ibf_node_id_t leaf)
{
	return c->downleaf[(size_t)n * c->nleaves + c->leafidx[leaf]];
}

static void topo_prepare(topo_ctx_t *c, const ibf_fabric_t *f,
			 const unsigned *lv)
{
	unsigned maxl = 0, l, p;
	ibf_node_id_t n;

	c->f = f;
	c->lv = lv;
	c->leafidx = malloc(sizeof(*c->leafidx) * f->nnodes);
	c->nleaves = 0;
	for (n = 0; n < f->nnodes; n++) {
		c->leafidx[n] = lv[n] == 1 ? c->nleaves++ : UINT32_MAX;
		if (lv[n] > maxl)
			maxl = lv[n];
	}
	c->downleaf = calloc((size_t)f->nnodes * c->nleaves + 1, 1);
	for (n = 0; n < f->nnodes; n++)
		if (lv[n] == 1)
			c->downleaf[(size_t)n * c->nleaves + c->leafidx[n]] =
				1;
	for (l = 2; l <= maxl; l++)
		for (n = 0; n < f->nnodes; n++) {
			if (lv[n] != l)
				continue;
			for (p = 1; p <= f->nodes[n].nports; p++) {
				ibf_port_id_t pe = ibf_node_port(f, n, p)->peer;
				ibf_node_id_t b;
				uint32_t k;

				if (pe == IBF_NO_ID)
					continue;
				b = f->ports[pe].node;
				if (lv[b] != l - 1)
					continue;
				for (k = 0; k < c->nleaves; k++)
					c->downleaf[(size_t)n * c->nleaves + k]
						|= c->downleaf[(size_t)b *
							       c->nleaves + k];
			}
		}
}

static void path_push_link(paths_t *P, uint32_t link)
{
	if (P->nl == P->lcap) {
		P->lcap = P->lcap ? 2 * P->lcap : 1024;
		P->link = realloc(P->link, sizeof(*P->link) * P->lcap);
	}
	P->link[P->nl++] = link;
}

static void path_close(paths_t *P, uint32_t flow)
{
	if (P->n + 1 >= P->cap) {
		P->cap = P->cap ? 2 * P->cap : 256;
		P->flow = realloc(P->flow, sizeof(*P->flow) * P->cap);
		P->first = realloc(P->first, sizeof(*P->first) * (P->cap + 1));
	}
	if (!P->n)
		P->first[0] = 0;
	P->flow[P->n] = flow;
	P->first[++P->n] = P->nl;
}

/* Down from n to the leaf, every way; stack holds the links so far. */
static void dfs_down(const topo_ctx_t *c, paths_t *P, ibf_node_id_t n,
		     ibf_node_id_t leaf, ibf_port_id_t last, uint32_t *stack,
		     unsigned depth, uint32_t flow)
{
	const ibf_fabric_t *f = c->f;
	unsigned p, i;

	if (n == leaf) {
		for (i = 0; i < depth; i++)
			path_push_link(P, stack[i]);
		path_push_link(P, last);
		path_close(P, flow);
		return;
	}
	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t pi = ibf_node_port_id(f, n, p);
		ibf_port_id_t pe = f->ports[pi].peer;
		ibf_node_id_t b;

		if (pe == IBF_NO_ID)
			continue;
		b = f->ports[pe].node;
		if (c->lv[b] + 1 != c->lv[n] || !c->lv[b] ||
		    !reach_down(c, b, leaf))
			continue;
		stack[depth] = pi;
		dfs_down(c, P, b, leaf, last, stack, depth + 1, flow);
	}
}

static void dfs_up(const topo_ctx_t *c, paths_t *P, ibf_node_id_t n,
		   unsigned top, ibf_node_id_t leaf, ibf_port_id_t last,
		   uint32_t *stack, unsigned depth, uint32_t flow)
{
	const ibf_fabric_t *f = c->f;
	unsigned p;

	if (c->lv[n] == top) {
		if (reach_down(c, n, leaf))
			dfs_down(c, P, n, leaf, last, stack, depth, flow);
		return;
	}
	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t pi = ibf_node_port_id(f, n, p);
		ibf_port_id_t pe = f->ports[pi].peer;

		if (pe == IBF_NO_ID || c->lv[f->ports[pe].node] != c->lv[n] + 1)
			continue;
		stack[depth] = pi;
		dfs_up(c, P, f->ports[pe].node, top, leaf, last, stack,
		       depth + 1, flow);
	}
}

/* All shortest up*-down* paths of flow k; none if there is no path. */
static void flow_paths(const topo_ctx_t *c, paths_t *P, const ibf_flow_t *fl,
		       uint32_t k, unsigned maxl)
{
	const ibf_fabric_t *f = c->f;
	ibf_node_id_t ls = f->ports[f->ports[fl->src].peer].node;
	ibf_node_id_t ld = f->ports[f->ports[fl->dst].peer].node;
	ibf_port_id_t last = f->ports[fl->dst].peer;
	uint32_t stack[MAX_HOPS];
	unsigned top, before;

	stack[0] = fl->src;
	for (top = 1; top <= maxl; top++) {
		before = P->n;
		dfs_up(c, P, ls, top, ld, last, stack, 1, k);
		if (P->n > before)
			return;
	}
}

/*
 * Iterated LP: maximize t with every active flow's rate r_k >= t, freeze
 * the flows whose r_k >= t row has a nonzero dual (they cannot grow: the
 * Nace-Pioro test) at t, repeat.  Columns: x_p per path, r_k per flow, t;
 * rows: links (sum of x_p <= capacity), sum_p x_p - r_k = 0, r_k - t >= 0.
 * Freezing only changes bounds, so every LP starts from the last basis.
 */
static double lp_aggregate(const topo_ctx_t *c, const ibf_traffic_t *tr,
			   unsigned maxl)
{
	const ibf_fabric_t *f = c->f;
	paths_t P = { 0 };
	glp_prob *lp;
	glp_smcp parm;
	uint32_t *linkrow = malloc(sizeof(*linkrow) * f->nports), k, i;
	uint32_t nrows = 0, active = 0, F = tr->n;
	uint8_t *frozen, *haspath;
	double *rate, agg = 0;
	int *ia, *ja, ne = 0, tcol, rcol0, defrow0, trow0;
	double *ar;
	size_t cap;

	for (k = 0; k < F; k++)
		flow_paths(c, &P, &tr->flows[k], k, maxl);
	if (!P.n) {
		free(linkrow);
		return 0;
	}
	for (i = 0; i < f->nports; i++)
		linkrow[i] = 0;
	for (i = 0; i < P.nl; i++)
		if (!linkrow[P.link[i]])
			linkrow[P.link[i]] = ++nrows;
	frozen = calloc(F, 1);
	haspath = calloc(F, 1);
	rate = calloc(F, sizeof(*rate));
	for (i = 0; i < P.n; i++)
		haspath[P.flow[i]] = 1;
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MAX);
	defrow0 = (int)nrows;
	trow0 = (int)(nrows + F);
	glp_add_rows(lp, (int)(nrows + 2 * F));
	rcol0 = (int)P.n;
	tcol = (int)(P.n + F + 1);
	glp_add_cols(lp, tcol);
	for (i = 0; i < f->nports; i++)
		if (linkrow[i])
			glp_set_row_bnds(lp, (int)linkrow[i], GLP_UP, 0,
					 ibf_port_capacity(&f->ports[i]));
	cap = (size_t)P.nl + P.n + 3 * F + 2;
	ia = malloc(sizeof(*ia) * cap);
	ja = malloc(sizeof(*ja) * cap);
	ar = malloc(sizeof(*ar) * cap);
	for (i = 0; i < P.n; i++) {
		uint32_t e;

		glp_set_col_bnds(lp, (int)i + 1, GLP_LO, 0, 0);
		for (e = P.first[i]; e < P.first[i + 1]; e++) {
			++ne;
			ia[ne] = (int)linkrow[P.link[e]];
			ja[ne] = (int)i + 1;
			ar[ne] = 1;
		}
		++ne;
		ia[ne] = defrow0 + (int)P.flow[i] + 1;
		ja[ne] = (int)i + 1;
		ar[ne] = 1;
	}
	for (k = 0; k < F; k++) {
		int rc = rcol0 + (int)k + 1;

		glp_set_row_bnds(lp, defrow0 + (int)k + 1, GLP_FX, 0, 0);
		++ne;
		ia[ne] = defrow0 + (int)k + 1;
		ja[ne] = rc;
		ar[ne] = -1;
		++ne;
		ia[ne] = trow0 + (int)k + 1;
		ja[ne] = rc;
		ar[ne] = 1;
		++ne;
		ia[ne] = trow0 + (int)k + 1;
		ja[ne] = tcol;
		ar[ne] = -1;
		if (haspath[k]) {
			glp_set_col_bnds(lp, rc, GLP_LO, 0, 0);
			glp_set_row_bnds(lp, trow0 + (int)k + 1, GLP_LO, 0, 0);
			active++;
		} else {
			/* no path at all: rate 0, out of the race */
			glp_set_col_bnds(lp, rc, GLP_FX, 0, 0);
			glp_set_row_bnds(lp, trow0 + (int)k + 1, GLP_FR, 0, 0);
			frozen[k] = 1;
		}
	}
	glp_set_col_bnds(lp, tcol, GLP_LO, 0, 0);
	glp_set_obj_coef(lp, tcol, 1);
	glp_load_matrix(lp, ne, ia, ja, ar);
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	while (active) {
		double t;
		uint32_t nf = 0;
		int rc = glp_simplex(lp, &parm);

		if (rc) {
			glp_std_basis(lp);
			rc = glp_simplex(lp, &parm);
		}
		if (rc || glp_get_status(lp) != GLP_OPT) {
			fprintf(stderr, "bench_faults: LP failed (%d, status "
				"%d)\n", rc, glp_get_status(lp));
			exit(2);
		}
		t = glp_get_obj_val(lp);
		for (k = 0; k < F; k++)
			if (!frozen[k] &&
			    fabs(glp_get_row_dual(lp, trow0 + (int)k + 1)) >
			    1e-9)
				nf++;
		for (k = 0; k < F; k++) {
			if (frozen[k] || (nf &&
			    fabs(glp_get_row_dual(lp, trow0 + (int)k + 1)) <=
			    1e-9))
				continue;
			glp_set_col_bnds(lp, rcol0 + (int)k + 1, GLP_FX, t, t);
			glp_set_row_bnds(lp, trow0 + (int)k + 1, GLP_FR, 0, 0);
			frozen[k] = 1;
			rate[k] = t;
			active--;
		}
	}
	for (k = 0; k < F; k++)
		agg += rate[k] * tr->flows[k].count;
	glp_delete_prob(lp);
	free(ia);
	free(ja);
	free(ar);
	free(linkrow);
	free(frozen);
	free(haspath);
	free(rate);
	free(P.flow);
	free(P.first);
	free(P.link);
	return agg;
}

/* ---- evaluation of one scenario ------------------------------------------- */

typedef struct scen {
	double index[MAX_ENG][MAX_PAT];
	double opt[MAX_PAT];
	uint64_t changed[MAX_ENG];
	judge_t j[MAX_ENG];
} scen_t;

/* Index per routing (and the optimum) over the instances of each
 * pattern, ranks in order[]. */
static void evaluate(const ibf_fabric_t *f, const unsigned *lv,
		     const ibf_lfts_t *const *l, unsigned nl,
		     const ibf_port_id_t *order, uint32_t norder,
		     char *const *pats, unsigned np, bool opt, uint64_t seed,
		     scen_t *out)
{
	topo_ctx_t c;
	unsigned p, e, maxl = 0;
	ibf_node_id_t n;

	if (opt) {
		topo_prepare(&c, f, lv);
		for (n = 0; n < f->nnodes; n++)
			if (lv[n] > maxl)
				maxl = lv[n];
	}
	for (p = 0; p < np; p++) {
		ibf_pattern_t pat;
		ibf_err_t err;
		uint32_t i, ni;
		double xb = 0, agg[MAX_ENG] = { 0 }, oa = 0;

		if (ibf_pattern_parse(pats[p], &pat, &err))
			die(pats[p], &err);
		ni = ibf_pattern_ninstances(&pat, norder);
		for (i = 0; i < ni; i++) {
			ibf_traffic_t tr;

			if (ibf_pattern_traffic(&pat, f, order, norder, i,
						seed, &tr, &err))
				die(pats[p], &err);
			xb += crossbar_aggregate(f, &tr);
			for (e = 0; e < nl; e++)
				agg[e] += routing_aggregate(l[e], &tr);
			if (opt)
				oa += lp_aggregate(&c, &tr, maxl);
			ibf_traffic_free(&tr);
		}
		for (e = 0; e < nl; e++)
			out->index[e][p] = agg[e] / xb;
		out->opt[p] = opt ? oa / xb : NAN;
		ibf_pattern_free(&pat);
	}
	if (opt) {
		free(c.downleaf);
		free(c.leafidx);
	}
}

/* The LP against the exact optimum of the complete tree (mmf_opt.h):
 * both must agree, or the LP's figures mean nothing. */
static void check_lp(const ibf_fabric_t *g, const unsigned *lv,
		     const ibf_port_id_t *order, uint32_t n)
{
	static const char *const specs[] = { "perm:3", "shift:3" };
	ibf_pgft_t *pg;
	ibf_err_t err;
	topo_ctx_t c;
	unsigned k, maxl = 0;
	ibf_node_id_t nd;
	double worst = 0;

	if (ibf_pgft_recognize(g, &pg, &err) != IBF_OK)
		die("pgft", &err);
	topo_prepare(&c, g, lv);
	for (nd = 0; nd < g->nnodes; nd++)
		if (lv[nd] > maxl)
			maxl = lv[nd];
	for (k = 0; k < 2; k++) {
		ibf_pattern_t pat;
		uint32_t i;

		if (ibf_pattern_parse(specs[k], &pat, &err))
			die(specs[k], &err);
		for (i = 0; i < ibf_pattern_ninstances(&pat, n); i++) {
			ibf_traffic_t tr;
			double *rate, a = 0, b;
			uint32_t j;

			if (ibf_pattern_traffic(&pat, g, order, n, i, 7, &tr,
						&err))
				die(specs[k], &err);
			rate = malloc(sizeof(*rate) * tr.n);
			if (ibf_mmf_opt_pgft(pg, g, tr.flows, tr.n, rate, NULL,
					     &err))
				die("mmf_opt", &err);
			for (j = 0; j < tr.n; j++)
				a += rate[j] * tr.flows[j].count;
			b = lp_aggregate(&c, &tr, maxl);
			if (fabs(a - b) / a > worst)
				worst = fabs(a - b) / a;
			free(rate);
			ibf_traffic_free(&tr);
		}
		ibf_pattern_free(&pat);
	}
	printf("# LP optimum on the complete tree vs mmf_opt: largest "
	       "relative difference %.2e\n", worst);
	if (worst > 1e-6) {
		fprintf(stderr, "bench_faults: the LP disagrees with the "
			"exact optimum\n");
		exit(1);
	}
	free(c.downleaf);
	free(c.leafidx);
	ibf_pgft_destroy(pg);
}

/* ---- campaign -------------------------------------------------------------- */

typedef struct stat {
	double sum, min, max;
	uint64_t n;
} stat_t;

static void st_add(stat_t *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

static double st_mean(const stat_t *s)
{
	return s->n ? s->sum / s->n : NAN;
}

static unsigned split(char *s, char **out, unsigned max)
{
	unsigned n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && n < max;
	     tok = strtok_r(NULL, ",", &save))
		out[n++] = tok;
	return n;
}

static ibf_routing_t *route(const ibf_fabric_t *f, const char *eng)
{
	ibf_routing_t *r = NULL;
	ibf_err_t err;

	if (ibf_route(f, eng, NULL, &r, &err) != IBF_OK)
		die(eng, &err);
	return r;
}

static int campaign(int argc, char **argv)
{
	const char *spec, *kind, *netdir = NULL;
	unsigned pct, nscen, i, e, p, nl, np, ne;
	uint64_t seed = 1, s;
	char patbuf[256] = "shift,perm:8", engbuf[128] = "dmodk,minhop";
	char *pats[MAX_PAT], *engs[MAX_ENG];
	bool opt = true, verbose = false;
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *g;
	ibf_routing_t *hr[MAX_ENG];
	unsigned *lvg;
	ibf_err_t err;
	stat_t sidx[MAX_ENG][MAX_PAT] = { 0 }, sopt[MAX_PAT] = { 0 };
	stat_t schg[MAX_ENG] = { 0 }, sunr = { 0 }, sfail = { 0 };
	uint64_t invalid[MAX_ENG] = { 0 }, notud[MAX_ENG] = { 0 };
	uint64_t longer[MAX_ENG] = { 0 };
	double t0 = now();
	ibf_port_id_t *links;
	uint32_t nlinks = 0, nhosts = 0;
	ibf_node_id_t *hosts;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_faults campaign SPEC links|hosts "
			"PCT N [--seed S] [--patterns L] [--engines L] "
			"[--no-opt] [--netdir DIR] [--verbose]\n");
		return 2;
	}
	spec = argv[1];
	kind = argv[2];
	pct = (unsigned)atoi(argv[3]);
	nscen = (unsigned)atoi(argv[4]);
	for (i = 5; i < (unsigned)argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < (unsigned)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--patterns") &&
			 i + 1 < (unsigned)argc)
			snprintf(patbuf, sizeof(patbuf), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--engines") &&
			 i + 1 < (unsigned)argc)
			snprintf(engbuf, sizeof(engbuf), "%s", argv[++i]);
		else if (!strcmp(argv[i], "--netdir") &&
			 i + 1 < (unsigned)argc)
			netdir = argv[++i];
		else if (!strcmp(argv[i], "--no-opt"))
			opt = false;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else {
			fprintf(stderr, "bench_faults: bad option %s\n",
				argv[i]);
			return 2;
		}
	}
	if (strcmp(kind, "links") && strcmp(kind, "hosts")) {
		fprintf(stderr, "bench_faults: KIND is links or hosts\n");
		return 2;
	}
	printf("# %s %s %u%% %u scenarios seed %llu, patterns %s\n", spec,
	       kind, pct, nscen, (unsigned long long)seed, patbuf);
	np = split(patbuf, pats, MAX_PAT);
	ne = split(engbuf, engs, MAX_ENG);
	if (ibf_gen(spec, &go, &g, &err) != IBF_OK)
		die(spec, &err);
	lvg = levels(g);
	for (e = 0; e < ne; e++)
		hr[e] = route(g, engs[e]);
	if (opt)
		check_lp(g, lvg, hr[0]->order, hr[0]->norder);
	links = malloc(sizeof(*links) * g->nports);
	hosts = malloc(sizeof(*hosts) * g->nnodes);
	for (i = 0; i < g->nports; i++) {
		const ibf_port_t *a = &g->ports[i];

		if (a->peer != IBF_NO_ID && a->peer > i &&
		    ibf_node_is_switch(g, a->node) &&
		    ibf_node_is_switch(g, g->ports[a->peer].node))
			links[nlinks++] = i;
	}
	for (i = 0; i < g->nnodes; i++)
		if (!ibf_node_is_switch(g, i))
			hosts[nhosts++] = i;
	if (netdir) {
		char path[1024];

		snprintf(path, sizeof(path), "%s/healthy.net", netdir);
		if (ibf_topo_write_file(g, IBF_TOPO_IBSIM, path, &err))
			die(path, &err);
	}
	for (i = 0; i < nscen; i++) {
		uint8_t *cutp = calloc(g->nports, 1);
		uint8_t *drop = calloc(g->nnodes, 1);
		uint32_t pool = !strcmp(kind, "links") ? nlinks : nhosts;
		uint32_t nf = (uint32_t)((pool * (uint64_t)pct + 50) / 100);
		uint32_t k, *idx = malloc(sizeof(*idx) * pool);
		ibf_fabric_t *d;
		ibf_routing_t *dr[MAX_ENG];
		const ibf_lfts_t *dl[MAX_ENG];
		unsigned *lv;
		scen_t sc;

		memset(&sc, 0, sizeof(sc));
		if (nf < 1)
			nf = 1;
		s = seed * 0x9E3779B97F4A7C15ULL + i * 7919 + 1;
		for (k = 0; k < pool; k++)
			idx[k] = k;
		for (k = 0; k < nf; k++) {
			uint32_t j = k + (uint32_t)(rnd(&s) % (pool - k)), t;

			t = idx[k];
			idx[k] = idx[j];
			idx[j] = t;
			if (!strcmp(kind, "links"))
				cutp[links[idx[k]]] = 1;
			else
				drop[hosts[idx[k]]] = 1;
		}
		d = degrade(g, cutp, drop);
		if (netdir) {
			char path[1024];
			FILE *fp;

			snprintf(path, sizeof(path), "%s/scen-%03u.net", netdir,
				 i);
			if (ibf_topo_write_file(d, IBF_TOPO_IBSIM, path, &err))
				die(path, &err);
			snprintf(path, sizeof(path), "%s/scen-%03u.nfaults",
				 netdir, i);
			fp = fopen(path, "w");
			if (fp) {
				fprintf(fp, "%u\n", nf);
				fclose(fp);
			}
		}
		lv = map_levels(g, lvg, d);
		nl = ne;
		for (e = 0; e < ne; e++) {
			bool ud = !strcmp(engs[e], "dmodk") ||
				  !strcmp(engs[e], "uapr");

			dr[e] = route(d, engs[e]);
			dl[e] = dr[e]->lfts;
			sc.j[e] = judge(d, dl[e], lv, ud);
			sc.changed[e] = changed(g, hr[e]->lfts, d, dl[e]);
			if (sc.j[e].bad)
				invalid[e]++;
			notud[e] += sc.j[e].not_updown;
			longer[e] += sc.j[e].too_long;
			st_add(&schg[e], (double)sc.changed[e] / nf);
		}
		st_add(&sunr, (double)sc.j[0].unrouted);
		st_add(&sfail, nf);
		evaluate(d, lv, dl, nl, dr[0]->order, dr[0]->norder, pats, np,
			 opt, seed + i, &sc);
		for (e = 0; e < ne; e++)
			for (p = 0; p < np; p++)
				st_add(&sidx[e][p], sc.index[e][p]);
		for (p = 0; p < np && opt; p++)
			st_add(&sopt[p], sc.opt[p]);
		if (verbose) {
			printf("scen %u faults %u unrouted %llu", i, nf,
			       (unsigned long long)sc.j[0].unrouted);
			for (e = 0; e < ne; e++) {
				printf(" | %s bad %llu changed %llu", engs[e],
				       (unsigned long long)sc.j[e].bad,
				       (unsigned long long)sc.changed[e]);
				for (p = 0; p < np; p++)
					printf(" %s %.4f", pats[p],
					       sc.index[e][p]);
			}
			for (p = 0; p < np && opt; p++)
				printf(" | opt %s %.4f", pats[p], sc.opt[p]);
			printf("\n");
			fflush(stdout);
		}
		for (e = 0; e < ne; e++)
			ibf_routing_destroy(dr[e]);
		free(lv);
		ibf_fabric_destroy(d);
		free(cutp);
		free(drop);
		free(idx);
	}
	printf("summary %s %s %u%% scenarios %u faults %.1f unrouted_pairs "
	       "%.2f (max %.0f)", spec, kind, pct, nscen, st_mean(&sfail),
	       st_mean(&sunr), sunr.max);
	for (e = 0; e < ne; e++) {
		printf(" | %s invalid %llu not_updown %llu longer %llu "
		       "changed/fault %.1f (max %.1f)", engs[e],
		       (unsigned long long)invalid[e],
		       (unsigned long long)notud[e],
		       (unsigned long long)longer[e], st_mean(&schg[e]),
		       schg[e].max);
		for (p = 0; p < np; p++)
			printf(" %s %.4f (min %.4f)", pats[p],
			       st_mean(&sidx[e][p]), sidx[e][p].min);
	}
	for (p = 0; p < np && opt; p++)
		printf(" | opt %s %.4f (min %.4f)", pats[p],
		       st_mean(&sopt[p]), sopt[p].min);
	printf(" | %.1f s\n", now() - t0);
	for (e = 0; e < ne; e++)
		ibf_routing_destroy(hr[e]);
	free(lvg);
	free(links);
	free(hosts);
	ibf_fabric_destroy(g);
	return 0;
}

/* ---- tables read back from OpenSM ------------------------------------------ */

static ibf_fabric_t *read_topo(const char *path)
{
	ibf_topo_read_opts_t o = { 0 };
	ibf_fabric_t *f;
	ibf_err_t err;

	if (ibf_topo_read(path, &o, &f, &err) != IBF_OK)
		die(path, &err);
	return f;
}

static ibf_lfts_t *read_lfts(const ibf_fabric_t *f, const char *path)
{
	ibf_lfts_t *l;
	ibf_err_t err;

	if (ibf_lfts_read(f, path, &l, &err) != IBF_OK)
		die(path, &err);
	return l;
}

static int files(int argc, char **argv)
{
	ibf_fabric_t *h, *d;
	unsigned *lvh, *lv, np, e, p, ne = 0;
	char patbuf[256], *pats[MAX_PAT], *names[MAX_ENG];
	ibf_lfts_t *hl[MAX_ENG], *dl[MAX_ENG];
	ibf_hostlist_t order;
	ibf_err_t err;
	scen_t sc;
	uint64_t seed = 1;
	bool opt = true;
	int a;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--seed") && argc > 2) {
			seed = strtoull(argv[2], NULL, 0);
			argv++;
			argc--;
		} else if (!strcmp(argv[1], "--no-opt")) {
			opt = false;
		} else {
			break;
		}
		argv++;
		argc--;
	}
	if (argc < 6) {
		fprintf(stderr, "usage: bench_faults files HEALTHY_TOPO TOPO "
			"ORDER PATTERNS NAME=HLFTS,LFTS...\n");
		return 2;
	}
	h = read_topo(argv[1]);
	d = read_topo(argv[2]);
	lvh = levels(h);
	lv = map_levels(h, lvh, d);
	if (ibf_hosts_read(d, argv[3], &order, &err) != IBF_OK)
		die(argv[3], &err);
	snprintf(patbuf, sizeof(patbuf), "%s", argv[4]);
	np = split(patbuf, pats, MAX_PAT);
	for (a = 5; a < argc && ne < MAX_ENG; a++) {
		char *eq = strchr(argv[a], '='), *comma;

		if (!eq || !(comma = strchr(eq, ','))) {
			fprintf(stderr, "bench_faults: NAME=HLFTS,LFTS: %s\n",
				argv[a]);
			return 2;
		}
		*eq = *comma = '\0';
		names[ne] = argv[a];
		hl[ne] = read_lfts(h, eq + 1);
		dl[ne] = read_lfts(d, comma + 1);
		ne++;
	}
	memset(&sc, 0, sizeof(sc));
	for (e = 0; e < ne; e++) {
		sc.j[e] = judge(d, dl[e], lv, !strncmp(names[e], "ibflow", 6));
		sc.changed[e] = changed(h, hl[e], d, dl[e]);
	}
	evaluate(d, lv, (const ibf_lfts_t *const *)dl, ne, order.ports,
		 order.n, pats, np, opt, seed, &sc);
	for (e = 0; e < ne; e++) {
		printf("engine %s bad %llu unrouted %llu not_updown %llu "
		       "changed %llu", names[e],
		       (unsigned long long)sc.j[e].bad,
		       (unsigned long long)sc.j[e].unrouted,
		       (unsigned long long)sc.j[e].not_updown,
		       (unsigned long long)sc.changed[e]);
		for (p = 0; p < np; p++)
			printf(" %s %.4f", pats[p], sc.index[e][p]);
		printf("\n");
		ibf_lfts_destroy(hl[e]);
		ibf_lfts_destroy(dl[e]);
	}
	if (opt) {
		printf("engine optimum");
		for (p = 0; p < np; p++)
			printf(" %s %.4f", pats[p], sc.opt[p]);
		printf("\n");
	}
	ibf_hostlist_free(&order);
	free(lvh);
	free(lv);
	ibf_fabric_destroy(h);
	ibf_fabric_destroy(d);
	return 0;
}

int main(int argc, char **argv)
{
	glp_term_out(GLP_OFF);
	if (argc >= 2 && !strcmp(argv[1], "campaign"))
		return campaign(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "files"))
		return files(argc - 1, argv + 1);
	fprintf(stderr, "usage: bench_faults campaign ... | files ...\n");
	return 2;
}
