/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * LFTI traffic patterns: the defining property of each generator checked
 * by counting (permutation, shift offsets, distinct destinations, grid
 * neighbour counts and symmetry), determinism, spec errors, rank maps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/rng.h"
#include <ibflow/gen.h>
#include <ibflow/patterns.h>

static void ranks(const char *spec, uint32_t n, uint32_t inst, uint64_t seed,
		  ibf_traffic_t *tr)
{
	ibf_pattern_t p;
	ibf_err_t err;

	assert_int_equal(ibf_pattern_parse(spec, &p, &err), IBF_OK);
	if (ibf_pattern_ranks(&p, n, inst, seed, tr, &err) != IBF_OK)
		fail_msg("%s", err.msg);
	ibf_pattern_free(&p);
}

/* out[s] / in[d]: flows leaving s / entering d. */
static void degrees(const ibf_traffic_t *tr, uint32_t n, uint32_t *out,
		    uint32_t *in)
{
	uint32_t i;

	memset(out, 0, n * sizeof(*out));
	memset(in, 0, n * sizeof(*in));
	for (i = 0; i < tr->n; i++) {
		assert_true(tr->flows[i].src < n && tr->flows[i].dst < n);
		assert_int_not_equal(tr->flows[i].src, tr->flows[i].dst);
		assert_int_equal(tr->flows[i].count, 1);
		out[tr->flows[i].src]++;
		in[tr->flows[i].dst]++;
	}
}

static void test_perm(void **state)
{
	uint32_t n, out[101], in[101], i, k;
	ibf_traffic_t tr;

	(void)state;
	for (n = 2; n <= 101; n += 33)
		for (k = 0; k < 5; k++) {
			ranks("perm:5", n, k, 9, &tr);
			assert_int_equal(tr.n, n);
			degrees(&tr, n, out, in);
			for (i = 0; i < n; i++)
				assert_true(out[i] == 1 && in[i] == 1);
			ibf_traffic_free(&tr);
		}
}

static void test_shift(void **state)
{
	ibf_pattern_t p;
	ibf_traffic_t tr;
	ibf_err_t err;
	uint32_t n = 12, s, i;

	(void)state;
	assert_int_equal(ibf_pattern_parse("shift", &p, &err), IBF_OK);
	assert_int_equal(ibf_pattern_ninstances(&p, n), n - 1);
	for (s = 0; s < n - 1; s++) {
		assert_int_equal(ibf_pattern_ranks(&p, n, s, 1, &tr, &err), 0);
		assert_int_equal(tr.n, n);
		for (i = 0; i < n; i++)
			assert_int_equal(tr.flows[i].dst,
					 (tr.flows[i].src + s + 1) % n);
		ibf_traffic_free(&tr);
	}
	assert_int_equal(ibf_pattern_ranks(&p, n, n - 1, 1, &tr, &err),
			 IBF_ERR_RANGE);
	ibf_pattern_free(&p);
	/* shift:K: K instances, each a shift by some s in 1..n-1. */
	assert_int_equal(ibf_pattern_parse("shift:3", &p, &err), IBF_OK);
	assert_int_equal(ibf_pattern_ninstances(&p, n), 3);
	assert_int_equal(ibf_pattern_ranks(&p, n, 2, 1, &tr, &err), 0);
	s = (tr.flows[0].dst + n - tr.flows[0].src) % n;
	assert_true(s >= 1 && s < n);
	for (i = 0; i < n; i++)
		assert_int_equal(tr.flows[i].dst, (tr.flows[i].src + s) % n);
	ibf_traffic_free(&tr);
	ibf_pattern_free(&p);
}

static void test_bisect(void **state)
{
	uint32_t out[21], in[21], i, j, n;
	ibf_traffic_t tr;

	(void)state;
	for (n = 20; n <= 21; n++) {
		ranks("bisect:2", n, 1, 3, &tr);
		assert_int_equal(tr.n, n / 2 * 2);
		degrees(&tr, n, out, in);
		for (i = 0, j = 0; i < n; i++) {
			assert_int_equal(out[i], in[i]);
			assert_true(out[i] <= 1);
			j += out[i];
		}
		assert_int_equal(j, n / 2 * 2);
		/* Flows come in both directions, side by side. */
		for (i = 0; i < tr.n; i += 2) {
			assert_int_equal(tr.flows[i].src, tr.flows[i + 1].dst);
			assert_int_equal(tr.flows[i].dst, tr.flows[i + 1].src);
		}
		ibf_traffic_free(&tr);
	}
}

/* Every rank has want distinct neighbours and the relation is
 * symmetric. */
static void check_nn(const char *spec, uint32_t n, unsigned want)
{
	uint8_t *adj = calloc((size_t)n * n, 1);
	uint32_t *out = calloc(n, sizeof(*out)), *in = calloc(n, sizeof(*in));
	ibf_traffic_t tr;
	uint32_t i, inst;

	for (inst = 0; inst < 4; inst++) {
		memset(adj, 0, (size_t)n * n);
		ranks(spec, n, inst, 77, &tr);
		degrees(&tr, n, out, in);
		for (i = 0; i < tr.n; i++) {
			uint32_t s = tr.flows[i].src, d = tr.flows[i].dst;

			assert_int_equal(adj[(size_t)s * n + d], 0);
			adj[(size_t)s * n + d] = 1;
		}
		for (i = 0; i < n; i++)
			assert_int_equal(out[i], want);
		for (i = 0; i < tr.n; i++)
			assert_int_equal(adj[(size_t)tr.flows[i].dst * n +
					     tr.flows[i].src], 1);
		ibf_traffic_free(&tr);
	}
	free(adj);
	free(out);
	free(in);
}

static void test_nn(void **state)
{
	(void)state;
	check_nn("2dnn:4", 12, 4);      /* 3 x 4 or 4 x 3 */
	check_nn("2dnndiag:4", 15, 8);  /* 3 x 5 or 5 x 3 */
	check_nn("3dnn:4", 27, 6);      /* 3 x 3 x 3 */
	check_nn("3dnndiag:4", 27, 26);
	check_nn("3dnn:4", 60, 6);      /* 3 x 4 x 5 and permutations */
	/* 8 ranks: only 2 x 4 / 4 x 2; along the side of 2 both neighbours
	 * are the same rank: 3 distinct. */
	check_nn("2dnn:4", 8, 3);
	/* 2 x 2 x 2: one neighbour per axis. */
	check_nn("3dnn:4", 8, 3);
}

static void test_nn_grid_sizes_random(void **state)
{
	ibf_traffic_t a, b;
	unsigned inst, differ = 0;

	(void)state;
	/* 36 ranks: grids 3x12, 4x9, 6x6, 9x4, 12x3; instances differ. */
	ranks("2dnn:8", 36, 0, 5, &a);
	for (inst = 1; inst < 8; inst++) {
		ranks("2dnn:8", 36, inst, 5, &b);
		differ += memcmp(a.flows, b.flows, a.n * sizeof(*a.flows)) != 0;
		ibf_traffic_free(&b);
	}
	ibf_traffic_free(&a);
	assert_true(differ > 0);
}

static void test_randn(void **state)
{
	uint32_t n = 50, out[50], in[50], i, j, d;
	static const unsigned ds[] = { 1, 5, 20, 30, 49 };
	ibf_traffic_t tr;
	char spec[32];

	(void)state;
	for (j = 0; j < sizeof(ds) / sizeof(ds[0]); j++) {
		uint8_t seen[50 * 50] = { 0 };

		d = ds[j];
		snprintf(spec, sizeof(spec), "randn:%u:3", d);
		ranks(spec, n, 2, 11, &tr);
		assert_int_equal(tr.n, n * d);
		degrees(&tr, n, out, in);
		for (i = 0; i < n; i++)
			assert_int_equal(out[i], d);
		for (i = 0; i < tr.n; i++) {
			size_t x = tr.flows[i].src * n + tr.flows[i].dst;

			assert_int_equal(seen[x], 0);
			seen[x] = 1;
		}
		if (d == n - 1)
			for (i = 0; i < n; i++)
				assert_int_equal(in[i], n - 1);
		ibf_traffic_free(&tr);
	}
}

static void test_random_alltoall(void **state)
{
	uint32_t n = 30, out[30], in[30], i;
	ibf_traffic_t tr;

	(void)state;
	ranks("random:7:2", n, 1, 1, &tr);
	assert_int_equal(tr.n, n * 7);
	degrees(&tr, n, out, in);
	ibf_traffic_free(&tr);
	ranks("alltoall", n, 0, 1, &tr);
	assert_int_equal(tr.n, n * (n - 1));
	degrees(&tr, n, out, in);
	for (i = 0; i < n; i++)
		assert_true(out[i] == n - 1 && in[i] == n - 1);
	ibf_traffic_free(&tr);
}

static bool same(const ibf_traffic_t *a, const ibf_traffic_t *b)
{
	return a->n == b->n &&
	       !memcmp(a->flows, b->flows, a->n * sizeof(*a->flows));
}

static void test_determinism(void **state)
{
	static const char *const specs[] = {
		"perm:10", "bisect:10", "2dnn:10", "3dnndiag:10",
		"randn:4:10", "random:4:10", "shift:10",
	};
	ibf_traffic_t a, b;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ranks(specs[i], 64, 3, 42, &a);
		ranks(specs[i], 64, 3, 42, &b);
		assert_true(same(&a, &b));
		ibf_traffic_free(&b);
		/* Grids: 64 ranks have few shapes (4x4x4 only for 3D with
		 * sides >= 3), so other seeds may give the same pattern. */
		if (strstr(specs[i], "nn")) {
			ibf_traffic_free(&a);
			continue;
		}
		ranks(specs[i], 64, 3, 43, &b);
		assert_false(same(&a, &b));
		ibf_traffic_free(&b);
		ranks(specs[i], 64, 4, 42, &b);
		assert_false(same(&a, &b));
		ibf_traffic_free(&b);
		ibf_traffic_free(&a);
	}
	/* perm:5 is the beginning of perm:10. */
	ranks("perm:5", 64, 4, 42, &a);
	ranks("perm:10", 64, 4, 42, &b);
	assert_true(same(&a, &b));
	ibf_traffic_free(&a);
	ibf_traffic_free(&b);
}

static void bad_spec(const char *spec, const char *want)
{
	ibf_pattern_t p;
	ibf_err_t err;

	assert_int_not_equal(ibf_pattern_parse(spec, &p, &err), IBF_OK);
	if (!strstr(err.msg, want))
		fail_msg("%s: got \"%s\", want \"%s\"", spec, err.msg, want);
	ibf_pattern_free(&p);
}

static void bad_size(const char *spec, uint32_t n, const char *want)
{
	ibf_pattern_t p;
	ibf_traffic_t tr;
	ibf_err_t err;

	assert_int_equal(ibf_pattern_parse(spec, &p, &err), IBF_OK);
	assert_int_not_equal(ibf_pattern_ranks(&p, n, 0, 1, &tr, &err), 0);
	if (!strstr(err.msg, want))
		fail_msg("%s: got \"%s\", want \"%s\"", spec, err.msg, want);
	assert_null(tr.flows);
	ibf_pattern_free(&p);
}

static void test_bad_specs(void **state)
{
	(void)state;
	bad_spec("randn:0:5", "randn:0:5: D must be >= 1");
	bad_spec("randn", "randn: expected randn:D[:K]");
	bad_spec("random:x", "random:x: expected random:D[:K]");
	bad_spec("perm:0", "perm:0: K must be >= 1");
	bad_spec("perm:x", "perm:x: bad instance count");
	bad_spec("perm:5:6", "perm:5:6: bad instance count");
	bad_spec("perm:-1", "perm:-1: bad instance count");
	bad_spec("perm:99999999999", "bad instance count");
	bad_spec("alltoall:3", "alltoall:3: alltoall takes no");
	bad_spec("file:", "file:: expected file:PATH");
	bad_spec("4dnn:2", "4dnn:2: unknown pattern");
	bad_spec("", ": unknown pattern");
	bad_size("randn:50", 50, "randn:50: D = 50 distinct destinations");
	bad_size("perm", 1, "perm: needs at least 2 ranks");
	bad_size("2dnn", 7, "2dnn: 7 ranks do not form a 2D grid");
	bad_size("3dnn", 10, "3dnn: 10 ranks do not form a 3D grid");
}

static void test_rankmap_and_file(void **state)
{
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *f;
	ibf_port_id_t *m1, *m2;
	uint32_t n, n2, i, *hits;
	ibf_pattern_t p;
	ibf_traffic_t tr;
	ibf_err_t err;
	char path[] = "/tmp/test_patterns_XXXXXX", spec[64];
	FILE *fp;
	int fd;

	(void)state;
	assert_int_equal(ibf_gen("pgft:2:4,4:1,2:1,1", &go, &f, &err), IBF_OK);
	assert_int_equal(ibf_rankmap(f, NULL, 0, false, 0, &m1, &n, &err), 0);
	assert_int_equal(n, f->nendpoints);
	assert_memory_equal(m1, f->endpoints, n * sizeof(*m1));
	free(m1);
	assert_int_equal(ibf_rankmap(f, NULL, 0, true, 5, &m1, &n, &err), 0);
	assert_int_equal(ibf_rankmap(f, NULL, 0, true, 5, &m2, &n2, &err), 0);
	assert_memory_equal(m1, m2, n * sizeof(*m1));
	free(m2);
	/* The random map is a permutation of the hosts. */
	hits = calloc(f->nports, sizeof(*hits));
	for (i = 0; i < n; i++)
		hits[m1[i]]++;
	for (i = 0; i < n; i++)
		assert_int_equal(hits[f->endpoints[i]], 1);
	free(hits);

	/* Mapped shift: rank r on m1[r]. */
	assert_int_equal(ibf_pattern_parse("shift", &p, &err), IBF_OK);
	assert_int_equal(ibf_pattern_traffic(&p, f, m1, n, 2, 0, &tr, &err), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(tr.flows[i].src, m1[i]);
		assert_int_equal(tr.flows[i].dst, m1[(i + 3) % n]);
	}
	ibf_traffic_free(&tr);
	ibf_pattern_free(&p);

	/* file: hosts by LID, counts kept, map ignored. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fprintf(fp, "%u %u 3\n%u %u\n", f->ports[f->endpoints[0]].lid,
		f->ports[f->endpoints[5]].lid, f->ports[f->endpoints[1]].lid,
		f->ports[f->endpoints[2]].lid);
	fclose(fp);
	snprintf(spec, sizeof(spec), "file:%s", path);
	assert_int_equal(ibf_pattern_parse(spec, &p, &err), IBF_OK);
	assert_int_equal(ibf_pattern_ninstances(&p, n), 1);
	assert_int_equal(ibf_pattern_traffic(&p, f, m1, n, 0, 0, &tr, &err), 0);
	assert_int_equal(tr.n, 2);
	assert_int_equal(tr.flows[0].src, f->endpoints[0]);
	assert_int_equal(tr.flows[0].dst, f->endpoints[5]);
	assert_int_equal(tr.flows[0].count, 3);
	ibf_traffic_free(&tr);
	assert_int_equal(ibf_pattern_ranks(&p, n, 0, 0, &tr, &err),
			 IBF_ERR_UNSUPPORTED);
	ibf_pattern_free(&p);
	unlink(path);
	/* A missing file names the pattern. */
	assert_int_equal(ibf_pattern_parse("file:/nonexistent/t", &p, &err), 0);
	assert_int_not_equal(ibf_pattern_traffic(&p, f, m1, n, 0, 0, &tr,
						 &err), IBF_OK);
	assert_non_null(strstr(err.msg, "file:/nonexistent/t: "));
	ibf_pattern_free(&p);
	free(m1);
	ibf_fabric_destroy(f);
}

static void test_rng_below(void **state)
{
	ibf_xrng_t g;
	unsigned c[7] = { 0 }, i;

	(void)state;
	ibf_xrng_seed(&g, 1);
	for (i = 0; i < 70000; i++)
		c[(uint32_t)ibf_xrng_below(&g, 7)]++;
	/* 10,000 expected each; sd ~ 93: 6 sd bounds. */
	for (i = 0; i < 7; i++)
		assert_true(c[i] > 9440 && c[i] < 10560);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perm),
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_bisect),
		cmocka_unit_test(test_nn),
		cmocka_unit_test(test_nn_grid_sizes_random),
		cmocka_unit_test(test_randn),
		cmocka_unit_test(test_random_alltoall),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_rankmap_and_file),
		cmocka_unit_test(test_rng_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
