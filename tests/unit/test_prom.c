/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Prometheus' text format as prom_io.c writes it, against strings
 * written out by hand from the format's rules: label values escape
 * backslash, double quote and line feed; HELP escapes backslash and line
 * feed; bytes that are not UTF-8 become U+FFFD; NaN and infinities as the format spells them; a routing's
 * unknown figures leave their families out; the fallback carries its
 * reason; the file is renamed into place (no temporary left).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/prom.h>

static char *capture_sample(const char *name, const ibf_prom_label_t *l,
			    unsigned n, double v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	ibf_prom_sample(fp, name, l, n, v);
	fclose(fp);
	return text;
}

static void test_escaping(void **state)
{
	const ibf_prom_label_t l[2] = { { "a", "x\"y\\z\nw" }, { "b", "" } };
	char *t, *text = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	t = capture_sample("m", l, 2, 1.5);
	assert_string_equal(t, "m{a=\"x\\\"y\\\\z\\nw\",b=\"\"} 1.5\n");
	free(t);
	{
		const ibf_prom_label_t u = { "n", "a\xff" "b\xc3\xa9\xed\xa0\x80" };

		/* a stray byte and a surrogate: U+FFFD each byte; e-acute
		 * kept */
		t = capture_sample("m", &u, 1, 2);
		assert_string_equal(t, "m{n=\"a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf"
				    "\xbd\xef\xbf\xbd\xef\xbf\xbd\"} 2\n");
		free(t);
	}
	t = capture_sample("m", NULL, 0, NAN);
	assert_string_equal(t, "m NaN\n");
	free(t);
	t = capture_sample("m", NULL, 0, -INFINITY);
	assert_string_equal(t, "m -Inf\n");
	free(t);
	fp = open_memstream(&text, &len);
	ibf_prom_family(fp, "m_total", IBF_PROM_COUNTER, "a \\ b\nc \"d\"");
	fclose(fp);
	assert_string_equal(text, "# HELP m_total a \\\\ b\\nc \"d\"\n"
			    "# TYPE m_total counter\n");
	free(text);
}

static void test_routing(void **state)
{
	ibf_prom_routing_t m;
	ibf_prom_pattern_t p = { "perm:4", 0.75, NAN, 3 };
	char *text = NULL;
	size_t len = 0;
	FILE *fp;
	ibf_err_t err;

	(void)state;
	ibf_prom_routing_init(&m);
	m.engine = "minhop";
	m.requested = "ibflow-layered";
	m.fallback_reason = "LMC 0 \"too\" small";
	m.routings_total = 2;
	m.patterns = &p;
	m.npatterns = 1;
	fp = open_memstream(&text, &len);
	ibf_err_clear(&err);
	assert_int_equal(ibf_prom_routing_write(&m, 1, fp, &err), IBF_OK);
	fclose(fp);
	assert_non_null(strstr(text, "\nibflow_routing_fallback{engine=\""
			       "minhop\",requested=\"ibflow-layered\",reason="
			       "\"LMC 0 \\\"too\\\" small\"} 1\n"));
	assert_non_null(strstr(text, "# TYPE ibflow_routings_total counter\n"
			       "ibflow_routings_total{engine=\"minhop\"} 2\n"));
	assert_non_null(strstr(text, "ibflow_mmf_index{engine=\"minhop\","
			       "pattern=\"perm:4\"} 0.75\n"));
	assert_non_null(strstr(text, "ibflow_link_flows_max{engine=\"minhop\","
			       "pattern=\"perm:4\"} 3\n"));
	/* unknown: no family at all */
	assert_null(strstr(text, "ibflow_mmf_optimum_ratio"));
	assert_null(strstr(text, "ibflow_deadlock_free"));
	assert_null(strstr(text, "ibflow_fabric_missing"));
	free(text);
}

static ibf_status_t fill(const void *ctx, FILE *fp, ibf_err_t *err)
{
	(void)err;
	fputs(ctx, fp);
	return IBF_OK;
}

static ibf_status_t fill_fails(const void *ctx, FILE *fp, ibf_err_t *err)
{
	(void)ctx;
	fputs("half", fp);
	return ibf_err_set(err, IBF_ERR_IO, "stopped");
}

static void test_file(void **state)
{
	char dir[] = "/tmp/ibf-prom-XXXXXX", path[64], buf[64], cmd[96];
	ibf_err_t err;
	FILE *fp;
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	ibf_err_clear(&err);
	assert_int_equal(ibf_prom_write_file(path, fill, "m 1\n", &err),
			 IBF_OK);
	assert_int_not_equal(ibf_prom_write_file(path, fill_fails, NULL, &err),
			     IBF_OK);
	fp = fopen(path, "r");
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_string_equal(buf, "m 1\n");   /* the failed write left it */
	snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) = 1", dir);
	assert_int_equal(system(cmd), 0);    /* no temporary left behind */
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_routing),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
