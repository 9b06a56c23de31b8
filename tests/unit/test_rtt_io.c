/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Unit tests of RTT files (ibflow/rtt_io.h): hosts defined by the file
 * and hosts of a lookup, both value forms, quoting, comments, every
 * refused line with its FILE:LINE, and the writer reading back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/rtt_io.h>

static ibf_status_t read_buf(const char *text, ibf_rtt_lookup_fn lookup,
			     void *ctx, ibf_rtt_set_t *s, ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st;

	ibf_err_clear(err);
	assert_int_equal(ibf_text_from_buf(&t, "f.rtt", text, strlen(text),
					   err), IBF_OK);
	st = ibf_rtt_read_text(&t, lookup, ctx, s, err);
	ibf_text_free(&t);
	return st;
}

/* The set names exactly these hosts, in this order. */
static void assert_names(const ibf_rtt_set_t *s, const char *const *names,
			 uint32_t n)
{
	assert_int_equal(s->nnames, n);
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(s->names[i], names[i]);
}

static void expect_error(const char *text, ibf_rtt_lookup_fn lookup,
			 const char *want)
{
	ibf_rtt_set_t s;
	ibf_err_t err;

	assert_int_not_equal(read_buf(text, lookup, NULL, &s, &err), IBF_OK);
	assert_null(s.m);
	assert_null(s.names);
	if (strncmp(err.msg, want, strlen(want)))
		fail_msg("'%s': got '%s', want '%s...'", text, err.msg, want);
}

static void test_open(void **state)
{
	const char *text =
		"# a comment\n"
		"alpha beta 12.5\n"
		"\n"
		"beta gamma 3 4   # the best and the worst round\n"
		"\"node 7\" alpha 1e1\n"
		"gamma \"node 7\" 0 0.5\n"
		"beta alpha 11 13\n";
	ibf_rtt_set_t s;
	ibf_err_t err;

	(void)state;
	assert_int_equal(read_buf(text, NULL, NULL, &s, &err), IBF_OK);
	assert_names(&s, (const char *[]){ "alpha", "beta", "gamma", "node 7" },
		     4);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.m[0].a, 0);
	assert_int_equal(s.m[0].b, 1);
	assert_true(s.m[0].min == 12.5 && s.m[0].max == 12.5);
	assert_int_equal(s.m[0].line, 2);
	assert_true(s.m[1].min == 3 && s.m[1].max == 4);
	assert_int_equal(s.m[1].line, 4);
	assert_int_equal(s.m[2].a, 3);
	assert_int_equal(s.m[2].b, 0);
	assert_true(s.m[2].min == 10);
	assert_true(s.m[3].min == 0 && s.m[3].max == 0.5);
	assert_int_equal(s.m[4].a, 1);
	assert_int_equal(s.m[4].line, 7);
	ibf_rtt_set_free(&s);
}

/* A lookup over fixed names, some with blanks, one a prefix of another. */
static const char *const known[] = { "h0 HCA-1", "h1 HCA-1", "h1", "5" };

static ibf_status_t lookup(void *ctx, const char *name, uint32_t *idx)
{
	uint32_t i;

	(void)ctx;
	for (i = 0; i < 4; i++)
		if (!strcmp(name, known[i])) {
			*idx = i;
			return IBF_OK;
		}
	return IBF_ERR_NOT_FOUND;
}

static void test_lookup(void **state)
{
	ibf_rtt_set_t s;
	ibf_err_t err;

	(void)state;
	assert_int_equal(read_buf("h0 HCA-1 h1 HCA-1 7\n"
				  "h0 HCA-1 h1 2 3\n"
				  "\"h1\" \"h0 HCA-1\" 4\n"
				  /* MIN MAX tried first: hosts h1, 5 */
				  "h1 5 6 8\n"
				  /* not hosts as MIN MAX: "h1 HCA-1", "5" */
				  "h1 HCA-1 5 9\n",
				  lookup, NULL, &s, &err), IBF_OK);
	assert_null(s.names);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.m[0].a, 0);
	assert_int_equal(s.m[0].b, 1);
	assert_int_equal(s.m[1].b, 2);
	assert_true(s.m[1].min == 2 && s.m[1].max == 3);
	assert_int_equal(s.m[2].a, 2);
	assert_int_equal(s.m[2].b, 0);
	assert_int_equal(s.m[3].a, 2);
	assert_int_equal(s.m[3].b, 3);
	assert_true(s.m[3].min == 6 && s.m[3].max == 8);
	assert_int_equal(s.m[4].a, 1);
	assert_int_equal(s.m[4].b, 3);
	assert_true(s.m[4].min == 9 && s.m[4].max == 9);
	ibf_rtt_set_free(&s);
	expect_error("h0 HCA-1 nobody 3\n", lookup,
		     "f.rtt:1: no two hosts named here");
	expect_error("h0 HCA-1 h0 HCA-1 3\n", lookup,
		     "f.rtt:1: a host with itself");
}

static void test_bad_lines(void **state)
{
	(void)state;
	expect_error("a b 1\na b\n", NULL, "f.rtt:2: expected A B RTT");
	expect_error("a b x\n", NULL, "f.rtt:1: 'x' is not a number");
	expect_error("\n\na b -4\n", NULL, "f.rtt:3: negative RTT -4");
	expect_error("a b -1 4\n", NULL, "f.rtt:1: negative RTT -1");
	expect_error("a b 5 4\n", NULL, "f.rtt:1: MIN 5 is larger than MAX 4");
	expect_error("a b inf\n", NULL, "f.rtt:1: 'inf' is not a finite");
	expect_error("a b nan 3\n", NULL, "f.rtt:1: 'nan' is not a finite");
	expect_error("a a 3\n", NULL, "f.rtt:1: a host with itself");
	expect_error("a b c 3\n", NULL, "f.rtt:1: expected A B RTT");
	expect_error("a b 1 2 3\n", NULL, "f.rtt:1: expected A B RTT");
	expect_error("\"a b 3\n", NULL, "f.rtt:1: unterminated quoted");
	expect_error("\"a\"b c 3\n", NULL, "f.rtt:1: no blank after a quoted");
	expect_error("\"\" b 3\n", NULL, "f.rtt:1: empty host name");
	expect_error("a \"b\" \"3\"\n", NULL, "f.rtt:1: '3' is not a number");
	expect_error("# nothing\n\n", NULL, "f.rtt: no measurements");
}

/* A host name too long for a name buffer, as A, as B and on a
 * "# hosts:" line: refused with the line. */
static void test_long_names(void **state)
{
	char longname[400], text[1024];

	(void)state;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(text, sizeof(text), "%s b 1\n", longname);
	expect_error(text, NULL, "f.rtt:1: host name longer than 254 bytes");
	snprintf(text, sizeof(text), "a b 1\na %s 1\n", longname);
	expect_error(text, NULL, "f.rtt:2: host name longer than 254 bytes");
	snprintf(text, sizeof(text), "# hosts: a %s\na b 1\n", longname);
	expect_error(text, NULL, "f.rtt:1: host name longer than 254 bytes");
}

static void test_write(void **state)
{
	static const char *const names[] = { "plain", "with blank", "#hash",
					     "a\"b", "tab\there", "x y\"",
					     "\"x", "back\\slash" };
	const unsigned nn = sizeof(names) / sizeof(names[0]);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	ibf_rtt_set_t s;
	ibf_err_t err;
	unsigned i;

	(void)state;
	for (i = 0; i + 1 < nn; i++)
		assert_int_equal(ibf_rtt_write_line(fp, names[i], names[i + 1],
						    0.1 * i, i == 2 ? 7 :
						    0.1 * i, &err), IBF_OK);
	assert_int_equal(ibf_rtt_write_line(fp, "line\nbreak", "z", 1, 1,
					    &err), IBF_ERR_INVALID);
	assert_int_equal(ibf_rtt_write_line(fp, "", "z", 1, 1, &err),
			 IBF_ERR_INVALID);
	fclose(fp);
	assert_int_equal(read_buf(buf, NULL, NULL, &s, &err), IBF_OK);
	assert_names(&s, names, nn);
	for (i = 0; i + 1 < nn; i++) {
		assert_int_equal(s.m[i].a, i);
		assert_int_equal(s.m[i].b, i + 1);
		assert_true(s.m[i].min == 0.1 * i);
		assert_true(s.m[i].max == (i == 2 ? 7 : 0.1 * i));
	}
	ibf_rtt_set_free(&s);
	free(buf);
}

/* "# hosts:" numbers its hosts first, in its order, names quoted as on
 * measurement lines; with a lookup it is a comment.  The writer's line
 * reads back to the same numbering. */
static void test_hosts_line(void **state)
{
	static const char *const names[] = { "zeta", "h1 HCA-1", "alpha" };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	ibf_rtt_set_t s;
	ibf_err_t err;

	(void)state;
	assert_int_equal(read_buf("# hosts: c \"b b\" a\n"
				  "a c 1\nd a 2\n", NULL, NULL, &s, &err),
			 IBF_OK);
	assert_names(&s, (const char *[]){ "c", "b b", "a", "d" }, 4);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.m[0].a, 2);
	assert_int_equal(s.m[0].b, 0);
	ibf_rtt_set_free(&s);
	/* with a lookup: a comment */
	assert_int_equal(read_buf("# hosts: nobody\nh1 \"h0 HCA-1\" 3\n",
				  lookup, NULL, &s, &err), IBF_OK);
	assert_int_equal(s.n, 1);
	ibf_rtt_set_free(&s);
	fp = open_memstream(&buf, &len);
	assert_int_equal(ibf_rtt_write_hosts(fp, names, 3, &err), IBF_OK);
	assert_int_equal(ibf_rtt_write_line(fp, "alpha", "zeta", 1, 2, &err),
			 IBF_OK);
	fclose(fp);
	assert_int_equal(read_buf(buf, NULL, NULL, &s, &err), IBF_OK);
	assert_names(&s, names, 3);
	assert_int_equal(s.m[0].a, 2);
	assert_int_equal(s.m[0].b, 0);
	ibf_rtt_set_free(&s);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_hosts_line),
	};

	return cmocka_run_group_tests_name("rtt_io", tests, NULL, NULL);
}
