/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Host lists and traffic files: names with blanks, GUID and LID forms,
 * quoting, the SRC/DST split of traffic lines, errors with FILE:LINE.
 *
 * Hand fabric: one 16-port switch "sw" (GUID 0x9000, LID 1) and these CAs,
 * each on its own switch port; CA n has node GUID 0x1000 + 0x100 * n and
 * port GUIDs node GUID + port number:
 *
 *   n  description     LID   note
 *   0  "h0042 HCA-1"   2
 *   1  "h0043 HCA-1"   3
 *   2  "a"             4     "a", "b c", "a b", "c": lines "a b c" are
 *   3  "b c"           5       ambiguous
 *   4  "a b"           6
 *   5  "c"             7
 *   6  "dup"           8     two nodes share "dup"
 *   7  "dup"           9
 *   8  "two-port"      10,11 ports 1 and 2 both connected
 *   9  "rack #3"       12    '#' after a blank: must be quoted
 *  10  "7up"           13    starts with a digit: written as GUID
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/hosts.h>
#include <ibflow/traffic.h>

#define NCA 11

static const char *const descs[NCA] = {
	"h0042 HCA-1", "h0043 HCA-1", "a", "b c", "a b", "c", "dup", "dup",
	"two-port", "rack #3", "7up",
};

struct fx {
	ibf_fabric_t *f;
	ibf_node_id_t ca[NCA];
	ibf_node_id_t sw;
};

/* Port id of CA n's port p. */
static ibf_port_id_t P(const struct fx *x, unsigned n, unsigned p)
{
	return ibf_node_port_id(x->f, x->ca[n], p);
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	unsigned n, swport = 1, lid = 2;
	ibf_err_t err;

	assert_non_null(x);
	assert_int_equal(ibf_fabric_create(&x->f), IBF_OK);
	assert_int_equal(ibf_fabric_add_node(x->f, IBF_NODE_SWITCH, 0x9000,
					     "sw", 16, &x->sw, &err), IBF_OK);
	assert_int_equal(ibf_fabric_set_port(x->f, x->sw, 0, 0x9000, 1, 0,
					     &err), IBF_OK);
	for (n = 0; n < NCA; n++) {
		uint64_t g = 0x1000 + 0x100 * n;
		unsigned np = n == 8 ? 2 : 1, p;

		assert_int_equal(ibf_fabric_add_node(x->f, IBF_NODE_CA, g,
						     descs[n], np, &x->ca[n],
						     &err), IBF_OK);
		for (p = 1; p <= np; p++) {
			assert_int_equal(ibf_fabric_set_port(x->f, x->ca[n], p,
							     g + p, lid++, 0,
							     &err), IBF_OK);
			assert_int_equal(ibf_fabric_link(x->f, x->ca[n], p,
							 x->sw, swport++, 4,
							 IBF_SPEED_EDR, &err),
					 IBF_OK);
		}
	}
	if (ibf_fabric_finalize(x->f, NULL, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(x->f->lid_top, 13);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	ibf_fabric_destroy(x->f);
	free(x);
	return 0;
}

static void load(ibf_text_t *t, const char *text)
{
	ibf_err_t err;

	assert_int_equal(ibf_text_from_buf(t, "in.txt", text, strlen(text),
					   &err), IBF_OK);
}

static void assert_prefix(const ibf_err_t *err, unsigned line,
			  const char *substr)
{
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "in.txt:%u: ", line);
	if (strncmp(err->msg, prefix, strlen(prefix)) != 0 ||
	    !strstr(err->msg, substr))
		fail_msg("message \"%s\", want \"%s...%s...\"", err->msg,
			 prefix, substr);
}

/* ---- host lists --------------------------------------------------------- */

static ibf_status_t hosts(const struct fx *x, const char *text,
			  ibf_hostlist_t *h, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	load(&t, text);
	ibf_err_clear(err);
	st = ibf_hosts_read_text(x->f, &t, h, err);
	ibf_text_free(&t);
	if (st != IBF_OK) {
		assert_null(h->ports);
		assert_int_equal(h->n, 0);
	}
	return st;
}

static void test_hosts_forms(void **state)
{
	static const char text[] =
		"h0042 HCA-1\n"                 /* description with a blank */
		"  0x0000000000001101  \n"      /* port GUID, blanks trimmed */
		"# a comment\n"
		"\n"
		"4\n"                           /* LID of "a" */
		"\"rack #3\"\n"                 /* quoted: '#' is a char */
		"b c   # trailing comment\n"
		"0x1800\n"                      /* node GUID: its first port */
		"0x1802\r\n"                    /* second port of two-port */
		"\t13\t\n";                     /* LID of "7up" */
	struct fx *x = *state;
	ibf_hostlist_t h;
	ibf_err_t err;

	if (hosts(x, text, &h, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(h.n, 8);
	assert_int_equal(h.ports[0], P(x, 0, 1));
	assert_int_equal(h.ports[1], P(x, 1, 1));
	assert_int_equal(h.ports[2], P(x, 2, 1));
	assert_int_equal(h.ports[3], P(x, 9, 1));
	assert_int_equal(h.ports[4], P(x, 3, 1));
	assert_int_equal(h.ports[5], P(x, 8, 1));
	assert_int_equal(h.ports[6], P(x, 8, 2));
	assert_int_equal(h.ports[7], P(x, 10, 1));
	ibf_hostlist_free(&h);
	assert_int_equal(hosts(x, "# nothing\n\n", &h, &err), IBF_OK);
	assert_int_equal(h.n, 0);
	ibf_hostlist_free(&h);
}

static void test_hosts_errors(void **state)
{
	struct fx *x = *state;
	ibf_hostlist_t h;
	ibf_err_t err;

	assert_int_equal(hosts(x, "a\nh0042 HCA-1\n\n4\n", &h, &err),
			 IBF_ERR_INVALID);
	assert_prefix(&err, 4, "host a listed twice, first at line 1");
	assert_int_equal(hosts(x, "0x1001\nh0042 HCA-1\n", &h, &err),
			 IBF_ERR_INVALID);
	assert_prefix(&err, 2, "first at line 1");
	assert_int_equal(hosts(x, "a\nnosuch host\n", &h, &err),
			 IBF_ERR_NOT_FOUND);
	assert_prefix(&err, 2, "\"nosuch host\"");
	assert_int_equal(hosts(x, "dup\n", &h, &err), IBF_ERR_INVALID);
	assert_prefix(&err, 1, "ambiguous");
	assert_int_equal(hosts(x, "c\n0x9000\n", &h, &err), IBF_ERR_NOT_FOUND);
	assert_prefix(&err, 2, "not a connected CA port");
	assert_int_equal(hosts(x, "c\n1\n", &h, &err), IBF_ERR_NOT_FOUND);
	assert_prefix(&err, 2, "not a connected CA port");
	assert_int_equal(hosts(x, "c\n99\n", &h, &err), IBF_ERR_NOT_FOUND);
	assert_prefix(&err, 2, "\"99\"");
	assert_int_equal(hosts(x, "\"a\n", &h, &err), IBF_ERR_PARSE);
	assert_prefix(&err, 1, "quoted");
	assert_int_equal(hosts(x, "\"a\" c\n", &h, &err), IBF_ERR_PARSE);
	assert_prefix(&err, 1, "junk");
	assert_int_equal(hosts(x, "\"\"\n", &h, &err), IBF_ERR_PARSE);
	assert_prefix(&err, 1, "empty");
}

static char *write_hosts(const struct fx *x, const ibf_hostlist_t *h)
{
	char *buf = NULL;
	size_t len = 0;
	ibf_err_t err;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(ibf_hosts_write(x->f, h, fp, &err), IBF_OK);
	fclose(fp);
	return buf;
}

static void test_hosts_write(void **state)
{
	struct fx *x = *state;
	ibf_port_id_t ports[] = {
		P(x, 0, 1), P(x, 9, 1), P(x, 6, 1), P(x, 8, 1), P(x, 8, 2),
		P(x, 10, 1), P(x, 2, 1),
	};
	ibf_hostlist_t h = { ports, 7 }, back;
	ibf_err_t err;
	char *text = write_hosts(x, &h);

	/* Unique descriptions as they are (blanks fine), "rack #3" quoted,
	 * the shared "dup", a CA's second port and "7up" as port GUIDs. */
	assert_string_equal(text,
			    "h0042 HCA-1\n"
			    "\"rack #3\"\n"
			    "0x0000000000001601\n"
			    "two-port\n"
			    "0x0000000000001802\n"
			    "0x0000000000001a01\n"
			    "a\n");
	if (hosts(x, text, &back, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(back.n, 7);
	assert_memory_equal(back.ports, ports, sizeof(ports));
	ibf_hostlist_free(&back);
	free(text);
}

/* ---- traffic files ------------------------------------------------------ */

static ibf_status_t traffic(const struct fx *x, const char *text,
			    ibf_traffic_t *tr, ibf_err_t *err)
{
	ibf_status_t st;
	ibf_text_t t;

	load(&t, text);
	ibf_err_clear(err);
	st = ibf_traffic_read_text(x->f, &t, tr, err);
	ibf_text_free(&t);
	if (st != IBF_OK) {
		assert_null(tr->flows);
		assert_int_equal(tr->n, 0);
	}
	return st;
}

static void assert_flow(const ibf_traffic_t *tr, unsigned i,
			ibf_port_id_t src, ibf_port_id_t dst, uint32_t count)
{
	assert_true(i < tr->n);
	assert_int_equal(tr->flows[i].src, src);
	assert_int_equal(tr->flows[i].dst, dst);
	assert_int_equal(tr->flows[i].count, count);
}

static void test_traffic_forms(void **state)
{
	static const char text[] =
		"h0042 HCA-1 h0043 HCA-1 5\n"        /* 0: unique split */
		"\"h0042 HCA-1\" \"h0043 HCA-1\"\n"  /* 1: quoted, COUNT 1 */
		"0x1001 3 7\n"                       /* 2: GUID, LID, COUNT */
		"2 3\n"                              /* 3: two LIDs */
		"\"a\" b c\n"                        /* 4: a -> "b c" */
		"a b \"c\" 4294967295\n"             /* 5: "a b" -> c, max */
		"   # only a comment\n"
		"\n"
		"c a 2 # comment\n"                  /* 6 */
		"0x1802\t\"rack #3\"\n"              /* 7 */
		"two-port 7up\n"                     /* 8 */
		"h0043 HCA-1 13\n";                  /* 9: LID, no COUNT */
	struct fx *x = *state;
	ibf_traffic_t tr;
	ibf_err_t err;

	if (traffic(x, text, &tr, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(tr.n, 10);
	assert_flow(&tr, 0, P(x, 0, 1), P(x, 1, 1), 5);
	assert_flow(&tr, 1, P(x, 0, 1), P(x, 1, 1), 1);
	assert_flow(&tr, 2, P(x, 0, 1), P(x, 1, 1), 7);
	assert_flow(&tr, 3, P(x, 0, 1), P(x, 1, 1), 1);
	assert_flow(&tr, 4, P(x, 2, 1), P(x, 3, 1), 1);
	assert_flow(&tr, 5, P(x, 4, 1), P(x, 5, 1), 4294967295u);
	assert_flow(&tr, 6, P(x, 5, 1), P(x, 2, 1), 2);
	assert_flow(&tr, 7, P(x, 8, 2), P(x, 9, 1), 1);
	assert_flow(&tr, 8, P(x, 8, 1), P(x, 10, 1), 1);
	assert_flow(&tr, 9, P(x, 1, 1), P(x, 10, 1), 1);
	ibf_traffic_free(&tr);
}

static void expect_traffic_error(const struct fx *x, const char *text,
				 ibf_status_t want, unsigned line,
				 const char *substr)
{
	ibf_traffic_t tr;
	ibf_err_t err;
	ibf_status_t st = traffic(x, text, &tr, &err);

	if (st != want)
		fail_msg("\"%s\": status %s, want %s (%s)", text,
			 ibf_status_str(st), ibf_status_str(want), err.msg);
	assert_prefix(&err, line, substr);
}

static void test_traffic_errors(void **state)
{
	struct fx *x = *state;
	char many[512];
	unsigned i;

	expect_traffic_error(x, "a c\na b c\n", IBF_ERR_PARSE, 2,
			     "ambiguous line: \"a\" -> \"b c\" or \"a b\" -> "
			     "\"c\"");
	expect_traffic_error(x, "a b c 3\n", IBF_ERR_PARSE, 1, "ambiguous");
	expect_traffic_error(x, "h0042 HCA-1 h0042 HCA-1\n", IBF_ERR_INVALID,
			     1, "same host h0042 HCA-1");
	expect_traffic_error(x, "2 0x1001\n", IBF_ERR_INVALID, 1, "same host");
	expect_traffic_error(x, "a c 0\n", IBF_ERR_PARSE, 1,
			     "COUNT 0: must be 1..4294967295");
	expect_traffic_error(x, "a c 4294967296\n", IBF_ERR_PARSE, 1,
			     "COUNT 4294967296");
	expect_traffic_error(x, "\n\na\n", IBF_ERR_PARSE, 3, "one name only");
	expect_traffic_error(x, "a nosuch\n", IBF_ERR_NOT_FOUND, 1,
			     "host \"nosuch\"");
	expect_traffic_error(x, "a c\na 99 2\n", IBF_ERR_NOT_FOUND, 2,
			     "host \"99\"");
	expect_traffic_error(x, "dup a\n", IBF_ERR_INVALID, 1, "ambiguous");
	expect_traffic_error(x, "x y z w\n", IBF_ERR_NOT_FOUND, 1,
			     "no reading of this line");
	expect_traffic_error(x, "\"a c\n", IBF_ERR_PARSE, 1, "unterminated");
	expect_traffic_error(x, "a \"c\"x\n", IBF_ERR_PARSE, 1,
			     "no blank after a quoted");
	expect_traffic_error(x, "a \"\"\n", IBF_ERR_PARSE, 1, "empty");
	/* A quoted name stands alone: it cannot join bare words. */
	expect_traffic_error(x, "h0042 \"HCA-1\" c\n", IBF_ERR_NOT_FOUND, 1,
			     "no reading");
	many[0] = '\0';
	for (i = 0; i < 65; i++)
		strcat(many, "a ");
	expect_traffic_error(x, many, IBF_ERR_PARSE, 1, "more than 64 words");
}

static void test_traffic_write(void **state)
{
	struct fx *x = *state;
	ibf_flow_t flows[] = {
		{ P(x, 0, 1), P(x, 1, 1), 1 },
		{ P(x, 2, 1), P(x, 3, 1), 3 },
		{ P(x, 8, 2), P(x, 10, 1), 1 },
		{ P(x, 9, 1), P(x, 7, 1), 4294967295u },
	};
	ibf_traffic_t tr = { flows, 4 }, back;
	char *buf = NULL;
	size_t len = 0;
	ibf_err_t err;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(ibf_traffic_write(x->f, &tr, fp, &err), IBF_OK);
	fclose(fp);
	assert_string_equal(buf,
			    "\"h0042 HCA-1\" \"h0043 HCA-1\"\n"
			    "a \"b c\" 3\n"
			    "0x0000000000001802 0x0000000000001a01\n"
			    "\"rack #3\" 0x0000000000001701 4294967295\n");
	if (traffic(x, buf, &back, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(back.n, 4);
	assert_memory_equal(back.flows, flows, sizeof(flows));
	ibf_traffic_free(&back);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_forms),
		cmocka_unit_test(test_hosts_errors),
		cmocka_unit_test(test_hosts_write),
		cmocka_unit_test(test_traffic_forms),
		cmocka_unit_test(test_traffic_errors),
		cmocka_unit_test(test_traffic_write),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
