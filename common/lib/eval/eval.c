/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The evaluation driver: patterns x routings -> MMF rates, LFTI indices,
 * the optimum; see eval.h and docs/eval.md.  The JSON and CSV documents
 * are at the end of the file; the text table and the chart belong to the
 * front ends (the CLI's report.c and plot.c).
 *
 * Work is cut into pattern instances.  Each instance is processed whole
 * (traffic, crossbar, optimum, every routing) by one thread, and keeps only
 * what the reduction needs: aggregates, solver times and its rates as a
 * sorted list of distinct (rate, copies) pairs, which MMF makes short (one
 * entry per saturation level at most).  So memory does not grow with the
 * number of instances times flows unless per-flow rates are asked for.
 */
#include "base/json_out.h"
#include "base/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include <ibflow/eval.h>
#include <ibflow/io.h>
#include <ibflow/mmf.h>
#include <ibflow/mmf_opt.h>
#include <ibflow/patterns.h>
#include <ibflow/pgft.h>

/* A run of equal rates: `copies` flow copies at `rate`. */
struct hist {
	double rate;
	uint64_t copies;
};

/* What one instance leaves for the reduction, per routing. */
struct part {
	double agg, secs;
	double max_load;         /* flows on the busiest directed link */
	struct hist *hist;
	uint32_t nhist;
	double *rate;            /* keep_flows: per flow */
};

struct item {
	uint32_t pattern, instance;
	double xbar, opt_agg, opt_secs;
	double *opt_rate;        /* keep_flows && optimum */
	ibf_traffic_t tr;        /* kept with keep_flows only */
	struct part *part;       /* [nroutings] */
	ibf_status_t st;
	ibf_err_t err;
};

struct run {
	const ibf_fabric_t *f;
	const ibf_eval_routing_t *routings;
	uint32_t nr;
	const ibf_eval_opts_t *o;
	ibf_pattern_t *pat;
	uint32_t np;
	ibf_port_id_t *map;
	uint32_t nranks;
	ibf_pgft_t *pg;          /* non-NULL: compute the optimum */
	unsigned opt_threads;
	struct item *items;
	uint64_t nitems;
	uint64_t next, done;     /* atomics */
	int failed;              /* atomic */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *ibf_eval_paths_name(ibf_eval_paths_t p)
{
	switch (p) {
	case IBF_EVAL_SINGLE: return "single";
	case IBF_EVAL_LMC:    return "lmc";
	case IBF_EVAL_LAYERS: return "layers";
	}
	return "?";
}

/* ---- one instance -------------------------------------------------------- */

static int cmp_hist(const void *a, const void *b)
{
	double x = ((const struct hist *)a)->rate;
	double y = ((const struct hist *)b)->rate;

	return x < y ? -1 : x > y;
}

/* Sorted distinct (rate, copies) of one instance's rates. */
static ibf_status_t make_hist(const ibf_traffic_t *tr, const double *rate,
			      struct part *pt, ibf_err_t *err)
{
	struct hist *h = malloc(((size_t)tr->n + 1) * sizeof(*h));
	uint32_t k, n = 0;

	if (!h)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (k = 0; k < tr->n; k++) {
		h[k].rate = rate[k];
		h[k].copies = tr->flows[k].count;
	}
	qsort(h, tr->n, sizeof(*h), cmp_hist);
	for (k = 0; k < tr->n; k++) {
		if (n && h[n - 1].rate == h[k].rate)
			h[n - 1].copies += h[k].copies;
		else
			h[n++] = h[k];
	}
	pt->hist = h;
	pt->nhist = n;
	return IBF_OK;
}

static double aggregate(const ibf_traffic_t *tr, const double *rate)
{
	double s = 0.0;
	uint32_t k;

	for (k = 0; k < tr->n; k++)
		s += tr->flows[k].count * rate[k];
	return s;
}

/* The largest load of one directed link: flow copies times the flow's
 * fraction on it, summed over the flows crossing it.  Host links count
 * too (a host sending k flows loads its injection link with k). */
static ibf_status_t max_link_load(const ibf_mmf_problem_t *p, double *out,
				  ibf_err_t *err)
{
	double *load = calloc((size_t)p->nlinks + 1, sizeof(*load));
	double m = 0.0;
	uint32_t k;
	size_t e;

	if (!load)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (k = 0; k < p->nflows; k++)
		for (e = p->first[k]; e < p->first[k + 1]; e++)
			load[p->link[e]] += p->weight[k] * p->frac[e];
	for (k = 0; k < p->nlinks; k++)
		if (load[k] > m)
			m = load[k];
	free(load);
	*out = m;
	return IBF_OK;
}

static ibf_status_t solve(const struct run *R, const ibf_mmf_problem_t *p,
			  double *rate, double *secs, ibf_err_t *err)
{
	double t0 = now();
	ibf_status_t st;

	if (R->o->algo == IBF_EVAL_REF)
		st = ibf_mmf_solve_ref(p, rate, NULL, err);
	else
		st = ibf_mmf_solve(p, rate, NULL, err);
	*secs = now() - t0;
	return st;
}

static ibf_status_t do_crossbar(const struct run *R, struct item *it,
				double *rate, ibf_err_t *err)
{
	ibf_mmf_problem_t p;
	ibf_status_t st;
	double secs;

	st = ibf_flowpaths_crossbar(R->f, &it->tr, &p, err);
	if (st != IBF_OK)
		return st;
	st = solve(R, &p, rate, &secs, err);
	ibf_mmf_problem_free(&p);
	if (st == IBF_OK)
		it->xbar = aggregate(&it->tr, rate);
	return st;
}

/* The optimum: the same solver choice as the routings (--algo). */
static ibf_status_t do_opt(const struct run *R, struct item *it,
			   double *rate, ibf_err_t *err)
{
	ibf_mmf_opt_opts_t oo = { .nthreads = R->opt_threads };
	const ibf_traffic_t *tr = &it->tr;
	ibf_mmf_problem_t p;
	ibf_status_t st;
	double t0 = now();

	if (R->o->algo == IBF_EVAL_REF) {
		st = ibf_mmf_opt_problem(R->pg, R->f, tr->flows, tr->n, &p,
					 err);
		if (st == IBF_OK) {
			st = ibf_mmf_solve_ref(&p, rate, NULL, err);
			ibf_mmf_problem_free(&p);
		}
	} else {
		st = ibf_mmf_opt_pgft(R->pg, R->f, tr->flows, tr->n, rate,
				      &oo, err);
	}
	it->opt_secs = now() - t0;
	if (st != IBF_OK)
		return st;
	it->opt_agg = aggregate(tr, rate);
	if (R->o->keep_flows) {
		it->opt_rate = malloc(((size_t)tr->n + 1) * sizeof(double));
		if (!it->opt_rate)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		memcpy(it->opt_rate, rate, (size_t)tr->n * sizeof(double));
	}
	return IBF_OK;
}

static ibf_status_t do_routing(const struct run *R, struct item *it,
			       uint32_t r, double *rate, ibf_err_t *err)
{
	ibf_flowpaths_mode_t mode = R->o->paths == IBF_EVAL_SINGLE ?
		IBF_FLOWPATHS_SINGLE : IBF_FLOWPATHS_LMC;
	struct part *pt = &it->part[r];
	ibf_mmf_problem_t p;
	ibf_status_t st;

	st = ibf_flowpaths_build(R->routings[r].lfts, &it->tr, mode, &p, err);
	if (st != IBF_OK)
		return st;
	st = max_link_load(&p, &pt->max_load, err);
	if (st == IBF_OK)
		st = solve(R, &p, rate, &pt->secs, err);
	ibf_mmf_problem_free(&p);
	if (st != IBF_OK)
		return st;
	pt->agg = aggregate(&it->tr, rate);
	st = make_hist(&it->tr, rate, pt, err);
	if (st != IBF_OK || !R->o->keep_flows)
		return st;
	pt->rate = malloc(((size_t)it->tr.n + 1) * sizeof(double));
	if (!pt->rate)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memcpy(pt->rate, rate, (size_t)it->tr.n * sizeof(double));
	return IBF_OK;
}

static ibf_status_t run_item(const struct run *R, struct item *it)
{
	const ibf_pattern_t *pat = &R->pat[it->pattern];
	ibf_err_t *err = &it->err;
	ibf_status_t st;
	double *rate;
	uint32_t r;

	st = ibf_pattern_traffic(pat, R->f, R->map, R->nranks, it->instance,
				 R->o->seed, &it->tr, err);
	if (st != IBF_OK)
		return st;
	if (!it->tr.n)
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: instance %u has "
				   "no flows", pat->name, it->instance);
	rate = malloc(((size_t)it->tr.n + 1) * sizeof(*rate));
	if (!rate)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = do_crossbar(R, it, rate, err);
	if (st != IBF_OK) {
		ibf_err_prefix(err, "%s, instance %u: ", pat->name,
			       it->instance);
	} else if (R->pg && (st = do_opt(R, it, rate, err)) != IBF_OK) {
		ibf_err_prefix(err, "%s, instance %u, optimum: ", pat->name,
			       it->instance);
	}
	for (r = 0; st == IBF_OK && r < R->nr; r++) {
		st = do_routing(R, it, r, rate, err);
		if (st != IBF_OK)
			ibf_err_prefix(err, "%s, instance %u, routing %s: ",
				       pat->name, it->instance,
				       R->routings[r].name);
	}
	free(rate);
	if (!R->o->keep_flows)
		ibf_traffic_free(&it->tr);
	return st;
}

/* Take instances until none is left or one failed.  The calling thread
 * works too and reports progress between its instances. */
static void work(struct run *R, bool caller)
{
	uint64_t i, done;

	for (;;) {
		if (__atomic_load_n(&R->failed, __ATOMIC_RELAXED))
			break;
		i = __atomic_fetch_add(&R->next, 1, __ATOMIC_RELAXED);
		if (i >= R->nitems)
			break;
		R->items[i].st = run_item(R, &R->items[i]);
		if (R->items[i].st != IBF_OK)
			__atomic_store_n(&R->failed, 1, __ATOMIC_RELAXED);
		done = __atomic_add_fetch(&R->done, 1, __ATOMIC_RELAXED);
		/* The last report (done == total) comes from run_all. */
		if (caller && R->o->progress && done < R->nitems)
			R->o->progress(R->o->progress_arg, done, R->nitems);
	}
}

static void work_task(void *arg, unsigned index)
{
	work(arg, index == 0);
}

static ibf_status_t run_all(struct run *R, ibf_err_t *err)
{
	unsigned nt = R->o->nthreads > 1 ? R->o->nthreads : 1;
	uint64_t i;

	if (nt > R->nitems)
		nt = (unsigned)R->nitems;
	if (!nt)
		nt = 1;
	/* Threads left over by too few instances go to the optimum. */
	R->opt_threads = R->o->nthreads > nt ? R->o->nthreads / nt : 1;
	ibf_parallel_run(nt, work_task, R);
	if (R->o->progress)
		R->o->progress(R->o->progress_arg, R->done, R->nitems);
	/* The first failure in item order, whatever thread met it. */
	for (i = 0; i < R->nitems; i++)
		if (R->items[i].st != IBF_OK) {
			if (err)
				*err = R->items[i].err;
			return R->items[i].st;
		}
	return IBF_OK;
}

/* ---- setup ----------------------------------------------------------------- */

static ibf_status_t check_order(const ibf_fabric_t *f,
				const ibf_eval_opts_t *o, ibf_err_t *err)
{
	uint8_t *seen;
	uint32_t i, e;
	char buf[128];

	if (!o->order)
		return IBF_OK;
	if (!o->norder)
		return ibf_err_set(err, IBF_ERR_INVALID, "rank order is empty");
	seen = calloc(f->nendpoints ? f->nendpoints : 1, 1);
	if (!seen)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < o->norder; i++) {
		ibf_port_id_t p = o->order[i];

		e = p < f->nports ? f->endpoint_index[p] : UINT32_MAX;
		if (e >= f->nendpoints || f->endpoints[e] != p) {
			free(seen);
			return ibf_err_set(err, IBF_ERR_NOT_FOUND, "rank %u: "
					   "port %u is not a connected host "
					   "port", i, p);
		}
		if (seen[e]++) {
			free(seen);
			return ibf_err_set(err, IBF_ERR_INVALID, "rank order "
					   "lists host %s twice (rank %u)",
					   ibf_port_host_name(f, p, buf,
							      sizeof(buf)), i);
		}
	}
	free(seen);
	return IBF_OK;
}

/* Decide whether the optimum can be computed; the reason when not. */
static void setup_opt(ibf_eval_t *e, struct run *R)
{
	static const char pre[] = "exact MMF-MCF optimum not computed: ";
	ibf_err_t err;
	const char *m;

	ibf_err_clear(&err);
	if (ibf_pgft_recognize(R->f, &R->pg, &err) != IBF_OK) {
		R->pg = NULL;
		m = err.msg;
		if (!strncmp(m, "not a PGFT: ", 12))
			m += 12;
		snprintf(e->opt_note, sizeof(e->opt_note), "exact optimum not "
			 "computed: not a PGFT (%.400s)", m);
		return;
	}
	ibf_err_clear(&err);
	if (ibf_mmf_opt_supported(R->pg, R->f, &err) == IBF_OK) {
		e->opt_done = true;
		return;
	}
	m = err.msg;
	if (!strncmp(m, pre, sizeof(pre) - 1))
		m += sizeof(pre) - 1;
	snprintf(e->opt_note, sizeof(e->opt_note), "exact optimum not "
		 "computed: %.400s", m);
	ibf_pgft_destroy(R->pg);
	R->pg = NULL;
}

static ibf_status_t parse_patterns(struct run *R, const char *const *specs,
				   ibf_err_t *err)
{
	ibf_status_t st;
	uint32_t p, n;

	R->pat = calloc(R->np ? R->np : 1, sizeof(*R->pat));
	if (!R->pat)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	R->nitems = 0;
	for (p = 0; p < R->np; p++) {
		st = ibf_pattern_parse(specs[p], &R->pat[p], err);
		if (st != IBF_OK)
			return st;
		n = ibf_pattern_ninstances(&R->pat[p], R->nranks);
		if (!n)
			return ibf_err_set(err, IBF_ERR_INVALID, "%s: no "
					   "instance on %u ranks",
					   R->pat[p].name, R->nranks);
		R->nitems += n;
	}
	return IBF_OK;
}

static ibf_status_t make_items(struct run *R, ibf_err_t *err)
{
	uint32_t p, i, n;
	uint64_t k = 0;

	R->items = calloc(R->nitems ? R->nitems : 1, sizeof(*R->items));
	if (!R->items)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (p = 0; p < R->np; p++) {
		n = ibf_pattern_ninstances(&R->pat[p], R->nranks);
		for (i = 0; i < n; i++, k++) {
			R->items[k].pattern = p;
			R->items[k].instance = i;
			R->items[k].part = calloc(R->nr, sizeof(struct part));
			if (!R->items[k].part)
				return ibf_err_set(err, IBF_ERR_NOMEM,
						   "out of memory");
		}
	}
	return IBF_OK;
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static ibf_eval_t *eval_new(const struct run *R, const char *const *specs)
{
	ibf_eval_t *e = calloc(1, sizeof(*e));
	uint32_t i;

	if (!e)
		return NULL;
	e->fabric = R->f;
	e->paths = R->o->paths;
	e->nroutings = R->nr;
	e->npatterns = R->np;
	e->nranks = R->nranks;
	e->opt_asked = R->o->opt;
	e->routing_name = calloc(R->nr ? R->nr : 1, sizeof(char *));
	e->pattern_name = calloc(R->np ? R->np : 1, sizeof(char *));
	e->result = calloc((size_t)R->nr * R->np + 1, sizeof(*e->result));
	if (!e->routing_name || !e->pattern_name || !e->result)
		goto fail;
	for (i = 0; i < R->nr; i++)
		if (!(e->routing_name[i] = dup_str(R->routings[i].name)))
			goto fail;
	for (i = 0; i < R->np; i++)
		if (!(e->pattern_name[i] = dup_str(specs[i])))
			goto fail;
	return e;
fail:
	ibf_eval_destroy(e);
	return NULL;
}

/* ---- reduction --------------------------------------------------------------- */

/* The copy at 0-based position pos in the merged sorted rates. */
static double hist_at(const struct hist *h, uint64_t n, uint64_t pos)
{
	uint64_t k;

	for (k = 0; k < n; k++) {
		if (pos < h[k].copies)
			return h[k].rate;
		pos -= h[k].copies;
	}
	return n ? h[n - 1].rate : 0.0;
}

/* Merge the instances' histograms of routing r, pattern p. */
static ibf_status_t reduce_rates(const struct run *R, uint64_t first,
				 uint64_t last, uint32_t r,
				 ibf_eval_result_t *res, ibf_err_t *err)
{
	uint64_t i, n = 0, m = 0;
	struct hist *h;

	for (i = first; i < last; i++)
		n += R->items[i].part[r].nhist;
	h = malloc((n + 1) * sizeof(*h));
	if (!h)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = first; i < last; i++) {
		memcpy(h + m, R->items[i].part[r].hist,
		       R->items[i].part[r].nhist * sizeof(*h));
		m += R->items[i].part[r].nhist;
	}
	qsort(h, n, sizeof(*h), cmp_hist);
	res->min_rate = n ? h[0].rate : 0.0;
	if (res->flows % 2)
		res->median_rate = hist_at(h, n, res->flows / 2);
	else if (res->flows)
		res->median_rate = (hist_at(h, n,
					    res->flows / 2 - 1) +
				    hist_at(h, n, res->flows / 2)) /
				   2.0;
	free(h);
	return IBF_OK;
}

static ibf_status_t keep_flows(const struct run *R, uint64_t first,
			       uint64_t last, uint32_t r,
			       ibf_eval_result_t *res, ibf_err_t *err)
{
	uint64_t i, n = 0;
	uint32_t k;

	for (i = first; i < last; i++)
		n += R->items[i].tr.n;
	res->flow = calloc(n + 1, sizeof(*res->flow));
	if (!res->flow)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = first; i < last; i++) {
		const struct item *it = &R->items[i];

		for (k = 0; k < it->tr.n; k++) {
			ibf_eval_flow_t *fl = &res->flow[res->nflow++];

			fl->instance = it->instance;
			fl->src = it->tr.flows[k].src;
			fl->dst = it->tr.flows[k].dst;
			fl->count = it->tr.flows[k].count;
			fl->rate = it->part[r].rate[k];
			fl->opt_rate = it->opt_rate ? it->opt_rate[k] : 0.0;
		}
	}
	return IBF_OK;
}

static ibf_status_t reduce_one(const struct run *R, ibf_eval_t *e,
			       uint64_t first, uint64_t last, uint32_t p,
			       uint32_t r, ibf_err_t *err)
{
	ibf_eval_result_t *res = &e->result[(size_t)r * R->np + p];
	ibf_status_t st;
	uint64_t i;
	uint32_t k;

	res->routing = r;
	res->pattern = p;
	res->instances = (uint32_t)(last - first);
	for (i = first; i < last; i++) {
		const struct item *it = &R->items[i];

		res->throughput += it->part[r].agg;
		res->crossbar += it->xbar;
		res->opt_throughput += it->opt_agg;
		res->seconds += it->part[r].secs;
		res->opt_seconds += it->opt_secs;
		if (it->part[r].max_load > res->max_link_load)
			res->max_link_load = it->part[r].max_load;
		for (k = 0; k < it->part[r].nhist; k++)
			res->flows += it->part[r].hist[k].copies;
	}
	/* Flows exist and capacities are positive, so the crossbar moves
	 * something; anything else would be a NaN in the report. */
	if (!(res->crossbar > 0.0) || !isfinite(res->throughput))
		return ibf_err_set(err, IBF_ERR_INVALID, "%s: no throughput "
				   "on the crossbar", R->pat[p].name);
	res->index = res->throughput / res->crossbar;
	res->has_opt = R->pg && res->opt_throughput > 0.0;
	if (res->has_opt) {
		res->opt_index = res->opt_throughput / res->crossbar;
		res->ratio = res->index / res->opt_index;
	} else {
		res->opt_seconds = 0.0;
	}
	st = reduce_rates(R, first, last, r, res, err);
	if (st == IBF_OK && R->o->keep_flows)
		st = keep_flows(R, first, last, r, res, err);
	return st;
}

static ibf_status_t reduce(const struct run *R, ibf_eval_t *e,
			   ibf_err_t *err)
{
	uint64_t first = 0, last;
	ibf_status_t st;
	uint32_t p, r;

	for (p = 0; p < R->np; p++) {
		for (last = first; last < R->nitems &&
		     R->items[last].pattern == p; last++)
			;
		for (r = 0; r < R->nr; r++) {
			st = reduce_one(R, e, first, last, p, r, err);
			if (st != IBF_OK)
				return st;
		}
		first = last;
	}
	return IBF_OK;
}

static void run_free(struct run *R)
{
	uint64_t i;
	uint32_t r;

	for (i = 0; R->items && i < R->nitems; i++) {
		struct item *it = &R->items[i];

		for (r = 0; it->part && r < R->nr; r++) {
			free(it->part[r].hist);
			free(it->part[r].rate);
		}
		free(it->part);
		free(it->opt_rate);
		ibf_traffic_free(&it->tr);
	}
	free(R->items);
	for (i = 0; R->pat && i < R->np; i++)
		ibf_pattern_free(&R->pat[i]);
	free(R->pat);
	free(R->map);
	ibf_pgft_destroy(R->pg);
}

static ibf_status_t check_args(const ibf_fabric_t *f,
			       const ibf_eval_routing_t *routings,
			       uint32_t nr, uint32_t np,
			       const ibf_eval_opts_t *o, ibf_err_t *err)
{
	uint32_t r;

	if (!f || !f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID, "fabric not "
				   "finalized");
	if (!nr || !np)
		return ibf_err_set(err, IBF_ERR_INVALID, "nothing to "
				   "evaluate: %u routings, %u patterns", nr,
				   np);
	for (r = 0; r < nr; r++)
		if (!routings[r].lfts || routings[r].lfts->fabric != f ||
		    !routings[r].name)
			return ibf_err_set(err, IBF_ERR_INVALID, "routing %u: "
					   "tables of another fabric", r);
	return check_order(f, o, err);
}

ibf_status_t ibf_eval_run(const ibf_fabric_t *f,
			  const ibf_eval_routing_t *routings, uint32_t nr,
			  const char *const *specs, uint32_t np,
			  const ibf_eval_opts_t *opts, ibf_eval_t **out,
			  ibf_err_t *err)
{
	static const ibf_eval_opts_t defaults;
	struct run R;
	ibf_eval_t *e = NULL;
	ibf_status_t st;

	*out = NULL;
	memset(&R, 0, sizeof(R));
	R.o = opts ? opts : &defaults;
	if ((st = check_args(f, routings, nr, np, R.o, err)) != IBF_OK)
		return st;
	R.f = f;
	R.routings = routings;
	R.nr = nr;
	R.np = np;
	st = ibf_rankmap(f, R.o->order, R.o->norder, R.o->random_map,
			 R.o->seed, &R.map, &R.nranks, err);
	if (st == IBF_OK)
		st = parse_patterns(&R, specs, err);
	if (st == IBF_OK)
		st = make_items(&R, err);
	if (st == IBF_OK && !(e = eval_new(&R, specs)))
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	if (st == IBF_OK && R.o->opt)
		setup_opt(e, &R);
	if (st == IBF_OK)
		st = run_all(&R, err);
	if (st == IBF_OK)
		st = reduce(&R, e, err);
	run_free(&R);
	if (st != IBF_OK) {
		ibf_eval_destroy(e);
		return st;
	}
	*out = e;
	return IBF_OK;
}

void ibf_eval_destroy(ibf_eval_t *e)
{
	uint32_t i;

	if (!e)
		return;
	for (i = 0; e->routing_name && i < e->nroutings; i++)
		free(e->routing_name[i]);
	for (i = 0; e->pattern_name && i < e->npatterns; i++)
		free(e->pattern_name[i]);
	for (i = 0; e->result && i < e->nroutings * e->npatterns; i++)
		free(e->result[i].flow);
	free(e->routing_name);
	free(e->pattern_name);
	free(e->result);
	free(e);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *json_entry(const ibf_eval_t *e,
			       const ibf_eval_result_t *x)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (e->nroutings > 1)
		json_object_object_add(o, "routing", json_object_new_string(
					       e->routing_name[x->routing]));
	json_object_object_add(o, "name", json_object_new_string(
				       e->pattern_name[x->pattern]));
	json_object_object_add(o, "flows", json_object_new_int64(
				       (int64_t)x->flows));
	json_object_object_add(o, "index", num(x->index));
	json_object_object_add(o, "opt_index",
			       x->has_opt ? num(x->opt_index) : NULL);
	json_object_object_add(o, "ratio", x->has_opt ? num(x->ratio) : NULL);
	json_object_object_add(o, "min_rate", num(x->min_rate));
	json_object_object_add(o, "median_rate", num(x->median_rate));
	json_object_object_add(o, "max_link_load", num(x->max_link_load));
	json_object_object_add(o, "seconds", num(x->seconds));
	json_object_object_add(o, "opt_seconds",
			       x->has_opt ? num(x->opt_seconds) : NULL);
	return o;
}

static json_object *eval_json(const ibf_eval_t *e)
{
	json_object *root = json_object_new_object();
	json_object *arr = json_object_new_array();
	json_object *o;
	uint32_t r, p;

	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(root, "patterns", arr);
	for (r = 0; r < e->nroutings; r++)
		for (p = 0; p < e->npatterns; p++) {
			o = json_entry(e, ibf_eval_result(e, r, p));
			if (!o || json_object_array_add(arr, o)) {
				json_object_put(o);
				json_object_put(root);
				return NULL;
			}
		}
	return root;
}

ibf_status_t ibf_eval_write_json(const ibf_eval_t *e, FILE *fp,
				 ibf_err_t *err)
{
	return ibf_json_write(eval_json(e), JSON_C_TO_STRING_PRETTY |
			      JSON_C_TO_STRING_SPACED, fp, err);
}

/* ---- CSV ------------------------------------------------------------------- */

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void csv_rows(const ibf_eval_t *e, const ibf_eval_result_t *x,
		     FILE *fp)
{
	char a[128], b[128];
	uint64_t k;

	for (k = 0; k < x->nflow; k++) {
		const ibf_eval_flow_t *fl = &x->flow[k];

		if (e->nroutings > 1) {
			csv_field(fp, e->routing_name[x->routing]);
			fputc(',', fp);
		}
		csv_field(fp, e->pattern_name[x->pattern]);
		fprintf(fp, ",%u,", fl->instance);
		csv_field(fp, ibf_port_host_name(e->fabric, fl->src, a,
						 sizeof(a)));
		fputc(',', fp);
		csv_field(fp, ibf_port_host_name(e->fabric, fl->dst, b,
						 sizeof(b)));
		fprintf(fp, ",%.12g", fl->rate);
		if (e->opt_done)
			fprintf(fp, ",%.12g", fl->opt_rate);
		fputc('\n', fp);
	}
}

ibf_status_t ibf_eval_write_flows(const ibf_eval_t *e, FILE *fp,
				  ibf_err_t *err)
{
	uint32_t i;

	for (i = 0; i < e->nroutings * e->npatterns; i++)
		if (!e->result[i].flow)
			return ibf_err_set(err, IBF_ERR_INVALID, "per-flow "
					   "rates were not kept (keep_flows)");
	fprintf(fp, "%spattern,instance,src,dst,rate%s\n",
		e->nroutings > 1 ? "routing," : "",
		e->opt_done ? ",opt_rate" : "");
	for (i = 0; i < e->nroutings * e->npatterns; i++)
		csv_rows(e, &e->result[i], fp);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
