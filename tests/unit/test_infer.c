/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Unit tests of topology inference (ibflow/infer.h).
 *
 * The inferred tree is judged by code of this file only:
 *  - splits: every edge of a tree cuts the hosts in two; two trees
 *    without relay switches (degree 2) are the same up to isomorphism iff
 *    they cut the same splits.  The true splits come from the fabric
 *    (trees: each link; fat trees: the hosts below each switch, "below"
 *    by hops from the nearest host), the inferred ones from the edge
 *    list, both by our own walks;
 *  - shared links: "do the paths A-B and C-D share an edge?" by walking
 *    both paths edge by edge in the true fabric and in the inferred tree,
 *    over every quadruple, against the counts ibf_infer_accuracy reports;
 *  - hand cases: RTTs of small trees worked out by hand (equation (1));
 *  - the paper's bound p(d-1)+1 on the pairs measured to insert a host
 *    (close-host search off), p and d of the true tree counted here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/infer.h>
#include <ibflow/topo_io.h>

#include "../shuffle.h"

/* ---- a graph of the test's own ------------------------------------------ */

struct graph {
	unsigned n;          /* nodes */
	unsigned nhosts;     /* nodes 0..nhosts-1 are the hosts */
	unsigned *deg;
	unsigned **nb;       /* neighbours */
};

/* The oracle o measuring one pair at a time, in the order the search
 * starts them (the search's path for oracles without start and wait). */
static ibf_infer_oracle_t one_at_a_time(ibf_infer_oracle_t o)
{
	o.start = NULL;
	o.wait = NULL;
	return o;
}

static void graph_init(struct graph *g, unsigned n, unsigned nhosts)
{
	unsigned i;

	g->n = n;
	g->nhosts = nhosts;
	g->deg = calloc(n, sizeof(*g->deg));
	g->nb = calloc(n, sizeof(*g->nb));
	assert_non_null(g->deg);
	assert_non_null(g->nb);
	for (i = 0; i < n; i++) {
		g->nb[i] = malloc(n * sizeof(**g->nb));
		assert_non_null(g->nb[i]);
	}
}

static void graph_edge(struct graph *g, unsigned a, unsigned b)
{
	g->nb[a][g->deg[a]++] = b;
	g->nb[b][g->deg[b]++] = a;
}

static void graph_free(struct graph *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++)
		free(g->nb[i]);
	free(g->nb);
	free(g->deg);
}

/* The fabric as a graph: endpoints first (hosts), then the switches. */
static void graph_of_fabric(const ibf_fabric_t *f, struct graph *g)
{
	unsigned *id = malloc(f->nnodes * sizeof(*id)), i, n, p, next;

	assert_non_null(id);
	for (i = 0; i < f->nnodes; i++)
		id[i] = UINT32_MAX;
	for (i = 0; i < f->nendpoints; i++)
		id[f->ports[f->endpoints[i]].node] = i;
	next = f->nendpoints;
	for (i = 0; i < f->nnodes; i++)
		if (id[i] == UINT32_MAX)
			id[i] = next++;
	graph_init(g, f->nnodes, f->nendpoints);
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = ibf_node_port(f, n, p)->peer;

			if (q != IBF_NO_ID && q > ibf_node_port_id(f, n, p))
				graph_edge(g, id[n], id[f->ports[q].node]);
		}
	free(id);
}

static void graph_of_tree(const ibf_infer_tree_t *t, struct graph *g)
{
	unsigned i;

	graph_init(g, t->nnodes, t->nhosts);
	for (i = 0; i < t->nedges; i++)
		graph_edge(g, t->ea[i], t->eb[i]);
}

/* Hosts reached from `from` without crossing `avoid`, as a bitmap. */
static void side(const struct graph *g, unsigned from, unsigned avoid,
		 uint8_t *hosts)
{
	unsigned *st = malloc(g->n * sizeof(*st)), sp = 0, i;
	uint8_t *seen = calloc(g->n, 1);

	memset(hosts, 0, g->nhosts);
	seen[from] = seen[avoid] = 1;
	st[sp++] = from;
	while (sp) {
		unsigned v = st[--sp];

		if (v < g->nhosts)
			hosts[v] = 1;
		for (i = 0; i < g->deg[v]; i++)
			if (!seen[g->nb[v][i]]) {
				seen[g->nb[v][i]] = 1;
				st[sp++] = g->nb[v][i];
			}
	}
	free(st);
	free(seen);
}

/* ---- splits ------------------------------------------------------------- */

struct splits {
	unsigned n, cap, nhosts;
	uint8_t *s; /* n bitmaps of nhosts bytes, the side without host 0 */
};

static void splits_add(struct splits *sp, const uint8_t *hosts)
{
	unsigned i, k = 0;
	uint8_t flip = hosts[0];

	for (i = 0; i < sp->nhosts; i++)
		k += hosts[i];
	if (k == 0 || k == sp->nhosts)
		return; /* no host on one side: no split */
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 64;
		sp->s = realloc(sp->s, (size_t)sp->cap * sp->nhosts);
		assert_non_null(sp->s);
	}
	for (i = 0; i < sp->nhosts; i++)
		sp->s[(size_t)sp->n * sp->nhosts + i] = hosts[i] ^ flip;
	sp->n++;
}

static size_t cmp_len;

static int cmp_split(const void *a, const void *b)
{
	return memcmp(a, b, cmp_len);
}

/* Sorted, without duplicates (a relay switch cuts its split twice). */
static void splits_norm(struct splits *sp)
{
	unsigned i, k = 0;

	cmp_len = sp->nhosts;
	qsort(sp->s, sp->n, sp->nhosts, cmp_split);
	for (i = 0; i < sp->n; i++)
		if (!k || memcmp(sp->s + (size_t)(k - 1) * sp->nhosts,
				 sp->s + (size_t)i * sp->nhosts, sp->nhosts))
			memmove(sp->s + (size_t)k++ * sp->nhosts,
				sp->s + (size_t)i * sp->nhosts, sp->nhosts);
	sp->n = k;
}

/* Splits of a tree graph: one per edge. */
static void tree_splits(const struct graph *g, struct splits *sp)
{
	uint8_t *h = malloc(g->nhosts);
	unsigned v, i;

	memset(sp, 0, sizeof(*sp));
	sp->nhosts = g->nhosts;
	for (v = 0; v < g->n; v++)
		for (i = 0; i < g->deg[v]; i++)
			if (g->nb[v][i] > v) {
				side(g, v, g->nb[v][i], h);
				splits_add(sp, h);
			}
	splits_norm(sp);
	free(h);
}

/* Splits of a fat tree as RTTs show it: the hosts below every node, where
 * going down means fewer hops to the nearest host. */
static void fat_splits(const struct graph *g, struct splits *sp)
{
	unsigned *lvl = malloc(g->n * sizeof(*lvl)), *q = malloc(g->n * 4);
	unsigned *st = malloc(g->n * sizeof(*st));
	uint8_t *h = malloc(g->nhosts), *seen = malloc(g->n);
	unsigned qh = 0, qt = 0, v, i;

	memset(sp, 0, sizeof(*sp));
	sp->nhosts = g->nhosts;
	for (v = 0; v < g->n; v++) {
		lvl[v] = v < g->nhosts ? 0 : UINT32_MAX;
		if (v < g->nhosts)
			q[qt++] = v;
	}
	while (qh < qt) {
		v = q[qh++];
		for (i = 0; i < g->deg[v]; i++)
			if (lvl[g->nb[v][i]] == UINT32_MAX) {
				lvl[g->nb[v][i]] = lvl[v] + 1;
				q[qt++] = g->nb[v][i];
			}
	}
	for (v = 0; v < g->n; v++) {
		unsigned sp2 = 0;

		memset(h, 0, g->nhosts);
		memset(seen, 0, g->n);
		st[sp2++] = v;
		seen[v] = 1;
		while (sp2) {
			unsigned u = st[--sp2];

			if (u < g->nhosts)
				h[u] = 1;
			for (i = 0; i < g->deg[u]; i++) {
				unsigned w = g->nb[u][i];

				if (!seen[w] && lvl[w] < lvl[u]) {
					seen[w] = 1;
					st[sp2++] = w;
				}
			}
		}
		splits_add(sp, h);
	}
	splits_norm(sp);
	free(lvl);
	free(q);
	free(st);
	free(h);
	free(seen);
}

static bool splits_equal(const struct splits *a, const struct splits *b)
{
	return a->n == b->n && a->nhosts == b->nhosts &&
	       !memcmp(a->s, b->s, (size_t)a->n * a->nhosts);
}

/* ---- paths, for shared-link answers -------------------------------------------- */

/* Parent pointers of the tree graph from every host (n x nodes). */
static unsigned *parents(const struct graph *g)
{
	unsigned *par = malloc((size_t)g->nhosts * g->n * sizeof(*par));
	unsigned *q = malloc(g->n * sizeof(*q)), h, i;

	for (h = 0; h < g->nhosts; h++) {
		unsigned *p = par + (size_t)h * g->n, qh = 0, qt = 0;

		for (i = 0; i < g->n; i++)
			p[i] = UINT32_MAX;
		p[h] = h;
		q[qt++] = h;
		while (qh < qt) {
			unsigned v = q[qh++];

			for (i = 0; i < g->deg[v]; i++)
				if (p[g->nb[v][i]] == UINT32_MAX) {
					p[g->nb[v][i]] = v;
					q[qt++] = g->nb[v][i];
				}
		}
	}
	free(q);
	return par;
}

/* Do the paths a-b and c-d share an edge?  Walk a-b from b towards a,
 * mark its edges (by their node pair), then walk c-d. */
static bool share(const struct graph *g, const unsigned *par, unsigned a,
		  unsigned b, unsigned c, unsigned d, uint8_t *mark)
{
	const unsigned *pa = par + (size_t)a * g->n;
	const unsigned *pc = par + (size_t)c * g->n;
	unsigned v;
	bool hit = false;

	for (v = b; v != a; v = pa[v])
		mark[v * g->n + pa[v]] = mark[pa[v] * g->n + v] = 1;
	for (v = d; v != c && !hit; v = pc[v])
		hit = mark[v * g->n + pc[v]];
	for (v = b; v != a; v = pa[v])
		mark[v * g->n + pa[v]] = mark[pa[v] * g->n + v] = 0;
	return hit;
}

/* ---- running the inference ---------------------------------------------- */

static ibf_infer_synth_t *synth(const ibf_fabric_t *f, double noise,
				double jitter, uint64_t seed)
{
	ibf_infer_synth_opts_t o = { .noise = noise, .jitter = jitter,
				     .seed = seed };
	ibf_infer_synth_t *s;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_infer_synth_create(f, &o, &s, &err) != IBF_OK)
		fail_msg("synth: %s", err.msg);
	return s;
}

static void run(ibf_infer_synth_t *s, double tol, unsigned lookahead,
		uint64_t seed, ibf_infer_result_t *r)
{
	ibf_infer_oracle_t o = one_at_a_time(ibf_infer_synth_oracle(s));
	ibf_infer_opts_t io = { .tol = tol, .lookahead = lookahead,
				.seed = seed };
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_infer_run(&o, &io, r, &err) != IBF_OK)
		fail_msg("infer: %s", err.msg);
}

static ibf_fabric_t *gen(const char *spec)
{
	ibf_fabric_t *f;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_gen(spec, NULL, &f, &err) != IBF_OK)
		fail_msg("%s: %s", spec, err.msg);
	return f;
}

static bool fabric_is_tree(const ibf_fabric_t *f)
{
	unsigned n, p, links = 0;

	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++)
			links += ibf_node_port(f, n, p)->peer != IBF_NO_ID;
	return links / 2 + 1 == f->nnodes;
}

/* Is the inferred tree the true one, by splits? */
static bool exact(const ibf_fabric_t *f, const ibf_infer_tree_t *t)
{
	struct graph gf, gt;
	struct splits sf, st;
	bool eq;

	graph_of_fabric(f, &gf);
	graph_of_tree(t, &gt);
	if (fabric_is_tree(f))
		tree_splits(&gf, &sf);
	else
		fat_splits(&gf, &sf);
	tree_splits(&gt, &st);
	eq = splits_equal(&sf, &st);
	graph_free(&gf);
	graph_free(&gt);
	free(sf.s);
	free(st.s);
	return eq;
}

/* Every switch of the inferred tree has three neighbours or more. */
static void check_degrees(const ibf_infer_tree_t *t)
{
	unsigned *deg = calloc(t->nnodes, sizeof(*deg)), i;

	assert_int_equal(t->nedges, t->nnodes - 1);
	for (i = 0; i < t->nedges; i++) {
		deg[t->ea[i]]++;
		deg[t->eb[i]]++;
	}
	for (i = 0; i < t->nnodes; i++)
		if (i < t->nhosts)
			assert_int_equal(deg[i], 1);
		else
			assert_true(deg[i] >= 3);
	free(deg);
}

/* ---- tests -------------------------------------------------------------- */

/* Exact trees below the noise bound: every RTT within half the smallest
 * one-way link latency of the truth, radius = that latency. */
static void test_exact(void **state)
{
	static const char *const specs[] = {
		"tree:1,4,8", "tree:5,12,5:1", "tree:12,40,6:2",
		"tree:30,64,8:3", "tree:60,120,10:4", "xgft:2:4,4:1,1",
		"kary:4,3", "xgft:2:8,8:1,4", "xgft:3:4,4,4:1,2,2",
		"pgft:2:4,4:1,2:1,2",
	};
	unsigned i, seed;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = gen(specs[i]);

		for (seed = 1; seed <= 3; seed++) {
			ibf_infer_synth_t *s = synth(f, 0, 0.8, seed);
			double l = ibf_infer_synth_min_hop_rtt(s) / 2;
			ibf_infer_result_t r;

			ibf_infer_synth_destroy(s);
			/* noise 0.98 x (l / 2): just inside the bound */
			s = synth(f, 0.49 * l, 0.8, seed);
			run(s, l, 0, seed, &r);
			check_degrees(&r.tree);
			if (!exact(f, &r.tree))
				fail_msg("%s seed %u: inferred tree differs",
					 specs[i], seed);
			ibf_infer_result_free(&r);
			ibf_infer_synth_destroy(s);
		}
		ibf_fabric_destroy(f);
	}
}

/* Beyond the bound the tree may be wrong; the rates reported must be
 * those of the tree returned, counted here path by path. */
static void test_rates(void **state)
{
	static const char *const specs[] = { "tree:8,20,5:1",
					     "tree:10,24,6:7" };
	unsigned i, a, b, c, d;

	(void)state;
	for (i = 0; i < 2; i++) {
		ibf_fabric_t *f = gen(specs[i]);
		ibf_infer_synth_t *s = synth(f, 0.6, 1.0, i + 1);
		uint32_t n = ibf_infer_synth_nhosts(s), *hops;
		uint64_t q = 0, fp = 0, fn = 0, sh = 0;
		struct graph gf, gt;
		unsigned *pf, *pt;
		uint8_t *mf, *mt;
		ibf_infer_accuracy_t acc;
		ibf_infer_result_t r;
		ibf_err_t err;

		run(s, ibf_infer_synth_min_hop_rtt(s) / 2, 0, 1, &r);
		hops = malloc((size_t)n * n * sizeof(*hops));
		assert_int_equal(ibf_infer_truth_hops(f, f->endpoints, n, hops,
						      &err), IBF_OK);
		assert_int_equal(ibf_infer_accuracy(&r.tree, hops, NULL, 0, 1,
						    &acc, &err), IBF_OK);
		graph_of_fabric(f, &gf);
		graph_of_tree(&r.tree, &gt);
		pf = parents(&gf);
		pt = parents(&gt);
		mf = calloc((size_t)gf.n * gf.n, 1);
		mt = calloc((size_t)gt.n * gt.n, 1);
		for (a = 0; a < n; a++)
			for (b = a + 1; b < n; b++)
				for (c = 0; c < n; c++)
					for (d = c + 1; d < n; d++) {
						bool x, y;

						if (c == a || c == b || d == a ||
						    d == b || c * n + d < a * n + b)
							continue;
						x = share(&gf, pf, a, b, c, d, mf);
						y = share(&gt, pt, a, b, c, d, mt);
						q++;
						sh += x;
						fp += y && !x;
						fn += x && !y;
					}
		assert_true(acc.exhaustive);
		assert_int_equal(acc.queries, q);
		assert_int_equal(acc.shared, sh);
		assert_int_equal(acc.false_pos, fp);
		assert_int_equal(acc.false_neg, fn);
		/* this much noise does spoil these trees */
		assert_true(fp + fn > 0);
		assert_false(exact(f, &r.tree));
		free(pf);
		free(pt);
		free(mf);
		free(mt);
		free(hops);
		graph_free(&gf);
		graph_free(&gt);
		ibf_infer_result_free(&r);
		ibf_infer_synth_destroy(s);
		ibf_fabric_destroy(f);
	}
}

/* The paper's bound on the pairs measured to insert one host. */
static void test_bound(void **state)
{
	static const char *const specs[] = {
		"tree:20,50,6:1", "tree:40,100,8:2", "tree:80,150,12:3",
		"xgft:3:4,4,4:1,1,1", "xgft:2:16,8:1,1",
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = gen(specs[i]);
		ibf_infer_synth_t *s = synth(f, 0, 0.5, i);
		struct graph g;
		unsigned *par, v, p = 0, d = 0, a, b;
		ibf_infer_result_t r;

		run(s, 0, IBF_INFER_LOOKAHEAD_OFF, 1, &r);
		graph_of_fabric(f, &g);
		for (v = g.nhosts; v < g.n; v++)
			if (g.deg[v] > p)
				p = g.deg[v];
		par = parents(&g);
		for (a = 0; a < g.nhosts; a++)
			for (b = 0; b < g.nhosts; b++) {
				unsigned h = 0;

				for (v = b; v != a;
				     v = par[(size_t)a * g.n + v])
					h++;
				if (h > d)
					d = h;
			}
		assert_int_equal(r.stats.lookahead_pairs, 0);
		if (r.stats.max_add_pairs > p * (d - 1) + 1)
			fail_msg("%s: %u pairs for one host, bound %u",
				 specs[i], r.stats.max_add_pairs,
				 p * (d - 1) + 1);
		assert_int_equal(r.stats.pairs, r.nmeas);
		assert_true(exact(f, &r.tree));
		free(par);
		graph_free(&g);
		ibf_infer_result_free(&r);
		ibf_infer_synth_destroy(s);
		ibf_fabric_destroy(f);
	}
}

/* ---- hand cases over a table of RTTs ------------------------------------ */

static void table_run(const ibf_rtt_meas_t *m, unsigned nm, unsigned n,
		      double tol, ibf_infer_result_t *r)
{
	ibf_rtt_set_t set = { (ibf_rtt_meas_t *)m, nm, NULL, 0 };
	ibf_infer_table_t *t;
	ibf_infer_oracle_t o;
	ibf_infer_opts_t io = { .tol = tol };
	ibf_err_t err;

	ibf_err_clear(&err);
	assert_int_equal(ibf_infer_table_create(&set, n, &t, &err), IBF_OK);
	o = one_at_a_time(ibf_infer_table_oracle(t));
	if (ibf_infer_run(&o, &io, r, &err) != IBF_OK)
		fail_msg("infer: %s", err.msg);
	ibf_infer_table_destroy(t);
}

/* One-way latency of host h's edge. */
static double host_edge(const ibf_infer_tree_t *t, unsigned h)
{
	unsigned i;

	for (i = 0; i < t->nedges; i++)
		if (t->ea[i] == h || t->eb[i] == h)
			return t->lat[i];
	fail_msg("host %u has no edge", h);
	return -1;
}

static void test_hand(void **state)
{
	/* Three hosts: AB = 6, AC = 8, BC = 10 (RTTs).  Equation (1):
	 * x = (AC + AB - BC) / 4 = 1, y = (AB + BC - AC) / 4 = 2,
	 * z = (BC + AC - AB) / 4 = 3. */
	static const ibf_rtt_meas_t three[] = {
		{ 0, 1, 6, 6, 1 }, { 0, 2, 8, 8, 2 }, { 1, 2, 10, 10, 3 },
	};
	/* Two cherries (0,1) and (2,3): host edges 1, 2, 3, 4, the middle
	 * edge 5 (one-way): RTT = 2 x path. */
	static const ibf_rtt_meas_t four[] = {
		{ 0, 1, 6, 6, 1 }, { 0, 2, 18, 18, 2 }, { 0, 3, 20, 20, 3 },
		{ 1, 2, 20, 20, 4 }, { 1, 3, 22, 22, 5 }, { 2, 3, 14, 14, 6 },
	};
	static const ibf_rtt_meas_t two[] = { { 1, 0, 7, 9, 1 } };
	ibf_infer_result_t r;
	unsigned i, mid = 0;

	(void)state;
	table_run(three, 3, 3, 0, &r);
	assert_int_equal(r.tree.nnodes, 4);
	assert_true(fabs(host_edge(&r.tree, 0) - 1) < 1e-12);
	assert_true(fabs(host_edge(&r.tree, 1) - 2) < 1e-12);
	assert_true(fabs(host_edge(&r.tree, 2) - 3) < 1e-12);
	ibf_infer_result_free(&r);

	table_run(four, 6, 4, 0, &r);
	check_degrees(&r.tree);
	assert_int_equal(r.tree.nnodes, 6);
	for (i = 0; i < 4; i++)
		assert_true(fabs(host_edge(&r.tree, i) - (i + 1)) < 1e-9);
	for (i = 0; i < r.tree.nedges; i++)
		if (r.tree.ea[i] >= 4 && r.tree.eb[i] >= 4) {
			assert_true(fabs(r.tree.lat[i] - 5) < 1e-9);
			mid++;
		}
	assert_int_equal(mid, 1);
	ibf_infer_result_free(&r);

	/* Two hosts: a switch between them, each edge a quarter of the RTT
	 * (the MIN of the interval). */
	table_run(two, 1, 2, 0, &r);
	assert_int_equal(r.tree.nnodes, 3);
	assert_int_equal(r.tree.nedges, 2);
	assert_true(fabs(r.tree.lat[0] - 1.75) < 1e-12);
	assert_true(fabs(r.tree.lat[1] - 1.75) < 1e-12);
	ibf_infer_result_free(&r);
}

/* Pairs the oracle cannot measure are worked around and counted. */
static void test_unavailable(void **state)
{
	ibf_fabric_t *f = gen("tree:10,30,6:5");
	ibf_infer_synth_t *s = synth(f, 0, 0.5, 3);
	const double *truth = ibf_infer_synth_truth(s);
	uint32_t n = ibf_infer_synth_nhosts(s), a, b, k = 0;
	ibf_rtt_meas_t *m = malloc((size_t)n * n * sizeof(*m));
	ibf_infer_result_t r;

	(void)state;
	/* Every pair but those of host 7 with hosts 0..3, repeated pairs
	 * merged (the smallest MIN, the largest MAX). */
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			if (!(b == 7 && a < 4)) {
				double t = truth[(size_t)a * n + b];

				m[k++] = (ibf_rtt_meas_t){ a, b, t, t, 0 };
				m[k++] = (ibf_rtt_meas_t){ b, a, t + 0.01,
							   t + 0.02, 0 };
			}
	table_run(m, k, n, ibf_infer_synth_min_hop_rtt(s) / 2, &r);
	assert_true(exact(f, &r.tree));
	for (k = 0; k < r.nmeas; k++) {
		a = r.meas[k].a < r.meas[k].b ? r.meas[k].a : r.meas[k].b;
		b = r.meas[k].a ^ r.meas[k].b ^ a;
		assert_true(r.meas[k].min == truth[(size_t)a * n + b]);
		assert_true(r.meas[k].max == truth[(size_t)a * n + b] + 0.02);
		assert_false(b == 7 && a < 4);
	}
	assert_true(r.stats.unavailable > 0);
	ibf_infer_result_free(&r);
	free(m);
	ibf_infer_synth_destroy(s);
	ibf_fabric_destroy(f);
}

static ibf_status_t bad_oracle(void *ctx, uint32_t a, uint32_t b,
			       double *min, double *max, ibf_err_t *err)
{
	(void)ctx;
	(void)a;
	(void)b;
	(void)err;
	*min = 5;
	*max = 4;
	return IBF_OK;
}

static ibf_status_t failing_oracle(void *ctx, uint32_t a, uint32_t b,
				   double *min, double *max, ibf_err_t *err)
{
	unsigned *calls = ctx;

	(void)a;
	(void)b;
	*min = *max = 1;
	if (++*calls == 3)
		return ibf_err_set(err, IBF_ERR_IO, "link lost");
	return IBF_OK;
}

static void test_errors(void **state)
{
	ibf_infer_oracle_t o = { 4, bad_oracle, NULL, NULL, NULL };
	uint32_t order[4] = { 0, 1, 1, 2 };
	ibf_infer_opts_t io = { .order = order };
	ibf_infer_result_t r;
	unsigned calls = 0;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_infer_run(&o, NULL, &r, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "the oracle returned RTT [5, 4]"));
	assert_null(r.meas);
	assert_int_equal(ibf_infer_run(&o, &io, &r, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "insertion order"));
	o.nhosts = 1;
	assert_int_equal(ibf_infer_run(&o, NULL, &r, &err), IBF_ERR_INVALID);
	/* The oracle's own error comes through. */
	o = (ibf_infer_oracle_t){ 5, failing_oracle, &calls, NULL, NULL };
	assert_int_equal(ibf_infer_run(&o, NULL, &r, &err), IBF_ERR_IO);
	assert_string_equal(err.msg, "link lost");
	assert_int_equal(calls, 3);
}

/* A run's trace, read back as an RTT file, replays the run. */
static void test_trace_replay(void **state)
{
	ibf_fabric_t *f = gen("tree:15,40,6:8");
	ibf_infer_synth_t *s = synth(f, 0.1, 0.5, 4);
	const char *const *names = ibf_infer_synth_names(s);
	ibf_infer_result_t r, back;
	ibf_infer_table_t *t;
	ibf_infer_oracle_t o;
	ibf_infer_opts_t io = { .tol = 0.25, .seed = 9 };
	ibf_rtt_set_t set;
	ibf_text_t text;
	ibf_err_t err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	unsigned i;

	(void)state;
	o = one_at_a_time(ibf_infer_synth_oracle(s));
	assert_int_equal(ibf_infer_run(&o, &io, &r, &err), IBF_OK);
	assert_int_equal(ibf_infer_write_trace(&r, names, fp, &err), IBF_OK);
	fclose(fp);
	assert_int_equal(ibf_text_from_buf(&text, "trace", buf, len, &err),
			 IBF_OK);
	assert_int_equal(ibf_rtt_read_text(&text, NULL, NULL, &set, &err),
			 IBF_OK);
	assert_int_equal(set.nnames, o.nhosts);
	for (i = 0; i < set.nnames; i++)
		assert_string_equal(set.names[i], names[i]);
	assert_int_equal(ibf_infer_table_create(&set, set.nnames, &t, &err),
			 IBF_OK);
	o = one_at_a_time(ibf_infer_table_oracle(t));
	assert_int_equal(ibf_infer_run(&o, &io, &back, &err), IBF_OK);
	assert_int_equal(back.nmeas, r.nmeas);
	assert_int_equal(back.stats.unavailable, 0);
	assert_int_equal(back.tree.nnodes, r.tree.nnodes);
	for (i = 0; i < r.tree.nedges; i++) {
		assert_int_equal(back.tree.ea[i], r.tree.ea[i]);
		assert_int_equal(back.tree.eb[i], r.tree.eb[i]);
		/* %.17g round-trips doubles exactly */
		assert_true(back.tree.lat[i] == r.tree.lat[i]);
	}
	ibf_infer_result_free(&r);
	ibf_infer_result_free(&back);
	ibf_infer_table_destroy(t);
	ibf_rtt_set_free(&set);
	ibf_text_free(&text);
	free(buf);
	ibf_infer_synth_destroy(s);
	ibf_fabric_destroy(f);
}

/* The inferred fabric: hosts keep their names, one port each; switches
 * infer-sN with one port per neighbour; it writes and reads back. */
static void test_fabric(void **state)
{
	ibf_fabric_t *f = gen("tree:6,14,5:2"), *g = NULL, *back = NULL;
	ibf_infer_synth_t *s = synth(f, 0, 0, 1);
	const char *const *names = ibf_infer_synth_names(s);
	ibf_topo_read_opts_t ro = { 0 };
	char path[] = "/tmp/ibfi-test-XXXXXX";
	ibf_infer_result_t r;
	ibf_err_t err;
	unsigned i;
	int fd;

	(void)state;
	run(s, 0, 0, 1, &r);
	assert_int_equal(ibf_infer_tree_fabric(&r.tree, names, 0, &g, &err),
			 IBF_OK);
	assert_int_equal(g->nendpoints, r.tree.nhosts);
	assert_int_equal(g->nswitches, r.tree.nnodes - r.tree.nhosts);
	for (i = 0; i < g->nnodes; i++) {
		char want[32];

		if (i < r.tree.nhosts) {
			assert_string_equal(ibf_node_desc(g, i), names[i]);
			assert_int_equal(g->nodes[i].nports, 1);
		} else {
			snprintf(want, sizeof(want), "infer-s%u",
				 i - r.tree.nhosts);
			assert_string_equal(ibf_node_desc(g, i), want);
		}
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ibf_topo_write_file(g, IBF_TOPO_IBNETDISCOVER, path,
					     &err), IBF_OK);
	assert_int_equal(ibf_topo_read(path, &ro, &back, &err), IBF_OK);
	assert_int_equal(ibf_fabric_compare(g, back, &err), IBF_OK);
	unlink(path);
	ibf_fabric_destroy(back);
	ibf_fabric_destroy(g);
	ibf_infer_result_free(&r);
	ibf_infer_synth_destroy(s);
	ibf_fabric_destroy(f);
}

/* ---- bandwidth maps ----------------------------------------------------- */

/* A copy of a fabric whose links get random widths and speeds. */
static ibf_fabric_t *with_capacities(const ibf_fabric_t *f, uint64_t seed)
{
	static const unsigned widths[] = { 1, 4, 8, 12 };
	static const ibf_speed_t speeds[] = { IBF_SPEED_SDR, IBF_SPEED_QDR,
					      IBF_SPEED_FDR, IBF_SPEED_EDR };
	ibf_fabric_t *g;
	ibf_node_id_t id;
	unsigned n, p;

	assert_int_equal(ibf_fabric_create(&g), IBF_OK);
	for (n = 0; n < f->nnodes; n++) {
		assert_int_equal(ibf_fabric_add_node(g, f->nodes[n].type,
						     f->nodes[n].guid,
						     ibf_node_desc(f, n),
						     f->nodes[n].nports, &id,
						     NULL), IBF_OK);
		assert_int_equal(id, n);
	}
	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = ibf_node_port(f, n, p)->peer;

			if (q == IBF_NO_ID || q < ibf_node_port_id(f, n, p))
				continue;
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			assert_int_equal(ibf_fabric_link(g, n, p,
							 f->ports[q].node,
							 f->ports[q].num,
							 widths[seed >> 62],
							 speeds[(seed >> 60) & 3],
							 NULL), IBF_OK);
		}
	assert_int_equal(ibf_fabric_finalize(g, NULL, NULL), IBF_OK);
	return g;
}

static void test_bw(void **state)
{
	static const char *const specs[] = { "tree:12,30,6:1",
					     "tree:40,90,8:2",
					     "xgft:3:4,4,4:1,1,1",
					     "tree:1,7,8" };
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++) {
		ibf_fabric_t *g = gen(specs[i]);
		ibf_fabric_t *f = i < 2 ? with_capacities(g, i + 1) : g;
		ibf_infer_synth_t *s = synth(f, 0, 0.5, i);
		uint32_t n = ibf_infer_synth_nhosts(s), k, j, r, v, expect = 0;
		ibf_infer_bw_synth_t *bs;
		ibf_infer_bw_oracle_t o;
		ibf_infer_bwmap_t m;
		ibf_infer_result_t res;
		struct graph gf, gt;
		unsigned *pf;
		uint8_t *used;
		double *pred, *alone;
		ibf_err_t err;

		run(s, ibf_infer_synth_min_hop_rtt(s) / 2, 0, 1, &res);
		assert_true(exact(f, &res.tree));
		assert_int_equal(ibf_infer_bw_synth_create(f, f->endpoints, n,
							   &bs, &err), IBF_OK);
		o = (ibf_infer_bw_oracle_t){ ibf_infer_bw_synth_measure, bs };
		assert_int_equal(ibf_infer_bw_run(&res.tree, &o, &m, &err),
				 IBF_OK);
		/* No two measurements of a round share a link of the true
		 * fabric (paths walked here). */
		graph_of_fabric(f, &gf);
		pf = parents(&gf);
		used = calloc((size_t)gf.n * gf.n, 1);
		for (r = 0; r < m.nrounds; r++) {
			memset(used, 0, (size_t)gf.n * gf.n);
			for (k = m.round_start[r]; k < m.round_start[r + 1];
			     k++) {
				uint32_t a = m.pairs[2 * k], b = m.pairs[2 * k + 1];
				const unsigned *pa = pf + (size_t)a * gf.n;

				for (v = b; v != a; v = pa[v]) {
					size_t e = (size_t)(v < pa[v] ? v : pa[v]) *
						   gf.n + (v < pa[v] ? pa[v] : v);

					if (used[e])
						fail_msg("%s round %u: pairs "
							 "share a link", specs[i],
							 r);
					used[e] = 1;
				}
			}
		}
		/* Every edge measured; ceil(children/2) measurements per
		 * switch, children counted from the plan's root here. */
		for (k = 0; k < res.tree.nedges; k++)
			assert_false(isnan(m.edge_bw[k]));
		graph_of_tree(&res.tree, &gt);
		for (v = gt.nhosts; v < gt.n; v++)
			expect += (gt.deg[v] - (v != m.root) + 1) / 2;
		assert_int_equal(m.nmeas, expect);
		/* Predictions never exceed the bandwidth alone (each edge
		 * carries a measurement across it); on uniform links they
		 * are exact. */
		pred = malloc((size_t)n * n * sizeof(*pred));
		alone = malloc((size_t)n * n * sizeof(*alone));
		assert_int_equal(ibf_infer_bw_predict(&res.tree, &m, pred,
						      &err), IBF_OK);
		ibf_infer_bw_synth_alone(bs, alone);
		for (j = 0; j < n * n; j++) {
			if (j / n == j % n)
				continue;
			assert_true(pred[j] <= alone[j] * (1 + 1e-12));
			if (i >= 2)
				assert_true(fabs(pred[j] - alone[j]) <
					    1e-9 * alone[j]);
		}
		free(pred);
		free(alone);
		free(used);
		free(pf);
		graph_free(&gf);
		graph_free(&gt);
		ibf_infer_bwmap_free(&m);
		ibf_infer_bw_synth_destroy(bs);
		ibf_infer_result_free(&res);
		ibf_infer_synth_destroy(s);
		if (f != g)
			ibf_fabric_destroy(f);
		ibf_fabric_destroy(g);
	}
}

/* The plan alone (no oracle) on a hand tree: a root with three leaves of
 * 2, 3 and 1 hosts -> stage 1 pairs (0,1), (2,3) then the odd 4 with 2;
 * stage 2 pairs the three leaves' representatives, the odd one after. */
static void test_bw_hand(void **state)
{
	/* hosts 0..5, switches 6 (root), 7, 8, 9; lengths irrelevant */
	static uint32_t ea[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9 };
	static uint32_t eb[] = { 7, 7, 8, 8, 8, 9, 6, 6, 6 };
	static double lat[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	ibf_infer_tree_t t = { 6, 10, 9, ea, eb, lat };
	ibf_infer_bwmap_t m;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_infer_bw_run(&t, NULL, &m, &err), IBF_OK);
	assert_int_equal(m.root, 6);
	assert_int_equal(m.height, 2);
	assert_int_equal(m.nrounds, 4);
	/* stage 1, main round: (0,1) at switch 7, (2,3) at switch 8 */
	assert_int_equal(m.round_stage[0], 1);
	assert_int_equal(m.round_start[1] - m.round_start[0], 2);
	assert_int_equal(m.pairs[0], 0);
	assert_int_equal(m.pairs[1], 1);
	assert_int_equal(m.pairs[2], 2);
	assert_int_equal(m.pairs[3], 3);
	/* stage 1, extra round: host 4 against 2, only 4's edge */
	assert_int_equal(m.round_start[2] - m.round_start[1], 1);
	assert_int_equal(m.pairs[4], 4);
	assert_int_equal(m.pairs[5], 2);
	assert_int_equal(m.edge[4], 4);
	assert_int_equal(m.edge[5], IBF_INFER_NO_EDGE);
	/* stage 2: leaves 7 and 8 by hosts 0 and 2, then 9 (host 5) with
	 * 0 */
	assert_int_equal(m.round_stage[2], 2);
	assert_int_equal(m.pairs[6], 0);
	assert_int_equal(m.pairs[7], 2);
	assert_int_equal(m.edge[6], 6);
	assert_int_equal(m.edge[7], 7);
	assert_int_equal(m.pairs[8], 5);
	assert_int_equal(m.pairs[9], 0);
	assert_true(isnan(m.bw[0]));
	ibf_infer_bwmap_free(&m);
}

/* ---- the radius estimated from the RTTs (ibf_infer_radius_estimate) ----- */

/* A 64-host 3-level tree with 1-6 µs links, built here: 64 hosts, 4 per leaf, 4 leaves per
 * middle switch, 4 middles under a root; every link's one-way latency
 * uniform in [1, 6] µs, every RTT off by uniform [-E, E].  Nodes: hosts
 * 0..63, leaves 64..79, middles 80..83, root 84; up[v] is v's parent,
 * lat[v] the latency of that link. */
#define R_HOSTS 64u
#define R_NODES 85u

struct rtree {
	unsigned up[R_NODES];
	double lat[R_NODES];
	double lmin;             /* smallest link latency */
	struct graph g;
};

static double r_unit(uint64_t *s)
{
	/* splitmix64, the test's own stream */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static void rtree_make(struct rtree *t, uint64_t *seed)
{
	unsigned v;

	t->lmin = INFINITY;
	graph_init(&t->g, R_NODES, R_HOSTS);
	for (v = 0; v + 1 < R_NODES; v++) {
		t->up[v] = v < 64 ? 64 + v / 4 : v < 80 ? 80 + (v - 64) / 4 :
			   84;
		t->lat[v] = 1 + 5 * r_unit(seed);
		t->lmin = fmin(t->lmin, t->lat[v]);
		graph_edge(&t->g, v, t->up[v]);
	}
}

/* True RTT: twice the latencies up from both hosts to where they meet
 * (hosts, leaves, middles are numbered so that parents are larger). */
static double rtree_rtt(const struct rtree *t, unsigned a, unsigned b)
{
	double s = 0;

	while (a != b) {
		if (a < b) {
			s += t->lat[a];
			a = t->up[a];
		} else {
			s += t->lat[b];
			b = t->up[b];
		}
	}
	return 2 * s;
}

/* Every pair measured once, noise in [-e, e]: the matrix and the table. */
static void rtree_measure(const struct rtree *t, double e, uint64_t *seed,
			  double *m, ibf_rtt_meas_t *tab)
{
	unsigned a, b, k = 0;

	for (a = 0; a < R_HOSTS; a++) {
		m[a * R_HOSTS + a] = NAN;
		for (b = a + 1; b < R_HOSTS; b++) {
			double x = rtree_rtt(t, a, b) +
				   e * (2 * r_unit(seed) - 1);

			m[a * R_HOSTS + b] = m[b * R_HOSTS + a] = x;
			tab[k] = (ibf_rtt_meas_t){ a, b, x, x, k + 1 };
			k++;
		}
	}
}

static bool rtree_exact(struct rtree *t, const ibf_infer_tree_t *it)
{
	struct graph gt;
	struct splits st, si;
	bool eq;

	graph_of_tree(it, &gt);
	tree_splits(&t->g, &st);
	tree_splits(&gt, &si);
	eq = splits_equal(&st, &si);
	graph_free(&gt);
	free(st.s);
	free(si.s);
	return eq;
}

/* The estimate lies within the noise's reach of the smallest latency
 * (a hop gap is 2 l off by at most 3 E: l +- 1.5 E), the tree
 * inferred with it is the true one, and --tol 0 splits switches (17 %
 * false positives on this tree). */
static void test_radius_three_levels(void **state)
{
	const double e = 0.2;
	unsigned npairs = R_HOSTS * (R_HOSTS - 1) / 2, seed;
	double *m = malloc(R_HOSTS * R_HOSTS * sizeof(*m));
	ibf_rtt_meas_t *tab = malloc(npairs * sizeof(*tab));

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		uint64_t s = seed;
		ibf_infer_radius_t rad;
		ibf_infer_result_t r;
		struct rtree t;
		ibf_err_t err;

		rtree_make(&t, &s);
		rtree_measure(&t, e, &s, m, tab);
		ibf_err_clear(&err);
		assert_int_equal(ibf_infer_radius_estimate(m, R_HOSTS, seed,
							   &rad, &err), IBF_OK);
		assert_true(rad.found);
		if (fabs(rad.tol - t.lmin) > 1.5 * e)
			fail_msg("seed %u: tol %g, smallest latency %g", seed,
				 rad.tol, t.lmin);
		/* half a difference of four errors of at most e */
		assert_true(rad.noise > 0 && rad.noise <= 2 * e);
		table_run(tab, npairs, R_HOSTS, rad.tol, &r);
		if (!rtree_exact(&t, &r.tree))
			fail_msg("seed %u: tree differs at tol %g", seed,
				 rad.tol);
		ibf_infer_result_free(&r);
		table_run(tab, npairs, R_HOSTS, 0, &r);
		/* 21 switches in truth; the measured intervals alone split */
		assert_false(rtree_exact(&t, &r.tree));
		assert_true(r.tree.nnodes - R_HOSTS > 21);
		ibf_infer_result_free(&r);
		graph_free(&t.g);
	}
	free(m);
	free(tab);
}

/* Trees of the generators with the synthetic oracle's fresh measurements
 * of every pair: without noise, and with 0.3 l: the estimate is no less
 * than l - 1.5 E and the tree inferred with it exact.  (It may exceed l
 * + 1.5 E: the smallest link the oracle knows need not show in RTTs,
 * e.g. on either side of a switch with two neighbours.) */
static void test_radius_synth(void **state)
{
	static const char *const specs[] = { "tree:5,12,5:1",
					     "tree:30,64,8:3",
					     "xgft:3:4,4,4:1,1,1" };
	unsigned i, k;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = gen(specs[i]);

		for (k = 0; k < 2; k++) {
			ibf_infer_synth_t *s = synth(f, 0, 0.8, i + 1);
			double l = ibf_infer_synth_min_hop_rtt(s) / 2, *m;
			double e = k ? 0.3 * l : 0;
			uint32_t n = ibf_infer_synth_nhosts(s), a, b, nt = 0;
			ibf_rtt_meas_t *tab;
			ibf_infer_radius_t rad;
			ibf_infer_result_t r;
			ibf_err_t err;

			ibf_infer_synth_destroy(s);
			s = synth(f, e, 0.8, i + 1);
			m = malloc((size_t)n * n * sizeof(*m));
			tab = malloc((size_t)n * n * sizeof(*tab));
			ibf_infer_synth_measure_all(s, m);
			for (a = 0; a < n; a++)
				for (b = a + 1; b < n; b++, nt++)
					tab[nt] = (ibf_rtt_meas_t){
						a, b, m[a * n + b],
						m[a * n + b], nt + 1 };
			assert_int_equal(ibf_infer_radius_estimate(
				m, n, 1, &rad, &err), IBF_OK);
			assert_true(rad.found);
			if (rad.tol < l - 1.5 * e - 1e-9 * l)
				fail_msg("%s E %g: tol %g, l %g", specs[i], e,
					 rad.tol, l);
			table_run(tab, nt, n, rad.tol, &r);
			if (!exact(f, &r.tree))
				fail_msg("%s E %g: tree differs", specs[i], e);
			ibf_infer_result_free(&r);
			free(m);
			free(tab);
			ibf_infer_synth_destroy(s);
		}
		ibf_fabric_destroy(f);
	}
}

/* No estimate without triangles (two hosts; three with a pair missing)
 * or without quadruples (a ring with chords of two). */
static void test_radius_none(void **state)
{
	double two[4] = { NAN, 5, 5, NAN };
	double three[9] = { NAN, 4, 6, 4, NAN, -1, 6, -1, NAN };
	double sparse[64];
	unsigned a, b;
	ibf_infer_radius_t rad;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_infer_radius_estimate(two, 2, 0, &rad, &err),
			 IBF_OK);
	assert_false(rad.found);
	assert_true(rad.tol == 0);
	assert_true(rad.why[0] != '\0');
	assert_int_equal(ibf_infer_radius_estimate(three, 3, 0, &rad, &err),
			 IBF_OK);
	assert_false(rad.found);
	assert_int_equal(rad.paths, 0);
	/* 8 hosts, only pairs of a ring and their neighbours' neighbours:
	 * triangles, but no four hosts measured pairwise */
	for (a = 0; a < 8; a++)
		for (b = 0; b < 8; b++)
			sparse[a * 8 + b] = (a - b + 8) % 8 == 1 ||
					    (b - a + 8) % 8 == 1 ||
					    (a - b + 8) % 8 == 2 ||
					    (b - a + 8) % 8 == 2 ? 4 : NAN;
	assert_int_equal(ibf_infer_radius_estimate(sparse, 8, 0, &rad, &err),
			 IBF_OK);
	assert_false(rad.found);
	assert_true(rad.paths > 0);
	assert_true(rad.tol == 0);
}

/* ---- in parallel ----------------------------------------------------------- */

/* An oracle of measurements in flight over the synthetic one that
 * checks every start by the true fabric: no host in two pairs in flight,
 * and the pairs' links pairwise without a common one.  A pair (h, k)'s
 * links: k's own link before h measured any host, else those of the
 * true path from k to the host a that h had measured closest when the
 * pair started whose far end, seen from a, lies past half of RTT(h, a)
 * (where h's route is taken to join that path; the lengths are the
 * synthetic oracle's defaults without jitter: 1 µs one way on a host's
 * link, 0.25 µs on the others).  Measured without noise, the tree
 * inferred so far is the true one over the hosts placed, so these are
 * links of the tree inferred so far.  The pair to end is drawn at random
 * among those in flight, so any order of ends is met. */
#define CHECKED_MAX 64
struct checked {
	ibf_infer_synth_t *s;
	struct graph g;
	unsigned *par;
	uint8_t *mark;           /* g.n x g.n, by node pair */
	uint8_t *inpair;         /* hosts in flight */
	double *best;            /* smallest RTT measured from each host */
	uint32_t *bestj;         /* ... to which host (UINT32_MAX: none) */
	const double *truth;     /* true RTTs */
	struct {
		uint32_t tag, h, k, a;
		double from;
	} fly[CHECKED_MAX];
	uint32_t nfly, max_fly;
	uint64_t pairs, rng;
};

/* Mark the links of the true path a-b (a == b: a's link); false when
 * one is marked already. */
static bool mark_path(struct checked *c, unsigned a, unsigned b)
{
	const unsigned *pa = c->par + (size_t)a * c->g.n;
	unsigned v, n = c->g.n;
	bool free_ = true;

	if (a == b) {
		unsigned w = c->g.nb[a][0];

		free_ = !c->mark[a * n + w];
		c->mark[a * n + w] = c->mark[w * n + a] = 1;
		return free_;
	}
	for (v = b; v != a; v = pa[v]) {
		free_ = free_ && !c->mark[v * n + pa[v]];
		c->mark[v * n + pa[v]] = c->mark[pa[v] * n + v] = 1;
	}
	return free_;
}

/* Mark the links of the true path from a to k whose far end lies past
 * `from` (RTT scale, from a); false when one is marked already.  The
 * walk's length must be the oracle's RTT of a and k. */
static bool mark_route(struct checked *c, unsigned k, unsigned a,
		       double from)
{
	const unsigned *pk = c->par + (size_t)k * c->g.n;
	unsigned v, u, n = c->g.n;
	double pos = 0;
	bool free_ = true;

	for (v = a; v != k; v = u) {
		u = pk[v];
		pos += v < c->g.nhosts || u < c->g.nhosts ? 2.0 : 0.5;
		if (pos <= from)
			continue;
		free_ = free_ && !c->mark[v * n + u];
		c->mark[v * n + u] = c->mark[u * n + v] = 1;
	}
	assert_true(fabs(pos - c->truth[(size_t)a * c->g.nhosts + k]) < 1e-9);
	return free_;
}

static ibf_status_t checked_start(void *ctx, uint32_t h, uint32_t k,
				  uint32_t tag, ibf_err_t *err)
{
	struct checked *c = ctx;
	uint32_t i;

	(void)err;
	assert_true(c->nfly < CHECKED_MAX);
	c->fly[c->nfly].tag = tag;
	c->fly[c->nfly].h = h;
	c->fly[c->nfly].k = k;
	c->fly[c->nfly].a = c->bestj[h] != UINT32_MAX ? c->bestj[h] : k;
	c->fly[c->nfly].from = c->bestj[h] != UINT32_MAX ? c->best[h] / 2 : 0;
	c->nfly++;
	memset(c->mark, 0, (size_t)c->g.n * c->g.n);
	memset(c->inpair, 0, c->g.nhosts);
	for (i = 0; i < c->nfly; i++) {
		h = c->fly[i].h;
		k = c->fly[i].k;
		if (c->inpair[h] || c->inpair[k])
			fail_msg("pair %u %u starts with a host in flight", h,
				 k);
		c->inpair[h] = c->inpair[k] = 1;
		if (!(c->fly[i].a == k ? mark_path(c, k, k) :
		      mark_route(c, k, c->fly[i].a, c->fly[i].from)))
			fail_msg("pair %u %u shares a link with one in flight",
				 h, k);
	}
	if (c->nfly > c->max_fly)
		c->max_fly = c->nfly;
	return IBF_OK;
}

static ibf_status_t checked_wait(void *ctx, uint32_t *tag, double *min,
				 double *max, ibf_status_t *st,
				 ibf_err_t *err)
{
	struct checked *c = ctx;
	ibf_infer_oracle_t truth;
	uint32_t i, h, k;

	assert_true(c->nfly > 0);
	i = (uint32_t)(r_unit(&c->rng) * c->nfly);
	h = c->fly[i].h;
	k = c->fly[i].k;
	*tag = c->fly[i].tag;
	c->fly[i] = c->fly[--c->nfly];
	truth = ibf_infer_synth_oracle(c->s);
	*st = truth.measure(truth.ctx, h, k, min, max, err);
	if (*st != IBF_OK)
		return *st;
	/* the lowest index among equals, as the scan from host 0 */
	if (c->bestj[h] == UINT32_MAX || *min < c->best[h] ||
	    (*min == c->best[h] && k < c->bestj[h])) {
		c->best[h] = *min;
		c->bestj[h] = k;
	}
	c->pairs++;
	return IBF_OK;
}

/* The parallel search measures in flight only. */
static ibf_status_t checked_one(void *ctx, uint32_t a, uint32_t b,
				double *min, double *max, ibf_err_t *err)
{
	(void)ctx;
	(void)min;
	(void)max;
	fail_msg("pair %u %u asked alone", a, b);
	return ibf_err_set(err, IBF_ERR_INVALID, "asked alone");
}

/* No host's close-host search measured more pairs than its budget, over
 * all the replays of its search (the pairs are counted by the host they
 * placed, the first of each). */
static void assert_budget(const ibf_infer_result_t *r, uint32_t n,
			  unsigned budget)
{
	uint32_t *look = calloc(n, sizeof(*look)), i;

	assert_non_null(look);
	for (i = 0; i < r->nmeas; i++)
		if (r->meas[i].lookahead && ++look[r->meas[i].a] > budget)
			fail_msg("host %u: %u close-host pairs, budget %u",
				 r->meas[i].a, look[r->meas[i].a], budget);
	free(look);
}

/* The parallel search gives the true tree wherever the serial one does
 * (exact measurements, and noise within the bound of test_exact), with
 * pairs in flight together that share no host and no link, whatever
 * order they end in, and no more in flight than a cap. */
static void test_parallel(void **state)
{
	static const char *const specs[] = {
		"tree:30,64,8:3", "xgft:2:8,8:1,1", "xgft:3:4,4,4:1,1,1",
		"tree:60,120,10:4", "kary:4,3",
	};
	unsigned i, seed;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = gen(specs[i]);

		for (seed = 1; seed <= 3; seed++) {
			struct checked c = { .s = synth(f, 0, 0, seed),
					     .rng = seed };
			uint32_t n = ibf_infer_synth_nhosts(c.s), *order, h;
			double l = ibf_infer_synth_min_hop_rtt(c.s) / 2;
			ibf_infer_oracle_t o = { n, checked_one, &c,
						 checked_start, checked_wait };
			/* seed 3: at most 2 pairs in flight */
			ibf_infer_opts_t io = { .tol = l, .lookahead = 8,
						.seed = seed, .parallel = 16,
						.max_in_flight = seed == 3 ? 2 : 0 };
			ibf_infer_result_t par, ser;
			ibf_infer_synth_t *noisy;
			ibf_err_t err;

			graph_of_fabric(f, &c.g);
			c.par = parents(&c.g);
			c.truth = ibf_infer_synth_truth(c.s);
			c.mark = malloc((size_t)c.g.n * c.g.n);
			c.inpair = malloc(n);
			c.best = malloc(n * sizeof(*c.best));
			c.bestj = malloc(n * sizeof(*c.bestj));
			order = malloc(n * sizeof(*order));
			assert_true(c.mark && c.inpair && c.best && c.bestj &&
				    order);
			for (h = 0; h < n; h++)
				c.bestj[h] = UINT32_MAX;
			t_shuffle(order, n, seed);
			io.order = order;
			ibf_err_clear(&err);
			if (ibf_infer_run(&o, &io, &par, &err) != IBF_OK)
				fail_msg("%s: %s", specs[i], err.msg);
			if (!exact(f, &par.tree))
				fail_msg("%s seed %u: parallel tree differs",
					 specs[i], seed);
			assert_budget(&par, n, io.lookahead);
			assert_int_equal(c.pairs, par.stats.pairs);
			assert_int_equal(c.nfly, 0);
			assert_int_equal(c.max_fly, par.stats.max_in_flight);
			assert_true(c.max_fly > 1 &&
				    par.stats.mean_in_flight > 1);
			if (io.max_in_flight)
				assert_true(c.max_fly <= io.max_in_flight);
			io.max_in_flight = 0;
			/* serial and parallel under noise within the bound,
			 * links of unequal lengths */
			noisy = synth(f, 0, 0.8, seed);
			io.tol = ibf_infer_synth_min_hop_rtt(noisy) / 2;
			ibf_infer_synth_destroy(noisy);
			noisy = synth(f, 0.49 * io.tol, 0.8, seed);
			o = one_at_a_time(ibf_infer_synth_oracle(noisy));
			for (io.parallel = 1; io.parallel <= 64;
			     io.parallel *= 8) {
				if (ibf_infer_run(&o, &io, &ser, &err) != IBF_OK)
					fail_msg("%s: %s", specs[i], err.msg);
				if (!exact(f, &ser.tree))
					fail_msg("%s seed %u parallel %u: "
						 "noisy tree differs", specs[i],
						 seed, io.parallel);
				ibf_infer_result_free(&ser);
			}
			ibf_infer_synth_destroy(noisy);
			ibf_infer_result_free(&par);
			ibf_infer_synth_destroy(c.s);
			graph_free(&c.g);
			free(c.par);
			free(c.mark);
			free(c.inpair);
			free(c.best);
			free(c.bestj);
			free(order);
		}
		ibf_fabric_destroy(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_trace_replay),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_bw),
		cmocka_unit_test(test_bw_hand),
		cmocka_unit_test(test_radius_three_levels),
		cmocka_unit_test(test_radius_synth),
		cmocka_unit_test(test_radius_none),
	};

	return cmocka_run_group_tests_name("infer", tests, NULL, NULL);
}
