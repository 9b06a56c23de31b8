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
 * paper's Welsh-Powell step, ~n rounds), rounds are built one at a time as
 * near-perfect matchings: every free host tries partners in turn and takes
 * the first pair that is host- and link-free in this round and adds rank.
 * When a round adds nothing, every untested pair is tested and the few
 * independent ones left go first-fit into the rounds.
 *
 * The echelon form itself is in probe_ech.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/trace.h>

#include "base/array.h"
#include "base/rng.h"
#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE
#define P IBF_PROBE_PRIME

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

/* ---- columns and vectors ------------------------------------------------- */

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

/* ---- planning ----------------------------------------------------------- */

/* See ibf_probe_outside_span() at the end. */

struct planner {
	const ibf_lfts_t *l;
	const ibf_hostlist_t *h;
	ibf_probe_cols_t cols;
	ibf_probe_ech_t ech;
	uint32_t n;
	ibf_rng_t rng;
	uint8_t *live;        /* [n * n] pair outside the span (find_live) */
	/* Rounds: per round, host and link occupancy as bytes. */
	uint32_t nrounds;
	size_t rcap;
	uint8_t **host_busy;  /* [round][n] */
	uint8_t **link_busy;  /* [round][nports] */
	uint32_t *round_used; /* [round] pairs */
	ibf_probe_pair_t *pairs;
	uint32_t *pair_round;
	uint32_t npairs;
	size_t pcap;
	uint64_t tested;
	uint32_t *perm;         /* column -> elimination position */
	uint32_t *xcol;         /* kernel vector by column */
};

struct scratch {
	uint32_t *x, *D, *sum, *stack, *hx, *hsw;
	uint8_t *state;
};

static int new_round(struct planner *pl)
{
	const ibf_fabric_t *f = pl->l->fabric;
	void *const arrs[] = { &pl->host_busy, &pl->link_busy,
			       &pl->round_used };
	const size_t sz[] = { sizeof(*pl->host_busy), sizeof(*pl->link_busy),
			      sizeof(*pl->round_used) };

	if (ibf_array_grow_par(&pl->rcap, (size_t)pl->nrounds + 1, 3, arrs,
			       sz) < 0)
		return -1;
	pl->host_busy[pl->nrounds] = calloc(pl->n, 1);
	pl->link_busy[pl->nrounds] = calloc(f->nports, 1);
	if (!pl->host_busy[pl->nrounds] || !pl->link_busy[pl->nrounds]) {
		free(pl->host_busy[pl->nrounds]);
		free(pl->link_busy[pl->nrounds]);
		return -1;
	}
	pl->round_used[pl->nrounds] = 0;
	return (int)pl->nrounds++;
}

static bool fits(const struct planner *pl, uint32_t r, uint32_t a,
		 uint32_t b, const ibf_probe_vec_t *v)
{
	unsigned i;

	if (pl->host_busy[r][a] || pl->host_busy[r][b])
		return false;
	for (i = 0; i < v->nlinks; i++)
		if (pl->link_busy[r][v->links[i]])
			return false;
	return true;
}

static int take(struct planner *pl, uint32_t r, uint32_t a, uint32_t b,
		const ibf_probe_vec_t *v)
{
	void *const arrs[] = { &pl->pairs, &pl->pair_round };
	const size_t sz[] = { sizeof(*pl->pairs), sizeof(*pl->pair_round) };
	unsigned i;

	if (ibf_array_grow_par(&pl->pcap, (size_t)pl->npairs + 1, 2, arrs,
			       sz) < 0)
		return -1;
	pl->host_busy[r][a] = pl->host_busy[r][b] = 1;
	for (i = 0; i < v->nlinks; i++)
		pl->link_busy[r][v->links[i]] = 1;
	pl->pairs[pl->npairs].a = a;
	pl->pairs[pl->npairs].b = b;
	pl->pair_round[pl->npairs++] = r;
	pl->round_used[r]++;
	return 0;
}

static void settle(struct planner *pl, uint32_t a, uint32_t b)
{
	pl->live[(size_t)a * pl->n + b] = 0;
	pl->live[(size_t)b * pl->n + a] = 0;
}

/* v with its columns renamed to elimination positions (make_order()),
 * sorted again; the echelon form works on positions throughout. */
static const ibf_probe_vec_t *permuted(const struct planner *pl,
				       const ibf_probe_vec_t *v,
				       ibf_probe_vec_t *w)
{
	unsigned i, j;

	for (i = 0; i < v->n; i++) {
		uint32_t pc = pl->perm[v->col[i]];

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

/* Test pair (a, b) for round r (or the first round it fits if r is NONE;
 * not at all if it fits none): 1 taken, 0 not, -1 no memory, -2 route
 * error. */
static int try_pair(struct planner *pl, uint32_t r, uint32_t a, uint32_t b,
		    ibf_err_t *err)
{
	ibf_probe_vec_t v, w;
	uint32_t k;
	int ind;

	if (ibf_probe_vec_make(pl->l, &pl->cols, pl->h->ports[a],
			       pl->h->ports[b], &v, err) != IBF_OK)
		return -2;
	if (r == NONE) {
		for (k = 0; k < pl->nrounds; k++)
			if (fits(pl, k, a, b, &v))
				break;
		if (k == pl->nrounds)
			return 0;
		r = k;
	} else if (!fits(pl, r, a, b, &v)) {
		return 0;
	}
	pl->tested++;
	ind = ibf_probe_ech_add(&pl->ech, permuted(pl, &v, &w), true);
	settle(pl, a, b);
	if (ind <= 0)
		return ind;
	return take(pl, r, a, b, &v) ? -1 : 1;
}

/* ---- which pairs are still independent -------------------------------- */

/* A random vector x of the null space of the rows so far (mod p): free
 * columns random, pivot columns by back substitution.  A pair vector v
 * with v.x != 0 is outside the span (exactly: adding it keeps the rows
 * independent mod p); a pair outside the span has v.x = 0 with
 * probability 1/p only. */
static void kernel_vector(const ibf_probe_ech_t *e, ibf_rng_t *rng,
			  uint32_t *x)
{
	uint32_t c;

	for (c = 0; c < e->ncols; c++) {
		x[c] = (uint32_t)ibf_rng_below(rng, P - 1) + 1;
	}
	for (c = e->ncols; c-- > 0;) {
		uint32_t r = e->piv[c], k;
		uint64_t s = 0;

		if (r == NONE)
			continue;
		for (k = 1; k < e->len[r]; k++)
			s = (s + (uint64_t)e->eval[e->off[r] + k] *
			     x[e->ecol[e->off[r] + k]]) % P;
		x[c] = (uint32_t)((P - s) % P);
	}
}

static uint32_t addmod(uint32_t a, uint32_t b)
{
	uint32_t s = a + b;	/* a, b < p < 2^31: no overflow */

	return s >= P ? s - P : s;
}

/* sum[s] = x summed along switch s's route to host port pb (mod p);
 * state[s] = 3 when that route is broken.  Memoized over the LFT column:
 * O(switches) per destination. */
static void dest_sums(const struct planner *pl, ibf_port_id_t pb,
		      const uint32_t *x, uint32_t *sum, uint8_t *state,
		      uint32_t *stack)
{
	const ibf_fabric_t *f = pl->l->fabric;
	unsigned dlid = f->ports[pb].lid;
	uint32_t s0, nsw = f->nswitches;

	memset(state, 0, nsw);	/* 0 new, 1 on the walk, 2 done, 3 bad */
	for (s0 = 0; s0 < nsw; s0++) {
		uint32_t s = s0, top = 0, base = 0;
		bool bad = false;

		for (;;) {
			const ibf_node_t *nd = &f->nodes[f->switches[s]];
			unsigned p;
			ibf_port_id_t out, in;

			if (state[s] == 2) {
				base = sum[s];
				break;
			}
			if (state[s] != 0) {	/* broken, or a loop */
				bad = true;
				break;
			}
			state[s] = 1;
			stack[top++] = s;
			p = ibf_lfts_get(pl->l, s, dlid);
			out = nd->first_port + p;
			if (p == IBF_LFT_NO_PORT || p == 0 ||
			    p > nd->nports || f->ports[out].peer == IBF_NO_ID) {
				bad = true;
				break;
			}
			sum[s] = x[pl->cols.port_col[out]]; /* own link */
			in = f->ports[out].peer;
			if (!ibf_node_is_switch(f, f->ports[in].node)) {
				bad = in != pb;
				break;
			}
			s = f->switch_index[f->ports[in].node];
		}
		while (top) {
			uint32_t t = stack[--top];

			if (bad) {
				state[t] = 3;
				continue;
			}
			base = addmod(sum[t], base);
			sum[t] = base;
			state[t] = 2;
		}
	}
}

/* D[b * n + a] = x along the route a -> b (one destination per row, so
 * the rows are written in order); false if a route is broken (the caller
 * traces it for the message). */
#define TILE 64u

static bool route_sums(struct planner *pl, const uint32_t *x, uint32_t *D,
		       struct scratch *sc, uint32_t *bad_a, uint32_t *bad_b)
{
	uint32_t *sum = sc->sum, *stack = sc->stack, *hx = sc->hx;
	uint32_t *hsw = sc->hsw;
	uint8_t *state = sc->state;
	const ibf_fabric_t *f = pl->l->fabric;
	uint32_t n = pl->n, a, b;

	/* Per source host: its column's share and its leaf switch (NONE
	 * when it is cabled to another host). */
	for (a = 0; a < n; a++) {
		ibf_port_id_t pa = pl->h->ports[a];
		ibf_port_id_t in = f->ports[pa].peer;

		hx[a] = x[pl->cols.port_col[pa]];
		hsw[a] = ibf_node_is_switch(f, f->ports[in].node) ?
			 f->switch_index[f->ports[in].node] : NONE;
	}
	for (b = 0; b < n; b++) {
		ibf_port_id_t pb = pl->h->ports[b];
		uint32_t *row = D + (size_t)b * n;

		dest_sums(pl, pb, x, sum, state, stack);
		for (a = 0; a < n; a++) {
			uint32_t s = hsw[a];

			if (a == b)
				continue;
			if (s != NONE && state[s] == 2) {
				row[a] = addmod(hx[a], sum[s]);
				continue;
			}
			if (s == NONE &&
			    f->ports[pl->h->ports[a]].peer == pb) {
				row[a] = hx[a];
				continue;
			}
			*bad_a = a;
			*bad_b = b;
			return false;
		}
	}
	return true;
}

/* live[a * n + b] (a < b): pair (a, b) is outside the span of the rows
 * so far, judged with one random null-space vector.  Returns the number
 * of live pairs, or -2 on a broken route. */
static int64_t find_live(struct planner *pl, struct scratch *sc,
			 ibf_err_t *err)
{
	uint32_t n = pl->n, a, b, a0, b0, ba, bb;
	int64_t nlive = 0;

	kernel_vector(&pl->ech, &pl->rng, sc->x);
	if (pl->perm) {	/* positions back to columns */
		for (a = 0; a < pl->cols.ncols; a++)
			pl->xcol[a] = sc->x[pl->perm[a]];
		memcpy(sc->x, pl->xcol, pl->cols.ncols * sizeof(*sc->x));
	}
	/* Along a path each host link carries half its column's unknown
	 * (directed: the column is a sum of two links). */
	for (a = 0; a < pl->cols.nhostcols; a++)
		if (ibf_probe_cols_halved(&pl->cols, a))
			sc->x[a] = ibf_probe_mulmod(sc->x[a], (P + 1) / 2);
	if (!route_sums(pl, sc->x, sc->D, sc, &ba, &bb)) {
		ibf_probe_vec_t v;

		if (ibf_probe_vec_make(pl->l, &pl->cols, pl->h->ports[ba],
				       pl->h->ports[bb], &v, err) == IBF_OK)
			ibf_err_set(err, IBF_ERR_INVALID,
				    "a route between hosts %u and %u is "
				    "broken", ba, bb);
		return -2;
	}
	/* Symmetric sweep in tiles: both D[a][b] and D[b][a] stay cached. */
	for (a0 = 0; a0 < n; a0 += TILE)
		for (b0 = a0; b0 < n; b0 += TILE)
			for (a = a0; a < a0 + TILE && a < n; a++)
				for (b = b0 > a ? b0 : a + 1;
				     b < b0 + TILE && b < n; b++) {
					uint32_t s = addmod(
						sc->D[(size_t)a * n + b],
						sc->D[(size_t)b * n + a]);
					bool live = s != 0;

					pl->live[(size_t)a * n + b] = live;
					pl->live[(size_t)b * n + a] = live;
					nlive += live;
				}
	return nlive;
}

/* One pass: a new round is opened; every host takes up to `tries` live
 * partners, in order of offset, each into the first round it fits. */
static int64_t find_live(struct planner *pl, struct scratch *sc,
			 ibf_err_t *err);

static int pass(struct planner *pl, struct scratch *sc, unsigned tries,
		uint32_t *added, ibf_err_t *err)
{
	uint32_t n = pl->n, a, k, fresh = 0;

	if (new_round(pl) < 0)
		return -1;
	*added = 0;
	for (a = 0; a < n; a++) {
		unsigned t = 0;

		for (k = 1; k < n && t < tries; k++) {
			uint32_t b = (a + k) % n;
			int res;

			if (!pl->live[(size_t)a * n + b])
				continue;
			t++;
			res = try_pair(pl, NONE, a, b, err);
			if (res < 0)
				return res;
			*added += res == 1;
			/* Pairs added since the live set was judged make
			 * more and more of it dependent: judge it again
			 * (O(n^2)) rather than eliminate in vain. */
			if (res == 1 && ++fresh >= n / 4 + 1) {
				int64_t nl = find_live(pl, sc, err);

				if (nl < 0)
					return (int)nl;
				fresh = 0;
			}
		}
	}
	if (!pl->round_used[pl->nrounds - 1]) {
		pl->nrounds--;
		free(pl->host_busy[pl->nrounds]);
		free(pl->link_busy[pl->nrounds]);
	}
	return 0;
}

static void planner_free(struct planner *pl)
{
	uint32_t r;

	for (r = 0; r < pl->nrounds; r++) {
		free(pl->host_busy[r]);
		free(pl->link_busy[r]);
	}
	free(pl->host_busy);
	free(pl->link_busy);
	free(pl->round_used);
	free(pl->live);
	free(pl->pairs);
	free(pl->pair_round);
	free(pl->perm);
	free(pl->xcol);
	ibf_probe_cols_free(&pl->cols);
	ibf_probe_ech_free(&pl->ech);
}

static void scratch_free(struct scratch *sc)
{
	free(sc->x);
	free(sc->D);
	free(sc->sum);
	free(sc->state);
	free(sc->stack);
	free(sc->hx);
	free(sc->hsw);
}

static int scratch_init(struct scratch *sc, uint32_t ncols, uint32_t n,
			uint32_t nswitches)
{
	uint32_t nsw = nswitches + 1;

	sc->x = malloc(ncols * sizeof(*sc->x) + 1);
	sc->D = malloc((size_t)n * n * sizeof(*sc->D));
	sc->sum = malloc(nsw * sizeof(*sc->sum));
	sc->state = malloc(nsw);
	sc->stack = malloc(nsw * sizeof(*sc->stack));
	sc->hx = malloc(n * sizeof(*sc->hx));
	sc->hsw = malloc(n * sizeof(*sc->hsw));
	if (!sc->x || !sc->D || !sc->sum || !sc->state || !sc->stack ||
	    !sc->hx || !sc->hsw) {
		scratch_free(sc);
		return -1;
	}
	return 0;
}

/* Passes until two independent random null-space vectors find no live
 * pair: the chance that an independent pair is left is below 2^-60. */
static int run_planner(struct planner *pl, unsigned tries, ibf_err_t *err)
{
	uint32_t added;
	struct scratch sc;
	unsigned clean = 0;
	int res = 0;

	if (scratch_init(&sc, pl->cols.ncols, pl->n,
			 pl->l->fabric->nswitches) < 0)
		return -1;
	while (clean < 2) {
		int64_t nlive = find_live(pl, &sc, err);

		if (nlive < 0) {
			res = (int)nlive;
			break;
		}
		if (!nlive) {
			clean++;
			continue;
		}
		clean = 0;
		res = pass(pl, &sc, tries, &added, err);
		if (res < 0)
			break;
	}
	scratch_free(&sc);
	return res;
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

static int make_order(struct planner *pl)
{
	const ibf_fabric_t *f = pl->l->fabric;
	uint32_t nc = pl->cols.ncols, c, *lev, *q, qh = 0, qt = 0, u;
	uint64_t *key;
	const uint64_t cmask = (1ull << 39) - 1;

	pl->perm = malloc(nc * sizeof(*pl->perm));
	pl->xcol = malloc(nc * sizeof(*pl->xcol));
	key = malloc(nc * sizeof(*key));
	lev = malloc(f->nnodes * sizeof(*lev));
	q = malloc(f->nnodes * sizeof(*q));
	if (!pl->perm || !pl->xcol || !key || !lev || !q) {
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
		ibf_port_id_t p = pl->cols.col_port[c];
		uint32_t lu = lev[f->ports[p].node];
		uint32_t lv = lev[f->ports[f->ports[p].peer].node];
		uint64_t lo = lu < lv ? lu : lv, up = lv > lu;

		if (c < pl->cols.nhostcols || lo > 1000)
			lo = 0;
		key[c] = ((1023 - lo) << 40) | (up << 39) | c;
	}
	qsort(key, nc, sizeof(*key), cmp_u64);
	for (c = 0; c < nc; c++)
		pl->perm[key[c] & cmask] = c;
	free(key);
	free(lev);
	free(q);
	return 0;
}

static ibf_status_t export_plan(struct planner *pl, ibf_probe_plan_t *out)
{
	uint32_t i, r, *fill;

	out->nhosts = pl->n;
	out->npairs = out->rank = pl->npairs;
	out->nrounds = pl->nrounds;
	out->pairs = malloc((pl->npairs + 1) * sizeof(*out->pairs));
	out->round_start = calloc(pl->nrounds + 1,
				  sizeof(*out->round_start));
	fill = calloc(pl->nrounds + 1, sizeof(*fill));
	if (!out->pairs || !out->round_start || !fill) {
		free(fill);
		return IBF_ERR_NOMEM;
	}
	for (i = 0; i < pl->npairs; i++)
		out->round_start[pl->pair_round[i] + 1]++;
	for (r = 0; r < pl->nrounds; r++)
		out->round_start[r + 1] += out->round_start[r];
	for (i = 0; i < pl->npairs; i++) {
		r = pl->pair_round[i];
		out->pairs[out->round_start[r] + fill[r]++] = pl->pairs[i];
	}
	free(fill);
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

ibf_status_t ibf_probe_plan(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			    const ibf_probe_opts_t *o, ibf_probe_plan_t *out,
			    ibf_err_t *err)
{
	struct planner pl;
	struct timespec t0, t1;
	unsigned tries = o && o->tries ? o->tries : 64;
	ibf_probe_model_t model = o ? o->model : IBF_PROBE_DIRECTED;
	ibf_status_t st;
	int res;

	memset(out, 0, sizeof(*out));
	if (h->n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "probe planning needs at least 2 hosts");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&pl, 0, sizeof(pl));
	pl.l = l;
	pl.h = h;
	pl.n = h->n;
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &pl.cols,
				      err)) != IBF_OK)
		return st;
	pl.rng.s = 0x9e3779b97f4a7c15ull;
	pl.live = calloc((size_t)pl.n * pl.n, 1);
	if (!pl.live || ibf_probe_ech_init(&pl.ech, pl.cols.ncols) != IBF_OK) {
		planner_free(&pl);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (make_order(&pl) < 0) {
		planner_free(&pl);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	res = run_planner(&pl, tries, err);
	if (res == -2) {
		planner_free(&pl);
		return err ? err->status : IBF_ERR_INVALID;
	}
	if (res < 0 || export_plan(&pl, out) != IBF_OK) {
		planner_free(&pl);
		ibf_probe_plan_free(out);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	out->nlinks = count_links(&pl.cols, l->fabric);
	out->model = model;
	planner_free(&pl);
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
	struct planner pl;
	struct scratch sc;
	uint32_t n = h->n;
	ibf_status_t st = IBF_OK;
	size_t i;
	int k;

	memset(&pl, 0, sizeof(pl));
	pl.l = l;
	pl.h = h;
	pl.n = n;
	pl.cols = *c;
	pl.ech = *e;
	pl.rng.s = 0x2545f4914f6cdd1dull;
	memset(live, 0, (size_t)n * n);
	if (scratch_init(&sc, c->ncols, n, l->fabric->nswitches) < 0)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	pl.live = calloc((size_t)n * n, 1);
	if (!pl.live)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	/* Two random null-space vectors: a pair in the span passes both. */
	for (k = 0; st == IBF_OK && k < 2; k++) {
		if (find_live(&pl, &sc, err) < 0) {
			st = err ? err->status : IBF_ERR_INVALID;
			break;
		}
		for (i = 0; i < (size_t)n * n; i++)
			live[i] |= pl.live[i];
	}
	free(pl.live);
	scratch_free(&sc);
	return st;
}
