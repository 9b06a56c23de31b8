/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The routing framework and the minhop engine.
 *
 * Expected values are computed here independently of route_minhop.c: hop
 * distances by a BFS over the whole node graph (hosts included), switch
 * levels and "below" sets of fat trees from the wiring, and the validation
 * cases by punching holes into a complete routing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#include "test_util.h"

/* Links between nodes from a BFS over every node (hosts too). */
static void bfs_nodes(const ibf_fabric_t *f, ibf_node_id_t from,
		      uint32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, n;
	unsigned p;

	for (n = 0; n < f->nnodes; n++)
		dist[n] = UINT32_MAX;
	dist[from] = 0;
	queue[tail++] = from;
	while (head < tail) {
		n = queue[head++];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;
			ibf_node_id_t m;

			if (peer == IBF_NO_ID)
				continue;
			m = f->ports[peer].node;
			if (dist[m] == UINT32_MAX) {
				dist[m] = dist[n] + 1;
				queue[tail++] = m;
			}
		}
	}
}

/* No defect (hosts and switches), and every route as short as the BFS. */
static void check_minhop(const char *spec, unsigned lmc)
{
	ibf_fabric_t *f = tu_gen(spec, lmc);
	ibf_routing_t *r = tu_route(f, "minhop");
	ibf_check_opts_t co = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t rep;
	uint32_t *dist = malloc(sizeof(*dist) * f->nnodes);
	uint32_t *queue = malloc(sizeof(*queue) * f->nnodes);
	uint64_t checked = 0;
	ibf_err_t err;
	uint32_t e;
	unsigned lid, nhops;

	assert_non_null(dist);
	assert_non_null(queue);
	co.switches = true;
	assert_int_equal(ibf_check_run(r->lfts, &co, &rep, &err), IBF_OK);
	if (ibf_check_defects(&rep))
		fail_msg("%s: %llu defects", spec,
			 (unsigned long long)ibf_check_defects(&rep));
	ibf_check_report_free(&rep);
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t src = f->endpoints[e];

		bfs_nodes(f, f->ports[src].node, dist, queue);
		for (lid = 1; lid <= f->lid_top; lid++) {
			ibf_port_id_t dst = ibf_fabric_lid_owner(f, lid);

			if (dst == IBF_NO_ID || dst == src)
				continue;
			assert_int_equal(ibf_trace(r->lfts, src, lid, NULL, 0,
						   &nhops), IBF_TRACE_OK);
			if (nhops != dist[f->ports[dst].node])
				fail_msg("%s: LID %u from endpoint %u: %u hops,"
					 " shortest %u", spec, lid, e, nhops,
					 dist[f->ports[dst].node]);
			checked++;
		}
	}
	assert_true(checked > 0);
	free(dist);
	free(queue);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

static void minhop_kary(void **s) { (void)s; check_minhop("kary:4,3", 0); }
static void minhop_xgft_lmc2(void **s)
{
	(void)s;
	check_minhop("xgft:2:4,4:1,4", 2);
}
static void minhop_slimfly(void **s) { (void)s; check_minhop("slimfly:5", 0); }
static void minhop_dragonfly(void **s)
{
	(void)s;
	check_minhop("dragonfly:4,2,2", 1);
}
static void minhop_torus(void **s) { (void)s; check_minhop("torus:3,3,3", 0); }
static void minhop_jellyfish(void **s)
{
	(void)s;
	check_minhop("jellyfish:16,4,2:7", 0);
}

/* ---- balance on full fat trees ---------------------------------------
 *
 * Level of a switch: links to the nearest host.  Up ports lead to a higher
 * level.  A CA LID is "below" a switch when a path that only goes down
 * reaches it.  Guarantee tested (route_minhop.c): for every switch, the
 * CA LIDs not below it go out by up ports only, and the up ports' counts
 * of such LIDs differ by at most 1. */
static void levels(const ibf_fabric_t *f, uint32_t *lvl)
{
	uint32_t *q = malloc(sizeof(*q) * f->nnodes), head = 0, tail = 0, n;
	unsigned p;

	assert_non_null(q);
	for (n = 0; n < f->nnodes; n++) {
		lvl[n] = ibf_node_is_switch(f, n) ? UINT32_MAX : 0;
		if (!lvl[n])
			q[tail++] = n;
	}
	while (head < tail) {
		n = q[head++];
		for (p = 1; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;

			if (peer != IBF_NO_ID &&
			    lvl[f->ports[peer].node] == UINT32_MAX) {
				lvl[f->ports[peer].node] = lvl[n] + 1;
				q[tail++] = f->ports[peer].node;
			}
		}
	}
	free(q);
}

static void mark_below(const ibf_fabric_t *f, const uint32_t *lvl,
		       ibf_node_id_t n, uint8_t *below)
{
	unsigned p;

	below[n] = 1;
	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;

		if (peer != IBF_NO_ID && lvl[f->ports[peer].node] < lvl[n] &&
		    !below[f->ports[peer].node])
			mark_below(f, lvl, f->ports[peer].node, below);
	}
}

static void check_balance(const char *spec, unsigned lmc)
{
	ibf_fabric_t *f = tu_gen(spec, lmc);
	ibf_routing_t *r = tu_route(f, "minhop");
	uint32_t *lvl = malloc(sizeof(*lvl) * f->nnodes);
	uint8_t *below = malloc(f->nnodes);
	uint32_t s, count[256];
	unsigned lid, p, nup, checked = 0;

	assert_non_null(lvl);
	assert_non_null(below);
	levels(f, lvl);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];
		uint32_t lo = UINT32_MAX, hi = 0;

		memset(below, 0, f->nnodes);
		mark_below(f, lvl, n, below);
		memset(count, 0, sizeof(count));
		for (lid = 1; lid <= f->lid_top; lid++) {
			ibf_port_id_t o = ibf_fabric_lid_owner(f, lid);
			ibf_port_id_t peer;
			unsigned e;

			if (o == IBF_NO_ID || ibf_node_is_switch(f,
			    f->ports[o].node) || below[f->ports[o].node])
				continue;
			e = ibf_lfts_get(r->lfts, s, lid);
			assert_true(e >= 1 && e <= f->nodes[n].nports);
			peer = ibf_node_port(f, n, e)->peer;
			assert_true(peer != IBF_NO_ID);
			/* Not below: min-hop must go up. */
			assert_true(lvl[f->ports[peer].node] > lvl[n]);
			count[e]++;
		}
		for (p = 1, nup = 0; p <= f->nodes[n].nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;

			if (peer == IBF_NO_ID ||
			    lvl[f->ports[peer].node] <= lvl[n])
				continue;
			nup++;
			lo = count[p] < lo ? count[p] : lo;
			hi = count[p] > hi ? count[p] : hi;
		}
		if (!nup)
			continue; /* top level */
		if (hi - lo > 1)
			fail_msg("%s: switch \"%s\": up-port LID counts %u..%u",
				 spec, ibf_node_desc(f, n), lo, hi);
		checked++;
	}
	assert_true(checked > 0);
	free(lvl);
	free(below);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

static void balance_kary(void **s) { (void)s; check_balance("kary:4,3", 0); }
static void balance_kary_lmc1(void **s)
{
	(void)s;
	check_balance("kary:3,3", 1);
}
static void balance_xgft(void **s)
{
	(void)s;
	check_balance("xgft:2:4,4:1,4", 2);
}
static void balance_xgft3(void **s)
{
	(void)s;
	check_balance("xgft:3:3,3,4:1,3,3", 0);
}

/* ---- the framework ---------------------------------------------------- */

static void engine_table(void **s)
{
	const ibf_route_engine_t *e = ibf_route_engines();
	const char *want[] = { "minhop", "dmodk", "uapr", "layered",
			       "swisst1" };
	unsigned i;

	(void)s;
	for (i = 0; i < 5; i++) {
		assert_non_null(e[i].name);
		assert_string_equal(e[i].name, want[i]);
		assert_ptr_equal(ibf_route_engine_find(want[i])->run,
				 e[i].run);
	}
	assert_null(e[5].name);
	assert_null(ibf_route_engine_find("ftree"));
}

/* Capabilities as the engines' documentation states them, and the name
 * lists the help texts are made of. */
static void engine_caps(void **s)
{
	char buf[128];

	(void)s;
	assert_true(ibf_route_engine_can("layered", IBF_ROUTE_USES_SLS |
					 IBF_ROUTE_LAYERS));
	assert_false(ibf_route_engine_can("layered", IBF_ROUTE_PGFT_LABELS));
	assert_true(ibf_route_engine_can("dmodk", IBF_ROUTE_PGFT_LABELS));
	assert_true(ibf_route_engine_can("uapr", IBF_ROUTE_PGFT_LABELS));
	assert_false(ibf_route_engine_can("uapr", IBF_ROUTE_USES_SLS));
	assert_false(ibf_route_engine_can("minhop", IBF_ROUTE_LAYERS));
	assert_true(ibf_route_engine_can("swisst1", 0));
	assert_false(ibf_route_engine_can("ftree", 0));
	assert_false(ibf_route_engine_can(NULL, 0));
	assert_int_equal(ibf_route_engine_names(0, ", ", " or ", buf,
						sizeof(buf)),
			 strlen("minhop, dmodk, uapr, layered or swisst1"));
	assert_string_equal(buf, "minhop, dmodk, uapr, layered or swisst1");
	ibf_route_engine_names(IBF_ROUTE_PGFT_LABELS, ", ", " and ", buf,
			       sizeof(buf));
	assert_string_equal(buf, "dmodk and uapr");
	ibf_route_engine_names(IBF_ROUTE_USES_SLS, ", ", " and ", buf,
			       sizeof(buf));
	assert_string_equal(buf, "layered");
	/* Truncated but terminated; the length still that of the whole. */
	assert_int_equal(ibf_route_engine_names(0, " ", " ", buf, 8), 33);
	assert_string_equal(buf, "minhop ");
}

static void unknown_engine_and_prefix(void **s)
{
	ibf_fabric_t *f = tu_gen("torus:3,3,3", 0);
	ibf_routing_t *r = (ibf_routing_t *)1;
	ibf_err_t err;

	(void)s;
	assert_int_equal(ibf_route(f, "ftree", NULL, &r, &err),
			 IBF_ERR_NOT_FOUND);
	assert_null(r);
	assert_non_null(strstr(err.msg, "ftree"));
	/* A torus is no PGFT: dmodk refuses, its name leads the message. */
	r = (ibf_routing_t *)1;
	assert_int_not_equal(ibf_route(f, "dmodk", NULL, &r, &err), IBF_OK);
	assert_null(r);
	assert_memory_equal(err.msg, "dmodk: ", 7);
	assert_null(strstr(err.msg + 7, "dmodk: "));
	ibf_fabric_destroy(f);
}

/* Defaults: topological order = the fabric's endpoints, SL 0. */
static void defaults(void **s)
{
	ibf_fabric_t *f = tu_gen("kary:2,2", 0);
	ibf_routing_t *r = tu_route(f, "minhop");
	uint32_t i;

	(void)s;
	assert_int_equal(r->norder, f->nendpoints);
	for (i = 0; i < f->nendpoints; i++)
		assert_int_equal(r->order[i], f->endpoints[i]);
	assert_int_equal(r->nsls, 1);
	assert_int_equal(ibf_routing_sl(r, f->endpoints[0], 1), 0);
	assert_string_equal(r->engine, "minhop");
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

/* A fake engine that leaves holes; its output goes through the same
 * validation ibf_route() applies. */
enum hole { HOLE_NONE, HOLE_ENTRY, HOLE_TABLE, HOLE_OWN, HOLE_DEAD,
	    HOLE_ORDER, HOLE_SL };

struct fake_ctx {
	const ibf_routing_t *good;
	enum hole hole;
	uint32_t sw;
	unsigned lid;
};

static ibf_status_t fake_fill(const struct fake_ctx *c, ibf_routing_t *r)
{
	const ibf_fabric_t *f = r->fabric;
	ibf_lfts_t *l = r->lfts;
	ibf_node_id_t n = f->switches[c->sw];
	unsigned p;

	memcpy(l->port, c->good->lfts->port, (size_t)l->nswitches * l->stride);
	memset(l->has_table, 1, l->nswitches);
	r->order = malloc(sizeof(*r->order) * f->nendpoints);
	memcpy(r->order, f->endpoints, sizeof(*r->order) * f->nendpoints);
	r->norder = f->nendpoints;
	r->nsls = 1;
	switch (c->hole) {
	case HOLE_NONE: break;
	case HOLE_ENTRY: ibf_lfts_set(l, c->sw, c->lid, IBF_LFT_NO_PORT); break;
	case HOLE_TABLE: l->has_table[c->sw] = 0; break;
	case HOLE_OWN:
		ibf_lfts_set(l, c->sw, ibf_node_port(f, n, 0)->lid, 1);
		break;
	case HOLE_DEAD:
		for (p = 1; p <= f->nodes[n].nports; p++)
			if (ibf_node_port(f, n, p)->peer == IBF_NO_ID)
				break;
		ibf_lfts_set(l, c->sw, c->lid, p);
		break;
	case HOLE_ORDER: r->order[1] = r->order[0]; break;
	case HOLE_SL:
		r->sl_by_dlid = calloc(f->lid_top + 1, 1);
		r->sl_by_dlid[c->lid] = 1; /* but nsls == 1 */
		break;
	}
	return IBF_OK;
}

static void check_hole(const ibf_fabric_t *f, const ibf_routing_t *good,
		       enum hole hole, const char *want)
{
	struct fake_ctx c = { good, hole, 1, f->ports[f->endpoints[3]].lid };
	ibf_routing_t *r = calloc(1, sizeof(*r));
	ibf_err_t err;

	assert_non_null(r);
	r->fabric = f;
	assert_int_equal(ibf_lfts_create(f, &r->lfts), IBF_OK);
	assert_int_equal(fake_fill(&c, r), IBF_OK);
	ibf_err_clear(&err);
	if (!want) {
		assert_int_equal(ibf_routing_validate(r, &err), IBF_OK);
	} else {
		assert_int_equal(ibf_routing_validate(r, &err),
				 IBF_ERR_INVALID);
		if (!strstr(err.msg, want))
			fail_msg("hole %d: '%s' lacks '%s'", hole, err.msg,
				 want);
	}
	ibf_routing_destroy(r);
}

static void validation(void **s)
{
	ibf_fabric_t *f = tu_gen("xgft:2:3,4:1,2", 0);
	ibf_routing_t *good = tu_route(f, "minhop");
	char want[128];
	ibf_node_id_t n1 = f->switches[1];

	(void)s;
	check_hole(f, good, HOLE_NONE, NULL);
	snprintf(want, sizeof(want), "switch \"%s\" has no entry for LID %u",
		 ibf_node_desc(f, n1), f->ports[f->endpoints[3]].lid);
	check_hole(f, good, HOLE_ENTRY, want);
	check_hole(f, good, HOLE_TABLE, "has no table");
	check_hole(f, good, HOLE_OWN, "own LID");
	check_hole(f, good, HOLE_ORDER, "host order");
	check_hole(f, good, HOLE_SL, "SL 1");
	ibf_routing_destroy(good);
	ibf_fabric_destroy(f);
}

/* An entry naming a port without a link: generated fabrics use every
 * port, so a one-switch fabric with spare ports is built by hand. */
static void validation_dead_port(void **s)
{
	ibf_fabric_t *f;
	ibf_node_id_t sw, h0, h1;
	ibf_routing_t *good;
	ibf_err_t err;

	(void)s;
	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 0, "sw", 4,
					     &sw, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, "h0", 1, &h0,
					     &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 0, "h1", 1, &h1,
					     &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, sw, 1, h0, 1, 0, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, sw, 2, h1, 1, 0, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	good = tu_route(f, "minhop");
	{
		struct fake_ctx c = { good, HOLE_DEAD, 0,
				      f->ports[f->endpoints[1]].lid };
		ibf_routing_t *r = calloc(1, sizeof(*r));

		r->fabric = f;
		assert_int_equal(ibf_lfts_create(f, &r->lfts), IBF_OK);
		fake_fill(&c, r);
		assert_int_equal(ibf_routing_validate(r, &err),
				 IBF_ERR_INVALID);
		assert_non_null(strstr(err.msg, "port 3, which has no link"));
		ibf_routing_destroy(r);
	}
	ibf_routing_destroy(good);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minhop_kary),
		cmocka_unit_test(minhop_xgft_lmc2),
		cmocka_unit_test(minhop_slimfly),
		cmocka_unit_test(minhop_dragonfly),
		cmocka_unit_test(minhop_torus),
		cmocka_unit_test(minhop_jellyfish),
		cmocka_unit_test(balance_kary),
		cmocka_unit_test(balance_kary_lmc1),
		cmocka_unit_test(balance_xgft),
		cmocka_unit_test(balance_xgft3),
		cmocka_unit_test(engine_table),
		cmocka_unit_test(engine_caps),
		cmocka_unit_test(unknown_engine_and_prefix),
		cmocka_unit_test(defaults),
		cmocka_unit_test(validation),
		cmocka_unit_test(validation_dead_port),
	};
	return cmocka_run_group_tests_name("route", tests, NULL, NULL);
}
