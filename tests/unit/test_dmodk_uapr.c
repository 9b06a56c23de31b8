/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * dmodk and uapr on generated PGFTs, judged by a tracer of this file's own
 * (it walks the LFT bytes; no library trace code) and by values computed
 * here from the fabric graph or the spec:
 *  - shift permutations in the exported order: the worst directed link load
 *    is 1 on full-bisection trees and max over levels of
 *    ceil(endpoints below a level-l subtree / its up links) on slimmed ones;
 *  - every route delivered, up*-down* (levels from BFS distance to the
 *    hosts), and as short as the BFS distance;
 *  - uapr: the 2^LMC LIDs of a port use the shortest paths (enumerated by
 *    DFS over BFS layers) floor or ceil of 2^LMC / npaths times each;
 *  - ibf_check_run finds no defect.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#include "test_util.h"

#define MAXH 64

typedef struct env {
	ibf_fabric_t *f;
	ibf_routing_t *r;
	unsigned *lvl;       /* per node: BFS distance to the nearest CA */
} env_t;

static void env_make(env_t *e, const char *spec, unsigned lmc,
		     const char *engine)
{
	ibf_gen_opts_t go = { lmc };
	ibf_err_t err;
	ibf_node_id_t *q;
	uint32_t qh = 0, qt = 0, n;

	memset(e, 0, sizeof(*e));
	if (ibf_gen(spec, &go, &e->f, &err) != IBF_OK)
		fail_msg("gen %s: %s", spec, err.msg);
	if (ibf_route(e->f, engine, NULL, &e->r, &err) != IBF_OK)
		fail_msg("%s on %s lmc %u: %s", engine, spec, lmc, err.msg);
	e->lvl = malloc(sizeof(*e->lvl) * e->f->nnodes);
	q = malloc(sizeof(*q) * e->f->nnodes);
	assert_non_null(e->lvl);
	assert_non_null(q);
	for (n = 0; n < e->f->nnodes; n++) {
		e->lvl[n] = UINT32_MAX;
		if (!ibf_node_is_switch(e->f, n)) {
			e->lvl[n] = 0;
			q[qt++] = n;
		}
	}
	while (qh < qt) {
		ibf_node_id_t a = q[qh++];
		unsigned p;

		for (p = 1; p <= e->f->nodes[a].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(e->f, a, p)->peer;
			ibf_node_id_t b;

			if (peer == IBF_NO_ID)
				continue;
			b = e->f->ports[peer].node;
			if (e->lvl[b] == UINT32_MAX) {
				e->lvl[b] = e->lvl[a] + 1;
				q[qt++] = b;
			}
		}
	}
	free(q);
}

static void env_free(env_t *e)
{
	ibf_routing_destroy(e->r);
	ibf_fabric_destroy(e->f);
	free(e->lvl);
}

#define WALK_WRONG_CA (-1)  /* arrived at a CA port not owning the DLID */
#define WALK_LOST     (-2)  /* dead end, bad port, loop (> MAXH hops) */

/* Walk the LFTs from endpoint src to dlid.  hops[] gets the egress port
 * ids (the source port first).  Returns the hop count, or WALK_* < 0 when
 * the packet is not delivered to the owner of dlid. */
static int walk(const env_t *e, ibf_port_id_t src, unsigned dlid,
		ibf_port_id_t *hops)
{
	const ibf_fabric_t *f = e->f;
	const ibf_lfts_t *l = e->r->lfts;
	ibf_port_id_t out = src;
	int n = 0;

	while (n < MAXH) {
		ibf_port_id_t in = f->ports[out].peer;
		ibf_node_id_t node;
		unsigned entry;

		hops[n++] = out;
		if (in == IBF_NO_ID)
			return WALK_LOST;
		node = f->ports[in].node;
		if (!ibf_node_is_switch(f, node)) {
			const ibf_port_t *p = &f->ports[in];

			return dlid >= p->lid &&
			       dlid < p->lid + (1u << p->lmc) ? n
							       : WALK_WRONG_CA;
		}
		entry = l->port[(size_t)f->switch_index[node] * l->stride +
				dlid];
		if (entry == 0)
			return ibf_node_port(f, node, 0)->lid == dlid ? n
								 : WALK_LOST;
		if (entry > f->nodes[node].nports)
			return WALK_LOST;
		out = ibf_node_port_id(f, node, entry);
	}
	return WALK_LOST;
}

/* Levels along the route strictly rise, then strictly fall. */
static bool up_down(const env_t *e, const ibf_port_id_t *hops, int n)
{
	const ibf_fabric_t *f = e->f;
	bool down = false;
	int i;

	for (i = 1; i < n; i++) {
		unsigned a = e->lvl[f->ports[hops[i - 1]].node];
		unsigned b = e->lvl[f->ports[hops[i]].node];

		if (b == a)
			return false;
		if (b < a)
			down = true;
		else if (down)
			return false;
	}
	return true;
}

/* ---- shift permutations --------------------------------------------- */

static unsigned max_shift_load(const env_t *e)
{
	const ibf_fabric_t *f = e->f;
	uint32_t N = e->r->norder, s, i;
	unsigned *load = malloc(sizeof(*load) * f->nports), worst = 0;
	ibf_port_id_t hops[MAXH];

	assert_non_null(load);
	for (s = 1; s < N; s++) {
		memset(load, 0, sizeof(*load) * f->nports);
		for (i = 0; i < N; i++) {
			ibf_port_id_t a = e->r->order[i];
			ibf_port_id_t b = e->r->order[(i + s) % N];
			int n = walk(e, a, f->ports[b].lid, hops), k;

			assert_true(n > 0);
			for (k = 0; k < n; k++)
				if (++load[hops[k]] > worst)
					worst = load[hops[k]];
		}
	}
	free(load);
	return worst;
}

/* PGFT parameters for the expected oversubscription (single plane). */
typedef struct shape {
	const char *spec;
	unsigned h, m[5], w[5], p[5];
} shape_t;

/* max over levels l < h of ceil(endpoints below a level-l subtree / up
 * links leaving it), at least 1. */
static unsigned oversub(const shape_t *t)
{
	unsigned long below = t->p[1], roots = 1, worst = 1, l;

	for (l = 1; l < t->h; l++) {
		unsigned long links;

		below *= t->m[l];
		if (l > 1)
			roots *= t->w[l];
		links = roots * t->w[l + 1] * t->p[l + 1];
		if ((below + links - 1) / links > worst)
			worst = (below + links - 1) / links;
	}
	return (unsigned)worst;
}

static const shape_t shapes[] = {
	{ "xgft:2:4,4:1,4", 2, { 0, 4, 4 }, { 0, 1, 4 }, { 0, 1, 1 } },
	{ "kary:4,3", 3, { 0, 4, 4, 4 }, { 0, 1, 4, 4 }, { 0, 1, 1, 1 } },
	{ "pgft:2:4,4:1,4:1,1", 2, { 0, 4, 4 }, { 0, 1, 4 }, { 0, 1, 1 } },
	{ "pgft:2:4,2:1,2:1,2", 2, { 0, 4, 2 }, { 0, 1, 2 }, { 0, 1, 2 } },
	{ "pgft:3:4,4,3:1,2,4:1,2,2", 3, { 0, 4, 4, 3 }, { 0, 1, 2, 4 },
	  { 0, 1, 2, 2 } },
	{ "pgft:2:2,4:1,4:2,1", 2, { 0, 2, 4 }, { 0, 1, 4 }, { 0, 2, 1 } },
	{ "kary:2,4", 4, { 0, 2, 2, 2, 2 }, { 0, 1, 2, 2, 2 },
	  { 0, 1, 1, 1, 1 } },
	/* slimmed */
	{ "xgft:2:4,4:1,2", 2, { 0, 4, 4 }, { 0, 1, 2 }, { 0, 1, 1 } },
	{ "xgft:3:4,4,4:1,2,2", 3, { 0, 4, 4, 4 }, { 0, 1, 2, 2 },
	  { 0, 1, 1, 1 } },
	{ "xgft:2:6,4:1,4", 2, { 0, 6, 4 }, { 0, 1, 4 }, { 0, 1, 1 } },
	{ "pgft:2:4,3:1,1:1,2", 2, { 0, 4, 3 }, { 0, 1, 1 }, { 0, 1, 2 } },
	/* fatted: more up links than endpoints below */
	{ "xgft:2:2,4:1,4", 2, { 0, 2, 4 }, { 0, 1, 4 }, { 0, 1, 1 } },
	{ "pgft:3:2,4,2:1,2,2:1,2,4", 3, { 0, 2, 4, 2 }, { 0, 1, 2, 2 },
	  { 0, 1, 2, 4 } },
};

static void test_oversub_formula(void **state)
{
	(void)state;
	/* hand values */
	assert_int_equal(oversub(&shapes[0]), 1);
	assert_int_equal(oversub(&shapes[4]), 1);
	assert_int_equal(oversub(&shapes[7]), 2);
	assert_int_equal(oversub(&shapes[8]), 4);  /* 16 hosts, 4 links */
	assert_int_equal(oversub(&shapes[9]), 2);  /* 6 hosts, 4 links */
}

static void test_dmodk_shifts(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		env_t e;
		unsigned got;

		env_make(&e, shapes[i].spec, 0, "dmodk");
		got = max_shift_load(&e);
		if (got != oversub(&shapes[i]))
			fail_msg("%s: worst shift link load %u, expected %u",
				 shapes[i].spec, got, oversub(&shapes[i]));
		env_free(&e);
	}
}

/* Not every order gives load 1 (so the test above can fail): a fixed
 * shuffle of the hosts of xgft:2:4,4:1,4. */
static void test_dmodk_shifts_bad_order(void **state)
{
	env_t e;
	uint32_t N, i;
	ibf_port_id_t *o;

	(void)state;
	env_make(&e, "xgft:2:4,4:1,4", 0, "dmodk");
	N = e.r->norder;
	o = malloc(sizeof(*o) * N);
	assert_non_null(o);
	memcpy(o, e.r->order, sizeof(*o) * N);
	for (i = N - 1; i > 0; i--) {   /* Fisher-Yates, fixed LCG */
		uint32_t j = (uint32_t)((i * 2654435761u + 12345u) >> 7) %
			     (i + 1);
		ibf_port_id_t t = o[i];

		o[i] = o[j];
		o[j] = t;
	}
	memcpy(e.r->order, o, sizeof(*o) * N);
	assert_true(max_shift_load(&e) > 1);
	free(o);
	env_free(&e);
}

/* ---- all routes: delivered, up*-down*, shortest ---------------------- */

/* BFS hop distances over the graph where only switches forward. */
static void bfs_from(const ibf_fabric_t *f, ibf_node_id_t s, unsigned *dist,
		     ibf_node_id_t *q)
{
	uint32_t qh = 0, qt = 0, n;

	for (n = 0; n < f->nnodes; n++)
		dist[n] = UINT32_MAX;
	dist[s] = 0;
	q[qt++] = s;
	while (qh < qt) {
		ibf_node_id_t a = q[qh++];
		unsigned p;

		if (a != s && !ibf_node_is_switch(f, a))
			continue;
		for (p = 1; p <= f->nodes[a].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, a, p)->peer;

			if (peer != IBF_NO_ID &&
			    dist[f->ports[peer].node] == UINT32_MAX) {
				dist[f->ports[peer].node] = dist[a] + 1;
				q[qt++] = f->ports[peer].node;
			}
		}
	}
}

static void check_all_routes(const char *spec, unsigned lmc,
			     const char *engine)
{
	env_t e;
	const ibf_fabric_t *f;
	unsigned *dist;
	ibf_node_id_t *q;
	ibf_port_id_t hops[MAXH];
	uint32_t a, lid;

	env_make(&e, spec, lmc, engine);
	f = e.f;
	dist = malloc(sizeof(*dist) * f->nnodes);
	q = malloc(sizeof(*q) * f->nnodes);
	assert_non_null(dist);
	assert_non_null(q);
	for (a = 0; a < f->nendpoints; a++) {
		ibf_port_id_t src = f->endpoints[a];

		bfs_from(f, f->ports[src].node, dist, q);
		for (lid = 1; lid <= f->lid_top; lid++) {
			ibf_port_id_t dst = ibf_fabric_lid_owner(f, lid);
			unsigned want;
			int n;

			if (dst == IBF_NO_ID || dst == src)
				continue;
			n = walk(&e, src, lid, hops);
			if (n < 0)
				fail_msg("%s %s lmc %u: LID %u not delivered "
					 "from port %u", engine, spec, lmc,
					 lid, src);
			if (!up_down(&e, hops, n))
				fail_msg("%s %s: route %u -> LID %u is not "
					 "up*-down*", engine, spec, src, lid);
			want = dist[f->ports[dst].node];
			if (f->ports[dst].node == f->ports[src].node)
				continue; /* other port of the same CA */
			if ((unsigned)n != want)
				fail_msg("%s %s: route %u -> LID %u has %d "
					 "hops, shortest %u", engine, spec,
					 src, lid, n, want);
		}
	}
	free(dist);
	free(q);
	env_free(&e);
}

static const char *const route_specs[] = {
	"xgft:2:4,4:1,4", "kary:4,3", "pgft:2:4,2:1,2:1,2",
	"pgft:3:4,4,3:1,2,4:1,2,2", "pgft:2:2,4:1,4:2,1", "xgft:3:4,4,4:1,2,2",
	"pgft:3:2,2,2:1,2,2:1,2,1", "pgft:2:4,3:1,1:1,2",
};

static void test_routes_valid(void **state)
{
	size_t i;
	unsigned lmc;

	(void)state;
	for (i = 0; i < sizeof(route_specs) / sizeof(route_specs[0]); i++)
		for (lmc = 0; lmc <= 2; lmc++) {
			check_all_routes(route_specs[i], lmc, "dmodk");
			check_all_routes(route_specs[i], lmc, "uapr");
		}
}

/* dmodk routes all LIDs of a port alike; uapr's offset 0 is dmodk. */
static void test_dmodk_offsets_alike(void **state)
{
	env_t d, u;
	uint32_t s, lid;

	(void)state;
	env_make(&d, "pgft:3:4,4,3:1,2,4:1,2,2", 2, "dmodk");
	env_make(&u, "pgft:3:4,4,3:1,2,4:1,2,2", 2, "uapr");
	for (s = 0; s < d.f->nswitches; s++)
		for (lid = 1; lid <= d.f->lid_top; lid++) {
			ibf_port_id_t o = ibf_fabric_lid_owner(d.f, lid);
			unsigned base;

			if (o == IBF_NO_ID || ibf_node_is_switch(d.f,
						d.f->ports[o].node))
				continue;
			base = d.f->ports[o].lid;
			assert_int_equal(ibf_lfts_get(d.r->lfts, s, lid),
					 ibf_lfts_get(d.r->lfts, s, base));
			assert_int_equal(ibf_lfts_get(u.r->lfts, s, base),
					 ibf_lfts_get(d.r->lfts, s, base));
		}
	env_free(&d);
	env_free(&u);
}

/* ---- uapr: uniform use of all shortest paths ------------------------- */

typedef struct paths {
	ibf_port_id_t *seq;  /* npaths * len egress ports */
	unsigned n, len;
	size_t cap;     /* elements */
} paths_t;

/* DFS over the BFS layers towards dst (distd = distance to dst's node). */
static void enum_paths(const ibf_fabric_t *f, const unsigned *distd,
		       ibf_port_id_t out, ibf_node_id_t dstnode,
		       ibf_port_id_t *cur, unsigned depth, paths_t *ps)
{
	ibf_port_id_t in = f->ports[out].peer;
	ibf_node_id_t n = f->ports[in].node;
	unsigned p;

	cur[depth++] = out;
	if (n == dstnode) {
		if ((size_t)(ps->n + 1) * ps->len > ps->cap) {
			ps->cap = 2 * (ps->n + 1) * ps->len;
			ps->seq = realloc(ps->seq, sizeof(*ps->seq) * ps->cap);
			assert_non_null(ps->seq);
		}
		memcpy(ps->seq + (size_t)ps->n * ps->len, cur,
		       sizeof(*cur) * ps->len);
		ps->n++;
		return;
	}
	if (!ibf_node_is_switch(f, n))
		return;
	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t o = ibf_node_port_id(f, n, p), peer;

		peer = f->ports[o].peer;
		if (peer != IBF_NO_ID &&
		    distd[f->ports[peer].node] + 1 == distd[n])
			enum_paths(f, distd, o, dstnode, cur, depth, ps);
	}
}

/* Enumerated path counts must also match the paper's formula. */
static void check_uapr(const char *spec, unsigned lmc, uint32_t stride)
{
	env_t e;
	const ibf_fabric_t *f;
	unsigned *distd, *use, noff = 1u << lmc;
	ibf_node_id_t *q;
	ibf_port_id_t cur[MAXH], hops[MAXH];
	uint32_t a, b;
	paths_t ps = { 0 };

	env_make(&e, spec, lmc, "uapr");
	f = e.f;
	distd = malloc(sizeof(*distd) * f->nnodes);
	q = malloc(sizeof(*q) * f->nnodes);
	assert_non_null(distd);
	assert_non_null(q);
	for (b = 0; b < f->nendpoints; b += 1) {
		ibf_port_id_t dst = f->endpoints[b];
		ibf_node_id_t dn = f->ports[dst].node;

		bfs_from(f, dn, distd, q);
		for (a = b % stride; a < f->nendpoints; a += stride) {
			ibf_port_id_t src = f->endpoints[a];
			unsigned j, i, lo = UINT32_MAX, hi = 0, k;

			if (f->ports[src].node == dn)
				continue;
			ps.n = 0;
			ps.len = distd[f->ports[src].node];
			enum_paths(f, distd, src, dn, cur, 0, &ps);
			/* the last hop must reach dst, not another port */
			for (i = k = 0; i < ps.n; i++)
				if (f->ports[ps.seq[(size_t)i * ps.len +
					     ps.len - 1]].peer == dst)
					memmove(ps.seq + (size_t)k++ * ps.len,
						ps.seq + (size_t)i * ps.len,
						sizeof(*ps.seq) * ps.len);
			ps.n = k;
			assert_true(ps.n > 0);
			use = calloc(ps.n, sizeof(*use));
			assert_non_null(use);
			for (j = 0; j < noff; j++) {
				int n = walk(&e, src, f->ports[dst].lid + j,
					     hops);

				assert_int_equal(n, (int)ps.len);
				for (i = 0; i < ps.n; i++)
					if (!memcmp(hops, ps.seq +
						    (size_t)i * ps.len,
						    sizeof(*hops) * ps.len))
						break;
				assert_true(i < ps.n);
				use[i]++;
			}
			for (i = 0; i < ps.n; i++) {
				if (use[i] < lo)
					lo = use[i];
				if (use[i] > hi)
					hi = use[i];
			}
			if (hi - lo > 1 || (noff % ps.n == 0 && hi != lo) ||
			    (noff >= ps.n && lo == 0))
				fail_msg("uapr %s lmc %u: %u -> %u: %u paths "
					 "used %u..%u times", spec, lmc, src,
					 dst, ps.n, lo, hi);
			free(use);
		}
	}
	free(ps.seq);
	free(distd);
	free(q);
	env_free(&e);
}

static void test_uapr_uniform(void **state)
{
	unsigned lmc;

	(void)state;
	for (lmc = 0; lmc <= 4; lmc++) {
		check_uapr("xgft:2:4,4:1,4", lmc, 1);        /* 4 paths */
		check_uapr("pgft:2:4,2:1,2:1,2", lmc, 1);    /* 8 paths */
		check_uapr("pgft:2:2,4:1,4:2,1", lmc, 1);
		check_uapr("xgft:2:6,4:1,3", lmc, 1);        /* 3 paths */
	}
	for (lmc = 0; lmc <= 5; lmc++)  /* 8 (NCA 2) and 16 (NCA 3) paths */
		check_uapr("pgft:3:2,2,2:1,2,2:1,2,1", lmc, 1);
	for (lmc = 0; lmc <= 4; lmc++)  /* up to 2*4*4*4 = 128 paths */
		check_uapr("pgft:3:4,4,3:1,2,4:1,2,2", lmc, 3);
}

/* The paper's path count prod(2<=i<=k) w_i p_i^2 for endpoints whose
 * NCAs are at level k, against the enumeration. */
static void test_path_count_formula(void **state)
{
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *f;
	ibf_err_t err;
	unsigned *distd;
	ibf_node_id_t *q;
	ibf_port_id_t cur[MAXH];
	paths_t ps = { 0 };

	(void)state;
	/* hosts 0 and 63 of pgft:3:4,4,3:1,2,4:1,2,2 have NCAs at level 3:
	 * paths 2*2*2 * 4*2*2 = 128 */
	assert_int_equal(ibf_gen("pgft:3:4,4,3:1,2,4:1,2,2", &go, &f, &err),
			 IBF_OK);
	distd = malloc(sizeof(*distd) * f->nnodes);
	q = malloc(sizeof(*q) * f->nnodes);
	assert_non_null(distd);
	assert_non_null(q);
	bfs_from(f, f->ports[f->endpoints[47]].node, distd, q);
	ps.len = distd[f->ports[f->endpoints[0]].node];
	assert_int_equal(ps.len, 6);
	enum_paths(f, distd, f->endpoints[0], f->ports[f->endpoints[47]].node,
		   cur, 0, &ps);
	assert_int_equal(ps.n, 128);
	bfs_from(f, f->ports[f->endpoints[5]].node, distd, q);
	ps.n = 0;
	ps.len = 4;
	enum_paths(f, distd, f->endpoints[0], f->ports[f->endpoints[5]].node,
		   cur, 0, &ps);
	assert_int_equal(ps.n, 8); /* level 2: w_2 p_2^2 */
	free(ps.seq);
	free(distd);
	free(q);
	ibf_fabric_destroy(f);
}

/* ---- degraded trees ---------------------------------------------------- */

typedef struct cut {
	const char *desc;
	unsigned port;
} cut_t;

static bool is_cut(const ibf_fabric_t *f, ibf_node_id_t n, unsigned port,
		   const cut_t *cuts)
{
	for (; cuts->desc; cuts++)
		if (cuts->port == port && !strcmp(ibf_node_desc(f, n),
						  cuts->desc))
			return true;
	return false;
}

static bool is_dropped(const ibf_fabric_t *f, ibf_node_id_t n,
		       const char *const *drops)
{
	for (; drops && *drops; drops++)
		if (!strcmp(ibf_node_desc(f, n), *drops))
			return true;
	return false;
}

/* A copy of spec's fabric (same nodes, GUIDs, LIDs) without the links at
 * the listed (switch, port) places and without the nodes named in drops
 * (NULL-terminated, may be NULL). */
static ibf_fabric_t *gen_cut_drop(const char *spec, unsigned lmc,
				  const cut_t *cuts, const char *const *drops)
{
	ibf_gen_opts_t go = { lmc };
	ibf_finalize_opts_t fo = { .lmc = lmc };
	ibf_fabric_t *g, *f;
	ibf_err_t err;
	ibf_node_id_t n, id;
	unsigned p, ncut = 0;

	ibf_node_id_t *map;

	assert_int_equal(ibf_gen(spec, &go, &g, &err), IBF_OK);
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	map = malloc(sizeof(*map) * g->nnodes);
	assert_non_null(map);
	for (n = 0; n < g->nnodes; n++) {
		const ibf_node_t *nd = &g->nodes[n];

		map[n] = IBF_NO_ID;
		if (is_dropped(g, n, drops))
			continue;
		assert_int_equal(ibf_fabric_add_node(f, nd->type, nd->guid,
				 ibf_node_desc(g, n), nd->nports, &id, &err),
				 IBF_OK);
		map[n] = id;
		for (p = 0; p <= nd->nports; p++) {
			const ibf_port_t *pp = ibf_node_port(g, n, p);

			if (nd->type == IBF_NODE_SWITCH && p > 0)
				continue;
			if (nd->type != IBF_NODE_SWITCH && p == 0)
				continue;
			assert_int_equal(ibf_fabric_set_port(f, id, p,
					 pp->guid, pp->lid, pp->lmc, &err),
					 IBF_OK);
		}
	}
	for (n = 0; n < g->nnodes; n++)
		for (p = 1; p <= g->nodes[n].nports; p++) {
			const ibf_port_t *pp = ibf_node_port(g, n, p), *q;

			if (pp->peer == IBF_NO_ID)
				continue;
			q = &g->ports[pp->peer];
			if (map[n] == IBF_NO_ID || map[q->node] == IBF_NO_ID)
				continue;
			if (is_cut(g, n, p, cuts) ||
			    is_cut(g, q->node, q->num, cuts)) {
				ncut++;
				continue;
			}
			assert_int_equal(ibf_fabric_link(f, map[n], p,
					 map[q->node], q->num, pp->width,
					 pp->speed, &err), IBF_OK);
		}
	if (ibf_fabric_finalize(f, &fo, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	ibf_fabric_destroy(g);
	free(map);
	assert_true(ncut > 0 || drops);
	return f;
}

static ibf_fabric_t *gen_cut(const char *spec, unsigned lmc,
			     const cut_t *cuts)
{
	return gen_cut_drop(spec, lmc, cuts, NULL);
}

/* Shortest up*-down* hop count from endpoint src to node dst, by BFS over
 * (node, still allowed up) states; levels from env. */
static unsigned updown_dist(const env_t *e, ibf_port_id_t src,
			    ibf_node_id_t dst)
{
	const ibf_fabric_t *f = e->f;
	uint32_t nn = f->nnodes, qh = 0, qt = 0, i;
	unsigned *d = malloc(sizeof(*d) * 2 * nn), res = UINT32_MAX;
	uint32_t *q = malloc(sizeof(*q) * 2 * nn);

	assert_non_null(d);
	assert_non_null(q);
	for (i = 0; i < 2 * nn; i++)
		d[i] = UINT32_MAX;
	i = f->ports[f->ports[src].peer].node;
	d[2 * i] = 1;
	q[qt++] = 2 * i;
	while (qh < qt && res == UINT32_MAX) {
		uint32_t st = q[qh++], a = st / 2, up = !(st & 1);
		unsigned p;

		if (a == dst) {
			res = d[st];
			break;
		}
		for (p = 1; p <= f->nodes[a].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, a, p)->peer;
			uint32_t b, ns;

			if (peer == IBF_NO_ID)
				continue;
			b = f->ports[peer].node;
			if (!ibf_node_is_switch(f, b)) {
				if (b == dst && peer != src)
					res = d[st] + 1;
				continue;
			}
			if (e->lvl[b] > e->lvl[a] && up)
				ns = 2 * b;
			else if (e->lvl[b] < e->lvl[a])
				ns = 2 * b + 1;
			else
				continue;
			if (d[ns] == UINT32_MAX) {
				d[ns] = d[st] + 1;
				q[qt++] = ns;
			}
		}
	}
	free(d);
	free(q);
	return res;
}

static void check_degraded(const char *spec, const cut_t *cuts,
			   const char *engine, unsigned lmc)
{
	env_t e;
	const ibf_fabric_t *f;
	ibf_port_id_t hops[MAXH];
	ibf_err_t err;
	uint32_t a, lid, nodetour = 0;
	unsigned want;

	memset(&e, 0, sizeof(e));
	e.f = gen_cut(spec, lmc, cuts);
	f = e.f;
	if (ibf_route(f, engine, NULL, &e.r, &err) != IBF_OK)
		fail_msg("%s on degraded %s: %s", engine, spec, err.msg);
	e.lvl = malloc(sizeof(*e.lvl) * f->nnodes);
	assert_non_null(e.lvl);
	{	/* levels of the intact generator (cuts keep them) */
		env_t g;

		env_make(&g, spec, lmc, "dmodk");
		memcpy(e.lvl, g.lvl, sizeof(*e.lvl) * f->nnodes);
		env_free(&g);
	}
	for (a = 0; a < f->nendpoints; a++) {
		ibf_port_id_t src = f->endpoints[a];

		for (lid = 1; lid <= f->lid_top; lid++) {
			ibf_port_id_t dst = ibf_fabric_lid_owner(f, lid);
			int n;

			if (dst == IBF_NO_ID || dst == src)
				continue;
			n = walk(&e, src, lid, hops);
			if (n < 0)
				fail_msg("%s degraded %s: LID %u not delivered "
					 "from port %u", engine, spec, lid, src);
			want = updown_dist(&e, src, f->ports[dst].node);
			/* a switch LID may have no up*-down* route left:
			 * delivered is then all that is asked */
			if (want == UINT32_MAX &&
			    ibf_node_is_switch(f, f->ports[dst].node)) {
				nodetour++;
				continue;
			}
			if (!up_down(&e, hops, n))
				fail_msg("%s degraded %s: %u -> LID %u not "
					 "up*-down*", engine, spec, src, lid);
			if ((unsigned)n != want)
				fail_msg("%s degraded %s: %u -> LID %u: %d "
					 "hops, shortest up*-down* %u", engine,
					 spec, src, lid, n,
					 want);
		}
	}
	/* only the endpoints of leaves that lost links can be affected */
	assert_true(nodetour < f->nendpoints * f->nswitches / 4);
	env_free(&e);
}

static void test_degraded(void **state)
{
	static const cut_t kary[] = {
		{ "s1-0", 5 }, { "s1-5", 8 }, { "s2-3", 6 }, { "s2-9", 2 },
		{ "s3-4", 1 }, { NULL, 0 } };
	static const cut_t xgft[] = {
		{ "s1-0", 5 }, { "s2-1", 3 }, { NULL, 0 } };
	static const cut_t par[] = {  /* one of two parallel links */
		{ "s1-0", 5 }, { "s1-3", 8 }, { NULL, 0 } };
	unsigned lmc;

	(void)state;
	for (lmc = 0; lmc <= 2; lmc += 2) {
		check_degraded("kary:4,3", kary, "dmodk", lmc);
		check_degraded("kary:4,3", kary, "uapr", lmc);
		check_degraded("xgft:2:4,4:1,4", xgft, "dmodk", lmc);
		check_degraded("xgft:2:4,4:1,4", xgft, "uapr", lmc);
		check_degraded("pgft:2:4,2:1,2:1,2", par, "dmodk", lmc);
		check_degraded("pgft:2:4,2:1,2:1,2", par, "uapr", lmc);
	}
}

/* A leaf cut off from every spine: refused, the engine named. */
static void test_degraded_unreachable(void **state)
{
	static const cut_t cuts[] = { { "s1-0", 5 }, { NULL, 0 } };
	ibf_fabric_t *f = gen_cut("xgft:2:4,4:1,1", 0, cuts);
	ibf_routing_t *r = NULL;
	ibf_err_t err;

	(void)state;
	assert_int_not_equal(ibf_route(f, "dmodk", NULL, &r, &err), IBF_OK);
	assert_null(r);
	assert_memory_equal(err.msg, "dmodk: ", 7);
	ibf_fabric_destroy(f);
}

/* w_1 = 2: two planes.  Pairs inside a plane are routed as usual; a LID
 * of the other plane has no path, and its entries end at some CA of the
 * sender's plane without looping. */
static void test_two_planes(void **state)
{
	env_t e;
	const ibf_fabric_t *f;
	ibf_port_id_t hops[MAXH];
	uint32_t a, b, same = 0, other = 0;

	(void)state;
	env_make(&e, "pgft:2:4,4:2,4:1,1", 1, "uapr");
	f = e.f;
	for (a = 0; a < f->nendpoints; a++)
		for (b = 0; b < f->nendpoints; b++) {
			ibf_port_id_t s = f->endpoints[a], d = f->endpoints[b];
			unsigned j;

			if (a == b)
				continue;
			for (j = 0; j < 2; j++) {
				unsigned lid = f->ports[d].lid + j;
				int n = walk(&e, s, lid, hops);
				/* same plane = same port number (hosts
				 * link port y to plane y) */
				bool sp = f->ports[s].num == f->ports[d].num;

				if (sp) {
					same++;
					assert_true(n > 0);
					assert_true(up_down(&e, hops, n));
				} else {
					other++;
					/* ended at a CA, not in a loop */
					assert_int_equal(n, WALK_WRONG_CA);
				}
			}
		}
	assert_true(same > 0 && other > 0);
	env_free(&e);
}

/* ---- what moves when something fails ---------------------------------- */

/* Walk from switch node `from` (not an endpoint) to dlid over the tables;
 * the egress ports into hops[].  Returns hops or WALK_* < 0. */
static int walk_from(const ibf_fabric_t *f, const ibf_lfts_t *l,
		     ibf_node_id_t from, unsigned dlid, ibf_port_id_t *hops)
{
	ibf_node_id_t node = from;
	int n = 0;

	while (n < MAXH) {
		unsigned entry = l->port[(size_t)f->switch_index[node] *
					 l->stride + dlid];
		ibf_port_id_t out, in;

		if (entry == 0 || entry > f->nodes[node].nports)
			return WALK_LOST;
		out = ibf_node_port_id(f, node, entry);
		hops[n++] = out;
		in = f->ports[out].peer;
		if (in == IBF_NO_ID)
			return WALK_LOST;
		node = f->ports[in].node;
		if (!ibf_node_is_switch(f, node))
			return n;
	}
	return WALK_LOST;
}

/* Does the route use a link or node the degraded copy d lacks (by GUID
 * and port number)? */
static bool route_hits_loss(const ibf_fabric_t *g, const ibf_fabric_t *d,
			    const ibf_port_id_t *hops, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		const ibf_port_t *a = &g->ports[hops[k]];
		const ibf_port_t *b = &g->ports[a->peer];
		ibf_node_id_t x = ibf_fabric_node_by_guid(d,
						g->nodes[a->node].guid);
		ibf_node_id_t y = ibf_fabric_node_by_guid(d,
						g->nodes[b->node].guid);
		ibf_port_id_t px;

		if (x == IBF_NO_ID || y == IBF_NO_ID)
			return true;
		px = ibf_node_port(d, x, a->num)->peer;
		if (px == IBF_NO_ID || d->ports[px].node != y ||
		    d->ports[px].num != b->num)
			return true;
	}
	return false;
}

/*
 * The complete tree routed, then the degraded copy: every entry (switch,
 * endpoint LID) whose complete route from that switch avoids what was
 * lost must be unchanged, and every entry of a lost host's LID is gone
 * with it.  Returns how many entries changed.
 */
static uint32_t check_minimal(const char *spec, unsigned lmc,
			      const char *engine, const cut_t *cuts,
			      const char *const *drops)
{
	ibf_gen_opts_t go = { lmc };
	ibf_fabric_t *g, *d;
	ibf_routing_t *rg, *rd;
	ibf_port_id_t hops[MAXH];
	ibf_err_t err;
	uint32_t s, lid, changed = 0;

	assert_int_equal(ibf_gen(spec, &go, &g, &err), IBF_OK);
	d = gen_cut_drop(spec, lmc, cuts, drops);
	if (ibf_route(g, engine, NULL, &rg, &err) != IBF_OK ||
	    ibf_route(d, engine, NULL, &rd, &err) != IBF_OK)
		fail_msg("%s on %s: %s", engine, spec, err.msg);
	for (s = 0; s < g->nswitches; s++) {
		ibf_node_id_t n = g->switches[s];
		ibf_node_id_t m = ibf_fabric_node_by_guid(d, g->nodes[n].guid);

		if (m == IBF_NO_ID)
			continue;
		for (lid = 1; lid <= g->lid_top; lid++) {
			ibf_port_id_t owner = ibf_fabric_lid_owner(d, lid);
			unsigned eg = ibf_lfts_get(rg->lfts, s, lid);
			unsigned ed = ibf_lfts_get(rd->lfts,
						   d->switch_index[m], lid);
			int k;

			if (owner == IBF_NO_ID ||
			    ibf_node_is_switch(d, d->ports[owner].node))
				continue;
			changed += eg != ed;
			k = walk_from(g, rg->lfts, n, lid, hops);
			assert_true(k > 0);
			if (!route_hits_loss(g, d, hops, k) && eg != ed)
				fail_msg("%s %s: switch \"%s\" LID %u moved "
					 "from port %u to %u although its "
					 "route lost nothing", engine, spec,
					 ibf_node_desc(g, n), lid, eg, ed);
		}
	}
	ibf_routing_destroy(rg);
	ibf_routing_destroy(rd);
	ibf_fabric_destroy(g);
	ibf_fabric_destroy(d);
	return changed;
}

static void test_minimal_change(void **state)
{
	static const cut_t none[] = { { NULL, 0 } };
	static const char *const hosts[] = { "h0013 HCA-1", "h0040 HCA-1",
					     NULL };
	static const char *const top[] = { "s3-5", NULL };
	static const char *const mid[] = { "s2-6", NULL };
	static const char *const leafall[] = { "h0020 HCA-1", "h0021 HCA-1",
					       "h0022 HCA-1", "h0023 HCA-1",
					       NULL };
	static const cut_t kary[] = {
		{ "s1-0", 5 }, { "s1-5", 8 }, { "s2-3", 6 }, { "s2-9", 2 },
		{ "s3-4", 1 }, { NULL, 0 } };
	static const cut_t xg8[] = {
		{ "s1-0", 12 }, { "s1-3", 9 }, { "s1-3", 10 }, { "s2-5", 7 },
		{ NULL, 0 } };
	static const char *const engines[] = { "dmodk", "uapr" };
	unsigned k, lmc;

	(void)state;
	for (k = 0; k < 2; k++)
		for (lmc = 0; lmc <= 1; lmc++) {
			/* hosts only: nothing else moves at all */
			assert_int_equal(check_minimal("kary:4,3", lmc,
				engines[k], none, hosts), 0);
			assert_int_equal(check_minimal("xgft:2:8,8:1,8", lmc,
				engines[k], none, hosts), 0);
			assert_int_equal(check_minimal("kary:4,3", lmc,
				engines[k], none, leafall), 0);
			assert_true(check_minimal("kary:4,3", lmc, engines[k],
						  none, top) > 0);
			assert_true(check_minimal("kary:4,3", lmc, engines[k],
						  none, mid) > 0);
			assert_true(check_minimal("kary:4,3", lmc, engines[k],
						  kary, NULL) > 0);
			assert_true(check_minimal("xgft:2:8,8:1,8", lmc,
						  engines[k], xg8, NULL) > 0);
		}
}

/* Leaf s1-0 of XGFT(2;8,8;1,8) loses its uplink to s2-3 (port 12): the 7
 * destinations (one host under each other leaf) that used it go one to
 * each of the 7 other uplinks, not all to the next one. */
static void test_spread(void **state)
{
	static const cut_t cut[] = { { "s1-0", 12 }, { NULL, 0 } };
	ibf_fabric_t *f = gen_cut("xgft:2:8,8:1,8", 0, cut);
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *g;
	ibf_routing_t *rf, *rg;
	ibf_err_t err;
	unsigned per[256] = { 0 }, lid, p, moved = 0, used = 0;
	uint32_t sf, sg;

	(void)state;
	assert_int_equal(ibf_gen("xgft:2:8,8:1,8", &go, &g, &err), IBF_OK);
	assert_int_equal(ibf_route(f, "dmodk", NULL, &rf, &err), IBF_OK);
	assert_int_equal(ibf_route(g, "dmodk", NULL, &rg, &err), IBF_OK);
	sf = f->switch_index[ibf_fabric_node_by_desc(f, "s1-0", NULL)];
	sg = g->switch_index[ibf_fabric_node_by_desc(g, "s1-0", NULL)];
	for (lid = 1; lid <= f->lid_top; lid++) {
		unsigned a = ibf_lfts_get(rg->lfts, sg, lid);
		unsigned b = ibf_lfts_get(rf->lfts, sf, lid);
		ibf_port_id_t o = ibf_fabric_lid_owner(f, lid);

		if (o == IBF_NO_ID || ibf_node_is_switch(f, f->ports[o].node))
			continue; /* endpoint LIDs only */
		if (a == 12) {
			assert_int_not_equal(b, 12);
			per[b]++;
			moved++;
		} else {
			assert_int_equal(a, b);
		}
	}
	for (p = 9; p <= 16; p++)
		if (per[p]) {
			used++;
			assert_int_equal(per[p], 1);
		}
	assert_int_equal(moved, 7);
	assert_int_equal(used, 7);
	ibf_routing_destroy(rf);
	ibf_routing_destroy(rg);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(g);
}

/* Pairs left without an up*-down* path are not routed (the packet stops
 * at the first switch); all others are, shortest and up*-down*. */
static void test_unreachable_pairs(void **state)
{
	static const cut_t cuts[] = {
		{ "s1-0", 3 }, { "s1-0", 4 }, { "s1-1", 5 }, { NULL, 0 } };
	const char *const engines[] = { "dmodk", "uapr" };
	ibf_port_id_t hops[MAXH];
	unsigned k, lmc;

	(void)state;
	for (k = 0; k < 2; k++)
		for (lmc = 0; lmc <= 1; lmc++) {
			env_t e;
			const ibf_fabric_t *f;
			ibf_err_t err;
			uint32_t a, lid, lost = 0;

			memset(&e, 0, sizeof(e));
			e.f = gen_cut("xgft:3:2,3,2:1,3,2", lmc, cuts);
			f = e.f;
			if (ibf_route(f, engines[k], NULL, &e.r, &err) !=
			    IBF_OK)
				fail_msg("%s: %s", engines[k], err.msg);
			assert_true(e.r->unrouted > 0);
			{
				env_t g;

				env_make(&g, "xgft:3:2,3,2:1,3,2", lmc,
					 "dmodk");
				e.lvl = g.lvl;
				g.lvl = NULL;
				env_free(&g);
			}
			for (a = 0; a < f->nendpoints; a++)
				for (lid = 1; lid <= f->lid_top; lid++) {
					ibf_port_id_t src = f->endpoints[a];
					ibf_port_id_t dst =
						ibf_fabric_lid_owner(f, lid);
					unsigned want;
					int n;

					if (dst == IBF_NO_ID || dst == src ||
					    ibf_node_is_switch(f,
						f->ports[dst].node))
						continue;
					want = updown_dist(&e, src,
							   f->ports[dst].node);
					n = walk(&e, src, lid, hops);
					if (want == UINT32_MAX) {
						assert_int_equal(n, WALK_LOST);
						assert_int_equal(
							ibf_lfts_get(e.r->lfts,
							f->switch_index[
							f->ports[f->ports[src]
							.peer].node], lid),
							IBF_LFT_NO_PORT);
						lost++;
						continue;
					}
					assert_true(n > 0);
					assert_true(up_down(&e, hops, n));
					assert_int_equal((unsigned)n, want);
				}
			/* leaves s1-0 and s1-1, 2 hosts each, both ways,
			 * every LID of the destination */
			assert_int_equal(lost, 8u << lmc);
			env_free(&e);
		}
}

/* ---- node order does not matter ---------------------------------------- */

/* OpenSM's plugin builds its model in NodeGUID order, ibnetdiscover lists
 * nodes in discovery order: the tables must not depend on which. */

/* The same subnet as g read in another node order: nodes added in a
 * shuffled order, links in a shuffled order too; GUIDs, descriptions, port
 * numbers, LIDs and links unchanged. */
static ibf_fabric_t *shuffled_copy(const ibf_fabric_t *g, uint64_t seed)
{
	ibf_finalize_opts_t fo = { .lmc = g->lmc };
	uint32_t *order = malloc(sizeof(*order) * g->nnodes);
	uint32_t *map = malloc(sizeof(*map) * g->nnodes);
	uint32_t *lk = malloc(sizeof(*lk) * g->nports), nl = 0, i;
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	ibf_fabric_t *f;
	ibf_err_t err;
	unsigned p;

	assert_non_null(order);
	assert_non_null(map);
	assert_non_null(lk);
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < g->nnodes; i++)
		order[i] = i;
	tu_shuffle(order, g->nnodes, &s);
	for (i = 0; i < g->nnodes; i++) {
		ibf_node_id_t n = order[i];
		const ibf_node_t *nd = &g->nodes[n];
		bool sw = nd->type == IBF_NODE_SWITCH;

		assert_int_equal(ibf_fabric_add_node(f, nd->type, nd->guid,
				 ibf_node_desc(g, n), nd->nports, &map[n],
				 &err), IBF_OK);
		for (p = sw ? 0 : 1; p <= (sw ? 0u : nd->nports); p++) {
			const ibf_port_t *pp = ibf_node_port(g, n, p);

			assert_int_equal(ibf_fabric_set_port(f, map[n], p,
					 pp->guid, pp->lid, pp->lmc, &err),
					 IBF_OK);
		}
	}
	for (i = 0; i < g->nports; i++)
		if (g->ports[i].peer != IBF_NO_ID && g->ports[i].peer > i)
			lk[nl++] = i;
	tu_shuffle(lk, nl, &s);
	for (i = 0; i < nl; i++) {
		const ibf_port_t *a = &g->ports[lk[i]], *b = &g->ports[a->peer];

		assert_int_equal(ibf_fabric_link(f, map[a->node], a->num,
				 map[b->node], b->num, a->width, a->speed,
				 &err), IBF_OK);
	}
	if (ibf_fabric_finalize(f, &fo, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	free(order);
	free(map);
	free(lk);
	return f;
}

/* Every entry of every switch (matched by NodeGUID) and the host order (by
 * port GUID) of ra on a equal those of rb on b. */
static void same_tables(const char *what, const ibf_fabric_t *a,
			const ibf_routing_t *ra, const ibf_fabric_t *b,
			const ibf_routing_t *rb)
{
	uint32_t s, lid, i, diff = 0, ndiff = 0, fs = 0, fl = 0;

	assert_int_equal(a->lid_top, b->lid_top);
	assert_int_equal(a->nswitches, b->nswitches);
	for (s = 0; s < a->nswitches; s++) {
		ibf_node_id_t n = a->switches[s];
		ibf_node_id_t m = ibf_fabric_node_by_guid(b, a->nodes[n].guid);

		assert_int_not_equal(m, IBF_NO_ID);
		for (lid = 1; lid <= a->lid_top; lid++) {
			if (ibf_lfts_get(ra->lfts, s, lid) ==
			    ibf_lfts_get(rb->lfts, b->switch_index[m], lid))
				continue;
			if (!diff++) {
				fs = s;
				fl = lid;
			}
		}
	}
	if (diff)
		fail_msg("%s: %u entries differ in the shuffled copy, first "
			 "switch \"%s\" LID %u: port %u, shuffled %u", what,
			 diff, ibf_node_desc(a, a->switches[fs]), fl,
			 ibf_lfts_get(ra->lfts, fs, fl),
			 ibf_lfts_get(rb->lfts, b->switch_index[
				ibf_fabric_node_by_guid(b,
				a->nodes[a->switches[fs]].guid)], fl));
	assert_int_equal(ra->norder, rb->norder);
	for (i = 0; i < ra->norder; i++)
		ndiff += a->ports[ra->order[i]].guid !=
			 b->ports[rb->order[i]].guid;
	if (ndiff)
		fail_msg("%s: %u of %u places of the host order differ in the "
			 "shuffled copy", what, ndiff, ra->norder);
}

/* g routed by both engines equals 3 shuffled copies routed alike. */
static void check_order_free(const char *what, const ibf_fabric_t *g)
{
	static const char *const engines[] = { "dmodk", "uapr" };
	unsigned k, seed;
	char msg[160];

	for (k = 0; k < 2; k++) {
		ibf_routing_t *r0 = NULL;
		ibf_err_t err;

		if (ibf_route(g, engines[k], NULL, &r0, &err) != IBF_OK)
			fail_msg("%s on %s: %s", engines[k], what, err.msg);
		for (seed = 1; seed <= 3; seed++) {
			ibf_fabric_t *f = shuffled_copy(g, seed);
			ibf_routing_t *r1 = NULL;
			uint32_t n, moved = 0;

			for (n = 0; n < g->nnodes; n++)
				moved += f->nodes[n].guid != g->nodes[n].guid;
			assert_true(moved > g->nnodes / 2);
			if (ibf_route(f, engines[k], NULL, &r1, &err) != IBF_OK)
				fail_msg("%s on shuffled %s: %s", engines[k],
					 what, err.msg);
			snprintf(msg, sizeof(msg), "%s %s seed %u", engines[k],
				 what, seed);
			same_tables(msg, g, r0, f, r1);
			ibf_routing_destroy(r1);
			ibf_fabric_destroy(f);
		}
		ibf_routing_destroy(r0);
	}
}

static void test_node_order_free(void **state)
{
	static const struct {
		const char *spec;
		unsigned lmc;
	} cases[] = {
		{ "xgft:2:4,4:1,4", 0 }, { "xgft:2:4,4:1,4", 2 },
		{ "kary:4,3", 2 },
		{ "pgft:2:4,2:1,2:1,2", 0 },        /* parallel links */
		{ "pgft:2:4,2:1,2:1,2", 2 },
		{ "pgft:3:4,4,3:1,2,4:1,2,2", 0 },
		{ "pgft:3:4,4,3:1,2,4:1,2,2", 2 },
		{ "pgft:2:2,4:1,4:2,1", 2 },        /* 2-port hosts */
		{ "pgft:2:4,4:2,4:1,1", 1 },        /* two planes */
		{ "xgft:3:4,4,4:1,2,2", 0 },        /* slimmed */
		{ "xgft:3:4,4,4:1,2,2", 2 },
		{ "pgft:3:2,4,2:1,2,2:1,2,4", 1 },  /* fatted */
	};
	static const cut_t kary[] = {
		{ "s1-0", 5 }, { "s1-5", 8 }, { "s2-3", 6 }, { "s2-9", 2 },
		{ "s3-4", 1 }, { NULL, 0 } };
	static const cut_t par[] = {
		{ "s1-0", 5 }, { "s1-3", 8 }, { NULL, 0 } };
	char what[96];
	unsigned lmc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ibf_gen_opts_t go = { cases[i].lmc };
		ibf_fabric_t *g;
		ibf_err_t err;

		if (ibf_gen(cases[i].spec, &go, &g, &err) != IBF_OK)
			fail_msg("gen %s: %s", cases[i].spec, err.msg);
		snprintf(what, sizeof(what), "%s lmc %u", cases[i].spec,
			 cases[i].lmc);
		check_order_free(what, g);
		ibf_fabric_destroy(g);
	}
	for (lmc = 0; lmc <= 2; lmc += 2) {
		ibf_fabric_t *g = gen_cut("kary:4,3", lmc, kary);

		snprintf(what, sizeof(what), "degraded kary:4,3 lmc %u", lmc);
		check_order_free(what, g);
		ibf_fabric_destroy(g);
		g = gen_cut("pgft:2:4,2:1,2:1,2", lmc, par);
		snprintf(what, sizeof(what), "degraded pgft:2:4,2:1,2:1,2 "
			 "lmc %u", lmc);
		check_order_free(what, g);
		ibf_fabric_destroy(g);
	}
}

/* ---- the library's checker agrees ------------------------------------ */

static void test_check_clean(void **state)
{
	static const char *const specs[] = {
		"xgft:2:4,4:1,4", "kary:4,3", "pgft:2:4,2:1,2:1,2",
		"pgft:3:4,4,3:1,2,4:1,2,2", "xgft:2:4,4:1,2",
		"pgft:2:2,4:1,4:2,1",
	};
	static const char *const engines[] = { "dmodk", "uapr" };
	size_t i, k;
	unsigned lmc;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		for (k = 0; k < 2; k++)
			for (lmc = 0; lmc <= 3; lmc++) {
				ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
				ibf_check_report_t rep;
				ibf_err_t err;
				env_t e;

				o.switches = true;
				env_make(&e, specs[i], lmc, engines[k]);
				assert_int_equal(ibf_check_run(e.r->lfts, &o,
							       &rep, &err),
						 IBF_OK);
				if (ibf_check_defects(&rep))
					fail_msg("%s %s lmc %u: %llu defects",
						 engines[k], specs[i], lmc,
						 (unsigned long long)
						 ibf_check_defects(&rep));
				ibf_check_report_free(&rep);
				env_free(&e);
			}
}

/* A non-PGFT is refused with the engine's name in front. */
static void test_refuse_non_pgft(void **state)
{
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *f;
	ibf_routing_t *r = NULL;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_gen("slimfly:5", &go, &f, &err), IBF_OK);
	assert_int_not_equal(ibf_route(f, "dmodk", NULL, &r, &err), IBF_OK);
	assert_null(r);
	assert_memory_equal(err.msg, "dmodk: ", 7);
	assert_int_not_equal(ibf_route(f, "uapr", NULL, &r, &err), IBF_OK);
	assert_memory_equal(err.msg, "uapr: ", 6);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oversub_formula),
		cmocka_unit_test(test_dmodk_shifts),
		cmocka_unit_test(test_dmodk_shifts_bad_order),
		cmocka_unit_test(test_routes_valid),
		cmocka_unit_test(test_dmodk_offsets_alike),
		cmocka_unit_test(test_path_count_formula),
		cmocka_unit_test(test_uapr_uniform),
		cmocka_unit_test(test_check_clean),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_two_planes),
		cmocka_unit_test(test_degraded_unreachable),
		cmocka_unit_test(test_minimal_change),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_unreachable_pairs),
		cmocka_unit_test(test_refuse_non_pgft),
		cmocka_unit_test(test_node_order_free),
	};
	return cmocka_run_group_tests_name("dmodk_uapr", tests, NULL, NULL);
}
