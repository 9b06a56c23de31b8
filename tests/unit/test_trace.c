/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Route tracing and the all-pairs check.
 *
 * Expected values come from hand counts on a tiny tree (2 leaves, 1 spine,
 * 4 hosts) and, on random fabrics, from agreement of the two independent
 * algorithms (per-pair walk vs per-DLID memoized trees) plus a path replay.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/check.h>
#include <ibflow/trace.h>

/* ---- the hand-built tree ------------------------------------------------
 *
 *            S (lid 3)
 *          p1/     \p2
 *         p3/       \p3
 *   L1 (lid 1)       L2 (lid 2)        leaves have 4 ports, port 4 free
 *   p1/   \p2        p1/   \p2
 *   h0     h1        h2     h3          hosts: lid 4 + i * 2^lmc
 */
struct tree {
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_node_id_t L1, L2, S, h[4];
	unsigned lmc;
};

enum { SW_L1 = 0, SW_L2 = 1, SW_S = 2 }; /* switch indices (node order) */

static unsigned host_lid(const struct tree *t, unsigned i)
{
	return 4 + i * (1u << t->lmc);
}

static void tree_build(struct tree *t, unsigned lmc)
{
	ibf_err_t err;
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->lmc = lmc;
	assert_int_equal(ibf_fabric_create(&t->f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_SWITCH, 0, "leaf1",
					     4, &t->L1, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_SWITCH, 0, "leaf2",
					     4, &t->L2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_SWITCH, 0, "spine",
					     4, &t->S, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(t->f, t->L1, 0, 0, 1, 0, &err), 0);
	assert_int_equal(ibf_fabric_set_port(t->f, t->L2, 0, 0, 2, 0, &err), 0);
	assert_int_equal(ibf_fabric_set_port(t->f, t->S, 0, 0, 3, 0, &err), 0);
	for (i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "h%u HCA-1", i);
		assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_CA, 0, name,
						     1, &t->h[i], &err), IBF_OK);
		assert_int_equal(ibf_fabric_set_port(t->f, t->h[i], 1, 0,
						     host_lid(t, i), lmc, &err),
				 IBF_OK);
		assert_int_equal(ibf_fabric_link(t->f, t->h[i], 1,
						 i < 2 ? t->L1 : t->L2,
						 i % 2 + 1, 4, IBF_SPEED_EDR,
						 &err), IBF_OK);
	}
	assert_int_equal(ibf_fabric_link(t->f, t->L1, 3, t->S, 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(t->f, t->L2, 3, t->S, 2, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(t->f, NULL, &err), IBF_OK);
	assert_int_equal(t->f->nswitches, 3);
	assert_int_equal(t->f->switches[SW_L1], t->L1);
	assert_int_equal(t->f->switches[SW_S], t->S);
	assert_int_equal(t->f->nendpoints, 4);
	assert_int_equal(ibf_lfts_create(t->f, &t->l), IBF_OK);
}

/* Correct tables, written out by hand; skip_sw leaves one switch without a
 * table. */
static void tree_route(struct tree *t, int skip_sw)
{
	unsigned i, k;

	/* switch LIDs */
	if (skip_sw != SW_L1) {
		ibf_lfts_set(t->l, SW_L1, 1, 0);
		ibf_lfts_set(t->l, SW_L1, 2, 3);
		ibf_lfts_set(t->l, SW_L1, 3, 3);
	}
	if (skip_sw != SW_L2) {
		ibf_lfts_set(t->l, SW_L2, 1, 3);
		ibf_lfts_set(t->l, SW_L2, 2, 0);
		ibf_lfts_set(t->l, SW_L2, 3, 3);
	}
	if (skip_sw != SW_S) {
		ibf_lfts_set(t->l, SW_S, 1, 1);
		ibf_lfts_set(t->l, SW_S, 2, 2);
		ibf_lfts_set(t->l, SW_S, 3, 0);
	}
	for (i = 0; i < 4; i++)
		for (k = 0; k < (1u << t->lmc); k++) {
			unsigned lid = host_lid(t, i) + k;

			if (skip_sw != SW_L1)
				ibf_lfts_set(t->l, SW_L1, lid, i < 2 ? i + 1 : 3);
			if (skip_sw != SW_L2)
				ibf_lfts_set(t->l, SW_L2, lid,
					     i >= 2 ? i - 1 : 3);
			if (skip_sw != SW_S)
				ibf_lfts_set(t->l, SW_S, lid, i < 2 ? 1 : 2);
		}
}

static void tree_free(struct tree *t)
{
	ibf_lfts_destroy(t->l);
	ibf_fabric_destroy(t->f);
}

static ibf_port_id_t hport(const struct tree *t, unsigned i)
{
	return ibf_node_port_id(t->f, t->h[i], 1);
}

/* Run the check both ways (and on 2 threads) and require equal reports. */
static void check_both(const ibf_lfts_t *l, bool switches,
		       ibf_check_report_t *out);

static void assert_counts(const ibf_check_stats_t *s, uint64_t pairs,
			  uint64_t ok, uint64_t no_route, uint64_t dead,
			  uint64_t loop, uint64_t mis, uint64_t notab)
{
	assert_int_equal(s->pairs, pairs);
	assert_int_equal(s->count[IBF_TRACE_OK], ok);
	assert_int_equal(s->count[IBF_TRACE_NO_ROUTE], no_route);
	assert_int_equal(s->count[IBF_TRACE_DEAD_END], dead);
	assert_int_equal(s->count[IBF_TRACE_LOOP], loop);
	assert_int_equal(s->count[IBF_TRACE_MISDELIVERED], mis);
	assert_int_equal(s->count[IBF_TRACE_NO_SWITCH_TABLE], notab);
}

static void test_tree_ok(void **state)
{
	ibf_port_id_t hops[8];
	ibf_check_report_t r;
	struct tree t;
	unsigned n;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, -1);

	/* h0 -> h2: h0 port, L1 port 3, S port 2, L2 port 1 */
	assert_int_equal(ibf_trace(t.l, hport(&t, 0), host_lid(&t, 2), hops, 8,
				   &n), IBF_TRACE_OK);
	assert_int_equal(n, 4);
	assert_int_equal(hops[0], hport(&t, 0));
	assert_int_equal(hops[1], ibf_node_port_id(t.f, t.L1, 3));
	assert_int_equal(hops[2], ibf_node_port_id(t.f, t.S, 2));
	assert_int_equal(hops[3], ibf_node_port_id(t.f, t.L2, 1));
	/* h1 -> h0 stays on the leaf; a short buffer keeps the first hop */
	assert_int_equal(ibf_trace(t.l, hport(&t, 1), host_lid(&t, 0), hops, 1,
				   &n), IBF_TRACE_OK);
	assert_int_equal(n, 2);
	assert_int_equal(hops[0], hport(&t, 1));
	/* to the spine's own LID: 2 links */
	assert_int_equal(ibf_trace(t.l, hport(&t, 3), 3, NULL, 0, &n),
			 IBF_TRACE_OK);
	assert_int_equal(n, 2);

	/* 4 sources x 3 other hosts: 4 same-leaf pairs of 2 links, 8 of 4 */
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 12, 0, 0, 0, 0, 0);
	assert_int_equal(r.hop_hist_len, 5);
	assert_int_equal(r.hop_hist[2], 4);
	assert_int_equal(r.hop_hist[4], 8);
	assert_int_equal(r.hop_hist[0] + r.hop_hist[1] + r.hop_hist[3], 0);
	assert_int_equal(r.all.hop_min, 2);
	assert_int_equal(r.all.hop_max, 4);
	assert_int_equal(r.all.hop_sum, 40);
	assert_int_equal(r.nsources, 4);
	assert_int_equal(r.ndlids, 4);
	assert_int_equal(ibf_check_defects(&r), 0);
	ibf_check_report_free(&r);

	/* + 4 x 3 switch LIDs: own leaf 1 link, spine 2, other leaf 3 */
	check_both(t.l, true, &r);
	assert_counts(&r.all, 24, 24, 0, 0, 0, 0, 0);
	assert_counts(&r.to_switches, 12, 12, 0, 0, 0, 0, 0);
	assert_int_equal(r.hop_hist[1], 4);
	assert_int_equal(r.hop_hist[2], 8);
	assert_int_equal(r.hop_hist[3], 4);
	assert_int_equal(r.hop_hist[4], 8);
	assert_int_equal(r.all.hop_min, 1);
	assert_int_equal(r.to_switches.hop_sum, 4 * 1 + 4 * 2 + 4 * 3);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_lmc_offsets(void **state)
{
	ibf_check_report_t r;
	struct tree t;
	unsigned i;

	(void)state;
	tree_build(&t, 1);
	tree_route(&t, -1);
	/* black-hole every offset-1 LID at the spine */
	for (i = 0; i < 4; i++)
		ibf_lfts_set(t.l, SW_S, host_lid(&t, i) + 1, IBF_LFT_NO_PORT);
	check_both(t.l, false, &r);
	assert_int_equal(r.noffsets, 2);
	assert_int_equal(r.ndlids, 8);
	assert_counts(&r.all, 24, 16, 8, 0, 0, 0, 0);
	assert_counts(&r.by_offset[0], 12, 12, 0, 0, 0, 0, 0);
	assert_counts(&r.by_offset[1], 12, 4, 8, 0, 0, 0, 0);
	assert_int_equal(r.by_offset[1].hop_max, 2);
	assert_int_equal(r.by_offset[0].hop_max, 4);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_loop(void **state)
{
	ibf_trace_info_t info;
	ibf_port_id_t hops[16];
	ibf_check_report_t r;
	struct tree t;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, -1);
	/* L2 sends h2's LID back up: S <-> L2 ping-pong */
	ibf_lfts_set(t.l, SW_L2, host_lid(&t, 2), 3);
	/* h0: L1, S, L2, S: S is the first revisit, after 4 links */
	assert_int_equal(ibf_trace_info(t.l, hport(&t, 0), host_lid(&t, 2),
					hops, 16, &info), IBF_TRACE_LOOP);
	assert_int_equal(info.nhops, 4);
	assert_int_equal(info.node, t.S);
	assert_int_equal(info.port, 2);
	assert_int_equal(hops[3], ibf_node_port_id(t.f, t.L2, 3));
	/* h3: L2, S, L2: 3 links */
	assert_int_equal(ibf_trace_info(t.l, hport(&t, 3), host_lid(&t, 2),
					NULL, 0, &info), IBF_TRACE_LOOP);
	assert_int_equal(info.nhops, 3);
	assert_int_equal(info.node, t.L2);
	assert_int_equal(info.port, 3);
	/* h0, h1, h3 -> h2 loop; the other 9 pairs are fine */
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 9, 0, 0, 3, 0, 0);
	assert_int_equal(r.nexamples[IBF_TRACE_LOOP], 3);
	assert_int_equal(r.examples[IBF_TRACE_LOOP][0].src, hport(&t, 0));
	assert_int_equal(r.examples[IBF_TRACE_LOOP][0].dst, hport(&t, 2));
	assert_int_equal(r.examples[IBF_TRACE_LOOP][2].info.node, t.L2);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_black_hole(void **state)
{
	ibf_trace_info_t info;
	ibf_check_report_t r;
	struct tree t;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, -1);
	ibf_lfts_set(t.l, SW_S, host_lid(&t, 3), IBF_LFT_NO_PORT);
	assert_int_equal(ibf_trace_info(t.l, hport(&t, 1), host_lid(&t, 3),
					NULL, 0, &info), IBF_TRACE_NO_ROUTE);
	assert_int_equal(info.node, t.S);
	assert_int_equal(info.port, 255);
	assert_int_equal(info.nhops, 2);
	/* h0, h1 -> h3 cross the spine; h2 -> h3 does not */
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 10, 2, 0, 0, 0, 0);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_dead_end(void **state)
{
	ibf_trace_info_t info;
	ibf_check_report_t r;
	struct tree t;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, -1);
	/* L2 sends h0's LID to its free port 4: h2, h3 -> h0 */
	ibf_lfts_set(t.l, SW_L2, host_lid(&t, 0), 4);
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 10, 0, 2, 0, 0, 0);
	assert_int_equal(r.examples[IBF_TRACE_DEAD_END][0].info.node, t.L2);
	assert_int_equal(r.examples[IBF_TRACE_DEAD_END][0].info.port, 4);
	ibf_check_report_free(&r);

	/* L1 sends h1's LID to port 9 of 4: h0 at once, h2 and h3 via S */
	ibf_lfts_set(t.l, SW_L2, host_lid(&t, 0), 3);
	ibf_lfts_set(t.l, SW_L1, host_lid(&t, 1), 9);
	assert_int_equal(ibf_trace_info(t.l, hport(&t, 2), host_lid(&t, 1),
					NULL, 0, &info), IBF_TRACE_DEAD_END);
	assert_int_equal(info.nhops, 3);
	assert_int_equal(info.node, t.L1);
	assert_int_equal(info.port, 9);
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 9, 0, 3, 0, 0, 0);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_misdelivered(void **state)
{
	ibf_trace_info_t info;
	ibf_check_report_t r;
	struct tree t;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, -1);
	/* L2 delivers h2's LID to h3: h0, h1 (4 links) and h3 itself (2) */
	ibf_lfts_set(t.l, SW_L2, host_lid(&t, 2), 2);
	assert_int_equal(ibf_trace_info(t.l, hport(&t, 0), host_lid(&t, 2),
					NULL, 0, &info), IBF_TRACE_MISDELIVERED);
	assert_int_equal(info.nhops, 4);
	assert_int_equal(info.node, t.h[3]);
	assert_int_equal(info.port, 1);
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 9, 0, 0, 0, 3, 0);
	ibf_check_report_free(&r);

	/* the spine keeps h0's LID for itself (port 0): h2, h3 -> h0 */
	ibf_lfts_set(t.l, SW_L2, host_lid(&t, 2), 1);
	ibf_lfts_set(t.l, SW_S, host_lid(&t, 0), 0);
	check_both(t.l, false, &r);
	assert_counts(&r.all, 12, 10, 0, 0, 0, 2, 0);
	assert_int_equal(r.examples[IBF_TRACE_MISDELIVERED][0].info.node, t.S);
	assert_int_equal(r.examples[IBF_TRACE_MISDELIVERED][0].info.port, 0);
	assert_int_equal(r.examples[IBF_TRACE_MISDELIVERED][0].info.nhops, 2);
	ibf_check_report_free(&r);
	tree_free(&t);
}

static void test_no_table(void **state)
{
	ibf_check_report_t r;
	struct tree t;

	(void)state;
	tree_build(&t, 0);
	tree_route(&t, SW_S);
	/* the 8 cross-leaf pairs meet the spine */
	check_both(t.l, false, &r);
	assert_int_equal(r.switches_without_table, 1);
	assert_counts(&r.all, 12, 4, 0, 0, 0, 0, 8);
	ibf_check_report_free(&r);
	/* to switches: own leaf ok (4), spine and other leaf not (8) */
	check_both(t.l, true, &r);
	assert_counts(&r.to_switches, 12, 4, 0, 0, 0, 0, 8);
	ibf_check_report_free(&r);
	tree_free(&t);
}

/* ---- reports of the two algorithms ------------------------------------- */

static void assert_stats_equal(const ibf_check_stats_t *a,
			       const ibf_check_stats_t *b)
{
	unsigned i;

	assert_int_equal(a->pairs, b->pairs);
	for (i = 0; i < IBF_TRACE_NRESULTS; i++)
		assert_int_equal(a->count[i], b->count[i]);
	assert_int_equal(a->hop_sum, b->hop_sum);
	assert_int_equal(a->hop_min, b->hop_min);
	assert_int_equal(a->hop_max, b->hop_max);
}

static void assert_reports_equal(const ibf_check_report_t *a,
				 const ibf_check_report_t *b)
{
	unsigned i, k;

	assert_stats_equal(&a->all, &b->all);
	assert_stats_equal(&a->to_switches, &b->to_switches);
	for (i = 0; i < IBF_CHECK_MAX_OFFSETS; i++)
		assert_stats_equal(&a->by_offset[i], &b->by_offset[i]);
	assert_int_equal(a->hop_hist_len, b->hop_hist_len);
	for (i = 0; i < a->hop_hist_len; i++)
		assert_int_equal(a->hop_hist[i], b->hop_hist[i]);
	for (i = 1; i < IBF_TRACE_NRESULTS; i++) {
		assert_int_equal(a->nexamples[i], b->nexamples[i]);
		for (k = 0; k < a->nexamples[i]; k++) {
			const ibf_check_example_t *x = &a->examples[i][k];
			const ibf_check_example_t *y = &b->examples[i][k];

			assert_int_equal(x->src, y->src);
			assert_int_equal(x->dlid, y->dlid);
			assert_int_equal(x->info.node, y->info.node);
			assert_int_equal(x->info.port, y->info.port);
			assert_int_equal(x->info.nhops, y->info.nhops);
		}
	}
}

static void check_both(const ibf_lfts_t *l, bool switches,
		       ibf_check_report_t *out)
{
	ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t naive, two;
	ibf_err_t err;

	o.switches = switches;
	o.max_examples = 5;
	assert_int_equal(ibf_check_run(l, &o, out, &err), IBF_OK);
	o.naive = true;
	assert_int_equal(ibf_check_run(l, &o, &naive, &err), IBF_OK);
	o.naive = false;
	o.nthreads = 2;
	assert_int_equal(ibf_check_run(l, &o, &two, &err), IBF_OK);
	assert_reports_equal(out, &naive);
	assert_reports_equal(out, &two);
	ibf_check_report_free(&naive);
	ibf_check_report_free(&two);
}

/* ---- random fabrics ------------------------------------------------------ */

static unsigned rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8) % n;
}

/* Switches in a random connected-ish graph with parallel links, hosts on
 * free ports, a few dual-port CAs and one CA-to-CA link. */
static ibf_fabric_t *random_fabric(unsigned *seed)
{
	unsigned nsw = 2 + rnd(seed, 7), i, k, lmc = rnd(seed, 3);
	ibf_finalize_opts_t fo = { .lmc = lmc };
	ibf_node_id_t sw[8], a, b;
	unsigned used[8] = { 0 }, np[8], pa, pb;
	ibf_fabric_t *f;
	ibf_err_t err;
	char name[32];

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < nsw; i++) {
		np[i] = 3 + rnd(seed, 6);
		snprintf(name, sizeof(name), "sw%u", i);
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, name,
						     np[i], &sw[i], &err), 0);
	}
	/* a chain so most of it is connected, then random extra links */
	for (i = 0; i + 1 < nsw; i++)
		assert_int_equal(ibf_fabric_link(f, sw[i], ++used[i], sw[i + 1],
						 ++used[i + 1], 0, 0, &err), 0);
	for (k = 0; k < nsw; k++) {
		i = rnd(seed, nsw);
		a = rnd(seed, nsw);
		if (used[i] >= np[i] - 1 || used[a] >= np[a] - 1)
			continue;
		/* i == a: a switch cabled to itself (port to port) */
		if (i == a && used[i] + 2 > np[i] - 1)
			continue;
		pa = ++used[i];
		pb = ++used[a];
		assert_int_equal(ibf_fabric_link(f, sw[i], pa, sw[a], pb, 0, 0,
						 &err), 0);
	}
	/* hosts on most free ports; keep some ports free (dead ends) */
	for (i = 0; i < nsw; i++)
		while (used[i] < np[i] - 1) {
			unsigned dual = rnd(seed, 5) == 0;

			snprintf(name, sizeof(name), "h%u", f->nnodes);
			assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0,
							     name, 2, &b, &err),
					 0);
			assert_int_equal(ibf_fabric_link(f, b, 1, sw[i],
							 ++used[i], 0, 0, &err),
					 0);
			if (dual && used[i] < np[i] - 1)
				assert_int_equal(ibf_fabric_link(f, b, 2, sw[i],
							++used[i], 0, 0, &err),
						 0);
		}
	/* two hosts cabled to each other, no switch */
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, "d0", 1, &a,
					     &err), 0);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, "d1", 1, &b,
					     &err), 0);
	assert_int_equal(ibf_fabric_link(f, a, 1, b, 1, 0, 0, &err), 0);
	assert_int_equal(ibf_fabric_finalize(f, &fo, &err), IBF_OK);
	return f;
}

/* Shortest-path entries towards each LID owner, then noise: wrong ports,
 * ports beyond range, free ports, port 0, holes, a table-less switch. */
static ibf_lfts_t *random_lfts(const ibf_fabric_t *f, unsigned *seed,
			       unsigned noise_pct)
{
	uint32_t *dist = malloc(f->nswitches * sizeof(*dist));
	uint32_t s, x, changed;
	ibf_lfts_t *l;
	unsigned lid;

	assert_int_equal(ibf_lfts_create(f, &l), IBF_OK);
	for (lid = 1; lid <= f->lid_top; lid++) {
		ibf_port_id_t o = f->lid_port[lid];

		if (o == IBF_NO_ID)
			continue;
		/* Bellman-Ford on switch hops to the owner (tiny graphs) */
		for (s = 0; s < f->nswitches; s++) {
			const ibf_node_t *n = &f->nodes[f->switches[s]];
			unsigned p;

			dist[s] = UINT32_MAX;
			if (f->switches[s] == f->ports[o].node) {
				dist[s] = 0;
				ibf_lfts_set(l, s, lid, 0);
			}
			for (p = 1; p <= n->nports; p++)
				if (f->ports[n->first_port + p].peer == o) {
					dist[s] = 1;
					ibf_lfts_set(l, s, lid, (uint8_t)p);
				}
		}
		do {
			changed = 0;
			for (s = 0; s < f->nswitches; s++) {
				const ibf_node_t *n = &f->nodes[f->switches[s]];
				unsigned p;

				for (p = 1; p <= n->nports; p++) {
					ibf_port_id_t q =
						f->ports[n->first_port + p].peer;

					if (q == IBF_NO_ID ||
					    !ibf_node_is_switch(f, f->ports[q].node))
						continue;
					x = f->switch_index[f->ports[q].node];
					if (dist[x] != UINT32_MAX &&
					    dist[x] + 1 < dist[s]) {
						dist[s] = dist[x] + 1;
						ibf_lfts_set(l, s, lid, (uint8_t)p);
						changed = 1;
					}
				}
			}
		} while (changed);
	}
	for (s = 0; s < f->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports;

		for (lid = 0; lid <= f->lid_top; lid++) {
			unsigned v = rnd(seed, 100);

			if (v >= noise_pct)
				continue;
			v = rnd(seed, 10);
			l->port[(size_t)s * l->stride + lid] =
				v == 0 ? IBF_LFT_NO_PORT : v == 1 ? 0 :
				(uint8_t)rnd(seed, np + 3);
		}
		l->has_table[s] = rnd(seed, 12) != 0;
	}
	free(dist);
	return l;
}

/* Replay a delivered hop list by hand: every hop leaves the node the
 * previous one arrived at, the last lands on the owner. */
static void replay(const ibf_fabric_t *f, ibf_port_id_t src, unsigned dlid,
		   const ibf_port_id_t *hops, unsigned n)
{
	ibf_port_id_t o = ibf_fabric_lid_owner(f, dlid);
	unsigned i;

	assert_true(n >= 1);
	assert_int_equal(hops[0], src);
	for (i = 1; i < n; i++)
		assert_int_equal(f->ports[hops[i]].node,
				 f->ports[f->ports[hops[i - 1]].peer].node);
	if (ibf_node_is_switch(f, f->ports[o].node))
		assert_int_equal(f->ports[f->ports[hops[n - 1]].peer].node,
				 f->ports[o].node);
	else
		assert_int_equal(f->ports[hops[n - 1]].peer, o);
}

static void test_random_agree(void **state)
{
	unsigned seed = 12345, iter, seen[IBF_TRACE_NRESULTS] = { 0 };
	ibf_port_id_t hops[64];

	(void)state;
	for (iter = 0; iter < 300; iter++) {
		ibf_fabric_t *f = random_fabric(&seed);
		ibf_lfts_t *l = random_lfts(f, &seed, iter % 4 == 0 ? 0 :
					    rnd(&seed, 40));
		ibf_trace_tree_t *t;
		ibf_check_report_t r;
		unsigned dlid, i;

		assert_int_equal(ibf_trace_tree_create(l, &t), IBF_OK);
		/* every LID, owned or not, including 0 and one past the top */
		for (dlid = 0; dlid <= f->lid_top + 1; dlid++) {
			ibf_trace_tree_build(t, dlid);
			for (i = 0; i < f->nendpoints; i++) {
				ibf_port_id_t src = f->endpoints[i];
				ibf_trace_info_t a, b;

				ibf_trace_info(l, src, dlid, hops, 64, &a);
				ibf_trace_tree_from(t, src, &b);
				assert_int_equal(a.result, b.result);
				assert_int_equal(a.nhops, b.nhops);
				assert_int_equal(a.node, b.node);
				assert_int_equal(a.port, b.port);
				seen[a.result]++;
				if (a.result == IBF_TRACE_OK)
					replay(f, src, dlid, hops, a.nhops);
			}
		}
		ibf_trace_tree_destroy(t);
		check_both(l, iter % 2, &r);
		ibf_check_report_free(&r);
		ibf_lfts_destroy(l);
		ibf_fabric_destroy(f);
	}
	/* the random cases really exercise every outcome */
	for (iter = 0; iter < IBF_TRACE_NRESULTS; iter++)
		assert_true(seen[iter] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_ok),
		cmocka_unit_test(test_lmc_offsets),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_black_hole),
		cmocka_unit_test(test_dead_end),
		cmocka_unit_test(test_misdelivered),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_random_agree),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
