/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe planning (see probe_plan.c): a round that greedy choice leaves
 * short of a perfect matching, mended region by region.
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sched/probe_planner.h"

/* ---- searching a region of the round ------------------------------------ */

/* A round that greedy choice leaves short of a perfect matching is
 * mended region by region: a few free hosts, the probes that hold the
 * links their pairs would need and the probes of their nearest partners
 * are taken out, and every matching of those hosts is searched (depth
 * first, within a node budget) with the rest of the round fixed.  The
 * best is kept, never worse than what was there.  Link conflicts among
 * the last free hosts are what the greedy cannot undo; a search over the
 * whole round found the perfect last round of kary:4,3 (symmetric) that
 * greedy choice missed. */

#define RMAX_BLOCK 4u		/* probes in the way of one pair, at most */
#define REGION_NODES 500u	/* search nodes per region */
#define REGION_IDLE 3u		/* searches in a row without gain: stop */
#define REGION_TRIES 64u	/* searches per round, at most */
#define NOT_INNER (NONE - 1)	/* a host's link (region_buf.lmap) */

/* Which candidate pairs fit is kept as bits (fit[i] bit j: no link of
 * pair (i, j) held; freem: the hosts free), so the search counts the
 * partners a host has left with a popcount instead of walking every
 * pair's links at every node.  A probe taken clears the bits of the
 * pairs on its switch-to-switch links (gm: per local link, each host's
 * partners over it as one mask); its hosts' own links are only on pairs
 * with those hosts, which freem stops. */
struct region_buf {
	uint32_t nh, h[RMAX];
	uint8_t nc[RMAX], c[RMAX][RMAX], first[RMAX]; /* candidate partners */
	uint32_t loff[RMAX][RMAX];	/* their inner links in pool (local) */
	uint8_t lcnt[RMAX][RMAX];
	uint32_t *pool;
	size_t plen, pcap;
	uint64_t fit[RMAX], freem;
	uint32_t *lmap;		/* [nports] local link, NONE between uses,
				 * NOT_INNER for a host's links */
	uint32_t *lport;	/* [local link] its port */
	uint32_t *lstart;	/* [local link + 2] its masks in gx, gm */
	uint16_t *lent;		/* pairs i | j << 8 by link, while indexing */
	uint8_t *gx;		/* host */
	uint64_t *gm;		/* its partners over the link */
	size_t lcap, ecap, gcap;
	uint32_t nl;
	/* Each pair's vector reduced against the rows at the search's start
	 * (its residual, rcol/rval from roff[i][j], i < j; NONE not yet),
	 * and the rows of the search's probes as residuals (sub): the
	 * search adds and takes back rows there only, so a pair is reduced
	 * against the round once per search, not once per node. */
	uint32_t roff[RMAX][RMAX], rlen[RMAX][RMAX];
	uint32_t *rcol, *rval;
	size_t rused, rcap;
	ibf_probe_ech_t sub;
	/* A pair found dependent on the first dk[i][j] rows of sub (when
	 * the clock said dt[i][j]) stays so while those rows are there: the
	 * search backtracks and comes down the same path again and again.
	 * stamp[k]: when sub's row k was added (increasing along sub). */
	uint32_t dk[RMAX][RMAX];
	uint64_t dt[RMAX][RMAX], stamp[RMAX], clock;
	uint32_t best, bm[RMAX], old[RMAX]; /* best matching (mates) */
	uint64_t nodes;
	bool stop;
	uint32_t rot, grow;	/* where free hosts are taken from; growth */
	uint8_t *inreg;		/* [n] host in h[] */
};

static bool in_region(const struct region_buf *rb, uint32_t x)
{
	return rb->inreg[x];
}

static void region_put(struct region_buf *rb, uint32_t x)
{
	rb->h[rb->nh++] = x;
	rb->inreg[x] = 1;
}

/* Add a host, and its partner in the round if it has one. */
static void region_add(const struct planner *pl, struct region_buf *rb,
		       uint32_t x)
{
	if (rb->nh + 2 > RMAX || in_region(rb, x))
		return;
	region_put(rb, x);
	if (pl->mate[x] != NONE)
		region_put(rb, pl->mate[x]);
}

/* The probes of the round holding links of v (one host of each), at most
 * RMAX_BLOCK of them, else 0. */
static unsigned blockers(const struct planner *pl, const ibf_probe_vec_t *v,
			 uint32_t *out)
{
	unsigned i, j, nb = 0;

	for (i = 0; i < v->nlinks; i++) {
		uint32_t o = pl->link_busy[v->links[i]];

		if (o == NONE)
			continue;
		if (pl->mate[o] < o)
			o = pl->mate[o];
		for (j = 0; j < nb && out[j] != o; j++)
			;
		if (j < nb)
			continue;
		if (nb == RMAX_BLOCK)
			return 0;
		out[nb++] = o;
	}
	return nb;
}

/* Room left: the probes of the hosts' nearest outside partners (by index
 * offset), round robin over the region, so that hosts taken out have
 * somewhere else to go. */
static void region_grow(struct planner *pl, struct region_buf *rb)
{
	uint32_t n = pl->n, i, k, b, per;

	for (per = 0; per < rb->grow && rb->nh + 2 <= RMAX; per++)
		for (i = 0; i < rb->nh && rb->nh + 2 <= RMAX; i++) {
			uint32_t x = rb->h[i], seen = 0;

			for (k = 1; k < n; k++) {
				b = x + k < n ? x + k : x + k - n;
				if (*live_at(pl, x, b) == DEAD ||
				    pl->mate[b] == NONE || in_region(rb, b))
					continue;
				if (seen++ < per)
					continue;
				region_add(pl, rb, b);
				break;
			}
		}
}

/* Score the probes in the way of pairs between the nf free hosts. */
static uint32_t region_scores(struct planner *pl, struct region_buf *rb,
			      uint32_t nf, uint32_t *cand, uint32_t *score)
{
	uint32_t i, j, k, nc = 0, bl[RMAX_BLOCK];
	unsigned nb, q;
	ibf_probe_vec_t v;
	ibf_err_t err;

	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++) {
			if (*live_at(pl, rb->h[i], rb->h[j]) == DEAD ||
			    pair_vec(pl, rb->h[i], rb->h[j], &v, &err) < 0 ||
			    !(nb = blockers(pl, &v, bl)))
				continue;
			for (q = 0; q < nb; q++) {
				for (k = 0; k < nc && cand[k] != bl[q]; k++)
					;
				if (k == nc) {
					if (nc == 4 * RMAX)
						continue;
					cand[nc] = bl[q];
					score[nc++] = 0;
				}
				/* fewer probes in the way: likelier freed */
				score[k] += 12 / nb;
			}
		}
	return nc;
}

/* The free hosts (up to RMAX / 4, from a rotating start), the probes in
 * the way of most pairs between them, then growth. */
static void region_pick(struct planner *pl, struct region_buf *rb)
{
	uint32_t n = pl->n, i, a, nf, nc;
	uint32_t cand[4 * RMAX], score[4 * RMAX];

	for (i = 0; i < rb->nh; i++)	/* the last region's */
		rb->inreg[rb->h[i]] = 0;
	for (i = 0, rb->nh = 0; i < n && rb->nh < RMAX / 4; i++) {
		a = (i + rb->rot) % n;
		if (pl->mate[a] == NONE && pl->nlive[a])
			region_put(rb, a);
	}
	nf = rb->nh;
	nc = region_scores(pl, rb, nf, cand, score);
	while (rb->nh + 2 <= RMAX) {
		uint32_t best = NONE;

		for (i = 0; i < nc; i++)
			if (score[i] && (best == NONE || score[i] > score[best]))
				best = i;
		if (best == NONE)
			break;
		score[best] = 0;
		region_add(pl, rb, cand[best]);
	}
	region_grow(pl, rb);
}

/* Local number of link p among the region's, given on first sight (its
 * pair count in lstart[id + 2]); NONE out of memory. */
static uint32_t local_link(struct planner *pl, struct region_buf *rb,
			   ibf_port_id_t p)
{
	void *const arrs[] = { &rb->lport, &rb->lstart };
	const size_t sz[] = { sizeof(*rb->lport), sizeof(*rb->lstart) };

	if (rb->lmap[p] != NONE)
		return rb->lmap[p];	/* numbered, or NOT_INNER */
	if (ibf_array_grow_par(&rb->lcap, (size_t)rb->nl + 3, 2, arrs,
			       sz) < 0)
		return NONE;
	rb->lport[rb->nl] = p;
	rb->lstart[rb->nl + 2] = 0;
	return rb->lmap[p] = rb->nl++;
}

/* Links between two switches: the only ones a region host's probe can
 * share with a pair not of that host. */
static bool inner_link(const ibf_fabric_t *f, ibf_port_id_t p)
{
	return f->ports[p].peer != IBF_NO_ID &&
	       ibf_node_is_switch(f, f->ports[p].node) &&
	       ibf_node_is_switch(f, f->ports[f->ports[p].peer].node);
}

/* Candidate (i, j) with the local numbers of its inner links in pool. */
static int region_cand(struct planner *pl, struct region_buf *rb,
		       uint32_t i, uint32_t j, const ibf_port_id_t *lk,
		       unsigned nlk)
{
	uint32_t *np, id;
	unsigned k, nl = 0;

	np = ibf_array_grow(rb->pool, &rb->pcap, rb->plen + nlk,
			    sizeof(*rb->pool));
	if (!np)
		return -1;
	rb->pool = np;
	for (k = 0; k < nlk; k++) {
		if ((id = local_link(pl, rb, lk[k])) == NOT_INNER)
			continue;
		if (id == NONE)
			return -1;
		np[rb->plen + nl++] = id;
		rb->lstart[id + 2]++;
	}
	rb->loff[i][j] = rb->loff[j][i] = (uint32_t)rb->plen;
	rb->lcnt[i][j] = rb->lcnt[j][i] = (uint8_t)nl;
	rb->plen += nl;
	rb->roff[i][j] = NONE;
	rb->dk[i][j] = 0;
	rb->c[i][rb->nc[i]++] = (uint8_t)j;
	rb->c[j][rb->nc[j]++] = (uint8_t)i;
	rb->fit[i] |= 1ull << j;
	rb->fit[j] |= 1ull << i;
	return 0;
}

/* Each local link's pairs in lent (from lstart[id + 1]). */
static int region_pairs_by_link(struct region_buf *rb)
{
	uint32_t i, j, k, id, *nx;
	uint16_t *ne;

	rb->lstart[0] = rb->lstart[1] = 0;
	for (id = 0; id < rb->nl; id++)
		rb->lstart[id + 2] += rb->lstart[id + 1];
	ne = ibf_array_grow(rb->lent, &rb->ecap, rb->plen + 1,
			    sizeof(*rb->lent));
	if (!ne)
		return -1;
	rb->lent = ne;
	for (i = 0; i < rb->nh; i++)
		for (k = 0; k < rb->nc[i]; k++) {
			j = rb->c[i][k];
			if (j < i)
				continue;
			nx = rb->pool + rb->loff[i][j];
			for (id = 0; id < rb->lcnt[i][j]; id++)
				ne[rb->lstart[nx[id] + 1]++] =
					(uint16_t)(i | j << 8);
		}
	return 0;
}

/* Each local link's pairs as one mask per host (gx, gm from
 * lstart[id]), then lmap cleared for the next search. */
static int region_index(struct region_buf *rb)
{
	void *const arrs[] = { &rb->gx, &rb->gm };
	const size_t sz[] = { sizeof(*rb->gx), sizeof(*rb->gm) };
	uint64_t m[RMAX] = { 0 }, seen = 0;
	uint32_t id, e, beg, ng = 0;

	if (!rb->nl)
		return 0;
	if (region_pairs_by_link(rb) < 0 ||
	    ibf_array_grow_par(&rb->gcap, 2 * rb->plen + 1, 2, arrs, sz) < 0)
		return -1;
	for (id = 0, beg = 0; id < rb->nl; id++) {
		uint32_t end = rb->lstart[id + 1];

		for (e = beg; e < end; e++) {
			uint32_t x = rb->lent[e] & 0xff, y = rb->lent[e] >> 8;

			m[x] |= 1ull << y;
			m[y] |= 1ull << x;
			seen |= 1ull << x | 1ull << y;
		}
		rb->lstart[id] = ng;
		for (; seen; seen &= seen - 1) {
			uint32_t x = (uint32_t)__builtin_ctzll(seen);

			rb->gx[ng] = (uint8_t)x;
			rb->gm[ng++] = m[x];
			m[x] = 0;
		}
		beg = end;
	}
	rb->lstart[rb->nl] = ng;
	for (id = 0; id < rb->nl; id++)
		rb->lmap[rb->lport[id]] = NONE;
	return 0;
}

/* Candidate pairs of the region (not DEAD, no link held by the rest of
 * the round: such a pair can never fit), traced once per search. */
static int region_cands(struct planner *pl, struct region_buf *rb,
			ibf_err_t *err)
{
	uint32_t i, j, np = pl->l->fabric->nports;
	const ibf_port_id_t *lk;
	ibf_probe_vec_t v;
	unsigned k, nl;

	if (!rb->lmap) {
		if (!(rb->lmap = malloc((np + 1) * sizeof(*rb->lmap))))
			return -1;
		for (i = 0; i <= np; i++)
			rb->lmap[i] = i < np && inner_link(pl->l->fabric, i) ?
				      NONE : NOT_INNER;
	}
	rb->plen = 0;
	rb->nl = 0;
	rb->freem = 0;
	memset(rb->nc, 0, sizeof(rb->nc));
	memset(rb->fit, 0, sizeof(rb->fit));
	for (i = 0; i < rb->nh; i++) {
		rb->freem |= 1ull << i;
		for (j = i + 1; j < rb->nh; j++) {
			if (*live_at(pl, rb->h[i], rb->h[j]) == DEAD)
				continue;
			if (!(lk = pair_links(pl, rb->h[i], rb->h[j], &v, &nl,
					      err)))
				return -2;
			for (k = 0; k < nl && pl->link_busy[lk[k]] == NONE; k++)
				;
			if (k == nl && region_cand(pl, rb, i, j, lk, nl) < 0)
				return -1;
		}
	}
	return region_index(rb);
}

static bool region_fits(const struct region_buf *rb, uint32_t i,
			uint32_t j)
{
	return (rb->freem >> i & 1) && (rb->freem >> j & 1) &&
	       (rb->fit[i] >> j & 1);
}

/* Probe (i, j) taken (on) or given back in the search: hosts and the
 * fit bits of the pairs on its inner links (given back by the caller,
 * from its copy). */
static void region_take(struct planner *pl, struct region_buf *rb,
			uint32_t i, uint32_t j, bool on)
{
	const uint32_t *lk = rb->pool + rb->loff[i][j];
	uint32_t k, e;

	pl->mate[rb->h[i]] = on ? rb->h[j] : NONE;
	pl->mate[rb->h[j]] = on ? rb->h[i] : NONE;
	if (!on) {
		rb->freem |= 1ull << i | 1ull << j;
		return;
	}
	rb->freem &= ~(1ull << i | 1ull << j);
	for (k = 0; k < rb->lcnt[i][j]; k++)
		for (e = rb->lstart[lk[k]]; e < rb->lstart[lk[k] + 1]; e++)
			rb->fit[rb->gx[e]] &= ~rb->gm[e];
}

/* Free region host with the fewest partners that still fit (one with
 * none at once: it can only stay free); NONE when all are decided. */
static uint32_t region_next(const struct region_buf *rb, uint32_t *nfit)
{
	uint32_t i, best = NONE, bf = UINT32_MAX;

	for (i = 0; i < rb->nh && bf; i++) {
		uint32_t f;

		if (!(rb->freem >> i & 1))
			continue;
		f = (uint32_t)__builtin_popcountll(rb->fit[i] & rb->freem);
		if (f < bf) {
			bf = f;
			best = i;
		}
	}
	*nfit = bf;
	return best;
}

static void region_save(const struct planner *pl, struct region_buf *rb,
			uint32_t got)
{
	uint32_t j;

	rb->best = got;
	for (j = 0; j < rb->nh; j++) {
		uint32_t m = pl->mate[rb->h[j]];

		rb->bm[j] = m == rb->h[j] ? NONE : m;
	}
	rb->stop = 2 * got + 1 >= rb->nh;	/* nothing better possible */
}

static int region_dfs(struct planner *pl, struct region_buf *rb,
		      uint32_t got, ibf_err_t *err);

/* Residual of candidate (i, j), i < j, against the rows at the search's
 * start (pl->ech is left alone during the search). */
static int region_residual(struct planner *pl, struct region_buf *rb,
			   uint32_t i, uint32_t j, ibf_err_t *err)
{
	void *const arrs[] = { &rb->rcol, &rb->rval };
	const size_t sz[] = { sizeof(*rb->rcol), sizeof(*rb->rval) };
	ibf_probe_vec_t v, w;

	if (pair_vec(pl, rb->h[i], rb->h[j], &v, err) < 0)
		return -2;
	if (ibf_array_grow_par(&rb->rcap, rb->rused + pl->cols.ncols, 2, arrs,
			       sz) < 0)
		return -1;
	rb->roff[i][j] = (uint32_t)rb->rused;
	rb->rlen[i][j] = ibf_probe_ech_residual(&pl->ech, permuted(pl, &v, &w),
						rb->rcol + rb->rused,
						rb->rval + rb->rused);
	rb->rused += rb->rlen[i][j];
	return 0;
}

/* Does probe (i, j) raise the rank of the rows at the search's start and
 * the search's probes?  Added to sub if so: 1; 0 not; < 0 error. */
static int region_indep(struct planner *pl, struct region_buf *rb,
			uint32_t i, uint32_t j, ibf_err_t *err)
{
	uint32_t lo = i < j ? i : j, hi = i ^ j ^ lo;
	uint32_t k = rb->dk[lo][hi], rows = rb->sub.nrows;
	int res;

	pl->tested++;
	if (rb->roff[lo][hi] == NONE &&
	    (res = region_residual(pl, rb, lo, hi, err)) < 0)
		return res;
	if (!rb->rlen[lo][hi])
		return 0;
	if (k && k <= rows && rb->stamp[k - 1] <= rb->dt[lo][hi])
		return 0;	/* those rows are still there */
	res = ibf_probe_ech_add_sparse(&rb->sub, rb->rcol + rb->roff[lo][hi],
				       rb->rval + rb->roff[lo][hi],
				       rb->rlen[lo][hi], true);
	if (res == 1)
		rb->stamp[rows] = ++rb->clock;
	else if (!res) {
		rb->dk[lo][hi] = rb->sub.used;
		rb->dt[lo][hi] = rb->clock;
	}
	return res;
}

/* Branch: host i with partner j, then the rest. */
static int region_try(struct planner *pl, struct region_buf *rb, uint32_t i,
		      uint32_t j, uint32_t got, ibf_err_t *err)
{
	uint32_t rows = rb->sub.nrows;
	uint64_t fit[RMAX];
	int res;

	if ((res = region_indep(pl, rb, i, j, err)) <= 0)
		return res;
	memcpy(fit, rb->fit, rb->nh * sizeof(*fit));
	region_take(pl, rb, i, j, true);
	res = region_dfs(pl, rb, got + 1, err);
	region_take(pl, rb, i, j, false);
	memcpy(rb->fit, fit, rb->nh * sizeof(*fit));
	ibf_probe_ech_truncate(&rb->sub, rows);
	return res;
}

/* Matchings of the region: the most constrained host first, its old
 * partner first; rows added and taken back in stack order; branches that
 * cannot beat the best are cut. */
static int region_dfs(struct planner *pl, struct region_buf *rb,
		      uint32_t got, ibf_err_t *err)
{
	uint32_t i, k, nfit, left;
	int res;

	if (++rb->nodes > REGION_NODES) {
		rb->stop = true;
		return 0;
	}
	left = (uint32_t)__builtin_popcountll(rb->freem);
	if (got + left / 2 <= rb->best)
		return 0;
	i = region_next(rb, &nfit);
	if (i == NONE || left < 2) {
		region_save(pl, rb, got);
		return 0;
	}
	for (k = 0; k < rb->nc[i] && nfit && !rb->stop; k++) {
		uint32_t j = rb->c[i][(k + rb->first[i]) % rb->nc[i]];

		if (region_fits(rb, i, j) &&
		    (res = region_try(pl, rb, i, j, got, err)) < 0)
			return res;
	}
	if (rb->stop)
		return 0;
	pl->mate[rb->h[i]] = rb->h[i];	/* host i stays free */
	rb->freem &= ~(1ull << i);
	res = region_dfs(pl, rb, got, err);
	rb->freem |= 1ull << i;
	pl->mate[rb->h[i]] = NONE;
	return res;
}

/* Pair (a, b)'s row, in v, added to the round's: 0; -1 when it is not
 * independent of them, -2 on an error. */
static int pair_row(struct planner *pl, uint32_t a, uint32_t b,
		    ibf_probe_vec_t *v, ibf_err_t *err)
{
	if (pair_vec(pl, a, b, v, err) < 0)
		return -2;
	return add_row(pl, v) == 1 ? 0 : -1;
}

/* The round's rows again (some of its probes were taken out): the pairs
 * that filled earlier rounds' holes meanwhile, then the round's probes; a
 * subset of an independent set, every one is added. */
static int round_rows_rebuild(struct planner *pl, ibf_err_t *err)
{
	uint32_t a, b, i;
	ibf_probe_vec_t v;
	int res;

	ibf_probe_ech_truncate(&pl->ech, pl->round_rows);
	for (i = pl->round_pairs; i < pl->npairs; i++) {
		if ((res = pair_row(pl, pl->pairs[i].a, pl->pairs[i].b, &v,
				    err)) < 0)
			return res;
	}
	for (a = 0; a < pl->n; a++) {
		b = pl->mate[a];
		if (b == NONE || b < a)
			continue;
		if ((res = pair_row(pl, a, b, &v, err)) < 0)
			return res;
	}
	return 0;
}

/* Put the region's probes (mates m, by region index) into the round. */
static int region_apply(struct planner *pl, const struct region_buf *rb,
			const uint32_t *m, ibf_err_t *err)
{
	uint32_t j, a, b;
	ibf_probe_vec_t v;
	int res;

	for (j = 0; j < rb->nh; j++) {
		a = rb->h[j];
		b = m[j];
		if (b == NONE || b < a)
			continue;
		if ((res = pair_row(pl, a, b, &v, err)) < 0)
			return res;	/* independent in this very state */
		mark(pl, a, b, &v, true);
	}
	return 0;
}

/* Take the region's probes out, search, keep the best.  1 gained, 0 not,
 * < 0 error. */
static int region_search(struct planner *pl, struct region_buf *rb,
			 ibf_err_t *err)
{
	uint32_t j, k, had = 0;
	ibf_probe_vec_t v;
	int res;

	for (j = 0; j < rb->nh; j++) {
		uint32_t a = rb->h[j], b = pl->mate[a];

		rb->old[j] = b;
		if (b == NONE || b < a)
			continue;
		had++;
		if (pair_vec(pl, a, b, &v, err) < 0)
			return -2;
		mark(pl, a, b, &v, false);
	}
	if ((res = round_rows_rebuild(pl, err)) < 0 ||
	    (res = region_cands(pl, rb, err)) < 0)
		return res;
	ibf_probe_ech_truncate(&rb->sub, 0);
	rb->rused = 0;
	for (j = 0; j < rb->nh; j++) {
		rb->first[j] = 0;
		for (k = 0; k < rb->nc[j]; k++)
			if (rb->h[rb->c[j][k]] == rb->old[j])
				rb->first[j] = (uint8_t)k;
	}
	rb->best = had;
	rb->nodes = 0;
	rb->stop = false;
	memcpy(rb->bm, rb->old, sizeof(rb->old));
	if ((res = region_dfs(pl, rb, 0, err)) < 0 ||
	    (res = region_apply(pl, rb, rb->bm, err)) < 0)
		return res;
	return rb->best > had;
}

/* Regions around the free hosts, each from another place and grown more
 * or less, until REGION_IDLE searches in a row bring nothing. */
int plan_regions(struct planner *pl, ibf_err_t *err)
{
	struct region_buf *rb = pl->rb;
	unsigned it, idle = 0;
	int res;

	if (!rb && !(rb = pl->rb = calloc(1, sizeof(*rb))))
		return -1;
	if (!rb->inreg && !(rb->inreg = calloc(pl->n, 1)))
		return -1;
	if (!rb->sub.piv &&
	    ibf_probe_ech_init(&rb->sub, pl->cols.ncols) != IBF_OK)
		return -1;
	for (it = 0; it < REGION_TRIES && idle < REGION_IDLE; it++) {
		rb->rot = (uint32_t)ibf_rng_below(&pl->rng, pl->n);
		rb->grow = 1 + it % 3;
		region_pick(pl, rb);
		if (rb->nh < 2)
			return 0;
		if ((res = region_search(pl, rb, err)) < 0)
			return res;
		idle = res ? 0 : idle + 1;
	}
	return 0;
}


void plan_regions_free(struct region_buf *rb)
{
	if (rb) {
		IBF_FREE_ALL(rb->pool, rb->lmap, rb->lport, rb->lstart,
			     rb->lent, rb->gx, rb->gm, rb->inreg, rb->rcol,
			     rb->rval);
		ibf_probe_ech_free(&rb->sub);
	}
	free(rb);
}
