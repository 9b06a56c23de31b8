/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Predecessor lists of a schedule (ibflow/liquid.h): what lets a runtime
 * or a simulator run the frames without a barrier between them and still
 * never put two transfers on one link at once.
 *
 * On each link, the transfers that use it form a chain in frame order (a
 * frame uses a link at most once); a transfer may start once, on each of
 * its links, the previous transfer of that chain has arrived.  The lists
 * keep one entry per distinct predecessor, and drop a predecessor that is
 * already a predecessor of another one: it has arrived before that one
 * could even start, so waiting for it again would cost a release message
 * and buy nothing.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/liquid.h>

#include "base/array.h"

#define NONE UINT32_MAX

/* While the frames are walked, lists are appended in frame order. */
typedef struct deps_build {
	uint32_t *beg, *len;   /* [ntransfers] into buf */
	uint32_t *buf, fill;   /* room for one entry per (transfer, link) */
	uint32_t *last;        /* [nlinks] the link's latest user */
	uint32_t *first;       /* [nlinks] its first user */
	uint32_t *cand;        /* [longest path] */
} deps_build_t;

void ibf_liquid_deps_free(ibf_liquid_deps_t *d)
{
	if (!d)
		return;
	free(d->pred_off);
	free(d->pred);
	free(d->succ_off);
	free(d->succ);
	free(d->xpred_off);
	free(d->xpred);
	free(d->xsucc_off);
	free(d->xsucc);
	memset(d, 0, sizeof(*d));
}

static bool has_pred(const deps_build_t *b, uint32_t t, uint32_t p)
{
	return bsearch(&p, b->buf + b->beg[t], b->len[t], sizeof(p),
		       ibf_cmp_u32) != NULL;
}

/* Transfers in frame order (stable within a frame). */
static uint32_t *frame_order(const ibf_liquid_traffic_t *t,
			     const uint32_t *frame_of, uint32_t nframes)
{
	uint32_t *start = calloc((size_t)nframes + 1, sizeof(*start));
	uint32_t *order = malloc(((size_t)t->ntransfers + 1) *
				 sizeof(*order));

	if (!start || !order) {
		free(start);
		free(order);
		return NULL;
	}
	for (uint32_t i = 0; i < t->ntransfers; i++)
		start[frame_of[i] + 1]++;
	for (uint32_t f = 0; f < nframes; f++)
		start[f + 1] += start[f];
	for (uint32_t i = 0; i < t->ntransfers; i++)
		order[start[frame_of[i]]++] = i;
	free(start);
	return order;
}

/* tr's list: the distinct latest users of its links, minus those already
 * on the list of another of them. */
static void collect(const ibf_liquid_traffic_t *t, deps_build_t *b,
		    uint32_t tr)
{
	uint32_t n = 0, *out = b->buf + b->fill;

	for (uint32_t k = t->link_off[tr]; k < t->link_off[tr + 1]; k++)
		if (b->last[t->links[k]] != NONE)
			b->cand[n++] = b->last[t->links[k]];
	qsort(b->cand, n, sizeof(*b->cand), ibf_cmp_u32);
	b->beg[tr] = b->fill;
	b->len[tr] = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool implied = i > 0 && b->cand[i] == b->cand[i - 1];

		for (uint32_t j = 0; j < n && !implied; j++)
			implied = b->cand[j] != b->cand[i] &&
				  has_pred(b, b->cand[j], b->cand[i]);
		if (!implied)
			out[b->len[tr]++] = b->cand[i];
	}
	b->fill += b->len[tr];
}

/* Frame f's transfers become the latest users of their links. */
static ibf_status_t advance(const ibf_liquid_traffic_t *t,
			    const uint32_t *frame_of, deps_build_t *b,
			    const uint32_t *tr, uint32_t ntr, ibf_err_t *err)
{
	for (uint32_t j = 0; j < ntr; j++) {
		for (uint32_t k = t->link_off[tr[j]];
		     k < t->link_off[tr[j] + 1]; k++) {
			uint32_t *u = &b->last[t->links[k]];

			if (*u != NONE && frame_of[*u] == frame_of[tr[j]])
				return ibf_err_set(err, IBF_ERR_INVALID,
					"liquid dependencies: transfers %u "
					"and %u share a link in frame %u", *u,
					tr[j], frame_of[tr[j]]);
			if (*u == NONE)
				b->first[t->links[k]] = tr[j];
			*u = tr[j];
		}
	}
	return IBF_OK;
}

static ibf_status_t walk(const ibf_liquid_traffic_t *t,
			 const uint32_t *frame_of, const uint32_t *order,
			 deps_build_t *b, ibf_err_t *err)
{
	uint32_t n = t->ntransfers, i = 0, j;

	for (uint32_t l = 0; l < t->nlinks; l++)
		b->last[l] = NONE;
	for (; i < n; i = j) {
		for (j = i; j < n && frame_of[order[j]] ==
			    frame_of[order[i]]; j++)
			collect(t, b, order[j]);
		if (advance(t, frame_of, b, order + i, j - i, err) != IBF_OK)
			return IBF_ERR_INVALID;
	}
	return IBF_OK;
}

/* The inverse of a CSR relation over n transfers (m entries). */
static ibf_status_t invert(uint32_t n, const uint32_t *off,
			   const uint32_t *val, uint32_t **inv_off,
			   uint32_t **inv, ibf_err_t *err)
{
	uint32_t m = off[n], *io, *iv;

	io = calloc((size_t)n + 2, sizeof(*io));
	iv = malloc(((size_t)m + 1) * sizeof(*iv));
	if (!io || !iv) {
		free(io);
		free(iv);
		return ibf_err_set(err, IBF_ERR_NOMEM,
				   "liquid dependencies: out of memory");
	}
	/* counting sort: counts at [p + 2], starts at [p + 1] after the
	 * prefix sum, ends at [p + 1] after the fill */
	for (uint32_t k = 0; k < m; k++)
		io[val[k] + 2]++;
	for (uint32_t i = 0; i < n; i++)
		io[i + 2] += io[i + 1];
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = off[i]; k < off[i + 1]; k++)
			iv[io[val[k] + 1]++] = i;
	*inv_off = io;
	*inv = iv;
	return IBF_OK;
}

/* The lists in transfer order, and their inverse. */
static ibf_status_t store(const deps_build_t *b, ibf_liquid_deps_t *d,
			  ibf_err_t *err)
{
	uint32_t n = d->ntransfers, m = b->fill;

	d->pred_off = malloc(((size_t)n + 1) * sizeof(*d->pred_off));
	d->pred = malloc(((size_t)m + 1) * sizeof(*d->pred));
	if (!d->pred_off || !d->pred)
		return ibf_err_set(err, IBF_ERR_NOMEM,
				   "liquid dependencies: out of memory");
	d->pred_off[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(d->pred + d->pred_off[i], b->buf + b->beg[i],
		       (size_t)b->len[i] * sizeof(*d->pred));
		d->pred_off[i + 1] = d->pred_off[i] + b->len[i];
	}
	return invert(n, d->pred_off, d->pred, &d->succ_off, &d->succ, err);
}

/* After the walk, last[] holds each link's final user: a transfer's
 * cross-run predecessors are the final users of the links it opens. */
static ibf_status_t store_cross(const ibf_liquid_traffic_t *t,
				const deps_build_t *b, ibf_liquid_deps_t *d,
				ibf_err_t *err)
{
	uint32_t n = t->ntransfers, x = 0;

	d->xpred_off = malloc(((size_t)n + 1) * sizeof(*d->xpred_off));
	d->xpred = malloc(((size_t)t->link_off[n] + 1) * sizeof(*d->xpred));
	if (!d->xpred_off || !d->xpred)
		return ibf_err_set(err, IBF_ERR_NOMEM,
				   "liquid dependencies: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t from = x;

		d->xpred_off[i] = x;
		for (uint32_t k = t->link_off[i]; k < t->link_off[i + 1]; k++) {
			uint32_t l = t->links[k];

			if (b->first[l] == i)
				d->xpred[x++] = b->last[l];
		}
		x = from + ibf_sort_unique_u32(d->xpred + from, x - from);
	}
	d->xpred_off[n] = x;
	return invert(n, d->xpred_off, d->xpred, &d->xsucc_off, &d->xsucc,
		      err);
}

ibf_status_t ibf_liquid_deps_build(const ibf_liquid_traffic_t *t,
				   const uint32_t *frame_of,
				   uint32_t nframes, ibf_liquid_deps_t *d,
				   ibf_err_t *err)
{
	deps_build_t b = { 0 };
	uint32_t n = t->ntransfers, maxlen = 0, *order = NULL;
	ibf_status_t st;

	memset(d, 0, sizeof(*d));
	d->ntransfers = n;
	for (uint32_t i = 0; i < n; i++) {
		if (frame_of[i] >= nframes)
			return ibf_err_set(err, IBF_ERR_INVALID, "liquid "
					   "dependencies: transfer %u in "
					   "frame %u of %u", i, frame_of[i],
					   nframes);
		if (t->link_off[i + 1] - t->link_off[i] > maxlen)
			maxlen = t->link_off[i + 1] - t->link_off[i];
	}
	order = frame_order(t, frame_of, nframes);
	b.beg = malloc(((size_t)n + 1) * sizeof(*b.beg));
	b.len = malloc(((size_t)n + 1) * sizeof(*b.len));
	b.buf = malloc(((size_t)t->link_off[n] + 1) * sizeof(*b.buf));
	b.last = malloc(((size_t)t->nlinks + 1) * sizeof(*b.last));
	b.first = malloc(((size_t)t->nlinks + 1) * sizeof(*b.first));
	b.cand = malloc(((size_t)maxlen + 1) * sizeof(*b.cand));
	if (!order || !b.beg || !b.len || !b.buf || !b.last || !b.first ||
	    !b.cand)
		st = ibf_err_set(err, IBF_ERR_NOMEM,
				 "liquid dependencies: out of memory");
	else
		st = walk(t, frame_of, order, &b, err);
	if (st == IBF_OK)
		st = store(&b, d, err);
	if (st == IBF_OK)
		st = store_cross(t, &b, d, err);
	if (st != IBF_OK)
		ibf_liquid_deps_free(d);
	free(order);
	free(b.beg);
	free(b.len);
	free(b.buf);
	free(b.last);
	free(b.first);
	free(b.cand);
	return st;
}
