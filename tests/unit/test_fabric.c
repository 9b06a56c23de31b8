/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The fabric model: construction, validation, LID assignment, lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/fabric.h>

/*
 * Hand case:   h0 --[1]s0[3]== [3]s1[1]-- h2      (s0-s1: two parallel links,
 *              h1[1]--[2]s0     s1[2]--[2]h1        ports 3-3 and 4-4)
 * Node order h0 s0 h1 s1 h2, LMC 1.  OpenSM-style LIDs by hand:
 *   h0.1 -> 2,3   s0 -> 4   h1.1 -> 6,7   h1.2 -> 8,9   s1 -> 10   h2.1 -> 12,13
 */
struct hand {
	ibf_fabric_t *f;
	ibf_node_id_t h0, s0, h1, s1, h2;
};

static void build_hand(struct hand *h, bool finalize)
{
	ibf_finalize_opts_t opts = { .lmc = 1 };
	ibf_err_t err;

	assert_int_equal(ibf_fabric_create(&h->f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_CA, 0x100, "h0 HCA-1",
					     1, &h->h0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_SWITCH, 0x200, "s0",
					     4, &h->s0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_CA, 0x300, "h1 HCA-1",
					     2, &h->h1, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_SWITCH, 0x400, "s1",
					     4, &h->s1, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_CA, 0x500, "h2 HCA-1",
					     1, &h->h2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->h0, 1, h->s0, 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->h1, 1, h->s0, 2, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->h1, 2, h->s1, 2, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->h2, 1, h->s1, 1, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->s0, 3, h->s1, 3, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h->f, h->s0, 4, h->s1, 4, 12,
					 IBF_SPEED_HDR, &err), IBF_OK);
	if (finalize)
		assert_int_equal(ibf_fabric_finalize(h->f, &opts, &err),
				 IBF_OK);
}

static void test_lids_assigned_like_opensm(void **state)
{
	static const struct { int node; unsigned port, lid; } want[] = {
		{ 0, 1, 2 }, { 1, 0, 4 }, { 2, 1, 6 }, { 2, 2, 8 },
		{ 3, 0, 10 }, { 4, 1, 12 },
	};
	struct hand h;
	size_t i;

	build_hand(&h, true);
	assert_int_equal(h.f->lmc, 1);
	assert_int_equal(h.f->lid_top, 13);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ibf_port_t *p = ibf_node_port(h.f, (ibf_node_id_t)want[i].node,
					      want[i].port);

		assert_int_equal(p->lid, want[i].lid);
		assert_int_equal(p->lmc, ibf_node_is_switch(h.f, p->node) ? 0 : 1);
	}
	/* Both LIDs of an LMC-1 port and only those resolve to it. */
	assert_int_equal(ibf_fabric_lid_owner(h.f, 6), ibf_node_port_id(h.f, h.h1, 1));
	assert_int_equal(ibf_fabric_lid_owner(h.f, 7), ibf_node_port_id(h.f, h.h1, 1));
	assert_int_equal(ibf_fabric_lid_owner(h.f, 5), IBF_NO_ID);
	assert_int_equal(ibf_fabric_lid_owner(h.f, 11), IBF_NO_ID);
	assert_int_equal(ibf_fabric_lid_owner(h.f, 14), IBF_NO_ID);
	assert_int_equal(ibf_fabric_lid_owner(h.f, 60000), IBF_NO_ID);
	/* A switch port's base LID is its port 0 LID. */
	assert_int_equal(ibf_port_base_lid(h.f, ibf_node_port_id(h.f, h.s1, 3)), 10);
	ibf_fabric_destroy(h.f);
}

static void test_indices(void **state)
{
	struct hand h;

	build_hand(&h, true);
	assert_int_equal(h.f->nswitches, 2);
	assert_int_equal(h.f->switches[0], h.s0);
	assert_int_equal(h.f->switches[1], h.s1);
	assert_int_equal(h.f->switch_index[h.s1], 1);
	assert_int_equal(h.f->switch_index[h.h0], IBF_NO_ID);
	assert_int_equal(h.f->nendpoints, 4);
	assert_int_equal(h.f->endpoints[0], ibf_node_port_id(h.f, h.h0, 1));
	assert_int_equal(h.f->endpoints[2], ibf_node_port_id(h.f, h.h1, 2));
	assert_int_equal(h.f->endpoint_index[ibf_node_port_id(h.f, h.h1, 2)], 2);
	assert_int_equal(h.f->endpoint_index[ibf_node_port_id(h.f, h.h2, 1)], 3);
	assert_int_equal(h.f->endpoint_index[ibf_node_port_id(h.f, h.s0, 1)],
			 IBF_NO_ID);
	/* Port GUIDs assigned as node GUID + port; switch ports share one. */
	assert_true(ibf_node_port(h.f, h.h1, 2)->guid == 0x302);
	assert_true(ibf_node_port(h.f, h.s0, 3)->guid == 0x200);
	assert_int_equal(ibf_fabric_port_by_guid(h.f, 0x302),
			 ibf_node_port_id(h.f, h.h1, 2));
	assert_int_equal(ibf_fabric_node_by_guid(h.f, 0x400), h.s1);
	assert_int_equal(ibf_fabric_node_by_guid(h.f, 0x401), IBF_NO_ID);
	/* Peers point at each other. */
	assert_int_equal(ibf_node_port(h.f, h.s0, 4)->peer,
			 ibf_node_port_id(h.f, h.s1, 4));
	assert_int_equal(ibf_node_port(h.f, h.s1, 4)->peer,
			 ibf_node_port_id(h.f, h.s0, 4));
	assert_int_equal(ibf_node_port(h.f, h.s0, 2)->state, IBF_PORT_ACTIVE);
	assert_int_equal(ibf_node_port(h.f, h.h0, 0)->state, IBF_PORT_DOWN);
	ibf_fabric_destroy(h.f);
}

/* A port's state as ibf_fabric_set_state() leaves it: links are ACTIVE
 * when made, a state set before finalize stays, and what is not a port,
 * not a state or after finalize is refused with the fabric unchanged. */
static void test_set_state(void **state)
{
	ibf_finalize_opts_t opts = { .lmc = 1 };
	struct hand h;
	ibf_err_t err;

	(void)state;
	build_hand(&h, false);
	assert_int_equal(ibf_node_port(h.f, h.s0, 3)->state, IBF_PORT_ACTIVE);
	assert_int_equal(ibf_fabric_set_state(h.f, h.s0, 3, IBF_PORT_DOWN,
					      &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_state(h.f, h.s0, 5, IBF_PORT_DOWN,
					      &err), IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_set_state(h.f, h.s0, 0, IBF_PORT_DOWN,
					      &err), IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_set_state(h.f, h.h2 + 1, 1, IBF_PORT_DOWN,
					      &err), IBF_ERR_NOT_FOUND);
	assert_int_equal(ibf_fabric_set_state(h.f, h.s0, 4,
					      (ibf_port_state_t)(IBF_PORT_ACTIVE + 1),
					      &err), IBF_ERR_RANGE);
	assert_non_null(strstr(err.msg, "bad port state"));
	assert_int_equal(ibf_node_port(h.f, h.s0, 4)->state, IBF_PORT_ACTIVE);
	assert_int_equal(ibf_fabric_finalize(h.f, &opts, &err), IBF_OK);
	assert_int_equal(ibf_node_port(h.f, h.s0, 3)->state, IBF_PORT_DOWN);
	assert_int_equal(ibf_node_port(h.f, h.s1, 3)->state, IBF_PORT_ACTIVE);
	assert_int_equal(ibf_fabric_set_state(h.f, h.s0, 3, IBF_PORT_ACTIVE,
					      &err), IBF_ERR_INVALID);
	assert_int_equal(ibf_node_port(h.f, h.s0, 3)->state, IBF_PORT_DOWN);
	ibf_fabric_destroy(h.f);
}

static void test_capacity(void **state)
{
	struct hand h;
	ibf_port_t bare = { .width = 0 };

	build_hand(&h, true);
	/* 4 x 25.78125 and 12 x 53.125 Gb/s. */
	assert_true(ibf_port_capacity(ibf_node_port(h.f, h.s0, 3)) == 103.125);
	assert_true(ibf_port_capacity(ibf_node_port(h.f, h.s0, 4)) == 637.5);
	assert_true(ibf_port_capacity(&bare) == 1.0);
	assert_int_equal(ibf_speed_from_name("edr", 3), IBF_SPEED_EDR);
	assert_int_equal(ibf_speed_from_name("FDR10", 5), IBF_SPEED_FDR10);
	assert_int_equal(ibf_speed_from_name("FDR1", 4), IBF_SPEED_UNKNOWN);
	ibf_fabric_destroy(h.f);
}

static void test_resolve_host(void **state)
{
	struct hand h;
	ibf_port_id_t p;
	ibf_err_t err;

	build_hand(&h, true);
	assert_int_equal(ibf_fabric_resolve_host(h.f, "h2 HCA-1", &p, &err), IBF_OK);
	assert_int_equal(p, ibf_node_port_id(h.f, h.h2, 1));
	assert_int_equal(ibf_fabric_resolve_host(h.f, "0x302", &p, &err), IBF_OK);
	assert_int_equal(p, ibf_node_port_id(h.f, h.h1, 2));
	/* A node GUID names the CA's first connected port. */
	assert_int_equal(ibf_fabric_resolve_host(h.f, "0x300", &p, &err), IBF_OK);
	assert_int_equal(p, ibf_node_port_id(h.f, h.h1, 1));
	assert_int_equal(ibf_fabric_resolve_host(h.f, "9", &p, &err), IBF_OK);
	assert_int_equal(p, ibf_node_port_id(h.f, h.h1, 2));
	/* Switches, unknown names, switch LIDs and free LIDs are not hosts. */
	assert_int_equal(ibf_fabric_resolve_host(h.f, "s0", &p, &err),
			 IBF_ERR_NOT_FOUND);
	assert_non_null(strstr(err.msg, "\"s0\""));
	assert_int_equal(ibf_fabric_resolve_host(h.f, "nosuch", &p, &err),
			 IBF_ERR_NOT_FOUND);
	assert_int_equal(ibf_fabric_resolve_host(h.f, "4", &p, &err),
			 IBF_ERR_NOT_FOUND);
	assert_int_equal(ibf_fabric_resolve_host(h.f, "5", &p, &err),
			 IBF_ERR_NOT_FOUND);
	assert_int_equal(ibf_fabric_resolve_host(h.f, "0xzz", &p, &err),
			 IBF_ERR_NOT_FOUND);
	ibf_fabric_destroy(h.f);
}

static void test_host_names(void **state)
{
	struct hand h;
	char buf[64];

	build_hand(&h, true);
	assert_string_equal(ibf_port_host_name(h.f, ibf_node_port_id(h.f, h.h0, 1),
					       buf, sizeof(buf)), "h0 HCA-1");
	/* The second port of a dual-port CA is named by its GUID. */
	assert_string_equal(ibf_port_host_name(h.f, ibf_node_port_id(h.f, h.h1, 2),
					       buf, sizeof(buf)),
			    "0x0000000000000302");
	ibf_fabric_destroy(h.f);
}

static void test_ambiguous_desc(void **state)
{
	ibf_fabric_t *f;
	ibf_node_id_t a, b, s;
	ibf_port_id_t p;
	ibf_err_t err;
	bool amb;

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 1, "dup", 1, &a, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA, 2, "dup", 1, &b, &err), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH, 3, "sw", 2, &s, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, a, 1, s, 1, 0, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(f, b, 1, s, 2, 0, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	assert_int_equal(ibf_fabric_node_by_desc(f, "dup", &amb), a);
	assert_true(amb);
	assert_int_equal(ibf_fabric_resolve_host(f, "dup", &p, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "ambiguous"));
	ibf_fabric_destroy(f);
}

static void test_refusals(void **state)
{
	struct hand h;
	ibf_node_id_t n;
	ibf_err_t err;

	build_hand(&h, false);
	/* Duplicate node GUID. */
	assert_int_equal(ibf_fabric_add_node(h.f, IBF_NODE_CA, 0x300, "x", 1, &n,
					     &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "duplicate node GUID"));
	/* Port counts. */
	assert_int_equal(ibf_fabric_add_node(h.f, IBF_NODE_SWITCH, 0x900, "big",
					     255, &n, &err), IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_add_node(h.f, IBF_NODE_CA, 0x901, "none",
					     0, &n, &err), IBF_ERR_RANGE);
	/* Port out of range, port 0 link, self link. */
	assert_int_equal(ibf_fabric_link(h.f, h.s0, 5, h.h0, 1, 4, 0, &err),
			 IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_link(h.f, h.s0, 0, h.h0, 1, 4, 0, &err),
			 IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_link(h.f, h.s0, 3, h.s0, 3, 4, 0, &err),
			 IBF_ERR_INVALID);
	/* The same link from the other end is fine; elsewhere it is not. */
	assert_int_equal(ibf_fabric_link(h.f, h.s1, 3, h.s0, 3, 4, IBF_SPEED_EDR,
					 &err), IBF_OK);
	assert_int_equal(ibf_fabric_link(h.f, h.s1, 3, h.s0, 3, 1, IBF_SPEED_EDR,
					 &err), IBF_ERR_INVALID);
	assert_int_equal(ibf_fabric_link(h.f, h.s1, 3, h.h2, 1, 4, 0, &err),
			 IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "asymmetric"));
	assert_int_equal(ibf_fabric_link(h.f, h.s0, 1, h.s1, 1, 3, 0, &err),
			 IBF_ERR_RANGE); /* 3x is not a width */
	ibf_fabric_destroy(h.f);
}

static void test_lid_validation(void **state)
{
	ibf_finalize_opts_t opts = { .lmc = 2 };
	struct hand h;
	ibf_err_t err;

	build_hand(&h, false);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h0, 1, 0, 4, 2, &err), IBF_OK);
	/* Overlap with LIDs 4..7 of h0, misalignment, range, switch port. */
	assert_int_equal(ibf_fabric_set_port(h.f, h.s0, 0, 0, 6, 0, &err),
			 IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "LID 6 is already used by \"h0 HCA-1\""));
	assert_int_equal(ibf_fabric_set_port(h.f, h.h2, 1, 0, 10, 2, &err),
			 IBF_ERR_INVALID);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h2, 1, 0, 0xBFFF, 1, &err),
			 IBF_ERR_RANGE);
	assert_int_equal(ibf_fabric_set_port(h.f, h.s0, 2, 0, 20, 0, &err),
			 IBF_ERR_INVALID);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h2, 1, 0, 8, 8, &err),
			 IBF_ERR_RANGE);
	/* Moving a LID frees the old one. */
	assert_int_equal(ibf_fabric_set_port(h.f, h.h0, 1, 0, 32, 2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.s0, 0, 0, 6, 0, &err), IBF_OK);
	/* Some ports with LIDs, others without: inconsistent. */
	assert_int_equal(ibf_fabric_finalize(h.f, &opts, &err), IBF_ERR_INVALID);
	assert_non_null(strstr(err.msg, "has no LID"));
	ibf_fabric_destroy(h.f);
}

static void test_given_lids_kept(void **state)
{
	struct hand h;
	ibf_err_t err;

	build_hand(&h, false);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h0, 1, 0, 100, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.s0, 0, 0, 1, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h1, 1, 0, 40, 2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h1, 2, 0, 44, 2, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.s1, 0, 0, 2, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(h.f, h.h2, 1, 0, 3, 0, &err), IBF_OK);
	assert_int_equal(ibf_fabric_finalize(h.f, NULL, &err), IBF_OK);
	assert_int_equal(h.f->lid_top, 100);
	assert_int_equal(h.f->lmc, 2);
	assert_int_equal(ibf_fabric_lid_owner(h.f, 47), ibf_node_port_id(h.f, h.h1, 2));
	/* Sealed: no more changes. */
	assert_int_equal(ibf_fabric_link(h.f, h.h0, 1, h.s0, 1, 0, 0, &err),
			 IBF_ERR_INVALID);
	ibf_fabric_destroy(h.f);
}

static void test_compare(void **state)
{
	struct hand a, b;
	ibf_err_t err;

	build_hand(&a, true);
	build_hand(&b, true);
	assert_int_equal(ibf_fabric_compare(a.f, b.f, &err), IBF_OK);
	/* Same, but the parallel link s0[4]-s1[4] is missing. */
	{
		ibf_finalize_opts_t opts = { .lmc = 1 };
		ibf_fabric_t *f;
		ibf_node_id_t n[5];
		static const char *d[] = { "h0 HCA-1", "s0", "h1 HCA-1", "s1", "h2 HCA-1" };
		static const int t[] = { IBF_NODE_CA, IBF_NODE_SWITCH, IBF_NODE_CA,
					 IBF_NODE_SWITCH, IBF_NODE_CA };
		static const unsigned np[] = { 1, 4, 2, 4, 1 };
		int i;

		assert_int_equal(ibf_fabric_create(&f), IBF_OK);
		for (i = 0; i < 5; i++)
			assert_int_equal(ibf_fabric_add_node(f, t[i], 0x100u * (i + 1),
							     d[i], np[i], &n[i], &err), IBF_OK);
		ibf_fabric_link(f, n[0], 1, n[1], 1, 4, IBF_SPEED_EDR, &err);
		ibf_fabric_link(f, n[2], 1, n[1], 2, 4, IBF_SPEED_EDR, &err);
		ibf_fabric_link(f, n[2], 2, n[3], 2, 4, IBF_SPEED_EDR, &err);
		ibf_fabric_link(f, n[4], 1, n[3], 1, 4, IBF_SPEED_EDR, &err);
		ibf_fabric_link(f, n[1], 3, n[3], 3, 4, IBF_SPEED_EDR, &err);
		assert_int_equal(ibf_fabric_finalize(f, &opts, &err), IBF_OK);
		assert_int_equal(ibf_fabric_compare(a.f, f, &err), IBF_ERR_INVALID);
		assert_non_null(strstr(err.msg, "\"s0\" port 4"));
		ibf_fabric_destroy(f);
	}
	ibf_fabric_destroy(a.f);
	ibf_fabric_destroy(b.f);
}

/* Many nodes: every GUID and LID lookup finds its node (hash growth). */
static void test_scale(void **state)
{
	enum { N = 20000 };
	ibf_fabric_t *f;
	ibf_node_id_t sw, n;
	ibf_err_t err;
	unsigned i;

	assert_int_equal(ibf_fabric_create(&f), IBF_OK);
	for (i = 0; i < N; i++) {
		char d[32];

		snprintf(d, sizeof(d), "h%05u HCA-1", i);
		assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_CA,
						     0x1000000ULL + ((uint64_t)i << 8),
						     d, 1, &n, &err), IBF_OK);
		if (i % 200 == 0)
			assert_int_equal(ibf_fabric_add_node(f, IBF_NODE_SWITCH,
					 0x9000000000ULL + i, "sw", 200, &sw,
					 &err), IBF_OK);
		assert_int_equal(ibf_fabric_link(f, n, 1, sw, i % 200 + 1, 4,
						 IBF_SPEED_HDR, &err), IBF_OK);
	}
	assert_int_equal(ibf_fabric_finalize(f, NULL, &err), IBF_OK);
	assert_int_equal(f->nendpoints, N);
	for (i = 0; i < N; i += 7) {
		char d[32];
		ibf_port_id_t p;

		snprintf(d, sizeof(d), "h%05u HCA-1", i);
		n = ibf_fabric_node_by_guid(f, 0x1000000ULL + ((uint64_t)i << 8));
		assert_int_not_equal(n, IBF_NO_ID);
		assert_string_equal(ibf_node_desc(f, n), d);
		assert_int_equal(ibf_fabric_resolve_host(f, d, &p, &err), IBF_OK);
		assert_int_equal(p, ibf_node_port_id(f, n, 1));
		assert_int_equal(ibf_fabric_lid_owner(f, ibf_port(f, p)->lid), p);
	}
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lids_assigned_like_opensm),
		cmocka_unit_test(test_indices),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_set_state),
		cmocka_unit_test(test_resolve_host),
		cmocka_unit_test(test_host_names),
		cmocka_unit_test(test_ambiguous_desc),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_lid_validation),
		cmocka_unit_test(test_given_lids_kept),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_scale),
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
