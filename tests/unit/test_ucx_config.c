/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_* configuration (libibflow_ucx, docs/ucx.md): defaults, good
 * values read back as set, malformed and out-of-range values refused with
 * the variable's full name (a negative number for an unsigned too, which
 * UCX's own type would take as 4294967295), unknown UCX_IBFLOW_ variables,
 * the cross-field rule, ibf_ucx_config_modify() keeping the old value on
 * error, and the UCX-style listing of every variable.
 *
 * Expected values are the documented defaults and the strings set here.
 * Built without the UCX component, the program reports one skip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifdef IBF_HAVE_UCX_COMPONENT
#include <ibflow/ucx.h>

extern char **environ;

static const char *const VARS[] = {
	"FABRIC", "HOSTMAP", "ADDRMAP", "LID_OFFSET", "FALLBACK",
	"NET_DEVICES", "TLS", "TIMEOUT", "PROBE_STALL", "PROBE_MAX",
	"PROBE_RUNS", "PROBE_WARMUP", "PROBE_SIZE", "PROBE_TRIES",
	"PROBE_ROUNDS", "PROBE_SPIN", "PROBE_CONCURRENCY", "ALLTOALL",
	"ALLTOALL_THRESH", "ALLTOALL_SYNC",
};
#define NVARS (sizeof(VARS) / sizeof(VARS[0]))

/* Remove every UCX_IBFLOW_ variable (unknown ones too). */
static int clean_env(void **state)
{
	char name[256];
	char **e;
	bool again = true;

	(void)state;
	while (again) {
		again = false;
		for (e = environ; *e; e++) {
			size_t n = strcspn(*e, "=");

			if (strncmp(*e, "UCX_IBFLOW_", 11) || n >= sizeof(name))
				continue;
			memcpy(name, *e, n);
			name[n] = '\0';
			unsetenv(name);
			again = true;
			break;
		}
	}
	return 0;
}

static void setvar(const char *var, const char *value)
{
	char name[128];

	snprintf(name, sizeof(name), "UCX_IBFLOW_%s", var);
	assert_int_equal(setenv(name, value, 1), 0);
}

static void want_value(const ibf_ucx_config_t *c, const char *var,
			 const char *want)
{
	char buf[256];
	ibf_ucx_err_t e;

	/* stray bytes where the value goes: a value not written shows */
	memset(buf, 'X', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	assert_int_equal(ibf_ucx_config_get(c, var, buf, sizeof(buf), &e),
			 IBF_UCX_OK);
	if (strcmp(buf, want))
		fail_msg("%s: got '%s', want '%s'", var, buf, want);
}

/* Reading must fail with st and a message holding every needle. */
static void want_refused(ibf_ucx_status_t st, const char *n1,
			   const char *n2)
{
	ibf_ucx_config_t *c = (ibf_ucx_config_t *)1;
	ibf_ucx_err_t e;

	assert_int_equal(ibf_ucx_config_read(&c, &e), st);
	assert_null(c);
	assert_int_equal(e.status, st);
	if (!strstr(e.msg, n1) || (n2 && !strstr(e.msg, n2)))
		fail_msg("message '%s' lacks '%s' / '%s'", e.msg, n1,
			 n2 ? n2 : "");
}

static void test_defaults(void **state)
{
	ibf_ucx_config_t *c;
	ibf_ucx_err_t e;

	(void)state;
	assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
	want_value(c, "FABRIC", "");
	want_value(c, "HOSTMAP", "");
	want_value(c, "LID_OFFSET", "0");
	want_value(c, "FALLBACK", "n");
	want_value(c, "NET_DEVICES", "all");
	want_value(c, "TLS", "all");
	want_value(c, "PROBE_STALL", "10");
	want_value(c, "PROBE_MAX", "30");
	want_value(c, "PROBE_RUNS", "3");
	want_value(c, "PROBE_ROUNDS", "parallel");
	want_value(c, "PROBE_SPIN", "auto");
	assert_true(ibf_ucx_config_timeout(c) == 60.0);
	ibf_ucx_config_release(c);
}

static void test_good_values(void **state)
{
	ibf_ucx_config_t *c;
	ibf_ucx_err_t e;

	(void)state;
	setvar("FABRIC", "/some/dir");
	setvar("PROBE_STALL", "5");
	setvar("PROBE_MAX", "12");
	setvar("PROBE_RUNS", "1");
	setvar("LID_OFFSET", "3");
	setvar("FALLBACK", "y");
	setvar("NET_DEVICES", "fab1,mlx5_0:1");
	setvar("TLS", "tcp");
	setvar("TIMEOUT", "500ms");
	setvar("PROBE_ROUNDS", "all-pairs");
	setvar("PROBE_SPIN", "10us");
	assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
	want_value(c, "FABRIC", "/some/dir");
	want_value(c, "UCX_IBFLOW_PROBE_STALL", "5");
	want_value(c, "PROBE_MAX", "12");
	want_value(c, "PROBE_RUNS", "1");
	want_value(c, "LID_OFFSET", "3");
	want_value(c, "FALLBACK", "y");
	want_value(c, "NET_DEVICES", "fab1,mlx5_0:1");
	want_value(c, "TLS", "tcp");
	want_value(c, "PROBE_ROUNDS", "all-pairs");
	assert_true(ibf_ucx_config_timeout(c) > 0.4999 &&
		    ibf_ucx_config_timeout(c) < 0.5001);
	ibf_ucx_config_release(c);
}

/* An empty list (UCX_IBFLOW_NET_DEVICES=) prints as empty: UCX's printer
 * writes nothing for it, and what the buffer held must not pass for the
 * value (it once reached ucp_config_modify as a device list). */
static void test_empty_lists(void **state)
{
	ibf_ucx_config_t *c;
	ibf_ucx_err_t e;

	(void)state;
	setvar("NET_DEVICES", "");
	setvar("TLS", "");
	assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
	want_value(c, "NET_DEVICES", "");
	want_value(c, "TLS", "");
	ibf_ucx_config_release(c);
}

static void test_bad_values(void **state)
{
	static const struct { const char *var, *value; } bad[] = {
		{ "PROBE_STALL", "abc" },
		{ "PROBE_STALL", "-1" },        /* UCX's uint would wrap */
		{ "PROBE_STALL", "0" },         /* below the minimum 1 */
		{ "PROBE_MAX", "4294967296" },  /* above 32 bits */
		{ "PROBE_RUNS", " 3" },         /* no blanks */
		{ "PROBE_SIZE", "2097152" },    /* above 1 MiB */
		{ "LID_OFFSET", "128" },
		{ "TIMEOUT", "-5s" },
		{ "TIMEOUT", "0" },
		{ "TIMEOUT", "soon" },
		{ "FALLBACK", "maybe" },
		{ "PROBE_ROUNDS", "random" },
		{ "PROBE_SPIN", "2s" },
	};
	char name[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clean_env(state);
		setvar(bad[i].var, bad[i].value);
		snprintf(name, sizeof(name), "UCX_IBFLOW_%s:", bad[i].var);
		want_refused(IBF_UCX_ERR_CONFIG, name, bad[i].value);
	}
}

static void test_unknown_variable(void **state)
{
	(void)state;
	setvar("PROBE_STAL", "3");
	want_refused(IBF_UCX_ERR_CONFIG, "UCX_IBFLOW_PROBE_STAL:",
		       "unknown variable");
}

static void test_cross_field(void **state)
{
	(void)state;
	setvar("PROBE_STALL", "40");
	want_refused(IBF_UCX_ERR_CONFIG, "UCX_IBFLOW_PROBE_STALL=40",
		       "UCX_IBFLOW_PROBE_MAX=30");
	clean_env(state);
	/* An inferred tree is routed at LMC 0: other LID offsets are
	 * refused, offset 0 is fine. */
	setvar("FABRIC", "infer");
	setvar("LID_OFFSET", "1");
	want_refused(IBF_UCX_ERR_CONFIG, "UCX_IBFLOW_LID_OFFSET=1",
		       "UCX_IBFLOW_FABRIC=infer");
	setvar("LID_OFFSET", "0");
	{
		ibf_ucx_config_t *c;
		ibf_ucx_err_t e;

		assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
		want_value(c, "FABRIC", "infer");
		ibf_ucx_config_release(c);
	}
}

static void test_modify(void **state)
{
	ibf_ucx_config_t *c;
	ibf_ucx_err_t e;

	(void)state;
	assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
	assert_int_equal(ibf_ucx_config_modify(c, "PROBE_RUNS", "7", &e),
			 IBF_UCX_OK);
	want_value(c, "PROBE_RUNS", "7");
	assert_int_equal(ibf_ucx_config_modify(c, "UCX_IBFLOW_PROBE_RUNS",
					       "8", &e), IBF_UCX_OK);
	want_value(c, "PROBE_RUNS", "8");
	/* Refused values leave the old one in place. */
	assert_int_equal(ibf_ucx_config_modify(c, "PROBE_RUNS", "-2", &e),
			 IBF_UCX_ERR_CONFIG);
	assert_non_null(strstr(e.msg, "UCX_IBFLOW_PROBE_RUNS"));
	want_value(c, "PROBE_RUNS", "8");
	assert_int_equal(ibf_ucx_config_modify(c, "PROBE_STALL", "31", &e),
			 IBF_UCX_ERR_CONFIG);
	want_value(c, "PROBE_STALL", "10");
	assert_int_equal(ibf_ucx_config_modify(c, "NOPE", "1", &e),
			 IBF_UCX_ERR_CONFIG);
	assert_non_null(strstr(e.msg, "NOPE"));
	ibf_ucx_config_release(c);
}

static void test_print_lists_all(void **state)
{
	ibf_ucx_config_t *c;
	ibf_ucx_err_t e;
	char *text = NULL, line[128];
	size_t len = 0, i;
	FILE *fp;

	(void)state;
	assert_int_equal(ibf_ucx_config_read(&c, &e), IBF_UCX_OK);
	fp = open_memstream(&text, &len);
	assert_non_null(fp);
	ibf_ucx_config_print(c, fp, true);
	fclose(fp);
	for (i = 0; i < NVARS; i++) {
		snprintf(line, sizeof(line), "\nUCX_IBFLOW_%s=", VARS[i]);
		if (!strstr(text, line))
			fail_msg("listing lacks %s", line + 1);
	}
	assert_non_null(strstr(text, "# syntax:"));
	free(text);
	ibf_ucx_config_release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_defaults, clean_env),
		cmocka_unit_test_setup(test_good_values, clean_env),
		cmocka_unit_test_setup(test_empty_lists, clean_env),
		cmocka_unit_test_setup(test_bad_values, clean_env),
		cmocka_unit_test_setup(test_unknown_variable, clean_env),
		cmocka_unit_test_setup(test_cross_field, clean_env),
		cmocka_unit_test_setup(test_modify, clean_env),
		cmocka_unit_test_setup(test_print_lists_all, clean_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
	printf("ok - ucx config # SKIP the UCX component is not built "
	       "(configure found no UCX devel headers or libibverbs)\n");
	return 0;
}
#endif
