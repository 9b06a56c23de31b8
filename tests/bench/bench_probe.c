/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe planning benchmark: generate a fabric, route it, plan the probes
 * among all its hosts, print rank, pairs, rounds, the lower bound and the
 * time.  Usage: bench_probe [SPEC [ENGINE [MODEL]]] (default the paper's
 * 12-port 3-tree, xgft:3:6,6,12:1,6,6, with dmodk; MODEL directed or
 * symmetric, default directed).  With ROUND_SIZES set, also each round's
 * size and the busiest host's number of pairs (rounds cannot be fewer);
 * ROUND_SIZES=pairs also lists "ROUND A B" for every pair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/probe.h>
#include <ibflow/route.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int run(const char *spec, const char *engine, const char *model)
{
	ibf_fabric_t *f = NULL;
	ibf_routing_t *r = NULL;
	ibf_hostlist_t h;
	ibf_probe_plan_t p;
	ibf_probe_opts_t o = { 0 };
	ibf_err_t err;
	uint32_t i, maxr = 0;
	double t0;

	ibf_err_clear(&err);
	if (ibf_gen(spec, NULL, &f, &err) != IBF_OK ||
	    ibf_route(f, engine, NULL, &r, &err) != IBF_OK) {
		fprintf(stderr, "%s %s: %s\n", spec, engine, err.msg);
		ibf_fabric_destroy(f);
		return 1;
	}
	if (getenv("TRIES"))
		o.tries = (unsigned)atoi(getenv("TRIES"));
	if (ibf_probe_model_parse(model, &o.model) != IBF_OK) {
		fprintf(stderr, "model %s: directed or symmetric\n", model);
		return 2;
	}
	h.n = f->nendpoints;
	h.ports = f->endpoints;
	t0 = now();
	if (ibf_probe_plan(r->lfts, &h, &o, &p, &err) != IBF_OK) {
		fprintf(stderr, "plan: %s\n", err.msg);
		return 1;
	}
	for (i = 0; i < p.nrounds; i++)
		if (p.round_start[i + 1] - p.round_start[i] > maxr)
			maxr = p.round_start[i + 1] - p.round_start[i];
	printf("%-26s %-6s %-9s hosts %5u links %6u rank %6u rounds %4u "
	       "lower_bound %4u ratio %.2f largest_round %u tested %llu "
	       "time %.4f s\n", spec, engine, model, h.n, p.nlinks, p.rank,
	       p.nrounds, p.lower_bound,
	       p.lower_bound ? (double)p.nrounds / p.lower_bound : 0.0,
	       maxr, (unsigned long long)p.tested, now() - t0);
	if (getenv("ROUND_SIZES")) {	/* how far from perfect matchings */
		uint32_t *deg = calloc(h.n, sizeof(*deg)), md = 0;

		for (i = 0; i < p.npairs; i++) {
			deg[p.pairs[i].a]++;
			deg[p.pairs[i].b]++;
		}
		for (i = 0; i < h.n; i++)
			md = deg[i] > md ? deg[i] : md;
		free(deg);
		for (i = 0; i < p.nrounds; i++)
			printf(" %u", p.round_start[i + 1] - p.round_start[i]);
		printf(" (busiest host %u)\n", md);
		if (!strcmp(getenv("ROUND_SIZES"), "pairs"))
			for (i = 0; i < p.nrounds; i++) {
				uint32_t k;

				for (k = p.round_start[i]; k < p.round_start[i + 1]; k++)
					printf("%u %u %u\n", i, p.pairs[k].a, p.pairs[k].b);
			}
	}
	ibf_probe_plan_free(&p);
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return run(argv[1], argc > 2 ? argv[2] : "dmodk",
			   argc > 3 ? argv[3] : "directed");
	return run("xgft:3:6,6,12:1,6,6", "dmodk", "directed");
}
