/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The incremental sparse echelon form modulo p = 2^31 - 1 behind probe
 * planning and solving (probe_internal.h): rows are only ever appended,
 * so the rows added since a checkpoint can be taken back (truncate).
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE
#define P IBF_PROBE_PRIME

/* ---- echelon form mod p -------------------------------------------------- */

#define mulmod ibf_probe_mulmod

static uint32_t invmod(uint32_t a)
{
	uint32_t r = 1, e = P - 2;

	while (e) {
		if (e & 1)
			r = mulmod(r, a);
		a = mulmod(a, a);
		e >>= 1;
	}
	return r;
}

ibf_status_t ibf_probe_ech_init(ibf_probe_ech_t *e, uint32_t ncols)
{
	uint32_t i;

	memset(e, 0, sizeof(*e));
	e->ncols = ncols;
	e->piv = malloc((ncols + 1) * sizeof(*e->piv));
	e->w = calloc(ncols + 1, sizeof(*e->w));
	e->bits = calloc(ncols / 64 + 1, sizeof(*e->bits));
	e->fc = malloc((ncols + 1) * sizeof(*e->fc));
	if (!e->piv || !e->w || !e->bits || !e->fc) {
		ibf_probe_ech_free(e);
		return IBF_ERR_NOMEM;
	}
	for (i = 0; i < ncols; i++)
		e->piv[i] = NONE;
	return IBF_OK;
}

void ibf_probe_ech_free(ibf_probe_ech_t *e)
{
	free(e->piv);
	free(e->off);
	free(e->len);
	free(e->ecol);
	free(e->eval);
	free(e->w);
	free(e->bits);
	free(e->fc);
	memset(e, 0, sizeof(*e));
}

/* Touched columns are bits of a bitmap: subtracting a pivot row only adds
 * columns beyond the pivot, so one forward sweep over the words visits
 * them in increasing order (a heap did the same at log cost per entry). */
static void touch(ibf_probe_ech_t *e, uint32_t c)
{
	e->bits[c >> 6] |= 1ull << (c & 63);
	if (c >> 6 > e->bhi)
		e->bhi = c >> 6;
}

/* Next touched column at or after word *i (cleared from the bitmap), or
 * NONE when there is none; leaves the bitmap empty then. */
static uint32_t next_col(ibf_probe_ech_t *e, uint32_t *i)
{
	for (; *i <= e->bhi; (*i)++) {
		uint64_t b = e->bits[*i];

		if (b) {
			e->bits[*i] = b & (b - 1);
			return (*i << 6) | (uint32_t)__builtin_ctzll(b);
		}
	}
	e->bhi = 0;
	return NONE;
}

/* Room for entries up to need and for one more row. */
static int grow(ibf_probe_ech_t *e, uint64_t need)
{
	void *const ents[] = { &e->ecol, &e->eval };
	const size_t esz[] = { sizeof(*e->ecol), sizeof(*e->eval) };
	void *const rows[] = { &e->off, &e->len };
	const size_t rsz[] = { sizeof(*e->off), sizeof(*e->len) };

	if (ibf_array_grow_par(&e->ecap, need, 2, ents, esz) < 0 ||
	    ibf_array_grow_par(&e->rcap, (size_t)e->nrows + 1, 2, rows,
			       rsz) < 0)
		return -1;
	return 0;
}

/* Store the free columns found (e->fc[0 .. nf), increasing, w nonzero)
 * as a row scaled to a leading 1, clearing w. */
static int store_row(ibf_probe_ech_t *e, uint32_t nf)
{
	uint32_t inv = invmod(e->w[e->fc[0]]), k;

	if (grow(e, e->elen + nf) < 0) {
		for (k = 0; k < nf; k++)
			e->w[e->fc[k]] = 0;
		return -1;
	}
	e->off[e->nrows] = e->elen;
	e->len[e->nrows] = nf;
	for (k = 0; k < nf; k++) {
		uint32_t c = e->fc[k];

		e->ecol[e->elen] = c;
		e->eval[e->elen++] = k ? mulmod(e->w[c], inv) : 1;
		e->w[c] = 0;
	}
	e->piv[e->fc[0]] = e->nrows++;
	return 1;
}

/* Reduce the sparse vector (col, val)[0..n) (distinct columns) against
 * the rows.  Returns the number of free columns it keeps (in e->fc,
 * increasing, their values in e->w, for the caller to take and clear),
 * or, when !all, 1 as soon as it keeps one (w cleared then). */
static uint32_t reduce(ibf_probe_ech_t *e, const uint32_t *col,
		       const uint32_t *val, unsigned n, bool all)
{
	uint32_t i, c, lo = NONE, nf = 0;

	e->used = 0;
	for (i = 0; i < n; i++) {
		e->w[col[i]] = val[i] % P;
		touch(e, col[i]);
		if (col[i] < lo)
			lo = col[i];
	}
	if (lo == NONE)
		return 0;
	i = lo >> 6;
	while ((c = next_col(e, &i)) != NONE) {
		uint32_t r, f, k, len;
		const uint32_t *rc, *rv;

		if (!e->w[c])
			continue;
		r = e->piv[c];
		if (r == NONE) {
			if (!all) {
				e->w[c] = 0;
				while ((c = next_col(e, &i)) != NONE)
					e->w[c] = 0;
				return 1;
			}
			/* Independent.  Reduce the rest too, so the new row
			 * holds no pivot column of an older row: a later
			 * reduction through it then never walks back into
			 * older rows (short chains). */
			e->fc[nf++] = c;
			continue;
		}
		/* w -= w[c] * row; the row starts with (c, 1). */
		if (r >= e->used)
			e->used = r + 1;
		f = P - e->w[c];
		rc = e->ecol + e->off[r];
		rv = e->eval + e->off[r];
		len = e->len[r];
		e->w[c] = 0;
		for (k = 1; k < len; k++) {
			uint32_t j = rc[k];
			e->w[j] = ibf_probe_fold(e->w[j] +
						 (uint64_t)f * rv[k]);
			e->bits[j >> 6] |= 1ull << (j & 63);
		}
		if (rc[len - 1] >> 6 > e->bhi)
			e->bhi = rc[len - 1] >> 6;
	}
	return nf;
}

int ibf_probe_ech_add_sparse(ibf_probe_ech_t *e, const uint32_t *col,
			     const uint32_t *val, unsigned n, bool add)
{
	uint32_t nf = reduce(e, col, val, n, add);

	return nf && add ? store_row(e, nf) : nf != 0;
}

int ibf_probe_ech_add(ibf_probe_ech_t *e, const ibf_probe_vec_t *v, bool add)
{
	return ibf_probe_ech_add_sparse(e, v->col, v->val, v->n, add);
}

uint32_t ibf_probe_ech_residual(ibf_probe_ech_t *e, const ibf_probe_vec_t *v,
				uint32_t *col, uint32_t *val)
{
	uint32_t nf = reduce(e, v->col, v->val, v->n, true), k;

	for (k = 0; k < nf; k++) {
		col[k] = e->fc[k];
		val[k] = e->w[e->fc[k]];
		e->w[e->fc[k]] = 0;
	}
	return nf;
}

void ibf_probe_ech_truncate(ibf_probe_ech_t *e, uint32_t nrows)
{
	uint32_t r;

	for (r = nrows; r < e->nrows; r++)
		e->piv[e->ecol[e->off[r]]] = NONE;
	if (nrows < e->nrows) {
		e->elen = e->off[nrows];
		e->nrows = nrows;
	}
}
