/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all in the packet simulator with several ranks per host: hand
 * cases (two hosts on one switch, one host alone, the bound scaling with
 * the ranks), block counts, and node-aware liquid judged against its own
 * plan: with releases at arrival, a host pair's block never starts on a
 * link before every block of an earlier frame's host pair on that link
 * has arrived (links from the test's own walk).
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

#include <ibflow/liquid_hosts.h>
#include <ibflow/sim.h>

#include "test_util.h"

#define LAT_S 100e-9     /* the default latency per hop */

static ibf_port_id_t *ranks_on(const ibf_fabric_t *f, uint32_t hosts,
			       uint32_t ppn)
{
	ibf_port_id_t *rp = malloc((size_t)hosts * ppn * sizeof(*rp));

	assert_non_null(rp);
	for (uint32_t r = 0; r < hosts * ppn; r++)
		rp[r] = f->endpoints[r / ppn];
	return rp;
}

/* Run one all-to-all; *bound (may be NULL) gets its liquid bound. */
static void run_a2a(const ibf_routing_t *ro, const ibf_port_id_t *rp,
		    uint32_t n, uint64_t bytes, ibf_sim_a2a_t alg, unsigned k,
		    ibf_sim_result_t *res, double *bound)
{
	ibf_sim_opts_t o;
	ibf_sim_t *s;
	ibf_err_t err;

	ibf_sim_opts_default(&o);
	assert_int_equal(ibf_sim_create(ro->lfts, &o, &s, &err), IBF_OK);
	if (ibf_sim_add_alltoall(s, rp, NULL, n, bytes, alg, k, NULL, NULL,
				 &err) != IBF_OK)
		fail_msg("%s: %s", ibf_sim_a2a_name(alg), err.msg);
	if (bound)
		assert_int_equal(ibf_sim_bound(s, bound, &err), IBF_OK);
	if (ibf_sim_run(s, res, &err) != IBF_OK)
		fail_msg("run: %s", err.msg);
	assert_false(res->deadlocked);
	assert_int_equal(res->undelivered, 0);
	ibf_sim_destroy(s);
}

static uint32_t network_blocks(const ibf_sim_result_t *res)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < res->nmsgs; i++)
		n += res->msg[i].kind == IBF_SIM_DATA &&
		     res->msg[i].src != res->msg[i].dst;
	return n;
}

/* Two hosts on one switch, 3 ranks each: each host link carries 9 blocks
 * each way and nothing else crosses, so liquid (one frame: both
 * directions) and linear end when the last of 9 blocks has crossed two
 * links: the bound plus two latencies (cut-through, as for one flow).
 * 18 blocks on the network, 12 between ranks of a host. */
static void test_two_hosts(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:4,1", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	ibf_port_id_t *rp = ranks_on(f, 2, 3);
	static const ibf_sim_a2a_t algs[] = { IBF_SIM_A2A_LIQUID,
					      IBF_SIM_A2A_LINEAR };
	ibf_sim_result_t res;
	double bound;

	(void)state;
	for (size_t a = 0; a < 2; a++) {
		run_a2a(ro, rp, 6, 64u << 10, algs[a], 0, &res, &bound);
		assert_int_equal(network_blocks(&res), 18);
		if (fabs(res.time_s - (bound + 2 * LAT_S)) > 1e-6 * bound)
			fail_msg("%s: %.9g s, expected %.9g",
				 ibf_sim_a2a_name(algs[a]), res.time_s,
				 bound + 2 * LAT_S);
		ibf_sim_result_free(&res);
	}
	free(rp);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* All ranks on one host: no block crosses the network, every algorithm
 * ends at time 0. */
static void test_one_host(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:4,1", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	ibf_port_id_t *rp = ranks_on(f, 1, 4);
	ibf_sim_result_t res;

	(void)state;
	for (int alg = IBF_SIM_A2A_LIQUID; alg <= IBF_SIM_A2A_BRUCK; alg++) {
		if (alg == IBF_SIM_A2A_LIQUID_BARRIER)
			continue;
		run_a2a(ro, rp, 4, 4096, (ibf_sim_a2a_t)alg, 1, &res, NULL);
		assert_int_equal(network_blocks(&res), 0);
		assert_true(res.time_s == 0);
		assert_int_equal(res.packets, 0);
		ibf_sim_result_free(&res);
	}
	free(rp);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* K ranks on each host: every link carries K^2 times the blocks of one
 * rank per host, so the bound is K^2 times as long; every algorithm but
 * bruck sends K^2 H (H - 1) blocks over the network, and none ends
 * before the bound. */
static void test_bound_scales(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,3", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	uint32_t H = f->nendpoints;
	ibf_sim_result_t res;
	double b1, b3;

	(void)state;
	for (int alg = IBF_SIM_A2A_LIQUID; alg <= IBF_SIM_A2A_BRUCK; alg++) {
		ibf_port_id_t *r1 = ranks_on(f, H, 1), *r3 = ranks_on(f, H, 3);

		if (alg == IBF_SIM_A2A_LIQUID_BARRIER) {
			free(r1);
			free(r3);
			continue;
		}
		run_a2a(ro, r1, H, 32768, (ibf_sim_a2a_t)alg, 1, &res, &b1);
		ibf_sim_result_free(&res);
		run_a2a(ro, r3, 3 * H, 32768, (ibf_sim_a2a_t)alg, 1, &res,
			&b3);
		if (alg != IBF_SIM_A2A_BRUCK) {
			assert_true(fabs(b3 - 9 * b1) <= 1e-9 * b3);
			assert_int_equal(network_blocks(&res), 9 * H * (H - 1));
			assert_true(res.time_s >= b3);
		}
		ibf_sim_result_free(&res);
		free(r1);
		free(r3);
	}
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* Node-aware liquid with releases at arrival (window 0), 2 ranks per
 * host and hosts of 1-3 ranks: no block starts on a link before the
 * blocks of every earlier frame's host pair on that link are in. */
static void judge_exclusive(const char *spec, const uint32_t *per,
			    uint32_t H)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	uint32_t n = 0, checked = 0;
	ibf_port_id_t *rp = malloc(64 * sizeof(*rp)), hops[2][32];
	ibf_liquid_hplan_t *p;
	const uint32_t *uof;
	uint32_t *unit_at = calloc(f->nports, sizeof(uint32_t));
	ibf_sim_result_t res;
	ibf_err_t err;

	for (uint32_t h = 0; h < H; h++)
		for (uint32_t c = 0; c < per[h]; c++)
			rp[n++] = f->endpoints[2 * h + 1];
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, n, NULL, &p,
						 &err), IBF_OK);
	uof = ibf_liquid_hplan_unit_of(p);
	for (uint32_t r = 0; r < n; r++)
		unit_at[rp[r]] = uof[r];
	run_a2a(ro, rp, n, 1u << 16, IBF_SIM_A2A_LIQUID, 0, &res, NULL);
	for (uint32_t a = 0; a < res.nmsgs; a++) {
		const ibf_sim_msg_result_t *x = &res.msg[a];
		unsigned nx, ny;
		uint32_t fx;

		if (x->kind != IBF_SIM_DATA || x->src == x->dst)
			continue;
		fx = ibf_liquid_hplan_frame(p, unit_at[x->src],
					    unit_at[x->dst]);
		nx = tu_walk(ro->lfts, x->src, x->dst, hops[0], 32);
		for (uint32_t b = 0; b < res.nmsgs; b++) {
			const ibf_sim_msg_result_t *y = &res.msg[b];
			bool shared = false;

			if (y->kind != IBF_SIM_DATA || y->src == y->dst ||
			    ibf_liquid_hplan_frame(p, unit_at[y->src],
						   unit_at[y->dst]) >= fx)
				continue;
			ny = tu_walk(ro->lfts, y->src, y->dst, hops[1], 32);
			for (unsigned i = 0; i < nx; i++)
				for (unsigned j = 0; j < ny; j++)
					shared |= hops[0][i] == hops[1][j];
			if (shared) {
				assert_true(x->first_s >= y->end_s);
				checked++;
			}
		}
	}
	assert_true(checked > 0);
	ibf_sim_result_free(&res);
	ibf_liquid_hplan_destroy(p);
	free(unit_at);
	free(rp);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_liquid_exclusive(void **state)
{
	static const uint32_t two[] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	static const uint32_t mixed[] = { 3, 1, 2, 1, 2, 3, 1, 1 };

	(void)state;
	judge_exclusive("xgft:2:4,4:1,2", two, 8);
	judge_exclusive("xgft:2:4,4:1,2", mixed, 8);
}

/* The release window lets a successor start before its predecessor's
 * last bytes are in; it never loses a block. */
static void test_liquid_window(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,3", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	uint32_t H = f->nendpoints;
	ibf_port_id_t *rp = ranks_on(f, H, 2);
	ibf_sim_result_t res;
	ibf_sim_a2a_t alg;
	unsigned k;
	ibf_err_t err;
	double bound;

	(void)state;
	assert_int_equal(ibf_sim_a2a_parse("liquid", &alg, &k, &err), IBF_OK);
	assert_int_equal(k, IBF_SIM_LIQUID_AUTO);
	assert_int_equal(ibf_sim_a2a_parse("liquid:4096", &alg, &k, &err),
			 IBF_OK);
	assert_int_equal(alg, IBF_SIM_A2A_LIQUID);
	assert_int_equal(k, 4096);
	assert_int_equal(ibf_sim_a2a_parse("liquid:x", &alg, &k, &err),
			 IBF_ERR_PARSE);
	run_a2a(ro, rp, 2 * H, 65536, IBF_SIM_A2A_LIQUID, IBF_SIM_LIQUID_AUTO,
		&res, &bound);
	assert_int_equal(network_blocks(&res), 4 * H * (H - 1));
	assert_true(res.time_s >= bound);
	ibf_sim_result_free(&res);
	free(rp);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_hosts),
		cmocka_unit_test(test_one_host),
		cmocka_unit_test(test_bound_scales),
		cmocka_unit_test(test_liquid_exclusive),
		cmocka_unit_test(test_liquid_window),
	};

	return cmocka_run_group_tests_name("sim_ppn", tests, NULL, NULL);
}
