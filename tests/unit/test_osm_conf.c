/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow.conf (osm_plugin/conf.c, built here without OpenSM: the log is
 * captured): every key at the ends of its range and one past them, with
 * the message a refused value gets, and the keys the plugin knows
 * against those docs/osm-plugin.md and ibflow.conf.example list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#ifdef IBF_HAVE_OSM_PLUGIN
#include "ibflow_osm.h"

#define KEYS_MAX 64

static char logged[4096];         /* every line of the last load */

void ibf_osm_logf(ibf_osm_t *p, int level, const char *fmt, ...)
{
	size_t o = strlen(logged);
	va_list ap;

	(void)p;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(logged + o, sizeof(logged) - o, fmt, ap);
	va_end(ap);
	o = strlen(logged);
	snprintf(logged + o, sizeof(logged) - o, "\n");
}

/* Load one line from a fresh file into p: the ERR line's message, "" if
 * the line was taken. */
static const char *load_line(ibf_osm_t *p, const char *line)
{
	static char msg[1024];
	const char *tmp = getenv("TMPDIR");
	char path[1024];
	int fd;
	FILE *f;
	const char *e, *end;

	snprintf(path, sizeof(path), "%s/test_osm_conf.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "%s\n", line);
	fclose(f);
	logged[0] = '\0';
	ibf_osm_conf_free(&p->conf);
	ibf_osm_conf_load(p, path, true);
	unlink(path);
	msg[0] = '\0';
	if ((e = strstr(logged, ":1: "))) {
		e += 4;
		end = strstr(e, " (ignored, keeping the default)");
		assert_non_null(end);
		snprintf(msg, sizeof(msg), "%.*s", (int)(end - e), e);
	}
	return msg;
}

static ibf_osm_t *plugin(void)
{
	static ibf_osm_t p;
	static int init;

	if (!init) {
		pthread_mutex_init(&p.lock, NULL);
		ibf_osm_conf_defaults(&p.conf);
		init = 1;
	}
	return &p;
}

typedef struct value_case {
	const char *line, *msg;    /* msg "": accepted */
} value_case_t;

/* By hand from docs/osm-plugin.md: the ends of every range, one past. */
static const value_case_t value_cases[] = {
	{ "layers 0", "" }, { "layers 128", "" },
	{ "layers 129", "layers: a number 0..128 (0 = 2^LMC)" },
	{ "layers -1", "layers: a number 0..128 (0 = 2^LMC)" },
	{ "density 0", "" }, { "density 1", "" }, { "density 0.25", "" },
	{ "density 1.0001", "density: a number 0..1 (0 = engine default)" },
	{ "density -0.5", "density: a number 0..1 (0 = engine default)" },
	{ "density nan", "density: a number 0..1 (0 = engine default)" },
	{ "method random", "" }, { "method overlap", "" },
	{ "method Random", "method: random or overlap" },
	{ "seed 0", "" }, { "seed 18446744073709551615", "" },
	{ "seed 18446744073709551616", "seed: an unsigned integer" },
	{ "seed -1", "seed: an unsigned integer" },
	{ "vls 0", "" }, { "vls 15", "" },
	{ "vls 16", "vls: a number 0..15 (0 = 1)" },
	{ "max_vls 15", "" },
	{ "max_vls 16", "vls: a number 0..15 (0 = 1)" },
	{ "threads 0", "" }, { "threads 256", "" },
	{ "threads 257", "threads: a number 0..256" },
	{ "export yes", "" }, { "export off", "" },
	{ "export maybe", "export: yes or no" },
	{ "eval no", "" }, { "eval 2", "eval: yes or no" },
	{ "eval_opt TRUE", "" }, { "eval_opt x", "eval_opt: yes or no" },
	{ "eval_foreign 0", "" },
	{ "eval_foreign -", "eval_foreign: yes or no" },
	{ "export_dir /var/tmp", "" }, { "report_file /var/tmp/r.json", "" },
	{ "metrics_file /var/tmp/m.prom", "" },
	{ "eval_patterns perm:4,shift", "" },
	{ "eval_patterns nosuch", NULL },   /* the pattern parser's words */
	{ "eval_budget 0", "" }, { "eval_budget 86400", "" },
	{ "eval_budget 86400.5", "eval_budget: seconds, 0..86400" },
	{ "eval_budget -1", "eval_budget: seconds, 0..86400" },
	{ "eval_memory_mb 16", "" }, { "eval_memory_mb 1048576", "" },
	{ "eval_memory_mb 15", "eval_memory_mb: megabytes, 16..1048576" },
	{ "eval_memory_mb 1048577", "eval_memory_mb: megabytes, 16..1048576" },
	{ "eval_max_endpoints 0", "" }, { "eval_max_endpoints 1000000", "" },
	{ "eval_max_endpoints 1000001",
	  "eval_max_endpoints: a number 0..1000000" },
	{ "nosuch 1", "unknown key \"nosuch\"" },
	{ "layers", "layers: missing value" },
};

static void test_value_ranges(void **state)
{
	ibf_osm_t *p = plugin();
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(value_cases) / sizeof(*value_cases); i++) {
		const value_case_t *vc = &value_cases[i];
		const char *msg = load_line(p, vc->line);

		if (vc->msg ? strcmp(msg, vc->msg) : !*msg)
			fail_msg("\"%s\": got \"%s\", expected \"%s\"",
				 vc->line, msg, vc->msg ? vc->msg : "(error)");
	}
}

/* Values land in their fields; a refused one keeps the default. */
static void test_values_stored(void **state)
{
	ibf_osm_t *p = plugin();
	char line[IBF_OSM_PATH_MAX + 32];

	(void)state;
	load_line(p, "layers 128");
	assert_int_equal(p->conf.route.layers, 128);
	load_line(p, "method overlap");
	assert_int_equal(p->conf.route.method, IBF_LAYERS_OVERLAP);
	load_line(p, "seed 0x10");
	assert_true(p->conf.route.seed == 16);
	load_line(p, "density 0.25");
	assert_true(p->conf.route.density == 0.25);
	load_line(p, "eval_memory_mb 15");
	assert_int_equal(p->conf.eval_mem_mb, 256);
	load_line(p, "eval_budget 86400");
	assert_true(p->conf.eval_budget == 86400.0);
	load_line(p, "eval off");
	assert_false(p->conf.do_eval);
	load_line(p, "vls 15");
	assert_int_equal(p->conf.route.vls, 15);
	load_line(p, "max_vls 3");	/* the older name */
	assert_int_equal(p->conf.route.vls, 3);
	load_line(p, "threads 7");
	assert_int_equal(p->conf.route.nthreads, 7);
	load_line(p, "eval_max_endpoints 9");
	assert_int_equal(p->conf.eval_max_endpoints, 9);
	load_line(p, "metrics_file /var/tmp/m.prom");
	assert_string_equal(p->conf.metrics_file, "/var/tmp/m.prom");
	/* the longest path that fits, and one byte more */
	snprintf(line, sizeof(line), "export_dir /%0*d", IBF_OSM_PATH_MAX - 2,
		 0);
	assert_string_equal(load_line(p, line), "");
	assert_int_equal(strlen(p->conf.export_dir), IBF_OSM_PATH_MAX - 1);
	snprintf(line, sizeof(line), "export_dir /%0*d", IBF_OSM_PATH_MAX - 1,
		 0);
	assert_string_equal(load_line(p, line), "export_dir: path too long");
	assert_int_equal(strlen(p->conf.export_dir), 0);
}

/* Keys of a text: a markdown table's first column ("| `key` |") between
 * the header line and the next blank line, or the "key value" lines of
 * an example (commented out or not). */
static unsigned doc_keys(const char *path, int markdown, char keys[][40])
{
	char line[4096], fpath[1024];
	unsigned n = 0;
	int in = !markdown;
	FILE *f;

	snprintf(fpath, sizeof(fpath), "%s/%s", IBF_SRCDIR, path);
	f = fopen(fpath, "r");
	if (!f)
		fail_msg("cannot open %s", fpath);
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		size_t k;

		if (markdown) {
			if (!strncmp(line, "| key | default | meaning |", 27)) {
				in = 1;
				continue;
			}
			if (in && line[0] == '\n' && n)
				break;
			if (!in || strncmp(line, "| `", 3))
				continue;
			s += 3;
			k = strcspn(s, "`");
		} else {
			if (*s == '#')
				s++;
			k = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
			if (!k || s[k] != ' ')
				continue;
		}
		assert_true(n < KEYS_MAX && k < 40);
		snprintf(keys[n++], 40, "%.*s", (int)k, s);
	}
	fclose(f);
	return n;
}

static int has_key(char keys[][40], unsigned n, const char *key)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return 1;
	return 0;
}

static void check_keys_documented(const char *path, int markdown)
{
	char keys[KEYS_MAX][40];
	unsigned n = doc_keys(path, markdown, keys), i, nt = 0;
	const char *k;
	int bad = 0;

	for (i = 0; (k = ibf_osm_conf_key_name(i)); i++, nt++)
		if (!has_key(keys, n, k)) {
			print_error("%s: key %s is not documented\n", path, k);
			bad = 1;
		}
	for (i = 0; i < n; i++) {
		unsigned j;

		for (j = 0; j < nt; j++)
			if (!strcmp(ibf_osm_conf_key_name(j), keys[i]))
				break;
		if (j == nt) {
			print_error("%s: %s is no key of ibflow.conf\n", path,
				    keys[i]);
			bad = 1;
		}
	}
	assert_true(nt > 0);
	assert_false(bad);
}

static void test_keys_in_docs(void **state)
{
	(void)state;
	check_keys_documented("docs/osm-plugin.md", 1);
}

static void test_keys_in_example(void **state)
{
	(void)state;
	check_keys_documented("osm_plugin/ibflow.conf.example", 0);
}

/* Every key the docs name is taken (a key the table lost is refused). */
static void test_documented_keys_accepted(void **state)
{
	char keys[KEYS_MAX][40], line[128];
	unsigned n = doc_keys("docs/osm-plugin.md", 1, keys), i;

	(void)state;
	for (i = 0; i < n; i++) {
		const char *msg;

		snprintf(line, sizeof(line), "%.39s 1", keys[i]);
		msg = load_line(plugin(), line);
		if (strstr(msg, "unknown key"))
			fail_msg("%s: %s", keys[i], msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_ranges),
		cmocka_unit_test(test_values_stored),
		cmocka_unit_test(test_keys_in_docs),
		cmocka_unit_test(test_keys_in_example),
		cmocka_unit_test(test_documented_keys_accepted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
int main(void)
{
	printf("1..1\nok 1 - osm conf # SKIP the OpenSM plugin is not built "
	       "(no OpenSM headers)\n");
	return 0;
}
#endif
