/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Packet-level simulation: every expectation is derived by hand in the
 * test (packet times, fair shares, the head-of-line victim's rate) or
 * checked structurally (the reported credit loop is a cycle of links).
 *
 * Links are 4x QDR unless said: 4 x 10 Gb/s x 8/10 = 32 Gb/s of data; a
 * packet of P payload bytes takes (P + 26) x 8 / 32 ns on the wire; its
 * payload rate is 32 x P / (P + 26) Gb/s.
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

#include <ibflow/eval.h>
#include <ibflow/liquid.h>
#include <ibflow/route.h>
#include <ibflow/sim.h>
#include <ibflow/trace.h>

#include "test_util.h"

#define QDR4 32.0                       /* Gb/s of data */
#define MTU 2048u
#define HDR 26u                         /* LRH + BTH + ICRC + VCRC */
#define PAYLOAD4 (QDR4 * MTU / (MTU + HDR))

/* ---- fabrics ------------------------------------------------------------- */

/* One switch, n hosts "h0".. on ports 1..n, 4x QDR. */
static ibf_fabric_t *star(unsigned n)
{
	ibf_fabric_t *f;
	ibf_node_id_t sw, h;
	ibf_err_t err;
	char name[16];

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "sw", n,
					     &sw, &err), IBF_OK);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, name, 1,
						     &h, &err), IBF_OK);
		assert_int_equal(ibf_fabric_link(f, h, 1, sw, i + 1, 4,
						 IBF_SPEED_QDR, &err), IBF_OK);
	}
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	return f;
}

/* The head-of-line case: switch S1 with h1, h2; switch S2 with h3, h4,
 * h5; S1-S2 an 8x link (64 Gb/s), host links 4x (32 Gb/s). */
static ibf_fabric_t *hol_fabric(ibf_node_id_t *h)
{
	ibf_fabric_t *f;
	ibf_node_id_t s1, s2;
	ibf_err_t err;
	char name[8];

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "S1", 3,
					     &s1, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "S2", 4,
					     &s2, &err), IBF_OK);
	for (unsigned i = 1; i <= 5; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, name, 1,
						     &h[i], &err), IBF_OK);
		assert_int_equal(ibf_fabric_link(f, h[i], 1, i <= 2 ? s1 : s2,
						 i <= 2 ? i : i - 2, 4,
						 IBF_SPEED_QDR, &err), IBF_OK);
	}
	assert_int_equal(ibf_fabric_link(f, s1, 3, s2, 4, 8, IBF_SPEED_QDR,
					 &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	return f;
}

static ibf_port_id_t host(const ibf_fabric_t *f, unsigned i)
{
	return f->endpoints[i];
}

static ibf_sim_t *new_sim(const ibf_routing_t *r, const ibf_sim_opts_t *o)
{
	ibf_sim_opts_t d;
	ibf_sim_t *s;
	ibf_err_t err;

	ibf_sim_opts_default(&d);
	if (ibf_sim_create(r->lfts, o ? o : &d, &s, &err) != IBF_OK)
		fail_msg("sim create: %s", err.msg);
	return s;
}

static void add(ibf_sim_t *s, ibf_port_id_t a, ibf_port_id_t b,
		uint64_t bytes, uint32_t *id)
{
	ibf_err_t err;

	if (ibf_sim_add_msg(s, a, b, bytes, IBF_SIM_DATA, 0, id, &err) !=
	    IBF_OK)
		fail_msg("add: %s", err.msg);
}

static void run(ibf_sim_t *s, ibf_sim_result_t *res)
{
	ibf_err_t err;

	if (ibf_sim_run(s, res, &err) != IBF_OK)
		fail_msg("run: %s", err.msg);
	assert_false(res->deadlocked);
	assert_int_equal(res->undelivered, 0);
}

/* Release what a test made (any of them may be NULL). */
static void finish(ibf_sim_result_t *res, ibf_sim_t *s, ibf_routing_t *r,
		   ibf_fabric_t *f)
{
	ibf_sim_result_free(res);
	ibf_sim_destroy(s);
	if (r)
		ibf_routing_destroy(r);
	if (f)
		ibf_fabric_destroy(f);
}

static void assert_near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("%.9g is not within %.2g%% of %.9g", got, rel * 100,
			 want);
}

/* ---- one flow ------------------------------------------------------------ */

/* N packets pipelined over H equal links: the last packet leaves the HCA
 * at N x T and its tail needs one latency per link, the switches forwarding
 * each head as it arrives (cut-through): N x T + H x L. */
static void one_flow(const char *spec, unsigned hops)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	uint64_t bytes = 1000000;  /* 488 full packets and 576 bytes */
	double gbps = 4 * 25.78125 * 64 / 66; /* the generators' 4x EDR */
	double t_full = (MTU + HDR) * 8 / gbps * 1e-9;
	double t_last = (576 + HDR) * 8 / gbps * 1e-9;
	double want = 488 * t_full + t_last + hops * 100e-9;
	double naive = bytes * 8 / (gbps * 1e9) + hops * 100e-9;

	ibf_sim_opts_default(&o);
	s = new_sim(r, &o);
	add(s, host(f, 0), host(f, f->nendpoints - 1), bytes, NULL);
	run(s, &res);
	assert_near(res.time_s, want, 1e-6);
	/* the expected form: bytes / rate + path latency, within the headers */
	assert_true(res.time_s >= naive);
	assert_true(res.time_s <= naive + 489.0 * HDR * 8 / (gbps * 1e9));
	assert_int_equal(res.packets, 489);
	assert_int_equal(res.packet_hops, 489ull * hops);
	finish(&res, s, r, f);
}

/* Every algorithm's name parses back to it; "linear-sync" takes its K. */
static void test_a2a_names(void **state)
{
	ibf_sim_a2a_t a, got;
	unsigned k;
	ibf_err_t err;
	char spec[64];

	(void)state;
	for (a = IBF_SIM_A2A_LIQUID; a <= IBF_SIM_A2A_BRUCK; a++) {
		snprintf(spec, sizeof(spec), "%s%s", ibf_sim_a2a_name(a),
			 a == IBF_SIM_A2A_LINEAR_SYNC ? ":3" : "");
		assert_int_equal(ibf_sim_a2a_parse(spec, &got, &k, &err),
				 IBF_OK);
		assert_int_equal(got, a);
		assert_int_equal(k, a == IBF_SIM_A2A_LINEAR_SYNC ? 3 :
				    a == IBF_SIM_A2A_LIQUID ? IBF_SIM_LIQUID_AUTO : 0);
	}
	assert_string_equal(ibf_sim_a2a_name(IBF_SIM_A2A_LIQUID_BARRIER),
			    "liquid-barrier");
	assert_string_equal(ibf_sim_a2a_name((ibf_sim_a2a_t)99), "?");
}

static void test_one_flow(void **state)
{
	(void)state;
	one_flow("kary:2,1", 2);   /* host - switch - host */
	one_flow("kary:2,3", 6);   /* up three levels and down */
}

/* ---- sharing --------------------------------------------------------------*/

/* k senders into one HCA: the output arbitrates round robin, each gets
 * 1/k of the payload rate. */
static void test_incast(void **state)
{
	ibf_fabric_t *f = star(5);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	unsigned k = 4;

	(void)state;
	for (unsigned i = 1; i <= k; i++)
		add(s, host(f, i), host(f, 0), 4u << 20, NULL);
	run(s, &res);
	for (unsigned i = 0; i < k; i++)
		assert_near(res.msg[i].steady_gbps, PAYLOAD4 / k, 0.01);
	/* all four end together: 16 MiB through one 32 Gb/s link */
	assert_near(res.time_s, 4.0 * 2048 * (MTU + HDR) * 8 / 32e9, 0.01);
	finish(&res, s, r, f);
}

/* A permutation through one crossbar: nothing shared, all at full rate. */
static void test_crossbar_permutation(void **state)
{
	ibf_fabric_t *f = star(8);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	const unsigned perm[8] = { 3, 7, 0, 5, 1, 2, 4, 6 };

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		add(s, host(f, i), host(f, perm[i]), 2u << 20, NULL);
	run(s, &res);
	for (unsigned i = 0; i < 8; i++)
		assert_near(res.msg[i].gbps, PAYLOAD4, 0.005);
	finish(&res, s, r, f);
}

/* Random destinations, one flow per source, through one switch: no input
 * carries two flows, so nothing blocks, and the MMF rate of a flow is the
 * payload rate over its destination's in-degree.  The simulated rates
 * (while every flow still runs) agree with that, and with `ibflow eval`'s
 * MMF rates scaled from signalling to payload rate, within 2 %. */
static void test_random_matches_mmf(void **state)
{
	ibf_fabric_t *f = star(16);
	ibf_routing_t *r = tu_route(f, "minhop");
	const ibf_eval_routing_t er = { "minhop", r->lfts };
	const char *spec = "randn:1";
	ibf_eval_opts_t eo = { .keep_flows = true, .seed = 7 };
	ibf_sim_result_t res;
	ibf_eval_t *e;
	ibf_sim_t *s = new_sim(r, NULL);
	unsigned indeg[16] = { 0 };
	ibf_err_t err;

	(void)state;
	if (ibf_eval_run(f, &er, 1, &spec, 1, &eo, &e, &err) != IBF_OK)
		fail_msg("eval: %s", err.msg);
	assert_int_equal(e->result[0].nflow, 16);
	for (unsigned i = 0; i < 16; i++)
		indeg[f->endpoint_index[e->result[0].flow[i].dst]]++;
	for (unsigned i = 0; i < 16; i++)
		add(s, e->result[0].flow[i].src, e->result[0].flow[i].dst,
		    8u << 20, NULL);
	run(s, &res);
	for (unsigned i = 0; i < 16; i++) {
		const ibf_eval_flow_t *fl = &e->result[0].flow[i];
		double hand = PAYLOAD4 / indeg[f->endpoint_index[fl->dst]];

		/* eval counts 4x QDR as 40 Gb/s of signalling */
		assert_near(fl->rate / 40.0 * PAYLOAD4, hand, 1e-9);
		assert_near(res.msg[i].steady_gbps, hand, 0.02);
	}
	ibf_sim_result_free(&res);
	ibf_sim_destroy(s);
	ibf_eval_destroy(e);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

/* ---- head-of-line blocking ----------------------------------------------
 * A: h1 -> h3, B: h2 -> h4 (the victim), C: h5 -> h3.  MMF: h3's link
 * splits between A and C (1/2 each of a host link); S1 -> S2 has twice a
 * host link's rate, so B could take a whole host link (MMF rate 1).
 * Under credit flow control S2's buffer of the S1 link fills: S1's output
 * serves its two inputs in turn, so that FIFO holds A B A B ...  An A
 * leaves only when h3's output, alternating between the S1 input and C's,
 * takes it: one A per two packet times, and each B waits behind an A.
 * So B moves exactly as fast as A: 1/2 of a host link's payload rate. */
static void test_head_of_line(void **state)
{
	ibf_node_id_t h[6];
	ibf_fabric_t *f = hol_fabric(h);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	double mmf[3];
	ibf_err_t err;
	ibf_port_id_t p[6];

	(void)state;
	for (unsigned i = 1; i <= 5; i++)
		p[i] = ibf_node_port_id(f, h[i], 1);
	add(s, p[1], p[3], 4u << 20, NULL);     /* A */
	add(s, p[2], p[4], 4u << 20, NULL);     /* B */
	add(s, p[5], p[3], 4u << 20, NULL);     /* C */
	assert_int_equal(ibf_sim_mmf(s, mmf, &err), IBF_OK);
	assert_near(mmf[0], PAYLOAD4 / 2, 1e-9);
	assert_near(mmf[1], PAYLOAD4, 1e-9);
	assert_near(mmf[2], PAYLOAD4 / 2, 1e-9);
	run(s, &res);
	assert_near(res.msg[0].steady_gbps, PAYLOAD4 / 2, 0.02);
	assert_near(res.msg[1].steady_gbps, PAYLOAD4 / 2, 0.02);
	assert_near(res.msg[2].steady_gbps, PAYLOAD4 / 2, 0.02);
	finish(&res, s, r, f);
}

/* VL priority: two senders into one HCA, h0 on SL/VL 1 (high priority),
 * h1 on VL 0.  The output serves VL 1 whenever it has a packet: h0's
 * flow ends as if alone (up to one packet of h1 already on the wire),
 * h1's after both flows' packets, 2 N packet times. */
static void test_vl_priority(void **state)
{
	ibf_fabric_t *f = star(3);
	ibf_routing_t *r = tu_route(f, "minhop");
	size_t stride = f->lid_top + 1;
	uint8_t *by_pair = calloc(f->nendpoints * stride, 1);
	ibf_sls_t sls = { .fabric = f, .by_pair = by_pair, .nsls = 2 };
	double t_pkt = (MTU + HDR) * 8 / (QDR4 * 1e9);
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;

	(void)state;
	assert_non_null(by_pair);
	by_pair[f->endpoint_index[host(f, 0)] * stride +
		f->ports[host(f, 2)].lid] = 1;
	ibf_sim_opts_default(&o);
	o.sls = &sls;
	o.vl_high = 1u << 1;
	s = new_sim(r, &o);
	add(s, host(f, 1), host(f, 2), 256 * MTU, NULL);   /* VL 0 */
	add(s, host(f, 0), host(f, 2), 256 * MTU, NULL);   /* VL 1 */
	run(s, &res);
	assert_true(res.msg[1].end_s <= 256 * t_pkt + 2 * 100e-9 + t_pkt);
	assert_near(res.msg[0].end_s, 512 * t_pkt + 2 * 100e-9, 0.001);
	ibf_sim_result_free(&res);
	ibf_sim_destroy(s);
	free(by_pair);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

/* The control lane: h0 and h1 both stream into h2 (each at 1/2), so the
 * switch's buffer of h1's link is full of data waiting for h2.  A
 * control message from h1 to h3 at 10 us: on its own VL it passes that
 * queue (h1's HCA finishes the packet on the wire, then the control
 * packet goes: within 2 data packet times plus the two hops); on the data
 * VL it waits behind the buffer's 15 packets, each leaving every other
 * packet time: more than 20 packet times. */
static double ctrl_delay(bool lane)
{
	ibf_fabric_t *f = star(4);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	uint32_t c;
	ibf_err_t err;
	double d;

	ibf_sim_opts_default(&o);
	o.ctrl_lane = lane;
	s = new_sim(r, &o);
	add(s, host(f, 0), host(f, 2), 4u << 20, NULL);
	add(s, host(f, 1), host(f, 2), 4u << 20, NULL);
	assert_int_equal(ibf_sim_add_msg(s, host(f, 1), host(f, 3), 8,
					 IBF_SIM_CONTROL, 10e-6, &c, &err),
			 IBF_OK);
	run(s, &res);
	d = res.msg[c].end_s - 10e-6;
	finish(&res, s, r, f);
	return d;
}

/* The input side: h0 streams to h2 and h1 to h3, back to back; a control
 * packet from h0 to h3 at 10 us waits in the switch for an instant when
 * its input (busy with h0's stream) and its output (busy with h1's) are
 * both free, which never comes (the streams are half a packet apart).
 * The input keeps itself for the high-priority packet, so it
 * goes after at most the packets in progress on both: a few packet times,
 * not the rest of the streams (1,024 packets). */
static double ctrl_cross(double t_pkt)
{
	ibf_fabric_t *f = star(4);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	uint32_t c;
	ibf_err_t err;
	double d;

	add(s, host(f, 0), host(f, 2), 2u << 20, NULL);
	/* half a packet later: the two streams' packets never end together */
	assert_int_equal(ibf_sim_add_msg(s, host(f, 1), host(f, 3), 2u << 20,
					 IBF_SIM_DATA, t_pkt / 2, NULL, &err),
			 IBF_OK);
	assert_int_equal(ibf_sim_add_msg(s, host(f, 0), host(f, 3), 8,
					 IBF_SIM_CONTROL, 10e-6, &c, &err),
			 IBF_OK);
	run(s, &res);
	d = res.msg[c].end_s - 10e-6;
	finish(&res, s, r, f);
	return d;
}

static void test_ctrl_lane(void **state)
{
	double t_pkt = (MTU + HDR) * 8 / (QDR4 * 1e9);

	(void)state;
	assert_true(ctrl_delay(true) < 2 * t_pkt + 2 * 100e-9 + 1e-9);
	assert_true(ctrl_delay(false) > 20 * t_pkt);
	assert_true(ctrl_cross(t_pkt) < 4 * t_pkt + 2 * 100e-9);
}

/* ---- deadlock ------------------------------------------------------------ */

static ibf_status_t add_all_pairs(ibf_sim_t *s, const ibf_fabric_t *f,
				  uint64_t bytes)
{
	ibf_err_t err;

	for (uint32_t i = 0; i < f->nendpoints; i++)
		for (uint32_t j = 0; j < f->nendpoints; j++)
			if (i != j && ibf_sim_add_msg(s, host(f, i), host(f, j),
						      bytes, IBF_SIM_DATA, 0,
						      NULL, &err) != IBF_OK)
				fail_msg("add: %s", err.msg);
	return IBF_OK;
}

/* minhop on a ring of 8 switches, all to all: shortest paths chain the
 * ring's links in both directions, a credit loop that fills.  The cycle
 * reported must be one: each link ends where the next starts. */
static void test_ring_deadlock(void **state)
{
	ibf_fabric_t *f = tu_gen("torus:8,1,1", 0);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	ibf_err_t err;

	(void)state;
	add_all_pairs(s, f, 1u << 20);
	assert_int_equal(ibf_sim_run(s, &res, &err), IBF_OK);
	assert_true(res.deadlocked);
	assert_true(res.undelivered > 0);
	assert_true(res.ncycle >= 2);
	for (uint32_t i = 0; i < res.ncycle; i++) {
		ibf_port_id_t a = res.cycle[i];
		ibf_port_id_t b = res.cycle[(i + 1) % res.ncycle];

		assert_int_equal(ibf_node_is_switch(f, f->ports[a].node), 1);
		assert_int_equal(f->ports[f->ports[a].peer].node,
				 f->ports[b].node);
	}
	finish(&res, s, r, f);
}

/* The same ring routed by layered routing with its SLs (one VL per
 * layer) completes; the same tables on one VL deadlock. */
static void test_ring_layered(void **state)
{
	ibf_fabric_t *f = tu_gen("torus:8,1,1", 2);
	/* whole layers on SLs: deadlock-free only with them */
	ibf_route_opts_t ro = { .vls = 8 };
	ibf_routing_t *r = NULL;
	ibf_sls_t sls;
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_route(f, "layered", &ro, &r, &err), IBF_OK);
	sls = (ibf_sls_t){ .fabric = f, .by_dlid = r->sl_by_dlid,
			   .by_pair = r->sl_by_pair, .nsls = r->nsls };
	assert_true(r->nsls > 1);
	ibf_sim_opts_default(&o);
	o.sls = &sls;
	s = new_sim(r, &o);
	add_all_pairs(s, f, 1u << 20);
	run(s, &res);
	ibf_sim_result_free(&res);
	ibf_sim_destroy(s);

	o.sls = NULL;
	s = new_sim(r, &o);
	add_all_pairs(s, f, 1u << 20);
	assert_int_equal(ibf_sim_run(s, &res, &err), IBF_OK);
	assert_true(res.deadlocked);
	finish(&res, s, r, NULL);

	/* the default, one VL: all on SL 0 completes */
	r = tu_route(f, "layered");
	assert_int_equal(r->nsls, 1);
	s = new_sim(r, &o);
	add_all_pairs(s, f, 1u << 20);
	run(s, &res);
	finish(&res, s, r, f);
}

/* ---- per-hop VLs (vl_spread) -------------------------------------------- */

/* Wire bytes per VL of the link leaving port p, from the result. */
static const uint64_t *link_vls(const ibf_sim_result_t *res, ibf_port_id_t p)
{
	for (uint32_t i = 0; i < res->nlinks; i++)
		if (res->link[i].port == p)
			return res->link[i].vl_bytes;
	fail_msg("link of port %u carried nothing", p);
	return NULL;
}

/* The head-of-line case with vl_spread 3: each flow's VL on each link
 * is worked out here from the port numbers (VL 0 from the HCA, then
 * (in + out) mod 3 at a switch), A h1 -> h3: S1 1 -> 3 VL 1, S2 4 -> 1
 * VL 2; B h2 -> h4: S1 2 -> 3 VL 2, S2 4 -> 2 VL 0; C h5 -> h3: S2 3 -> 1
 * VL 1.  At S2's input from S1, A and B now queue in different FIFOs:
 * B is no longer held behind A's packets for the congested h3 and runs
 * at its link's rate (it had half of it on one VL: test_head_of_line).
 * Buffers of two packets: credits returned for the wrong VL would starve
 * a VL within a few packets. */
static void test_vl_spread_per_hop(void **state)
{
	ibf_node_id_t h[6];
	ibf_fabric_t *f = hol_fabric(h);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	ibf_port_id_t p[6];
	uint64_t n = 256, wire = n * (MTU + HDR);
	const uint64_t *v;
	ibf_err_t err;

	(void)state;
	for (unsigned i = 1; i <= 5; i++)
		p[i] = ibf_node_port_id(f, h[i], 1);
	ibf_sim_opts_default(&o);
	o.vl_spread = 1;
	assert_int_equal(ibf_sim_create(r->lfts, &o, &s, &err), IBF_ERR_RANGE);
	o.vl_spread = 9;   /* more than max_vls (8) */
	assert_int_equal(ibf_sim_create(r->lfts, &o, &s, &err), IBF_ERR_RANGE);
	o.vl_spread = 3;
	o.buffer = 2 * 33 * 64;   /* two packets of 33 credits */
	s = new_sim(r, &o);
	add(s, p[1], p[3], n * MTU, NULL);     /* A */
	add(s, p[2], p[4], n * MTU, NULL);     /* B */
	add(s, p[5], p[3], n * MTU, NULL);     /* C */
	run(s, &res);
	for (unsigned i = 0; i < 3; i++) {         /* the senders' HCAs */
		v = link_vls(&res, p[(const unsigned[]){ 1, 2, 5 }[i]]);
		assert_true(v[0] == wire && v[1] == 0 && v[2] == 0);
	}
	v = link_vls(&res, ibf_node_port_id(f, f->ports[f->ports[p[1]].peer]
					     .node, 3));
	assert_true(v[0] == 0 && v[1] == wire && v[2] == wire);  /* S1 -> S2 */
	v = link_vls(&res, f->ports[p[3]].peer);                  /* S2 -> h3 */
	assert_true(v[0] == 0 && v[1] == wire && v[2] == wire);
	v = link_vls(&res, f->ports[p[4]].peer);                  /* S2 -> h4 */
	assert_true(v[0] == wire && v[1] == 0 && v[2] == 0);
	/* B at its link's rate, and h3's link busy until its 2n packets
	 * are through (C first: S2's input from S1 sends one packet at a
	 * time and B keeps it busy, so A goes mostly after B) */
	assert_near(res.msg[1].gbps, PAYLOAD4, 0.02);
	assert_near(res.time_s, 2.0 * wire * 8 / (QDR4 * 1e9), 0.02);
	finish(&res, s, r, f);
}

/* Layered routing's one-VL tables on a Dragonfly stay deadlock-free with
 * every per-hop VL choice: linear and pairwise all-to-alls complete with
 * vl_spread 2 and 4, and the switch-to-switch links use several VLs. */
static void test_vl_spread_dragonfly(void **state)
{
	ibf_fabric_t *f = tu_gen("dragonfly:4,2,2", 2);
	ibf_routing_t *r = tu_route(f, "layered");
	const ibf_sim_a2a_t algs[] = { IBF_SIM_A2A_LINEAR,
				       IBF_SIM_A2A_PAIRWISE };
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	ibf_err_t err;
	unsigned used, mixed;

	(void)state;
	assert_int_equal(r->nsls, 1);
	for (unsigned spread = 2; spread <= 4; spread += 2)
		for (unsigned a = 0; a < 2; a++) {
			ibf_sim_opts_default(&o);
			o.vl_spread = spread;
			o.buffer = 2 * 33 * 64;
			s = new_sim(r, &o);
			if (ibf_sim_add_alltoall(s, f->endpoints, NULL,
						 f->nendpoints, MTU, algs[a], 0,
						 NULL, NULL, &err) != IBF_OK)
				fail_msg("alltoall: %s", err.msg);
			run(s, &res);
			mixed = 0;
			for (uint32_t i = 0; i < res.nlinks; i++) {
				used = 0;
				for (unsigned v = 0; v < IBF_SIM_MAX_VLS; v++)
					used += res.link[i].vl_bytes[v] > 0;
				mixed += used > 1;
			}
			assert_true(mixed > 0);
			ibf_sim_result_free(&res);
			ibf_sim_destroy(s);
		}
	finish(NULL, NULL, r, f);
}

/* ---- dependencies, window, determinism ---------------------------------- */

/* A chain: b starts when a has arrived; with a window of one, two
 * messages of one host go one after the other. */
static void test_dependencies_and_window(void **state)
{
	ibf_fabric_t *f = star(3);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	uint32_t a, b;
	ibf_err_t err;

	(void)state;
	add(s, host(f, 0), host(f, 1), 1u << 20, &a);
	add(s, host(f, 1), host(f, 2), 1u << 20, &b);
	assert_int_equal(ibf_sim_add_dep(s, a, b, &err), IBF_OK);
	run(s, &res);
	assert_true(res.msg[b].first_s >= res.msg[a].end_s);
	assert_near(res.time_s, 2 * res.msg[a].end_s, 0.001);
	ibf_sim_result_free(&res);
	ibf_sim_destroy(s);

	ibf_sim_opts_default(&o);
	o.window = 1;
	s = new_sim(r, &o);
	add(s, host(f, 0), host(f, 1), 1u << 20, &a);
	add(s, host(f, 0), host(f, 2), 1u << 20, &b);
	run(s, &res);
	assert_true(res.msg[b].first_s >= res.msg[a].end_s);
	finish(&res, s, r, f);
}

/* A local join ready at time 0 readies a later message through the
 * cascade; that message must still be sent once (not once more when the
 * start-up reaches it): exactly its packets go out. */
static void test_local_join_at_start(void **state)
{
	ibf_fabric_t *f = star(2);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_sim_opts_t o;
	ibf_sim_result_t res;
	ibf_sim_t *s;
	uint32_t join, m;
	ibf_err_t err;

	(void)state;
	ibf_sim_opts_default(&o);
	o.max_events = 1000000;   /* a message sent forever stops here */
	s = new_sim(r, &o);
	assert_int_equal(ibf_sim_add_msg(s, host(f, 0), host(f, 0), 0,
					 IBF_SIM_LOCAL, 0, &join, &err), IBF_OK);
	add(s, host(f, 0), host(f, 1), 10 * MTU, &m);
	assert_int_equal(ibf_sim_add_dep(s, join, m, &err), IBF_OK);
	run(s, &res);
	assert_false(res.truncated);
	assert_int_equal(res.packets, 10);
	finish(&res, s, r, f);
}

static void a2a_run(const ibf_routing_t *r, ibf_sim_a2a_t alg, unsigned k,
		    ibf_sim_result_t *res, double *bound)
{
	const ibf_fabric_t *f = r->fabric;
	ibf_sim_t *s = new_sim(r, NULL);
	ibf_err_t err;

	if (ibf_sim_add_alltoall(s, f->endpoints, NULL, f->nendpoints,
				 256u << 10,
				 alg, k, NULL, NULL, &err) != IBF_OK)
		fail_msg("alltoall: %s", err.msg);
	if (bound)
		assert_int_equal(ibf_sim_bound(s, bound, &err), IBF_OK);
	run(s, res);
	ibf_sim_destroy(s);
}

/* Every algorithm delivers every block; the algorithms that send each
 * block directly take no less than the bound; the same run twice gives
 * the same times. */
static void test_alltoall_algorithms(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,3", 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	uint32_t n = f->nendpoints;
	ibf_sim_result_t res, again;
	double bound;
	unsigned data;

	(void)state;
	for (int alg = IBF_SIM_A2A_LIQUID; alg <= IBF_SIM_A2A_BRUCK; alg++) {
		a2a_run(r, (ibf_sim_a2a_t)alg, 2, &res, &bound);
		data = 0;
		for (uint32_t i = 0; i < res.nmsgs; i++)
			data += res.msg[i].kind == IBF_SIM_DATA;
		if (alg == IBF_SIM_A2A_BRUCK) {
			assert_int_equal(data, 3 * n);   /* log2 8 steps */
		} else {
			assert_int_equal(data, n * (n - 1));
			assert_true(res.time_s >= bound);
		}
		a2a_run(r, (ibf_sim_a2a_t)alg, 2, &again, NULL);
		assert_true(again.time_s == res.time_s);
		assert_true(again.events == res.events);
		ibf_sim_result_free(&res);
		ibf_sim_result_free(&again);
	}
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

/* Liquid runs the UCX runtime's plan (ibf_liquid_plan_alltoall): judged
 * with the test's own routes (ibf_trace hop lists), a transfer never
 * starts on a link before every transfer of an earlier frame on that link
 * has arrived. */
static void test_liquid_follows_plan(void **state)
{
	ibf_fabric_t *f = tu_gen("xgft:2:4,4:1,2", 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	const uint32_t n = 8;
	ibf_port_id_t ranks[8], hops[2][16];
	unsigned nh[2];
	uint32_t *rank_of = calloc(f->nports, sizeof(uint32_t));
	ibf_liquid_plan_t *plan;
	ibf_sim_result_t res;
	ibf_sim_t *s = new_sim(r, NULL);
	ibf_err_t err;
	unsigned checked = 0;

	(void)state;
	for (uint32_t i = 0; i < n; i++) {
		ranks[i] = f->endpoints[2 * i + 1];   /* scattered */
		rank_of[ranks[i]] = i;
	}
	assert_non_null(rank_of);
	assert_int_equal(ibf_liquid_plan_alltoall(r->lfts, ranks, n, NULL,
						  &plan, &err), IBF_OK);
	assert_int_equal(ibf_sim_add_alltoall(s, ranks, NULL, n, 1u << 18,
					      IBF_SIM_A2A_LIQUID, 0, NULL,
					      NULL, &err), IBF_OK);
	run(s, &res);
	for (uint32_t a = 0; a < res.nmsgs; a++) {
		const ibf_sim_msg_result_t *x = &res.msg[a];

		if (x->kind != IBF_SIM_DATA)
			continue;
		ibf_trace(r->lfts, x->src, f->ports[x->dst].lid, hops[0], 16,
			  &nh[0]);
		for (uint32_t b = 0; b < res.nmsgs; b++) {
			const ibf_sim_msg_result_t *y = &res.msg[b];
			bool shared = false;

			if (y->kind != IBF_SIM_DATA ||
			    ibf_liquid_plan_frame(plan, rank_of[x->src],
						  rank_of[x->dst]) >=
			    ibf_liquid_plan_frame(plan, rank_of[y->src],
						  rank_of[y->dst]))
				continue;
			ibf_trace(r->lfts, y->src, f->ports[y->dst].lid,
				  hops[1], 16, &nh[1]);
			for (unsigned i = 0; i < nh[0]; i++)
				for (unsigned j = 0; j < nh[1]; j++)
					shared |= hops[0][i] == hops[1][j];
			if (shared) {
				assert_true(y->first_s >= x->end_s);
				checked++;
			}
		}
	}
	assert_true(checked > 0);
	free(rank_of);
	ibf_liquid_plan_destroy(plan);
	finish(&res, s, r, f);
}

/* The bound is the liquid scheduler's duration (the busiest link's load
 * in transfers) times one transfer's time at the payload rate. */
static void test_bound_is_liquid_duration(void **state)
{
	ibf_fabric_t *f = tu_gen("xgft:2:4,4:1,2", 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	ibf_hostlist_t hl = { f->endpoints, 10 };
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t lr;
	ibf_sim_t *s = new_sim(r, NULL);
	double bound, gbps = 4 * 25.78125 * 64 / 66 * MTU / (MTU + HDR);
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_liquid_traffic_alltoall(r->lfts, &hl, &t, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_schedule(t, NULL, &lr, &err), IBF_OK);
	assert_int_equal(ibf_sim_add_alltoall(s, hl.ports, NULL, hl.n,
					      1u << 20, IBF_SIM_A2A_PAIRWISE,
					      0, NULL, NULL, &err), IBF_OK);
	assert_int_equal(ibf_sim_bound(s, &bound, &err), IBF_OK);
	assert_near(bound, lr.duration * (1u << 20) * 8 / (gbps * 1e9),
		    1e-12);
	ibf_liquid_result_free(&lr);
	ibf_liquid_traffic_destroy(t);
	finish(NULL, s, r, f);
}

/* Two lists (the Swiss-T1's processor pairs): every pair (i, j), i to
 * itself included, one block each; bruck refuses. */
static void test_alltoall_two_lists(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,3", 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	const ibf_port_id_t *snd = f->endpoints, *rcv = f->endpoints + 4;
	ibf_sim_result_t res;
	unsigned seen[4][4];
	ibf_sim_t *s;
	ibf_err_t err;

	(void)state;
	for (int alg = IBF_SIM_A2A_LIQUID; alg <= IBF_SIM_A2A_BRUCK; alg++) {
		s = new_sim(r, NULL);
		if (alg == IBF_SIM_A2A_BRUCK) {
			assert_int_equal(ibf_sim_add_alltoall(s, snd, rcv, 4,
					 4096, (ibf_sim_a2a_t)alg, 1, NULL,
					 NULL, &err), IBF_ERR_UNSUPPORTED);
			ibf_sim_destroy(s);
			continue;
		}
		assert_int_equal(ibf_sim_add_alltoall(s, snd, rcv, 4, 65536,
				 (ibf_sim_a2a_t)alg, 1, NULL, NULL, &err),
				 IBF_OK);
		run(s, &res);
		memset(seen, 0, sizeof(seen));
		for (uint32_t i = 0; i < res.nmsgs; i++) {
			if (res.msg[i].kind != IBF_SIM_DATA)
				continue;
			assert_true(f->endpoint_index[res.msg[i].src] < 4);
			assert_true(f->endpoint_index[res.msg[i].dst] >= 4);
			seen[f->endpoint_index[res.msg[i].src]]
			    [f->endpoint_index[res.msg[i].dst] - 4]++;
		}
		for (unsigned i = 0; i < 4; i++)
			for (unsigned j = 0; j < 4; j++)
				assert_int_equal(seen[i][j], 1);
		ibf_sim_result_free(&res);
		ibf_sim_destroy(s);
	}
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

/* ---- input errors ---------------------------------------------------------*/

static void test_trace_errors(void **state)
{
	ibf_fabric_t *f = star(3);
	ibf_routing_t *r = tu_route(f, "minhop");
	static const char *const bad[] = {
		"1.5 100 h0\n", "x 100 h0 h1\n", "1 -5 h0 h1\n",
		"1 100 h0 nosuch\n", "0 1 h0 h1\n-1 100 h0 h1\n",
	};
	static const unsigned line[] = { 1, 1, 1, 1, 2 };
	const char *good = "# t bytes src dst\n0 4096 h0 h1\n10 4096 h1 h2\n";
	ibf_sim_result_t res;
	ibf_text_t t;
	ibf_sim_t *s;
	ibf_err_t err;
	char want[32];

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = new_sim(r, NULL);
		assert_int_equal(ibf_text_from_buf(&t, "tr", bad[i],
						   strlen(bad[i]), &err),
				 IBF_OK);
		assert_int_not_equal(ibf_sim_add_trace_text(s, &t, &err),
				     IBF_OK);
		snprintf(want, sizeof(want), "tr:%u: ", line[i]);
		if (strncmp(err.msg, want, strlen(want)))
			fail_msg("'%s': got '%s'", bad[i], err.msg);
		ibf_text_free(&t);
		ibf_sim_destroy(s);
	}
	/* a good one: the second send starts at 10 us */
	s = new_sim(r, NULL);
	assert_int_equal(ibf_text_from_buf(&t, "tr", good, strlen(good),
					   &err), IBF_OK);
	assert_int_equal(ibf_sim_add_trace_text(s, &t, &err), IBF_OK);
	run(s, &res);
	assert_near(res.msg[1].first_s, 10e-6, 1e-9);
	ibf_text_free(&t);
	finish(&res, s, r, f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow),
		cmocka_unit_test(test_a2a_names),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_crossbar_permutation),
		cmocka_unit_test(test_random_matches_mmf),
		cmocka_unit_test(test_head_of_line),
		cmocka_unit_test(test_vl_priority),
		cmocka_unit_test(test_ctrl_lane),
		cmocka_unit_test(test_ring_deadlock),
		cmocka_unit_test(test_ring_layered),
		cmocka_unit_test(test_vl_spread_per_hop),
		cmocka_unit_test(test_vl_spread_dragonfly),
		cmocka_unit_test(test_dependencies_and_window),
		cmocka_unit_test(test_local_join_at_start),
		cmocka_unit_test(test_alltoall_algorithms),
		cmocka_unit_test(test_liquid_follows_plan),
		cmocka_unit_test(test_bound_is_liquid_duration),
		cmocka_unit_test(test_alltoall_two_lists),
		cmocka_unit_test(test_trace_errors),
	};
	return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
