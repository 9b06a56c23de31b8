/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The Swiss-T1 of E. Gabrielyan, "Liquid Schedule Construction Algorithm:
 * an Efficient Method for Coloring a Congestion Graph" (2006), section 8.1:
 * `gen swisst1` and the `swisst1` routing against Figures 14-15 (the
 * routing table transcribed below as printed, arrows and all), the paper's
 * 362 allocation classes counted by the test's own switch-level loads, and
 * every class scheduled: resolved (liquid, or no liquid schedule proven by
 * the exhausted search), every frame checked by the test's own LFT walker.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/traffic.h>
#include <ibflow/liquid.h>
#include <ibflow/route.h>

#include "../swisst1_fig15.h"

#define NSW T1_NSW
#define NPS 4    /* nodes per switch, 2 processors each */

static ibf_fabric_t *swisst1(void)
{
	ibf_fabric_t *f = NULL;
	ibf_err_t err;

	if (ibf_gen("swisst1", NULL, &f, &err) != IBF_OK)
		fail_msg("gen swisst1: %s", err.msg);
	return f;
}

/* 1..8 from "t1-swK", 0 for anything else. */
static int sw_number(const ibf_fabric_t *f, ibf_node_id_t n)
{
	const char *d = ibf_node_desc(f, n);

	if (!ibf_node_is_switch(f, n) || strncmp(d, "t1-sw", 5) || !d[5] ||
	    d[6])
		return 0;
	return d[5] >= '1' && d[5] <= '8' ? d[5] - '0' : 0;
}

/* The switch (1..8) a CA port hangs off. */
static int host_switch(const ibf_fabric_t *f, ibf_port_id_t p)
{
	ibf_port_id_t q = f->ports[p].peer;

	assert_int_not_equal(q, IBF_NO_ID);
	return sw_number(f, f->ports[q].node);
}

/* Figure 14: 8 switches, 4 two-processor nodes on each (8 processor
 * links), every odd switch linked once to every even one (the K-ring the
 * routing table implies: 4 inter-switch links each, 16 in all). */
static void test_fabric(void **state)
{
	ibf_fabric_t *f = swisst1();
	int links[NSW + 1][NSW + 1] = { { 0 } }, hosts[NSW + 1] = { 0 };
	unsigned total = 0;

	(void)state;
	assert_int_equal(f->nswitches, NSW);
	assert_int_equal(f->nendpoints, NSW * NPS * 2);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];
		int a = sw_number(f, n);

		assert_true(a >= 1);
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t q = ibf_node_port(f, n, p)->peer;
			ibf_node_id_t m;

			if (q == IBF_NO_ID)
				continue;
			m = f->ports[q].node;
			if (ibf_node_is_switch(f, m))
				links[a][sw_number(f, m)]++;
			else
				hosts[a]++;
		}
	}
	for (int a = 1; a <= NSW; a++) {
		assert_int_equal(hosts[a], 2 * NPS);
		assert_int_equal(links[a][0], 0);
		for (int b = 1; b <= NSW; b++) {
			assert_int_equal(links[a][b], (a + b) % 2);
			assert_int_equal(links[a][b],
					 a != b && t1_via(a - 1, b - 1) < 0);
			total += (unsigned)links[a][b];
		}
	}
	assert_int_equal(total, 2 * 16);   /* each link seen from both ends */
	/* Processors 8r .. 8r+7 on t1-sw<r+1>: node q's transmitting one is
	 * 8r+2q, its receiving one 8r+2q+1. */
	for (uint32_t e = 0; e < f->nendpoints; e++)
		assert_int_equal(host_switch(f, f->endpoints[e]),
				 (int)(e / (2 * NPS)) + 1);
	ibf_fabric_destroy(f);
}

/* Walk the LFTs from CA port src to CA port dst (base LID): the switches
 * passed (1..8) into sw[], the egress ports into hops[]; returns the hop
 * count, asserting delivery. */
static unsigned walk(const ibf_lfts_t *l, ibf_port_id_t src,
		     ibf_port_id_t dst, ibf_port_id_t *hops, int *sw,
		     unsigned *nsw)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned lid = f->ports[dst].lid, n = 0;
	ibf_port_id_t p = src;

	*nsw = 0;
	for (;;) {
		ibf_port_id_t q;
		ibf_node_id_t node;
		uint8_t out;

		assert_true(n < 8);
		hops[n++] = p;
		q = f->ports[p].peer;
		assert_int_not_equal(q, IBF_NO_ID);
		node = f->ports[q].node;
		if (!ibf_node_is_switch(f, node)) {
			assert_int_equal(q, dst);
			return n;
		}
		sw[(*nsw)++] = sw_number(f, node);
		out = ibf_lfts_get(l, f->switch_index[node], lid);
		assert_true(out >= 1 && out <= f->nodes[node].nports);
		p = ibf_node_port_id(f, node, out);
	}
}

/* Every processor to every processor: the switches passed are the source
 * switch, Figure 15's intermediate if the table names one, and the
 * destination switch ("at most one intermediate switch"). */
static void test_routes(void **state)
{
	ibf_fabric_t *f = swisst1(), *g = NULL;
	ibf_routing_t *r = NULL;
	ibf_port_id_t hops[8];
	ibf_err_t err;
	int sw[8];
	unsigned nsw;

	(void)state;
	assert_int_equal(ibf_route(f, "swisst1", NULL, &r, &err), IBF_OK);
	for (uint32_t a = 0; a < f->nendpoints; a++)
		for (uint32_t b = 0; b < f->nendpoints; b++) {
			ibf_port_id_t s = f->endpoints[a], d = f->endpoints[b];
			int i = host_switch(f, s), j = host_switch(f, d);
			int want[3] = { i, t1_via(i - 1, j - 1) + 1, j };
			unsigned nw = i == j ? 1 : want[1] ? 3 : 2;

			if (a == b)
				continue;
			if (nw == 2)
				want[1] = j;
			walk(r->lfts, s, d, hops, sw, &nsw);
			assert_int_equal(nsw, nw);
			for (unsigned k = 0; k < nw; k++)
				assert_int_equal(sw[k], want[k]);
		}
	ibf_routing_destroy(r);
	/* Another fabric is refused, naming the engine. */
	r = NULL;
	assert_int_equal(ibf_gen("torus:2,2,2", NULL, &g, &err), IBF_OK);
	assert_int_equal(ibf_route(g, "swisst1", NULL, &r, &err),
			 IBF_ERR_UNSUPPORTED);
	assert_null(r);
	assert_int_equal(strncmp(err.msg, "swisst1: ", 9), 0);
	ibf_fabric_destroy(g);
	ibf_fabric_destroy(f);
}

/* ---- the 362 classes ------------------------------------------------------ */

struct cls {
	unsigned n, dur;
	int a[NSW];
};

/* All 5^8 allocations, classed by (nodes, liquid throughput n^2 / d): the
 * first allocation of each class in enumeration order. */
static unsigned classes(struct cls *c, unsigned max)
{
	static unsigned short seen[NSW * NPS + 1][NSW * NPS * NSW * NPS + 1];
	unsigned nc = 0;
	int a[NSW];

	memset(seen, 0, sizeof(seen));
	for (unsigned code = 0; code < 390625; code++) {
		unsigned v = code, n = 0, d;

		for (int s = NSW - 1; s >= 0; s--) {
			a[s] = (int)(v % 5);
			v /= 5;
			n += (unsigned)a[s];
		}
		if (!n)
			continue;
		d = t1_duration(a, n);
		assert_true(d <= NSW * NPS * NSW * NPS);
		if (seen[n][d])
			continue;
		assert_true(nc < max);
		seen[n][d] = 1;
		c[nc].n = n;
		c[nc].dur = d;
		memcpy(c[nc].a, a, sizeof(a));
		nc++;
	}
	return nc;
}

/* Check the schedule of transfers pairs[2x] -> pairs[2x+1] with the
 * walker: frames partition the transfers, no egress port twice in a frame,
 * as many frames as the bound when liquid. */
static void judge(const ibf_lfts_t *l, const ibf_port_id_t *pairs,
		  uint32_t n, const ibf_liquid_traffic_t *t,
		  const ibf_liquid_result_t *r)
{
	const ibf_fabric_t *f = l->fabric;
	uint32_t *used = calloc(f->nports, sizeof(uint32_t));
	ibf_port_id_t hops[8];
	uint32_t total = 0;
	int sw[8];
	unsigned nsw;

	assert_non_null(used);
	assert_int_equal(r->ntransfers, n);
	for (uint32_t fr = 0; fr < r->nframes; fr++)
		for (uint32_t j = r->frame_off[fr]; j < r->frame_off[fr + 1];
		     j++) {
			uint32_t x = r->frame_tr[j];
			unsigned h;

			assert_true(x < n);
			assert_int_equal(r->frame_of[x], fr);
			assert_int_equal(t->hosts[t->src[x]], pairs[2 * x]);
			assert_int_equal(t->hosts[t->dst[x]],
					 pairs[2 * x + 1]);
			total++;
			h = walk(l, pairs[2 * x], pairs[2 * x + 1], hops, sw,
				 &nsw);
			for (unsigned i = 0; i < h; i++) {
				if (used[hops[i]] == fr + 1)
					fail_msg("frame %u uses %s port %u "
						 "twice", fr, ibf_node_desc(
						 f, f->ports[hops[i]].node),
						 f->ports[hops[i]].num);
				used[hops[i]] = fr + 1;
			}
		}
	assert_int_equal(total, n);
	assert_int_equal(r->liquid, r->nframes == r->duration);
	free(used);
}

/* One class: node q of switch s sends from its transmitting processor to
 * the receiving processor of every allocated node (its own included). */
static void schedule_class(const ibf_lfts_t *l, const struct cls *c,
			   unsigned *nliquid, unsigned *nnone)
{
	const ibf_fabric_t *f = l->fabric;
	ibf_port_id_t tx[NSW * NPS], rx[NSW * NPS];
	ibf_port_id_t pairs[2 * NSW * NPS * NSW * NPS];
	ibf_flow_t fl[NSW * NPS * NSW * NPS];
	ibf_traffic_t tr = { fl, 0 };
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = 60 };
	ibf_err_t err;
	unsigned k = 0;

	for (int s = 0; s < NSW; s++)
		for (int q = 0; q < c->a[s]; q++) {
			tx[k] = f->endpoints[s * 2 * NPS + 2 * q];
			rx[k++] = f->endpoints[s * 2 * NPS + 2 * q + 1];
		}
	for (unsigned i = 0; i < k; i++)
		for (unsigned j = 0; j < k; j++) {
			pairs[2 * tr.n] = tx[i];
			pairs[2 * tr.n + 1] = rx[j];
			fl[tr.n++] = (ibf_flow_t){ tx[i], rx[j], 1 };
		}
	assert_int_equal(ibf_liquid_traffic_from_flows(l, &tr, &t, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, &o, &r, &err), IBF_OK);
	assert_int_equal(r.duration, c->dur);
	judge(l, pairs, tr.n, t, &r);
	if (!r.liquid && !r.exhausted)
		fail_msg("allocation %d%d%d%d%d%d%d%d unresolved (%u frames, "
			 "bound %u)", c->a[0], c->a[1], c->a[2], c->a[3],
			 c->a[4], c->a[5], c->a[6], c->a[7], r.nframes,
			 r.duration);
	if (r.exhausted)
		assert_true(r.optimal_proven == (r.nframes == r.duration + 1));
	*nliquid += r.liquid;
	*nnone += r.exhausted;
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
}

/* The paper finds 362 classes; each is resolved. */
static void test_classes(void **state)
{
	static struct cls c[1024];
	ibf_fabric_t *f = swisst1();
	ibf_routing_t *r = NULL;
	ibf_err_t err;
	unsigned nc, nliquid = 0, nnone = 0;

	(void)state;
	nc = classes(c, 1024);
	assert_int_equal(nc, 362);
	assert_int_equal(ibf_route(f, "swisst1", NULL, &r, &err), IBF_OK);
	for (unsigned k = 0; k < nc; k++)
		schedule_class(r->lfts, &c[k], &nliquid, &nnone);
	print_message("# %u classes: %u liquid, %u proven without a liquid "
		      "schedule\n", nc, nliquid, nnone);
	assert_int_equal(nliquid + nnone, nc);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
