/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Liquid scheduling: hand-computed traffics (the paper's two-switch example,
 * a traffic without any team, two-switch fabrics), the search's verdict
 * against brute-force colouring on 1,500 small traffics, random traffics on
 * generated fabrics judged by the test's own LFT walker, and the time
 * limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/liquid.h>

#include "test_util.h"
#include <ibflow/route.h>

/* ---- independent judge -------------------------------------------------- */

/* Walk the LFTs from CA port src to CA port dst (base LID), collecting the
 * egress port ids; returns the hop count, asserting delivery. */
static unsigned walk(const ibf_lfts_t *l, ibf_port_id_t src,
		     ibf_port_id_t dst, ibf_port_id_t *hops, unsigned max)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned lid = f->ports[dst].lid, n = 0;
	ibf_port_id_t p = src;

	for (;;) {
		ibf_port_id_t q;
		ibf_node_id_t node;
		uint8_t out;

		assert_true(n < max);
		hops[n++] = p;
		q = f->ports[p].peer;
		assert_int_not_equal(q, IBF_NO_ID);
		node = f->ports[q].node;
		if (!ibf_node_is_switch(f, node)) {
			assert_int_equal(q, dst);
			return n;
		}
		out = ibf_lfts_get(l, f->switch_index[node], lid);
		assert_true(out >= 1 && out <= f->nodes[node].nports);
		p = ibf_node_port_id(f, node, out);
	}
}

struct pair {
	ibf_port_id_t s, d;
};

/* Check a schedule of the transfers pairs[0..n-1] (transfer i is pair i)
 * against walked paths: frames partition the transfers, no egress port
 * twice in a frame, frames >= max load, liquid iff frames == max load.
 * Returns the independently computed duration. */
static uint32_t judge(const ibf_lfts_t *l, const struct pair *pairs,
		      uint32_t n, const ibf_liquid_traffic_t *t,
		      const ibf_liquid_result_t *r)
{
	const ibf_fabric_t *f = l->fabric;
	uint32_t *load = calloc(f->nports, sizeof(uint32_t));
	uint32_t *used = calloc(f->nports, sizeof(uint32_t));
	uint8_t *seen = calloc(n + 1, 1);
	ibf_port_id_t hops[64];
	uint32_t dur = 0, total = 0;
	char a[64];

	assert_non_null(load);
	assert_non_null(used);
	assert_non_null(seen);
	assert_int_equal(t->ntransfers, n);
	for (uint32_t x = 0; x < n; x++) {
		unsigned h = walk(l, pairs[x].s, pairs[x].d, hops, 64);

		/* The traffic names the same endpoints. */
		assert_int_equal(t->hosts[t->src[x]], pairs[x].s);
		assert_int_equal(t->hosts[t->dst[x]], pairs[x].d);
		for (unsigned i = 0; i < h; i++)
			if (++load[hops[i]] > dur)
				dur = load[hops[i]];
	}
	assert_int_equal(r->duration, dur);
	assert_int_equal(r->ntransfers, n);
	for (uint32_t fr = 0; fr < r->nframes; fr++) {
		assert_true(r->frame_off[fr + 1] > r->frame_off[fr]);
		for (uint32_t j = r->frame_off[fr]; j < r->frame_off[fr + 1];
		     j++) {
			uint32_t x = r->frame_tr[j];
			unsigned h;

			assert_true(x < n);
			assert_false(seen[x]);
			seen[x] = 1;
			total++;
			assert_int_equal(r->frame_of[x], fr);
			h = walk(l, pairs[x].s, pairs[x].d, hops, 64);
			for (unsigned i = 0; i < h; i++) {
				if (used[hops[i]] == fr + 1)
					fail_msg("frame %u uses %s port %u "
						 "twice", fr,
						 ibf_node_desc(f, f->ports[
							 hops[i]].node),
						 f->ports[hops[i]].num);
				used[hops[i]] = fr + 1;
			}
		}
	}
	(void)a;
	assert_int_equal(total, n);
	assert_true(r->nframes >= dur);
	assert_int_equal(r->liquid, r->nframes == dur);
	if (r->optimal_proven)
		assert_true(r->liquid || r->exhausted);
	assert_true(r->rr_frames >= dur);
	free(load);
	free(used);
	free(seen);
	return dur;
}

/* ---- fabrics ------------------------------------------------------------ */

/* Two switches joined by one link, k hosts on each ("a0".., "b0"..). */
static ibf_fabric_t *two_switches(unsigned k)
{
	ibf_fabric_t *f;
	ibf_node_id_t sa, sb, h;
	ibf_err_t err;
	char name[16];

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "swA",
					     k + 1, &sa, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "swB",
					     k + 1, &sb, &err), IBF_OK);
	for (unsigned s = 0; s < 2; s++)
		for (unsigned i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "%c%u", s ? 'b' : 'a', i);
			assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA,
							     0, name, 1, &h,
							     &err), IBF_OK);
			assert_int_equal(ibf_fabric_link(f, h, 1, s ? sb : sa,
							 i + 1, 0, 0, &err),
					 IBF_OK);
		}
	assert_int_equal(ibf_fabric_link(f, sa, k + 1, sb, k + 1, 0, 0, &err),
			 IBF_OK);
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	return f;
}

static ibf_routing_t *route(const ibf_fabric_t *f, const char *engine)
{
	ibf_routing_t *r = NULL;
	ibf_err_t err;

	if (ibf_route(f, engine, NULL, &r, &err) != IBF_OK)
		fail_msg("route %s: %s", engine, err.msg);
	return r;
}

static ibf_hostlist_t all_hosts(const ibf_fabric_t *f)
{
	ibf_hostlist_t h;

	h.n = f->nendpoints;
	h.ports = malloc(h.n * sizeof(*h.ports));
	assert_non_null(h.ports);
	memcpy(h.ports, f->endpoints, h.n * sizeof(*h.ports));
	return h;
}

static struct pair *alltoall_pairs(const ibf_hostlist_t *h, uint32_t *n)
{
	struct pair *p = malloc((size_t)h->n * h->n * sizeof(*p) + 1);
	uint32_t k = 0;

	for (uint32_t i = 0; i < h->n; i++)
		for (uint32_t j = 0; j < h->n; j++)
			if (i != j)
				p[k++] = (struct pair){ h->ports[i],
							h->ports[j] };
	*n = k;
	return p;
}

/* ---- hand cases ----------------------------------------------------------- */

/* The paper's figure 2: senders 0,1 and receivers 0,1 on switch A, senders
 * and receivers 2,3,4 on B; links 0-4 sender uplinks, 5-9 receiver
 * downlinks, 10 A->B, 11 B->A.  A->B carries 2*3 = 6 transfers, B->A 3*2 =
 * 6, every host link 5: duration 6, liquid throughput 25/6.  Round robin
 * (phase k: i -> i+k mod 5) needs 1+1+2+2+1 = 7 frames (phases 2 and 3
 * each have two transfers on A->B). */
static void test_paper_example(void **state)
{
	uint32_t off[26], links[75], src[25], dst[25], n = 0, k = 0;
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 5, .search_first = true };
	ibf_err_t err;
	uint32_t rr;

	(void)state;
	off[0] = 0;
	for (uint32_t i = 0; i < 5; i++)
		for (uint32_t j = 0; j < 5; j++) {
			links[k++] = i;
			links[k++] = 5 + j;
			if (i < 2 && j >= 2)
				links[k++] = 10;
			if (i >= 2 && j < 2)
				links[k++] = 11;
			src[n] = i;
			dst[n] = j;
			off[++n] = k;
		}
	assert_int_equal(ibf_liquid_traffic_from_sets(25, off, links, 5, src,
						      dst, &t, &err), IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	assert_int_equal(r.duration, 6);
	assert_int_equal(r.nbottlenecks, 2);
	assert_int_equal(r.bottlenecks[0], 10);
	assert_int_equal(r.bottlenecks[1], 11);
	assert_true(r.liquid_throughput > 25.0 / 6 - 1e-9 &&
		    r.liquid_throughput < 25.0 / 6 + 1e-9);
	assert_true(r.liquid);
	assert_true(r.optimal_proven);
	assert_int_equal(r.method, IBF_LIQUID_SEARCH);
	assert_int_equal(r.nframes, 6);
	assert_int_equal(r.rr_frames, 7);
	/* Every frame uses both bottlenecks, no link twice. */
	for (uint32_t f = 0; f < 6; f++) {
		uint32_t cnt[12] = { 0 };

		for (uint32_t j = r.frame_off[f]; j < r.frame_off[f + 1]; j++)
			for (uint32_t i = off[r.frame_tr[j]];
			     i < off[r.frame_tr[j] + 1]; i++)
				cnt[links[i]]++;
		for (uint32_t l = 0; l < 12; l++)
			assert_true(cnt[l] <= 1);
		assert_int_equal(cnt[10], 1);
		assert_int_equal(cnt[11], 1);
	}
	assert_int_equal(ibf_liquid_round_robin(t, &rr, NULL, &err), IBF_OK);
	assert_int_equal(rr, 7);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
}

/* The paper's figure 12: three transfers each on two of three links, every
 * two of them congesting: duration 2, no team at all, so no liquid
 * schedule; the optimum is 3 frames, and the exhausted search proves it. */
static void test_no_team(void **state)
{
	uint32_t off[] = { 0, 2, 4, 6 }, links[] = { 0, 1, 1, 2, 0, 2 };
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 5, .search_first = true };
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_from_sets(3, off, links, 0, NULL,
						      NULL, &t, &err), IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	assert_int_equal(r.duration, 2);
	assert_int_equal(r.nbottlenecks, 3);
	assert_false(r.liquid);
	assert_true(r.exhausted);
	assert_false(r.timed_out);
	assert_int_equal(r.nframes, 3);
	assert_true(r.optimal_proven);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
}

/* Two transfers that must be apart, copies of one pair (COUNT): link sets
 * {0,1} x3 and {1,2}: load of link 1 is 4, a liquid schedule has 4 frames
 * of one transfer each. */
static void test_copies(void **state)
{
	uint32_t off[] = { 0, 2, 4, 6, 8 }, links[] = { 0, 1, 0, 1, 0, 1, 1,
							 2 };
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 5, .search_first = true };
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_from_sets(4, off, links, 0, NULL,
						      NULL, &t, &err), IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	assert_int_equal(r.duration, 4);
	assert_true(r.liquid);
	assert_int_equal(r.nframes, 4);
	for (uint32_t f = 0; f < 4; f++)
		assert_int_equal(r.frame_off[f + 1] - r.frame_off[f], 1);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
}

/* Two switches, k hosts each, one link between them: all-to-all has k*k
 * transfers on each direction of the inter-switch link and 2k-1 per host
 * link, so duration max(k*k, 2k-1) and 2k(2k-1) transfers. */
static void two_switch_case(unsigned k, bool search_first)
{
	ibf_fabric_t *f = two_switches(k);
	ibf_routing_t *ro = route(f, "minhop");
	ibf_hostlist_t h = all_hosts(f);
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 5,
				.search_first = search_first };
	ibf_err_t err;
	uint32_t n, want = k * k > 2 * k - 1 ? k * k : 2 * k - 1;
	struct pair *p = alltoall_pairs(&h, &n);

	assert_int_equal(n, 2 * k * (2 * k - 1));
	assert_int_equal(ibf_liquid_traffic_alltoall(ro->lfts, &h, &t, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	assert_int_equal(judge(ro->lfts, p, n, t, &r), want);
	assert_true(r.liquid);
	assert_int_equal(r.nframes, want);
	if (search_first)
		assert_int_equal(r.method, IBF_LIQUID_SEARCH);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
	free(p);
	ibf_hostlist_free(&h);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_two_switches(void **state)
{
	(void)state;
	two_switch_case(1, true);   /* 2 transfers, duration 1 */
	two_switch_case(2, true);   /* 12 transfers, duration 4 */
	two_switch_case(3, true);   /* 30 transfers, duration 9 */
	two_switch_case(5, true);   /* 90 transfers, duration 25 */
	two_switch_case(5, false);
}

/* Round robin on two switches with 2 hosts each (order a0 a1 b0 b1):
 * phase 1: a1->b0, b1->a0 (1 frame); phase 2: a0->b0 and a1->b1 share
 * A->B (2 frames); phase 3: a0->b1, b0->a1 (1 frame): 4 frames. */
static void test_round_robin_hand(void **state)
{
	ibf_fabric_t *f = two_switches(2);
	ibf_routing_t *ro = route(f, "minhop");
	ibf_hostlist_t h = all_hosts(f);
	ibf_liquid_traffic_t *t;
	ibf_err_t err;
	uint32_t nf;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_alltoall(ro->lfts, &h, &t, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_round_robin(t, &nf, NULL, &err), IBF_OK);
	assert_int_equal(nf, 4);
	ibf_liquid_traffic_destroy(t);
	ibf_hostlist_free(&h);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* ---- random traffics ------------------------------------------------------ */

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- exactness against brute force ---------------------------------------- */

/* Can transfers x..n-1 be given frames 0..d-1 so that no two sharing a link
 * (bit masks m[]) share a frame?  Plain backtracking over all colourings:
 * no teams, no anchors, nothing of the search under test. */
static bool colourable(const uint32_t *m, uint32_t n, uint32_t d,
		       uint32_t *col, uint32_t x)
{
	if (x == n)
		return true;
	for (uint32_t c = 0; c < d; c++) {
		bool ok = true;

		for (uint32_t y = 0; y < x && ok; y++)
			ok = col[y] != c || !(m[x] & m[y]);
		if (!ok)
			continue;
		col[x] = c;
		if (colourable(m, n, d, col, x + 1))
			return true;
		/* The first transfer in an unused frame: the other unused
		 * frames are the same choice. */
		for (uint32_t y = 0; y < x; y++)
			ok = ok && col[y] != c;
		if (ok)
			break;
	}
	return false;
}

/* Random small traffics of link sets (some without a liquid schedule):
 * the search finds one exactly when brute force colours the conflict graph
 * with duration frames, and proves none (exhausted) exactly when it cannot.
 * Guards the search's pruning (blank, idle, skeleton, anchor, copies). */
static void test_search_exact(void **state)
{
	uint64_t seed = 0x5eed;
	uint32_t nliquid = 0, nnone = 0;

	(void)state;
	for (unsigned it = 0; it < 1500; it++) {
		uint32_t n = 6 + (uint32_t)(rng(&seed) % 11);
		uint32_t L = 3 + (uint32_t)(rng(&seed) % 5);
		uint32_t m[16], off[17], links[16 * 8], col[16], load[8] = { 0 };
		uint32_t nl = 0, dur = 0;
		ibf_liquid_traffic_t *t;
		ibf_liquid_result_t r;
		ibf_liquid_opts_t o = { .time_limit = 10,
					.search_first = true };
		ibf_err_t err;
		bool can;

		for (uint32_t x = 0; x < n; x++) {
			/* Mostly 2-3 links: dense enough for frames that
			 * cannot all be full. */
			do
				m[x] = (uint32_t)(rng(&seed) % (1u << L));
			while (__builtin_popcount(m[x]) < 2 ||
			       __builtin_popcount(m[x]) > 3);
			off[x] = nl;
			for (uint32_t l = 0; l < L; l++)
				if (m[x] >> l & 1) {
					links[nl++] = l;
					if (++load[l] > dur)
						dur = load[l];
				}
		}
		off[n] = nl;
		can = colourable(m, n, dur, col, 0);
		assert_int_equal(ibf_liquid_traffic_from_sets(n, off, links, 0,
							      NULL, NULL, &t,
							      &err), IBF_OK);
		assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
		assert_int_equal(r.duration, dur);
		assert_false(r.timed_out);
		if (r.liquid != can || r.exhausted == can)
			fail_msg("traffic %u: brute force %s, search liquid "
				 "%d exhausted %d", it, can ? "colours" :
				 "cannot colour", r.liquid, r.exhausted);
		for (uint32_t x = 0; x < n; x++)
			for (uint32_t y = x + 1; y < n; y++)
				if (m[x] & m[y])
					assert_int_not_equal(r.frame_of[x],
							     r.frame_of[y]);
		nliquid += can;
		nnone += !can;
		ibf_liquid_result_free(&r);
		ibf_liquid_traffic_destroy(t);
	}
	print_message("# %u traffics with a liquid schedule, %u proven "
		      "without\n", nliquid, nnone);
	assert_true(nnone >= 50 && nliquid >= 50);
}

static void random_case(const char *spec, const char *engine, uint64_t seed,
			uint32_t nflows, bool search_first)
{
	ibf_fabric_t *f = NULL;
	ibf_routing_t *ro;
	ibf_traffic_t tr;
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 2,
				.search_first = search_first };
	ibf_err_t err;
	struct pair *p;
	uint32_t n = 0, ne;
	uint64_t seed0 = seed;

	if (ibf_gen(spec, NULL, &f, &err) != IBF_OK)
		fail_msg("gen %s: %s", spec, err.msg);
	ro = route(f, engine);
	ne = f->nendpoints;
	tr.n = nflows;
	tr.flows = malloc(nflows * sizeof(*tr.flows));
	for (uint32_t i = 0; i < nflows; i++) {
		uint32_t a = (uint32_t)(rng(&seed) % ne), b;

		do
			b = (uint32_t)(rng(&seed) % ne);
		while (b == a);
		tr.flows[i] = (ibf_flow_t){ f->endpoints[a], f->endpoints[b],
					    1 + (uint32_t)(rng(&seed) % 3) };
		n += tr.flows[i].count;
	}
	p = malloc(n * sizeof(*p));
	n = 0;
	for (uint32_t i = 0; i < nflows; i++)
		for (uint32_t c = 0; c < tr.flows[i].count; c++)
			p[n++] = (struct pair){ tr.flows[i].src,
						tr.flows[i].dst };
	assert_int_equal(ibf_liquid_traffic_from_flows(ro->lfts, &tr, &t,
						       &err), IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	judge(ro->lfts, p, n, t, &r);
	print_message("# %s %s seed %llu: %u transfers, duration %u, %u "
		      "frames (%s), round robin %u\n", spec, engine,
		      (unsigned long long)seed0, n, r.duration, r.nframes,
		      ibf_liquid_method_str(r.method), r.rr_frames);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
	free(p);
	free(tr.flows);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_random_fat_trees(void **state)
{
	(void)state;
	for (uint64_t s = 1; s <= 4; s++) {
		random_case("kary:2,3", "minhop", s, 20, true);
		random_case("xgft:2:4,4:1,4", "dmodk", s * 7, 60, true);
		random_case("kary:4,2", "minhop", s * 13, 80, s & 1);
	}
}

static void test_random_direct(void **state)
{
	(void)state;
	for (uint64_t s = 1; s <= 3; s++) {
		random_case("slimfly:5", "minhop", s, 150, true);
		random_case("torus:3,3,2", "minhop", s * 5, 60, true);
	}
}

/* All-to-all where the search finds a liquid schedule: every frame judged
 * by the walker. */
static void test_alltoall_exact(void **state)
{
	static const char *const specs[][2] = {
		{ "kary:4,2", "minhop" }, { "torus:3,3,3", "minhop" },
		{ "xgft:2:4,4:1,4", "dmodk" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ibf_fabric_t *f = NULL;
		ibf_routing_t *ro;
		ibf_hostlist_t h;
		ibf_liquid_traffic_t *t;
		ibf_liquid_result_t r;
		ibf_liquid_opts_t o = { .time_limit = 5,
					.search_first = true };
		ibf_err_t err;
		struct pair *p;
		uint32_t n;

		assert_int_equal(ibf_gen(specs[i][0], NULL, &f, &err), IBF_OK);
		ro = route(f, specs[i][1]);
		h = all_hosts(f);
		p = alltoall_pairs(&h, &n);
		assert_int_equal(ibf_liquid_traffic_alltoall(ro->lfts, &h, &t,
							     &err), IBF_OK);
		assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
		judge(ro->lfts, p, n, t, &r);
		assert_true(r.liquid);
		assert_int_equal(r.method, IBF_LIQUID_SEARCH);
		ibf_liquid_result_free(&r);
		ibf_liquid_traffic_destroy(t);
		free(p);
		ibf_hostlist_free(&h);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
}

/* A tiny time limit on an instance the search cannot finish (all-to-all
 * on kary:4,3 under dmodk: the host links are the bottlenecks): the call
 * still returns a valid schedule.  (How close to the limit it returns is
 * a contract checked by tests/integration/liquid_limit.sh, not here.) */
static void test_time_limit(void **state)
{
	ibf_fabric_t *f = NULL;
	ibf_routing_t *ro;
	ibf_hostlist_t h;
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 0.2, .search_first = true };
	ibf_err_t err;
	struct pair *p;
	uint32_t n;

	(void)state;
	assert_int_equal(ibf_gen("kary:4,3", NULL, &f, &err), IBF_OK);
	ro = route(f, "dmodk");
	h = all_hosts(f);
	p = alltoall_pairs(&h, &n);
	assert_int_equal(ibf_liquid_traffic_alltoall(ro->lfts, &h, &t, &err),
			 IBF_OK);
	for (int lim = 0; lim < 3; lim++) {
		o.time_limit = lim == 0 ? 1e-6 : lim == 1 ? 0.01 : 0.2;
		assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
		print_message("# time limit %g s: %.3f s, %u frames, liquid %d, "
			      "timed out %d\n", o.time_limit, r.seconds,
			      r.nframes, r.liquid, r.timed_out);
		judge(ro->lfts, p, n, t, &r);
		ibf_liquid_result_free(&r);
	}
	ibf_liquid_traffic_destroy(t);
	free(p);
	ibf_hostlist_free(&h);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* ---- all-to-all plans ---------------------------------------------------- */

/* Judge a plan of ranks[0..n-1] with the walker: every transfer i -> j in
 * one frame < nframes, no egress port twice in a frame, the duration
 * recomputed, liquid iff frames == duration, and the per-rank form equal
 * to the frames.  Returns the duration. */
static uint32_t judge_plan(const ibf_lfts_t *l, const ibf_port_id_t *ranks,
			   uint32_t n, const ibf_liquid_plan_t *pl)
{
	const ibf_fabric_t *f = l->fabric;
	const ibf_liquid_plan_info_t *in = ibf_liquid_plan_info(pl);
	uint32_t nf = in->nframes, dur = 0;
	uint32_t *load = calloc(f->nports, sizeof(uint32_t));
	uint64_t *used = calloc((size_t)f->nports, sizeof(uint64_t));
	uint32_t *send = malloc((nf + 1) * sizeof(uint32_t));
	uint32_t *recv = malloc((nf + 1) * sizeof(uint32_t));
	uint64_t *per = calloc(nf + 1, sizeof(uint64_t));
	ibf_port_id_t hops[64];

	assert_non_null(load);
	assert_non_null(send);
	assert_non_null(per);
	assert_int_equal(in->nranks, n);
	assert_int_equal(in->ntransfers, (uint64_t)n * (n - 1));
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t fr;
			unsigned hc;

			if (i == j)
				continue;
			fr = ibf_liquid_plan_frame(pl, i, j);
			assert_true(fr < nf);
			per[fr]++;
			hc = walk(l, ranks[i], ranks[j], hops, 64);
			for (unsigned q = 0; q < hc; q++)
				if (++load[hops[q]] > dur)
					dur = load[hops[q]];
		}
	/* Cut short before every route was traced, the plan knows a lower
	 * bound only. */
	if (in->timed_out)
		assert_true(in->duration <= dur);
	else
		assert_int_equal(in->duration, dur);
	assert_true(nf >= dur);
	assert_int_equal(in->liquid, nf == dur);
	for (uint32_t fr = 0; fr < nf; fr++)
		assert_true(per[fr] > 0);
	/* Ports per frame: transfers grouped by frame. */
	{
		uint64_t *off, k = 0;
		uint32_t *pairs;
		ibf_err_t err;

		assert_int_equal(ibf_liquid_plan_frames(pl, &off, &pairs, &err),
				 IBF_OK);
		for (uint32_t fr = 0; fr < nf; fr++) {
			assert_int_equal(off[fr + 1] - off[fr], per[fr]);
			for (; k < off[fr + 1]; k++) {
				uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
				unsigned hc = walk(l, ranks[i], ranks[j], hops,
						   64);

				assert_int_equal(ibf_liquid_plan_frame(pl, i, j),
						 fr);
				for (unsigned q = 0; q < hc; q++) {
					if (used[hops[q]] == fr + 1ull)
						fail_msg("frame %u uses %s "
							 "port %u twice", fr,
							 ibf_node_desc(f,
							 f->ports[hops[q]].node),
							 f->ports[hops[q]].num);
					used[hops[q]] = fr + 1ull;
				}
			}
		}
		free(off);
		free(pairs);
	}
	/* The compact form. */
	for (uint32_t r = 0; r < n; r++) {
		ibf_liquid_plan_rank(pl, r, send, recv);
		for (uint32_t fr = 0; fr < nf; fr++) {
			if (send[fr] != IBF_LIQUID_IDLE)
				assert_int_equal(ibf_liquid_plan_frame(
					pl, r, send[fr]), fr);
			if (recv[fr] != IBF_LIQUID_IDLE)
				assert_int_equal(ibf_liquid_plan_frame(
					pl, recv[fr], r), fr);
		}
		for (uint32_t q = 0; q < n; q++)
			if (q != r) {
				assert_int_equal(send[ibf_liquid_plan_frame(
					pl, r, q)], q);
				assert_int_equal(recv[ibf_liquid_plan_frame(
					pl, q, r)], q);
			}
	}
	free(load);
	free(used);
	free(send);
	free(recv);
	free(per);
	return dur;
}

/* Ranks: the first n endpoints of a seeded shuffle (n = 0: all, in order). */
static ibf_port_id_t *pick_ranks(const ibf_fabric_t *f, uint32_t *n,
				 uint64_t seed)
{
	ibf_port_id_t *r = malloc(f->nendpoints * sizeof(*r));

	assert_non_null(r);
	memcpy(r, f->endpoints, f->nendpoints * sizeof(*r));
	if (!*n) {
		*n = f->nendpoints;
		return r;
	}
	for (uint32_t j = 0; j < *n; j++) {
		uint32_t q = j + (uint32_t)(rng(&seed) % (f->nendpoints - j));
		ibf_port_id_t v = r[j];

		r[j] = r[q];
		r[q] = v;
	}
	return r;
}

/* Small plans take the exact pipeline: the very schedule that
 * ibf_liquid_schedule() gives for ibf_liquid_traffic_alltoall(). */
static void test_plan_small_equals_schedule(void **state)
{
	static const char *const specs[][2] = {
		{ "kary:4,2", "minhop" }, { "xgft:2:4,4:1,4", "dmodk" },
		{ "torus:3,3,2", "minhop" }, { "slimfly:5", "minhop" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(specs) / sizeof(specs[0]); c++) {
		ibf_fabric_t *f = NULL;
		ibf_routing_t *ro;
		ibf_hostlist_t h;
		ibf_liquid_traffic_t *t;
		ibf_liquid_result_t r;
		ibf_liquid_plan_t *pl;
		ibf_liquid_opts_t o = { .time_limit = 60 };
		ibf_err_t err;
		uint32_t n = c == 3 ? 60 : 0, x = 0;

		assert_int_equal(ibf_gen(specs[c][0], NULL, &f, &err), IBF_OK);
		ro = route(f, specs[c][1]);
		h.ports = pick_ranks(f, &n, 77 + c);
		h.n = n;
		assert_int_equal(ibf_liquid_traffic_alltoall(ro->lfts, &h, &t,
							     &err), IBF_OK);
		assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, h.ports, n,
							  &o, &pl, &err),
				 IBF_OK);
		assert_int_equal(ibf_liquid_plan_info(pl)->nframes, r.nframes);
		assert_int_equal(ibf_liquid_plan_info(pl)->rr_frames,
				 r.rr_frames);
		assert_int_equal(ibf_liquid_plan_info(pl)->liquid, r.liquid);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < n; j++)
				if (i != j)
					assert_int_equal(ibf_liquid_plan_frame(
						pl, i, j), r.frame_of[x++]);
		judge_plan(ro->lfts, h.ports, n, pl);
		print_message("# plan %s %u ranks: %u frames, duration %u (%s)"
			      "\n", specs[c][0], n, r.nframes, r.duration,
			      ibf_liquid_method_str(r.method));
		ibf_liquid_plan_destroy(pl);
		ibf_liquid_result_free(&r);
		ibf_liquid_traffic_destroy(t);
		free(h.ports);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
}

/* Plans too large for the search (first fit), ranks in fabric order and
 * shuffled: judged by the walker; the same inputs give the same plan. */
static void test_plan_large(void **state)
{
	static const struct {
		const char *spec, *engine;
		uint32_t n;
	} cases[] = {
		{ "xgft:2:16,16:1,8", "dmodk", 0 },      /* 256, 2:1 leaves */
		{ "xgft:2:16,16:1,8", "dmodk", 200 },
		{ "slimfly:5", "minhop", 0 },
		{ "dragonfly:4,2,2", "minhop", 0 },      /* 72 hosts: small */
		{ "kary:4,3", "dmodk", 0 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		ibf_fabric_t *f = NULL;
		ibf_routing_t *ro;
		ibf_liquid_plan_t *pl, *p2;
		ibf_liquid_opts_t o = { .time_limit = 60 };
		ibf_err_t err;
		uint32_t n = cases[c].n, dur;
		ibf_port_id_t *ranks;
		const ibf_liquid_plan_info_t *in;

		assert_int_equal(ibf_gen(cases[c].spec, NULL, &f, &err),
				 IBF_OK);
		ro = route(f, cases[c].engine);
		ranks = pick_ranks(f, &n, 1234 + c);
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n,
							  &o, &pl, &err),
				 IBF_OK);
		dur = judge_plan(ro->lfts, ranks, n, pl);
		in = ibf_liquid_plan_info(pl);
		assert_false(in->timed_out);
		print_message("# plan %s %u ranks: %u frames, duration %u, "
			      "round robin %u (%s)\n", cases[c].spec, n,
			      in->nframes, dur, in->rr_frames,
			      ibf_liquid_method_str(in->method));
		assert_true(in->nframes <= in->rr_frames);
		/* Determinism: the same plan again. */
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n,
							  &o, &p2, &err),
				 IBF_OK);
		assert_int_equal(ibf_liquid_plan_info(p2)->fingerprint,
				 in->fingerprint);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < n; j++)
				if (i != j)
					assert_int_equal(
						ibf_liquid_plan_frame(pl, i, j),
						ibf_liquid_plan_frame(p2, i, j));
		ibf_liquid_plan_destroy(p2);
		ibf_liquid_plan_destroy(pl);
		free(ranks);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
}

/* Limits: a time limit too short for anything but the baseline still
 * gives a valid plan; a work limit stops at the same point every time
 * (the same plan twice). */
static void test_plan_limits(void **state)
{
	ibf_fabric_t *f = NULL;
	ibf_routing_t *ro;
	ibf_liquid_plan_t *pl, *p2;
	ibf_liquid_opts_t o = { .time_limit = 1e-6 };
	ibf_err_t err;
	uint32_t n = 0;
	ibf_port_id_t *ranks;

	(void)state;
	assert_int_equal(ibf_gen("slimfly:5", NULL, &f, &err), IBF_OK);
	ro = route(f, "minhop");
	ranks = pick_ranks(f, &n, 5);
	assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n, &o, &pl,
						  &err), IBF_OK);
	judge_plan(ro->lfts, ranks, n, pl);
	assert_true(ibf_liquid_plan_info(pl)->timed_out);
	assert_false(ibf_liquid_plan_info(pl)->liquid &&
		     ibf_liquid_plan_info(pl)->nframes !=
		     ibf_liquid_plan_info(pl)->duration);
	ibf_liquid_plan_destroy(pl);
	for (uint64_t w = 1000; w <= 4000000; w *= 40) {
		o = (ibf_liquid_opts_t){ .time_limit = 600, .work_limit = w };
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n,
							  &o, &pl, &err),
				 IBF_OK);
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n,
							  &o, &p2, &err),
				 IBF_OK);
		judge_plan(ro->lfts, ranks, n, pl);
		assert_int_equal(ibf_liquid_plan_info(pl)->fingerprint,
				 ibf_liquid_plan_info(p2)->fingerprint);
		print_message("# work limit %llu: %u frames (%s)\n",
			      (unsigned long long)w,
			      ibf_liquid_plan_info(pl)->nframes,
			      ibf_liquid_method_str(
				      ibf_liquid_plan_info(pl)->method));
		ibf_liquid_plan_destroy(pl);
		ibf_liquid_plan_destroy(p2);
	}
	free(ranks);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* Processes that only spin, so that the plan next gets a fraction of a
 * core and its wall clock runs several times faster against its work. */
static void spinners(pid_t *pid, int n)
{
	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0)
			for (volatile uint64_t x = 0;; x++)
				;
	}
}

static void spinners_stop(const pid_t *pid, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
}

/* The search's work budget rules, not the clock: a traffic whose search
 * runs to its budget without finding a liquid schedule (the 64 hosts of
 * a 4 x 4 x 4 torus: the prefix completed greedily, 69 frames against
 * 66) planned alone with 10 minutes of wall clock, again beside three
 * spinning processes, and again with a wall-clock ceiling of a second:
 * the same schedule, categories and work every time, the work at or
 * past the budget, and the plan valid by the test's own walk. */
static void test_plan_budget_not_clock(void **state)
{
	const uint64_t budget = 20000000;   /* ~20-40 ms */
	ibf_fabric_t *f = NULL;
	ibf_routing_t *ro;
	ibf_liquid_plan_t *pl[3];
	const ibf_liquid_plan_info_t *in[3];
	double ceiling[3] = { 600, 600, 1 };
	ibf_err_t err;
	uint32_t n = 0, dur;
	ibf_port_id_t *ranks;
	pid_t pid[3];

	(void)state;
	assert_int_equal(ibf_gen("torus:4,4,4", NULL, &f, &err), IBF_OK);
	ro = route(f, "minhop");
	ranks = pick_ranks(f, &n, 0);
	for (int k = 0; k < 3; k++) {
		ibf_liquid_opts_t o = { .time_limit = ceiling[k],
					.search_work = budget };

		if (k)
			spinners(pid, 3);
		assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, ranks, n,
							  &o, &pl[k], &err),
				 IBF_OK);
		if (k)
			spinners_stop(pid, 3);
		in[k] = ibf_liquid_plan_info(pl[k]);
		print_message("# budget %llu, ceiling %.0f s%s: %u frames "
			      "(%s), %llu categories, %llu units, %.3f s\n",
			      (unsigned long long)budget, ceiling[k],
			      k ? ", 3 spinners" : "", in[k]->nframes,
			      ibf_liquid_method_str(in[k]->method),
			      (unsigned long long)in[k]->categories,
			      (unsigned long long)in[k]->work,
			      in[k]->seconds);
	}
	dur = judge_plan(ro->lfts, ranks, n, pl[0]);
	assert_int_equal(in[0]->duration, dur);
	assert_true(in[0]->nframes > dur);           /* not liquid */
	assert_true(in[0]->nframes <= in[0]->rr_frames);
	assert_true(in[0]->timed_out);               /* the budget ran out */
	assert_true(in[0]->work >= budget);
	assert_true(in[0]->categories > 0);
	for (int k = 1; k < 3; k++) {
		assert_int_equal(in[k]->fingerprint, in[0]->fingerprint);
		assert_int_equal(in[k]->nframes, in[0]->nframes);
		assert_int_equal(in[k]->method, in[0]->method);
		assert_int_equal(in[k]->search_depth, in[0]->search_depth);
		assert_int_equal(in[k]->categories, in[0]->categories);
		assert_int_equal(in[k]->work, in[0]->work);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < n; j++)
				if (i != j)
					assert_int_equal(
						ibf_liquid_plan_frame(pl[k], i,
								      j),
						ibf_liquid_plan_frame(pl[0], i,
								      j));
	}
	for (int k = 0; k < 3; k++)
		ibf_liquid_plan_destroy(pl[k]);
	free(ranks);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_plan_bad_ranks(void **state)
{
	ibf_fabric_t *f = NULL;
	ibf_routing_t *ro;
	ibf_liquid_plan_t *pl = (void *)1;
	ibf_err_t err;
	ibf_port_id_t r[3];

	(void)state;
	assert_int_equal(ibf_gen("kary:2,2", NULL, &f, &err), IBF_OK);
	ro = route(f, "minhop");
	r[0] = f->endpoints[0];
	r[1] = f->endpoints[1];
	r[2] = f->endpoints[0];
	assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, r, 3, NULL, &pl,
						  &err), IBF_ERR_INVALID);
	assert_null(pl);
	assert_non_null(strstr(err.msg, "ranks 0 and 2"));
	r[2] = ibf_node_port_id(f, f->switches[0], 1);
	assert_int_equal(ibf_liquid_plan_alltoall(ro->lfts, r, 3, NULL, &pl,
						  &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "rank 2"));
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_bad_sets(void **state)
{
	uint32_t off[] = { 0, 0 }, links[] = { 0 }, s[] = { 0 }, d[] = { 9 };
	uint32_t off2[] = { 0, 1 };
	ibf_liquid_traffic_t *t = (void *)1;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_from_sets(1, off, links, 0, NULL,
						      NULL, &t, &err),
			 IBF_ERR_INVALID);
	assert_null(t);
	assert_int_equal(ibf_liquid_traffic_from_sets(1, off2, links, 2, s, d,
						      &t, &err),
			 IBF_ERR_INVALID);
}

/* ---- predecessor lists ------------------------------------------------- */

static bool shares_link(const ibf_liquid_traffic_t *t, uint32_t a, uint32_t b)
{
	for (uint32_t i = t->link_off[a]; i < t->link_off[a + 1]; i++)
		for (uint32_t j = t->link_off[b]; j < t->link_off[b + 1]; j++)
			if (t->links[i] == t->links[j])
				return true;
	return false;
}

/* Brute force: every earlier user of a shared link must be reachable from
 * t through the pred lists (so it has arrived before t starts); every
 * listed pred is earlier and shares a link; succ is the exact inverse. */
static void judge_deps(const ibf_liquid_traffic_t *t, const uint32_t *frame,
		       const ibf_liquid_deps_t *d)
{
	uint32_t n = t->ntransfers;
	uint8_t *reach = calloc((size_t)n * n + 1, 1);
	uint32_t *order = malloc((n + 1) * sizeof(*order)), m = 0;

	assert_non_null(reach);
	assert_non_null(order);
	/* frames ascending: a pred's reach set is complete before use */
	for (uint32_t f = 0; m < n; f++)
		for (uint32_t i = 0; i < n; i++)
			if (frame[i] == f)
				order[m++] = i;
	for (uint32_t x = 0; x < n; x++) {
		uint32_t tr = order[x];

		for (uint32_t k = d->pred_off[tr]; k < d->pred_off[tr + 1];
		     k++) {
			uint32_t p = d->pred[k];

			assert_true(frame[p] < frame[tr]);
			assert_true(shares_link(t, p, tr));
			if (k > d->pred_off[tr])
				assert_true(d->pred[k - 1] < p);
			reach[(size_t)tr * n + p] = 1;
			for (uint32_t q = 0; q < n; q++)
				if (reach[(size_t)p * n + q])
					reach[(size_t)tr * n + q] = 1;
		}
	}
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++)
			if (frame[a] < frame[b] && shares_link(t, a, b) &&
			    !reach[(size_t)b * n + a])
				fail_msg("transfer %u (frame %u) may start "
					 "before %u (frame %u) has arrived",
					 b, frame[b], a, frame[a]);
	for (uint32_t a = 0; a < n; a++) {
		uint32_t cnt = 0;

		for (uint32_t b = 0; b < n; b++)
			for (uint32_t k = d->pred_off[b];
			     k < d->pred_off[b + 1]; k++)
				if (d->pred[k] == a) {
					assert_true(d->succ_off[a] + cnt <
						    d->succ_off[a + 1]);
					assert_int_equal(
						d->succ[d->succ_off[a] + cnt],
						b);
					cnt++;
				}
		assert_int_equal(d->succ_off[a + 1] - d->succ_off[a], cnt);
	}
	/* cross-run: the first user of a link waits for its last user */
	for (uint32_t a = 0; a < n; a++) {
		uint32_t want = 0;

		for (uint32_t i = t->link_off[a]; i < t->link_off[a + 1]; i++) {
			uint32_t l = t->links[i], last = a, lf = frame[a];
			bool first = true;

			for (uint32_t b = 0; b < n; b++) {
				for (uint32_t j = t->link_off[b];
				     j < t->link_off[b + 1]; j++) {
					if (t->links[j] != l)
						continue;
					if (frame[b] < frame[a])
						first = false;
					if (frame[b] > lf) {
						lf = frame[b];
						last = b;
					}
				}
			}
			if (!first)
				continue;
			bool found = false;
			for (uint32_t k = d->xpred_off[a];
			     k < d->xpred_off[a + 1]; k++)
				found = found || d->xpred[k] == last;
			if (!found)
				fail_msg("transfer %u opens a link whose last "
					 "user %u is not its cross-run pred",
					 a, last);
			want++;
		}
		assert_true(d->xpred_off[a + 1] - d->xpred_off[a] <= want);
		for (uint32_t k = d->xpred_off[a]; k < d->xpred_off[a + 1];
		     k++) {
			uint32_t p = d->xpred[k], c = 0;

			assert_true(p == a || shares_link(t, p, a));
			for (uint32_t j = d->xsucc_off[p];
			     j < d->xsucc_off[p + 1]; j++)
				c += d->xsucc[j] == a;
			assert_int_equal(c, 1);
		}
	}
	free(reach);
	free(order);
}

static void test_deps_hand(void **state)
{
	/* a (frame 0) {1,2}; b (frame 1) {2,3}; c (frame 2) {1,3}:
	 * c's links were last used by a and b, and a is b's predecessor,
	 * so c waits for b alone. */
	uint32_t off[] = { 0, 2, 4, 6 }, links[] = { 1, 2, 2, 3, 1, 3 };
	uint32_t frame[] = { 0, 1, 2 };
	ibf_liquid_traffic_t *t;
	ibf_liquid_deps_t d;
	ibf_err_t e;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_from_sets(3, off, links, 3, NULL,
						      NULL, &t, &e), IBF_OK);
	assert_int_equal(ibf_liquid_deps_build(t, frame, 3, &d, &e), IBF_OK);
	assert_int_equal(d.pred_off[1] - d.pred_off[0], 0);
	assert_int_equal(d.pred_off[2] - d.pred_off[1], 1);
	assert_int_equal(d.pred[d.pred_off[1]], 0);
	assert_int_equal(d.pred_off[3] - d.pred_off[2], 1);
	assert_int_equal(d.pred[d.pred_off[2]], 1);
	assert_int_equal(d.succ_off[1] - d.succ_off[0], 1);
	assert_int_equal(d.succ[d.succ_off[0]], 1);
	/* next run: a opens links 1 and 2, whose last users are c and b;
	 * b opens 3 (last: c); c opens nothing */
	assert_int_equal(d.xpred_off[1] - d.xpred_off[0], 2);
	assert_int_equal(d.xpred[d.xpred_off[0]], 1);
	assert_int_equal(d.xpred[d.xpred_off[0] + 1], 2);
	assert_int_equal(d.xpred_off[2] - d.xpred_off[1], 1);
	assert_int_equal(d.xpred[d.xpred_off[1]], 2);
	assert_int_equal(d.xpred_off[3] - d.xpred_off[2], 0);
	judge_deps(t, frame, &d);
	ibf_liquid_deps_free(&d);
	/* a link twice in one frame is no schedule */
	frame[2] = 1;
	assert_int_equal(ibf_liquid_deps_build(t, frame, 3, &d, &e),
			 IBF_ERR_INVALID);
	assert_non_null(strstr(e.msg, "share a link"));
	ibf_liquid_traffic_destroy(t);
}

static void test_deps_random(void **state)
{
	uint64_t seed = 0x5eedd295u;

	(void)state;
	for (int round = 0; round < 60; round++) {
		uint32_t n = 5 + (uint32_t)(tu_rand(&seed) % 60);
		uint32_t nl = 3 + (uint32_t)(tu_rand(&seed) % 12);
		uint32_t *off = malloc((n + 1) * sizeof(*off));
		uint32_t *links = malloc((size_t)n * 4 * sizeof(*links));
		ibf_liquid_traffic_t *t;
		ibf_liquid_result_t r;
		ibf_liquid_deps_t d;
		ibf_liquid_opts_t o = { .time_limit = 0.2 };
		ibf_err_t e;
		uint32_t len = 0;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = 1 + (uint32_t)(tu_rand(&seed) % 4);

			off[i] = len;
			for (uint32_t j = 0; j < k; j++)
				links[len++] = (uint32_t)
					(tu_rand(&seed) % nl);
		}
		off[n] = len;
		assert_int_equal(ibf_liquid_traffic_from_sets(n, off, links,
				 n + 1, NULL, NULL, &t, &e), IBF_OK);
		memset(&r, 0, sizeof(r));
		assert_int_equal(ibf_liquid_schedule(t, &o, &r, &e), IBF_OK);
		assert_int_equal(ibf_liquid_deps_build(t, r.frame_of,
						       r.nframes, &d, &e),
				 IBF_OK);
		judge_deps(t, r.frame_of, &d);
		ibf_liquid_deps_free(&d);
		ibf_liquid_result_free(&r);
		ibf_liquid_traffic_destroy(t);
		free(off);
		free(links);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paper_example),
		cmocka_unit_test(test_no_team),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_search_exact),
		cmocka_unit_test(test_two_switches),
		cmocka_unit_test(test_round_robin_hand),
		cmocka_unit_test(test_random_fat_trees),
		cmocka_unit_test(test_random_direct),
		cmocka_unit_test(test_alltoall_exact),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_plan_small_equals_schedule),
		cmocka_unit_test(test_plan_large),
		cmocka_unit_test(test_plan_limits),
		cmocka_unit_test(test_plan_budget_not_clock),
		cmocka_unit_test(test_plan_bad_ranks),
		cmocka_unit_test(test_bad_sets),
		cmocka_unit_test(test_deps_hand),
		cmocka_unit_test(test_deps_random),
	};
	return cmocka_run_group_tests_name("liquid", tests, NULL, NULL);
}
