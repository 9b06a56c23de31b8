/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The coincidence radius estimated from the RTTs (ibf_infer_radius_
 * estimate) against the true radius and against none: the synthetic
 * oracle measures every pair once (uniform noise), the table of these
 * RTTs is what `ibflow infer --rtt` reads, and the tree is inferred from
 * it with the estimate, with --tol = l (the smallest link latency, known
 * here) and with --tol 0.  Prints one line per run: the estimate, l and
 * the false positive / negative rates of the three trees.
 *
 * Usage: bench_infer_radius SPEC LATENCIES JITTER NOISE SEED
 *   e.g. bench_infer_radius xgft:3:4,4,4:1,1,1 1 5 0.2 1   (the first
 *   row of docs/benchmarks.md's radius table: 64 hosts, 3 levels, links of 1-6 us, RTTs +-0.2 us)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/gen.h>
#include <ibflow/infer.h>

static void die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_infer_radius: %s: %s\n", what, err->msg);
	exit(1);
}

/* False rates of the tree inferred from the table at this radius. */
static void rates(ibf_infer_table_t *t, const uint32_t *hops,
		  double tol, double *fp, double *fn)
{
	ibf_infer_oracle_t o = ibf_infer_table_oracle(t);
	ibf_infer_opts_t io = { .tol = tol, .lookahead = 4, .seed = 1 };
	ibf_infer_accuracy_t acc;
	ibf_infer_result_t r;
	ibf_err_t err;

	ibf_err_clear(&err);
	o.start = NULL; /* one pair at a time, in the order asked */
	o.wait = NULL;
	if (ibf_infer_run(&o, &io, &r, &err) != IBF_OK ||
	    ibf_infer_accuracy(&r.tree, hops, NULL, 0, 1, &acc, &err) !=
	    IBF_OK)
		die("infer", &err);
	*fp = (double)acc.false_pos / (double)acc.queries;
	*fn = (double)acc.false_neg / (double)acc.queries;
	ibf_infer_result_free(&r);
}

int main(int argc, char **argv)
{
	ibf_infer_synth_opts_t so = { .model = IBF_INFER_NOISE_UNIFORM };
	ibf_fabric_t *f = NULL;
	ibf_infer_synth_t *s;
	ibf_infer_table_t *t;
	ibf_infer_radius_t rad;
	ibf_rtt_set_t set = { 0 };
	double *m, l, fp[3], fn[3], tols[3];
	uint32_t n, a, b, *hops;
	ibf_err_t err;
	char *e;
	int i;

	if (argc != 6) {
		fprintf(stderr, "usage: %s SPEC LATENCIES JITTER NOISE SEED\n",
			argv[0]);
		return 2;
	}
	for (e = argv[2]; *e && so.nlatency < IBF_INFER_SYNTH_LEVELS;
	     e += *e == ',')
		so.latency[so.nlatency++] = strtod(e, &e);
	so.jitter = atof(argv[3]);
	so.noise = atof(argv[4]);
	so.seed = strtoull(argv[5], NULL, 10);
	ibf_err_clear(&err);
	if (ibf_gen(argv[1], NULL, &f, &err) != IBF_OK ||
	    ibf_infer_synth_create(f, &so, &s, &err) != IBF_OK)
		die(argv[1], &err);
	n = ibf_infer_synth_nhosts(s);
	l = ibf_infer_synth_min_hop_rtt(s) / 2;
	m = malloc((size_t)n * n * sizeof(*m));
	hops = malloc((size_t)n * n * sizeof(*hops));
	set.m = malloc((size_t)n * n * sizeof(*set.m));
	if (!m || !hops || !set.m)
		return 1;
	ibf_infer_synth_measure_all(s, m);
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++)
			set.m[set.n++] = (ibf_rtt_meas_t){ a, b, m[a * n + b],
							   m[a * n + b], 0 };
	if (ibf_infer_truth_hops(f, f->endpoints, n, hops, &err) != IBF_OK ||
	    ibf_infer_table_create(&set, n, &t, &err) != IBF_OK ||
	    ibf_infer_radius_estimate(m, n, so.seed, &rad, &err) != IBF_OK)
		die("table", &err);
	tols[0] = rad.tol;
	tols[1] = l;
	tols[2] = 0;
	for (i = 0; i < 3; i++)
		rates(t, hops, tols[i], &fp[i], &fn[i]);
	printf("%s hosts %u noise %g seed %s: estimate %.3f (%s) l %.3f | "
	       "fp/fn estimate %.4f/%.4f  tol l %.4f/%.4f  tol 0 "
	       "%.4f/%.4f\n", argv[1], n, so.noise, argv[5], rad.tol,
	       rad.found ? "found" : rad.why, l, fp[0], fn[0], fp[1], fn[1],
	       fp[2], fn[2]);
	ibf_infer_table_destroy(t);
	ibf_infer_synth_destroy(s);
	ibf_fabric_destroy(f);
	free(set.m);
	free(m);
	free(hops);
	return 0;
}
