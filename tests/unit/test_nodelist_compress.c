/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Names compressed into one Slurm hostlist (ibf_nodelist_compress):
 * hand cases, worked out from the expansion rules of test_nodelist.c
 * (a range's numbers as wide as its first was written), and random sets
 * compressed and expanded again by the expander, a second algorithm: the
 * same set of names, each once.
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

static void want(const char *expect, unsigned n, ...)
{
	const char *names[32];
	char *got = NULL;
	ibf_err_t err;
	va_list ap;
	unsigned i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		names[i] = va_arg(ap, const char *);
	va_end(ap);
	ibf_err_clear(&err);
	assert_int_equal(ibf_nodelist_compress(names, n, &got, &err), IBF_OK);
	assert_string_equal(got, expect);
	free(got);
}

static void test_hand(void **state)
{
	(void)state;
	want("h[0000-0007,0010]", 9, "h0003", "h0000", "h0001", "h0002",
	     "h0010", "h0004", "h0005", "h0006", "h0007");
	want("h0005", 1, "h0005");
	want("h[8-10]", 3, "h10", "h8", "h9");            /* unpadded */
	want("h[08-11]", 4, "h08", "h09", "h10", "h11");   /* 10 joins */
	want("h100,h[08-09]", 3, "h08", "h100", "h09");    /* 100 cannot */
	want("h[0998-1000]", 3, "h0998", "h1000", "h0999"); /* 1000 joins */
	want("a,b[1-2],h[1,3]", 5, "h3", "b2", "a", "h1", "b1");
	want("r1n[1-2],r2n1", 3, "r2n1", "r1n2", "r1n1"); /* last number */
	want("h[1-2]", 3, "h1", "h2", "h1");              /* once each */
	want("", 0);
	want("x1234567890123456789", 1, "x1234567890123456789"); /* > 18 */
}

static void test_refused(void **state)
{
	const char *comma[] = { "a,b" }, *blank[] = { "a b" },
		   *bracket[] = { "a[1]" }, *empty[] = { "" };
	char *got = (char *)"untouched";
	ibf_err_t err;

	(void)state;
	assert_int_equal(ibf_nodelist_compress(comma, 1, &got, &err),
			 IBF_ERR_INVALID);
	assert_null(got);
	assert_non_null(strstr(err.msg, "'a,b'"));
	assert_int_equal(ibf_nodelist_compress(blank, 1, &got, &err),
			 IBF_ERR_INVALID);
	assert_int_equal(ibf_nodelist_compress(bracket, 1, &got, &err),
			 IBF_ERR_INVALID);
	assert_int_equal(ibf_nodelist_compress(empty, 1, &got, &err),
			 IBF_ERR_INVALID);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Random names over two prefixes, widths 1-4 with and without zero
 * padding: compress, expand, compare as sorted sets. */
static void test_round_trip(void **state)
{
	static const char *const prefix[] = { "h", "gpu-", "n1x" };
	unsigned seed = 7, round;

	(void)state;
	for (round = 0; round < 300; round++) {
		char *names[64], *out = NULL;
		unsigned n = 1 + (unsigned)(rand_r(&seed) % 60), i, k = 0;
		ibf_nodelist_t nl = { NULL, 0, 0 };
		ibf_err_t err;

		for (i = 0; i < n; i++) {
			unsigned w = 1 + (unsigned)(rand_r(&seed) % 4);
			unsigned v = (unsigned)(rand_r(&seed) % 1200);

			names[i] = malloc(32);
			if (rand_r(&seed) % 2)
				snprintf(names[i], 32, "%s%0*u",
					 prefix[rand_r(&seed) % 3], (int)w, v);
			else
				snprintf(names[i], 32, "%s%u",
					 prefix[rand_r(&seed) % 3], v);
		}
		ibf_err_clear(&err);
		assert_int_equal(ibf_nodelist_compress((const char *const *)names,
						       n, &out, &err), IBF_OK);
		assert_int_equal(ibf_nodelist_expand(&nl, out, strlen(out),
						     "<c>", 1, &err), IBF_OK);
		qsort(names, n, sizeof(*names), cmp);
		for (i = 0; i < n; i++)   /* distinct */
			if (!k || strcmp(names[k - 1], names[i]))
				names[k++] = names[i];
			else
				free(names[i]);
		qsort(nl.names, nl.n, sizeof(*nl.names), cmp);
		assert_int_equal(nl.n, k);
		for (i = 0; i < k; i++) {
			assert_string_equal(nl.names[i], names[i]);
			free(names[i]);
		}
		ibf_nodelist_free(&nl);
		free(out);
	}
}

/* A long list, as an expression of a few bytes makes it: 400,010 names
 * (h0009 twice).  As in "h100,h[08-09]", numbers wider than the padded
 * width cannot join the padded range: two ranges, unpadded first, which
 * expand to each name once. */
static void test_long_list(void **state)
{
	static const char expr[] = "h[0000-0400008,0009]";
	ibf_nodelist_t nl = { NULL, 0, 0 }, back = { NULL, 0, 0 };
	char *out = NULL, want[16];
	ibf_err_t err;
	uint32_t i;

	(void)state;
	ibf_err_clear(&err);
	assert_int_equal(ibf_nodelist_expand(&nl, expr, strlen(expr), "<e>",
					     1, &err), IBF_OK);
	assert_int_equal(nl.n, 400010);
	assert_int_equal(ibf_nodelist_compress((const char *const *)nl.names,
					       nl.n, &out, &err), IBF_OK);
	assert_string_equal(out, "h[10000-400008],h[0000-9999]");
	assert_int_equal(ibf_nodelist_expand(&back, out, strlen(out), "<c>", 1,
					     &err), IBF_OK);
	assert_int_equal(back.n, 400009);
	for (i = 0; i < back.n; i++) {
		if (i < 390009)
			snprintf(want, sizeof(want), "h%u", 10000u + i);
		else
			snprintf(want, sizeof(want), "h%04u", i - 390009u);
		assert_string_equal(back.names[i], want);
	}
	ibf_nodelist_free(&back);
	ibf_nodelist_free(&nl);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_long_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
