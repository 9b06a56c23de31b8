/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of the MMF-MCF optimum on a large PGFT (mmf_opt.h).
 *
 *   bench_opt [--topo SPEC] [--perms K] [--randn D] [--reps R]
 *             [--threads N] [--seed S] [--check]
 *
 * Builds SPEC with ibf_gen (default pgft:3:18,18,36:1,18,18:1,1,1 =
 * XGFT(3; 18,18,36; 1,18,18), 11,664 hosts) and recognizes it, generates
 * the patterns on the topological host order (direct map), then times
 * ibf_mmf_opt_pgft() alone (pure compute: aggregation + progressive
 * filling; generation, recognition and pattern generation excluded):
 *  - K random permutations, all K instances per repetition (paper: 20,
 *    OPT 0.150 s),
 *  - one RANDN(D) instance (paper: D = 20, OPT 310.65 s on one thread,
 *    89 s on four),
 * R repetitions each (default 5), printing every time and the median.
 * --check also solves each instance with the reference solver on the
 * aggregated problem and prints the largest relative difference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/mmf_opt.h>
#include <ibflow/patterns.h>

#define MAX_REPS 101

static void die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_opt: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: shows what other load on the machine adds. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct inst {
	ibf_traffic_t *tr;
	uint32_t n;
	uint64_t flows;
};

static void gen_instances(const char *spec, const ibf_fabric_t *f,
			  const ibf_port_id_t *map, uint32_t nranks,
			  uint64_t seed, struct inst *in)
{
	ibf_pattern_t pat;
	ibf_err_t err;
	uint32_t i;

	if (ibf_pattern_parse(spec, &pat, &err))
		die(spec, &err);
	in->n = ibf_pattern_ninstances(&pat, nranks);
	in->tr = calloc(in->n, sizeof(*in->tr));
	in->flows = 0;
	for (i = 0; i < in->n; i++) {
		if (ibf_pattern_traffic(&pat, f, map, nranks, i, seed,
					&in->tr[i], &err))
			die(spec, &err);
		in->flows += in->tr[i].n;
	}
	ibf_pattern_free(&pat);
}

static double check_ref(const ibf_pgft_t *pg, const ibf_traffic_t *tr,
			const double *r)
{
	ibf_mmf_problem_t p;
	ibf_err_t err;
	double *q = malloc(tr->n * sizeof(*q)), worst = 0;
	uint32_t k;

	if (ibf_mmf_opt_problem(pg, pg->fabric, tr->flows, tr->n, &p, &err) ||
	    ibf_mmf_solve_ref(&p, q, NULL, &err))
		die("reference", &err);
	for (k = 0; k < tr->n; k++) {
		double d = fabs(r[k] - q[k]) / q[k];

		if (d > worst)
			worst = d;
	}
	ibf_mmf_problem_free(&p);
	free(q);
	return worst;
}

static void run(const char *what, const ibf_pgft_t *pg, const struct inst *in,
		unsigned reps, const ibf_mmf_opt_opts_t *o, int check)
{
	double t[MAX_REPS], c[MAX_REPS], agg = 0, minr = INFINITY, worst = 0;
	uint32_t i, k, maxn = 0;
	unsigned r;
	double *rate;
	ibf_err_t err;

	for (i = 0; i < in->n; i++)
		if (in->tr[i].n > maxn)
			maxn = in->tr[i].n;
	rate = malloc((maxn ? maxn : 1) * sizeof(*rate));
	for (r = 0; r < reps; r++) {
		double t0 = now(), tsum = 0, c0 = cpu_now();

		for (i = 0; i < in->n; i++) {
			const ibf_traffic_t *tr = &in->tr[i];

			t0 = now();
			if (ibf_mmf_opt_pgft(pg, pg->fabric, tr->flows, tr->n,
					     rate, o, &err))
				die(what, &err);
			tsum += now() - t0;
			if (r)
				continue;
			for (k = 0; k < tr->n; k++) {
				agg += tr->flows[k].count * rate[k];
				if (rate[k] < minr)
					minr = rate[k];
			}
			if (check) {
				double d = check_ref(pg, tr, rate);

				if (d > worst)
					worst = d;
			}
		}
		t[r] = tsum;
		c[r] = cpu_now() - c0;
		printf("  %s rep %u: %.4f s (cpu %.4f s incl. checks)\n",
		       what, r + 1, tsum, c[r]);
	}
	qsort(t, reps, sizeof(*t), cmp_double);
	qsort(c, reps, sizeof(*c), cmp_double);
	printf("%s: %u instance(s), %llu flows, aggregate %.1f, min rate "
	       "%.4f, threads %u: median %.4f s of %u (min %.4f, max %.4f; "
	       "cpu median %.4f s)\n",
	       what, in->n, (unsigned long long)in->flows, agg, minr,
	       o->nthreads ? o->nthreads : 1, t[reps / 2], reps, t[0],
	       t[reps - 1], c[reps / 2]);
	if (check)
		printf("%s: reference solver on the aggregated problem: max "
		       "relative difference %.3g\n", what, worst);
	free(rate);
}

static void free_inst(struct inst *in)
{
	uint32_t i;

	for (i = 0; i < in->n; i++)
		ibf_traffic_free(&in->tr[i]);
	free(in->tr);
}

int main(int argc, char **argv)
{
	const char *topo = "pgft:3:18,18,36:1,18,18:1,1,1";
	unsigned perms = 20, randn = 20, reps = 5, check = 0;
	ibf_mmf_opt_opts_t o = { 1 };
	uint64_t seed = 1;
	ibf_port_id_t *map;
	ibf_fabric_t *f;
	ibf_pgft_t *pg;
	ibf_err_t err;
	struct inst in;
	uint32_t n;
	char spec[64], buf[128];
	double t0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--topo") && i + 1 < argc)
			topo = argv[++i];
		else if (!strcmp(argv[i], "--perms") && i + 1 < argc)
			perms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--randn") && i + 1 < argc)
			randn = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o.nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--check"))
			check = 1;
		else {
			fprintf(stderr, "usage: bench_opt [--topo SPEC] "
				"[--perms K] [--randn D] [--reps R] "
				"[--threads N] [--seed S] [--check]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS)
		reps = 5;
	t0 = now();
	if (ibf_gen(topo, NULL, &f, &err))
		die(topo, &err);
	if (ibf_pgft_recognize(f, &pg, &err))
		die(topo, &err);
	printf("%s: %s, %u endpoints (generate + recognize %.3f s)\n", topo,
	       ibf_pgft_format(pg, buf, sizeof(buf)), pg->nhosts,
	       now() - t0);
	if (ibf_rankmap(f, pg->host_order, pg->nhosts, false, 0, &map, &n,
			&err))
		die("rankmap", &err);
	if (perms) {
		snprintf(spec, sizeof(spec), "perm:%u", perms);
		gen_instances(spec, f, map, n, seed, &in);
		run(spec, pg, &in, reps, &o, check);
		free_inst(&in);
	}
	if (randn) {
		snprintf(spec, sizeof(spec), "randn:%u:1", randn);
		gen_instances(spec, f, map, n, seed, &in);
		run(spec, pg, &in, reps, &o, check);
		free_inst(&in);
	}
	free(map);
	ibf_pgft_destroy(pg);
	ibf_fabric_destroy(f);
	return 0;
}
