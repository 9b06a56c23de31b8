/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Private to the planner (probe_plan.c, probe_region.c, probe_tail.c)
 * and probe_solve.c: pair vectors over link
 * columns, and an incremental sparse echelon form modulo a prime.
 */
#ifndef IBFLOW_PROBE_INTERNAL_H
#define IBFLOW_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/probe.h>

/* 2^31 - 1: products of two residues fit in 64 bits. */
#define IBF_PROBE_PRIME 2147483647u
#define IBF_PROBE_NONE UINT32_MAX

/* x mod 2^31 - 1 without a division: 2^31 = 1 (mod p), so folding the
 * high bits onto the low ones twice leaves below p + 8, x mod p or that
 * plus p. */
static inline uint32_t ibf_probe_fold(uint64_t x)
{
	x = (x & IBF_PROBE_PRIME) + (x >> 31);
	x = (x & IBF_PROBE_PRIME) + (x >> 31);
	return (uint32_t)(x >= IBF_PROBE_PRIME ? x - IBF_PROBE_PRIME : x);
}

static inline uint32_t ibf_probe_mulmod(uint32_t a, uint32_t b)
{
	return ibf_probe_fold((uint64_t)a * b);
}

/* Columns: one per directed link (egress port), except that a host's
 * injection link (its CA port) and ejection link (the leaf port facing it)
 * share one column: every pair with that host uses each exactly once, so
 * no measurement can separate them.  Host columns come first; the unknown
 * of a host column is the sum of the two links, so a pair's coefficient
 * there is 1 (each link once), and a link on a path contributes half of
 * it.  Symmetric model: one column per link, both egress ports, unknown =
 * its one-way latency; every traversal counts 1 (a host column 2 per
 * pair), nothing is halved. */
typedef struct ibf_probe_cols {
	ibf_probe_model_t model;
	uint32_t ncols;
	uint32_t nhostcols;   /* columns 0 .. nhostcols-1 */
	uint32_t *port_col;   /* [nports]: column, or IBF_PROBE_NONE */
	ibf_port_id_t *col_port; /* [ncols]: a representative egress port */
} ibf_probe_cols_t;

ibf_status_t ibf_probe_cols_init(const ibf_fabric_t *f,
				 const ibf_hostlist_t *h,
				 ibf_probe_model_t model,
				 ibf_probe_cols_t *c, ibf_err_t *err);
/* Share of a host column's unknown one traversal carries: 1/2 when the
 * column is an injection + ejection sum (directed), else 1. */
static inline bool ibf_probe_cols_halved(const ibf_probe_cols_t *c,
					 uint32_t col)
{
	return c->model == IBF_PROBE_DIRECTED && col < c->nhostcols;
}
void ibf_probe_cols_free(ibf_probe_cols_t *c);

/* Elimination order of the columns (probe_plan.c): perm[col] = position,
 * links high in the tree first, host columns last; -1 out of memory. */
int ibf_probe_col_order(const ibf_fabric_t *f, const ibf_probe_cols_t *cols,
			uint32_t *perm);

/* A pair vector: sorted distinct columns with their counts. */
typedef struct ibf_probe_vec {
	unsigned n;
	uint32_t col[2 * IBF_PROBE_MAX_HOPS];
	uint32_t val[2 * IBF_PROBE_MAX_HOPS];
	ibf_port_id_t links[2 * IBF_PROBE_MAX_HOPS]; /* raw, both legs */
	unsigned nlinks;
} ibf_probe_vec_t;

ibf_status_t ibf_probe_vec_make(const ibf_lfts_t *l, ibf_probe_cols_t *c,
				ibf_port_id_t a, ibf_port_id_t b,
				ibf_probe_vec_t *v, ibf_err_t *err);

/* Pair vectors by host index, each traced once and kept while the
 * cache has room (the planners look at the same pairs again and again:
 * each pass, each round, each region search).  Only up to
 * IBF_PROBE_VCACHE_HOSTS hosts (an index of n (n - 1) / 2 words, 2 MB
 * at 1,024) and IBF_PROBE_VCACHE_WORDS words of entries (16 MB, some
 * 110,000 pairs of six-hop paths: all of the 432-host 3-tree's 93,096);
 * pairs beyond are traced every time.
 * A vector read back is the one ibf_probe_vec_make() gives. */
#define IBF_PROBE_VCACHE_HOSTS 1024u
#define IBF_PROBE_VCACHE_WORDS (4u << 20)

typedef struct ibf_probe_vcache {
	const ibf_lfts_t *l;
	const ibf_probe_cols_t *cols;
	const ibf_hostlist_t *h;
	uint32_t *at;         /* [pair]: 1 + its entry's offset, 0 none */
	uint32_t *pool;
	size_t len, cap;
	size_t max;           /* words of entries at most (the tests lower it) */
} ibf_probe_vcache_t;

/* IBF_ERR_NOMEM when the index cannot be had. */
ibf_status_t ibf_probe_vcache_init(ibf_probe_vcache_t *vc,
				   const ibf_lfts_t *l,
				   const ibf_probe_cols_t *c,
				   const ibf_hostlist_t *h);
ibf_status_t ibf_probe_vcache_get(ibf_probe_vcache_t *vc, uint32_t a,
				  uint32_t b, ibf_probe_vec_t *v,
				  ibf_err_t *err);
/* Only the links of pair (a, b), both legs but in either order, for
 * tests of which links are free: read in place when kept (valid until the
 * next call), else traced into v.  NULL when a route is broken. */
const ibf_port_id_t *ibf_probe_vcache_links(ibf_probe_vcache_t *vc,
					    uint32_t a, uint32_t b,
					    ibf_probe_vec_t *v, unsigned *n,
					    ibf_err_t *err);
void ibf_probe_vcache_free(ibf_probe_vcache_t *vc);

/* v with its columns renamed by perm (ibf_probe_col_order()) into w,
 * sorted again; returns w (its links are not copied). */
const ibf_probe_vec_t *ibf_probe_vec_permute(const uint32_t *perm,
					     const ibf_probe_vec_t *v,
					     ibf_probe_vec_t *w);

/* Echelon form mod IBF_PROBE_PRIME, rows stored sparse with a leading 1;
 * a row holds no pivot column of an older row (it is reduced against them
 * all before it is stored), so reductions walk only into newer rows. */
typedef struct ibf_probe_ech {
	uint32_t ncols;
	uint32_t *piv;        /* [ncols]: row with that pivot, or NONE */
	uint64_t *off;        /* [nrows]: first entry */
	uint32_t *len;
	uint32_t nrows;
	size_t rcap;
	uint32_t *ecol, *eval;
	uint64_t elen;
	size_t ecap;
	uint32_t *w;          /* dense work vector (all zero between calls) */
	uint64_t *bits;       /* touched columns (all zero between calls) */
	uint32_t bhi;         /* highest word of bits that may be nonzero */
	uint32_t *fc;         /* free columns met while reducing */
	uint32_t used;        /* 1 + the newest row the last reduction
			       * subtracted (0 none): a vector found
			       * dependent is in the span of the rows
			       * before that */
} ibf_probe_ech_t;

ibf_status_t ibf_probe_ech_init(ibf_probe_ech_t *e, uint32_t ncols);
void ibf_probe_ech_free(ibf_probe_ech_t *e);
/* Reduce v; if it is independent of the rows (mod p) and add is set, add
 * it.  Returns 1 independent, 0 dependent, -1 out of memory. */
int ibf_probe_ech_add(ibf_probe_ech_t *e, const ibf_probe_vec_t *v,
		      bool add);
/* The same for a sparse vector of n entries (distinct columns, values
 * below the prime), of any length. */
int ibf_probe_ech_add_sparse(ibf_probe_ech_t *e, const uint32_t *col,
			     const uint32_t *val, unsigned n, bool add);
/* v reduced against the rows (nothing added): its entries, all on
 * columns that are no row's pivot, into col/val (room for ncols);
 * returns their number, 0 when v is in the span.  v is independent of
 * the rows and some vectors exactly when this residual is independent of
 * theirs: the rows' span holds no nonzero vector free of their pivots. */
uint32_t ibf_probe_ech_residual(ibf_probe_ech_t *e, const ibf_probe_vec_t *v,
				uint32_t *col, uint32_t *val);
/* Take back the rows added after the first nrows (rows are appended, and
 * none is ever changed after it is stored, so this is exact). */
void ibf_probe_ech_truncate(ibf_probe_ech_t *e, uint32_t nrows);

/* One strategy of ibf_probe_plan() alone (perfect: rounds built one at a
 * time as matchings; else passes), for the tests. */
ibf_status_t ibf_probe_plan_by(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			       const ibf_probe_opts_t *o, bool perfect,
			       ibf_probe_plan_t *out, ibf_err_t *err);

/* Six rounds by design on a three-level fat tree whose pairs of hosts at
 * the same place (same leaf, same index under the same middle switch, or
 * the same position in another pod) route both ways over the same cables
 * (probe_lattice.c; docs/probe.md).  Symmetric model only, and only where
 * rank = 3 x hosts: then six perfect rounds are a basis.  Every round is
 * checked host- and link-disjoint and every pair independent (mod p)
 * before the plan is returned.  1 planned (out filled), 0 the fabric or
 * the host list has not that shape, -1 out of memory. */
int ibf_probe_plan_lattice(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			   uint32_t rank, ibf_probe_plan_t *out);

/* live[a * n + b] = 1 when pair (a, b) of h is outside the span of e's
 * rows (a pair inside always gets 0; one outside gets 1 unless two random
 * null-space vectors both miss it, probability < 2^-60). */
ibf_status_t ibf_probe_outside_span(const ibf_lfts_t *l,
				    const ibf_hostlist_t *h,
				    ibf_probe_cols_t *c, ibf_probe_ech_t *e,
				    uint8_t *live, ibf_err_t *err);

#endif
