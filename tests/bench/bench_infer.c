/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology inference benchmark: the synthetic oracle measures a generated
 * fabric (charging, and with SLEEP=1 really waiting, the time each
 * measurement takes); prints pairs measured per host against the paper's
 * bound p(d-1)+1, the false rates of shared-link answers, the
 * predicted/measured RTT ratios and the times.
 *
 * Usage: bench_infer SPEC [LATENCIES [NOISE [MODEL [LOOKAHEAD [SEED]]]]]
 *   LATENCIES  one-way µs per level, e.g. 1,0.25,50 (default 1,0.25)
 *   NOISE      ping-pong noise scale / uniform bound (default 0.5)
 *   MODEL      pingpong (default) or uniform
 *   LOOKAHEAD  close-host search budget: N, 0 = off, all (default the
 *              library's, IBF_INFER_LOOKAHEAD_DEFAULT)
 * Environment: SLEEP=1 waits the charged time for real; JITTER (0.2);
 * PARALLEL (hosts inserted at once, default the library's; 1 = serial);
 * SHUFFLE=N inserts the hosts in an order shuffled with seed N (as ranks
 * placed at random), not in the topology's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/infer.h>

#include "../shuffle.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void latencies(const char *s, ibf_infer_synth_opts_t *so)
{
	char *e;

	while (*s && so->nlatency < IBF_INFER_SYNTH_LEVELS) {
		so->latency[so->nlatency++] = strtod(s, &e);
		s = *e == ',' ? e + 1 : e;
	}
}

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "kary:4,3";
	ibf_infer_synth_opts_t so = { .noise = 0.5,
				      .model = IBF_INFER_NOISE_PINGPONG };
	ibf_infer_opts_t io = { .lookahead = 0 /* the library's default */ };
	ibf_infer_synth_t *s;
	ibf_infer_result_t r;
	ibf_infer_accuracy_t a;
	ibf_fabric_t *f;
	ibf_err_t err;
	uint32_t n, p, d, *hops, *order;
	double *meas, t0, wall;

	ibf_err_clear(&err);
	if (argc > 2)
		latencies(argv[2], &so);
	if (argc > 3)
		so.noise = atof(argv[3]);
	if (argc > 4 && !strcmp(argv[4], "uniform"))
		so.model = IBF_INFER_NOISE_UNIFORM;
	if (argc > 5)
		io.lookahead = !strcmp(argv[5], "all") ? IBF_INFER_LOOKAHEAD_ALL :
			       atoi(argv[5]) ? (unsigned)atoi(argv[5]) :
			       IBF_INFER_LOOKAHEAD_OFF;
	io.seed = so.seed = argc > 6 ? strtoull(argv[6], NULL, 0) : 1;
	so.jitter = getenv("JITTER") ? atof(getenv("JITTER")) : 0.2;
	so.sleep = getenv("SLEEP") && atoi(getenv("SLEEP"));
	io.parallel = getenv("PARALLEL") ? (unsigned)atoi(getenv("PARALLEL")) : 0;
	if (ibf_gen(spec, NULL, &f, &err) != IBF_OK ||
	    ibf_infer_synth_create(f, &so, &s, &err) != IBF_OK) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		return 1;
	}
	io.tol = ibf_infer_synth_min_hop_rtt(s) / 2;
	n = ibf_infer_synth_nhosts(s);
	order = malloc(n * sizeof(*order));
	t_shuffle(order, n, getenv("SHUFFLE") ? strtoull(getenv("SHUFFLE"),
							 NULL, 0) : 0);
	if (getenv("SHUFFLE"))
		io.order = order;
	{
		ibf_infer_oracle_t o = ibf_infer_synth_oracle(s);

		t0 = now();
		if (ibf_infer_run(&o, &io, &r, &err) != IBF_OK) {
			fprintf(stderr, "infer: %s\n", err.msg);
			return 1;
		}
		wall = now() - t0;
	}
	hops = malloc((size_t)n * n * sizeof(*hops));
	meas = malloc((size_t)n * n * sizeof(*meas));
	ibf_infer_truth_hops(f, f->endpoints, n, hops, &err);
	ibf_infer_synth_measure_all(s, meas);
	ibf_infer_accuracy(&r.tree, hops, meas, 0, 1, &a, &err);
	ibf_infer_tree_shape(&r.tree, &p, &d);
	printf("%-22s hosts %4u lookahead %-3s pairs %5llu (search %5llu) "
	       "per_host %.2f max %3u max_add %3u bound %3u | fp %.4f fn %.4f "
	       "| ratio p05 %.3f med %.3f p95 %.3f | cpu %.3f s charged %.3f s "
	       "model %.3f s wall %.3f s | parallel %u in flight max %u mean "
	       "%.2f\n",
	       spec, n,
	       argc > 5 ? argv[5] : "4", (unsigned long long)r.stats.pairs,
	       (unsigned long long)r.stats.lookahead_pairs,
	       (double)r.stats.pairs / n, r.stats.max_host_pairs,
	       r.stats.max_add_pairs, p * (d - 1) + 1,
	       (double)a.false_pos / (double)a.queries,
	       (double)a.false_neg / (double)a.queries, a.ratio_p05,
	       a.ratio_median, a.ratio_p95, r.stats.cpu_s,
	       ibf_infer_synth_charged(s) * 1e-6,
	       r.stats.cpu_s + ibf_infer_synth_charged(s) * 1e-6, wall,
	       r.stats.parallel, r.stats.max_in_flight,
	       r.stats.mean_in_flight);
	free(order);
	free(hops);
	free(meas);
	ibf_infer_result_free(&r);
	ibf_infer_synth_destroy(s);
	ibf_fabric_destroy(f);
	return 0;
}
