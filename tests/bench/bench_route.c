/*
 * Benchmark of the routing engines on a generated topology.
 *
 *   bench_route [--spec SPEC] [--engine NAME[,NAME..]] [--lmc N]
 *               [--runs N] [--check]
 *
 * Generates SPEC (default pgft:3:18,18,36:1,18,18:1,1,1, i.e.
 * XGFT(3; 18,18,36; 1,18,18): 11,664 hosts, 1,620 switches) at the given
 * LMC and times ibf_route() for each engine (default dmodk,uapr): the
 * whole call, PGFT recognition and ibf_route's validation included, and
 * the engine's run() alone (recognition included, validation not).  For
 * fat trees it also times ibf_pgft_recognize() alone.  Prints the median and the range of the
 * runs.  --check runs ibf_check_run() (switch LIDs too) on the last
 * routing of each engine and prints its defect count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/pgft.h>
#include <ibflow/route.h>
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

int main(int argc, char **argv)
{
	const char *spec = "pgft:3:18,18,36:1,18,18:1,1,1";
	char engines[256] = "dmodk,uapr", *tok, *save = NULL, what[128];
	unsigned lmc = 0, runs = 5, i;
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
		else {
			fprintf(stderr, "usage: bench_route [--spec SPEC] "
				"[--engine A,B] [--lmc N] [--runs N] "
				"[--check]\n");
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
		ibf_routing_destroy(r);
	}
	ibf_fabric_destroy(f);
	return 0;
}
