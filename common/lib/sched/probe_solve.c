/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * From measured RTTs to link latencies and the RTT of every host pair.
 *
 * Which measurements are independent, and which pairs they determine, is
 * decided exactly (modulo p, see probe_plan.c).  The numbers are then
 * computed in double precision along the same pivots: an echelon form of
 * the independent measurements, free columns set to 0 (as in the paper),
 * back substitution; when there are more measurements than the rank, the
 * fit is refined to least squares by CGLS from that start.  The row
 * canonical form of the echelon gives the aggregated links: each row is a
 * combination of links whose latency the measurements determine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sched/probe_internal.h"

/* ---- sparse rows in double precision -------------------------------------- */

struct drows {
	uint64_t *off;
	uint32_t *len;
	uint32_t *ecol;
	double *eval;
	double *rhs;
	uint32_t n;
	uint64_t elen;
	size_t ecap;
};

static int drows_push(struct drows *d, const uint32_t *cols,
		      const double *vals, uint32_t len, double rhs,
		      uint32_t maxrows)
{
	void *const ents[] = { &d->ecol, &d->eval };
	const size_t esz[] = { sizeof(*d->ecol), sizeof(*d->eval) };
	uint32_t k;

	if (!d->off) {
		d->off = malloc((maxrows + 1) * sizeof(*d->off));
		d->len = malloc((maxrows + 1) * sizeof(*d->len));
		d->rhs = malloc((maxrows + 1) * sizeof(*d->rhs));
		if (!d->off || !d->len || !d->rhs)
			return -1;
	}
	if (ibf_array_grow_par(&d->ecap, d->elen + len, 2, ents, esz) < 0)
		return -1;
	d->off[d->n] = d->elen;
	d->len[d->n] = len;
	d->rhs[d->n] = rhs;
	for (k = 0; k < len; k++) {
		d->ecol[d->elen + k] = cols[k];
		d->eval[d->elen + k] = vals[k];
	}
	d->elen += len;
	d->n++;
	return 0;
}

static void drows_free(struct drows *d)
{
	free(d->off);
	free(d->len);
	free(d->ecol);
	free(d->eval);
	free(d->rhs);
	memset(d, 0, sizeof(*d));
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

struct solver {
	const ibf_lfts_t *l;
	const ibf_hostlist_t *h;
	ibf_probe_cols_t cols;
	ibf_probe_ech_t ech;
	uint32_t ncols;
	/* Measurement rows (all of them). */
	struct drows meas;
	/* Echelon in doubles: row k has pivot pivcol[k]; rowof[col]. */
	struct drows ech_d;
	uint32_t *pivcol, *rowof;
	/* Dense work. */
	double *w;
	uint8_t *touched;
	uint32_t *tlist;
	double *beta;
};

/* Reduce measurement row i along the exact pivots; the new row's pivot is
 * the one the exact elimination chose (pc).  Entries that are exactly zero
 * mod p but rounding noise here are dropped by construction: only columns
 * at or after pc are kept. */
static int reduce_double(struct solver *s, uint32_t i, uint32_t pc)
{
	const struct drows *m = &s->meas;
	uint32_t nt = 0, k, j, *cols;
	double rhs = m->rhs[i], piv, *vals;
	int rc;

	for (k = 0; k < m->len[i]; k++) {
		uint32_t c = m->ecol[m->off[i] + k];

		s->w[c] += m->eval[m->off[i] + k];
		if (!s->touched[c]) {
			s->touched[c] = 1;
			s->tlist[nt++] = c;
		}
	}
	/* Columns in increasing order; subtracting a pivot row only adds
	 * columns beyond its pivot, so one sorted sweep with insertions
	 * suffices: re-sort when new columns appear. */
	qsort(s->tlist, nt, sizeof(*s->tlist), cmp_u32);
	for (k = 0; k < nt; k++) {
		uint32_t c = s->tlist[k], r = s->rowof[c];
		const struct drows *e = &s->ech_d;
		double f = s->w[c];
		bool grew = false;

		if (r == IBF_PROBE_NONE || c >= pc || f == 0)
			continue;
		for (j = 0; j < e->len[r]; j++) {
			uint32_t cc = e->ecol[e->off[r] + j];

			s->w[cc] -= f * e->eval[e->off[r] + j];
			if (!s->touched[cc]) {
				s->touched[cc] = 1;
				s->tlist[nt++] = cc;
				grew = true;
			}
		}
		rhs -= f * e->rhs[r];
		s->w[c] = 0;
		if (grew)
			qsort(s->tlist + k + 1, nt - k - 1,
			      sizeof(*s->tlist), cmp_u32);
	}
	piv = s->w[pc];
	cols = malloc((nt + 1) * sizeof(*cols));
	vals = malloc((nt + 1) * sizeof(*vals));
	if (!cols || !vals) {
		free(cols);
		free(vals);
		return -1;
	}
	j = 0;
	for (k = 0; k < nt; k++) {
		uint32_t c = s->tlist[k];

		if (c >= pc && s->w[c] != 0 &&
		    (c == pc || s->rowof[c] == IBF_PROBE_NONE ||
		     fabs(s->w[c] / piv) > 1e-13)) {
			cols[j] = c;
			vals[j++] = c == pc ? 1.0 : s->w[c] / piv;
		}
		s->w[c] = 0;
		s->touched[c] = 0;
	}
	rc = drows_push(&s->ech_d, cols, vals, j, rhs / piv, s->ncols);
	s->rowof[pc] = s->ech_d.n - 1;
	free(cols);
	free(vals);
	return rc;
}

/* beta: free columns 0, pivot columns by back substitution. */
static void back_substitute(struct solver *s)
{
	const struct drows *e = &s->ech_d;
	uint32_t c, k;

	memset(s->beta, 0, s->ncols * sizeof(*s->beta));
	for (c = s->ncols; c-- > 0;) {
		uint32_t r = s->rowof[c];
		double v;

		if (r == IBF_PROBE_NONE)
			continue;
		v = e->rhs[r];
		for (k = 1; k < e->len[r]; k++)
			v -= e->eval[e->off[r] + k] * s->beta[e->ecol[e->off[r] + k]];
		s->beta[c] = v;
	}
}

static double row_dot(const struct drows *m, uint32_t i, const double *x)
{
	double v = 0;
	uint32_t k;

	for (k = 0; k < m->len[i]; k++)
		v += m->eval[m->off[i] + k] * x[m->ecol[m->off[i] + k]];
	return v;
}

/* Least squares over all measurements by CGLS from the current beta (the
 * iterates stay in beta + row space, so the exact part is kept). */
static int cgls(struct solver *s)
{
	const struct drows *m = &s->meas;
	uint32_t nc = s->ncols, i, k, it, maxit = 4 * nc + 100;
	double *r = malloc(m->n * sizeof(*r)), *q = malloc(m->n * sizeof(*q));
	double *sv = calloc(nc, sizeof(*sv)), *p = calloc(nc, sizeof(*p));
	double gamma = 0, g0;

	if (!r || !q || !sv || !p) {
		free(r), free(q), free(sv), free(p);
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		r[i] = m->rhs[i] - row_dot(m, i, s->beta);
		for (k = 0; k < m->len[i]; k++)
			sv[m->ecol[m->off[i] + k]] += m->eval[m->off[i] + k] *
						      r[i];
	}
	for (k = 0; k < nc; k++) {
		p[k] = sv[k];
		gamma += sv[k] * sv[k];
	}
	g0 = gamma;
	for (it = 0; it < maxit && gamma > 1e-30 * (g0 + 1e-300) &&
	     gamma > 1e-40; it++) {
		double qq = 0, alpha, gnew = 0;

		for (i = 0; i < m->n; i++) {
			q[i] = row_dot(m, i, p);
			qq += q[i] * q[i];
		}
		if (qq == 0)
			break;
		alpha = gamma / qq;
		for (k = 0; k < nc; k++)
			s->beta[k] += alpha * p[k];
		memset(sv, 0, nc * sizeof(*sv));
		for (i = 0; i < m->n; i++) {
			r[i] -= alpha * q[i];
			for (k = 0; k < m->len[i]; k++)
				sv[m->ecol[m->off[i] + k]] +=
					m->eval[m->off[i] + k] * r[i];
		}
		for (k = 0; k < nc; k++)
			gnew += sv[k] * sv[k];
		for (k = 0; k < nc; k++)
			p[k] = sv[k] + gnew / gamma * p[k];
		gamma = gnew;
	}
	free(r), free(q), free(sv), free(p);
	return 0;
}

/* Row canonical form: pivot rows, descending, made zero in the other
 * pivot columns.  Output straight into the solution's aggregated links. */
static int rcf(struct solver *s, ibf_probe_solution_t *out)
{
	const ibf_fabric_t *f = s->l->fabric;
	const struct drows *e = &s->ech_d;
	struct drows g = { 0 };
	uint32_t c, k, j, nt, nr = e->n, *gi, *cols, nlinks = 0, a;
	double *vals;
	int rc = 0;

	gi = malloc((s->ncols + 1) * sizeof(*gi));
	cols = malloc((s->ncols + 1) * sizeof(*cols));
	vals = malloc((s->ncols + 1) * sizeof(*vals));
	if (!gi || !cols || !vals) {
		rc = -1;
		goto out;
	}
	for (c = s->ncols; c-- > 0;) {
		uint32_t r = s->rowof[c];

		gi[c] = IBF_PROBE_NONE;
		if (r == IBF_PROBE_NONE)
			continue;
		nt = 0;
		for (k = 0; k < e->len[r]; k++) {
			uint32_t cc = e->ecol[e->off[r] + k];
			double v = e->eval[e->off[r] + k];

			if (cc != c && s->rowof[cc] != IBF_PROBE_NONE) {
				uint32_t gr = gi[cc];

				for (j = 0; j < g.len[gr]; j++) {
					uint32_t x = g.ecol[g.off[gr] + j];

					if (x == cc)
						continue;
					if (!s->touched[x]) {
						s->touched[x] = 1;
						s->tlist[nt++] = x;
					}
					s->w[x] -= v * g.eval[g.off[gr] + j];
				}
				continue;
			}
			if (!s->touched[cc]) {
				s->touched[cc] = 1;
				s->tlist[nt++] = cc;
			}
			s->w[cc] += v;
		}
		qsort(s->tlist, nt, sizeof(*s->tlist), cmp_u32);
		j = 0;
		for (k = 0; k < nt; k++) {
			uint32_t x = s->tlist[k];

			if (fabs(s->w[x]) > 1e-12) {
				cols[j] = x;
				vals[j++] = s->w[x];
			}
			s->w[x] = 0;
			s->touched[x] = 0;
		}
		if (drows_push(&g, cols, vals, j, 0, nr) < 0) {
			rc = -1;
			goto out;
		}
		gi[c] = g.n - 1;
	}
	/* Export in pivot order; a host column stands for two links in the
	 * directed model (in the symmetric one every column is one link,
	 * named by one of its egress ports). */
	for (k = 0; k < g.n; k++)
		for (j = 0; j < g.len[k]; j++)
			nlinks += 1 + ibf_probe_cols_halved(&s->cols,
					g.ecol[g.off[k] + j]);
	out->nagg = g.n;
	out->agg_start = malloc((g.n + 1) * sizeof(*out->agg_start));
	out->agg_links = malloc((nlinks + 1) * sizeof(*out->agg_links));
	out->agg_coef = malloc((nlinks + 1) * sizeof(*out->agg_coef));
	out->agg_latency = malloc((g.n + 1) * sizeof(*out->agg_latency));
	if (!out->agg_start || !out->agg_links || !out->agg_coef ||
	    !out->agg_latency) {
		rc = -1;
		goto out;
	}
	a = 0;
	out->nagg = 0;
	for (c = 0; c < s->ncols; c++) {
		uint32_t r = gi[c];
		double lat = 0;

		if (r == IBF_PROBE_NONE)
			continue;
		out->agg_start[out->nagg] = a;
		for (j = 0; j < g.len[r]; j++) {
			uint32_t col = g.ecol[g.off[r] + j];
			ibf_port_id_t p = s->cols.col_port[col];
			double v = g.eval[g.off[r] + j];

			lat += v * s->beta[col];
			out->agg_links[a] = p;
			out->agg_coef[a++] = v;
			if (ibf_probe_cols_halved(&s->cols, col) &&
			    f->ports[p].peer != IBF_NO_ID &&
			    s->cols.port_col[f->ports[p].peer] == col) {
				out->agg_links[a] = f->ports[p].peer;
				out->agg_coef[a++] = v;
			}
		}
		out->agg_latency[out->nagg++] = lat;
	}
	out->agg_start[out->nagg] = a;
out:
	free(gi);
	free(cols);
	free(vals);
	drows_free(&g);
	return rc;
}

static ibf_status_t predict(struct solver *s, ibf_probe_solution_t *out,
			    ibf_err_t *err)
{
	uint32_t n = s->h->n, a, b, k;
	uint8_t *live = malloc((size_t)n * n);
	ibf_port_id_t links[2 * IBF_PROBE_MAX_HOPS];
	ibf_status_t st;
	size_t idx = 0;

	if (!live)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = ibf_probe_outside_span(s->l, s->h, &s->cols, &s->ech, live, err);
	for (a = 0; st == IBF_OK && a < n; a++)
		for (b = a + 1; b < n; b++) {
			unsigned nl;
			double v = 0;

			if (live[(size_t)a * n + b]) {
				out->pair_rtt[idx++] = NAN;
				continue;
			}
			st = ibf_probe_pair_links(s->l, s->h->ports[a],
						  s->h->ports[b], links,
						  2 * IBF_PROBE_MAX_HOPS, &nl,
						  err);
			if (st != IBF_OK)
				break;
			for (k = 0; k < nl; k++) {
				uint32_t c = s->cols.port_col[links[k]];

				v += ibf_probe_cols_halved(&s->cols, c) ?
				     s->beta[c] / 2 : s->beta[c];
			}
			out->pair_rtt[idx++] = v;
		}
	free(live);
	return st;
}

static void solver_free(struct solver *s)
{
	ibf_probe_cols_free(&s->cols);
	ibf_probe_ech_free(&s->ech);
	drows_free(&s->meas);
	drows_free(&s->ech_d);
	free(s->pivcol);
	free(s->rowof);
	free(s->w);
	free(s->touched);
	free(s->tlist);
	free(s->beta);
}

static ibf_status_t load_rows(struct solver *s, const ibf_probe_meas_t *m,
			      uint32_t nm, ibf_err_t *err)
{
	ibf_probe_vec_t v;
	double vals[2 * IBF_PROBE_MAX_HOPS];
	uint32_t i, k;
	ibf_status_t st;

	for (i = 0; i < nm; i++) {
		int ind;

		st = ibf_probe_vec_make(s->l, &s->cols, s->h->ports[m[i].a],
					s->h->ports[m[i].b], &v, err);
		if (st != IBF_OK)
			return st;
		for (k = 0; k < v.n; k++)
			vals[k] = v.val[k];
		if (drows_push(&s->meas, v.col, vals, v.n, m[i].rtt, nm) < 0)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		ind = ibf_probe_ech_add(&s->ech, &v, true);
		if (ind < 0)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		if (ind == 1 &&
		    reduce_double(s, i, s->ech.ecol[s->ech.off[
				  s->ech.nrows - 1]]) < 0)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
	}
	return IBF_OK;
}

static ibf_status_t residuals(struct solver *s, const ibf_probe_meas_t *m,
			      uint32_t nm, double tol,
			      ibf_probe_solution_t *out)
{
	uint32_t i;
	double big = 0;

	for (i = 0; i < nm; i++)
		big = fmax(big, fabs(m[i].rtt));
	if (tol <= 0)
		tol = 1e-6 * (big > 0 ? big : 1);
	out->residual = malloc((nm + 1) * sizeof(*out->residual));
	out->flagged = malloc((nm + 1) * sizeof(*out->flagged));
	if (!out->residual || !out->flagged)
		return IBF_ERR_NOMEM;
	out->nmeas = nm;
	for (i = 0; i < nm; i++) {
		double r = m[i].rtt - row_dot(&s->meas, i, s->beta);

		out->residual[i] = r;
		out->residual_max = fmax(out->residual_max, fabs(r));
		if (fabs(r) > tol)
			out->flagged[out->nflagged++] = i;
	}
	return IBF_OK;
}

ibf_status_t ibf_probe_solve(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			     const ibf_probe_meas_t *m, uint32_t nm,
			     double tol, ibf_probe_solution_t *out,
			     ibf_err_t *err)
{
	return ibf_probe_solve_model(l, h, IBF_PROBE_DIRECTED, m, nm, tol, out,
				     err);
}

ibf_status_t ibf_probe_solve_model(const ibf_lfts_t *l,
				   const ibf_hostlist_t *h,
				   ibf_probe_model_t model,
				   const ibf_probe_meas_t *m, uint32_t nm,
				   double tol, ibf_probe_solution_t *out,
				   ibf_err_t *err)
{
	struct solver s;
	ibf_status_t st;
	uint32_t c, n = h->n;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	if (n < 2 || !nm)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "need 2 hosts and a measurement");
	s.l = l;
	s.h = h;
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &s.cols,
				      err)) != IBF_OK)
		return st;
	out->model = model;
	s.ncols = s.cols.ncols;
	s.rowof = malloc((s.ncols + 1) * sizeof(*s.rowof));
	s.w = calloc(s.ncols + 1, sizeof(*s.w));
	s.touched = calloc(s.ncols + 1, 1);
	s.tlist = malloc((s.ncols + 1) * sizeof(*s.tlist));
	s.beta = calloc(s.ncols + 1, sizeof(*s.beta));
	out->pair_rtt = malloc(((size_t)n * (n - 1) / 2 + 1) *
			       sizeof(*out->pair_rtt));
	if (!s.rowof || !s.w || !s.touched || !s.tlist || !s.beta ||
	    !out->pair_rtt || ibf_probe_ech_init(&s.ech, s.ncols) != IBF_OK) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (c = 0; c < s.ncols; c++)
		s.rowof[c] = IBF_PROBE_NONE;
	if ((st = load_rows(&s, m, nm, err)) != IBF_OK)
		goto fail;
	out->rank = s.ech.nrows;
	out->nhosts = n;
	back_substitute(&s);
	if (nm > out->rank && cgls(&s) < 0) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (rcf(&s, out) < 0 || residuals(&s, m, nm, tol, out) != IBF_OK) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((st = predict(&s, out, err)) != IBF_OK)
		goto fail;
	solver_free(&s);
	return IBF_OK;
fail:
	solver_free(&s);
	ibf_probe_solution_free(out);
	return st;
}

void ibf_probe_solution_free(ibf_probe_solution_t *s)
{
	free(s->agg_start);
	free(s->agg_links);
	free(s->agg_coef);
	free(s->agg_latency);
	free(s->pair_rtt);
	free(s->residual);
	free(s->flagged);
	memset(s, 0, sizeof(*s));
}
