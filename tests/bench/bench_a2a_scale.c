/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all plans at scale (ibf_liquid_plan_alltoall): 1,024 and 4,096
 * ranks on a 2:1 slimmed 3-level PGFT (all hosts, and a random half of a
 * tree twice as large) under dmodk, a Dragonfly and a Slim Fly routed by
 * layered (LMC 2, 4 layers - 2 where 15 VLs cannot make 4 deadlock-free;
 * ranks reached at LID offset 0).  Prints per
 * instance the ranks, the liquid bound, the plan's frames and distance to
 * the bound, round robin, the flags and the median CPU and wall time of N
 * calls (one thread), plus the process's peak RSS at the end.  On a loaded
 * machine the CPU time is the figure to compare with the targets; give a
 * --limit (wall seconds, default 60) large enough not to cut the plan.
 *
 * With --hosts: node-aware plans (ibf_liquid_hplan_create) of 16,384
 * ranks as hosts x ranks per host (128 x 128, 1,024 x 16, 4,096 x 4) on
 * the same fabrics: the bound in blocks, the plan's chain against it, the
 * planner's CPU and wall time (and of it the unit plan's), and the slices:
 * the largest, and the CPU to pack them all, one per host (a rank's slice
 * differs from its host's only in the rank word).
 *
 *   bench_a2a_scale [--runs N] [--limit S] [--only SUBSTRING] [--hosts]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <ibflow/gen.h>
#include <ibflow/liquid.h>
#include <ibflow/liquid_hosts.h>
#include <ibflow/route.h>

struct inst {
	const char *spec, *engine;
	unsigned lmc;
	uint32_t nranks;   /* 0: all hosts in fabric order */
};

static const struct inst INST[] = {
	{ "pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 0, 0 },
	{ "pgft:3:16,8,16:1,8,8:1,1,1", "dmodk", 0, 1024 },
	{ "dragonfly:8,4,4", "layered", 2, 1024 },
	{ "slimfly:7:11", "layered", 2, 1024 },
	{ "pgft:3:16,8,32:1,8,8:1,1,1", "dmodk", 0, 0 },
	{ "pgft:3:16,8,64:1,8,8:1,1,1", "dmodk", 0, 4096 },
	{ "dragonfly:8,16,4", "layered", 2, 4096 },
	{ "slimfly:11:17", "layered", 2, 4096 },
};

/* Node-aware instances: hosts (0: all, in fabric order; else a random
 * choice) x ranks per host. */
struct hinst {
	const char *spec, *engine;
	unsigned lmc;
	uint32_t hosts, ppn;
};

static const struct hinst HINST[] = {
	{ "pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 0, 128, 128 },
	{ "pgft:3:16,8,8:1,8,8:1,1,1", "dmodk", 0, 0, 16 },
	{ "pgft:3:16,8,32:1,8,8:1,1,1", "dmodk", 0, 0, 4 },
	{ "dragonfly:8,4,4", "layered", 2, 128, 128 },
	{ "dragonfly:8,4,4", "layered", 2, 1024, 16 },
	{ "dragonfly:8,16,4", "layered", 2, 4096, 4 },
};

static double clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clk(CLOCK_MONOTONIC);
}

/* CPU time of this process: what the plan costs on an idle core, however
 * loaded the machine (the time limit itself is wall-clock). */
static double cpu(void)
{
	return clk(CLOCK_PROCESS_CPUTIME_ID);
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

/* n ranks: the first n of a seeded shuffle of the endpoints, or all in
 * fabric order. */
static ibf_port_id_t *ranks(const ibf_fabric_t *f, uint32_t *n)
{
	ibf_port_id_t *r = malloc(f->nendpoints * sizeof(*r));
	uint64_t s = 0x9e3779b97f4a7c15ull;

	memcpy(r, f->endpoints, f->nendpoints * sizeof(*r));
	if (!*n || *n >= f->nendpoints) {
		*n = f->nendpoints;
		return r;
	}
	for (uint32_t i = f->nendpoints - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xs(&s) % (i + 1));
		ibf_port_id_t t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
	return r;
}

/* Generate and route spec; NULL after printing why. */
static ibf_routing_t *load(const char *spec, const char *engine,
			   unsigned lmc, ibf_fabric_t **fout)
{
	ibf_gen_opts_t go = { .lmc = lmc };
	/* 4 layers on a Dragonfly need more than the default 8 VLs to be
	 * deadlock-free. */
	ibf_route_opts_t rop = { .max_vls = 15 };
	ibf_fabric_t *f;
	ibf_routing_t *ro;
	ibf_err_t err;
	double t0 = now();

	if (ibf_gen(spec, &go, &f, &err) != IBF_OK) {
		fprintf(stderr, "bench_a2a_scale: %s: %s\n", spec, err.msg);
		return NULL;
	}
	/* Fewer layers where 15 VLs cannot make 4 deadlock-free. */
	for (rop.layers = 1u << lmc;
	     ibf_route(f, engine, &rop, &ro, &err) != IBF_OK;
	     rop.layers /= 2) {
		fprintf(stderr, "# %s, %u layers: %s\n", spec, rop.layers,
			err.msg);
		if (rop.layers == 1)
			return NULL;
	}
	fprintf(stderr, "# %s %s (%u layers): %u hosts, generated and routed "
		"in %.1f s\n", spec, engine, rop.layers, f->nendpoints,
		now() - t0);
	*fout = f;
	return ro;
}

/* One node-aware instance: ppn consecutive ranks on each chosen host. */
static int run_hosts(const struct hinst *in, unsigned runs, double limit,
		     double *tt, double *tc)
{
	ibf_liquid_opts_t o = { .time_limit = limit };
	ibf_liquid_hplan_t *p = NULL;
	const ibf_liquid_hplan_info_t *pi;
	ibf_fabric_t *f;
	ibf_routing_t *ro = load(in->spec, in->engine, in->lmc, &f);
	uint32_t H = in->hosts, n, *buf;
	ibf_port_id_t *hk, *rk;
	size_t maxw = 0, w;
	ibf_err_t err;
	double c0, pack;

	if (!ro)
		return 2;
	hk = ranks(f, &H);
	n = H * in->ppn;
	rk = malloc((size_t)n * sizeof(*rk));
	for (uint32_t r = 0; r < n; r++)
		rk[r] = hk[r / in->ppn];
	for (unsigned q = 0; q < runs; q++) {
		double t0 = now();

		ibf_liquid_hplan_destroy(p);
		c0 = cpu();
		if (ibf_liquid_hplan_create(ro->lfts, rk, n, &o, &p, &err) !=
		    IBF_OK) {
			fprintf(stderr, "bench_a2a_scale: %s\n", err.msg);
			return 2;
		}
		tc[q] = cpu() - c0;
		tt[q] = now() - t0;
	}
	qsort(tt, runs, sizeof(*tt), cmp_d);
	qsort(tc, runs, sizeof(*tc), cmp_d);
	pi = ibf_liquid_hplan_info(p);
	for (uint32_t r = 0; r < n; r += in->ppn)
		if ((w = ibf_liquid_hslice_words(p, r)) > maxw)
			maxw = w;
	buf = malloc(maxw * sizeof(uint32_t));
	/* one slice per host: its ranks' differ only in the rank word */
	c0 = cpu();
	for (uint32_t r = 0; r < n; r += in->ppn)
		ibf_liquid_hslice_pack(p, r, buf, maxw, &w, &err);
	pack = cpu() - c0;
	printf("%-28s %-7s %5u hosts (%s) x %3u = %5u ranks  bound %9llu "
	       "blocks  plan %9llu (+%.2f%%)  %u frames of host pairs "
	       "(duration %u)%s  cpu %.3f s wall %.3f s (medians of %u; "
	       "unit plan %.3f s wall)  slice <= %zu B, all %u packed in "
	       "%.3f s cpu\n", in->spec, in->engine, H,
	       in->hosts ? "random" : "all", in->ppn, n,
	       (unsigned long long)pi->bound_blocks,
	       (unsigned long long)pi->plan_blocks,
	       100.0 * ((double)pi->plan_blocks / pi->bound_blocks - 1),
	       pi->nframes, pi->duration,
	       pi->timed_out ? ", TIMED OUT" : "", tc[runs / 2],
	       tt[runs / 2], runs, pi->unit_seconds, 4 * maxw, H, pack);
	fflush(stdout);
	free(buf);
	ibf_liquid_hplan_destroy(p);
	free(rk);
	free(hk);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned runs = 3;
	double limit = 60, *tt, *tc;
	const char *only = NULL;
	struct rusage ru;
	bool hosts = false;

	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "--hosts")) {
			hosts = true;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--runs"))
			runs = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--limit"))
			limit = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
		else
			goto usage;
	}
	if (runs < 1 || runs > 99 || limit <= 0)
		goto usage;
	tt = malloc(runs * sizeof(*tt));
	tc = malloc(runs * sizeof(*tc));
	for (size_t k = 0; hosts && k < sizeof(HINST) / sizeof(HINST[0]);
	     k++)
		if ((!only || strstr(HINST[k].spec, only)) &&
		    run_hosts(&HINST[k], runs, limit, tt, tc))
			return 2;
	for (size_t k = 0; !hosts && k < sizeof(INST) / sizeof(INST[0]);
	     k++) {
		const struct inst *in = &INST[k];
		ibf_liquid_opts_t o = { .time_limit = limit };
		/* 4 layers on a Dragonfly need more than the default 8 VLs
		 * to be deadlock-free. */
		ibf_route_opts_t rop = { .vls = 15 };
		const ibf_liquid_plan_info_t *pi = NULL;
		ibf_liquid_plan_t *p = NULL;
		ibf_fabric_t *f;
		ibf_routing_t *ro;
		ibf_port_id_t *rk;
		ibf_err_t err;
		uint32_t n = in->nranks;
		double t0, c0;

		if (only && !strstr(in->spec, only))
			continue;
		ro = load(in->spec, in->engine, in->lmc, &f);
		if (!ro)
			return 2;
		rk = ranks(f, &n);
		for (unsigned q = 0; q < runs; q++) {
			if (p)
				ibf_liquid_plan_destroy(p);
			t0 = now();
			c0 = cpu();
			if (ibf_liquid_plan_alltoall(ro->lfts, rk, n, &o, &p,
						     &err) != IBF_OK) {
				fprintf(stderr, "bench_a2a_scale: %s\n",
					err.msg);
				return 2;
			}
			tt[q] = now() - t0;
			tc[q] = cpu() - c0;
		}
		qsort(tt, runs, sizeof(*tt), cmp_d);
		qsort(tc, runs, sizeof(*tc), cmp_d);
		pi = ibf_liquid_plan_info(p);
		printf("%-28s %-7s hosts %5u ranks %5u (%s)  bound %5u  frames "
		       "%5u (+%.2f%%)  rr %5u (+%.1f%%)  %s%s%s  %s  cpu %.3f s "
		       "wall %.3f s (medians of %u)\n", in->spec, in->engine, f->nendpoints,
		       n, in->nranks ? "random" : "all", pi->duration,
		       pi->nframes, 100.0 * (pi->nframes - pi->duration) /
		       pi->duration, pi->rr_frames, 100.0 *
		       (pi->rr_frames - pi->duration) / pi->duration,
		       pi->liquid ? "liquid" : "not liquid",
		       pi->optimal_proven ? ", optimal proven" : "",
		       pi->timed_out ? ", TIMED OUT" : "",
		       ibf_liquid_method_str(pi->method), tc[runs / 2],
		       tt[runs / 2], runs);
		fflush(stdout);
		ibf_liquid_plan_destroy(p);
		p = NULL;
		free(rk);
		ibf_routing_destroy(ro);
		ibf_fabric_destroy(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS of the process %.0f MiB\n", ru.ru_maxrss / 1024.0);
	free(tt);
	free(tc);
	return 0;
usage:
	fprintf(stderr, "usage: bench_a2a_scale [--runs N] [--limit S] "
		"[--only SUBSTRING] [--hosts]\n");
	return 2;
}
