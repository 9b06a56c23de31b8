/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of the max-min fair rate solvers on a large fat tree.
 *
 *   bench_mmf [--topo SPEC] [--engine NAME] [--perms K] [--randn D]
 *             [--seed S] [--no-ref] [--ref-randn]
 *
 * Builds SPEC with ibf_gen (default pgft:3:18,18,36:1,18,18:1,1,1 =
 * XGFT(3; 18,18,36; 1,18,18), 11,664 hosts), routes it with the named
 * engine through ibf_route() (default minhop) or, if that engine is not
 * available, with a simple BFS shortest-path fill (bench scaffolding, as
 * in bench_check.c), and times single-path MMF:
 *  - K random permutations (paper: 20, DMK 1.083 s in total),
 *  - one RANDN(D) instance (paper: D = 20, DMK 782.9 s),
 * with the fast solver and the reference one (RANDN only with --ref-randn:
 * the reference is O(rounds x entries)).  Times are pure solver time;
 * tracing the flows into link sets is reported apart.  Fast and reference
 * rates are compared (max relative difference).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/mmf.h>
#include <ibflow/patterns.h>
#include <ibflow/route.h>

static void die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_mmf: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- scaffolding routing: BFS per destination switch ------------------- */

static uint32_t peer_switch(const ibf_fabric_t *f, ibf_node_id_t n,
			    unsigned p)
{
	ibf_port_id_t q = f->ports[f->nodes[n].first_port + p].peer;

	if (q == IBF_NO_ID || !ibf_node_is_switch(f, f->ports[q].node))
		return IBF_NO_ID;
	return f->switch_index[f->ports[q].node];
}

/* Every LID of every node attached to switch t, routed along shortest
 * paths; among equal next hops the LID picks (destination-mod-k like). */
static ibf_lfts_t *bfs_route(const ibf_fabric_t *f)
{
	uint32_t *dist = malloc(f->nswitches * sizeof(*dist));
	uint32_t *queue = malloc(f->nswitches * sizeof(*queue));
	uint8_t *cand = malloc((size_t)f->nswitches * IBF_MAX_PORTS);
	uint8_t *ncand = malloc(f->nswitches);
	uint32_t t, s, x, head, tail;
	unsigned p, k, lid;
	ibf_lfts_t *l;

	if (!dist || !queue || !cand || !ncand ||
	    ibf_lfts_create(f, &l) != IBF_OK)
		die("out of memory", NULL);
	for (t = 0; t < f->nswitches; t++) {
		ibf_node_id_t tn = f->switches[t];

		for (s = 0; s < f->nswitches; s++)
			dist[s] = UINT32_MAX;
		dist[t] = 0;
		head = tail = 0;
		queue[tail++] = t;
		while (head < tail) {
			s = queue[head++];
			for (p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				x = peer_switch(f, f->switches[s], p);
				if (x != IBF_NO_ID && dist[x] == UINT32_MAX) {
					dist[x] = dist[s] + 1;
					queue[tail++] = x;
				}
			}
		}
		for (s = 0; s < f->nswitches; s++) {
			ncand[s] = 0;
			for (p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				x = peer_switch(f, f->switches[s], p);
				if (x != IBF_NO_ID && dist[x] + 1 == dist[s])
					cand[(size_t)s * IBF_MAX_PORTS +
					     ncand[s]++] = (uint8_t)p;
			}
		}
		for (p = 0; p <= f->nodes[tn].nports; p++) {
			ibf_port_id_t q = p ? f->ports[f->nodes[tn].first_port
						       + p].peer
					    : f->nodes[tn].first_port;

			if (q == IBF_NO_ID ||
			    (p && ibf_node_is_switch(f, f->ports[q].node)))
				continue;
			for (k = 0; k < (1u << f->ports[q].lmc); k++) {
				lid = f->ports[q].lid + k;
				for (s = 0; s < f->nswitches; s++) {
					if (s == t)
						ibf_lfts_set(l, s, lid,
							     (uint8_t)p);
					else if (ncand[s])
						ibf_lfts_set(l, s, lid,
						  cand[(size_t)s * IBF_MAX_PORTS
						       + lid % ncand[s]]);
				}
			}
		}
	}
	free(dist);
	free(queue);
	free(cand);
	free(ncand);
	return l;
}

/* ---- timing ------------------------------------------------------------ */

struct totals {
	double trace, fast, ref, xbar;
	double agg, xagg, min, maxdiff;
	unsigned rounds;
	uint64_t flows, entries;
};

static void run_instance(const ibf_lfts_t *l, const ibf_traffic_t *tr,
			 int with_ref, struct totals *t)
{
	ibf_mmf_problem_t p, x;
	ibf_mmf_summary_t s;
	ibf_mmf_stats_t st;
	double *r, *q, t0;
	ibf_err_t err;
	uint32_t k;

	t0 = now();
	if (ibf_flowpaths_build(l, tr, IBF_FLOWPATHS_SINGLE, &p, &err))
		die("flow paths", &err);
	t->trace += now() - t0;
	r = malloc((p.nflows + 1) * sizeof(*r));
	q = malloc((p.nflows + 1) * sizeof(*q));
	if (!r || !q)
		die("out of memory", NULL);
	t0 = now();
	if (ibf_mmf_solve(&p, r, &st, &err))
		die("solve", &err);
	t->fast += now() - t0;
	t->rounds += st.rounds;
	t->flows += p.nflows;
	t->entries += p.first[p.nflows];
	if (ibf_mmf_summarize(&p, r, &s, &err))
		die("summary", &err);
	t->agg += s.aggregate;
	t->min = t->min < 0 ? s.min : fmin(t->min, s.min);
	if (with_ref) {
		t0 = now();
		if (ibf_mmf_solve_ref(&p, q, NULL, &err))
			die("reference", &err);
		t->ref += now() - t0;
		for (k = 0; k < p.nflows; k++)
			t->maxdiff = fmax(t->maxdiff,
					  fabs(r[k] - q[k]) / fabs(q[k]));
	}
	if (ibf_flowpaths_crossbar(l->fabric, tr, &x, &err))
		die("crossbar", &err);
	t0 = now();
	if (ibf_mmf_solve(&x, q, NULL, &err) ||
	    ibf_mmf_summarize(&x, q, &s, &err))
		die("crossbar solve", &err);
	t->xbar += now() - t0;
	t->xagg += s.aggregate;
	ibf_mmf_problem_free(&x);
	ibf_mmf_problem_free(&p);
	free(r);
	free(q);
}

static void run_pattern(const ibf_lfts_t *l, const char *spec,
			const ibf_port_id_t *map, uint32_t n, uint64_t seed,
			int with_ref)
{
	struct totals t = { .min = -1 };
	ibf_pattern_t pat;
	ibf_traffic_t tr;
	ibf_err_t err;
	uint32_t i, ni;

	if (ibf_pattern_parse(spec, &pat, &err))
		die("pattern", &err);
	ni = ibf_pattern_ninstances(&pat, n);
	for (i = 0; i < ni; i++) {
		if (ibf_pattern_traffic(&pat, l->fabric, map, n, i, seed, &tr,
					&err))
			die("pattern", &err);
		run_instance(l, &tr, with_ref, &t);
		ibf_traffic_free(&tr);
	}
	printf("%-12s %3u inst %9llu flows %10llu entries  rounds %7u  "
	       "index %.4f  min %.4g\n", spec, ni,
	       (unsigned long long)t.flows, (unsigned long long)t.entries,
	       t.rounds, t.agg / t.xagg, t.min);
	printf("%-12s fast %8.3f s   ref %s%8.3f s%s   (trace %.3f s, "
	       "crossbar %.3f s)", "", t.fast, with_ref ? "" : "(skipped) ",
	       t.ref, with_ref ? "" : "", t.trace, t.xbar);
	if (with_ref)
		printf("   speedup %.0fx  max rel diff %.1e", t.ref / t.fast,
		       t.maxdiff);
	printf("\n");
	ibf_pattern_free(&pat);
}

int main(int argc, char **argv)
{
	const char *topo = "pgft:3:18,18,36:1,18,18:1,1,1", *engine = "minhop";
	unsigned perms = 20, randn = 20, i;
	int with_ref = 1, ref_randn = 0;
	uint64_t seed = 1;
	ibf_gen_opts_t go = { 0 };
	ibf_routing_t *rt = NULL;
	ibf_route_opts_t ro;
	ibf_port_id_t *map;
	ibf_lfts_t *l;
	ibf_fabric_t *f;
	ibf_err_t err;
	char spec[64];
	uint32_t n;
	double t0;

	for (i = 1; i < (unsigned)argc; i++) {
		if (!strcmp(argv[i], "--topo") && i + 1 < (unsigned)argc)
			topo = argv[++i];
		else if (!strcmp(argv[i], "--engine") && i + 1 < (unsigned)argc)
			engine = argv[++i];
		else if (!strcmp(argv[i], "--perms") && i + 1 < (unsigned)argc)
			perms = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--randn") && i + 1 < (unsigned)argc)
			randn = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < (unsigned)argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--no-ref"))
			with_ref = 0;
		else if (!strcmp(argv[i], "--ref-randn"))
			ref_randn = 1;
		else {
			fprintf(stderr, "usage: bench_mmf [--topo SPEC] "
				"[--engine NAME] [--perms K] [--randn D] "
				"[--seed S] [--no-ref] [--ref-randn]\n");
			return 2;
		}
	}
	t0 = now();
	if (ibf_gen(topo, &go, &f, &err))
		die("generate", &err);
	printf("fabric: %s: %u endpoints, %u switches (%.2f s)\n", topo,
	       f->nendpoints, f->nswitches, now() - t0);
	t0 = now();
	memset(&ro, 0, sizeof(ro));
	if (ibf_route(f, engine, &ro, &rt, &err) == IBF_OK) {
		l = rt->lfts;
		printf("routing: engine %s (%.2f s)\n", engine, now() - t0);
	} else {
		printf("routing: engine %s unavailable (%s); bench BFS "
		       "shortest-path fill instead\n", engine, err.msg);
		t0 = now();
		l = bfs_route(f);
		printf("routing: bench BFS (%.2f s)\n", now() - t0);
	}
	if (ibf_rankmap(f, NULL, 0, false, 0, &map, &n, &err))
		die("rank map", &err);
	if (perms) {
		snprintf(spec, sizeof(spec), "perm:%u", perms);
		run_pattern(l, spec, map, n, seed, with_ref);
	}
	if (randn) {
		snprintf(spec, sizeof(spec), "randn:%u", randn);
		run_pattern(l, spec, map, n, seed, with_ref && ref_randn);
	}
	free(map);
	if (rt)
		ibf_routing_destroy(rt);
	else
		ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return 0;
}
