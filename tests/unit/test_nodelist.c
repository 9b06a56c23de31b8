/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Slurm hostlists (ibf_nodelist_expand/read) and a job's nodes in a
 * routing's order (ibf_nodelist_order).
 *
 * The expansions below are what `scontrol show hostnames EXPR` prints,
 * derived by hand from Slurm's documented rules (no Slurm here): numbers
 * in the order written, as wide as the range's first number was written
 * (zero padding kept, never cut), several bracket groups expanded as a
 * product with the leftmost group slowest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/nodelist.h>

#include "test_util.h"

/* Names of nl joined by blanks, for one comparison. */
static char *joined(const ibf_nodelist_t *nl)
{
	size_t len = 1, at = 0;
	uint32_t i;
	char *s;

	for (i = 0; i < nl->n; i++)
		len += strlen(nl->names[i]) + 1;
	s = malloc(len);
	assert_non_null(s);
	s[0] = '\0';
	for (i = 0; i < nl->n; i++)
		at += (size_t)sprintf(s + at, "%s%s", i ? " " : "",
				      nl->names[i]);
	return s;
}

static void expands_to(const char *expr, const char *want)
{
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_err_t err;
	char *got;

	if (ibf_nodelist_expand(&nl, expr, strlen(expr), "t", 1, &err) !=
	    IBF_OK)
		fail_msg("%s: %s", expr, err.msg);
	got = joined(&nl);
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", expr, got, want);
	free(got);
	ibf_nodelist_free(&nl);
}

static void test_expand(void **state)
{
	(void)state;
	expands_to("h[0001-0004,0009]", "h0001 h0002 h0003 h0004 h0009");
	expands_to("a[1-2],b3", "a1 a2 b3");
	expands_to("r[1-2]n[08-10]",
		   "r1n08 r1n09 r1n10 r2n08 r2n09 r2n10");
	expands_to("h[8-10]", "h8 h9 h10");           /* width 1 */
	expands_to("h[1-010]", "h1 h2 h3 h4 h5 h6 h7 h8 h9 h10");
	expands_to("h[098-101]", "h098 h099 h100 h101");
	expands_to("h[98-101]", "h98 h99 h100 h101");
	expands_to("h[3,1,2]", "h3 h1 h2");           /* order kept */
	expands_to("x[5]y", "x5y");
	expands_to("[1-2]", "1 2");
	expands_to("h-[1-2]-ib", "h-1-ib h-2-ib");
	expands_to("node1", "node1");
	expands_to(" a , b\tc ", "a b c");            /* blanks separate */
	expands_to("h[00-01]x,y[7]", "h00x h01x y7");
	expands_to("a[0-1]b[0-1]c[5,7]",
		   "a0b0c5 a0b0c7 a0b1c5 a0b1c7 a1b0c5 a1b0c7 a1b1c5 a1b1c7");
	expands_to("", "");
}

static void fails_at(const char *expr, const char *want)
{
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_err_t err;

	/* Appending to a list that must come out untouched. */
	assert_int_equal(ibf_nodelist_expand(&nl, "k[1-2]", 6, "t", 1, &err),
			 IBF_OK);
	if (ibf_nodelist_expand(&nl, expr, strlen(expr), "in", 7, &err) ==
	    IBF_OK)
		fail_msg("%s: accepted", expr);
	assert_int_equal(err.status, IBF_ERR_PARSE);
	if (strncmp(err.msg, want, strlen(want)))
		fail_msg("%s: got '%s', want '%s...'", expr, err.msg, want);
	assert_int_equal(nl.n, 2);
	assert_string_equal(nl.names[1], "k2");
	ibf_nodelist_free(&nl);
}

static void test_errors(void **state)
{
	char longname[301];

	(void)state;
	fails_at("h[3-1]", "in:7:3: range 3-1 ends below its start");
	fails_at("h[1-", "in:7:2: '[' without ']'");
	fails_at("h[1-3", "in:7:2: '[' without ']'");
	fails_at("h]", "in:7:2: ']' without '['");
	fails_at("h[]", "in:7:3: empty range");
	fails_at("h[1,]", "in:7:5: empty range");
	fails_at("h[a]", "in:7:3: expected a number");
	fails_at("h[1-]", "in:7:5: empty range");
	fails_at("h[1 2]", "in:7:4: ' ' in brackets");
	fails_at("h[1[2]]", "in:7:4: '[' in brackets");
	fails_at("a,,b", "in:7:3: empty name after ','");
	fails_at(",a", "in:7:1: empty name before ','");
	fails_at("a,", "in:7:3: empty name after ','");
	fails_at("ok,h[0-1048576]", "in:7:4: more than 1048576 names");
	fails_at("h[0-1023]x[0-1023]", "in:7:1: more than 1048576 names");
	fails_at("h[1234567890123456789]", "in:7:3: number longer than 18");
	fails_at("x[0-999999999999999999]", "in:7:1: more than 1048576");
	memset(longname, 'a', 300);
	longname[300] = '\0';
	fails_at(longname, "in:7:1: name longer than 255 characters");
}

static void test_nul_byte(void **state)
{
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_nodelist_expand(&nl, "a\0b", 3, "in", 1, &err),
			 IBF_ERR_PARSE);
	assert_string_equal(err.msg, "in:1:2: control character 0x00");
	assert_int_equal(nl.n, 0);
	assert_int_equal(ibf_nodelist_expand(&nl, "ab\n", 3, "in", 1, &err),
			 IBF_ERR_PARSE);
	assert_string_equal(err.msg, "in:1:3: control character 0x0a");
}

static void test_read_text(void **state)
{
	const char *text = "# job nodes\n"
			   "a[1-2] b  # trailing\n"
			   "\n"
			   "c[01-02],d\n";
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_text_t t;
	ibf_err_t err;
	char *got;

	(void)state;
	assert_int_equal(ibf_text_from_buf(&t, "job.txt", text, strlen(text),
					   &err), IBF_OK);
	if (ibf_nodelist_read_text(&nl, &t, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	got = joined(&nl);
	assert_string_equal(got, "a1 a2 b c01 c02 d");
	free(got);
	ibf_text_free(&t);
	/* An error on line 3 leaves the list as it was. */
	text = "x\ny\nz[2-1]\n";
	assert_int_equal(ibf_text_from_buf(&t, "bad.txt", text, strlen(text),
					   &err), IBF_OK);
	assert_int_equal(ibf_nodelist_read_text(&nl, &t, &err), IBF_ERR_PARSE);
	assert_string_equal(err.msg,
			    "bad.txt:3:3: range 2-1 ends below its start");
	assert_int_equal(nl.n, 6);
	ibf_text_free(&t);
	ibf_nodelist_free(&nl);
}

/*
 * Hand fabric for the order: leaf switches L0 (GUID 0x9000) and L1
 * (0x9100), CAs
 *   0 "a HCA-1" on L0      3 "d HCA-1" on L1
 *   1 "b HCA-1" on L1      4 "d HCA-2" on L1   (host d, two HCAs)
 *   2 "c HCA-1" on L0      5 ""        on L0   (no name)
 * and the routing order b, a, d/HCA-1, c, (unnamed), d/HCA-2.  Leaves by
 * first appearance: L1 (b) then L0 (a).  Keys (leaf, place):
 * b (0,0), d (0,2) [HCA-1; HCA-2 is (0,5)], a (1,1), c (1,3).
 * So any job's nodes come out as b, d, a, c.
 */
static const char *const hand_desc[] = {
	"a HCA-1", "b HCA-1", "c HCA-1", "d HCA-1", "d HCA-2", "",
};
static const unsigned hand_leaf[] = { 0, 1, 0, 1, 1, 0 };
static const unsigned hand_order[] = { 1, 0, 3, 2, 5, 4 };
#define NHAND 6

struct hand {
	ibf_fabric_t *f;
	ibf_port_id_t order[NHAND];
};

static void hand_fabric(struct hand *h)
{
	ibf_node_id_t sw[2], ca[NHAND];
	unsigned n, lid = 3, swport[2] = { 1, 1 };
	ibf_err_t err;

	assert_int_equal(ibf_fabric_create(&h->f), IBF_OK);
	for (n = 0; n < 2; n++) {
		assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_SWITCH,
						     0x9000 + 0x100 * n, "leaf",
						     8, &sw[n], &err), IBF_OK);
		assert_int_equal(ibf_fabric_set_port(h->f, sw[n], 0,
						     0x9000 + 0x100 * n, 1 + n,
						     0, &err), IBF_OK);
	}
	assert_int_equal(ibf_fabric_link(h->f, sw[0], 8, sw[1], 8, 4,
					 IBF_SPEED_EDR, &err), IBF_OK);
	for (n = 0; n < NHAND; n++) {
		uint64_t g = 0x1000 + 0x100 * n;
		unsigned l = hand_leaf[n];

		assert_int_equal(ibf_fabric_add_node(h->f, IBF_NODE_CA, g,
						     hand_desc[n], 1, &ca[n],
						     &err), IBF_OK);
		assert_int_equal(ibf_fabric_set_port(h->f, ca[n], 1, g + 1,
						     lid++, 0, &err), IBF_OK);
		assert_int_equal(ibf_fabric_link(h->f, ca[n], 1, sw[l],
						 swport[l]++, 4, IBF_SPEED_EDR,
						 &err), IBF_OK);
	}
	if (ibf_fabric_finalize(h->f, NULL, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	for (n = 0; n < NHAND; n++)
		h->order[n] = ibf_node_port_id(h->f, ca[hand_order[n]], 1);
}

/* Expand expr, order it by h, compare with want (or the error). */
static void orders_to(const struct hand *h, const char *expr,
		      ibf_status_t want_st, const char *want)
{
	ibf_nodelist_t nl = { NULL, 0, 0 };
	ibf_err_t err;
	char *before, *got;

	assert_int_equal(ibf_nodelist_expand(&nl, expr, strlen(expr), "t", 1,
					     &err), IBF_OK);
	before = joined(&nl);
	if (ibf_nodelist_order(h->f, h->order, NHAND, &nl, &err) != want_st)
		fail_msg("%s: status %d (%s)", expr, err.status,
			 want_st == IBF_OK ? err.msg : "accepted");
	got = want_st == IBF_OK ? joined(&nl) : strdup(err.msg);
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", expr, got, want);
	if (want_st != IBF_OK) {
		free(got);
		got = joined(&nl);
		assert_string_equal(got, before);  /* untouched */
	}
	free(got);
	free(before);
	ibf_nodelist_free(&nl);
}

static void test_order_hand(void **state)
{
	struct hand h;

	(void)state;
	hand_fabric(&h);
	orders_to(&h, "a,b,c,d", IBF_OK, "b d a c");
	orders_to(&h, "c a", IBF_OK, "a c");
	orders_to(&h, "d,c,b", IBF_OK, "b d c");
	orders_to(&h, "a,zz,b,yy", IBF_ERR_NOT_FOUND,
		  "unknown nodes 'zz', 'yy': no connected CA's "
		  "NodeDescription begins with them");
	orders_to(&h, "HCA-1", IBF_ERR_NOT_FOUND,
		  "unknown node 'HCA-1': no connected CA's NodeDescription "
		  "begins with it");
	orders_to(&h, "q[1-5]", IBF_ERR_NOT_FOUND,
		  "unknown nodes 'q1', 'q2', 'q3' and 2 more: no connected "
		  "CA's NodeDescription begins with them");
	orders_to(&h, "a,b,a", IBF_ERR_INVALID, "node 'a' listed twice");
	ibf_fabric_destroy(h.f);
}

/*
 * Generated PGFTs with the D-mod-K order: ibflow gen names hosts h0000,
 * h0001, ... in label order, so the order of any subset is its names
 * sorted.  With w_1 = 2 every host has two ports on two leaves, and the
 * host order is still by label (docs/routing.md).
 */
static void pgft_case(const char *spec, uint32_t nhosts)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	ibf_routing_t *r = tu_route(f, "dmodk");
	ibf_nodelist_t nl = { NULL, 0, 0 };
	uint32_t pick[64], i, n = 0;
	uint64_t seed = 7;
	char name[16];
	ibf_err_t err;

	assert_true(nhosts <= 64);
	for (i = 0; i < nhosts; i++)
		if (tu_rand(&seed) % 3 == 0)
			pick[n++] = i;
	tu_shuffle(pick, n, &seed);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%04u", pick[i]);
		assert_int_equal(ibf_nodelist_expand(&nl, name, strlen(name),
						     "t", 1, &err), IBF_OK);
	}
	if (ibf_nodelist_order(f, r->order, r->norder, &nl, &err) != IBF_OK)
		fail_msg("%s: %s", spec, err.msg);
	assert_int_equal(nl.n, n);
	for (i = 1; i < n; i++)
		if (strcmp(nl.names[i - 1], nl.names[i]) >= 0)
			fail_msg("%s: %s before %s", spec, nl.names[i - 1],
				 nl.names[i]);
	ibf_nodelist_free(&nl);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
}

static void test_order_pgft(void **state)
{
	(void)state;
	pgft_case("xgft:2:4,4:1,4", 16);
	pgft_case("pgft:2:4,4:2,2:1,1", 16);
	pgft_case("xgft:3:2,2,4:1,2,2", 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_read_text),
		cmocka_unit_test(test_order_hand),
		cmocka_unit_test(test_order_pgft),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
