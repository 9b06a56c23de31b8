/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Fabric health from a probe solution (PMM's "maintenance"): which solved
 * link latencies (or link sums) stand out from their peers.  See probe.h
 * for the rule and docs/probe.md for its use.
 *
 * The measurements that determine an aggregated link g are the weights w
 * with V^T w = g (V: the measured pairs' vectors over the solver's
 * columns, g: the row in the same columns; g lies in V's row space by
 * construction).  w is the minimum-norm solution, found by CGLS; it
 * gives the row's latency as a sum of RTTs, and its noise as the sum of
 * |w_j| times the measurements' median spread.  The median, not each
 * measurement's own spread: a slow link makes its measurements' runs
 * differ by as much as it delays them, and would otherwise raise the
 * scale of every peer whose weights touch them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/probe_internal.h"

#define HEALTH_THRESHOLD 5.0
#define HEALTH_MIN_PEERS 3
#define MAD_TO_SIGMA 1.4826
/* Rows x nonzeros beyond which weights (and so the propagated noise) are
 * computed for the suspects only: each row's CGLS costs a few passes
 * over all measurements. */
#define HEALTH_WEIGHT_BUDGET 2000000ull
/* CGLS passes per row at most; a row not resolved by then lists no
 * measurements (its noise stays the partial sum). */
#define HEALTH_MAX_ITER 2000u
/* Beyond the budget: suspects whose measurements are listed. */
#define HEALTH_MAX_WEIGHED 16
#define KIND_NAME_MAX 512

/* Sparse measurement rows over the solver's columns. */
struct vrows {
	uint32_t n, ncols;
	uint64_t *off;
	uint32_t *col;
	double *val;
};

static void vrows_free(struct vrows *v)
{
	free(v->off);
	free(v->col);
	free(v->val);
}

static ibf_status_t vrows_build(const ibf_lfts_t *l, const ibf_hostlist_t *h,
				ibf_probe_cols_t *c, const ibf_probe_meas_t *m,
				uint32_t nm, struct vrows *v, ibf_err_t *err)
{
	ibf_probe_vec_t pv;
	uint64_t cap = 0;
	uint32_t i, k;
	ibf_status_t st;

	memset(v, 0, sizeof(*v));
	v->ncols = c->ncols;
	v->off = malloc((nm + 1) * sizeof(*v->off));
	if (!v->off)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	v->off[0] = 0;
	for (i = 0; i < nm; i++) {
		st = ibf_probe_vec_make(l, c, h->ports[m[i].a],
					h->ports[m[i].b], &pv, err);
		if (st != IBF_OK)
			return st;
		if (v->off[i] + pv.n > cap) {
			uint64_t nc = (cap + pv.n) * 2;
			uint32_t *col = realloc(v->col, nc * sizeof(*col));
			double *val = col ? realloc(v->val, nc * sizeof(*val)) :
				      NULL;

			if (col)
				v->col = col;
			if (!val)
				return ibf_err_set(err, IBF_ERR_NOMEM,
						   "out of memory");
			v->val = val;
			cap = nc;
		}
		for (k = 0; k < pv.n; k++) {
			v->col[v->off[i] + k] = pv.col[k];
			v->val[v->off[i] + k] = pv.val[k];
		}
		v->off[i + 1] = v->off[i] + pv.n;
	}
	v->n = nm;
	return IBF_OK;
}

/* The solution's row i over the solver's columns (a host column of the
 * directed model is listed as its two links: count it once). */
static void row_vector(const ibf_probe_cols_t *c, const ibf_probe_solution_t *s,
		       uint32_t i, double *g)
{
	uint32_t k;

	for (k = s->agg_start[i]; k < s->agg_start[i + 1]; k++)
		g[c->port_col[s->agg_links[k]]] = s->agg_coef[k];
}

/* Minimum-norm w with V^T w = g, by CGLS from 0; w has v->n entries,
 * work 2 x ncols + 2 x n.  False when not resolved to 1e-9 of |g|. */
static bool weights(const struct vrows *v, const double *g, double *w,
		    double *work)
{
	double *r = work, *q = r + v->ncols, *sv = q + v->ncols,
	       *p = sv + v->n, gamma = 0, g0, gg = 0, rr = 0;
	uint32_t i, it, maxit = 4 * v->n + 100;
	uint64_t k;

	if (maxit > HEALTH_MAX_ITER)
		maxit = HEALTH_MAX_ITER;

	memcpy(r, g, v->ncols * sizeof(*r));
	memset(w, 0, v->n * sizeof(*w));
	for (i = 0; i < v->ncols; i++)
		gg += g[i] * g[i];
	for (i = 0; i < v->n; i++) {
		double x = 0;

		for (k = v->off[i]; k < v->off[i + 1]; k++)
			x += v->val[k] * r[v->col[k]];
		sv[i] = p[i] = x;
		gamma += x * x;
	}
	g0 = gamma;
	rr = gg;
	for (it = 0; it < maxit && gamma > 1e-28 * g0 && gamma > 0; it++) {
		double qq = 0, alpha, gnew = 0;

		memset(q, 0, v->ncols * sizeof(*q));
		for (i = 0; i < v->n; i++)
			for (k = v->off[i]; k < v->off[i + 1]; k++)
				q[v->col[k]] += v->val[k] * p[i];
		for (i = 0; i < v->ncols; i++)
			qq += q[i] * q[i];
		if (qq == 0)
			break;
		alpha = gamma / qq;
		for (i = 0; i < v->n; i++)
			w[i] += alpha * p[i];
		rr = 0;
		for (i = 0; i < v->ncols; i++) {
			r[i] -= alpha * q[i];
			rr += r[i] * r[i];
		}
		if (rr <= 1e-18 * gg)
			break;
		for (i = 0; i < v->n; i++) {
			double x = 0;

			for (k = v->off[i]; k < v->off[i + 1]; k++)
				x += v->val[k] * r[v->col[k]];
			sv[i] = x;
			gnew += x * x;
		}
		for (i = 0; i < v->n; i++)
			p[i] = sv[i] + gnew / gamma * p[i];
		gamma = gnew;
	}
	for (i = 0; i < v->n; i++)
		if (fabs(w[i]) < 1e-9)
			w[i] = 0;
	return rr <= 1e-18 * gg;
}

static double spread(const ibf_probe_meas_t *m)
{
	return isfinite(m->rtt_max) && m->rtt_max > m->rtt ?
	       m->rtt_max - m->rtt : 0;
}

/* Level of every node: hosts 0, a switch its distance to the nearest
 * host (BFS over the links). */
static uint32_t *node_levels(const ibf_fabric_t *f)
{
	uint32_t *lev = malloc((f->nnodes + 1) * sizeof(*lev));
	uint32_t *queue = malloc((f->nnodes + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, n, p;

	if (!lev || !queue) {
		free(lev);
		free(queue);
		return NULL;
	}
	for (n = 0; n < f->nnodes; n++) {
		lev[n] = UINT32_MAX;
		if (f->nodes[n].type != IBF_NODE_SWITCH) {
			lev[n] = 0;
			queue[tail++] = n;
		}
	}
	while (head < tail) {
		const ibf_node_t *nd = &f->nodes[queue[head]];
		uint32_t lv = lev[queue[head++]];

		for (p = 0; p <= nd->nports; p++) {
			ibf_port_id_t peer = f->ports[nd->first_port + p].peer;
			uint32_t o;

			if (peer == IBF_NO_ID)
				continue;
			o = f->ports[peer].node;
			if (lev[o] == UINT32_MAX) {
				lev[o] = lv + 1;
				queue[tail++] = o;
			}
		}
	}
	free(queue);
	return lev;
}

struct term {
	uint32_t from, to;
	double coef;
};

static int cmp_term(const void *x, const void *y)
{
	const struct term *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->coef < b->coef ? -1 : a->coef > b->coef;
}

static void level_name(uint32_t lv, char *buf, size_t len)
{
	if (lv == 0)
		snprintf(buf, len, "host");
	else if (lv == UINT32_MAX)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%u", lv);
}

/* "host>1 + 1>2", "2>1 - 1>2" (levels of each link's two ends, in a
 * canonical order; coefficients other than +-1 written). */
static void kind_of(const ibf_fabric_t *f, const uint32_t *lev,
		    const ibf_probe_solution_t *s, uint32_t i, char *buf,
		    size_t len)
{
	struct term t[2 * IBF_PROBE_MAX_HOPS];
	uint32_t k, n = 0;
	size_t o = 0;

	for (k = s->agg_start[i]; k < s->agg_start[i + 1] &&
	     n < 2 * IBF_PROBE_MAX_HOPS; k++) {
		ibf_port_id_t p = s->agg_links[k], q = f->ports[p].peer;

		t[n].from = lev[f->ports[p].node];
		t[n].to = q == IBF_NO_ID ? UINT32_MAX : lev[f->ports[q].node];
		t[n++].coef = s->agg_coef[k];
	}
	qsort(t, n, sizeof(*t), cmp_term);
	buf[0] = '\0';
	for (k = 0; k < n && o + 48 < len; k++) {
		char a[16], b[16], c[24] = "";
		double x = fabs(t[k].coef);

		level_name(t[k].from, a, sizeof(a));
		level_name(t[k].to, b, sizeof(b));
		if (fabs(x - 1) > 1e-9)
			snprintf(c, sizeof(c), "%g*", x);
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s>%s",
				      k == 0 ? (t[k].coef < 0 ? "-" : "") :
				      (t[k].coef < 0 ? " - " : " + "), c, a, b);
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Median of n values (sorted in place). */
static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the kinds ---------------------------------------------------------- */

static ibf_status_t assign_kinds(const ibf_fabric_t *f,
				 const ibf_probe_solution_t *s,
				 ibf_probe_health_t *out, ibf_err_t *err)
{
	uint32_t *lev = node_levels(f), i, k;
	char buf[KIND_NAME_MAX];

	out->kind = malloc((s->nagg + 1) * sizeof(*out->kind));
	out->kind_name = calloc(s->nagg + 1, sizeof(*out->kind_name));
	if (!lev || !out->kind || !out->kind_name) {
		free(lev);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < s->nagg; i++) {
		kind_of(f, lev, s, i, buf, sizeof(buf));
		for (k = 0; k < out->nkinds && strcmp(out->kind_name[k], buf);
		     k++)
			;
		if (k == out->nkinds &&
		    !(out->kind_name[out->nkinds++] = strdup(buf))) {
			free(lev);
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		}
		out->kind[i] = k;
	}
	free(lev);
	return IBF_OK;
}

/* ---- the rule ------------------------------------------------------------ */

struct judge {
	const ibf_probe_solution_t *s;
	const ibf_probe_health_opts_t *o;
	ibf_probe_health_t *h;
	double floor;
};

static double coef_sum(const ibf_probe_solution_t *s, uint32_t i)
{
	double x = 0;
	uint32_t k;

	for (k = s->agg_start[i]; k < s->agg_start[i + 1]; k++)
		x += s->agg_coef[k];
	return x;
}

/* Reference and scale of the rows of kind k. */
static ibf_status_t judge_kind(struct judge *j, uint32_t k, double *tmp,
			       ibf_err_t *err)
{
	const ibf_probe_solution_t *s = j->s;
	ibf_probe_health_t *h = j->h;
	double med, mad, noise, sc;
	uint32_t i, n = 0;

	for (i = 0; i < s->nagg; i++)
		if (h->kind[i] == k)
			tmp[n++] = s->agg_latency[i];
	if (j->o->expected_link > 0) {
		for (i = 0; i < s->nagg; i++)
			if (h->kind[i] == k) {
				h->reference[i] = j->o->expected_link *
						  coef_sum(s, i);
				h->scale[i] = fmax(h->noise[i], j->floor);
				h->njudged++;
			}
		return IBF_OK;
	}
	if (n < HEALTH_MIN_PEERS)
		return IBF_OK;
	med = median(tmp, n);
	n = 0;
	for (i = 0; i < s->nagg; i++)
		if (h->kind[i] == k)
			tmp[n++] = fabs(s->agg_latency[i] - med);
	mad = median(tmp, n);
	n = 0;
	for (i = 0; i < s->nagg; i++)
		if (h->kind[i] == k)
			tmp[n++] = h->noise[i];
	noise = median(tmp, n);
	sc = fmax(fmax(MAD_TO_SIGMA * mad, noise), j->floor);
	for (i = 0; i < s->nagg; i++)
		if (h->kind[i] == k) {
			h->reference[i] = med;
			h->scale[i] = sc;
			h->njudged++;
		}
	(void)err;
	return IBF_OK;
}

/* The row's weights (all computed) were resolved. */
static bool h_resolved_w(const double *wall, uint32_t n, uint32_t row)
{
	return !isnan(wall[(size_t)row * n]);
}

static int cmp_suspect(const void *x, const void *y)
{
	const ibf_probe_suspect_t *a = x, *b = y;
	double ra = a->excess / a->scale, rb = b->excess / b->scale;

	return ra > rb ? -1 : ra < rb;
}

/* A suspect's measurements: the nonzero weights of wi. */
static int keep_weights(ibf_probe_suspect_t *x, const double *wi, uint32_t n)
{
	uint32_t k, nz = 0;

	for (k = 0; k < n; k++)
		nz += wi[k] != 0;
	x->meas = malloc((nz + 1) * sizeof(*x->meas));
	x->weight = malloc((nz + 1) * sizeof(*x->weight));
	if (!x->meas || !x->weight)
		return -1;
	for (k = 0; k < n; k++)
		if (wi[k] != 0) {
			x->meas[x->nmeas] = k;
			x->weight[x->nmeas++] = wi[k];
		}
	return 0;
}

/* The suspects, largest excess over scale first, with their weights
 * (computed here when not yet: for the first HEALTH_MAX_WEIGHED). */
static ibf_status_t list_suspects(struct judge *j, const ibf_probe_cols_t *c,
				  const struct vrows *v, const double *wall,
				  ibf_err_t *err)
{
	const ibf_probe_solution_t *s = j->s;
	ibf_probe_health_t *h = j->h;
	double *g = NULL, *w = NULL, *work = NULL;
	uint32_t i;

	h->suspects = calloc(s->nagg + 1, sizeof(*h->suspects));
	g = calloc(c->ncols + 1, sizeof(*g));
	w = malloc((v->n + 1) * sizeof(*w));
	work = malloc((2 * (size_t)c->ncols + 2 * v->n + 1) * sizeof(*work));
	if (!h->suspects || !g || !w || !work)
		goto nomem;
	for (i = 0; i < s->nagg; i++) {
		ibf_probe_suspect_t *x;

		if (isnan(h->reference[i]) ||
		    s->agg_latency[i] - h->reference[i] <=
		    j->h->threshold * h->scale[i])
			continue;
		x = &h->suspects[h->nsuspects++];
		x->agg = i;
		x->latency = s->agg_latency[i];
		x->reference = h->reference[i];
		x->excess = x->latency - x->reference;
		x->scale = h->scale[i];
	}
	qsort(h->suspects, h->nsuspects, sizeof(*h->suspects), cmp_suspect);
	for (i = 0; i < h->nsuspects; i++) {
		ibf_probe_suspect_t *x = &h->suspects[i];
		const double *wi = w;

		if (wall) {
			if (!h_resolved_w(wall, v->n, x->agg))
				continue;
			wi = wall + (size_t)x->agg * v->n;
		} else if (i < HEALTH_MAX_WEIGHED) {
			bool ok;

			row_vector(c, s, x->agg, g);
			ok = weights(v, g, w, work);
			memset(g, 0, c->ncols * sizeof(*g));
			if (!ok)
				continue;
		} else {
			continue;
		}
		if (keep_weights(x, wi, v->n) < 0)
			goto nomem;
	}
	free(g);
	free(w);
	free(work);
	return IBF_OK;
nomem:
	free(g);
	free(w);
	free(work);
	return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
}

/* Every row's weights (NULL when over the budget) and its noise. */
static ibf_status_t all_weights(const ibf_probe_cols_t *c,
				const struct vrows *v,
				const ibf_probe_solution_t *s, uint64_t budget,
				ibf_probe_health_t *h, double **wall,
				ibf_err_t *err)
{
	double *g, *work, *w;
	uint32_t i, k;

	*wall = NULL;
	if ((uint64_t)s->nagg * (v->off[v->n] + 1) > budget)
		return IBF_OK;
	w = malloc(((size_t)s->nagg * v->n + 1) * sizeof(*w));
	g = calloc(c->ncols + 1, sizeof(*g));
	work = malloc((2 * (size_t)c->ncols + 2 * v->n + 1) * sizeof(*work));
	if (!w || !g || !work) {
		free(w);
		free(g);
		free(work);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < s->nagg; i++) {
		double *wi = w + (size_t)i * v->n;

		row_vector(c, s, i, g);
		if (!weights(v, g, wi, work))
			wi[0] = NAN; /* unresolved: its measurements unlisted */
		memset(g, 0, c->ncols * sizeof(*g));
		for (k = 0; k < v->n && !isnan(wi[0]); k++)
			h->noise[i] += fabs(wi[k]) * h->noise_median;
	}
	free(g);
	free(work);
	*wall = w;
	return IBF_OK;
}

static double noise_median(const ibf_probe_meas_t *m, uint32_t nm)
{
	double *v = malloc((nm + 1) * sizeof(*v)), x;
	uint32_t i;

	if (!v || !nm) {
		free(v);
		return 0;
	}
	for (i = 0; i < nm; i++)
		v[i] = spread(&m[i]);
	x = median(v, nm);
	free(v);
	return x;
}

ibf_status_t ibf_probe_health(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      const ibf_probe_meas_t *m, uint32_t nm,
			      const ibf_probe_solution_t *s,
			      const ibf_probe_health_opts_t *o,
			      ibf_probe_health_t *out, ibf_err_t *err)
{
	static const ibf_probe_health_opts_t defaults = { 0, 0, 0 };
	ibf_probe_cols_t cols;
	struct vrows v;
	struct judge j;
	double *wall = NULL, *tmp = NULL, big = 0;
	uint32_t i, k;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	memset(&v, 0, sizeof(v));
	if (!o)
		o = &defaults;
	out->nagg = s->nagg;
	out->threshold = o->threshold > 0 ? o->threshold : HEALTH_THRESHOLD;
	out->noise_median = noise_median(m, nm);
	if ((st = ibf_probe_cols_init(l->fabric, h, s->model, &cols, err)) !=
	    IBF_OK)
		return st;
	out->reference = malloc((s->nagg + 1) * sizeof(*out->reference));
	out->scale = calloc(s->nagg + 1, sizeof(*out->scale));
	out->noise = calloc(s->nagg + 1, sizeof(*out->noise));
	tmp = malloc((s->nagg + 1) * sizeof(*tmp));
	if (!out->reference || !out->scale || !out->noise || !tmp) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < s->nagg; i++) {
		out->reference[i] = NAN;
		big = fmax(big, fabs(s->agg_latency[i]));
	}
	if ((st = assign_kinds(l->fabric, s, out, err)) != IBF_OK ||
	    (st = vrows_build(l, h, &cols, m, nm, &v, err)) != IBF_OK ||
	    (st = all_weights(&cols, &v, s, o->weight_budget ?
				o->weight_budget : HEALTH_WEIGHT_BUDGET, out,
				&wall, err)) != IBF_OK)
		goto out;
	j = (struct judge){ s, o, out, 1e-6 * (big > 0 ? big : 1) };
	for (k = 0; k < out->nkinds; k++)
		if ((st = judge_kind(&j, k, tmp, err)) != IBF_OK)
			goto out;
	st = list_suspects(&j, &cols, &v, wall, err);
out:
	free(wall);
	free(tmp);
	vrows_free(&v);
	ibf_probe_cols_free(&cols);
	if (st != IBF_OK)
		ibf_probe_health_free(out);
	return st;
}

void ibf_probe_health_free(ibf_probe_health_t *hl)
{
	uint32_t i;

	for (i = 0; i < hl->nsuspects; i++) {
		free(hl->suspects[i].meas);
		free(hl->suspects[i].weight);
	}
	for (i = 0; hl->kind_name && i < hl->nkinds; i++)
		free(hl->kind_name[i]);
	free(hl->kind_name);
	free(hl->suspects);
	free(hl->kind);
	free(hl->reference);
	free(hl->scale);
	free(hl->noise);
	memset(hl, 0, sizeof(*hl));
}
