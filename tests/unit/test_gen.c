/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology generators.  Every check here is computed from the fabric the
 * generator returns and compared with the papers' closed forms, with
 * hand-written link lists, or with brute force (BFS, path counting);
 * nothing is compared against numbers the generator itself reports.
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

#include "test_util.h"

/* ---- helpers ----------------------------------------------------------- */

static void gen_bad(const char *spec, unsigned lmc, ibf_status_t want,
		    const char *needle)
{
	ibf_gen_opts_t o = { .lmc = lmc };
	ibf_fabric_t *f = (ibf_fabric_t *)1;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_gen(spec, &o, &f, &err) != want)
		fail_msg("%s: status %d, wanted %d (%s)", spec, err.status,
			 want, err.msg);
	assert_null(f);
	if (!strstr(err.msg, needle))
		fail_msg("%s: message \"%s\" lacks \"%s\"", spec, err.msg,
			 needle);
}

static ibf_node_id_t peer_node(const ibf_fabric_t *f, ibf_node_id_t n,
			       unsigned p, unsigned *pp)
{
	const ibf_port_t *port = ibf_node_port(f, n, p);

	if (port->peer == IBF_NO_ID)
		return IBF_NO_ID;
	if (pp)
		*pp = f->ports[port->peer].num;
	return f->ports[port->peer].node;
}

static unsigned count_type(const ibf_fabric_t *f, ibf_node_type_t t)
{
	unsigned n, c = 0;

	for (n = 0; n < f->nnodes; n++)
		c += f->nodes[n].type == t;
	return c;
}

static unsigned count_links(const ibf_fabric_t *f)
{
	unsigned n, p, c = 0;

	for (n = 0; n < f->nnodes; n++)
		for (p = 1; p <= f->nodes[n].nports; p++)
			c += peer_node(f, n, p, NULL) != IBF_NO_ID;
	return c / 2;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* BFS distances over all nodes from the given sources. */
static unsigned *bfs(const ibf_fabric_t *f, const ibf_node_id_t *src,
		     unsigned nsrc)
{
	unsigned *dist = malloc(f->nnodes * sizeof(*dist));
	ibf_node_id_t *q = malloc(f->nnodes * sizeof(*q));
	unsigned head = 0, tail = 0, i, p;

	assert_non_null(dist);
	assert_non_null(q);
	for (i = 0; i < f->nnodes; i++)
		dist[i] = UINT32_MAX;
	for (i = 0; i < nsrc; i++) {
		dist[src[i]] = 0;
		q[tail++] = src[i];
	}
	while (head < tail) {
		ibf_node_id_t n = q[head++];

		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_node_id_t m = peer_node(f, n, p, NULL);

			if (m != IBF_NO_ID && dist[m] == UINT32_MAX) {
				dist[m] = dist[n] + 1;
				q[tail++] = m;
			}
		}
	}
	free(q);
	return dist;
}

/* Invariants of every generated fabric. */
static void check_common(const ibf_fabric_t *f)
{
	unsigned nca = count_type(f, IBF_NODE_CA), width = 4, h = 0, n, p;
	uint64_t *guids = malloc(f->nnodes * sizeof(*guids));
	ibf_node_id_t zero = 0;
	unsigned *dist;
	char want[32];

	assert_true(f->finalized);
	assert_int_equal(f->nodes[0].type, IBF_NODE_CA);
	for (n = 10000; n < nca; n *= 10)
		width++;
	for (n = 0; n < f->nnodes; n++) {
		const ibf_node_t *node = &f->nodes[n];

		guids[n] = node->guid;
		assert_true(node->guid != 0);
		assert_int_equal(node->guid & 0xff, 0);
		if (node->type == IBF_NODE_CA) {
			snprintf(want, sizeof(want), "h%0*u HCA-1", width,
				 h++);
			assert_string_equal(ibf_node_desc(f, n), want);
		}
		for (p = 1; p <= node->nports; p++) {
			const ibf_port_t *port = ibf_node_port(f, n, p);
			unsigned q = 0;
			ibf_node_id_t m = peer_node(f, n, p, &q);

			/* every port is used, links are symmetric */
			assert_true(m != IBF_NO_ID);
			assert_true(m != n);
			assert_int_equal(ibf_node_port(f, m, q)->peer,
					 ibf_node_port_id(f, n, p));
			assert_int_equal(port->width, 4);
			assert_int_equal(port->speed, IBF_SPEED_EDR);
			if (node->type == IBF_NODE_CA) {
				assert_true(port->guid == node->guid + p);
				assert_true(port->lid != 0);
			}
		}
	}
	qsort(guids, f->nnodes, sizeof(*guids), cmp_u64);
	for (n = 1; n < f->nnodes; n++)
		assert_true(guids[n] != guids[n - 1]);
	free(guids);
	dist = bfs(f, &zero, 1);
	for (n = 0; n < f->nnodes; n++)
		assert_true(dist[n] != UINT32_MAX);
	free(dist);
}

/* Links between switches as a multiplicity matrix over switch indices. */
typedef struct rgraph {
	unsigned n;
	unsigned *mult;
} rgraph_t;

static void rgraph_build(const ibf_fabric_t *f, rgraph_t *g)
{
	unsigned i, p;

	g->n = f->nswitches;
	g->mult = calloc((size_t)g->n * g->n, sizeof(*g->mult));
	assert_non_null(g->mult);
	for (i = 0; i < g->n; i++) {
		ibf_node_id_t s = f->switches[i];

		for (p = 1; p <= f->nodes[s].nports; p++) {
			ibf_node_id_t m = peer_node(f, s, p, NULL);

			if (ibf_node_is_switch(f, m))
				g->mult[i * g->n + f->switch_index[m]]++;
		}
	}
}

static unsigned rg_mult(const rgraph_t *g, unsigned a, unsigned b)
{
	return g->mult[a * g->n + b];
}

/* Distinct neighbours and router-to-router ports of switch a. */
static unsigned rg_degree(const rgraph_t *g, unsigned a, unsigned *ports)
{
	unsigned b, d = 0;

	*ports = 0;
	for (b = 0; b < g->n; b++)
		if (rg_mult(g, a, b)) {
			d++;
			*ports += rg_mult(g, a, b);
		}
	return d;
}

static unsigned rg_diameter(const rgraph_t *g)
{
	unsigned *dist = malloc(g->n * sizeof(*dist));
	unsigned *q = malloc(g->n * sizeof(*q));
	unsigned s, diam = 0;

	for (s = 0; s < g->n; s++) {
		unsigned head = 0, tail = 0, i, b;

		for (i = 0; i < g->n; i++)
			dist[i] = UINT32_MAX;
		dist[s] = 0;
		q[tail++] = s;
		while (head < tail) {
			unsigned a = q[head++];

			for (b = 0; b < g->n; b++)
				if (rg_mult(g, a, b) &&
				    dist[b] == UINT32_MAX) {
					dist[b] = dist[a] + 1;
					q[tail++] = b;
				}
		}
		assert_int_equal(tail, g->n); /* connected */
		for (i = 0; i < g->n; i++)
			if (dist[i] > diam)
				diam = dist[i];
	}
	free(dist);
	free(q);
	return diam;
}

static unsigned hosts_on(const ibf_fabric_t *f, ibf_node_id_t s)
{
	unsigned p, c = 0;

	for (p = 1; p <= f->nodes[s].nports; p++)
		c += f->nodes[peer_node(f, s, p, NULL)].type == IBF_NODE_CA;
	return c;
}

static ibf_node_id_t by_desc(const ibf_fabric_t *f, const char *d)
{
	ibf_node_id_t n = ibf_fabric_node_by_desc(f, d, NULL);

	if (n == IBF_NO_ID)
		fail_msg("no node \"%s\"", d);
	return n;
}

/* ---- fat trees ---------------------------------------------------------- */

struct link {
	const char *a;
	unsigned pa;
	const char *b;
	unsigned pb;
};

static void check_hand_links(const ibf_fabric_t *f, const struct link *l,
			     unsigned n)
{
	unsigned i, q = 0;

	for (i = 0; i < n; i++) {
		ibf_node_id_t a = by_desc(f, l[i].a), b = by_desc(f, l[i].b);

		if (peer_node(f, a, l[i].pa, &q) != b || q != l[i].pb)
			fail_msg("missing link %s[%u] - %s[%u]", l[i].a,
				 l[i].pa, l[i].b, l[i].pb);
	}
	assert_int_equal(count_links(f), n);
}

/* XGFT(2; 2,2; 1,2), written out by hand from the paper's rule. */
static void test_xgft_hand(void **state)
{
	static const struct link want[] = {
		{ "h0000 HCA-1", 1, "s1-0", 1 }, { "h0001 HCA-1", 1, "s1-0", 2 },
		{ "h0002 HCA-1", 1, "s1-1", 1 }, { "h0003 HCA-1", 1, "s1-1", 2 },
		{ "s1-0", 3, "s2-0", 1 }, { "s1-0", 4, "s2-1", 1 },
		{ "s1-1", 3, "s2-0", 2 }, { "s1-1", 4, "s2-1", 2 },
	};
	ibf_fabric_t *f = tu_gen("xgft:2:2,2:1,2", 0);

	(void)state;
	check_common(f);
	assert_int_equal(f->nnodes, 8);
	assert_int_equal(f->nswitches, 4);
	check_hand_links(f, want, sizeof(want) / sizeof(want[0]));
	/* node order: hosts, then s1-*, then s2-* */
	assert_string_equal(ibf_node_desc(f, 4), "s1-0");
	assert_string_equal(ibf_node_desc(f, 7), "s2-1");
	ibf_fabric_destroy(f);
}

/*
 * PGFT(2; 2,2; 2,1; 1,2): dual-port hosts (w1 = 2), double links between
 * levels 1 and 2.  Leaf (x2, y1) is s1-(2*x2 + y1), top (y2=0, y1) s2-y1.
 */
static void test_pgft_hand(void **state)
{
	static const struct link want[] = {
		{ "h0000 HCA-1", 1, "s1-0", 1 }, { "h0000 HCA-1", 2, "s1-1", 1 },
		{ "h0001 HCA-1", 1, "s1-0", 2 }, { "h0001 HCA-1", 2, "s1-1", 2 },
		{ "h0002 HCA-1", 1, "s1-2", 1 }, { "h0002 HCA-1", 2, "s1-3", 1 },
		{ "h0003 HCA-1", 1, "s1-2", 2 }, { "h0003 HCA-1", 2, "s1-3", 2 },
		{ "s1-0", 3, "s2-0", 1 }, { "s1-0", 4, "s2-0", 2 },
		{ "s1-1", 3, "s2-1", 1 }, { "s1-1", 4, "s2-1", 2 },
		{ "s1-2", 3, "s2-0", 3 }, { "s1-2", 4, "s2-0", 4 },
		{ "s1-3", 3, "s2-1", 3 }, { "s1-3", 4, "s2-1", 4 },
	};
	ibf_fabric_t *f = tu_gen("pgft:2:2,2:2,1:1,2", 0);

	(void)state;
	check_common(f);
	assert_int_equal(f->nnodes, 4 + 4 + 2);
	assert_int_equal(f->nendpoints, 8);
	check_hand_links(f, want, sizeof(want) / sizeof(want[0]));
	ibf_fabric_destroy(f);
}

struct pgft {
	unsigned h, m[8], w[8], p[8]; /* 1-based */
};

static uint64_t level_count(const struct pgft *t, unsigned l)
{
	uint64_t c = 1;
	unsigned i;

	for (i = 1; i <= t->h; i++)
		c *= i > l ? t->m[i] : t->w[i];
	return c;
}

/* The label digits of node idx at level l (x_1 least significant). */
static void label(const struct pgft *t, unsigned l, uint64_t idx,
		  unsigned *x)
{
	unsigned i;

	for (i = 1; i <= t->h; i++) {
		unsigned r = i > l ? t->m[i] : t->w[i];

		x[i] = (unsigned)(idx % r);
		idx /= r;
	}
}

/* Level and index of a node, from its NodeDescription. */
static void node_label(const ibf_fabric_t *f, ibf_node_id_t n, unsigned *l,
		       unsigned *idx)
{
	const char *d = ibf_node_desc(f, n);

	if (d[0] == 'h') {
		*l = 0;
		assert_int_equal(sscanf(d, "h%u", idx), 1);
	} else {
		assert_int_equal(sscanf(d, "s%u-%u", l, idx), 2);
	}
}

static void check_pgft_links(const ibf_fabric_t *f, const struct pgft *t,
			     const unsigned *dist)
{
	unsigned n, p, q, l, i, ml, mi, a[9], b[9], j;

	for (n = 0; n < f->nnodes; n++) {
		node_label(f, n, &l, &i);
		assert_int_equal(dist[n], l); /* BFS level = desc level */
		label(t, l, i, a);
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_node_id_t m = peer_node(f, n, p, &q);
			unsigned down = l ? t->m[l] * t->p[l] : 0, k;

			node_label(f, m, &ml, &mi);
			/* links join adjacent levels only */
			assert_true(ml == l + 1 || ml + 1 == l);
			if (ml != l + 1)
				continue;
			label(t, ml, mi, b);
			for (j = 1; j <= t->h; j++)
				if (j != l + 1)
					assert_int_equal(a[j], b[j]);
			/* up port: parent y = b[l+1]; down port: child x */
			assert_true(p > down);
			k = (p - down - 1) % t->p[l + 1];
			assert_int_equal((p - down - 1) / t->p[l + 1],
					 b[l + 1]);
			assert_int_equal(q, a[l + 1] * t->p[l + 1] + k + 1);
		}
	}
}

/* Count up-only paths from every host to every node by DP, then compare
 * NCA counts and path counts with the paper's formulas. */
static void check_pgft_paths(const ibf_fabric_t *f, const struct pgft *t)
{
	unsigned nh = (unsigned)level_count(t, 0), s, d, n, p, l, i, k, lvl;
	uint64_t *ups = calloc((size_t)nh * f->nnodes, sizeof(*ups));
	unsigned *order = malloc(f->nnodes * sizeof(*order)), no = 0;
	unsigned xs[9], xd[9];

	/* nodes sorted by level */
	for (lvl = 0; lvl <= t->h; lvl++)
		for (n = 0; n < f->nnodes; n++) {
			node_label(f, n, &l, &i);
			if (l == lvl)
				order[no++] = n;
		}
	for (s = 0; s < nh; s++) {
		uint64_t *u = ups + (size_t)s * f->nnodes;

		u[s] = 1; /* hosts are nodes 0..nh-1 */
		for (i = 0; i < no; i++) {
			unsigned ml, mi;

			n = order[i];
			node_label(f, n, &l, &k);
			for (p = 1; p <= f->nodes[n].nports; p++) {
				ibf_node_id_t m = peer_node(f, n, p, NULL);

				node_label(f, m, &ml, &mi);
				if (ml == l + 1)
					u[m] += u[n];
			}
		}
	}
	for (s = 0; s < nh; s++)
		for (d = s + 1; d < nh; d++) {
			uint64_t paths = 0, wprod = 1, pprod = 1, common = 0;
			unsigned nca = 0;

			label(t, 0, s, xs);
			label(t, 0, d, xd);
			for (k = t->h; k >= 1 && xs[k] == xd[k]; k--)
				;
			for (i = 1; i <= k; i++) {
				wprod *= t->w[i];
				pprod *= t->p[i];
			}
			for (i = 0; i < no; i++) {
				uint64_t a, b;

				n = order[i];
				node_label(f, n, &l, &lvl);
				a = ups[(size_t)s * f->nnodes + n];
				b = ups[(size_t)d * f->nnodes + n];
				if (!a || !b)
					continue;
				if (l < k)
					common++; /* must not happen */
				if (l == k) {
					nca++;
					paths += a * b;
				}
			}
			assert_int_equal(common, 0);
			assert_int_equal(nca, wprod);
			assert_int_equal(paths, wprod * pprod * pprod);
		}
	free(ups);
	free(order);
}

static void check_pgft(const char *spec, const struct pgft *t, bool paths)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	uint64_t nsw = 0, nlinks = 0;
	ibf_node_id_t *hosts;
	unsigned *dist, l, n, i, nh = (unsigned)level_count(t, 0);

	check_common(f);
	for (l = 1; l <= t->h; l++)
		nsw += level_count(t, l);
	for (l = 0; l < t->h; l++)
		nlinks += level_count(t, l) * t->w[l + 1] * t->p[l + 1];
	assert_int_equal(count_type(f, IBF_NODE_CA), nh);
	assert_int_equal(f->nswitches, nsw);
	assert_int_equal(count_links(f), nlinks);
	assert_int_equal(f->nendpoints, (uint64_t)nh * t->w[1] * t->p[1]);
	/* degrees: m_l*p_l down + w_{l+1}*p_{l+1} up */
	for (n = 0; n < f->nnodes; n++) {
		node_label(f, n, &l, &i);
		assert_true(i < level_count(t, l));
		assert_int_equal(f->nodes[n].nports,
				 (l ? t->m[l] * t->p[l] : 0) +
				 (l < t->h ? t->w[l + 1] * t->p[l + 1] : 0));
	}
	hosts = malloc(nh * sizeof(*hosts));
	for (i = 0; i < nh; i++)
		hosts[i] = i;
	dist = bfs(f, hosts, nh);
	check_pgft_links(f, t, dist);
	if (paths)
		check_pgft_paths(f, t);
	free(dist);
	free(hosts);
	ibf_fabric_destroy(f);
}

static void test_pgft_structure(void **state)
{
	static const struct pgft fig1 = { 3, { 0, 4, 4, 3 }, { 0, 1, 2, 2 },
					  { 0, 1, 1, 1 } };
	static const struct pgft mixed = { 3, { 0, 2, 3, 2 }, { 0, 2, 2, 3 },
					   { 0, 2, 1, 2 } };
	static const struct pgft seed = { 3, { 0, 6, 6, 12 }, { 0, 1, 6, 6 },
					  { 0, 1, 1, 1 } };
	static const struct pgft kary = { 3, { 0, 4, 4, 4 }, { 0, 1, 4, 4 },
					  { 0, 1, 1, 1 } };
	static const struct pgft slim = { 2, { 0, 3, 4 }, { 0, 1, 2 },
					  { 0, 1, 3 } };

	(void)state;
	check_pgft("pgft:3:4,4,3:1,2,2:1,1,1", &fig1, true);
	check_pgft("xgft:3:4,4,3:1,2,2", &fig1, false);
	check_pgft("pgft:3:2,3,2:2,2,3:2,1,2", &mixed, true);
	check_pgft("pgft:3:6,6,12:1,6,6:1,1,1", &seed, false);
	check_pgft("kary:4,3", &kary, true);
	check_pgft("pgft:2:3,4:1,2:1,3", &slim, true);
}

/* Closed forms of the paper: XGFT(3; 4,4,3; 1,2,2) has 48 hosts and
 * 12 + 6 + 4 switches (Fig. 1: 3 copies of XGFT(2;4,4;1,2), each
 * with 4 leaves and 2 roots, under 1*2*2 top switches); k-ary n-tree: k^n hosts, n*k^(n-1)
 * switches; the 36-port 3-level tree: 11,664 hosts and 3 * 11,664
 * links (the paper's "58,320 links" counts each switch-to-switch link once
 * per direction: 11,664 + 2 * 23,328). */
static void test_fattree_closed_forms(void **state)
{
	ibf_fabric_t *f;

	(void)state;
	f = tu_gen("xgft:3:4,4,3:1,2,2", 0);
	assert_int_equal(count_type(f, IBF_NODE_CA), 48);
	assert_int_equal(f->nswitches, 12 + 6 + 4);
	ibf_fabric_destroy(f);
	f = tu_gen("kary:16,3", 0);
	assert_int_equal(count_type(f, IBF_NODE_CA), 4096);
	assert_int_equal(f->nswitches, 3 * 256);
	check_common(f);
	ibf_fabric_destroy(f);
	f = tu_gen("pgft:3:18,18,36:1,18,18:1,1,1", 0);
	assert_int_equal(count_type(f, IBF_NODE_CA), 11664);
	assert_int_equal(count_links(f), 3 * 11664);
	assert_int_equal(f->nswitches, 648 + 648 + 324);
	check_common(f);
	ibf_fabric_destroy(f);
}

static void test_lmc_lids(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,2", 2);
	unsigned i;

	(void)state;
	check_common(f);
	assert_int_equal(f->lmc, 2);
	/* hosts first: base LIDs 4, 8, 12, 16, then switches 20.. */
	for (i = 0; i < 4; i++)
		assert_int_equal(ibf_node_port(f, i, 1)->lid, 4 * (i + 1));
	assert_int_equal(ibf_node_port(f, 4, 0)->lid, 20);
	ibf_fabric_destroy(f);
}

/* ---- direct networks ------------------------------------------------------ */

static void check_slimfly(const char *spec, unsigned q, unsigned kp,
			  unsigned p)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	unsigned i, ports;
	rgraph_t g;

	check_common(f);
	assert_int_equal(f->nswitches, 2 * q * q);
	assert_int_equal(count_type(f, IBF_NODE_CA), 2 * q * q * p);
	rgraph_build(f, &g);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(rg_degree(&g, i, &ports), kp);
		assert_int_equal(ports, kp); /* no parallel links */
		assert_int_equal(hosts_on(f, f->switches[i]), p);
	}
	assert_int_equal(rg_diameter(&g), 2);
	free(g.mult);
	ibf_fabric_destroy(f);
}

/* k' = (3q - delta)/2, default p = ceil(k'/2) (FatPaths, Table V). */
static void test_slimfly(void **state)
{
	(void)state;
	check_slimfly("slimfly:3", 3, 5, 3);
	check_slimfly("slimfly:5", 5, 7, 4);
	check_slimfly("slimfly:7", 7, 11, 6);
	check_slimfly("slimfly:11:2", 11, 17, 2);
	check_slimfly("slimfly:13:1", 13, 19, 1);
}

static void test_dragonfly(void **state)
{
	/* a = 4, p = 2, h = 2: g = 9 groups, 36 routers, 72 hosts */
	ibf_fabric_t *f = tu_gen("dragonfly:4,2,2", 0);
	unsigned a = 4, h = 2, ng = 9, gl[9][9] = { { 0 } };
	unsigned i, j, gi, ri, gj, rj, ports;
	rgraph_t g;

	(void)state;
	check_common(f);
	assert_int_equal(f->nswitches, a * ng);
	assert_int_equal(count_type(f, IBF_NODE_CA), 2 * a * ng);
	rgraph_build(f, &g);
	for (i = 0; i < g.n; i++) {
		unsigned global = 0;

		assert_int_equal(sscanf(ibf_node_desc(f, f->switches[i]),
					"df-g%u-r%u", &gi, &ri), 2);
		assert_int_equal(hosts_on(f, f->switches[i]), 2);
		for (j = 0; j < g.n; j++) {
			if (!rg_mult(&g, i, j))
				continue;
			assert_int_equal(rg_mult(&g, i, j), 1);
			sscanf(ibf_node_desc(f, f->switches[j]), "df-g%u-r%u",
			       &gj, &rj);
			if (gi == gj)
				continue;
			global++;
			gl[gi][gj]++;
		}
		assert_int_equal(global, h);
		/* complete group: a-1 local neighbours */
		assert_int_equal(rg_degree(&g, i, &ports), a - 1 + h);
	}
	for (gi = 0; gi < ng; gi++)
		for (gj = 0; gj < ng; gj++)
			assert_int_equal(gl[gi][gj], gi != gj);
	assert_true(rg_diameter(&g) <= 3);
	free(g.mult);
	ibf_fabric_destroy(f);
}

/* "hx-c0-c1-..": the coordinates, first one most significant. */
static void hx_coords(const char *desc, unsigned L, unsigned *c)
{
	unsigned d;
	int used;

	assert_true(strncmp(desc, "hx", 2) == 0);
	desc += 2;
	for (d = 0; d < L; d++) {
		assert_int_equal(sscanf(desc, "-%u%n", &c[d], &used), 1);
		desc += used;
	}
	assert_int_equal(*desc, '\0');
}

static void check_hyperx(const char *spec, unsigned L, unsigned S,
			 unsigned K, unsigned p)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	unsigned nr = 1, i, j, d, ports;
	unsigned ci[8], cj[8];
	rgraph_t g;

	for (i = 0; i < L; i++)
		nr *= S;
	check_common(f);
	assert_int_equal(f->nswitches, nr);
	assert_int_equal(count_type(f, IBF_NODE_CA), nr * p);
	rgraph_build(f, &g);
	for (i = 0; i < g.n; i++) {
		hx_coords(ibf_node_desc(f, f->switches[i]), L, ci);
		assert_int_equal(rg_degree(&g, i, &ports), L * (S - 1));
		assert_int_equal(ports, L * (S - 1) * K);
		assert_int_equal(hosts_on(f, f->switches[i]), p);
		for (j = 0; j < g.n; j++) {
			unsigned nd = 0;

			if (!rg_mult(&g, i, j))
				continue;
			assert_int_equal(rg_mult(&g, i, j), K);
			hx_coords(ibf_node_desc(f, f->switches[j]), L, cj);
			for (d = 0; d < L; d++)
				nd += ci[d] != cj[d];
			assert_int_equal(nd, 1); /* one coordinate differs */
		}
	}
	assert_int_equal(rg_diameter(&g), L);
	free(g.mult);
	ibf_fabric_destroy(f);
}

static void test_hyperx(void **state)
{
	(void)state;
	/* default p = k'/L = (S-1)*K (FatPaths, Table V) */
	check_hyperx("hyperx:2:4:1", 2, 4, 1, 3);
	check_hyperx("hyperx:3:3:2:1", 3, 3, 2, 1);
	check_hyperx("hyperx:1:5:1:2", 1, 5, 1, 2);
	check_hyperx("hyperx:4:2:1", 4, 2, 1, 1);
}

static void check_torus(const char *spec, unsigned x, unsigned y, unsigned z,
			unsigned p)
{
	unsigned dims[3] = { x, y, z }, deg = 0, d, i, j, ports, nd, c[3];
	ibf_fabric_t *f = tu_gen(spec, 0);
	rgraph_t g;

	for (d = 0; d < 3; d++)
		deg += dims[d] >= 3 ? 2 : dims[d] == 2 ? 1 : 0;
	check_common(f);
	assert_int_equal(f->nswitches, x * y * z);
	assert_int_equal(count_type(f, IBF_NODE_CA), x * y * z * p);
	assert_int_equal(count_links(f), x * y * z * p + x * y * z * deg / 2);
	rgraph_build(f, &g);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(rg_degree(&g, i, &ports), deg);
		assert_int_equal(ports, deg);
		assert_int_equal(hosts_on(f, f->switches[i]), p);
		sscanf(ibf_node_desc(f, f->switches[i]), "t-%u-%u-%u", &c[0],
		       &c[1], &c[2]);
		for (j = 0; j < g.n; j++) {
			unsigned o[3];

			if (!rg_mult(&g, i, j))
				continue;
			sscanf(ibf_node_desc(f, f->switches[j]), "t-%u-%u-%u",
			       &o[0], &o[1], &o[2]);
			for (nd = 0, d = 0; d < 3; d++) {
				unsigned diff = (o[d] + dims[d] - c[d]) %
						dims[d];

				if (diff)
					assert_true(diff == 1 ||
						    diff == dims[d] - 1);
				nd += diff != 0;
			}
			assert_int_equal(nd, 1);
		}
	}
	assert_int_equal(rg_diameter(&g), x / 2 + y / 2 + z / 2);
	free(g.mult);
	ibf_fabric_destroy(f);
}

static void test_torus(void **state)
{
	(void)state;
	check_torus("torus:4,3,5", 4, 3, 5, 1);
	check_torus("torus:3,3,3:2", 3, 3, 3, 2);
	check_torus("torus:2,3,1:2", 2, 3, 1, 2);
	check_torus("torus:2,2,2", 2, 2, 2, 1);
}

static void test_jellyfish(void **state)
{
	ibf_fabric_t *a = tu_gen("jellyfish:30,5,2:7", 0);
	ibf_fabric_t *b = tu_gen("jellyfish:30,5,2:7", 0);
	ibf_fabric_t *c = tu_gen("jellyfish:30,5,2:8", 0);
	unsigned i, ports;
	ibf_err_t err;
	rgraph_t g;

	(void)state;
	check_common(a);
	assert_int_equal(a->nswitches, 30);
	assert_int_equal(count_type(a, IBF_NODE_CA), 60);
	rgraph_build(a, &g);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(rg_degree(&g, i, &ports), 5);
		assert_int_equal(ports, 5);
		assert_int_equal(rg_mult(&g, i, i), 0);
	}
	rg_diameter(&g); /* asserts connected */
	free(g.mult);
	assert_int_equal(ibf_fabric_compare(a, b, &err), IBF_OK);
	assert_int_equal(ibf_fabric_compare(a, c, &err), IBF_ERR_INVALID);
	ibf_fabric_destroy(a);
	ibf_fabric_destroy(b);
	ibf_fabric_destroy(c);

	/* dense, sparse and larger cases all come out K-regular, connected */
	a = tu_gen("jellyfish:12,11,1", 0); /* complete graph */
	check_common(a);
	assert_int_equal(count_links(a), 12 * 11 / 2 + 12);
	ibf_fabric_destroy(a);
	a = tu_gen("jellyfish:500,3,1:1", 0);
	check_common(a);
	assert_int_equal(count_links(a), 500 * 3 / 2 + 500);
	ibf_fabric_destroy(a);
	/* K = 2: a single cycle through all routers (components joined) */
	a = tu_gen("jellyfish:300,2,1:3", 0);
	check_common(a);
	assert_int_equal(count_links(a), 300 + 300);
	ibf_fabric_destroy(a);
	a = tu_gen("jellyfish:10,3,1:18446744073709551615", 0);
	check_common(a);
	ibf_fabric_destroy(a);
	a = tu_gen("jellyfish:1000,24,8", 0);
	check_common(a);
	ibf_fabric_destroy(a);
}

/* ---- random trees ------------------------------------------------------------ */

static void check_tree(const char *spec, unsigned s, unsigned h, unsigned p)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	unsigned i, ports;
	rgraph_t g;

	check_common(f); /* connected, every port used */
	assert_int_equal(f->nswitches, s);
	assert_int_equal(count_type(f, IBF_NODE_CA), h);
	/* a tree: one link fewer than nodes */
	assert_int_equal(count_links(f), s + h - 1);
	rgraph_build(f, &g);
	for (i = 0; i < g.n; i++) {
		ibf_node_id_t sw = f->switches[i];
		unsigned deg = rg_degree(&g, i, &ports);

		assert_true(f->nodes[sw].nports <= p);
		assert_int_equal(deg, ports); /* no parallel links */
		/* an end of the switch tree holds a host */
		if (deg <= 1)
			assert_true(hosts_on(f, sw) >= 1);
	}
	free(g.mult);
	ibf_fabric_destroy(f);
}

static void test_tree(void **state)
{
	ibf_fabric_t *a, *b;
	ibf_err_t err;

	(void)state;
	check_tree("tree:1,5,8", 1, 5, 8);
	check_tree("tree:2,2,2", 2, 2, 2);
	check_tree("tree:12,40,6:1", 12, 40, 6);
	check_tree("tree:100,256,16:4", 100, 256, 16);
	check_tree("tree:300,300,3:9", 300, 300, 3);
	a = tu_gen("tree:30,64,8:2", 0);
	b = tu_gen("tree:30,64,8:2", 0);
	assert_int_equal(ibf_fabric_compare(a, b, &err), IBF_OK);
	ibf_fabric_destroy(b);
	b = tu_gen("tree:30,64,8:3", 0);
	assert_int_equal(ibf_fabric_compare(a, b, &err), IBF_ERR_INVALID);
	ibf_fabric_destroy(a);
	ibf_fabric_destroy(b);
	gen_bad("tree:4,1,8", 0, IBF_ERR_RANGE, "too few for the leaf");
	gen_bad("tree:4,20,3", 0, IBF_ERR_RANGE, "cannot hold H = 20");
	gen_bad("tree:5,5,1", 0, IBF_ERR_RANGE, "P = 1");
	gen_bad("tree:0,5,4", 0, IBF_ERR_RANGE, "S = 0");
	gen_bad("tree:5,5", 0, IBF_ERR_PARSE, "expected 3");
}

/* ---- bad specs ------------------------------------------------------------ */

static void test_bad_specs(void **state)
{
	(void)state;
	gen_bad("", 0, IBF_ERR_PARSE, "unknown family");
	gen_bad("fattree:3", 0, IBF_ERR_PARSE, "unknown family 'fattree'");
	gen_bad("pgft", 0, IBF_ERR_PARSE, "no parameters");
	gen_bad("pgft:3:6,6:1,6,6:1,1,1", 0, IBF_ERR_PARSE,
		"M has 2 values, expected 3");
	gen_bad("pgft:3:6,6,12:1,6,6", 0, IBF_ERR_PARSE, "3 ':'-separated");
	gen_bad("pgft:0:1:1:1", 0, IBF_ERR_RANGE, "H = 0");
	gen_bad("pgft:2:4,0:1,4:1,1", 0, IBF_ERR_RANGE, "M2 = 0 is out of range");
	gen_bad("pgft:1:300:1:1", 0, IBF_ERR_RANGE, "M1 = 300");
	gen_bad("pgft:2:4,4:1,4:1,0", 0, IBF_ERR_RANGE, "P2 = 0");
	gen_bad("pgft:2:200,2:1,100:1,1", 0, IBF_ERR_RANGE,
		"level-1 switch would have 300 ports");
	gen_bad("pgft:1:4:2:200", 0, IBF_ERR_RANGE, "host (W1*P1)");
	gen_bad("xgft:2:2,x:1,2", 0, IBF_ERR_PARSE, "M2 'x' is not a number");
	gen_bad("kary:-4,3", 0, IBF_ERR_PARSE, "K '-4' is not a number");
	gen_bad("kary:4,3,1", 0, IBF_ERR_PARSE, "K,N has 3 values");
	gen_bad("kary:0,3", 0, IBF_ERR_RANGE, "K = 0");
	gen_bad("kary:2,0", 0, IBF_ERR_RANGE, "N = 0");
	gen_bad("dragonfly:4,0,2", 0, IBF_ERR_RANGE, "P = 0");
	gen_bad("kary:4,,3", 0, IBF_ERR_PARSE, "not a number");
	gen_bad("kary:4,3:", 0, IBF_ERR_PARSE, "not a number");
	gen_bad("kary:128,2", 0, IBF_ERR_RANGE, "256 ports");
	gen_bad("kary:99999999999999999999,2", 0, IBF_ERR_RANGE,
		"too large");
	gen_bad("kary:4 ,2", 0, IBF_ERR_PARSE, "not a number");
	/* LID space: 11,664 hosts fit at LMC 2, not at LMC 3 */
	gen_bad("kary:8,5", 0, IBF_ERR_RANGE, "above 0xBFFF");
	gen_bad("xgft:3:18,18,36:1,18,18", 3, IBF_ERR_RANGE, "at LMC 3");
	gen_bad("torus:100,100,11", 0, IBF_ERR_RANGE, "110000 endpoints");
	gen_bad("torus:2,2", 0, IBF_ERR_PARSE, "X,Y,Z has 2 values");
	gen_bad("torus:2,2,2:0", 0, IBF_ERR_RANGE, "P = 0");
	gen_bad("slimfly:9", 0, IBF_ERR_RANGE, "Q = 9 is not an odd prime");
	gen_bad("slimfly:2", 0, IBF_ERR_RANGE, "Q = 2");
	gen_bad("slimfly:5:3:1", 0, IBF_ERR_PARSE, "3 ':'-separated");
	gen_bad("dragonfly:4,2", 0, IBF_ERR_PARSE, "A,P,H has 2 values");
	gen_bad("hyperx:2:1:1", 0, IBF_ERR_RANGE, "S = 1");
	gen_bad("hyperx:2:100:2", 0, IBF_ERR_RANGE, "router would have");
	gen_bad("jellyfish:5,3,1", 0, IBF_ERR_RANGE, "is odd");
	gen_bad("jellyfish:4,4,1", 0, IBF_ERR_RANGE, "K = 4 needs NR > K");
	gen_bad("jellyfish:40,1,1", 0, IBF_ERR_INVALID,
		"no connected 1-regular graph");
	gen_bad("jellyfish:10,3,1:18446744073709551616", 0, IBF_ERR_RANGE,
		"SEED '18446744073709551616' is too large");
	gen_bad("torus:2,2,2:1:1", 0, IBF_ERR_PARSE, "3 ':'-separated");
	gen_bad("kary:2,2", 8, IBF_ERR_RANGE, "LMC 8");
	{
		ibf_fabric_t *f = tu_gen("xgft:3:18,18,36:1,18,18", 2);

		check_common(f);
		ibf_fabric_destroy(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xgft_hand),
		cmocka_unit_test(test_pgft_hand),
		cmocka_unit_test(test_pgft_structure),
		cmocka_unit_test(test_fattree_closed_forms),
		cmocka_unit_test(test_lmc_lids),
		cmocka_unit_test(test_slimfly),
		cmocka_unit_test(test_dragonfly),
		cmocka_unit_test(test_hyperx),
		cmocka_unit_test(test_torus),
		cmocka_unit_test(test_jellyfish),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_bad_specs),
	};

	return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
