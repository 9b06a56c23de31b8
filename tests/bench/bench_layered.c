/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of the layered (FatPaths) engine on a ~10,000-endpoint Slim
 * Fly: slimfly:23:10 = MMS(23), 1,058 switches of network radix 35 with 10
 * hosts each, 10,580 endpoints; LMC 2 (42,320 CA LIDs), n = 4 layers.
 *
 *   bench_layered [--spec SPEC] [--lmc N] [--layers N] [--method M]
 *                 [--density R] [--runs N] [--check]
 *
 * Times ibf_route(..., "layered", ...) end to end (layers, LFTs, SL/VL
 * assignment, path diversity for the report) on one core and prints every
 * run, the median, and the report's key figures; --check also runs the
 * all-pairs route check on the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include <ibflow/gen.h>
#include <ibflow/route.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#include "routing/route_internal.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_layered: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *spec = "slimfly:23:10";
	ibf_gen_opts_t go = { 2 };
	ibf_route_opts_t o;
	ibf_fabric_t *f;
	ibf_routing_t *r = NULL;
	ibf_err_t err;
	double t[16];
	int i, runs = 3, check = 0;

	memset(&o, 0, sizeof(o));
	o.layers = 4;
	o.seed = 1;
	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(argv[i], "--spec"))
			spec = v, i++;
		else if (!strcmp(argv[i], "--lmc"))
			go.lmc = atoi(v), i++;
		else if (!strcmp(argv[i], "--layers"))
			o.layers = atoi(v), i++;
		else if (!strcmp(argv[i], "--density"))
			o.density = atof(v), i++;
		else if (!strcmp(argv[i], "--method"))
			o.method = strcmp(v, "overlap") ? IBF_LAYERS_RANDOM
							: IBF_LAYERS_OVERLAP,
			i++;
		else if (!strcmp(argv[i], "--runs"))
			runs = atoi(v), i++;
		else if (!strcmp(argv[i], "--check"))
			check = 1;
		else
			die("usage", NULL);
	}
	if (runs < 1 || runs > 16)
		runs = 3;
	if (ibf_gen(spec, &go, &f, &err))
		die(spec, &err);
	printf("%s: %u switches, %u endpoints, LMC %u, lid_top %u, "
	       "%u layers, method %s\n", spec, f->nswitches, f->nendpoints,
	       f->lmc, f->lid_top, o.layers,
	       o.method == IBF_LAYERS_OVERLAP ? "overlap" : "random");
	for (i = 0; i < runs; i++) {
		double t0 = now();

		if (r)
			ibf_routing_destroy(r);
		r = NULL;
		if (ibf_route(f, "layered", &o, &r, &err))
			die("route", &err);
		t[i] = now() - t0;
		printf("run %d: %.2f s\n", i + 1, t[i]);
	}
	qsort(t, runs, sizeof(*t), cmp_d);
	printf("median of %d: %.2f s\n", runs, t[runs / 2]);
	printf("SLs: %u\nreport: %s\n", r->nsls,
	       json_object_to_json_string_ext(ibf_route_report_json(r),
					      JSON_C_TO_STRING_PLAIN));
	if (check) {
		ibf_check_report_t rep;
		ibf_check_opts_t co = IBF_CHECK_OPTS_DEFAULT;

		if (ibf_check_run(r->lfts, &co, &rep, &err))
			die("check", &err);
		printf("check: %llu pairs, %llu defects\n",
		       (unsigned long long)rep.all.pairs,
		       (unsigned long long)ibf_check_defects(&rep));
		ibf_check_report_free(&rep);
	}
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
	return 0;
}
