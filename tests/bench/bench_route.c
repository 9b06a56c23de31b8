/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Benchmark of the routing engines on a generated topology.
 *
 *   bench_route [--spec SPEC] [--engine NAME[,NAME..]] [--lmc N]
 *               [--runs N] [--check] [--shifts N]
 *
 * Generates SPEC (default pgft:3:18,18,36:1,18,18:1,1,1, i.e.
 * XGFT(3; 18,18,36; 1,18,18): 11,664 hosts, 1,620 switches) at the given
 * LMC and times ibf_route() for each engine (default dmodk,uapr): the
 * whole call, PGFT recognition and ibf_route's validation included, and
 * the engine's run() alone (recognition included, validation not).  For
 * fat trees it also times ibf_pgft_recognize() alone.  Prints the median and the range of the
 * runs.  --check runs ibf_check_run() (switch LIDs too) on the last
 * routing of each engine and prints its defect count.  --shifts N walks
 * N shift permutations (rank i -> i+s in the engine's host order; s spread
 * over 1..N-1, plus 1 and the subtree sizes) through the tables of the
 * last LID-offset-0 routing and prints the worst directed link load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/pgft.h>
#include <ibflow/route.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#define MAXRUNS 101

static void die(const char *what, const ibf_err_t *err)
{
	fprintf(stderr, "bench_route: %s: %s\n", what, err ? err->msg : "");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void print_times(const char *what, double *t, unsigned n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	printf("%-28s median %8.3f s of %u (min %.3f, max %.3f)\n", what,
	       t[n / 2], n, t[0], t[n - 1]);
}

static void check(const ibf_routing_t *r)
{
	ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t rep;
	ibf_err_t err;

	o.switches = true;
	if (ibf_check_run(r->lfts, &o, &rep, &err) != IBF_OK)
		die("check", &err);
	printf("  check: %llu pairs, %llu defects\n",
	       (unsigned long long)rep.all.pairs,
	       (unsigned long long)ibf_check_defects(&rep));
	ibf_check_report_free(&rep);
}

/* The engine's run() alone, on fresh tables. */
static double time_run(const ibf_fabric_t *f, const char *name)
{
	static const ibf_route_opts_t opts;
	const ibf_route_engine_t *e = ibf_route_engine_find(name);
	ibf_routing_t *r = calloc(1, sizeof(*r));
	ibf_err_t err;
	double t0;

	if (!e || !r)
		die(name, NULL);
	r->fabric = f;
	if (ibf_lfts_create(f, &r->lfts) != IBF_OK)
		die("lfts", NULL);
	t0 = now();
	if (e->run(f, &opts, r, &err) != IBF_OK)
		die(name, &err);
	t0 = now() - t0;
	ibf_routing_destroy(r);
	return t0;
}

/* Hops of src -> dlid through the LFTs (egress port ids), or 0. */
static unsigned walk(const ibf_routing_t *r, ibf_port_id_t src,
		     unsigned dlid, ibf_port_id_t *hops, unsigned max)
{
	const ibf_fabric_t *f = r->fabric;
	ibf_port_id_t out = src;
	unsigned n = 0;

	while (n < max) {
		ibf_port_id_t in = f->ports[out].peer;
		ibf_node_id_t node;
		unsigned e;

		hops[n++] = out;
		if (in == IBF_NO_ID)
			return 0;
		node = f->ports[in].node;
		if (!ibf_node_is_switch(f, node))
			return f->ports[in].lid == dlid ? n : 0;
		e = ibf_lfts_get(r->lfts, f->switch_index[node], dlid);
		if (e == 0 || e > f->nodes[node].nports)
			return 0;
		out = ibf_node_port_id(f, node, e);
	}
	return 0;
}

static void shifts(const ibf_routing_t *r, unsigned nshifts)
{
	const ibf_fabric_t *f = r->fabric;
	uint32_t N = r->norder, i, k, worst = 0, bad = 0;
	uint32_t *load = malloc(sizeof(*load) * f->nports);
	uint32_t extra[] = { 1, 18, 324, 648, 5832 };
	ibf_port_id_t hops[64];

	if (!load)
		die("shifts", NULL);
	for (k = 0; k < nshifts + 5; k++) {
		uint32_t s = k < 5 ? extra[k] : 1 + (uint32_t)((uint64_t)(k - 5)
			* (N - 1) / nshifts), w = 0;

		if (s >= N)
			continue;
		memset(load, 0, sizeof(*load) * f->nports);
		for (i = 0; i < N; i++) {
			ibf_port_id_t a = r->order[i], b = r->order[(i + s) % N];
			unsigned n = walk(r, a, f->ports[b].lid, hops, 64), h;

			if (!n)
				bad++;
			for (h = 0; h < n; h++)
				if (++load[hops[h]] > w)
					w = load[hops[h]];
		}
		if (w > worst)
			worst = w;
	}
	printf("  %u shifts: worst directed link load %u, %u undelivered\n",
	       nshifts + 5, worst, bad);
	free(load);
}

int main(int argc, char **argv)
{
	const char *spec = "pgft:3:18,18,36:1,18,18:1,1,1";
	char engines[256] = "dmodk,uapr", *tok, *save = NULL, what[128];
	unsigned lmc = 0, runs = 5, nshifts = 0, i;
	int do_check = 0, a;
	double t[MAXRUNS];
	ibf_gen_opts_t go = { 0 };
	ibf_fabric_t *f;
	ibf_err_t err;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--spec") && a + 1 < argc)
			spec = argv[++a];
		else if (!strcmp(argv[a], "--engine") && a + 1 < argc)
			snprintf(engines, sizeof(engines), "%s", argv[++a]);
		else if (!strcmp(argv[a], "--lmc") && a + 1 < argc)
			lmc = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--runs") && a + 1 < argc)
			runs = (unsigned)atoi(argv[++a]);
		else if (!strcmp(argv[a], "--check"))
			do_check = 1;
		else if (!strcmp(argv[a], "--shifts") && a + 1 < argc)
			nshifts = (unsigned)atoi(argv[++a]);
		else {
			fprintf(stderr, "usage: bench_route [--spec SPEC] "
				"[--engine A,B] [--lmc N] [--runs N] "
				"[--check] [--shifts N]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > MAXRUNS)
		runs = 5;
	go.lmc = lmc;
	if (ibf_gen(spec, &go, &f, &err) != IBF_OK)
		die(spec, &err);
	printf("%s: %u endpoints, %u switches, LMC %u, top LID %u\n", spec,
	       f->nendpoints, f->nswitches, f->lmc, f->lid_top);
	if (!strncmp(spec, "pgft", 4) || !strncmp(spec, "xgft", 4) ||
	    !strncmp(spec, "kary", 4)) {
		for (i = 0; i < runs; i++) {
			ibf_pgft_t *pg;
			double t0 = now();

			if (ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
				die("recognize", &err);
			t[i] = now() - t0;
			ibf_pgft_destroy(pg);
		}
		print_times("pgft recognition", t, runs);
	}
	for (tok = strtok_r(engines, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		ibf_routing_t *r = NULL;

		for (i = 0; i < runs; i++) {
			double t0 = now();

			ibf_routing_destroy(r);
			t0 = now();
			if (ibf_route(f, tok, NULL, &r, &err) != IBF_OK)
				die(tok, &err);
			t[i] = now() - t0;
		}
		snprintf(what, sizeof(what), "route %s (LMC %u)", tok, lmc);
		print_times(what, t, runs);
		for (i = 0; i < runs; i++)
			t[i] = time_run(f, tok);
		snprintf(what, sizeof(what), "  engine run() only");
		print_times(what, t, runs);
		if (do_check)
			check(r);
		if (nshifts)
			shifts(r, nshifts);
		ibf_routing_destroy(r);
	}
	ibf_fabric_destroy(f);
	return 0;
}
