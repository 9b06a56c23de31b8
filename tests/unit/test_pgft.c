/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * PGFT recognition.  Every fabric is a generated PGFT rebuilt under a random
 * permutation of node order, GUIDs and port numbers (and optionally edited:
 * links dropped, added or swapped, a node left out), so recognition cannot
 * lean on the generator's order.  The result is checked by this file's own
 * code: (h, m, w, p) against the spec, levels against the generator's names,
 * and the wiring rule of the paper by brute force over all pairs of nodes
 * of adjacent levels on the recognized labels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/labels_io.h>
#include <ibflow/pgft.h>

#include "test_util.h"

/* ---- permuted copies --------------------------------------------------- */

typedef struct tlink {
	uint32_t a, pa, b, pb; /* source node ids and port numbers */
} tlink_t;

/* Links of f, each once; room for 8 more. */
static tlink_t *links_of(const ibf_fabric_t *f, size_t *n)
{
	tlink_t *l = malloc(((size_t)f->nports + 8) * sizeof(*l));
	ibf_port_id_t p;

	assert_non_null(l);
	*n = 0;
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *a = &f->ports[p];

		if (a->peer == IBF_NO_ID || a->peer < p)
			continue;
		l[(*n)++] = (tlink_t){ a->node, a->num,
				       f->ports[a->peer].node,
				       f->ports[a->peer].num };
	}
	return l;
}

/*
 * Rebuild src with links l[0..n): nodes in random order with random GUIDs,
 * one spare port each (number nports + 1 in source terms), port numbers
 * permuted per node unless keep_ports; nodes with skip[id] set (skip may be
 * NULL) left out with their links.  The random draws do not depend on
 * skip, so copies with different skip sets agree on GUIDs and ports.
 * map[] receives source node id -> new node id.
 */
static ibf_fabric_t *permuted_ex(const ibf_fabric_t *src, const tlink_t *l,
				 size_t n, uint64_t seed, const bool *skip,
				 bool keep_ports, ibf_node_id_t *map)
{
	uint32_t nn = src->nnodes, *order = malloc(nn * sizeof(*order));
	uint8_t (*pm)[IBF_MAX_PORTS + 1] = calloc(nn, sizeof(*pm));
	uint32_t perm[IBF_MAX_PORTS + 1], i, q, np;
	uint64_t s = seed * 2654435761u + 1, guid;
	ibf_fabric_t *f;
	ibf_err_t err;
	size_t k;

	assert_non_null(order);
	assert_non_null(pm);
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < nn; i++)
		order[i] = i;
	tu_shuffle(order, nn, &s);
	for (i = 0; i < nn; i++) {
		const ibf_node_t *sn = &src->nodes[order[i]];

		map[order[i]] = IBF_NO_ID;
		np = sn->nports + 1u;
		assert_true(np <= IBF_MAX_PORTS);
		for (q = 0; q < np; q++)
			perm[q] = q + 1;
		tu_shuffle(perm, np, &s);
		for (q = 0; q < np; q++)
			pm[order[i]][q + 1] = (uint8_t)(keep_ports ? q + 1 :
							 perm[q]);
		guid = (tu_rand(&s) & 0xffffffffff00ULL) | 0x0800000000000000ULL;
		if (skip && skip[order[i]])
			continue;
		if (ibf_fabric_add_node(f, sn->type, guid,
					ibf_node_desc(src, order[i]), np,
					&map[order[i]], &err) != IBF_OK)
			fail_msg("add_node: %s", err.msg);
	}
	for (k = 0; k < n; k++) {
		if (map[l[k].a] == IBF_NO_ID || map[l[k].b] == IBF_NO_ID)
			continue;
		if (ibf_fabric_link(f, map[l[k].a], pm[l[k].a][l[k].pa],
				    map[l[k].b], pm[l[k].b][l[k].pb], 4,
				    IBF_SPEED_EDR, &err) != IBF_OK)
			fail_msg("link: %s", err.msg);
	}
	if (ibf_fabric_finalize(f, NULL, &err) != IBF_OK)
		fail_msg("finalize: %s", err.msg);
	free(order);
	free(pm);
	return f;
}

static ibf_fabric_t *permuted(const ibf_fabric_t *src, const tlink_t *l,
			      size_t n, uint64_t seed, ibf_node_id_t skip,
			      ibf_node_id_t *map)
{
	bool *sk = calloc(src->nnodes, sizeof(*sk));
	ibf_fabric_t *f;

	assert_non_null(sk);
	if (skip != IBF_NO_ID)
		sk[skip] = true;
	f = permuted_ex(src, l, n, seed, sk, false, map);
	free(sk);
	return f;
}

/* Level from the generator's names: hosts "h...", switches "s<l>-<n>". */
static unsigned name_level(const ibf_fabric_t *f, ibf_node_id_t n)
{
	const char *d = ibf_node_desc(f, n);

	return d[0] == 's' ? (unsigned)atoi(d + 1) : 0;
}

static uint32_t spec_count(const unsigned *m, const unsigned *w, unsigned h,
			   unsigned l)
{
	uint32_t c = 1;
	unsigned i;

	for (i = 1; i <= h; i++)
		c *= i > l ? m[i] : w[i];
	return c;
}

/* Links between u and v in f. */
static unsigned nlinks(const ibf_fabric_t *f, ibf_node_id_t u,
		       ibf_node_id_t v)
{
	unsigned q, c = 0;

	for (q = 1; q <= f->nodes[u].nports; q++) {
		ibf_port_id_t pp = ibf_node_port(f, u, q)->peer;

		c += pp != IBF_NO_ID && f->ports[pp].node == v;
	}
	return c;
}

/* The paper's rule on the recognized labels, all pairs of adjacent levels;
 * also the port tables and the host order.  missing = links the fabric
 * lacks on purpose. */
static void check_rule(const ibf_fabric_t *f, const ibf_pgft_t *pg,
		       unsigned missing)
{
	unsigned h = pg->h, i, l, y, k, seen = 0;
	ibf_node_id_t u, v;
	uint32_t e;

	for (u = 0; u < f->nnodes; u++) {
		l = pg->level[u];
		for (i = 1; i <= h; i++)
			assert_true(ibf_pgft_digit(pg, u, i) <
				    (i > l ? pg->m[i] : pg->w[i]));
		for (v = 0; v < f->nnodes; v++) {
			bool rule = pg->level[v] == l + 1;

			if (pg->level[v] != l + 1)
				continue;
			for (i = 1; i <= h && rule; i++)
				if (i != l + 1 && ibf_pgft_digit(pg, u, i) !=
						  ibf_pgft_digit(pg, v, i))
					rule = false;
			k = nlinks(f, u, v);
			if (rule) {
				assert_true(k <= pg->p[l + 1]);
				seen += pg->p[l + 1] - k;
			} else if (k) {
				fail_msg("%s and %s linked against the rule",
					 ibf_node_desc(f, u),
					 ibf_node_desc(f, v));
			}
		}
		/* up slots: port leads to the parent with digit y */
		if (l < h)
			for (y = 0; y < pg->w[l + 1]; y++)
				for (k = 0; k < pg->p[l + 1]; k++) {
					unsigned q = ibf_pgft_up_port(pg, u,
								      y, k);
					ibf_port_id_t pp;

					if (!q)
						continue;
					pp = ibf_node_port(f, u, q)->peer;
					v = f->ports[pp].node;
					assert_int_equal(pg->level[v], l + 1);
					assert_int_equal(
						ibf_pgft_digit(pg, v, l + 1), y);
					assert_int_equal(ibf_pgft_down_port(
						pg, v,
						ibf_pgft_digit(pg, u, l + 1), k),
						f->ports[pp].num);
				}
	}
	assert_int_equal(seen, missing);
	assert_int_equal(pg->missing_links, missing);
	/* host order: every endpoint once, labels non-decreasing */
	assert_int_equal(pg->nhosts, f->nendpoints);
	for (e = 0; e < pg->nhosts; e++) {
		ibf_port_id_t ep = pg->host_order[e];

		assert_int_equal(pg->ep_pos[f->endpoint_index[ep]], e);
		if (e) {
			ibf_node_id_t a = f->ports[pg->host_order[e - 1]].node;
			ibf_node_id_t b = f->ports[ep].node;

			for (i = h; i >= 1; i--)
				if (ibf_pgft_digit(pg, a, i) !=
				    ibf_pgft_digit(pg, b, i))
					break;
			assert_true(i == 0 || ibf_pgft_digit(pg, a, i) <
						      ibf_pgft_digit(pg, b, i));
		}
	}
}

/* ---- shapes ------------------------------------------------------------- */

typedef struct shape {
	const char *spec;
	unsigned h, m[6], w[6], p[6]; /* 1-based */
} shape_t;

static const shape_t shapes[] = {
	{ "pgft:2:4,4:1,4:1,1", 2, { 0, 4, 4 }, { 0, 1, 4 }, { 0, 1, 1 } },
	{ "xgft:2:4,4:1,2", 2, { 0, 4, 4 }, { 0, 1, 2 }, { 0, 1, 1 } },
	{ "pgft:3:6,6,12:1,6,6:1,1,1", 3, { 0, 6, 6, 12 }, { 0, 1, 6, 6 },
	  { 0, 1, 1, 1 } },
	{ "pgft:2:4,4:2,2:1,1", 2, { 0, 4, 4 }, { 0, 2, 2 }, { 0, 1, 1 } },
	{ "pgft:2:3,4:1,3:2,2", 2, { 0, 3, 4 }, { 0, 1, 3 }, { 0, 2, 2 } },
	{ "kary:4,3", 3, { 0, 4, 4, 4 }, { 0, 1, 4, 4 }, { 0, 1, 1, 1 } },
	{ "xgft:3:2,2,2:1,2,2", 3, { 0, 2, 2, 2 }, { 0, 1, 2, 2 },
	  { 0, 1, 1, 1 } },
	/* fatted: a leaf has 2 hosts and 4 parents */
	{ "pgft:2:2,3:1,4:1,1", 2, { 0, 2, 3 }, { 0, 1, 4 }, { 0, 1, 1 } },
	/* parallel links at the top level only */
	{ "pgft:2:4,2:1,2:1,3", 2, { 0, 4, 2 }, { 0, 1, 2 }, { 0, 1, 3 } },
	{ "pgft:1:5:1:1", 1, { 0, 5 }, { 0, 1 }, { 0, 1 } },
	{ "xgft:4:2,2,2,2:1,2,2,2", 4, { 0, 2, 2, 2, 2 }, { 0, 1, 2, 2, 2 },
	  { 0, 1, 1, 1, 1 } },
	/* mixed: two-port hosts, parallel host links, slimmed middle */
	{ "pgft:3:2,3,2:2,1,2:2,2,1", 3, { 0, 2, 3, 2 }, { 0, 2, 1, 2 },
	  { 0, 2, 2, 1 } },
	{ "pgft:2:3,3:1,2:3,1", 2, { 0, 3, 3 }, { 0, 1, 2 }, { 0, 3, 1 } },
	{ "pgft:1:4:3:2", 1, { 0, 4 }, { 0, 3 }, { 0, 2 } },
};

static void check_shape(const shape_t *s, uint64_t seed)
{
	ibf_fabric_t *src = tu_gen(s->spec, 0), *f;
	ibf_node_id_t *map = malloc(src->nnodes * sizeof(*map)), u;
	ibf_pgft_t *pg;
	ibf_err_t err;
	tlink_t *l;
	size_t n;
	unsigned i;

	l = links_of(src, &n);
	f = permuted(src, l, n, seed, IBF_NO_ID, map);
	if (ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
		fail_msg("%s: %s", s->spec, err.msg);
	assert_int_equal(pg->h, s->h);
	for (i = 1; i <= s->h; i++) {
		if (pg->m[i] != s->m[i] || pg->w[i] != s->w[i] ||
		    pg->p[i] != s->p[i])
			fail_msg("%s: level %u: m w p = %u %u %u", s->spec, i,
				 pg->m[i], pg->w[i], pg->p[i]);
	}
	for (i = 0; i <= s->h; i++)
		assert_int_equal(pg->level_count[i],
				 spec_count(s->m, s->w, s->h, i));
	for (u = 0; u < f->nnodes; u++)
		assert_int_equal(pg->level[u], name_level(f, u));
	check_rule(f, pg, 0);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(src);
	free(map);
	free(l);
}

static void test_shapes(void **state)
{
	size_t i;
	uint64_t seed;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (seed = 1; seed <= 3; seed++)
			check_shape(&shapes[i], seed * 100 + i);
}

/* ibf_pgft_nca_level() against a search over the switches: the lowest
 * level holding a switch that both nodes are below (ibf_pgft_is_below),
 * h + 1 when none is (switches of different replica digits).  The
 * second fabric has two planes (w_1 = 2), so some leaves share no
 * ancestor. */
static void test_nca_level(void **state)
{
	static const char *const specs[] = {
		"xgft:3:4,4,4:1,4,4", "pgft:3:2,3,2:2,1,2:2,2,1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = tu_gen(specs[i], 0);
		ibf_pgft_t *pg;
		ibf_err_t err;
		ibf_node_id_t a, b, s;
		unsigned none = 0;

		if (ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
			fail_msg("%s: %s", specs[i], err.msg);
		for (a = 0; a < f->nnodes; a++)
			for (b = 0; b < f->nnodes; b++) {
				unsigned l = pg->level[a], want = pg->h + 1;

				if (l == IBF_PGFT_NO_LEVEL || l == 0 ||
				    pg->level[b] != l)
					continue;
				for (s = 0; s < f->nnodes; s++)
					if (pg->level[s] != IBF_PGFT_NO_LEVEL &&
					    pg->level[s] >= l &&
					    pg->level[s] < want &&
					    ibf_pgft_is_below(pg, s, a) &&
					    ibf_pgft_is_below(pg, s, b))
						want = pg->level[s];
				none += l == 1 && want == pg->h + 1;
				if (ibf_pgft_nca_level(pg, a, b) != want)
					fail_msg("%s: nodes %u %u: %u, want %u",
						 specs[i], (unsigned)a,
						 (unsigned)b,
						 ibf_pgft_nca_level(pg, a, b),
						 want);
			}
		/* leaves of one plane always meet; the two-plane tree has
		 * leaves that never do */
		assert_true(i == 0 ? none == 0 : none > 0);
		ibf_pgft_destroy(pg);
		ibf_fabric_destroy(f);
	}
}

/* The generator's own order must give the same parameters (no copy). */
static void test_unshuffled(void **state)
{
	ibf_fabric_t *f = tu_gen("pgft:3:2,3,2:2,1,2:2,2,1", 0);
	ibf_pgft_t *pg;
	ibf_err_t err;
	char buf[128];

	(void)state;
	if (ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_string_equal(ibf_pgft_format(pg, buf, sizeof(buf)),
			    "PGFT(3; 2,3,2; 2,1,2; 2,2,1)");
	check_rule(f, pg, 0);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
}

/* ---- refusals ----------------------------------------------------------- */

static ibf_node_id_t by_name(const ibf_fabric_t *f, const char *d)
{
	bool amb;
	ibf_node_id_t n = ibf_fabric_node_by_desc(f, d, &amb);

	assert_true(n != IBF_NO_ID);
	return n;
}

/* Index of the link between named nodes in l. */
static size_t find_link(const ibf_fabric_t *src, const tlink_t *l, size_t n,
			const char *a, const char *b)
{
	ibf_node_id_t na = by_name(src, a), nb = by_name(src, b);
	size_t k;

	for (k = 0; k < n; k++)
		if ((l[k].a == na && l[k].b == nb) ||
		    (l[k].a == nb && l[k].b == na))
			return k;
	fail_msg("no link %s - %s", a, b);
	return 0;
}

static tlink_t spare_link(const ibf_fabric_t *src, const char *a,
			  const char *b)
{
	ibf_node_id_t na = by_name(src, a), nb = by_name(src, b);

	return (tlink_t){ na, src->nodes[na].nports + 1u, nb,
			  src->nodes[nb].nports + 1u };
}

/* Recognize the edited copy; expect status want and every needle (NULL
 * ends; "a|b" = either) in the message. */
static ibf_pgft_t *run(const char *spec, tlink_t *l, size_t n,
		       const char *skip, ibf_status_t want,
		       const char *const *needles, ibf_fabric_t **fo)
{
	ibf_fabric_t *src = tu_gen(spec, 0), *f;
	ibf_node_id_t *map = malloc(src->nnodes * sizeof(*map));
	ibf_pgft_t *pg = NULL;
	ibf_status_t st;
	ibf_err_t err;
	unsigned seed;

	for (seed = 1; seed <= 3; seed++) {
		f = permuted(src, l, n, seed,
			     skip ? by_name(src, skip) : IBF_NO_ID, map);
		ibf_err_clear(&err);
		st = ibf_pgft_recognize(f, &pg, &err);
		if (st != want)
			fail_msg("%s: status %d, wanted %d: %s", spec, st,
				 want, err.msg);
		for (const char *const *nd = needles; nd && *nd; nd++) {
			char alt[64], *bar;

			snprintf(alt, sizeof(alt), "%s", *nd);
			bar = strchr(alt, '|');
			if (bar)
				*bar++ = '\0';
			if (!strstr(err.msg, alt) &&
			    !(bar && strstr(err.msg, bar)))
				fail_msg("%s: \"%s\" lacks \"%s\"", spec,
					 err.msg, *nd);
		}
		if (seed < 3 || !fo) {
			ibf_pgft_destroy(pg);
			pg = NULL;
			ibf_fabric_destroy(f);
		} else {
			*fo = f;
		}
	}
	ibf_fabric_destroy(src);
	free(map);
	return pg;
}

/* The complete tree of spec with one more cable, a - b, on spare ports:
 * refused, the message holding every needle. */
static void refuse_spare_link(const char *spec, const char *a,
			      const char *b, const char *const *needles)
{
	ibf_fabric_t *src = tu_gen(spec, 0);
	tlink_t *l;
	size_t n;

	l = links_of(src, &n);
	l[n++] = spare_link(src, a, b);
	run(spec, l, n, NULL, IBF_ERR_INVALID, needles, NULL);
	free(l);
	ibf_fabric_destroy(src);
}

static void test_extra_cross_link(void **state)
{
	const char *nd[] = { "extra link between level-1 switches",
			     "\"s1-1\"", "\"s1-2\"", NULL };

	(void)state;
	refuse_spare_link("pgft:2:4,4:1,4:1,1", "s1-1", "s1-2", nd);
}

/* A missing switch is a hole in the complete PGFT: the parameters and
 * level sizes stay, the switch's place is empty, nothing else is missing. */
static void test_missing_switch(void **state)
{
	const char *spec = "pgft:3:4,4,4:1,4,4:1,1,1";
	const char *nd[] = { NULL };
	ibf_fabric_t *src = tu_gen(spec, 0), *f = NULL;
	ibf_pgft_t *pg;
	tlink_t *l;
	size_t n;
	uint32_t i, holes = 0;
	char buf[128];

	(void)state;
	l = links_of(src, &n);
	pg = run(spec, l, n, "s2-5", IBF_OK, nd, &f);
	assert_non_null(pg);
	assert_string_equal(ibf_pgft_format(pg, buf, sizeof(buf)),
			    "PGFT(3; 4,4,4; 1,4,4; 1,1,1)");
	assert_int_equal(pg->level_count[2], 16);
	assert_int_equal(pg->level_present[2], 15);
	assert_int_equal(pg->missing_nodes, 1);
	for (i = 0; i < pg->level_count[2]; i++)
		holes += pg->node_at[pg->level_off[2] + i] == IBF_NO_ID;
	assert_int_equal(holes, 1);
	check_rule(f, pg, 0);
	assert_int_equal(pg->unreachable_pairs, 0);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	free(l);
	ibf_fabric_destroy(src);
}

/* Leaf s1-0 (subtree 0) and s1-2 (subtree 1) exchange a parent: every
 * degree stays, the level-2 subtrees do not. */
static void test_asymmetric(void **state)
{
	const char *spec = "xgft:3:2,2,2:1,3,2";
	const char *nd[] = { "asymmetric wiring", "\"s2-2\"|\"s2-5\"", NULL };
	ibf_fabric_t *src = tu_gen(spec, 0);
	tlink_t *l, t;
	size_t n, a, b;

	(void)state;
	l = links_of(src, &n);
	a = find_link(src, l, n, "s1-0", "s2-2");
	b = find_link(src, l, n, "s1-2", "s2-5");
	/* the leaf is the lower id (hosts, then leaves, then level 2) */
	t = l[a];
	l[a].b = l[b].b;
	l[a].pb = l[b].pb;
	l[b].b = t.b;
	l[b].pb = t.pb;
	run(spec, l, n, NULL, IBF_ERR_INVALID, nd, NULL);
	free(l);
	ibf_fabric_destroy(src);
}

static void test_host_at_level2(void **state)
{
	const char *nd[] = { "level-1 switches", "\"s2-3\"", NULL };

	(void)state;
	refuse_spare_link("pgft:2:4,4:1,4:1,1", "h0005 HCA-1", "s2-3", nd);
}

static void test_extra_parent(void **state)
{
	const char *nd[] = { "\"s1-1\"", "3 parents at level 2",
			     "other level-1 switches have 2", NULL };

	(void)state;
	refuse_spare_link("xgft:3:2,2,2:1,2,2", "s1-1", "s2-2", nd);
}

/* ---- degraded ----------------------------------------------------------- */

static void degraded(const char *spec, const char *a, const char *b,
		     unsigned expect_p)
{
	const char *nd[] = { NULL };
	ibf_fabric_t *src = tu_gen(spec, 0), *f = NULL;
	ibf_pgft_t *pg;
	tlink_t *l;
	size_t n, k;
	char buf[512];

	l = links_of(src, &n);
	k = find_link(src, l, n, a, b);
	l[k] = l[--n];
	pg = run(spec, l, n, NULL, IBF_OK, nd, &f);
	assert_non_null(pg);
	assert_int_equal(pg->missing_links, 1);
	ibf_pgft_missing_str(pg, 0, buf, sizeof(buf));
	if (!strstr(buf, a) || !strstr(buf, b))
		fail_msg("missing link report \"%s\"", buf);
	assert_int_equal(pg->p[pg->level[pg->missing[0].parent]], expect_p);
	check_rule(f, pg, 1);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(src);
	free(l);
}

static void test_degraded(void **state)
{
	(void)state;
	degraded("pgft:3:6,6,12:1,6,6:1,1,1", "s1-7", "s2-8", 1);
	degraded("pgft:2:3,4:1,3:2,2", "s1-2", "s2-1", 2);
	degraded("pgft:2:4,4:2,2:1,1", "h0003 HCA-1", "s1-1", 1);
}

static void test_down_ok(void **state)
{
	const char *nd[] = { NULL };
	const char *spec = "xgft:3:2,2,2:1,2,2";
	ibf_fabric_t *src = tu_gen(spec, 0), *f = NULL;
	ibf_node_id_t s, leaf;
	ibf_pgft_t *pg;
	tlink_t *l;
	size_t n, k;
	uint32_t e;

	(void)state;
	l = links_of(src, &n);
	k = find_link(src, l, n, "s1-1", "s2-0");
	l[k] = l[--n];
	pg = run(spec, l, n, NULL, IBF_OK, nd, &f);
	assert_non_null(pg);
	s = by_name(f, "s2-0");
	leaf = by_name(f, "s1-1");
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		bool below = ibf_pgft_is_below(pg, s, ibf_pgft_ep_leaf(pg, ep));

		assert_int_equal(ibf_pgft_down_ok(pg, s, ep),
				 below && ibf_pgft_ep_leaf(pg, ep) != leaf);
	}
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(src);
	free(l);
}

/* s1-0 keeps only s2-2, s1-1 loses s2-2: s1-0 cannot reach s1-1 up*-down*
 * (only over a down-up turn).  Still the PGFT it was, with the pairs of
 * the two leaves' hosts counted as unreachable: 2 x 2 hosts, both ways. */
static void test_degraded_unreachable(void **state)
{
	const char *spec = "xgft:3:2,3,2:1,3,2";
	const char *nd[] = { NULL };
	ibf_fabric_t *src = tu_gen(spec, 0), *f = NULL;
	ibf_pgft_t *pg;
	tlink_t *l;
	size_t n, k;

	(void)state;
	l = links_of(src, &n);
	k = find_link(src, l, n, "s1-0", "s2-0");
	l[k] = l[--n];
	k = find_link(src, l, n, "s1-0", "s2-1");
	l[k] = l[--n];
	k = find_link(src, l, n, "s1-1", "s2-2");
	l[k] = l[--n];
	pg = run(spec, l, n, NULL, IBF_OK, nd, &f);
	assert_non_null(pg);
	assert_int_equal(pg->missing_links, 3);
	assert_int_equal(pg->unreachable_pairs, 8);
	check_rule(f, pg, 3);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	free(l);
	ibf_fabric_destroy(src);
}

/* A leaf cut off from every parent (offline file): not connected. */
static void test_disconnected(void **state)
{
	const char *spec = "xgft:2:4,4:1,2";
	const char *nd[] = { "not connected", NULL };
	ibf_fabric_t *src = tu_gen(spec, 0);
	tlink_t *l;
	size_t n, k;

	(void)state;
	l = links_of(src, &n);
	k = find_link(src, l, n, "s1-3", "s2-0");
	l[k] = l[--n];
	k = find_link(src, l, n, "s1-3", "s2-1");
	l[k] = l[--n];
	run(spec, l, n, NULL, IBF_ERR_INVALID, nd, NULL);
	free(l);
	ibf_fabric_destroy(src);
}

/* ---- stability under loss ---------------------------------------------- */

/* Every endpoint of part has the place d (by port GUID) it had in full. */
static void assert_places_kept(const ibf_fabric_t *full, const ibf_pgft_t *pf,
			       const ibf_fabric_t *part, const ibf_pgft_t *pp)
{
	size_t k;

	for (k = 0; k < part->nendpoints; k++) {
		ibf_port_id_t fe = ibf_fabric_port_by_guid(full,
				part->ports[part->endpoints[k]].guid);

		assert_true(fe != IBF_NO_ID);
		assert_int_equal(pp->ep_d[k],
				 pf->ep_d[full->endpoint_index[fe]]);
	}
}

/*
 * The complete fabric and a copy without the nodes in drop[] and the links
 * in cut[] (indices into the link list), both with the generator's port
 * numbers (a port convention) but random node order and GUIDs: every node
 * of the copy must keep its level, label and rank, every endpoint its
 * place d, and the copy must be recognized as the complete PGFT.
 */
static unsigned check_stable(const char *spec, const bool *drop,
			     const bool *cut, uint64_t seed)
{
	ibf_fabric_t *src = tu_gen(spec, 0), *full, *part;
	ibf_node_id_t *mf = malloc(src->nnodes * sizeof(*mf));
	ibf_node_id_t *mp = malloc(src->nnodes * sizeof(*mp)), u;
	ibf_pgft_t *pf, *pp;
	ibf_err_t err;
	tlink_t *l, *lk;
	size_t n, k, nk = 0;
	unsigned i, l0;
	char a[128], b[128];

	l = links_of(src, &n);
	lk = malloc((n + 1) * sizeof(*lk));
	for (k = 0; k < n; k++)
		if (!cut || !cut[k])
			lk[nk++] = l[k];
	full = permuted_ex(src, l, n, seed, NULL, true, mf);
	part = permuted_ex(src, lk, nk, seed, drop, true, mp);
	if (ibf_pgft_recognize(full, &pf, &err) != IBF_OK)
		fail_msg("%s: %s", spec, err.msg);
	if (ibf_pgft_recognize(part, &pp, &err) != IBF_OK)
		fail_msg("%s degraded: %s", spec, err.msg);
	if (strcmp(ibf_pgft_format(pf, a, sizeof(a)),
		   ibf_pgft_format(pp, b, sizeof(b))))
		fail_msg("%s degraded recognized as %s, complete %s", spec, b,
			 a);
	for (l0 = 1; l0 <= pp->h; l0++)
		assert_int_equal(pp->port_digits[l0], 3);
	for (u = 0; u < src->nnodes; u++) {
		ibf_node_id_t x = mf[u], y = mp[u];

		if (y == IBF_NO_ID || pp->level[y] == IBF_PGFT_NO_LEVEL)
			continue;
		assert_int_equal(pp->level[y], pf->level[x]);
		assert_int_equal(pp->rank[y], pf->rank[x]);
		for (i = 1; i <= pp->h; i++)
			if (ibf_pgft_digit(pp, y, i) !=
			    ibf_pgft_digit(pf, x, i))
				fail_msg("%s: %s digit %u moved", spec,
					 ibf_node_desc(src, u), i);
	}
	assert_places_kept(full, pf, part, pp);
	ibf_pgft_destroy(pf);
	ibf_pgft_destroy(pp);
	ibf_fabric_destroy(full);
	ibf_fabric_destroy(part);
	ibf_fabric_destroy(src);
	free(mf);
	free(mp);
	free(l);
	free(lk);
	return 0;
}

/* Node u of src in fabric f (ids through map): its label as a number. */
static uint64_t label_of(const ibf_pgft_t *pg, ibf_node_id_t n)
{
	uint64_t x = 0;
	unsigned i;

	for (i = pg->h; i >= 1; i--)
		x = x * 256 + ibf_pgft_digit(pg, n, i);
	return x;
}

/*
 * Ports permuted per node (no port convention): recognized without
 * memory, a copy without drop[] moves labels; with the memory of the
 * complete fabric - through a labels file and back - every node keeps
 * its label and every endpoint its place d.  Returns the nodes whose
 * label moved without the memory.
 */
static unsigned check_memory(const char *spec, const bool *drop,
			     uint64_t seed)
{
	ibf_fabric_t *src = tu_gen(spec, 0), *full, *part;
	ibf_node_id_t *mf = malloc(src->nnodes * sizeof(*mf));
	ibf_node_id_t *mp = malloc(src->nnodes * sizeof(*mp)), u;
	ibf_pgft_t *pf, *pp, *pm;
	ibf_pgft_memory_t *m, *back;
	ibf_pgft_opts_t o = { NULL, NULL };
	char path[] = "/tmp/test_pgft_labels.XXXXXX";
	unsigned moved = 0;
	ibf_err_t err;
	tlink_t *l;
	size_t n;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	l = links_of(src, &n);
	full = permuted_ex(src, l, n, seed, NULL, false, mf);
	part = permuted_ex(src, l, n, seed, drop, false, mp);
	assert_int_equal(ibf_pgft_recognize(full, &pf, &err), IBF_OK);
	assert_int_equal(ibf_pgft_recognize(part, &pp, &err), IBF_OK);
	m = ibf_pgft_memory_from(pf, NULL);
	assert_non_null(m);
	assert_int_equal(ibf_labels_write_file(path, m, &err), IBF_OK);
	if (ibf_labels_read(path, &back, &err) != IBF_OK)
		fail_msg("%s: labels read back: %s", spec, err.msg);
	assert_int_equal(back->nnodes, m->nnodes);
	assert_int_equal(back->nlinks, m->nlinks);
	assert_memory_equal(back->nodes, m->nodes,
			    m->nnodes * sizeof(*m->nodes));
	o.memory = back;
	assert_int_equal(ibf_pgft_recognize_opts(part, &o, &pm, &err),
			 IBF_OK);
	if (!pm->memory_used)
		fail_msg("%s: memory not used: %s", spec, pm->memory_why);
	for (u = 0; u < src->nnodes; u++) {
		ibf_node_id_t x = mf[u], y = mp[u];

		if (y == IBF_NO_ID || pm->level[y] == IBF_PGFT_NO_LEVEL)
			continue;
		if (label_of(pm, y) != label_of(pf, x))
			fail_msg("%s: %s moved with the memory", spec,
				 ibf_node_desc(src, u));
		moved += label_of(pp, y) != label_of(pf, x);
	}
	assert_places_kept(full, pf, part, pm);
	unlink(path);
	ibf_pgft_memory_destroy(m);
	ibf_pgft_memory_destroy(back);
	ibf_pgft_destroy(pf);
	ibf_pgft_destroy(pp);
	ibf_pgft_destroy(pm);
	ibf_fabric_destroy(full);
	ibf_fabric_destroy(part);
	ibf_fabric_destroy(src);
	free(mf);
	free(mp);
	free(l);
	return moved;
}

static void drop_names(const ibf_fabric_t *src, bool *drop,
		       const char *const *names)
{
	for (; *names; names++)
		drop[by_name(src, *names)] = true;
}

/* A fabric and the nodes it loses. */
typedef struct drop_case {
	const char *spec;
	const char *names[6];
} drop_case_t;

/* check(spec, drop, seed0 + i) for each case; the sum of its results. */
static unsigned for_each_drop(const drop_case_t *cases, size_t n,
			      unsigned (*check)(const char *, const bool *,
						uint64_t), uint64_t seed0)
{
	unsigned sum = 0;
	size_t c;

	for (c = 0; c < n; c++) {
		ibf_fabric_t *src = tu_gen(cases[c].spec, 0);
		bool *drop = calloc(src->nnodes, sizeof(*drop));

		drop_names(src, drop, cases[c].names);
		sum += check(cases[c].spec, drop, seed0 + c);
		free(drop);
		ibf_fabric_destroy(src);
	}
	return sum;
}

static unsigned stable_case(const char *spec, const bool *drop,
			    uint64_t seed)
{
	return check_stable(spec, drop, NULL, seed);
}

static void test_stable_missing_nodes(void **state)
{
	static const drop_case_t cases[] = {
		/* the brief's case: one host of 64 down */
		{ "xgft:2:8,8:1,8", { "h0013 HCA-1", NULL } },
		{ "kary:4,3", { "h0000 HCA-1", "h0037 HCA-1", "h0063 HCA-1",
				NULL } },
		/* a leaf with all its hosts */
		{ "kary:4,3", { "s1-5", "h0020 HCA-1", "h0021 HCA-1",
				"h0022 HCA-1", "h0023 HCA-1", NULL } },
		/* all hosts of a leaf, the leaf stays (hangs below) */
		{ "kary:4,3", { "h0020 HCA-1", "h0021 HCA-1", "h0022 HCA-1",
				"h0023 HCA-1", NULL } },
		{ "xgft:2:4,4:1,4", { "h0000 HCA-1", "h0001 HCA-1",
				      "h0002 HCA-1", "h0003 HCA-1", NULL } },
		/* middle and top switches */
		{ "kary:4,3", { "s2-6", NULL } },
		{ "kary:4,3", { "s3-0", "s3-9", NULL } },
		{ "pgft:3:2,3,2:2,1,2:2,2,1", { "s2-1", "h0004 HCA-1", NULL } },
		{ "pgft:2:3,4:1,3:2,2", { "h0006 HCA-1", "h0007 HCA-1",
					  NULL } },
	};

	(void)state;
	for_each_drop(cases, sizeof(cases) / sizeof(cases[0]), stable_case,
		      11);
}

/* No port convention: the remembered labels keep every node in place
 * where the labels from NodeGUIDs move some (a host, a leaf, a middle
 * switch, two top switches down; parallel links). */
static void test_memory_keeps_labels(void **state)
{
	static const drop_case_t cases[] = {
		{ "kary:4,3", { "h0005 HCA-1", NULL } },
		{ "kary:4,3", { "s1-2", NULL } },
		{ "kary:4,3", { "s2-6", NULL } },
		{ "kary:4,3", { "s3-0", "s3-9", NULL } },
		{ "pgft:2:3,4:1,3:2,2", { "h0006 HCA-1", NULL } },
	};
	unsigned moved;

	(void)state;
	moved = for_each_drop(cases, sizeof(cases) / sizeof(cases[0]),
			      check_memory, 31);
	/* the cases are worth testing: without memory labels moved */
	assert_true(moved > 0);
}

/* Random link and host loss, 1% to 10%, as the fault campaign draws it:
 * recognized as the complete PGFT, every label where it was. */
static void test_stable_random_loss(void **state)
{
	static const char *const specs[] = {
		"kary:4,3", "xgft:2:8,8:1,8", "pgft:3:4,4,4:1,4,2:1,1,2",
	};
	static const unsigned pct[] = { 1, 5, 10 };
	uint64_t s = 99;
	size_t i, k, n;
	unsigned j, rep;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *src = tu_gen(specs[i], 0);
		tlink_t *l = links_of(src, &n);
		bool *cut = calloc(n, sizeof(*cut));
		bool *drop = calloc(src->nnodes, sizeof(*drop));

		for (j = 0; j < 3; j++)
			for (rep = 0; rep < 4; rep++) {
				memset(cut, 0, n * sizeof(*cut));
				memset(drop, 0, src->nnodes * sizeof(*drop));
				/* switch links only: cutting a host's only
				 * link is losing the host (below) */
				for (k = 0; k < n; k++)
					cut[k] = src->nodes[l[k].a].type ==
						 IBF_NODE_SWITCH &&
						 src->nodes[l[k].b].type ==
						 IBF_NODE_SWITCH &&
						 tu_rand(&s) % 100 < pct[j];
				for (k = 0; k < src->nnodes; k++)
					drop[k] = src->nodes[k].type ==
						  IBF_NODE_CA &&
						  tu_rand(&s) % 100 < pct[j];
				check_stable(specs[i], drop, cut,
					     tu_rand(&s) % 1000);
			}
		free(cut);
		free(drop);
		free(l);
		ibf_fabric_destroy(src);
	}
}

/* A 2-level tree without one spine is also a complete tree with one spine
 * less: alone it is recognized so, with the complete tree's shape as the
 * hint it keeps that tree's labels. */
static void test_hint(void **state)
{
	const char *spec = "xgft:2:4,4:1,4";
	ibf_fabric_t *src = tu_gen(spec, 0), *full, *part;
	ibf_node_id_t *mf = malloc(src->nnodes * sizeof(*mf));
	ibf_node_id_t *mp = malloc(src->nnodes * sizeof(*mp)), u;
	bool *drop = calloc(src->nnodes, sizeof(*drop));
	ibf_pgft_t *pf, *pp;
	ibf_pgft_opts_t o = { 0 };
	ibf_err_t err;
	tlink_t *l;
	size_t n;
	char buf[128];

	(void)state;
	l = links_of(src, &n);
	drop[by_name(src, "s2-1")] = true;
	full = permuted_ex(src, l, n, 5, NULL, true, mf);
	part = permuted_ex(src, l, n, 5, drop, true, mp);
	assert_int_equal(ibf_pgft_recognize(full, &pf, &err), IBF_OK);
	assert_int_equal(ibf_pgft_recognize(part, &pp, &err), IBF_OK);
	assert_string_equal(ibf_pgft_format(pp, buf, sizeof(buf)),
			    "PGFT(2; 4,4; 1,3; 1,1)");
	assert_false(pp->hint_used);
	ibf_pgft_destroy(pp);
	o.hint = &pf->shape;
	assert_int_equal(ibf_pgft_recognize_opts(part, &o, &pp, &err), IBF_OK);
	assert_string_equal(ibf_pgft_format(pp, buf, sizeof(buf)),
			    "PGFT(2; 4,4; 1,4; 1,1)");
	assert_true(pp->hint_used);
	assert_int_equal(pp->missing_nodes, 1);
	for (u = 0; u < src->nnodes; u++)
		if (mp[u] != IBF_NO_ID) {
			assert_int_equal(pp->rank[mp[u]], pf->rank[mf[u]]);
			assert_int_equal(pp->level[mp[u]], pf->level[mf[u]]);
		}
	ibf_pgft_destroy(pp);
	/* a hint that does not fit (another fabric) is ignored */
	ibf_fabric_t *other = tu_gen("kary:4,3", 0);
	assert_int_equal(ibf_pgft_recognize_opts(other, &o, &pp, &err),
			 IBF_OK);
	assert_false(pp->hint_used);
	assert_string_equal(ibf_pgft_format(pp, buf, sizeof(buf)),
			    "PGFT(3; 4,4,4; 1,4,4; 1,1,1)");
	ibf_pgft_destroy(pp);
	ibf_fabric_destroy(other);
	ibf_pgft_destroy(pf);
	ibf_fabric_destroy(full);
	ibf_fabric_destroy(part);
	ibf_fabric_destroy(src);
	free(mf);
	free(mp);
	free(drop);
	free(l);
}

/* Spread link loss (8 of 64 spine links) no longer looks like extra
 * children on the intact switches. */
static void test_spread_loss(void **state)
{
	const char *spec = "xgft:2:8,8:1,8";
	const char *nd[] = { NULL };
	ibf_fabric_t *src = tu_gen(spec, 0), *f = NULL;
	ibf_pgft_t *pg;
	tlink_t *l;
	size_t n, k;
	unsigned i;
	char a[16], b[16], buf[128];

	(void)state;
	l = links_of(src, &n);
	for (i = 0; i < 8; i++) {
		snprintf(a, sizeof(a), "s1-%u", i);
		snprintf(b, sizeof(b), "s2-%u", (i * 3 + 1) % 8);
		k = find_link(src, l, n, a, b);
		l[k] = l[--n];
	}
	pg = run(spec, l, n, NULL, IBF_OK, nd, &f);
	assert_string_equal(ibf_pgft_format(pg, buf, sizeof(buf)),
			    "PGFT(2; 8,8; 1,8; 1,1)");
	assert_int_equal(pg->missing_links, 8);
	check_rule(f, pg, 8);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	free(l);
	ibf_fabric_destroy(src);
}

/* ---- speed -------------------------------------------------------------- */

static void test_big(void **state)
{
	ibf_fabric_t *src = tu_gen("xgft:3:18,18,36:1,18,18", 0), *f;
	ibf_node_id_t *map = malloc(src->nnodes * sizeof(*map));
	struct timespec t0, t1;
	ibf_pgft_t *pg;
	ibf_err_t err;
	tlink_t *l;
	size_t n;
	double ms;

	(void)state;
	l = links_of(src, &n);
	f = permuted(src, l, n, 7, IBF_NO_ID, map);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("# recognize XGFT(3;18,18,36;1,18,18), %u nodes: %.1f ms\n",
	       f->nnodes, ms);
	assert_int_equal(pg->nhosts, 11664);
	assert_int_equal(pg->level_count[3], 324);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	ibf_fabric_destroy(src);
	free(map);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_nca_level),
		cmocka_unit_test(test_unshuffled),
		cmocka_unit_test(test_extra_cross_link),
		cmocka_unit_test(test_missing_switch),
		cmocka_unit_test(test_asymmetric),
		cmocka_unit_test(test_host_at_level2),
		cmocka_unit_test(test_extra_parent),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_down_ok),
		cmocka_unit_test(test_degraded_unreachable),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_stable_missing_nodes),
		cmocka_unit_test(test_stable_random_loss),
		cmocka_unit_test(test_memory_keeps_labels),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_spread_loss),
		cmocka_unit_test(test_big),
	};
	return cmocka_run_group_tests_name("pgft", tests, NULL, NULL);
}
