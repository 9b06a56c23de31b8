/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of ibflow liquid on all-to-all traffics.
 *
 *   bench_liquid [--runs N] [--subsets N] [--limit S] [SPEC:ENGINE ...]
 *
 * For each generated fabric routed by ENGINE (default: kary:4,3:minhop,
 * kary:4,3:dmodk, xgft:2:8,12:1,8:dmodk, xgft:2:8,12:1,8:minhop,
 * torus:3,3,3:minhop, kary:4,2:minhop) it schedules the all-to-all of
 * every host, then of N random host subsets (4 hosts .. all; default 20),
 * both with the default pipeline (cheap schedules first, search only when
 * they are not liquid) and with the exact search first (--exact).  Prints
 * per instance the median time of the runs (default 5), frames, duration,
 * round-robin frames and the method, and at the end the share of instances
 * under 0.1 s for each mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/gen.h>
#include <ibflow/liquid.h>
#include <ibflow/route.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct tally {
	unsigned n, fast, liquid;
};

static void one(const ibf_lfts_t *l, const ibf_hostlist_t *h, bool exact,
		unsigned runs, double limit, struct tally *ty, bool print)
{
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { .time_limit = limit, .search_first = exact };
	double s[64];
	ibf_err_t err;

	if (ibf_liquid_traffic_alltoall(l, h, &t, &err) != IBF_OK) {
		fprintf(stderr, "bench_liquid: %s\n", err.msg);
		exit(2);
	}
	for (unsigned i = 0; i < runs; i++) {
		if (ibf_liquid_schedule(t, &o, &r, &err) != IBF_OK) {
			fprintf(stderr, "bench_liquid: %s\n", err.msg);
			exit(2);
		}
		s[i] = r.seconds;
		if (i + 1 < runs)
			ibf_liquid_result_free(&r);
	}
	qsort(s, runs, sizeof(*s), cmp_d);
	ty->n++;
	ty->fast += s[runs / 2] < 0.1;
	ty->liquid += r.liquid;
	if (print)
		printf("  %-6s %4u hosts %6u transfers: %.4f s (median of "
		       "%u), %u frames, duration %u, round robin %u, %s%s\n",
		       exact ? "exact" : "default", h->n, t->ntransfers,
		       s[runs / 2], runs, r.nframes, r.duration, r.rr_frames,
		       ibf_liquid_method_str(r.method),
		       r.timed_out ? " (time limit)" : "");
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static const char *defaults[] = {
		"kary:4,3:minhop", "kary:4,3:dmodk", "xgft:2:8,12:1,8:dmodk",
		"xgft:2:8,12:1,8:minhop", "torus:3,3,3:minhop",
		"kary:4,2:minhop", NULL,
	};
	const char **specs = defaults;
	unsigned runs = 5, nsub = 20;
	double limit = 2;
	struct tally ty[2] = { { 0 } };
	uint64_t seed = 12345;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i += 2) {
		if (i + 1 >= argc)
			return 2;
		if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--subsets"))
			nsub = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--limit"))
			limit = atof(argv[i + 1]);
		else
			return 2;
	}
	if (runs < 1 || runs > 64)
		runs = 5;
	if (i < argc) {
		argv[argc] = NULL;
		specs = (const char **)argv + i;
	}
	for (; *specs; specs++) {
		char spec[128], *eng;
		ibf_fabric_t *f;
		ibf_routing_t *ro;
		ibf_hostlist_t h;
		ibf_err_t err;

		snprintf(spec, sizeof(spec), "%s", *specs);
		eng = strrchr(spec, ':');
		if (!eng)
			return 2;
		*eng++ = '\0';
		if (ibf_gen(spec, NULL, &f, &err) != IBF_OK ||
		    ibf_route(f, eng, NULL, &ro, &err) != IBF_OK) {
			fprintf(stderr, "bench_liquid: %s: %s\n", *specs,
				err.msg);
			return 2;
		}
		printf("%s routed by %s:\n", spec, eng);
		h.ports = malloc(f->nendpoints * sizeof(*h.ports));
		for (unsigned s = 0; s <= nsub; s++) {
			/* s = 0: every host; then random subsets. */
			memcpy(h.ports, f->endpoints,
			       f->nendpoints * sizeof(*h.ports));
			h.n = f->nendpoints;
			if (s) {
				uint32_t k = 4 + (uint32_t)(rng(&seed) %
							    (h.n - 3));

				for (uint32_t j = 0; j < k; j++) {
					uint32_t r = j + (uint32_t)(rng(&seed) %
								    (h.n - j));
					ibf_port_id_t tmp = h.ports[j];

					h.ports[j] = h.ports[r];
					h.ports[r] = tmp;
				}
				h.n = k;
			}
			for (int e = 0; e < 2; e++)
				one(ro->lfts, &h, e, s ? 1 : runs, limit,
				    &ty[e], s == 0);
		}
		free(h.ports);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
	for (int e = 0; e < 2; e++)
		printf("%s: %u instances, %u under 0.1 s (%.1f%%), %u "
		       "liquid\n", e ? "exact search first" : "default",
		       ty[e].n, ty[e].fast, 100.0 * ty[e].fast / ty[e].n,
		       ty[e].liquid);
	return 0;
}
