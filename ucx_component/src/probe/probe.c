/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Planned latency probes over UCX, after the PMM paper ("A minimal and
 * parallel method for full-scale point-to-point latency measurement"):
 * rank 0 plans with libibflow's probe planner and broadcasts the
 * schedule; each round's ping-pongs run at once between the rounds'
 * barriers (a round's probes share no host and no directed link, so they
 * do not disturb each other); rank 0 gathers the RTTs, solves them for
 * link latencies and every pair's RTT (libibflow's probe solver) and
 * broadcasts the host x host matrix.
 *
 * A host is probed by its leader, its lowest rank; the other ranks on a
 * host only take part in the barriers.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/ucx_probe_internal.h"

typedef struct sched_pair {
	uint32_t a, b, round, step;
} sched_pair_t;

typedef struct sched_head {
	int32_t status;
	uint32_t npairs, nrounds, nsteps;
	char msg[IBF_UCX_ERR_MSG_MAX];
} sched_head_t;

typedef struct pp_record {
	uint32_t idx, exchanges;
	double min, max;
} pp_record_t;

typedef struct summary {
	int32_t status;
	uint32_t nrounds, nsteps;
	double plan_s, measure_s, solve_s;
	char msg[IBF_UCX_ERR_MSG_MAX];
} summary_t;

/* PROBE_SPIN=auto: poll only when every process of the job on this
 * machine can have a CPU of its own, and the machine is not busy with
 * other work (1-minute load average below its CPU count).  A poller that
 * shares its CPU makes its peer wait for a scheduler time slice (tens of
 * milliseconds per exchange, seen on the 2-core test machine). */
static bool cpus_to_spare(const ibf_ucx_t *u)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double load[1];

	if (ncpu < 1 || u->local_procs > (uint32_t)ncpu)
		return false;
	return getloadavg(load, 1) == 1 && load[0] < (double)ncpu;
}

void ibf_ucx_probe_opts_init(const ibf_ucx_t *u, ibf_ucx_probe_opts_t *o)
{
	const ibf_ucx_cfg_t *v = &u->cfg->v;

	memset(o, 0, sizeof(*o));
	o->all_pairs = v->probe_rounds == IBF_UCX_ROUNDS_ALL_PAIRS;
	o->serial = v->probe_rounds == IBF_UCX_ROUNDS_SERIAL;
	o->stall = v->probe_stall;
	o->max_exchanges = v->probe_max;
	o->runs = v->probe_runs;
	o->warmup = v->probe_warmup;
	o->size = v->probe_size;
	o->tries = v->probe_tries;
	o->model = (ibf_probe_model_t)v->probe_model;
	o->spin_s = v->probe_spin;
	o->concurrency = v->probe_concurrency == UINT_MAX ? IBF_UCX_PROBE_AUTO :
			 v->probe_concurrency;
	if (o->spin_s < 0)
		o->spin_s = cpus_to_spare(u) ? 1.0 : 0.0;
}

/* ---- the schedule (rank 0) -------------------------------------------------- */

static ibf_ucx_status_t all_pairs(uint32_t n, sched_pair_t **out,
				  uint32_t *np, ibf_ucx_err_t *err)
{
	uint32_t a, b, k = 0;

	*np = n * (n - 1) / 2;
	*out = calloc(*np ? *np : 1, sizeof(**out));
	if (!*out)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++, k++) {
			(*out)[k].a = a;
			(*out)[k].b = b;
			(*out)[k].round = k;
		}
	return IBF_UCX_OK;
}

static ibf_ucx_status_t planned(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
				ibf_probe_plan_t *plan, sched_pair_t **out,
				uint32_t *np, ibf_ucx_err_t *err)
{
	ibf_probe_opts_t po = { o->tries, o->model };
	uint32_t r, i;
	ibf_err_t e;

	ibf_err_clear(&e);
	if (ibf_probe_plan(u->fab.lfts, &u->hosts, &po, plan, &e) != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_FABRIC, &e,
					"probe plan");
	*np = plan->npairs;
	*out = calloc(*np ? *np : 1, sizeof(**out));
	if (!*out)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (r = 0; r < plan->nrounds; r++)
		for (i = plan->round_start[r]; i < plan->round_start[r + 1];
		     i++) {
			(*out)[i].a = plan->pairs[i].a;
			(*out)[i].b = plan->pairs[i].b;
			(*out)[i].round = o->serial ? i : r;
		}
	return IBF_UCX_OK;
}

/* A round must not use a host twice: its leader can serve one pair. */
static ibf_ucx_status_t check_rounds(const sched_pair_t *p, uint32_t np,
				     uint32_t nhosts, ibf_ucx_err_t *err)
{
	uint32_t *last = malloc(nhosts * sizeof(*last)), i;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (!last)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	memset(last, 0xff, nhosts * sizeof(*last));
	for (i = 0; i < np && st == IBF_UCX_OK; i++) {
		if ((i && p[i].round < p[i - 1].round) ||
		    last[p[i].a] == p[i].round || last[p[i].b] == p[i].round)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
					     "probe schedule: round %u uses a "
					     "host twice or is out of order",
					     p[i].round);
		last[p[i].a] = last[p[i].b] = p[i].round;
	}
	free(last);
	return st;
}

/* Dense machine numbers per rank (machines told apart by boot id). */
static uint32_t *machine_index(const ibf_ucx_t *u, uint32_t *nmach)
{
	uint32_t *m = malloc(u->size * sizeof(*m)), i, j;

	*nmach = 0;
	for (i = 0; m && i < u->size; i++) {
		for (j = 0; j < i; j++)
			if (u->who[j].machine == u->who[i].machine)
				break;
		m[i] = j < i ? m[j] : (*nmach)++;
	}
	return m;
}

typedef struct stepper {
	const ibf_ucx_t *u;
	unsigned limit;          /* pairs per step, 0 none */
	bool by_cpus;
	uint32_t *mach;          /* [size] machine of each rank */
	uint32_t *busy, *stamp;  /* [machines] processes probing this step */
	uint32_t step, npairs;
} stepper_t;

/* Does the pair fit into the current step? */
static bool fits(stepper_t *s, uint32_t la, uint32_t lb)
{
	uint32_t ma = s->mach[la], mb = s->mach[lb], i, need;
	uint32_t ms[2] = { ma, mb };

	if (!s->npairs)
		return true;   /* a step takes at least one pair */
	if (s->limit && s->npairs >= s->limit)
		return false;
	if (!s->by_cpus)
		return true;
	for (i = 0; i < 2; i++) {
		uint32_t used = s->stamp[ms[i]] == s->step ? s->busy[ms[i]] : 0;

		need = ma == mb ? 2 : 1;
		if (used + need > s->u->who[i ? lb : la].ncpus)
			return false;
	}
	return true;
}

static void take(stepper_t *s, uint32_t la, uint32_t lb)
{
	uint32_t m[2] = { s->mach[la], s->mach[lb] }, i;

	for (i = 0; i < 2; i++) {
		if (s->stamp[m[i]] != s->step) {
			s->stamp[m[i]] = s->step;
			s->busy[m[i]] = 0;
		}
		s->busy[m[i]]++;
	}
	s->npairs++;
}

/* Split each round into steps that respect the concurrency: pairs that
 * do not fit wait for the round's next step.  Pairs are reordered by
 * step within their round. */
static ibf_ucx_status_t assign_steps(const ibf_ucx_t *u,
				     const ibf_ucx_probe_opts_t *o,
				     sched_pair_t *p, uint32_t np,
				     uint32_t *nsteps, ibf_ucx_err_t *err)
{
	stepper_t s = { u, o->concurrency == IBF_UCX_PROBE_AUTO ? 0 :
			o->concurrency, o->concurrency == IBF_UCX_PROBE_AUTO,
			NULL, NULL, NULL, 0, 0 };
	sched_pair_t *out = malloc((np ? np : 1) * sizeof(*out));
	uint32_t nmach, i = 0, k = 0, j, end, left;
	bool *done = calloc(np ? np : 1, sizeof(*done));

	s.mach = machine_index(u, &nmach);
	s.busy = calloc(nmach + 1, sizeof(*s.busy));
	s.stamp = calloc(nmach + 1, sizeof(*s.stamp));
	if (!out || !done || !s.mach || !s.busy || !s.stamp) {
		free(out); free(done); free(s.mach); free(s.busy); free(s.stamp);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	for (; i < np; i = end) {
		for (end = i; end < np && p[end].round == p[i].round; end++)
			;
		for (left = end - i; left; ) {
			s.step++;
			s.npairs = 0;
			for (j = i; j < end; j++) {
				uint32_t la = u->host_leader[p[j].a];
				uint32_t lb = u->host_leader[p[j].b];

				if (done[j] || !fits(&s, la, lb))
					continue;
				take(&s, la, lb);
				done[j] = true;
				out[k] = p[j];
				out[k++].step = s.step - 1;
				left--;
			}
		}
	}
	memcpy(p, out, np * sizeof(*p));
	*nsteps = s.step;
	free(out); free(done); free(s.mach); free(s.busy); free(s.stamp);
	return IBF_UCX_OK;
}

static ibf_ucx_status_t make_schedule(ibf_ucx_t *u,
				      const ibf_ucx_probe_opts_t *o,
				      ibf_ucx_probe_result_t *res,
				      sched_pair_t **p, uint32_t *np,
				      ibf_ucx_err_t *err)
{
	double t0 = ibf_ucxi_now();
	ibf_ucx_status_t st;

	if (o->all_pairs)
		st = all_pairs(u->nhosts, p, np, err);
	else
		st = planned(u, o, &res->plan, p, np, err);
	res->plan_s = ibf_ucxi_now() - t0;
	if (st == IBF_UCX_OK)
		st = check_rounds(*p, *np, u->nhosts, err);
	if (st == IBF_UCX_OK)
		st = assign_steps(u, o, *p, *np, &res->nsteps, err);
	return st;
}

/* Rank 0 plans; everybody gets the schedule, or rank 0's error. */
static ibf_ucx_status_t share_schedule(ibf_ucx_t *u,
				       const ibf_ucx_probe_opts_t *o,
				       ibf_ucx_probe_result_t *res,
				       sched_pair_t **p, uint32_t *np,
				       uint32_t *nrounds, uint32_t *nsteps,
				       ibf_ucx_err_t *err)
{
	sched_head_t h;
	size_t len;
	void *buf;
	ibf_ucx_status_t st;

	memset(&h, 0, sizeof(h));
	*p = NULL;
	if (u->rank == 0) {
		ibf_ucx_err_t e;

		ibf_ucx_err_clear(&e);
		h.status = make_schedule(u, o, res, p, np, &e);
		snprintf(h.msg, sizeof(h.msg), "%s", e.msg);
		h.npairs = h.status == IBF_UCX_OK ? *np : 0;
		h.nrounds = h.npairs ? (*p)[h.npairs - 1].round + 1 : 0;
		h.nsteps = h.status == IBF_UCX_OK ? res->nsteps : 0;
	}
	st = ibf_ucx_bcast(u, 0, &h, sizeof(h), err);
	if (st != IBF_UCX_OK)
		return st;
	if (h.status != IBF_UCX_OK)
		return ibf_ucx_err_set(err, u->rank ? IBF_UCX_ERR_PEER :
				       h.status, "%s%s", u->rank ? "rank 0: " :
				       "", h.msg);
	*np = h.npairs;
	*nrounds = h.nrounds;
	*nsteps = h.nsteps;
	buf = *p;
	len = (size_t)h.npairs * sizeof(sched_pair_t);
	st = ibf_ucxi_bcast_blob(u, 0, &buf, &len, err);
	*p = buf;
	return st;
}

/* ---- running the rounds ------------------------------------------------------ */

/* One pass: every step once, a barrier after each.  The pairs this rank
 * initiates get one more run in their records (mine[k] for the k-th of
 * them, in schedule order). */
static ibf_ucx_status_t one_pass(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
				 const sched_pair_t *p, uint32_t np,
				 uint32_t nsteps, bool first, pp_record_t *mine,
				 ibf_ucx_err_t *err)
{
	uint32_t r, i = 0, k = 0, seq;
	ibf_ucx_status_t st = IBF_UCX_OK;

	for (r = 0; r < nsteps && st == IBF_UCX_OK; r++) {
		seq = ++u->seq;
		for (; i < np && p[i].step == r && st == IBF_UCX_OK; i++) {
			uint32_t la = u->host_leader[p[i].a];
			uint32_t lb = u->host_leader[p[i].b];
			pp_record_t *rec = &mine[k];
			double best;

			if (la == u->rank) {
				st = ibf_ucxi_ping(u, lb, seq, o, first, &best,
						   &rec->exchanges, err);
				rec->idx = i;
				rec->min = fmin(rec->min, best);
				rec->max = fmax(rec->max, best);
				k++;
			} else if (lb == u->rank) {
				st = ibf_ucxi_pong(u, la, seq, o, err);
			}
		}
		if (st == IBF_UCX_OK)
			st = ibf_ucx_barrier(u, err);
	}
	return st;
}

/* The runs of a pair are spread over passes of the whole schedule rather
 * than made back to back, so that a transient disturbance -- a process
 * descheduled on a busy machine, a burst of other traffic -- spoils at
 * most one of them, and the minimum over the runs discards it. */
static ibf_ucx_status_t run_rounds(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
				   const sched_pair_t *p, uint32_t np,
				   uint32_t nsteps, pp_record_t **mine,
				   uint32_t *nmine, double *measure_s,
				   ibf_ucx_err_t *err)
{
	uint32_t i, pass;
	double t0;
	ibf_ucx_status_t st;

	*nmine = 0;
	*mine = calloc(np ? np : 1, sizeof(**mine));
	if (!*mine)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (i = 0; i < np; i++) {
		if (u->host_leader[p[i].a] == u->rank) {
			(*mine)[*nmine].min = INFINITY;
			(*mine)[(*nmine)++].max = -INFINITY;
		}
	}
	st = ibf_ucx_barrier(u, err);
	t0 = ibf_ucxi_now();
	for (pass = 0; pass < o->runs && st == IBF_UCX_OK; pass++)
		st = one_pass(u, o, p, np, nsteps, pass == 0, *mine, err);
	*measure_s = ibf_ucxi_now() - t0;
	return st;
}

/* ---- results (rank 0) --------------------------------------------------------- */

static ibf_ucx_status_t collect(ibf_ucx_t *u, const sched_pair_t *p,
				uint32_t np, const pp_record_t *mine,
				uint32_t nmine, ibf_ucx_probe_result_t *res,
				ibf_ucx_err_t *err)
{
	void **bufs = NULL;
	size_t *lens = NULL;
	uint32_t i, k, got = 0;
	ibf_ucx_status_t st;

	if (u->rank == 0) {
		bufs = calloc(u->size, sizeof(*bufs));
		lens = calloc(u->size, sizeof(*lens));
		res->meas = calloc(np ? np : 1, sizeof(*res->meas));
		if (!bufs || !lens || !res->meas) {
			free(bufs);
			free(lens);
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "out of memory");
		}
	}
	st = ibf_ucxi_gatherv(u, 0, mine, nmine * sizeof(*mine), bufs, lens,
			      err);
	if (u->rank != 0)
		return st;
	for (i = 0; i < np; i++) {
		res->meas[i].a = p[i].a;
		res->meas[i].b = p[i].b;
		res->meas[i].round = p[i].round;
		res->meas[i].step = p[i].step;
		res->meas[i].rtt_min = res->meas[i].rtt_max = NAN;
	}
	for (i = 0; st == IBF_UCX_OK && i < u->size; i++) {
		const pp_record_t *rec = bufs[i];

		for (k = 0; k < lens[i] / sizeof(*rec); k++, got++) {
			ibf_ucx_probe_meas_t *m = &res->meas[rec[k].idx %
							     (np ? np : 1)];

			m->rtt_min = rec[k].min;
			m->rtt_max = rec[k].max;
			m->exchanges = rec[k].exchanges;
		}
	}
	for (i = 0; i < u->size; i++)
		free(bufs[i]);
	free(bufs);
	free(lens);
	res->nmeas = np;
	if (st == IBF_UCX_OK && got != np)
		st = ibf_ucx_err_set(err, IBF_UCX_ERR_PEER, "probe: %u of %u "
				     "measurements arrived", got, np);
	return st;
}

static size_t pair_index(uint32_t n, uint32_t a, uint32_t b)
{
	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	return (size_t)a * n - (size_t)a * (a + 1) / 2 + (b - a - 1);
}

/* Measurements are noisy: flag only residuals above a tenth of the
 * largest RTT as inconsistent. */
static ibf_ucx_status_t solve(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
			      ibf_ucx_probe_result_t *res, ibf_ucx_err_t *err)
{
	ibf_probe_meas_t *m = calloc(res->nmeas ? res->nmeas : 1, sizeof(*m));
	double t0 = ibf_ucxi_now(), big = 0;
	uint32_t i;
	ibf_err_t e;
	ibf_status_t st;

	if (!m)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	for (i = 0; i < res->nmeas; i++) {
		m[i].a = res->meas[i].a;
		m[i].b = res->meas[i].b;
		m[i].rtt = res->meas[i].rtt_min;
		m[i].rtt_max = res->meas[i].rtt_max;
		big = fmax(big, m[i].rtt);
	}
	ibf_err_clear(&e);
	st = ibf_probe_solve_model(u->fab.lfts, &u->hosts, o->model, m,
				   res->nmeas, 0.1 * big, &res->solution, &e);
	if (st == IBF_OK)
		st = ibf_probe_health(u->fab.lfts, &u->hosts, m, res->nmeas,
				      &res->solution, &o->health,
				      &res->health, &e);
	free(m);
	res->solve_s = ibf_ucxi_now() - t0;
	if (st != IBF_OK)
		return ibf_ucxi_err_lib(err, IBF_UCX_ERR_FABRIC, &e,
					"probe solve");
	res->solved = true;
	return IBF_UCX_OK;
}

static void fill_matrix(const ibf_ucx_probe_result_t *res, double *rtt)
{
	uint32_t n = res->nhosts, a, b, i;

	for (i = 0; i < n * n; i++)
		rtt[i] = NAN;
	if (res->solved && !res->all_pairs) {
		for (a = 0; a < n; a++)
			for (b = a + 1; b < n; b++)
				rtt[a * n + b] = rtt[b * n + a] =
					res->solution.pair_rtt[pair_index(n, a,
									  b)];
		return;
	}
	for (i = 0; i < res->nmeas; i++) {
		a = res->meas[i].a;
		b = res->meas[i].b;
		rtt[a * n + b] = rtt[b * n + a] = res->meas[i].rtt_min;
	}
}

/* Rank 0's outcome, times and matrix to every rank. */
static ibf_ucx_status_t share_result(ibf_ucx_t *u, ibf_ucx_status_t st0,
				     const ibf_ucx_err_t *e0,
				     ibf_ucx_probe_result_t *res,
				     ibf_ucx_err_t *err)
{
	size_t nn = (size_t)res->nhosts * res->nhosts;
	summary_t s;
	ibf_ucx_status_t st;

	memset(&s, 0, sizeof(s));
	if (u->rank == 0) {
		s.status = st0;
		snprintf(s.msg, sizeof(s.msg), "%s", e0->msg);
		s.nrounds = res->nrounds;
		s.nsteps = res->nsteps;
		s.plan_s = res->plan_s;
		s.measure_s = res->measure_s;
		s.solve_s = res->solve_s;
	}
	st = ibf_ucx_bcast(u, 0, &s, sizeof(s), err);
	if (st != IBF_UCX_OK)
		return st;
	if (s.status != IBF_UCX_OK)
		return ibf_ucx_err_set(err, u->rank ? IBF_UCX_ERR_PEER :
				       s.status, "%s%s", u->rank ? "rank 0: " :
				       "", s.msg);
	res->nrounds = s.nrounds;
	res->nsteps = s.nsteps;
	res->plan_s = s.plan_s;
	res->measure_s = s.measure_s;
	res->solve_s = s.solve_s;
	if (u->rank == 0)
		fill_matrix(res, res->rtt);
	return ibf_ucx_bcast(u, 0, res->rtt, nn * sizeof(double), err);
}

ibf_ucx_status_t ibf_ucx_probe(ibf_ucx_t *u, const ibf_ucx_probe_opts_t *o,
			       ibf_ucx_probe_result_t *res, ibf_ucx_err_t *err)
{
	ibf_ucx_probe_opts_t def;
	sched_pair_t *p = NULL;
	pp_record_t *mine = NULL;
	uint32_t np = 0, nrounds = 0, nsteps = 0, nmine = 0;
	ibf_ucx_err_t e0;
	ibf_ucx_status_t st, st0 = IBF_UCX_OK;

	memset(res, 0, sizeof(*res));
	ibf_ucx_err_clear(&e0);
	if (!o) {
		ibf_ucx_probe_opts_init(u, &def);
		o = &def;
	}
	if (!u->aware && !o->all_pairs)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "planned probes need the fabric (%s); "
				       "only all pairs can be measured "
				       "topology-unaware", u->why);
	if (u->aware && !o->all_pairs && u->cfg->v.lid_offset)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "planned probes trace base LIDs; %s"
				       "LID_OFFSET=%u is not supported",
				       IBF_UCX_VAR_PREFIX,
				       u->cfg->v.lid_offset);
	res->nhosts = u->nhosts;
	res->all_pairs = o->all_pairs;
	res->rtt = malloc((size_t)u->nhosts * u->nhosts * sizeof(double));
	if (!res->rtt)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	st = share_schedule(u, o, res, &p, &np, &nrounds, &nsteps, err);
	if (st == IBF_UCX_OK)
		st = run_rounds(u, o, p, np, nsteps, &mine, &nmine,
				&res->measure_s, err);
	res->nrounds = nrounds;
	res->nsteps = nsteps;
	if (st == IBF_UCX_OK)
		st = collect(u, p, np, mine, nmine, res, err);
	if (st == IBF_UCX_OK && u->rank == 0 && u->aware && np)
		st0 = solve(u, o, res, &e0);
	if (st == IBF_UCX_OK)
		st = share_result(u, st0, &e0, res, err);
	free(p);
	free(mine);
	if (st != IBF_UCX_OK)
		ibf_ucx_probe_result_free(res);
	return st;
}

void ibf_ucx_probe_result_free(ibf_ucx_probe_result_t *r)
{
	if (!r)
		return;
	free(r->meas);
	free(r->rtt);
	ibf_probe_plan_free(&r->plan);
	ibf_probe_solution_free(&r->solution);
	ibf_probe_health_free(&r->health);
	memset(r, 0, sizeof(*r));
}
