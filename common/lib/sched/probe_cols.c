/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The columns (unknowns) of probe planning and solving, the vector of a
 * host pair over them, and the order in which they are eliminated
 * (probe_internal.h; docs/probe.md#model).
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE

/* ---- columns and vectors ------------------------------------------------ */

ibf_status_t ibf_probe_cols_init(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 ibf_probe_model_t model,
				 ibf_probe_cols_t *c, ibf_err_t *err)
{
	uint32_t i, nc = 0;
	ibf_port_id_t p;

	memset(c, 0, sizeof(*c));
	if (model != IBF_PROBE_DIRECTED && model != IBF_PROBE_SYMMETRIC)
		return ibf_err_set(err, IBF_ERR_INVALID, "unknown probe "
				   "model %d", (int)model);
	c->model = model;
	c->port_col = malloc((size_t)f->nports * sizeof(*c->port_col));
	c->col_port = malloc((size_t)f->nports * sizeof(*c->col_port));
	if (!c->port_col || !c->col_port) {
		ibf_probe_cols_free(c);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (p = 0; p < f->nports; p++)
		c->port_col[p] = NONE;
	for (i = 0; i < h->n; i++) {
		p = h->ports[i];
		c->port_col[p] = nc;
		if (f->ports[p].peer != IBF_NO_ID)
			c->port_col[f->ports[p].peer] = nc;
		c->col_port[nc++] = p;
	}
	c->nhostcols = nc;
	for (p = 0; p < f->nports; p++)
		if (c->port_col[p] == NONE && f->ports[p].peer != IBF_NO_ID) {
			c->port_col[p] = nc;
			if (model == IBF_PROBE_SYMMETRIC)
				c->port_col[f->ports[p].peer] = nc;
			c->col_port[nc++] = p;
		}
	c->ncols = nc;
	return IBF_OK;
}

void ibf_probe_cols_free(ibf_probe_cols_t *c)
{
	free(c->port_col);
	free(c->col_port);
	memset(c, 0, sizeof(*c));
}

static ibf_status_t leg(const ibf_lfts_t *l, ibf_port_id_t a, ibf_port_id_t b,
			ibf_port_id_t *out, unsigned *n, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned dlid = f->ports[b].lid;
	ibf_trace_result_t r;
	unsigned nh = 0;

	r = ibf_trace(l, a, dlid, out, IBF_PROBE_MAX_HOPS, &nh);
	if (r != IBF_TRACE_OK || nh > IBF_PROBE_MAX_HOPS) {
		char ba[64], bb[64];

		return ibf_err_set(err, IBF_ERR_INVALID,
				   "route %s -> %s (LID %u): %s",
				   ibf_port_host_name(f, a, ba, sizeof(ba)),
				   ibf_port_host_name(f, b, bb, sizeof(bb)),
				   dlid, r == IBF_TRACE_OK ? "too long" :
				   ibf_trace_result_str(r));
	}
	*n = nh;
	return IBF_OK;
}

ibf_status_t ibf_probe_pair_links(const ibf_lfts_t *l, ibf_port_id_t a,
				  ibf_port_id_t b, ibf_port_id_t *links,
				  unsigned max, unsigned *n, ibf_err_t *err)
{
	ibf_port_id_t buf[2 * IBF_PROBE_MAX_HOPS];
	unsigned n1, n2;
	ibf_status_t st;

	if ((st = leg(l, a, b, buf, &n1, err)) != IBF_OK ||
	    (st = leg(l, b, a, buf + n1, &n2, err)) != IBF_OK)
		return st;
	if (n1 + n2 > max)
		return ibf_err_set(err, IBF_ERR_RANGE, "path too long");
	memcpy(links, buf, (n1 + n2) * sizeof(*buf));
	*n = n1 + n2;
	return IBF_OK;
}

ibf_status_t ibf_probe_vec_make(const ibf_lfts_t *l, ibf_probe_cols_t *c,
				ibf_port_id_t a, ibf_port_id_t b,
				ibf_probe_vec_t *v, ibf_err_t *err)
{
	unsigned i, j, k, n;
	ibf_status_t st;

	st = ibf_probe_pair_links(l, a, b, v->links, 2 * IBF_PROBE_MAX_HOPS,
				  &v->nlinks, err);
	if (st != IBF_OK)
		return st;
	/* Few entries: insertion sort by column, then merge equal ones. */
	n = 0;
	for (i = 0; i < v->nlinks; i++) {
		uint32_t col = c->port_col[v->links[i]];

		for (j = 0; j < n && v->col[j] < col; j++)
			;
		if (j < n && v->col[j] == col) {
			v->val[j]++;
			continue;
		}
		for (k = n; k > j; k--) {
			v->col[k] = v->col[k - 1];
			v->val[k] = v->val[k - 1];
		}
		v->col[j] = col;
		v->val[j] = 1;
		n++;
	}
	/* Host columns (directed): injection and ejection once each = 1 x
	 * their sum. */
	for (j = 0; j < n && ibf_probe_cols_halved(c, v->col[j]); j++)
		v->val[j] /= 2;
	v->n = n;
	return IBF_OK;
}


/* v with its columns renamed to elimination positions (ibf_probe_col_order()),
 * sorted again; the echelon form works on positions throughout. */
const ibf_probe_vec_t *ibf_probe_vec_permute(const uint32_t *perm,
					     const ibf_probe_vec_t *v,
					     ibf_probe_vec_t *w)
{
	unsigned i, j;

	for (i = 0; i < v->n; i++) {
		uint32_t pc = perm[v->col[i]];

		for (j = i; j > 0 && w->col[j - 1] > pc; j--) {
			w->col[j] = w->col[j - 1];
			w->val[j] = w->val[j - 1];
		}
		w->col[j] = pc;
		w->val[j] = v->val[i];
	}
	w->n = v->n;
	w->nlinks = 0;
	return w;
}

/* Elimination order.  Columns are eliminated by level, top first: a link
 * between levels l and l+1 (level = hops to the nearest host) before any
 * link lower down, down links before up links, host columns last.  On
 * fat trees a pair vector then meets its NCA's links first, and rows
 * reduced against older pivots stay short (about 8 entries on the
 * 3,456-host tree against 38 with host columns first), so reductions
 * walk short chains.  perm[col] = position. */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int ibf_probe_col_order(const ibf_fabric_t *f, const ibf_probe_cols_t *cols,
			uint32_t *perm)
{
	uint32_t nc = cols->ncols, c, *lev, *q, qh = 0, qt = 0, u;
	uint64_t *key;
	const uint64_t cmask = (1ull << 39) - 1;

	key = malloc(nc * sizeof(*key));
	lev = malloc(f->nnodes * sizeof(*lev));
	q = malloc(f->nnodes * sizeof(*q));
	if (!key || !lev || !q) {
		free(key);
		free(lev);
		free(q);
		return -1;
	}
	/* Breadth-first from the hosts. */
	for (u = 0; u < f->nnodes; u++) {
		lev[u] = UINT32_MAX;
		if (!ibf_node_is_switch(f, u)) {
			lev[u] = 0;
			q[qt++] = u;
		}
	}
	while (qh < qt) {
		const ibf_node_t *nd = &f->nodes[q[qh]];
		unsigned k;

		for (k = 1; k <= nd->nports; k++) {
			ibf_port_id_t pp = f->ports[nd->first_port + k].peer;
			ibf_node_id_t v;

			if (pp == IBF_NO_ID)
				continue;
			v = f->ports[pp].node;
			if (lev[v] == UINT32_MAX) {
				lev[v] = lev[q[qh]] + 1;
				q[qt++] = v;
			}
		}
		qh++;
	}
	for (c = 0; c < nc; c++) {
		ibf_port_id_t p = cols->col_port[c];
		uint32_t lu = lev[f->ports[p].node];
		uint32_t lv = lev[f->ports[f->ports[p].peer].node];
		uint64_t lo = lu < lv ? lu : lv, up = lv > lu;

		if (c < cols->nhostcols || lo > 1000)
			lo = 0;
		key[c] = ((1023 - lo) << 40) | (up << 39) | c;
	}
	qsort(key, nc, sizeof(*key), cmp_u64);
	for (c = 0; c < nc; c++)
		perm[key[c] & cmask] = c;
	free(key);
	free(lev);
	free(q);
	return 0;
}

