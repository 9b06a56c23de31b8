/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Accuracy of an inferred tree, as the paper measures it (section 5.1):
 * false positive and false negative answers to "do the paths A-B and C-D
 * share a link?" against the true topology, and predicted / measured RTT
 * ratios.
 *
 * Both answers come from hop metrics: in a tree the paths a-b and c-d
 * overlap by (ab + cd - min(ac + bd, ad + bc)) / 2 edges (0 when that is
 * negative), so one formula serves the inferred tree and the true fabric.
 * On a fat tree the hop metric between hosts is that of the tree of its
 * subtrees (hosts of a leaf, leaves of a pod, ...), which is all RTTs can
 * show; the answer is then about that tree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_internal.h"

#define NONE IBF_INFER_NONE
#define EXHAUSTIVE_MAX 10000000ULL

ibf_status_t ibf_infer_truth_hops(const ibf_fabric_t *f,
				  const ibf_port_id_t *hosts, uint32_t n,
				  uint32_t *out, ibf_err_t *err)
{
	uint32_t *d = malloc(f->nnodes * sizeof(*d));
	uint32_t *q = malloc(f->nnodes * sizeof(*q));
	uint32_t a, b;

	if (!d || !q) {
		free(d);
		free(q);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (a = 0; a < n; a++) {
		ibf_port_id_t pa = hosts[a];
		uint32_t qh = 0, qt = 0, v, s;

		if (pa >= f->nports || f->ports[pa].peer == IBF_NO_ID) {
			free(d);
			free(q);
			return ibf_err_set(err, IBF_ERR_INVALID, "host %u is "
					   "not a connected port", a);
		}
		for (v = 0; v < f->nnodes; v++)
			d[v] = NONE;
		/* From the node behind the host's port; switches forward,
		 * CAs do not. */
		s = f->ports[f->ports[pa].peer].node;
		d[s] = 1;
		q[qt++] = s;
		while (qh < qt) {
			uint32_t p;

			v = q[qh++];
			if (!ibf_node_is_switch(f, v))
				continue;
			for (p = 1; p <= ibf_node(f, v)->nports; p++) {
				ibf_port_id_t peer = ibf_node_port(f, v, p)->peer;
				uint32_t m;

				if (peer == IBF_NO_ID)
					continue;
				m = f->ports[peer].node;
				if (d[m] == NONE) {
					d[m] = d[v] + 1;
					q[qt++] = m;
				}
			}
		}
		for (b = 0; b < n; b++) {
			uint32_t m = f->ports[f->ports[hosts[b]].peer].node;

			out[(size_t)a * n + b] = a == b ? 0 :
				d[m] == NONE ? NONE : d[m] + 1;
		}
	}
	free(d);
	free(q);
	return IBF_OK;
}

/* Do the paths a-b and c-d share a link, by the hop metric h?  In a tree
 * they overlap by (ab + cd - min(ac + bd, ad + bc)) / 2 edges when that
 * is positive: with c next to a and d next to b, ab + cd runs twice
 * over the common part that ac + bd avoids. */
static bool shares(const uint32_t *h, uint32_t n, uint32_t a, uint32_t b,
		   uint32_t c, uint32_t d)
{
	int64_t x = (int64_t)h[(size_t)a * n + c] + h[(size_t)b * n + d];
	int64_t y = (int64_t)h[(size_t)a * n + d] + h[(size_t)b * n + c];

	return (int64_t)h[(size_t)a * n + b] + h[(size_t)c * n + d] -
	       (x < y ? x : y) >= 2;
}

static void query(const uint32_t *truth, const uint32_t *mine, uint32_t n,
		  uint32_t a, uint32_t b, uint32_t c, uint32_t d,
		  ibf_infer_accuracy_t *o)
{
	bool t = shares(truth, n, a, b, c, d), m = shares(mine, n, a, b, c, d);

	o->queries++;
	o->shared += t;
	o->false_pos += m && !t;
	o->false_neg += t && !m;
}

static void shared_links(const uint32_t *truth, const uint32_t *mine,
			 uint32_t n, uint64_t queries, uint64_t seed,
			 ibf_infer_accuracy_t *o)
{
	double all = (double)n * (n - 1) * (n - 2) * (n - 3) / 8;
	ibf_rng_t r = { seed };
	uint32_t a, b, c, d;

	if (n < 4)
		return;
	if (all <= (double)EXHAUSTIVE_MAX) {
		o->exhaustive = true;
		for (a = 0; a < n; a++)
			for (b = a + 1; b < n; b++)
				for (c = b + 1; c < n; c++)
					for (d = c + 1; d < n; d++) {
						query(truth, mine, n, a, b, c,
						      d, o);
						query(truth, mine, n, a, c, b,
						      d, o);
						query(truth, mine, n, a, d, b,
						      c, o);
					}
		return;
	}
	if (!queries)
		queries = 100000;
	while (o->queries < queries) {
		a = (uint32_t)ibf_rng_below(&r, n);
		b = (uint32_t)ibf_rng_below(&r, n);
		c = (uint32_t)ibf_rng_below(&r, n);
		d = (uint32_t)ibf_rng_below(&r, n);
		if (a == b || a == c || a == d || b == c || b == d || c == d)
			continue;
		query(truth, mine, n, a, b, c, d, o);
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double quantile(const double *v, uint64_t n, double q)
{
	return v[(uint64_t)floor(q * (double)(n - 1) + 0.5)];
}

static ibf_status_t ratios(const ibf_infer_tree_t *t, const double *meas,
			   ibf_infer_accuracy_t *o, ibf_err_t *err)
{
	uint32_t n = t->nhosts, a, b;
	double *pred = malloc((size_t)n * n * sizeof(*pred));
	double *r = malloc((size_t)n * n * sizeof(*r));
	ibf_status_t st;

	if (!pred || !r) {
		free(pred);
		free(r);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if ((st = ibf_infer_tree_rtts(t, pred, err)) == IBF_OK) {
		for (a = 0; a < n; a++)
			for (b = a + 1; b < n; b++) {
				double m = meas[(size_t)a * n + b];

				if (m > 0 && isfinite(m))
					r[o->ratio_pairs++] =
						pred[(size_t)a * n + b] / m;
			}
		if (o->ratio_pairs) {
			qsort(r, o->ratio_pairs, sizeof(*r), cmp_double);
			o->ratio_min = r[0];
			o->ratio_p05 = quantile(r, o->ratio_pairs, 0.05);
			o->ratio_median = quantile(r, o->ratio_pairs, 0.5);
			o->ratio_p95 = quantile(r, o->ratio_pairs, 0.95);
			o->ratio_max = r[o->ratio_pairs - 1];
		}
	}
	free(pred);
	free(r);
	return st;
}

ibf_status_t ibf_infer_accuracy(const ibf_infer_tree_t *t,
				const uint32_t *true_hops,
				const double *measured, uint64_t queries,
				uint64_t seed, ibf_infer_accuracy_t *out,
				ibf_err_t *err)
{
	uint32_t n = t->nhosts, *mine;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	if (true_hops) {
		mine = malloc((size_t)n * n * sizeof(*mine));
		if (!mine)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		st = ibf_infer_tree_hops(t, mine, err);
		if (st == IBF_OK)
			shared_links(true_hops, mine, n, queries, seed, out);
		free(mine);
		if (st != IBF_OK)
			return st;
	}
	return measured ? ratios(t, measured, out, err) : IBF_OK;
}
