/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe planning (PMM): a maximal linearly independent set of host pairs,
 * packed into rounds of host- and link-disjoint probes.
 *
 * Exactness.  Pair vectors have small integer entries.  Independence is
 * decided by sparse elimination modulo p = 2^31 - 1: a set independent mod
 * p has a nonzero minor mod p, hence a nonzero integer minor, hence is
 * independent over the rationals -- so every plan is a genuinely
 * independent set, never a floating-point guess.  A vector found dependent
 * mod p is dependent over Q unless p divides one of the (small) minors
 * involved; every pair not taken is tested, so maximality rests on that
 * alone (the unit tests also hold the rank against rational elimination).
 *
 * Rounds.  Instead of choosing a basis and colouring it afterwards (the
 * paper's Welsh-Powell step, ~n rounds), the pairs are chosen with the
 * rounds in view (docs/probe.md#planning): passes, where every host
 * takes partners into the first round with room (rounds = the busiest
 * host's pairs); where that misses the lower bound ceil(pairs / (n/2)),
 * six perfect rounds by design on three-level fat trees of the right
 * shape (probe_lattice.c, symmetric model), else rounds built one at a
 * time as perfect matchings as far as greedy choice and region searches
 * get them (the bound needs the pairs spread evenly over the hosts).  The
 * plan with fewer rounds wins.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/rng.h"
#include "sched/probe_planner.h"

/* ---- models ------------------------------------------------------------- */

const char *ibf_probe_model_name(ibf_probe_model_t m)
{
	return m == IBF_PROBE_SYMMETRIC ? "symmetric" : "directed";
}

ibf_status_t ibf_probe_model_parse(const char *s, ibf_probe_model_t *m)
{
	if (!strcmp(s, "directed"))
		*m = IBF_PROBE_DIRECTED;
	else if (!strcmp(s, "symmetric"))
		*m = IBF_PROBE_SYMMETRIC;
	else
		return IBF_ERR_INVALID;
	return IBF_OK;
}
/* ---- plans ------------------------------------------------------------- */

static ibf_status_t export_plan(struct planner *pl, ibf_probe_plan_t *out)
{
	uint32_t *cnt = calloc(pl->nrounds + 1, sizeof(*cnt)), i, r, nr = 0;

	out->nhosts = pl->n;
	out->npairs = out->rank = pl->npairs;
	out->pairs = malloc((pl->npairs + 1) * sizeof(*out->pairs));
	out->round_start = calloc(pl->nrounds + 1,
				  sizeof(*out->round_start));
	if (!out->pairs || !out->round_start || !cnt) {
		free(cnt);
		return IBF_ERR_NOMEM;
	}
	for (i = 0; i < pl->npairs; i++)
		cnt[pl->pair_round[i]]++;
	for (r = 0; r < pl->nrounds; r++)
		if (cnt[r]) {
			out->round_start[nr + 1] = out->round_start[nr] +
						   cnt[r];
			cnt[r] = out->round_start[nr++];
		}
	for (i = 0; i < pl->npairs; i++)
		out->pairs[cnt[pl->pair_round[i]]++] = pl->pairs[i];
	free(cnt);
	out->nrounds = nr;
	out->lower_bound = pl->n >= 2 ?
		(pl->npairs + pl->n / 2 - 1) / (pl->n / 2) : 0;
	out->tested = pl->tested;
	return IBF_OK;
}

/* Links of the model: directed links, or cables (both ways as one). */
static uint32_t count_links(const ibf_probe_cols_t *c, const ibf_fabric_t *f)
{
	ibf_port_id_t p;
	uint32_t n = 0;

	for (p = 0; p < f->nports; p++)
		n += f->ports[p].peer != IBF_NO_ID;
	return c->model == IBF_PROBE_SYMMETRIC ? n / 2 : n;
}

/* Pair vectors for every strategy of one plan: the columns they are
 * over (each planner makes the same ones again) and the cache. */
struct pair_cache {
	ibf_probe_cols_t cols;
	ibf_probe_vcache_t vc;
};

static void pair_cache_free(struct pair_cache *pc)
{
	ibf_probe_vcache_free(&pc->vc);
	ibf_probe_cols_free(&pc->cols);
}

static ibf_status_t pair_cache_init(struct pair_cache *pc,
				    const ibf_lfts_t *l,
				    const ibf_hostlist_t *h,
				    ibf_probe_model_t model, ibf_err_t *err)
{
	ibf_status_t st;

	memset(pc, 0, sizeof(*pc));
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &pc->cols,
				      err)) != IBF_OK)
		return st;
	if (ibf_probe_vcache_init(&pc->vc, l, &pc->cols, h) != IBF_OK) {
		pair_cache_free(pc);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return IBF_OK;
}

/* One plan by one strategy (perfect: round by round; else passes).  With
 * a limit, planning stops once limit - 1 rounds are full and pairs are
 * left, or (given the rank) once the pairs left cannot fit in the rounds
 * below the limit: it would need limit rounds at least (*beaten set, out
 * empty). */
static ibf_status_t plan_once(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, ibf_probe_vcache_t *vc,
			      unsigned tries, bool perfect, uint32_t limit,
			      uint32_t rank, bool *beaten,
			      ibf_probe_plan_t *out, ibf_err_t *err)
{
	struct planner pl = { .l = l, .h = h, .n = h->n, .vc = vc,
			      .rng.s = 0x9e3779b97f4a7c15ull };
	ibf_status_t st;
	int res;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &pl.cols,
				      err)) != IBF_OK)
		return st;
	pl.live = calloc((size_t)pl.n * pl.n, 1);
	pl.nlive = calloc(pl.n, sizeof(*pl.nlive));
	pl.mate = malloc(pl.n * sizeof(*pl.mate));
	pl.order = malloc(pl.n * sizeof(*pl.order));
	pl.link_busy = malloc((l->fabric->nports + 1) *
			      sizeof(*pl.link_busy));
	if (!pl.live || !pl.nlive || !pl.mate || !pl.order || !pl.link_busy ||
	    ibf_probe_ech_init(&pl.ech, pl.cols.ncols) != IBF_OK ||
	    plan_make_order(&pl) < 0) {
		plan_planner_free(&pl);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	res = plan_run_planner(&pl, tries, perfect, limit, rank, err);
	*beaten = res == 1;
	if (res == 1) {
		out->tested = pl.tested;
		plan_planner_free(&pl);
		return IBF_OK;
	}
	if (res == -2) {
		plan_planner_free(&pl);
		return err ? err->status : IBF_ERR_INVALID;
	}
	if (res < 0 || export_plan(&pl, out) != IBF_OK) {
		plan_planner_free(&pl);
		ibf_probe_plan_free(out);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	out->nlinks = count_links(&pl.cols, l->fabric);
	out->model = model;
	plan_planner_free(&pl);
	return IBF_OK;
}

ibf_status_t ibf_probe_plan_by(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			       const ibf_probe_opts_t *o, bool perfect,
			       ibf_probe_plan_t *out, ibf_err_t *err)
{
	ibf_probe_model_t model = o ? o->model : IBF_PROBE_DIRECTED;
	struct pair_cache pc;
	ibf_status_t st;
	bool beaten;

	if (h->n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "probe planning needs at least 2 hosts");
	if ((st = pair_cache_init(&pc, l, h, model, err)) != IBF_OK)
		return st;
	st = plan_once(l, h, model, &pc.vc,
		       o && o->tries ? o->tries : IBF_PROBE_TRIES_DEFAULT,
		       perfect, 0, 0, &beaten, out, err);
	pair_cache_free(&pc);
	return st;
}

/* Where the fabric has the shape for it (symmetric model, three-level
 * fat tree, rank = 3 x hosts), six perfect rounds by design replace the
 * passes' plan: the same rank, so as maximal. */
static ibf_status_t by_design(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, ibf_probe_plan_t *out,
			      ibf_err_t *err)
{
	ibf_probe_plan_t alt;
	int res;

	if (model != IBF_PROBE_SYMMETRIC)
		return IBF_OK;
	res = ibf_probe_plan_lattice(l, h, out->npairs, &alt);
	if (res < 0) {
		ibf_probe_plan_free(out);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (res == 1 && alt.nrounds < out->nrounds) {
		alt.nlinks = out->nlinks;
		alt.tested += out->tested;
		ibf_probe_plan_free(out);
		*out = alt;
	} else if (res == 1) {
		ibf_probe_plan_free(&alt);
	}
	return IBF_OK;
}

/* Passes, then rounds by design or perfect rounds where they miss the
 * bound (ibf_probe_plan()). */
static ibf_status_t plan_best(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, unsigned tries,
			      ibf_probe_vcache_t *vc, ibf_probe_plan_t *out,
			      ibf_err_t *err)
{
	ibf_probe_plan_t alt;
	ibf_status_t st;
	bool beaten;

	if ((st = plan_once(l, h, model, vc, tries, false, 0, 0, &beaten, out,
			    err)) != IBF_OK)
		return st;
	if (out->nrounds > out->lower_bound &&
	    (st = by_design(l, h, model, out, err)) != IBF_OK)
		return st;
	if (out->nrounds <= out->lower_bound)
		return IBF_OK;
	if ((st = plan_once(l, h, model, vc, tries, true, out->nrounds,
			    out->npairs, &beaten, &alt, err)) != IBF_OK) {
		ibf_probe_plan_free(out);
		return st;
	}
	alt.tested += out->tested;
	if (!beaten && alt.nrounds < out->nrounds) {
		ibf_probe_plan_free(out);
		*out = alt;
	} else {
		out->tested = alt.tested;
		ibf_probe_plan_free(&alt);
	}
	return IBF_OK;
}

/* Passes first; where they miss the lower bound, rounds by design where
 * the fabric allows, else perfect rounds, and the plan with fewer rounds
 * is kept (all are maximal independent sets of the same rank). */
ibf_status_t ibf_probe_plan(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			    const ibf_probe_opts_t *o, ibf_probe_plan_t *out,
			    ibf_err_t *err)
{
	struct timespec t0, t1;
	unsigned tries = o && o->tries ? o->tries : IBF_PROBE_TRIES_DEFAULT;
	ibf_probe_model_t model = o ? o->model : IBF_PROBE_DIRECTED;
	struct pair_cache pc;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	if (h->n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "probe planning needs at least 2 hosts");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((st = pair_cache_init(&pc, l, h, model, err)) != IBF_OK)
		return st;
	st = plan_best(l, h, model, tries, &pc.vc, out, err);
	pair_cache_free(&pc);
	if (st != IBF_OK)
		return st;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->time_s = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return IBF_OK;
}

void ibf_probe_plan_free(ibf_probe_plan_t *p)
{
	free(p->pairs);
	free(p->round_start);
	memset(p, 0, sizeof(*p));
}

/* ---- for probe_solve.c --------------------------------------------------- */

ibf_status_t ibf_probe_outside_span(const ibf_lfts_t *l,
				    const ibf_hostlist_t *h,
				    ibf_probe_cols_t *c, ibf_probe_ech_t *e,
				    uint8_t *live, ibf_err_t *err)
{
	struct planner pl = { .l = l, .h = h, .n = h->n, .cols = *c,
			      .ech = *e, .rng.s = 0x2545f4914f6cdd1dull };
	struct scratch sc;
	uint32_t n = h->n;
	ibf_status_t st = IBF_OK;
	size_t i;
	int k;

	memset(live, 0, (size_t)n * n);
	if (plan_scratch_init(&sc, c->ncols, n, l->fabric->nswitches) < 0)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	pl.live = calloc((size_t)n * n, 1);
	if (!pl.live)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	/* Two random null-space vectors: a pair in the span passes both. */
	for (k = 0; st == IBF_OK && k < 2; k++) {
		if (plan_find_live(&pl, &sc, err) < 0) {
			st = err ? err->status : IBF_ERR_INVALID;
			break;
		}
		for (i = 0; i < (size_t)n * n; i++)
			live[i] |= pl.live[i];
	}
	free(pl.live);
	plan_scratch_free(&sc);
	return st;
}
