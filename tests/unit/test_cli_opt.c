/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The option parser's defaults (common/cli/cli_opt.h): an option's .def
 * is set before argv is read, so the default help shows is the one the
 * command gets; a value given replaces it; .def_text is help only; a
 * default that is no value of its option is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli_opt.h"

typedef struct args {
	unsigned n, layers;
	uint64_t bytes;
	double limit;
	int color;
	const char *map;
	unsigned called;
	bool quiet;
} args_t;

static const char *const colors[] = { "red", "green", "blue", NULL };

/* An IBF_OPT_CALL handler: counts its calls, keeps the value's length. */
static int count_call(void *target, const char *cmd, const char *v)
{
	unsigned *n = target;

	(void)cmd;
	*n = *n * 100 + (unsigned)strlen(v);
	return IBF_EXIT_OK;
}

static bool parse(args_t *a, const char *def_n, int argc, char **argv,
		  int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_UINT("n", &a->n, "N", 1, 100, "a number",
			     .def = def_n),
		IBF_OPT_UINT("layers", &a->layers, "N", 1, 8, "described",
			     .def_text = "2^LMC"),
		IBF_OPT_U64("bytes", &a->bytes, "B", "bytes", .def = "0x100"),
		IBF_OPT_REAL("limit", &a->limit, "S", 0, 100, "seconds",
			     .def = "2.5"),
		IBF_OPT_CHOICE("color", &a->color, "C", colors, "a color",
			       .def = "green"),
		IBF_OPT_STR("map", &a->map, "MAP", "a map", .def = "direct"),
		IBF_OPT_CALL("call", count_call, &a->called, "V", "a call",
			     .def = "abc"),
		IBF_OPT_FLAG("quiet", &a->quiet, "a flag", .letter = 'q'),
		IBF_OPT_END
	};
	const ibf_cli_spec_t s = { .name = "ibflow-test", .about = "test\n",
				   .opts = opts };

	memset(a, 0, sizeof(*a));
	a->layers = 7;
	return ibf_cli_parse(&s, argc, argv, NULL, rc);
}

static void test_defaults_applied(void **state)
{
	char *argv[] = { "ibflow-test", NULL };
	args_t a;
	int rc = -1;

	(void)state;
	assert_true(parse(&a, "42", 1, argv, &rc));
	assert_int_equal(a.n, 42);
	assert_int_equal(a.bytes, 256);
	assert_true(a.limit == 2.5);
	assert_int_equal(a.color, 1);
	assert_string_equal(a.map, "direct");
	assert_int_equal(a.called, 3);         /* once, with "abc" */
	assert_false(a.quiet);
	assert_int_equal(a.layers, 7);         /* .def_text: untouched */
}

static void test_given_replaces_default(void **state)
{
	char *argv[] = { "ibflow-test", "--n", "5", "--bytes=9", "--limit",
			 "0.5", "--color", "blue", "--map", "m.txt",
			 "--call", "xy", "-q", "--layers", "3", NULL };
	args_t a;
	int rc = -1;

	(void)state;
	assert_true(parse(&a, "42", 15, argv, &rc));
	assert_int_equal(a.n, 5);
	assert_int_equal(a.bytes, 9);
	assert_true(a.limit == 0.5);
	assert_int_equal(a.color, 2);
	assert_string_equal(a.map, "m.txt");
	assert_int_equal(a.called, 302);       /* default, then the value */
	assert_true(a.quiet);
	assert_int_equal(a.layers, 3);
}

static void test_bad_default_refused(void **state)
{
	char *argv[] = { "ibflow-test", NULL };
	args_t a;
	int rc = -1;

	(void)state;
	assert_false(parse(&a, "1000", 1, argv, &rc));   /* out of 1..100 */
	assert_int_equal(rc, IBF_EXIT_INPUT);
	assert_false(parse(&a, "2^LMC", 1, argv, &rc));  /* no number */
	assert_int_equal(rc, IBF_EXIT_INPUT);
}

static void test_help_shows_both(void **state)
{
	args_t a;
	const ibf_opt_t opts[] = {
		IBF_OPT_UINT("n", &a.n, "N", 1, 100, "a number", .def = "42"),
		IBF_OPT_UINT("layers", &a.layers, "N", 1, 8, "described",
			     .def_text = "2^LMC"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t s = { .name = "ibflow-test", .about = "test\n",
				   .opts = opts };
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	assert_non_null(fp);
	ibf_cli_help(&s, fp);
	fclose(fp);
	assert_non_null(strstr(text, "(1..100, default 42)"));
	assert_non_null(strstr(text, "(1..8, default 2^LMC)"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_applied),
		cmocka_unit_test(test_given_replaces_default),
		cmocka_unit_test(test_bad_default_refused),
		cmocka_unit_test(test_help_shows_both),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
