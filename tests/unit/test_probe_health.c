/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The probe health verdict on hand cases, RTTs synthesized by the test's
 * own walk of the tables:
 *  - one switch, 5 hosts, symmetric model: each aggregated link is one
 *    host link; latencies 1, 1.1, 0.9, 1.0, 3.0 give median 1.0, MAD 0.1,
 *    scale 1.4826 x 0.1, and only the 3.0 link suspect, excess 2.0;
 *  - the weights listed for a suspect reproduce its latency from the
 *    measured RTTs (sum weight x RTT);
 *  - measurement noise (MAX - MIN) raises the scale: an excess of 0.3
 *    with each measurement spread by 0.5 is no suspect, with 0.01 it is;
 *  - a clean fabric with jitter well inside the noise: no suspect;
 *  - --expect-link: the reference is the expected latency times the
 *    row's links; kinds of fewer than 3 rows are judged only then;
 *  - a two-level fat tree (directed model, all pairs): one slow
 *    leaf-to-spine link; every suspect contains it, at least one does;
 *    over the weight budget the same suspects, their weights still exact;
 *  - the Prometheus text of a verdict (families, escaped labels).
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

#include <ibflow/gen.h>
#include <ibflow/probe.h>
#include <ibflow/route.h>

struct fx {
	ibf_fabric_t *f;
	ibf_routing_t *r;
	ibf_hostlist_t h;
	double *lat;     /* per egress port */
};

static void fx_make(struct fx *x, const char *spec, const char *engine)
{
	ibf_err_t err;
	unsigned i;

	ibf_err_clear(&err);
	assert_int_equal(ibf_gen(spec, NULL, &x->f, &err), IBF_OK);
	assert_int_equal(ibf_route(x->f, engine, NULL, &x->r, &err), IBF_OK);
	x->h.n = x->f->nendpoints;
	x->h.ports = x->f->endpoints;
	x->lat = malloc(x->f->nports * sizeof(*x->lat));
	assert_non_null(x->lat);
	for (i = 0; i < x->f->nports; i++)
		x->lat[i] = 1.0;
}

static void fx_free(struct fx *x)
{
	free(x->lat);
	ibf_routing_destroy(x->r);
	ibf_fabric_destroy(x->f);
}

/* One way from host port a to b: the sum of the egress ports' latencies
 * (the test's own walk through the LFTs). */
static double leg(const struct fx *x, ibf_port_id_t a, ibf_port_id_t b)
{
	const ibf_fabric_t *f = x->f;
	ibf_port_id_t p = a;
	double s = 0;
	unsigned n = 0;

	for (;;) {
		ibf_node_id_t nd;
		unsigned sw;

		s += x->lat[p];
		assert_true(++n < 64);
		nd = f->ports[f->ports[p].peer].node;
		if (f->nodes[nd].type != IBF_NODE_SWITCH)
			return s;
		for (sw = 0; f->switches[sw] != nd; sw++)
			;
		p = f->nodes[nd].first_port + x->r->lfts->port[
			(size_t)sw * x->r->lfts->stride + f->ports[b].lid];
	}
}

/* Every pair measured; spread[i] added as the pair's MAX. */
static ibf_probe_meas_t *all_pairs(const struct fx *x, double spread,
				   const double *jitter, uint32_t *nm)
{
	ibf_probe_meas_t *m = calloc((size_t)x->h.n * x->h.n, sizeof(*m));
	uint32_t a, b;

	assert_non_null(m);
	*nm = 0;
	for (a = 0; a < x->h.n; a++)
		for (b = a + 1; b < x->h.n; b++) {
			ibf_probe_meas_t *y = &m[(*nm)];

			y->a = a;
			y->b = b;
			y->rtt = leg(x, x->h.ports[a], x->h.ports[b]) +
				 leg(x, x->h.ports[b], x->h.ports[a]) +
				 (jitter ? jitter[*nm] : 0);
			y->rtt_max = y->rtt + spread;
			(*nm)++;
		}
	return m;
}

/* Both directions of host i's link. */
static void set_host_link(struct fx *x, unsigned i, double v)
{
	ibf_port_id_t p = x->h.ports[i];

	x->lat[p] = x->lat[x->f->ports[p].peer] = v;
}

struct verdict {
	ibf_probe_solution_t s;
	ibf_probe_health_t hl;
	ibf_probe_meas_t *m;
	uint32_t nm;
};

static void judge(const struct fx *x, ibf_probe_model_t model, double spread,
		  const double *jitter, const ibf_probe_health_opts_t *o,
		  struct verdict *v)
{
	ibf_err_t err;

	ibf_err_clear(&err);
	v->m = all_pairs(x, spread, jitter, &v->nm);
	assert_int_equal(ibf_probe_solve_model(x->r->lfts, &x->h, model, v->m,
					       v->nm, 1e9, &v->s, &err),
			 IBF_OK);
	assert_int_equal(ibf_probe_health(x->r->lfts, &x->h, v->m, v->nm,
					  &v->s, o, &v->hl, &err), IBF_OK);
}

static void verdict_free(struct verdict *v)
{
	ibf_probe_health_free(&v->hl);
	ibf_probe_solution_free(&v->s);
	free(v->m);
}

/* The aggregated link that is exactly host i's link (symmetric model). */
static bool row_is_host(const struct fx *x, const ibf_probe_solution_t *s,
			uint32_t row, unsigned i)
{
	ibf_port_id_t p = x->h.ports[i], q = x->f->ports[p].peer;

	return s->agg_start[row + 1] - s->agg_start[row] == 1 &&
	       (s->agg_links[s->agg_start[row]] == p ||
		s->agg_links[s->agg_start[row]] == q);
}

/* A suspect's weights give its latency back from the RTTs. */
static void check_weights(const struct verdict *v,
			  const ibf_probe_suspect_t *x)
{
	double sum = 0;
	uint32_t k;

	assert_true(x->nmeas > 0);
	for (k = 0; k < x->nmeas; k++)
		sum += x->weight[k] * v->m[x->meas[k]].rtt;
	assert_true(fabs(sum - x->latency) < 1e-6);
}

static void test_median_mad(void **state)
{
	static const double l[5] = { 1.0, 1.1, 0.9, 1.0, 3.0 };
	struct fx x;
	struct verdict v;
	unsigned i;

	(void)state;
	fx_make(&x, "xgft:1:5:1", "minhop");
	for (i = 0; i < 5; i++)
		set_host_link(&x, i, l[i]);
	judge(&x, IBF_PROBE_SYMMETRIC, 0, NULL, NULL, &v);
	assert_int_equal(v.s.nagg, 5);
	assert_int_equal(v.hl.nkinds, 1);
	assert_int_equal(v.hl.njudged, 5);
	assert_int_equal(v.hl.nsuspects, 1);
	assert_true(row_is_host(&x, &v.s, v.hl.suspects[0].agg, 4));
	assert_true(fabs(v.hl.suspects[0].reference - 1.0) < 1e-9);
	assert_true(fabs(v.hl.suspects[0].excess - 2.0) < 1e-9);
	assert_true(fabs(v.hl.suspects[0].scale - 0.14826) < 1e-6);
	check_weights(&v, &v.hl.suspects[0]);
	verdict_free(&v);
	fx_free(&x);
}

/* 8 hosts, host 2's link 0.3 slower: with no noise and flat peers it is
 * the one suspect; a spread of 0.5 per measurement makes the scale (the
 * peers' propagated noise) too large to call it, 0.01 does not. */
static void test_noise_scale(void **state)
{
	struct fx x;
	struct verdict v;

	(void)state;
	fx_make(&x, "xgft:1:8:1", "minhop");
	set_host_link(&x, 2, 1.3);
	judge(&x, IBF_PROBE_SYMMETRIC, 0.5, NULL, NULL, &v);
	assert_int_equal(v.hl.nsuspects, 0);
	assert_true(v.hl.noise_median == 0.5);
	assert_true(v.hl.scale[0] > 0.3 / 5);
	verdict_free(&v);
	judge(&x, IBF_PROBE_SYMMETRIC, 0.01, NULL, NULL, &v);
	assert_int_equal(v.hl.nsuspects, 1);
	assert_true(row_is_host(&x, &v.s, v.hl.suspects[0].agg, 2));
	assert_true(fabs(v.hl.suspects[0].excess - 0.3) < 1e-6);
	check_weights(&v, &v.hl.suspects[0]);
	verdict_free(&v);
	fx_free(&x);
}

/* Jitter of +-0.02 on every RTT, spread 0.05: nothing suspect. */
static void test_clean(void **state)
{
	struct fx x;
	struct verdict v;
	double jit[64 * 63 / 2];
	unsigned i;

	(void)state;
	fx_make(&x, "xgft:2:4,4:1,4", "dmodk");
	for (i = 0; i < sizeof(jit) / sizeof(*jit); i++)
		jit[i] = 0.02 * ((int)(i * 7919 % 5) - 2) / 2;
	judge(&x, IBF_PROBE_DIRECTED, 0.05, jit, NULL, &v);
	assert_true(v.hl.njudged > 0);
	assert_int_equal(v.hl.nsuspects, 0);
	verdict_free(&v);
	fx_free(&x);
}

/* Two hosts: one aggregated kind of 1 row in the symmetric model of a
 * 2-host switch would be unjudged; with expect-link it is judged and a
 * link of 1.5 against 1.0 expected is suspect, excess 0.5. */
static void test_expected(void **state)
{
	ibf_probe_health_opts_t o = { 0, 1.0, 0 };
	struct fx x;
	struct verdict v;

	(void)state;
	fx_make(&x, "xgft:2:2,2:1,1", "minhop");
	judge(&x, IBF_PROBE_SYMMETRIC, 0, NULL, NULL, &v);
	assert_true(v.hl.njudged < v.s.nagg);
	assert_int_equal(v.hl.nsuspects, 0);
	verdict_free(&v);
	set_host_link(&x, 3, 1.5);
	judge(&x, IBF_PROBE_SYMMETRIC, 0, NULL, &o, &v);
	assert_int_equal(v.hl.njudged, v.s.nagg);
	assert_int_equal(v.hl.nsuspects, 1);
	assert_true(fabs(v.hl.suspects[0].excess - 0.5) < 1e-9);
	assert_true(fabs(v.hl.suspects[0].reference - 1.0) < 1e-9);
	check_weights(&v, &v.hl.suspects[0]);
	verdict_free(&v);
	fx_free(&x);
}

static bool row_has(const ibf_probe_solution_t *s, uint32_t row,
		    ibf_port_id_t p)
{
	uint32_t k;

	for (k = s->agg_start[row]; k < s->agg_start[row + 1]; k++)
		if (s->agg_links[k] == p)
			return true;
	return false;
}

/* A leaf-to-spine link 10x slower both ways (directed model). */
static void test_fat_tree_slow_link(void **state)
{
	struct fx x;
	struct verdict v;
	ibf_port_id_t up = IBF_NO_ID, down;
	uint32_t sw, p, i;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;
	ibf_err_t err;

	(void)state;
	fx_make(&x, "xgft:2:4,4:1,4", "dmodk");
	/* the first switch port whose peer is a switch */
	for (sw = 0; sw < x.f->nswitches && up == IBF_NO_ID; sw++) {
		const ibf_node_t *n = &x.f->nodes[x.f->switches[sw]];

		for (p = 1; p <= n->nports; p++) {
			ibf_port_id_t q = x.f->ports[n->first_port + p].peer;

			if (q != IBF_NO_ID && x.f->nodes[x.f->ports[q].node]
			    .type == IBF_NODE_SWITCH) {
				up = n->first_port + p;
				break;
			}
		}
	}
	assert_true(up != IBF_NO_ID);
	down = x.f->ports[up].peer;
	x.lat[up] = x.lat[down] = 10.0;
	judge(&x, IBF_PROBE_DIRECTED, 0.01, NULL, NULL, &v);
	assert_true(v.hl.nsuspects >= 1);
	for (i = 0; i < v.hl.nsuspects; i++) {
		assert_true(row_has(&v.s, v.hl.suspects[i].agg, up) ||
			    row_has(&v.s, v.hl.suspects[i].agg, down));
		check_weights(&v, &v.hl.suspects[i]);
	}
	/* over the weight budget: the same suspects, weights for them
	 * alone (still exact), no propagated noise */
	{
		ibf_probe_health_opts_t o = { 0, 0, 1 };
		ibf_probe_health_t h2;

		ibf_err_clear(&err);
		assert_int_equal(ibf_probe_health(x.r->lfts, &x.h, v.m, v.nm,
						  &v.s, &o, &h2, &err), IBF_OK);
		assert_int_equal(h2.nsuspects, v.hl.nsuspects);
		for (i = 0; i < h2.nsuspects; i++) {
			assert_int_equal(h2.suspects[i].agg,
					 v.hl.suspects[i].agg);
			check_weights(&v, &h2.suspects[i]);
		}
		for (i = 0; i < h2.nagg; i++)
			assert_true(h2.noise[i] == 0);
		ibf_probe_health_free(&h2);
	}
	/* the text format of the verdict, read back by promtool in the
	 * integration tests; here its families */
	fp = open_memstream(&text, &len);
	assert_non_null(fp);
	ibf_err_clear(&err);
	assert_int_equal(ibf_probe_health_write_prom(x.f, v.m, v.nm, &v.s,
						     &v.hl, fp, &err), IBF_OK);
	fclose(fp);
	assert_non_null(strstr(text, "# TYPE ibflow_probe_suspects gauge\n"));
	assert_non_null(strstr(text, "\nibflow_probe_suspect_excess_seconds{"
			       "links=\""));
	free(text);
	verdict_free(&v);
	fx_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_noise_scale),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_expected),
		cmocka_unit_test(test_fat_tree_slow_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
