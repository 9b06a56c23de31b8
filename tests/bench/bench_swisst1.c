/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The Swiss-T1 experiment of E. Gabrielyan, "Liquid Schedule Construction
 * Algorithm: an Efficient Method for Coloring a Congestion Graph" (2006),
 * section 8.1: every allocation of 0..4 nodes to each of the
 * 8 switches (5^8 = 390,625), each node's transmitting processor sending
 * one message to the receiving processor of every allocated node (its own
 * included: n^2 transfers for n nodes).  Allocations are classed by
 * (nodes, liquid throughput) - the paper finds 362 classes - and the first
 * allocation of each class (in enumeration order, switch 1 the most
 * significant digit) is scheduled with ibf_liquid_schedule().
 *
 *   bench_swisst1 [--runs N] [--limit S] [--class K] [--out FILE.dat]
 *
 * Prints the class count, per class n, duration, liquid throughput, round
 * robin frames (the paper's topology-unaware schedule: phase k, sender i ->
 * receiver i + k mod n, each phase split first-fit), the schedule's frames,
 * whether it is liquid or proven impossible (search exhausted), the method
 * and the median time of N runs (default 5) of the default call; then the
 * same for the exact search alone (search_first: the search runs even when
 * a cheap schedule is liquid), then both time distributions.  --class K
 * runs class K only; --out writes one line per class for
 * tests/bench/swisst1_plot.sh.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/liquid.h>
#include <ibflow/route.h>
#include <ibflow/trace.h>

/* Allocations are classed by the table of Figure 15 alone; the schedules
 * trace the fabric's own LFTs. */
#include "../swisst1_fig15.h"

#define NSW T1_NSW
#define NPS 4      /* nodes per switch */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct cls {
	unsigned n, dur, members;
	int a[NSW];
};

/* Classes in the paper's order: nodes, then liquid throughput. */
static int cmp_cls(const void *x, const void *y)
{
	const struct cls *p = x, *q = y;
	double tp = (double)p->n * p->n / p->dur, tq = (double)q->n * q->n / q->dur;

	if (p->n != q->n)
		return p->n < q->n ? -1 : 1;
	return (tp > tq) - (tp < tq);
}

static unsigned classes(struct cls *c)
{
	static int seen[NSW * NPS + 1][NSW * NPS * NSW * NPS + 1];
	unsigned nc = 0;
	int a[NSW];

	memset(seen, 0, sizeof(seen));
	for (unsigned code = 0; code < 390625; code++) {
		unsigned v = code, n = 0, d;

		for (int s = NSW - 1; s >= 0; s--) {
			a[s] = (int)(v % 5);
			v /= 5;
			n += (unsigned)a[s];
		}
		if (!n)
			continue;
		d = t1_duration(a, n);
		if (!seen[n][d]) {
			seen[n][d] = (int)++nc;
			c[nc - 1] = (struct cls){ n, d, 0, { 0 } };
			memcpy(c[nc - 1].a, a, sizeof(a));
		}
		c[seen[n][d] - 1].members++;
	}
	return nc;
}

/* The traffic of an allocation: the link sets traced through the LFTs,
 * hosts numbered so that sender i and receiver j are positions i and j of
 * n (the paper's round robin pairs sender i with receiver i + k mod n). */
static ibf_liquid_traffic_t *traffic(const ibf_lfts_t *l, const int *a,
				     unsigned n)
{
	const ibf_fabric_t *f = l->fabric;
	ibf_port_id_t tx[NSW * NPS], rx[NSW * NPS], hops[16];
	uint32_t off[NSW * NPS * NSW * NPS + 1], ls[NSW * NPS * NSW * NPS * 8];
	uint32_t src[NSW * NPS * NSW * NPS], dst[NSW * NPS * NSW * NPS];
	uint32_t *port_link = malloc(f->nports * sizeof(uint32_t)), nl = 0;
	unsigned k = 0, x = 0;
	ibf_liquid_traffic_t *t;
	ibf_err_t err;

	for (int s = 0; s < NSW; s++)
		for (int q = 0; q < a[s]; q++) {
			tx[k] = f->endpoints[s * 2 * NPS + 2 * q];
			rx[k++] = f->endpoints[s * 2 * NPS + 2 * q + 1];
		}
	for (uint32_t p = 0; p < f->nports; p++)
		port_link[p] = UINT32_MAX;
	off[0] = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++) {
			unsigned nh = 0;

			if (ibf_trace(l, tx[i], ibf_port_base_lid(f, rx[j]),
				      hops, 16, &nh) != IBF_TRACE_OK) {
				fprintf(stderr, "bench_swisst1: route\n");
				exit(2);
			}
			for (unsigned h = 0; h < nh; h++) {
				if (port_link[hops[h]] == UINT32_MAX)
					port_link[hops[h]] = nl++;
				ls[off[x] + h] = port_link[hops[h]];
			}
			src[x] = i;
			dst[x] = j;
			off[x + 1] = off[x] + nh;
			x++;
		}
	free(port_link);
	if (ibf_liquid_traffic_from_sets(x, off, ls, n, src, dst, &t, &err) !=
	    IBF_OK) {
		fprintf(stderr, "bench_swisst1: %s\n", err.msg);
		exit(2);
	}
	return t;
}

/* One mode (default pipeline, or the search alone): median seconds of
 * runs calls into *sec, the last result in *r. */
static void timed(const ibf_liquid_traffic_t *t, bool exact, double limit,
		  unsigned runs, double *tt, double *sec,
		  ibf_liquid_result_t *r)
{
	ibf_liquid_opts_t o = { .time_limit = limit, .search_first = exact };
	ibf_err_t err;

	for (unsigned q = 0; q < runs; q++) {
		double t0 = now();

		if (ibf_liquid_schedule(t, &o, r, &err) != IBF_OK) {
			fprintf(stderr, "bench_swisst1: %s\n", err.msg);
			exit(2);
		}
		tt[q] = now() - t0;
		if (q + 1 < runs)
			ibf_liquid_result_free(r);
	}
	qsort(tt, runs, sizeof(*tt), cmp_d);
	*sec = tt[runs / 2];
}

static const char *verdict(const ibf_liquid_result_t *r)
{
	return r->liquid ? "liquid" : r->exhausted ? "no-liquid" :
		"UNRESOLVED";
}

/* Distribution of v[0..n-1] (sorted here). */
static void dist(const char *what, double *v, unsigned n, unsigned runs)
{
	unsigned fast = 0;

	qsort(v, n, sizeof(*v), cmp_d);
	for (unsigned k = 0; k < n; k++)
		fast += v[k] <= 0.1;
	printf("%s: <= 0.1 s: %u of %u (%.1f%%); median %.4f s, p99 %.4f s, "
	       "max %.4f s (median of %u runs each)\n", what, fast, n,
	       100.0 * fast / n, v[n / 2], v[(n * 99 + 99) / 100 - 1],
	       v[n - 1], runs);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_swisst1 [--runs N] [--limit S] "
		"[--class K] [--out FILE.dat]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct cls c[2000];
	unsigned runs = 5, nc, nrun = 0, resolved = 0, xresolved = 0;
	unsigned liquid = 0, none = 0;
	double limit = 1, *med, *xmed, *tt;
	const char *out = NULL;
	int only = -1;
	FILE *fo = NULL;
	ibf_fabric_t *f;
	ibf_routing_t *ro;
	ibf_err_t err;

	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--limit"))
			limit = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--out"))
			out = argv[i + 1];
		else if (!strcmp(argv[i], "--class"))
			only = atoi(argv[i + 1]);
		else
			usage();
	}
	if (runs < 1 || runs > 99 || limit <= 0)
		usage();
	if (ibf_gen("swisst1", NULL, &f, &err) != IBF_OK ||
	    ibf_route(f, "swisst1", NULL, &ro, &err) != IBF_OK) {
		fprintf(stderr, "bench_swisst1: %s\n", err.msg);
		return 2;
	}
	nc = classes(c);
	qsort(c, nc, sizeof(*c), cmp_cls);
	printf("allocations 390624 (+ the empty one), classes by (nodes, "
	       "liquid throughput): %u\n", nc);
	med = malloc(nc * sizeof(double));
	xmed = malloc(nc * sizeof(double));
	tt = malloc(runs * sizeof(double));
	if (out && !(fo = fopen(out, "w"))) {
		perror(out);
		return 2;
	}
	if (fo)
		fprintf(fo, "# class nodes duration liquid_throughput "
			"rr_frames frames liquid exhausted seconds "
			"exact_seconds exact_liquid exact_exhausted\n");
	for (unsigned k = 0; k < nc; k++) {
		ibf_liquid_traffic_t *t;
		ibf_liquid_result_t r, x;

		if (only >= 0 && k != (unsigned)only)
			continue;
		t = traffic(ro->lfts, c[k].a, c[k].n);
		timed(t, false, limit, runs, tt, &med[nrun], &r);
		timed(t, true, limit, runs, tt, &xmed[nrun], &x);
		if (r.duration != c[k].dur) {
			fprintf(stderr, "bench_swisst1: class %u: traced "
				"duration %u, switch-level %u\n", k,
				r.duration, c[k].dur);
			return 1;
		}
		liquid += r.liquid;
		none += !r.liquid && r.exhausted;
		resolved += r.liquid || r.exhausted;
		xresolved += x.liquid || x.exhausted;
		printf("%3u  n %2u  alloc %d%d%d%d%d%d%d%d  members %6u  "
		       "duration %4u  liquid thr %7.3f  rr %4u  frames %4u  "
		       "%-9s %-22s %.4f s  search %-9s %.4f s\n", k, c[k].n,
		       c[k].a[0], c[k].a[1], c[k].a[2], c[k].a[3], c[k].a[4],
		       c[k].a[5], c[k].a[6], c[k].a[7], c[k].members,
		       r.duration, r.liquid_throughput, r.rr_frames,
		       r.nframes, verdict(&r), ibf_liquid_method_str(r.method),
		       med[nrun], verdict(&x), xmed[nrun]);
		if (fo)
			fprintf(fo, "%u %u %u %.6f %u %u %d %d %.6f %.6f %d "
				"%d\n", k, c[k].n, r.duration,
				r.liquid_throughput, r.rr_frames, r.nframes,
				r.liquid, r.exhausted, med[nrun], xmed[nrun],
				x.liquid, x.exhausted);
		nrun++;
		ibf_liquid_result_free(&r);
		ibf_liquid_result_free(&x);
		ibf_liquid_traffic_destroy(t);
	}
	if (!nrun)
		usage();
	printf("resolved %u of %u (liquid %u, proven without liquid schedule "
	       "%u); the search alone resolved %u\n", resolved, nrun, liquid,
	       none, xresolved);
	dist("default call", med, nrun, runs);
	dist("search alone", xmed, nrun, runs);
	if (fo)
		fclose(fo);
	free(med);
	free(xmed);
	free(tt);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
	return resolved == nrun && xresolved == nrun ? 0 : 1;
}
