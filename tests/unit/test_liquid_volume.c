/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Node-aware plans placed by volume (common/lib/sched/liquid_volume.c).
 * The placement of one priority order against a brute force of the
 * test's own: every port a bitmap of busy block times, each unit pair
 * (walked through the LFTs by the test) put at the first time all its
 * ports are free for its volume, on random small instances of hosts of
 * 1-8 ranks; no two pairs sharing a port overlap.  The chain of a plan
 * recomputed from the test's walk.  The planner's plans: the chain the
 * test computes from their predecessors equals plan_blocks, and no two
 * pairs sharing a port overlap when each starts as its predecessors
 * arrive; hand cases at the bound.
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
#include <ibflow/liquid_hosts.h>

#include "sched/liquid_volume.h"
#include "test_util.h"

#define MAXH 64

/* A random instance: U distinct hosts of the fabric, 1-8 ranks each. */
struct inst {
	ibf_fabric_t *f;
	ibf_routing_t *ro;
	uint32_t U;
	ibf_port_id_t port[MAXH];
	uint32_t unit_off[MAXH + 1];
	ibf_liquid_plan_t *up;
	struct lq_vpairs v;
};

static void inst_make(struct inst *x, const char *spec, uint32_t U,
		      uint64_t *rng)
{
	uint32_t *ep;
	ibf_err_t err;
	uint64_t *off;
	uint32_t *pr;

	x->f = tu_gen(spec, 0);
	x->ro = tu_route(x->f, "dmodk");
	ep = malloc(x->f->nendpoints * sizeof(uint32_t));
	for (uint32_t i = 0; i < x->f->nendpoints; i++)
		ep[i] = i;
	tu_shuffle(ep, x->f->nendpoints, rng);
	if (U > x->f->nendpoints)
		U = x->f->nendpoints;
	x->U = U;
	x->unit_off[0] = 0;
	for (uint32_t u = 0; u < U; u++) {
		x->port[u] = x->f->endpoints[ep[u]];
		x->unit_off[u + 1] = x->unit_off[u] + 1 +
				     (uint32_t)(tu_rand(rng) % 8);
	}
	free(ep);
	assert_int_equal(ibf_liquid_plan_alltoall(x->ro->lfts, x->port, U,
						  NULL, &x->up, &err), IBF_OK);
	assert_int_equal(ibf_liquid_plan_frames(x->up, &off, &pr, &err),
			 IBF_OK);
	x->v = (struct lq_vpairs){ .T = (uint64_t)U * (U - 1), .U = U,
		.nframes = ibf_liquid_plan_info(x->up)->nframes,
		.frame_off = off };
	x->v.src = malloc(x->v.T * sizeof(uint32_t));
	x->v.dst = malloc(x->v.T * sizeof(uint32_t));
	x->v.frame = malloc(x->v.T * sizeof(uint32_t));
	for (uint32_t f = 0; f < x->v.nframes; f++)
		for (uint64_t k = off[f]; k < off[f + 1]; k++) {
			x->v.src[k] = pr[2 * k];
			x->v.dst[k] = pr[2 * k + 1];
			x->v.frame[k] = f;
		}
	free(pr);
}

static void inst_free(struct inst *x)
{
	free(x->v.src);
	free(x->v.dst);
	free(x->v.frame);
	free(x->v.frame_off);
	ibf_liquid_plan_destroy(x->up);
	ibf_routing_destroy(x->ro);
	ibf_fabric_destroy(x->f);
}

static uint64_t volume(const struct inst *x, uint32_t s, uint32_t d)
{
	return (uint64_t)(x->unit_off[s + 1] - x->unit_off[s]) *
	       (x->unit_off[d + 1] - x->unit_off[d]);
}

static unsigned walk(const struct inst *x, uint64_t k, ibf_port_id_t *hops)
{
	return tu_walk(x->ro->lfts, x->port[x->v.src[k]],
		       x->port[x->v.dst[k]], hops, MAXH);
}

/* The brute force: busy[port * horizon + t]; each pair in prio order at
 * the first t its ports are all free over [t, t + volume). */
static void brute_times(const struct inst *x, const uint32_t *prio,
			uint64_t *start)
{
	uint64_t horizon = 1;
	uint8_t *busy;
	ibf_port_id_t hops[MAXH];

	for (uint64_t k = 0; k < x->v.T; k++)
		horizon += volume(x, x->v.src[k], x->v.dst[k]);
	busy = calloc(x->f->nports * horizon, 1);
	assert_non_null(busy);
	for (uint64_t i = 0; i < x->v.T; i++) {
		uint32_t k = prio[i];
		uint64_t len = volume(x, x->v.src[k], x->v.dst[k]), t = 0;
		unsigned h = walk(x, k, hops);
		bool fits = false;

		for (; !fits; t++) {
			fits = true;
			for (unsigned j = 0; j < h && fits; j++)
				for (uint64_t b = t; b < t + len && fits; b++)
					fits = !busy[hops[j] * horizon + b];
		}
		start[k] = --t;
		assert_true(t + len < horizon);
		for (unsigned j = 0; j < h; j++)
			memset(busy + hops[j] * horizon + t, 1, len);
	}
	free(busy);
}

/* No two pairs that share a port overlap in [start, start + volume). */
static void judge_disjoint(const struct inst *x, const uint64_t *start)
{
	ibf_port_id_t ha[MAXH], hb[MAXH];

	for (uint64_t a = 0; a < x->v.T; a++) {
		unsigned na = walk(x, a, ha);
		uint64_t ea = start[a] + volume(x, x->v.src[a], x->v.dst[a]);

		for (uint64_t b = a + 1; b < x->v.T; b++) {
			unsigned nb = walk(x, b, hb);
			uint64_t eb = start[b] + volume(x, x->v.src[b],
							 x->v.dst[b]);
			bool shared = false;

			for (unsigned i = 0; i < na; i++)
				for (unsigned j = 0; j < nb; j++)
					shared |= ha[i] == hb[j];
			if (shared && start[a] < eb && start[b] < ea)
				fail_msg("pairs %llu and %llu overlap on a "
					 "port", (unsigned long long)a,
					 (unsigned long long)b);
		}
	}
}

/* The chain of pairs in the order of v, each starting once every port's
 * previous user is in: the test's own walk. */
static uint64_t own_chain(const struct inst *x, const struct lq_vpairs *v)
{
	uint64_t *end = calloc(x->f->nports, sizeof(uint64_t)), chain = 0;
	ibf_port_id_t hops[MAXH];

	for (uint64_t k = 0; k < v->T; k++) {
		unsigned h = tu_walk(x->ro->lfts, x->port[v->src[k]],
				     x->port[v->dst[k]], hops, MAXH);
		uint64_t t = 0;

		for (unsigned j = 0; j < h; j++)
			if (end[hops[j]] > t)
				t = end[hops[j]];
		t += volume(x, v->src[k], v->dst[k]);
		for (unsigned j = 0; j < h; j++)
			end[hops[j]] = t;
		if (t > chain)
			chain = t;
	}
	free(end);
	return chain;
}

/* Random small instances, random priority orders: the placement equals
 * the brute force pair by pair. */
static void test_times_brute(void **state)
{
	static const char *spec[] = { "xgft:2:4,4:1,2", "kary:2,3",
				      "kary:4,2" };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned ncases = 0;

	(void)state;
	for (unsigned c = 0; c < 30; c++) {
		struct inst x;
		uint32_t *prio;
		uint64_t *start, *want;
		ibf_err_t err;

		inst_make(&x, spec[c % 3], 3 + (uint32_t)(tu_rand(&rng) % 6),
			  &rng);
		prio = malloc(x.v.T * sizeof(uint32_t));
		start = malloc(x.v.T * sizeof(uint64_t));
		want = malloc(x.v.T * sizeof(uint64_t));
		for (uint64_t k = 0; k < x.v.T; k++)
			prio[k] = (uint32_t)k;
		tu_shuffle(prio, (uint32_t)x.v.T, &rng);
		assert_int_equal(lq_volume_times(lq_plan_a2a(x.up),
						 x.unit_off, &x.v, prio,
						 start, &err), IBF_OK);
		brute_times(&x, prio, want);
		for (uint64_t k = 0; k < x.v.T; k++)
			if (start[k] != want[k])
				fail_msg("case %u (%s, %u hosts): pair %llu "
					 "at %llu, the brute force %llu", c,
					 spec[c % 3], x.U,
					 (unsigned long long)k,
					 (unsigned long long)start[k],
					 (unsigned long long)want[k]);
		judge_disjoint(&x, start);
		assert_int_equal(lq_volume_chain(lq_plan_a2a(x.up),
						 x.unit_off, &x.v),
				 own_chain(&x, &x.v));
		ncases++;
		free(prio);
		free(start);
		free(want);
		inst_free(&x);
	}
	assert_int_equal(ncases, 30);
}

/* lq_volume_place on the same instances: a replacement only with a
 * shorter chain, and then the pairs of every host pair once, frames
 * ascending, no port twice in a frame, and the chain it reports the
 * test's own. */
static void test_place(void **state)
{
	uint64_t rng = 0x2545f4914f6cdd1dull;
	unsigned replaced = 0;

	(void)state;
	for (unsigned c = 0; c < 30; c++) {
		struct inst x;
		uint64_t chain, before;
		uint32_t *seen, *used;
		ibf_port_id_t hops[MAXH];
		ibf_err_t err;

		inst_make(&x, c % 2 ? "xgft:2:4,4:1,2" : "kary:4,2",
			  4 + (uint32_t)(tu_rand(&rng) % 8), &rng);
		before = chain = own_chain(&x, &x.v);
		assert_int_equal(lq_volume_place(lq_plan_a2a(x.up),
						 x.unit_off, 0, &chain, &x.v,
						 &err), IBF_OK);
		if (!x.v.frame_of_pair) {
			assert_int_equal(chain, before);
			inst_free(&x);
			continue;
		}
		replaced++;
		assert_true(chain < before);
		assert_int_equal(own_chain(&x, &x.v), chain);
		seen = calloc((size_t)x.U * x.U, sizeof(uint32_t));
		used = calloc(x.f->nports, sizeof(uint32_t));
		for (uint32_t f = 0; f < x.v.nframes; f++)
			for (uint64_t k = x.v.frame_off[f];
			     k < x.v.frame_off[f + 1]; k++) {
				unsigned h = walk(&x, k, hops);

				assert_int_equal(x.v.frame[k], f);
				assert_int_equal(x.v.frame_of_pair[
					x.v.src[k] * x.U + x.v.dst[k]], f);
				seen[x.v.src[k] * x.U + x.v.dst[k]]++;
				for (unsigned j = 0; j < h; j++) {
					assert_int_not_equal(used[hops[j]],
							     f + 1);
					used[hops[j]] = f + 1;
				}
			}
		assert_int_equal(x.v.frame_off[x.v.nframes], x.v.T);
		for (uint32_t a = 0; a < x.U; a++)
			for (uint32_t b = 0; b < x.U; b++)
				assert_int_equal(seen[a * x.U + b], a != b);
		free(seen);
		free(used);
		free(x.v.frame_of_pair);
		inst_free(&x);
	}
	assert_true(replaced > 0);
}

/* The planner's plan run as its predecessors allow: each pair starts as
 * the last of them is in.  No two pairs sharing a port overlap; the
 * chain is plan_blocks.  Returns plan_blocks. */
static uint64_t judge_plan(const ibf_lfts_t *l, const ibf_liquid_hplan_t *p)
{
	const ibf_liquid_hplan_info_t *in = ibf_liquid_hplan_info(p);
	const ibf_port_id_t *up = ibf_liquid_hplan_unit_port(p);
	const uint32_t *uoff;
	ibf_liquid_hplan_view_t v;
	uint64_t *start, *end, chain = 0;
	ibf_port_id_t hops[MAXH];

	ibf_liquid_hplan_unit_ranks(p, &uoff);
	ibf_liquid_hplan_view(p, &v);
	start = calloc(v.npairs + 1, sizeof(uint64_t));
	end = calloc(v.npairs + 1, sizeof(uint64_t));
	for (uint64_t k = 0; k < v.npairs; k++) {
		uint32_t s = v.pair_src[k], d = v.pair_dst[k];

		for (uint64_t e = v.pred_off[k]; e < v.pred_off[k + 1]; e++) {
			assert_true(v.pred[e] < k);
			if (end[v.pred[e]] > start[k])
				start[k] = end[v.pred[e]];
		}
		end[k] = start[k] + (uint64_t)(uoff[s + 1] - uoff[s]) *
				    (uoff[d + 1] - uoff[d]);
		if (end[k] > chain)
			chain = end[k];
	}
	/* the users of a port must not overlap (a quadratic scan: small
	 * plans) */
	for (uint64_t a = 0; a < v.npairs; a++) {
		ibf_port_id_t ha[MAXH];
		unsigned na = tu_walk(l, up[v.pair_src[a]], up[v.pair_dst[a]],
				      ha, MAXH);

		for (uint64_t b = a + 1; b < v.npairs; b++) {
			unsigned nb = tu_walk(l, up[v.pair_src[b]],
					      up[v.pair_dst[b]], hops, MAXH);
			bool shared = false;

			for (unsigned i = 0; i < na; i++)
				for (unsigned j = 0; j < nb; j++)
					shared |= ha[i] == hops[j];
			if (shared && start[a] < end[b] && start[b] < end[a])
				fail_msg("pairs %llu and %llu overlap",
					 (unsigned long long)a,
					 (unsigned long long)b);
		}
	}
	assert_int_equal(in->plan_blocks, chain);
	free(start);
	free(end);
	return chain;
}

static ibf_liquid_hplan_t *plan_hosts(const ibf_routing_t *ro,
				      const ibf_fabric_t *f,
				      const uint32_t *per, uint32_t H)
{
	ibf_port_id_t rp[1024];
	uint32_t n = 0;
	ibf_liquid_hplan_t *p;
	ibf_err_t err;

	for (uint32_t h = 0; h < H; h++)
		for (uint32_t c = 0; c < per[h]; c++)
			rp[n++] = f->endpoints[h];
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, n, NULL, &p,
						 &err), IBF_OK);
	return p;
}

/* Hand cases.  Three hosts of 2, 1, 1 ranks on kary:4,2: host 0 sends
 * and receives 2 + 2 blocks, the others 3 each, so the bound is 4, and
 * 0 -> 1, 0 -> 2 back to back on host 0's link with 2 -> 0, 1 -> 0
 * opposite them and the two single blocks in the holes reach it.  The 64 hosts of kary:4,3 with 1 + (h mod 8) ranks: the
 * busiest link carries 2,288 blocks (the unit plan's frames chained
 * 2,582, +12.85 %); placed by volume the plan is at the bound. */
static void test_hand(void **state)
{
	static const uint32_t three[] = { 2, 1, 1 };
	ibf_fabric_t *f = tu_gen("kary:4,2", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	ibf_liquid_hplan_t *p = plan_hosts(ro, f, three, 3);
	uint32_t per[64];

	(void)state;
	assert_int_equal(ibf_liquid_hplan_info(p)->bound_blocks, 4);
	assert_int_equal(judge_plan(ro->lfts, p), 4);
	assert_true(ibf_liquid_hplan_info(p)->liquid);
	ibf_liquid_hplan_destroy(p);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
	f = tu_gen("kary:4,3", 0);
	ro = tu_route(f, "dmodk");
	for (uint32_t h = 0; h < 64; h++)
		per[h] = 1 + h % 8;
	p = plan_hosts(ro, f, per, 64);
	assert_int_equal(ibf_liquid_hplan_info(p)->bound_blocks, 2288);
	assert_int_equal(judge_plan(ro->lfts, p), 2288);
	ibf_liquid_hplan_destroy(p);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* Random mixed hosts through the planner: the chain and no overlap. */
static void test_plan_random(void **state)
{
	static const char *spec[] = { "xgft:2:4,4:1,2", "kary:4,2" };
	uint64_t rng = 0x853c49e6748fea9bull;

	(void)state;
	for (unsigned c = 0; c < 12; c++) {
		ibf_fabric_t *f = tu_gen(spec[c % 2], 0);
		ibf_routing_t *ro = tu_route(f, "dmodk");
		uint32_t per[16], H = 3 + (uint32_t)(tu_rand(&rng) % 10);
		ibf_liquid_hplan_t *p;

		for (uint32_t h = 0; h < H; h++)
			per[h] = 1 + (uint32_t)(tu_rand(&rng) % 8);
		p = plan_hosts(ro, f, per, H);
		assert_true(judge_plan(ro->lfts, p) >=
			    ibf_liquid_hplan_info(p)->bound_blocks);
		ibf_liquid_hplan_destroy(p);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_brute),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_plan_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
