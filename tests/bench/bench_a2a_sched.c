/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the all-to-all schedule of libibflow_ucx costs to compute, against
 * what broadcasting it costs (docs/ucx-alltoall.md): for n ranks on a
 * fabric, the CPU time of exactly what ucx_component/src/coll/schedule.c
 * does (the link sets of all n (n - 1) ordered pairs with a "sends" and a
 * "receives" link per rank, ibf_liquid_schedule() with its 2 s limit), of
 * the same with a work limit instead of the clock (the deterministic
 * variant every rank could run), and of ibf_liquid_plan_alltoall() (one
 * rank per host); plus the bytes schedule.c broadcasts (one 32-bit frame
 * index per transfer and a 4-word header).
 *
 * Determinism: each variant runs --runs times; "same" says whether every
 * run produced the same frame of every transfer (what ranks computing it
 * independently need).
 *
 *   bench_a2a_sched [--runs N] [--limit S] [--work W] [--ns 8,16,...]
 *                   [--only SUBSTRING]
 *
 * Fabrics: the paper's Swiss-T1 (transmitting processors, n <= 32), a
 * 1,024-host 3-level PGFT under dmodk and a 1,056-host Dragonfly under
 * minhop; ranks are the first n of a seeded shuffle of the hosts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/liquid.h>
#include <ibflow/route.h>

struct fab {
	const char *spec, *engine;
	int even_only;   /* Swiss-T1: the transmitting processors */
};

static const struct fab FAB[] = {
	{ "swisst1", "swisst1", 1 },
	{ "pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 0 },
	{ "dragonfly:8,4,4", "minhop", 0 },
};

static double clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t hash32(const uint32_t *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

/* The first n of a seeded shuffle of the (even) endpoints; NULL when the
 * fabric has fewer. */
static ibf_port_id_t *pick(const ibf_fabric_t *f, int even_only, uint32_t n)
{
	uint32_t m = 0;
	ibf_port_id_t *r = malloc(f->nendpoints * sizeof(*r));
	uint64_t s = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < f->nendpoints; i++)
		if (!even_only || i % 2 == 0)
			r[m++] = f->endpoints[i];
	if (n > m) {
		free(r);
		return NULL;
	}
	for (uint32_t i = m - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xs(&s) % (i + 1));
		ibf_port_id_t t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
	return r;
}

/* schedule.c's traffic: for transfer i -> j the links "i sends" (2i),
 * "j receives" (2j + 1) and the route's egress ports (2n + link). */
static ibf_liquid_traffic_t *ucx_traffic(const ibf_lfts_t *l,
					 ibf_port_id_t *ranks, uint32_t n)
{
	ibf_hostlist_t h = { .ports = ranks, .n = n };
	ibf_liquid_traffic_t *t = NULL, *u = NULL;
	uint32_t *off, *links;
	size_t len = 0;
	ibf_err_t e;

	if (ibf_liquid_traffic_alltoall(l, &h, &t, &e) != IBF_OK) {
		fprintf(stderr, "bench_a2a_sched: %s\n", e.msg);
		exit(2);
	}
	off = malloc(((size_t)t->ntransfers + 1) * sizeof(*off));
	links = malloc(((size_t)t->link_off[t->ntransfers] +
			2 * (size_t)t->ntransfers) * sizeof(*links));
	for (uint32_t k = 0; k < t->ntransfers; k++) {
		off[k] = (uint32_t)len;
		links[len++] = 2 * t->src[k];
		links[len++] = 2 * t->dst[k] + 1;
		for (uint32_t q = t->link_off[k]; q < t->link_off[k + 1]; q++)
			links[len++] = 2 * n + t->links[q];
	}
	off[t->ntransfers] = (uint32_t)len;
	if (ibf_liquid_traffic_from_sets(t->ntransfers, off, links, n, t->src,
					 t->dst, &u, &e) != IBF_OK) {
		fprintf(stderr, "bench_a2a_sched: %s\n", e.msg);
		exit(2);
	}
	free(off);
	free(links);
	ibf_liquid_traffic_destroy(t);
	return u;
}

struct meas {
	double cpu[99], wall[99];
	uint64_t hash[99], work;
	uint32_t nframes, duration, rr;
	int liquid, timed_out;
	const char *method;
};

static void report(const char *fab, uint32_t n, const char *what,
		   struct meas *m, unsigned runs)
{
	int same = 1;

	for (unsigned q = 1; q < runs; q++)
		same &= m->hash[q] == m->hash[0];
	qsort(m->cpu, runs, sizeof(double), cmp_d);
	qsort(m->wall, runs, sizeof(double), cmp_d);
	printf("%-27s n %5u  %-9s cpu %10.3f ms  wall %10.3f ms  frames %6u "
	       "bound %6u rr %6u %-10s %-22s work %12llu  %s  bcast %llu B\n",
	       fab, n, what, 1e3 * m->cpu[runs / 2], 1e3 * m->wall[runs / 2],
	       m->nframes,
	       m->duration, m->rr, m->liquid ? "liquid" : "not-liquid",
	       m->method, (unsigned long long)m->work,
	       runs < 2 ? "same ?" : same ? "same yes" : "same NO",
	       4ull * ((unsigned long long)n * (n - 1) + 4));
	fflush(stdout);
}

/* schedule.c: traffic + ibf_liquid_schedule under a time or work limit */
static void run_sched(const char *fab, const ibf_lfts_t *l,
		      ibf_port_id_t *rk, uint32_t n, unsigned runs,
		      double limit, uint64_t work, const char *what)
{
	ibf_liquid_opts_t o = { .time_limit = limit, .work_limit = work };
	struct meas m = { 0 };

	for (unsigned q = 0; q < runs; q++) {
		double c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
		double t0 = clk(CLOCK_MONOTONIC);
		ibf_liquid_traffic_t *t = ucx_traffic(l, rk, n);
		ibf_liquid_result_t r;
		ibf_err_t e;

		if (ibf_liquid_schedule(t, &o, &r, &e) != IBF_OK) {
			fprintf(stderr, "bench_a2a_sched: %s\n", e.msg);
			exit(2);
		}
		m.cpu[q] = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
		m.wall[q] = clk(CLOCK_MONOTONIC) - t0;
		m.hash[q] = hash32(r.frame_of, r.ntransfers);
		m.nframes = r.nframes;
		m.duration = r.duration;
		m.rr = r.rr_frames;
		m.liquid = r.liquid;
		m.timed_out |= r.timed_out;
		m.method = ibf_liquid_method_str(r.method);
		if (r.work > m.work)
			m.work = r.work;
		ibf_liquid_result_free(&r);
		ibf_liquid_traffic_destroy(t);
	}
	if (m.timed_out)
		m.method = work ? "work limit reached" : "TIME LIMIT reached";
	report(fab, n, what, &m, runs);
}

static void run_plan(const char *fab, const ibf_lfts_t *l,
		     ibf_port_id_t *rk, uint32_t n, unsigned runs,
		     double limit)
{
	ibf_liquid_opts_t o = { .time_limit = limit };
	struct meas m = { 0 };

	for (unsigned q = 0; q < runs; q++) {
		double c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
		double t0 = clk(CLOCK_MONOTONIC);
		const ibf_liquid_plan_info_t *pi;
		ibf_liquid_plan_t *p;
		ibf_err_t e;

		if (ibf_liquid_plan_alltoall(l, rk, n, &o, &p, &e) != IBF_OK) {
			fprintf(stderr, "bench_a2a_sched: %s\n", e.msg);
			exit(2);
		}
		m.cpu[q] = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
		m.wall[q] = clk(CLOCK_MONOTONIC) - t0;
		pi = ibf_liquid_plan_info(p);
		m.hash[q] = pi->fingerprint;
		m.nframes = pi->nframes;
		m.duration = pi->duration;
		m.rr = pi->rr_frames;
		m.liquid = pi->liquid;
		m.timed_out |= pi->timed_out;
		m.method = ibf_liquid_method_str(pi->method);
		ibf_liquid_plan_destroy(p);
	}
	if (m.timed_out)
		m.method = "TIME LIMIT reached";
	report(fab, n, "plan", &m, runs);
}

int main(int argc, char **argv)
{
	unsigned runs = 3;
	/* wall seconds; the runtime plans by work (a2a_plan.c, SCHED_OPTS) */
	double limit = 2.0;
	uint64_t work = 200000000ull;   /* ~2 s at 10^8 units a second */
	const char *only = NULL, *ns = "8,16,64,256,1024";

	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--limit"))
			limit = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--work"))
			work = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--ns"))
			ns = argv[i + 1];
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
		else
			goto usage;
	}
	if (runs < 1 || runs > 99 || limit <= 0 || !work)
		goto usage;
	printf("# schedule.c: traffic + ibf_liquid_schedule, %.1f s time "
	       "limit; work: the same with a work limit of %llu units and "
	       "no clock (1 day); plan: ibf_liquid_plan_alltoall, %.1f s; "
	       "medians of %u runs, CPU of this process\n", limit,
	       (unsigned long long)work, limit, runs);
	for (size_t k = 0; k < sizeof(FAB) / sizeof(FAB[0]); k++) {
		const struct fab *fb = &FAB[k];
		ibf_gen_opts_t go = { 0 };
		ibf_route_opts_t rop = { 0 };
		ibf_fabric_t *f;
		ibf_routing_t *ro;
		ibf_err_t err;
		const char *p = ns;

		if (only && !strstr(fb->spec, only))
			continue;
		if (ibf_gen(fb->spec, &go, &f, &err) != IBF_OK ||
		    ibf_route(f, fb->engine, &rop, &ro, &err) != IBF_OK) {
			fprintf(stderr, "bench_a2a_sched: %s: %s\n", fb->spec,
				err.msg);
			return 2;
		}
		while (*p) {
			uint32_t n = (uint32_t)strtoul(p, (char **)&p, 10);
			ibf_port_id_t *rk = n >= 2 ?
				pick(f, fb->even_only, n) : NULL;

			if (*p == ',')
				p++;
			if (!rk)
				continue;
			run_sched(fb->spec, ro->lfts, rk, n, runs, limit, 0,
				  "ucx-time");
			run_sched(fb->spec, ro->lfts, rk, n, runs, 86400,
				  work, "ucx-work");
			run_plan(fb->spec, ro->lfts, rk, n, runs, limit);
			free(rk);
		}
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
	return 0;
usage:
	fprintf(stderr, "usage: bench_a2a_sched [--runs N] [--limit S] "
		"[--work W] [--ns 8,16,...] [--only SUBSTRING]\n");
	return 2;
}
