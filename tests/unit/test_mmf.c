/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Max-min fair rates: hand-computed cases on a small two-level tree traced
 * through hand-written LFTs, the crossbar normaliser, the fast solver
 * against the reference on random problems, and an independent check of
 * the MMF bottleneck property on every random answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/rng.h"
#include <ibflow/mmf.h>
#include <ibflow/patterns.h>

/* ---- the hand-built tree ------------------------------------------------
 *
 *        S0            S1
 *   p1 /    \ p2   p1 /   \ p2
 *  p6 /      \p6  p7 /     \ p7      L0 - S1 is 1x SDR (2.5 Gb/s),
 *    L0 ------+------+      L1        every other link 4x SDR (10 Gb/s)
 *   p1..p5                 p1..p5
 *   a0..a4                 b0..b4
 *
 * LFTs: a host's own leaf delivers on its port; the other leaf sends LID
 * offset 0 up port 6 (S0) and offset 1 up port 7 (S1); spines send down
 * to the host's leaf.
 */
struct tree {
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_node_id_t L[2], S[2], h[2][5];
};

static void tree_build(struct tree *t, unsigned lmc)
{
	ibf_finalize_opts_t fo = { .lmc = lmc };
	ibf_err_t err;
	unsigned i, j, o;
	char name[32];

	memset(t, 0, sizeof(*t));
	assert_int_equal(ibf_fabric_create(&t->f), IBF_OK);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "leaf%u", i);
		assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_SWITCH, 0,
						     name, 7, &t->L[i], &err),
				 IBF_OK);
	}
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "spine%u", i);
		assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_SWITCH, 0,
						     name, 2, &t->S[i], &err),
				 IBF_OK);
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 5; j++) {
			snprintf(name, sizeof(name), "%c%u", "ab"[i], j);
			assert_int_equal(ibf_fabric_add_node(t->f, IBF_NODE_CA,
					 0, name, 1, &t->h[i][j], &err),
					 IBF_OK);
			assert_int_equal(ibf_fabric_link(t->f, t->h[i][j], 1,
					 t->L[i], j + 1, 4, IBF_SPEED_SDR,
					 &err), IBF_OK);
		}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			assert_int_equal(ibf_fabric_link(t->f, t->L[i], 6 + j,
					 t->S[j], i + 1,
					 i == 0 && j == 1 ? 1 : 4,
					 IBF_SPEED_SDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(t->f, &fo, &err), IBF_OK);
	assert_int_equal(ibf_lfts_create(t->f, &t->l), IBF_OK);
	for (i = 0; i < 2; i++)
		for (j = 0; j < 5; j++) {
			unsigned lid = ibf_node_port(t->f, t->h[i][j], 1)->lid;

			for (o = 0; o < (1u << lmc); o++) {
				ibf_lfts_set(t->l, t->f->switch_index[t->L[i]],
					     lid + o, (uint8_t)(j + 1));
				ibf_lfts_set(t->l,
					     t->f->switch_index[t->L[1 - i]],
					     lid + o, (uint8_t)(6 + o % 2));
				ibf_lfts_set(t->l, t->f->switch_index[t->S[0]],
					     lid + o, (uint8_t)(i + 1));
				ibf_lfts_set(t->l, t->f->switch_index[t->S[1]],
					     lid + o, (uint8_t)(i + 1));
			}
		}
}

static void tree_free(struct tree *t)
{
	ibf_lfts_destroy(t->l);
	ibf_fabric_destroy(t->f);
}

static ibf_port_id_t hp(const struct tree *t, unsigned side, unsigned j)
{
	return ibf_node_port_id(t->f, t->h[side][j], 1);
}

static void solve_both(const ibf_mmf_problem_t *p, double *fast, double *ref)
{
	ibf_err_t err;

	assert_int_equal(ibf_mmf_solve(p, fast, NULL, &err), IBF_OK);
	assert_int_equal(ibf_mmf_solve_ref(p, ref, NULL, &err), IBF_OK);
}

/* Single path (offset 0, all through S0):
 *   a0->b0, a1->b1, a2->b2, a3->b3 share L0 port 6 (10 Gb/s): 2.5 each;
 *   a0->a1 shares a0's injection link with a0->b0: 10 - 2.5 = 7.5;
 *   b4->a4 is alone on every link: 10.
 * Crossbar: a0's injection is shared by two flows (5 each), every other
 * flow is alone on its host links (10): 5+5+10+10+10+10 = 50. */
static void test_hand_single(void **state)
{
	static const double want[6] = { 2.5, 2.5, 2.5, 2.5, 7.5, 10 };
	ibf_flow_t fl[6];
	ibf_traffic_t tr = { fl, 6 };
	ibf_mmf_problem_t p, x;
	ibf_mmf_summary_t s;
	double r[6], q[6];
	struct tree t;
	ibf_err_t err;
	unsigned i;

	(void)state;
	tree_build(&t, 0);
	for (i = 0; i < 4; i++)
		fl[i] = (ibf_flow_t){ hp(&t, 0, i), hp(&t, 1, i), 1 };
	fl[4] = (ibf_flow_t){ hp(&t, 0, 0), hp(&t, 0, 1), 1 };
	fl[5] = (ibf_flow_t){ hp(&t, 1, 4), hp(&t, 0, 4), 1 };
	assert_int_equal(ibf_flowpaths_build(t.l, &tr, IBF_FLOWPATHS_SINGLE,
					     &p, &err), IBF_OK);
	/* a0->b0 crosses 4 links: a0, L0 p6, S0 p2, L1 p1. */
	assert_int_equal(p.first[1] - p.first[0], 4);
	assert_int_equal(p.first[5] - p.first[4], 2);
	solve_both(&p, r, q);
	for (i = 0; i < 6; i++) {
		assert_true(fabs(r[i] - want[i]) < 1e-12);
		assert_true(fabs(q[i] - want[i]) < 1e-12);
	}
	assert_int_equal(ibf_mmf_summarize(&p, r, &s, &err), IBF_OK);
	assert_true(fabs(s.aggregate - 27.5) < 1e-12);
	assert_true(fabs(s.min - 2.5) < 1e-12);
	assert_true(fabs(s.median - 2.5) < 1e-12); /* 2.5 2.5 2.5 [2.5 7.5] */
	assert_int_equal(s.copies, 6);

	assert_int_equal(ibf_flowpaths_crossbar(t.f, &tr, &x, &err), IBF_OK);
	solve_both(&x, r, q);
	assert_int_equal(ibf_mmf_summarize(&x, r, &s, &err), IBF_OK);
	assert_true(fabs(s.aggregate - 50) < 1e-12);
	assert_true(fabs(s.median - 10) < 1e-12);
	ibf_mmf_problem_free(&x);
	ibf_mmf_problem_free(&p);
	tree_free(&t);
}

/* LMC 1, each flow split evenly over S0 (offset 0) and S1 (offset 1):
 *   a0->b0, a1->b1, a2->b2 put r/2 each on L0 p7 (2.5 Gb/s):
 *   3 r / 2 = 2.5, r = 5/3 (L0 p6 then carries 2.5 of 10);
 *   a0->a3 takes both DLIDs along the same two links (fraction 1 each)
 *   and gets what a0->b0 leaves on a0's link: 10 - 5/3 = 25/3.
 * In single mode on the same tables all go through S0:
 *   3 r = 10, r = 10/3, and a0->a3 gets 10 - 10/3 = 20/3. */
static void test_hand_lmc(void **state)
{
	static const double want_lmc[4] = { 5.0 / 3, 5.0 / 3, 5.0 / 3,
					    25.0 / 3 };
	static const double want_single[4] = { 10.0 / 3, 10.0 / 3, 10.0 / 3,
					       20.0 / 3 };
	ibf_flow_t fl[4];
	ibf_traffic_t tr = { fl, 4 };
	ibf_mmf_problem_t p;
	double r[4], q[4];
	struct tree t;
	ibf_err_t err;
	unsigned i;

	(void)state;
	tree_build(&t, 1);
	for (i = 0; i < 3; i++)
		fl[i] = (ibf_flow_t){ hp(&t, 0, i), hp(&t, 1, i), 1 };
	fl[3] = (ibf_flow_t){ hp(&t, 0, 0), hp(&t, 0, 3), 1 };
	assert_int_equal(ibf_flowpaths_build(t.l, &tr, IBF_FLOWPATHS_LMC, &p,
					     &err), IBF_OK);
	/* a0->b0: a0 (1), L0 p6, L0 p7 (1/2 each), S0 p2, S1 p2 (1/2 each),
	 * L1 p1 (1): 6 links; a0->a3: 2 links with fraction 1. */
	assert_int_equal(p.first[1] - p.first[0], 6);
	assert_int_equal(p.first[4] - p.first[3], 2);
	assert_true(fabs(p.frac[p.first[3]] - 1) < 1e-15);
	solve_both(&p, r, q);
	for (i = 0; i < 4; i++) {
		assert_true(fabs(r[i] - want_lmc[i]) < 1e-12);
		assert_true(fabs(q[i] - want_lmc[i]) < 1e-12);
	}
	ibf_mmf_problem_free(&p);
	assert_int_equal(ibf_flowpaths_build(t.l, &tr, IBF_FLOWPATHS_SINGLE,
					     &p, &err), IBF_OK);
	solve_both(&p, r, q);
	for (i = 0; i < 4; i++) {
		assert_true(fabs(r[i] - want_single[i]) < 1e-12);
		assert_true(fabs(q[i] - want_single[i]) < 1e-12);
	}
	ibf_mmf_problem_free(&p);
	tree_free(&t);
}

/* Broken routes and degenerate flows are errors naming the pair. */
static void test_bad_flows(void **state)
{
	ibf_flow_t fl[1];
	ibf_traffic_t tr = { fl, 1 };
	ibf_mmf_problem_t p;
	struct tree t;
	ibf_err_t err;
	unsigned lid;

	(void)state;
	tree_build(&t, 0);
	fl[0] = (ibf_flow_t){ hp(&t, 0, 2), hp(&t, 0, 2), 1 };
	assert_int_equal(ibf_flowpaths_build(t.l, &tr, IBF_FLOWPATHS_SINGLE,
					     &p, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "a2 -> a2"));
	assert_null(p.capacity);

	fl[0] = (ibf_flow_t){ hp(&t, 0, 1), hp(&t, 1, 3), 1 };
	lid = ibf_node_port(t.f, t.h[1][3], 1)->lid;
	ibf_lfts_set(t.l, t.f->switch_index[t.S[0]], lid, IBF_LFT_NO_PORT);
	assert_int_equal(ibf_flowpaths_build(t.l, &tr, IBF_FLOWPATHS_SINGLE,
					     &p, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "a1 -> b3"));
	assert_non_null(strstr(err.msg, "no route"));
	tree_free(&t);
}

static void test_problem_checks(void **state)
{
	ibf_mmf_problem_t p;
	uint32_t links[2] = { 0, 1 };
	double fr[2] = { 1, 1 }, r[2];
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_mmf_problem_init(&p, 2, &err), IBF_OK);
	p.capacity[0] = 1;
	assert_int_equal(ibf_mmf_problem_add_flow(&p, 1, links, fr, 0, &err),
			 IBF_OK);
	assert_int_equal(ibf_mmf_solve(&p, r, NULL, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "no link"));
	assert_int_equal(ibf_mmf_solve_ref(&p, r, NULL, &err),
			 IBF_ERR_INVALID);
	ibf_mmf_problem_free(&p);

	/* Link 1 has capacity 0. */
	assert_int_equal(ibf_mmf_problem_init(&p, 2, &err), IBF_OK);
	p.capacity[0] = 1;
	assert_int_equal(ibf_mmf_problem_add_flow(&p, 1, links, fr, 2, &err),
			 IBF_OK);
	assert_int_equal(ibf_mmf_solve(&p, r, NULL, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "capacity"));
	ibf_mmf_problem_free(&p);

	/* Weights: 3 copies and 1 copy on one link of capacity 1 give every
	 * copy 1/4; the repeated link in the second flow is merged. */
	assert_int_equal(ibf_mmf_problem_init(&p, 2, &err), IBF_OK);
	p.capacity[0] = 1;
	p.capacity[1] = 1;
	assert_int_equal(ibf_mmf_problem_add_flow(&p, 3, links, fr, 1, &err),
			 IBF_OK);
	links[1] = 0;
	fr[0] = fr[1] = 0.5;
	assert_int_equal(ibf_mmf_problem_add_flow(&p, 1, links, fr, 2, &err),
			 IBF_OK);
	assert_int_equal(p.first[2] - p.first[1], 1);
	assert_int_equal(ibf_mmf_solve(&p, r, NULL, &err), IBF_OK);
	assert_true(fabs(r[0] - 0.25) < 1e-15 && fabs(r[1] - 0.25) < 1e-15);
	ibf_mmf_problem_free(&p);

	/* 100 entries over 5 links (the sorting merge): 5 entries of 0.2.
	 * A second flow on link 4 alone: link 4 carries 0.2 r + r' <= 1 and
	 * is the tightest link, so r = r' = 1 / 1.2. */
	{
		uint32_t many[100];
		double mf[100];
		unsigned i;

		assert_int_equal(ibf_mmf_problem_init(&p, 5, &err), IBF_OK);
		for (i = 0; i < 100; i++) {
			many[i] = (i * 7) % 5;
			mf[i] = 0.01;
			p.capacity[i % 5] = 1;
		}
		assert_int_equal(ibf_mmf_problem_add_flow(&p, 1, many, mf, 100,
							  &err), IBF_OK);
		assert_int_equal(p.first[1], 5);
		for (i = 0; i < 5; i++) {
			assert_int_equal(p.link[i], i);
			assert_true(fabs(p.frac[i] - 0.2) < 1e-12);
		}
		many[0] = 4;
		mf[0] = 1;
		assert_int_equal(ibf_mmf_problem_add_flow(&p, 1, many, mf, 1,
							  &err), IBF_OK);
		assert_int_equal(ibf_mmf_solve(&p, r, NULL, &err), IBF_OK);
		assert_true(fabs(r[0] - 1 / 1.2) < 1e-12);
		assert_true(fabs(r[1] - 1 / 1.2) < 1e-12);
		ibf_mmf_problem_free(&p);
	}

	/* No flows: nothing to do, summary all zero. */
	{
		ibf_mmf_summary_t s;

		assert_int_equal(ibf_mmf_problem_init(&p, 0, &err), IBF_OK);
		assert_int_equal(ibf_mmf_solve(&p, r, NULL, &err), IBF_OK);
		assert_int_equal(ibf_mmf_summarize(&p, r, &s, &err), IBF_OK);
		assert_true(s.aggregate == 0 && s.min == 0 && s.median == 0);
		ibf_mmf_problem_free(&p);
	}
}

/* ---- random problems ---------------------------------------------------- */

/* Independent MMF certificate: feasible, and every flow crosses a
 * saturated link on which no flow has a higher (per-copy) rate. */
static void check_mmf_property(const ibf_mmf_problem_t *p, const double *r)
{
	double *load = calloc(p->nlinks + 1, sizeof(*load));
	double *maxr = calloc(p->nlinks + 1, sizeof(*maxr));
	uint32_t k;
	size_t e;

	assert_non_null(load);
	assert_non_null(maxr);
	for (k = 0; k < p->nflows; k++) {
		assert_true(isfinite(r[k]) && r[k] > 0);
		for (e = p->first[k]; e < p->first[k + 1]; e++) {
			load[p->link[e]] += p->weight[k] * p->frac[e] * r[k];
			maxr[p->link[e]] = fmax(maxr[p->link[e]], r[k]);
		}
	}
	for (k = 0; k < p->nlinks; k++)
		assert_true(load[k] <= p->capacity[k] * (1 + 1e-9));
	for (k = 0; k < p->nflows; k++) {
		bool found = false;

		for (e = p->first[k]; e < p->first[k + 1] && !found; e++) {
			uint32_t l = p->link[e];

			found = load[l] >= p->capacity[l] * (1 - 1e-9) &&
				r[k] >= maxr[l] * (1 - 1e-9);
		}
		assert_true(found);
	}
	free(load);
	free(maxr);
}

/* Random problems; mode 0: arbitrary capacities and fractions, mode 1:
 * capacities 1 or 2 and fractions 1, 1/2, 1/4 so many links saturate at
 * exactly the same level (ties). */
static void random_problem(ibf_xrng_t *g, unsigned mode,
			   ibf_mmf_problem_t *p)
{
	uint32_t nl = 1 + (uint32_t)ibf_xrng_below(g, 40), links[8], k, l;
	uint32_t nf = 1 + (uint32_t)ibf_xrng_below(g, 80);
	double fr[8];
	ibf_err_t err;

	assert_int_equal(ibf_mmf_problem_init(p, nl, &err), IBF_OK);
	for (l = 0; l < nl; l++)
		p->capacity[l] = mode ? 1 + (uint32_t)ibf_xrng_below(g, 2) :
				 0.1 + (ibf_xrng_next(g) >> 11) *
				 0x1.0p-53 * 10;
	for (k = 0; k < nf; k++) {
		unsigned n = 1 + (uint32_t)ibf_xrng_below(g, nl < 8 ? nl : 8), i;

		for (i = 0; i < n; i++) {
			links[i] = (uint32_t)ibf_xrng_below(g, nl);
			fr[i] = mode ? 1.0 / (1u << (uint32_t)ibf_xrng_below(g, 3))
				: 0.05 + (ibf_xrng_next(g) >> 11) *
				  0x1.0p-53 * 0.95;
			/* Repeats merge: keep their sum within 1. */
			fr[i] /= n;
		}
		assert_int_equal(ibf_mmf_problem_add_flow(p,
				 1 + (uint32_t)ibf_xrng_below(g, 3), links, fr, n,
				 &err), IBF_OK);
	}
}

static void test_random_agree(void **state)
{
	ibf_xrng_t g;
	unsigned i, rounds_total = 0;

	(void)state;
	ibf_xrng_seed(&g, 4004);
	for (i = 0; i < 400; i++) {
		ibf_mmf_problem_t p;
		ibf_mmf_stats_t st;
		double *r, *q;
		ibf_err_t err;
		uint32_t k;

		random_problem(&g, i % 2, &p);
		r = malloc(p.nflows * sizeof(*r));
		q = malloc(p.nflows * sizeof(*q));
		assert_int_equal(ibf_mmf_solve(&p, r, &st, &err), IBF_OK);
		rounds_total += st.rounds;
		assert_int_equal(ibf_mmf_solve_ref(&p, q, NULL, &err), IBF_OK);
		for (k = 0; k < p.nflows; k++)
			assert_true(fabs(r[k] - q[k]) <= 1e-9 * fabs(q[k]));
		check_mmf_property(&p, r);
		check_mmf_property(&p, q);
		free(r);
		free(q);
		ibf_mmf_problem_free(&p);
	}
	assert_true(rounds_total > 400); /* the problems are not trivial */
}

/* Permutations on a generated fat tree with bench-style up/down LFTs are
 * too large to hand-check; there the fast and reference solvers must agree
 * and the answer must carry the MMF certificate. */
static void test_crossbar_perm(void **state)
{
	ibf_pattern_t pat;
	ibf_traffic_t tr;
	ibf_mmf_problem_t x;
	ibf_mmf_summary_t s;
	struct tree t;
	ibf_port_id_t *map;
	uint32_t n;
	double r[10];
	ibf_err_t err;

	(void)state;
	/* On a crossbar a derangement gives every flow its full host link:
	 * aggregate = hosts x 10 Gb/s. */
	tree_build(&t, 0);
	assert_int_equal(ibf_rankmap(t.f, NULL, 0, true, 7, &map, &n, &err),
			 IBF_OK);
	assert_int_equal(n, 10);
	assert_int_equal(ibf_pattern_parse("perm", &pat, &err), IBF_OK);
	assert_int_equal(ibf_pattern_traffic(&pat, t.f, map, n, 0, 1, &tr,
					     &err), IBF_OK);
	assert_int_equal(ibf_flowpaths_crossbar(t.f, &tr, &x, &err), IBF_OK);
	assert_int_equal(ibf_mmf_solve(&x, r, NULL, &err), IBF_OK);
	assert_int_equal(ibf_mmf_summarize(&x, r, &s, &err), IBF_OK);
	assert_true(fabs(s.aggregate - 100) < 1e-9);
	ibf_mmf_problem_free(&x);
	ibf_traffic_free(&tr);
	ibf_pattern_free(&pat);
	free(map);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_single),
		cmocka_unit_test(test_hand_lmc),
		cmocka_unit_test(test_bad_flows),
		cmocka_unit_test(test_problem_checks),
		cmocka_unit_test(test_random_agree),
		cmocka_unit_test(test_crossbar_perm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
