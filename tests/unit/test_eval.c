/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The evaluation driver on hand-checkable cases, and its reports read back.
 *
 * Fabric: XGFT(2; 2,2; 1,2), hosts h0 h1 on leaf s1-0, h2 h3 on s1-1, two
 * spines; every link 4xEDR, C = 4 x 25.78125 = 103.125 Gb/s.  Traffic (a
 * file): f1 h0->h2, f2 h0->h3, f3 h1->h2, f4 h3->h1.  Two hand-written
 * routings:
 *  A: every route through spine s2-0.  Up-link s1-0 -> s2-0 carries f1 f2
 *     f3: C/3 each; f4 alone: C.  Aggregate 2C.
 *  B: destinations with odd LID (h0, h2) through s2-0, even (h1, h3)
 *     through s2-1.  f1, f3 share s1-0 -> s2-0 and h2's ejection, f1, f2
 *     share h0's injection: C/2 each; f4: C.  Aggregate 2.5C.
 * Crossbar: h0's injection (f1 f2) and h2's ejection (f1 f3) at C/2, f4 at
 * C: 2.5C.  Optimum: both spines usable, same bottlenecks as the
 * crossbar: 2.5C.  So index A = 0.8, B = 1, opt_index 1, ratio 0.8 and 1;
 * min / median A = C/3 / C/3, B = C/2 / C/2.
 * Worst link load (flows on one directed link): A: s1-0 -> s2-0 and
 * s2-0 -> s1-1 carry f1 f2 f3, so 3; B: no link carries more than two
 * (h0's injection f1 f2, s1-0 -> s2-0 f1 f3, h2's ejection f1 f3), so 2.
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

#include <json-c/json.h>

#include <ibflow/eval.h>
#include <ibflow/gen.h>
#include <ibflow/route.h>

#define C_EDR4 103.125

struct fx {
	ibf_fabric_t *f;
	ibf_lfts_t *a, *b;
	char dir[64], traffic[128], spec[160];
};

static uint32_t sw(const ibf_fabric_t *f, const char *desc)
{
	bool amb;
	ibf_node_id_t n = ibf_fabric_node_by_desc(f, desc, &amb);

	assert_int_not_equal(n, IBF_NO_ID);
	return f->switch_index[n];
}

/* Hand tables.  LIDs: h0..h3 = 1..4 (generator order); leaf ports 1, 2 =
 * hosts, 3 = s2-0, 4 = s2-1; spine ports 1 = s1-0, 2 = s1-1. */
static ibf_lfts_t *hand_lfts(const ibf_fabric_t *f, bool split)
{
	uint32_t l0 = sw(f, "s1-0"), l1 = sw(f, "s1-1");
	uint32_t s0 = sw(f, "s2-0"), s1 = sw(f, "s2-1");
	ibf_lfts_t *l;
	unsigned lid, up;

	assert_int_equal(ibf_lfts_create(f, &l), IBF_OK);
	for (lid = 1; lid <= 4; lid++) {
		up = split && lid % 2 == 0 ? 4 : 3;
		ibf_lfts_set(l, l0, lid, lid <= 2 ? lid : up);
		ibf_lfts_set(l, l1, lid, lid >= 3 ? lid - 2 : up);
		ibf_lfts_set(l, s0, lid, lid <= 2 ? 1 : 2);
		ibf_lfts_set(l, s1, lid, lid <= 2 ? 1 : 2);
	}
	return l;
}

static int setup(void **state)
{
	ibf_gen_opts_t go = { 0 };
	struct fx *x = calloc(1, sizeof(*x));
	ibf_err_t err;
	FILE *fp;

	assert_non_null(x);
	assert_int_equal(ibf_gen("xgft:2:2,2:1,2", &go, &x->f, &err), IBF_OK);
	assert_int_equal(x->f->nendpoints, 4);
	assert_int_equal(x->f->ports[x->f->endpoints[0]].lid, 1);
	assert_int_equal(x->f->ports[x->f->endpoints[3]].lid, 4);
	assert_true(fabs(ibf_port_capacity(&x->f->ports[x->f->endpoints[0]]) -
			 C_EDR4) < 1e-12);
	x->a = hand_lfts(x->f, false);
	x->b = hand_lfts(x->f, true);
	strcpy(x->dir, "/tmp/test_eval.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->traffic, sizeof(x->traffic), "%s/traffic", x->dir);
	fp = fopen(x->traffic, "w");
	assert_non_null(fp);
	fprintf(fp, "\"h0000 HCA-1\" \"h0002 HCA-1\"\n"
		    "\"h0000 HCA-1\" \"h0003 HCA-1\"\n"
		    "\"h0001 HCA-1\" \"h0002 HCA-1\"\n"
		    "\"h0003 HCA-1\" \"h0001 HCA-1\"\n");
	fclose(fp);
	snprintf(x->spec, sizeof(x->spec), "file:%s", x->traffic);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	char cmd[160];

	ibf_lfts_destroy(x->a);
	ibf_lfts_destroy(x->b);
	ibf_fabric_destroy(x->f);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", x->dir);
	free(x);
	return 0;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static ibf_eval_t *run_hand(struct fx *x, bool opt, bool keep,
			    unsigned threads)
{
	ibf_eval_routing_t r[2] = { { "A", x->a }, { "B", x->b } };
	const char *specs[1] = { x->spec };
	ibf_eval_opts_t o = { .opt = opt, .keep_flows = keep,
			      .nthreads = threads };
	ibf_eval_t *e = NULL;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_eval_run(x->f, r, 2, specs, 1, &o, &e, &err) != IBF_OK)
		fail_msg("eval: %s", err.msg);
	return e;
}

static void test_hand_tree(void **state)
{
	struct fx *x = *state;
	ibf_eval_t *e = run_hand(x, true, false, 1);
	const ibf_eval_result_t *a = ibf_eval_result(e, 0, 0);
	const ibf_eval_result_t *b = ibf_eval_result(e, 1, 0);

	assert_true(e->opt_done);
	assert_int_equal(a->flows, 4);
	assert_int_equal(a->instances, 1);
	assert_true(near(a->index, 0.8));
	assert_true(near(b->index, 1.0));
	assert_true(a->has_opt && b->has_opt);
	assert_true(near(a->opt_index, 1.0));
	assert_true(near(a->ratio, 0.8));
	assert_true(near(b->ratio, 1.0));
	assert_true(near(a->min_rate, C_EDR4 / 3));
	assert_true(near(a->median_rate, C_EDR4 / 3));
	assert_true(near(b->min_rate, C_EDR4 / 2));
	assert_true(near(b->median_rate, C_EDR4 / 2));
	assert_true(near(a->throughput, 2 * C_EDR4));
	assert_true(near(a->crossbar, 2.5 * C_EDR4));
	assert_true(a->seconds >= 0 && a->opt_seconds >= 0);
	assert_true(a->max_link_load == 3.0);
	assert_true(b->max_link_load == 2.0);
	ibf_eval_destroy(e);
}

/* Worst link load with COUNT copies: traffic "h0 h2 2", "h1 h3 2".  A:
 * s1-0 -> s2-0 carries both pairs, 2 + 2 = 4 (host links 2).  B: h2 (odd
 * LID) via s2-0, h3 via s2-1: 2 on each up-link, 2 on the host links. */
static void test_load_count(void **state)
{
	struct fx *x = *state;
	ibf_eval_routing_t r[2] = { { "A", x->a }, { "B", x->b } };
	ibf_eval_opts_t o = { 0 };
	char path[160], spec[180];
	const char *specs[1] = { spec };
	ibf_eval_t *e = NULL;
	ibf_err_t err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/count.traffic", x->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "\"h0000 HCA-1\" \"h0002 HCA-1\" 2\n"
		    "\"h0001 HCA-1\" \"h0003 HCA-1\" 2\n");
	fclose(fp);
	snprintf(spec, sizeof(spec), "file:%s", path);
	assert_int_equal(ibf_eval_run(x->f, r, 2, specs, 1, &o, &e, &err),
			 IBF_OK);
	assert_int_equal(ibf_eval_result(e, 0, 0)->flows, 4);
	assert_true(ibf_eval_result(e, 0, 0)->max_link_load == 4.0);
	assert_true(ibf_eval_result(e, 1, 0)->max_link_load == 2.0);
	ibf_eval_destroy(e);
}

/* Worst link load of split flows.  The same tree with LMC 1 (two LIDs per
 * host); every LID goes up through s2-0 except h2's second LID (offset
 * 1), which goes through s2-1.  Flows h0 -> h2 and h1 -> h3.  Split over
 * the LIDs (lmc): s1-0 -> s2-0 carries half of h0 -> h2 and all of
 * h1 -> h3: 1.5; s1-0 -> s2-1 0.5; host links 1.  Base LID only
 * (single): both on s1-0 -> s2-0: 2. */
static void test_load_split(void **state)
{
	struct fx *x = *state;
	ibf_gen_opts_t go = { .lmc = 1 };
	ibf_eval_opts_t o = { .paths = IBF_EVAL_LMC };
	const char *specs[1];
	char path[160], spec[180];
	ibf_eval_routing_t r[1];
	ibf_eval_t *e = NULL;
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	uint32_t l0, l1, s0, s1, h, off;
	unsigned lid;
	ibf_err_t err;
	FILE *fp;

	assert_int_equal(ibf_gen("xgft:2:2,2:1,2", &go, &f, &err), IBF_OK);
	assert_int_equal(f->nendpoints, 4);
	l0 = sw(f, "s1-0");
	l1 = sw(f, "s1-1");
	s0 = sw(f, "s2-0");
	s1 = sw(f, "s2-1");
	assert_int_equal(ibf_lfts_create(f, &l), IBF_OK);
	for (h = 0; h < 4; h++)
		for (off = 0; off < 2; off++) {
			unsigned up = h == 2 && off == 1 ? 4 : 3;

			lid = f->ports[f->endpoints[h]].lid + off;
			ibf_lfts_set(l, l0, lid, h < 2 ? h + 1 : up);
			ibf_lfts_set(l, l1, lid, h >= 2 ? h - 1 : up);
			ibf_lfts_set(l, s0, lid, h < 2 ? 1 : 2);
			ibf_lfts_set(l, s1, lid, h < 2 ? 1 : 2);
		}
	snprintf(path, sizeof(path), "%s/split.traffic", x->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "\"h0000 HCA-1\" \"h0002 HCA-1\"\n"
		    "\"h0001 HCA-1\" \"h0003 HCA-1\"\n");
	fclose(fp);
	snprintf(spec, sizeof(spec), "file:%s", path);
	specs[0] = spec;
	r[0].name = "split";
	r[0].lfts = l;
	ibf_err_clear(&err);
	if (ibf_eval_run(f, r, 1, specs, 1, &o, &e, &err) != IBF_OK)
		fail_msg("eval: %s", err.msg);
	assert_true(ibf_eval_result(e, 0, 0)->max_link_load == 1.5);
	ibf_eval_destroy(e);
	o.paths = IBF_EVAL_SINGLE;
	assert_int_equal(ibf_eval_run(f, r, 1, specs, 1, &o, &e, &err),
			 IBF_OK);
	assert_true(ibf_eval_result(e, 0, 0)->max_link_load == 2.0);
	ibf_eval_destroy(e);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
}

/* The reference solver and the paths modes give the same answers here
 * (LMC 0: lmc = single). */
static void test_ref_and_modes(void **state)
{
	struct fx *x = *state;
	ibf_eval_routing_t r[1] = { { "A", x->a } };
	const char *specs[1] = { x->spec };
	ibf_eval_opts_t o = { .algo = IBF_EVAL_REF, .paths = IBF_EVAL_LAYERS,
			      .opt = true };
	ibf_eval_t *e = NULL;
	ibf_err_t err;

	assert_int_equal(ibf_eval_run(x->f, r, 1, specs, 1, &o, &e, &err),
			 IBF_OK);
	assert_true(near(ibf_eval_result(e, 0, 0)->index, 0.8));
	assert_true(near(ibf_eval_result(e, 0, 0)->opt_index, 1.0));
	ibf_eval_destroy(e);
}

/* ---- reports read back ---------------------------------------------------- */

/* The JSON (json true) or CSV document of e, written to path. */
static void write_doc(const ibf_eval_t *e, const char *path, bool json)
{
	FILE *fp = fopen(path, "w");
	ibf_err_t err;

	assert_non_null(fp);
	ibf_err_clear(&err);
	if ((json ? ibf_eval_write_json(e, fp, &err) :
	     ibf_eval_write_flows(e, fp, &err)) != IBF_OK)
		fail_msg("%s: %s", path, err.msg);
	assert_int_equal(fclose(fp), 0);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("JSON entry lacks \"%s\"", key);
	return v;
}

static void check_entry(json_object *o, const char *routing,
			const char *name, double index, double opt,
			double min, double median, double load)
{
	assert_string_equal(json_object_get_string(get(o, "routing")),
			    routing);
	assert_string_equal(json_object_get_string(get(o, "name")), name);
	assert_int_equal(json_object_get_int64(get(o, "flows")), 4);
	assert_true(near(json_object_get_double(get(o, "index")), index));
	assert_true(near(json_object_get_double(get(o, "opt_index")), opt));
	assert_true(near(json_object_get_double(get(o, "ratio")),
			 index / opt));
	assert_true(near(json_object_get_double(get(o, "min_rate")), min));
	assert_true(near(json_object_get_double(get(o, "median_rate")),
			 median));
	assert_true(json_object_get_double(get(o, "max_link_load")) ==
		    load);
	assert_true(json_object_get_double(get(o, "seconds")) >= 0);
	assert_true(json_object_is_type(get(o, "opt_seconds"),
					json_type_double));
}

static void test_json(void **state)
{
	struct fx *x = *state;
	ibf_eval_t *e = run_hand(x, true, false, 1);
	json_object *root, *arr;
	char path[160];

	snprintf(path, sizeof(path), "%s/out.json", x->dir);
	write_doc(e, path, true);
	root = json_object_from_file(path);
	assert_non_null(root);
	arr = get(root, "patterns");
	assert_int_equal(json_object_array_length(arr), 2);
	check_entry(json_object_array_get_idx(arr, 0), "A", x->spec, 0.8, 1.0,
		    C_EDR4 / 3, C_EDR4 / 3, 3.0);
	check_entry(json_object_array_get_idx(arr, 1), "B", x->spec, 1.0, 1.0,
		    C_EDR4 / 2, C_EDR4 / 2, 2.0);
	json_object_put(root);
	ibf_eval_destroy(e);
}

/* Expected per-flow rate on routing A / B / optimum by (src, dst). */
static void expect_rate(const char *src, const char *dst, double *a,
			double *b, double *o)
{
	static const struct {
		const char *s, *d;
		double a, b, o;
	} t[] = {
		{ "h0000 HCA-1", "h0002 HCA-1", 1. / 3, .5, .5 },
		{ "h0000 HCA-1", "h0003 HCA-1", 1. / 3, .5, .5 },
		{ "h0001 HCA-1", "h0002 HCA-1", 1. / 3, .5, .5 },
		{ "h0003 HCA-1", "h0001 HCA-1", 1., 1., 1. },
	};
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!strcmp(src, t[i].s) && !strcmp(dst, t[i].d)) {
			*a = t[i].a * C_EDR4;
			*b = t[i].b * C_EDR4;
			*o = t[i].o * C_EDR4;
			return;
		}
	fail_msg("unexpected flow %s -> %s", src, dst);
}

static void check_csv_line(struct fx *x, char *line, unsigned *seen)
{
	char *fld[8], *s = line;
	double a = 0, b = 0, o = 0;
	unsigned n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < 8 && (fld[n++] = strsep(&s, ",")) != NULL)
		;
	assert_null(s);
	assert_int_equal(n - 1, 7); /* the last strsep returned NULL */
	assert_string_equal(fld[1], x->spec);
	assert_string_equal(fld[2], "0");
	expect_rate(fld[3], fld[4], &a, &b, &o);
	assert_true(near(strtod(fld[5], NULL),
			 !strcmp(fld[0], "A") ? a : b));
	assert_true(near(strtod(fld[6], NULL), o));
	seen[!strcmp(fld[0], "B")]++;
}

static void test_csv(void **state)
{
	struct fx *x = *state;
	ibf_eval_t *e = run_hand(x, true, true, 2);
	unsigned seen[2] = { 0, 0 };
	char path[160], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/flows.csv", x->dir);
	write_doc(e, path, false);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, "routing,pattern,instance,src,dst,rate,"
				  "opt_rate\n");
	while (fgets(line, sizeof(line), fp))
		check_csv_line(x, line, seen);
	fclose(fp);
	assert_int_equal(seen[0], 4);
	assert_int_equal(seen[1], 4);
	ibf_eval_destroy(e);
}

/* Random permutations: the index read back from the CSV (sum of rates /
 * (N x C) per instance, a permutation's crossbar aggregate) and the
 * median recomputed from the CSV rates equal the driver's; threads do not
 * change anything. */
static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void test_perm_csv(void **state)
{
	struct fx *x = *state;
	ibf_eval_routing_t r[1] = { { "A", x->a } };
	const char *specs[1] = { "perm:9" };
	ibf_eval_opts_t o = { .keep_flows = true, .random_map = true,
			      .seed = 7 };
	ibf_eval_t *e = NULL, *e2 = NULL;
	double rates[64], sum = 0, med;
	char path[160], line[512], *c;
	unsigned n = 0;
	ibf_err_t err;
	FILE *fp;

	assert_int_equal(ibf_eval_run(x->f, r, 1, specs, 1, &o, &e, &err),
			 IBF_OK);
	o.nthreads = 3;
	assert_int_equal(ibf_eval_run(x->f, r, 1, specs, 1, &o, &e2, &err),
			 IBF_OK);
	snprintf(path, sizeof(path), "%s/perm.csv", x->dir);
	write_doc(e, path, false);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, "pattern,instance,src,dst,rate\n");
	while (fgets(line, sizeof(line), fp)) {
		assert_true(n < 64);
		c = strrchr(line, ',');
		rates[n] = strtod(c + 1, NULL);
		sum += rates[n++];
	}
	fclose(fp);
	assert_int_equal(n, 9 * 4);
	qsort(rates, n, sizeof(double), cmp_d);
	med = (rates[n / 2 - 1] + rates[n / 2]) / 2;
	assert_true(near(ibf_eval_result(e, 0, 0)->index,
			 sum / (9 * 4 * C_EDR4)));
	assert_true(near(ibf_eval_result(e, 0, 0)->median_rate, med));
	assert_true(near(ibf_eval_result(e, 0, 0)->min_rate, rates[0]));
	assert_true(ibf_eval_result(e, 0, 0)->index ==
		    ibf_eval_result(e2, 0, 0)->index);
	assert_true(ibf_eval_result(e, 0, 0)->median_rate ==
		    ibf_eval_result(e2, 0, 0)->median_rate);
	ibf_eval_destroy(e);
	ibf_eval_destroy(e2);
}

/* ---- errors ------------------------------------------------------------------ */

static ibf_status_t run_err(struct fx *x, const ibf_lfts_t *l,
			    const char *spec, const ibf_eval_opts_t *o,
			    ibf_err_t *err)
{
	ibf_eval_routing_t r[1] = { { "A", l } };
	const char *specs[1] = { spec };
	ibf_eval_t *e = (ibf_eval_t *)1;
	ibf_status_t st;

	ibf_err_clear(err);
	st = ibf_eval_run(x->f, r, 1, specs, 1, o, &e, err);
	if (st != IBF_OK)
		assert_null(e);
	else
		ibf_eval_destroy(e);
	return st;
}

static void test_errors(void **state)
{
	struct fx *x = *state;
	ibf_eval_opts_t o = { 0 };
	ibf_port_id_t order[3];
	ibf_lfts_t *hole;
	ibf_err_t err;

	assert_int_not_equal(run_err(x, x->a, "perm:x", &o, &err), IBF_OK);
	assert_non_null(strstr(err.msg, "perm:x"));
	assert_int_not_equal(run_err(x, x->a, "randn:9", &o, &err), IBF_OK);
	assert_non_null(strstr(err.msg, "randn:9"));

	/* s1-0 does not route h2's LID: f1 and f3 are broken. */
	hole = hand_lfts(x->f, false);
	ibf_lfts_set(hole, sw(x->f, "s1-0"), 3, IBF_LFT_NO_PORT);
	assert_int_not_equal(run_err(x, hole, x->spec, &o, &err), IBF_OK);
	assert_non_null(strstr(err.msg, "h0000 HCA-1 -> h0002 HCA-1"));
	assert_non_null(strstr(err.msg, "routing A"));
	assert_non_null(strstr(err.msg, x->spec));
	ibf_lfts_destroy(hole);

	/* A rank order naming a host twice. */
	order[0] = x->f->endpoints[0];
	order[1] = x->f->endpoints[1];
	order[2] = x->f->endpoints[0];
	o.order = order;
	o.norder = 3;
	assert_int_not_equal(run_err(x, x->a, "perm", &o, &err), IBF_OK);
	assert_non_null(strstr(err.msg, "h0000 HCA-1"));
	/* Two ranks: shift has one instance, perm swaps them. */
	o.norder = 2;
	assert_int_equal(run_err(x, x->a, "shift", &o, &err), IBF_OK);
}

/* Not a PGFT: the optimum is said not computed, JSON has nulls. */
static void test_not_pgft(void **state)
{
	struct fx *x = *state;
	ibf_gen_opts_t go = { 0 };
	ibf_routing_t *rt = NULL;
	ibf_route_opts_t ro = { 0 };
	const char *specs[1] = { "perm:2" };
	ibf_eval_opts_t o = { .opt = true };
	ibf_eval_routing_t r[1];
	json_object *root, *ent;
	ibf_eval_t *e = NULL;
	ibf_fabric_t *f;
	char path[160];
	ibf_err_t err;

	assert_int_equal(ibf_gen("torus:3,3,3", &go, &f, &err), IBF_OK);
	assert_int_equal(ibf_route(f, "minhop", &ro, &rt, &err), IBF_OK);
	r[0].name = "minhop";
	r[0].lfts = rt->lfts;
	assert_int_equal(ibf_eval_run(f, r, 1, specs, 1, &o, &e, &err),
			 IBF_OK);
	assert_true(e->opt_asked);
	assert_false(e->opt_done);
	assert_non_null(strstr(e->opt_note, "exact optimum not computed: "
					    "not a PGFT ("));
	assert_false(ibf_eval_result(e, 0, 0)->has_opt);
	assert_true(ibf_eval_result(e, 0, 0)->index > 0);
	snprintf(path, sizeof(path), "%s/torus.json", x->dir);
	write_doc(e, path, true);
	root = json_object_from_file(path);
	assert_non_null(root);
	ent = json_object_array_get_idx(get(root, "patterns"), 0);
	assert_null(get(ent, "opt_index"));
	assert_null(get(ent, "ratio"));
	assert_null(get(ent, "opt_seconds"));
	assert_false(json_object_object_get_ex(ent, "routing", NULL));
	json_object_put(root);
	ibf_eval_destroy(e);
	ibf_routing_destroy(rt);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_tree),
		cmocka_unit_test(test_load_count),
		cmocka_unit_test(test_load_split),
		cmocka_unit_test(test_ref_and_modes),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_perm_csv),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_not_pgft),
	};

	return cmocka_run_group_tests_name("eval", tests, setup, teardown);
}
