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
 * paper's Welsh-Powell step, ~n rounds), the pairs are chosen with the
 * rounds in view (docs/probe.md#planning): passes, where every host
 * takes partners into the first round with room (rounds = the busiest
 * host's pairs); where that misses the lower bound ceil(pairs / (n/2)),
 * six perfect rounds by design on three-level fat trees of the right
 * shape (probe_lattice.c, symmetric model), else rounds built one at a
 * time as perfect matchings as far as greedy choice and region searches
 * get them (the bound needs the pairs spread evenly over the hosts).  The
 * plan with fewer rounds wins.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- planning ----------------------------------------------------------- */

/* Holes of at most this many hosts are counted probe by probe when
 * judging whether a plan can still beat another (can_beat()). */
#define HOLE_EXACT 8

/* Liveness of a pair, one byte per ordered pair (see find_live()). */
enum { DEAD = 0, LIVE = 1, SPENT = 2 };

struct planner {
	const ibf_lfts_t *l;
	const ibf_hostlist_t *h;
	ibf_probe_cols_t cols;
	ibf_probe_vcache_t *vc; /* shared by the strategies of one plan */
	ibf_probe_ech_t ech;
	uint32_t n;
	ibf_rng_t rng;
	/* [n * n]: DEAD in the span of the rows before this round; LIVE
	 * outside it; SPENT outside it but found dependent on this round's
	 * probes (they may be taken out again, so the pair is kept). */
	uint8_t *live;
	uint32_t *nlive;      /* [n] LIVE partners at the round's start */
	/* The plan so far: pairs with their rounds, and which hosts and
	 * links each round uses (a row of n and of nports bytes per round),
	 * so that later pairs can fill the holes of earlier rounds. */
	ibf_probe_pair_t *pairs;
	uint32_t *pair_round;
	size_t pcap, rcap;
	uint32_t npairs, nrounds;
	uint8_t *occ_host, *occ_link;
	uint32_t *holes;      /* [round] hosts it leaves free */
	uint32_t round_pairs; /* pairs before this round (later ones filled
			       * holes of earlier rounds meanwhile) */
	uint32_t nholes;      /* earlier rounds with room for a probe */
	uint64_t tested;
	uint32_t *perm;         /* column -> elimination position */
	uint32_t *xcol;         /* kernel vector by column */
	/* The round being built: a matching, who holds each link, and the
	 * echelon rows before it (its own rows come after, in stack order). */
	uint32_t *mate;       /* [n] partner, NONE, or itself (kept free) */
	uint32_t *link_busy;  /* [nports] a host of the probe using it, or NONE */
	uint32_t *order;      /* [n] hosts in the order they pick partners */
	uint32_t round_rows;
	uint32_t fresh;       /* probes taken since liveness was judged */
	uint32_t stale;       /* tests without rank since then */
	struct region_buf *rb; /* region search buffers (allocated on use) */
};

/* Work arrays of the liveness sweeps (find_live(), judge_free()). */
struct scratch {
	uint32_t *x, *D, *sum, *stack, *hx, *hsw, *fr;
	uint8_t *state;
	uint32_t *S;		/* [n x (switches + 1)]: route_sums() */
	uint32_t *slot;		/* [n]: a host's slot in a row of S */
	uint32_t *first, *second; /* [switches + 1]: hosts on a switch */
	uint32_t *used, nused;	/* switches with hosts */
	uint32_t *direct, ndirect; /* hosts cabled to another host */
};

static int64_t find_live(struct planner *pl, struct scratch *sc,
			 ibf_err_t *err);
static void judge_free(struct planner *pl, struct scratch *sc);

static uint8_t *live_at(const struct planner *pl, uint32_t a, uint32_t b)
{
	return pl->live + (size_t)a * pl->n + b;
}

static void set_live(struct planner *pl, uint32_t a, uint32_t b, uint8_t v)
{
	*live_at(pl, a, b) = *live_at(pl, b, a) = v;
}

static int pair_vec(struct planner *pl, uint32_t a, uint32_t b,
		    ibf_probe_vec_t *v, ibf_err_t *err)
{
	return ibf_probe_vcache_get(pl->vc, a, b, v, err) == IBF_OK ? 0 : -2;
}

/* Just the links of pair (a, b), for the tests of room (fits(),
 * hole_for()) that turn most pairs away before they are eliminated:
 * read in place from the cache (valid until the next pair_vec()), or
 * the whole vector traced into v. */
static const ibf_port_id_t *pair_links(struct planner *pl, uint32_t a,
				       uint32_t b, ibf_probe_vec_t *v,
				       unsigned *n, ibf_err_t *err)
{
	return ibf_probe_vcache_links(pl->vc, a, b, v, n, err);
}

/* The whole vector of a pair whose links pair_links() gave as lk. */
static int pair_rest(struct planner *pl, uint32_t a, uint32_t b,
		     const ibf_port_id_t *lk, ibf_probe_vec_t *v,
		     ibf_err_t *err)
{
	return lk == v->links ? 0 : pair_vec(pl, a, b, v, err);
}

/* Both hosts free in this round and no directed link of either leg used
 * by another probe of it. */
static bool fits(const struct planner *pl, uint32_t a, uint32_t b,
		 const ibf_port_id_t *lk, unsigned nl)
{
	unsigned i;

	if (pl->mate[a] != NONE || pl->mate[b] != NONE)
		return false;
	for (i = 0; i < nl; i++)
		if (pl->link_busy[lk[i]] != NONE)
			return false;
	return true;
}

/* Put probe (a, b) into the round (on) or take it out.  A link is used by
 * one probe of the round, so clearing it is exact. */
static void mark(struct planner *pl, uint32_t a, uint32_t b,
		 const ibf_probe_vec_t *v, bool on)
{
	unsigned i;

	pl->mate[a] = on ? b : NONE;
	pl->mate[b] = on ? a : NONE;
	for (i = 0; i < v->nlinks; i++)
		pl->link_busy[v->links[i]] = on ? a : NONE;
}

static const ibf_probe_vec_t *permuted(const struct planner *pl,
				       const ibf_probe_vec_t *v,
				       ibf_probe_vec_t *w)
{
	return ibf_probe_vec_permute(pl->perm, v, w);
}

/* Add v to the echelon form if it raises the rank: 1 added, 0 not, -1 no
 * memory. */
static int add_row(struct planner *pl, const ibf_probe_vec_t *v)
{
	ibf_probe_vec_t w;

	pl->tested++;
	return ibf_probe_ech_add(&pl->ech, permuted(pl, v, &w), true);
}

/* Probes taken make more and more LIVE pairs dependent: judge liveness
 * again (O(n^2)) after every n/4 of them rather than eliminate in vain. */
static int taken(struct planner *pl, struct scratch *sc, bool mid,
		 ibf_err_t *err)
{
	if (++pl->fresh < pl->n / 4 + 1)
		return 0;
	pl->fresh = pl->stale = 0;
	if (mid) {
		judge_free(pl, sc);
		return 0;
	}
	return find_live(pl, sc, err) < 0 ? -2 : 0;
}

/* Round by round, the last rounds test many LIVE pairs that the round's
 * probes have made dependent (they are few, so taken() rarely judges
 * again): judge again after every n/4 tests that found no rank too. */
static int spent(struct planner *pl, struct scratch *sc, ibf_err_t *err)
{
	(void)err;
	if (++pl->stale < pl->n / 4 + 1)
		return 0;
	pl->fresh = pl->stale = 0;
	judge_free(pl, sc);
	return 0;
}

/* Committed round before `before` that has room for probe (a, b): both
 * hosts free and every link unused; NONE if none has. */
static uint32_t hole_for(const struct planner *pl, uint32_t a, uint32_t b,
			 const ibf_port_id_t *lk, unsigned nl,
			 uint32_t before)
{
	uint32_t r, n = pl->n, np = pl->l->fabric->nports;
	unsigned i;

	for (r = 0; r < before; r++) {
		const uint8_t *hb = pl->occ_host + (size_t)r * n;
		const uint8_t *lb = pl->occ_link + (size_t)r * np;

		if (pl->holes[r] < 2 || hb[a] || hb[b])
			continue;
		for (i = 0; i < nl && !lb[lk[i]]; i++)
			;
		if (i == nl)
			return r;
	}
	return NONE;
}

/* Pair (a, b) joins committed round r for good. */
static int record_pair(struct planner *pl, uint32_t a, uint32_t b,
		       uint32_t r, const ibf_probe_vec_t *v)
{
	void *const arrs[] = { &pl->pairs, &pl->pair_round };
	const size_t sz[] = { sizeof(*pl->pairs), sizeof(*pl->pair_round) };
	uint8_t *lb = pl->occ_link + (size_t)r * pl->l->fabric->nports;
	unsigned i;

	if (ibf_array_grow_par(&pl->pcap, (size_t)pl->npairs + 1, 2, arrs,
			       sz) < 0)
		return -1;
	pl->pairs[pl->npairs].a = a;
	pl->pairs[pl->npairs].b = b;
	pl->pair_round[pl->npairs++] = r;
	pl->occ_host[(size_t)r * pl->n + a] = 1;
	pl->occ_host[(size_t)r * pl->n + b] = 1;
	for (i = 0; i < v->nlinks; i++)
		lb[v->links[i]] = 1;
	pl->holes[r] -= 2;
	set_live(pl, a, b, DEAD);
	return 0;
}

/* Free host a tries up to `tries` LIVE partners, by increasing index
 * offset (near partners first: short echelon rows).  A probe that fits a
 * hole of an earlier round and raises the rank goes there (a stays free
 * here); the first one that fits this round and raises the rank is taken
 * here.  1 matched here, 0 not, < 0 error. */
static int match_host(struct planner *pl, struct scratch *sc, uint32_t a,
		      unsigned tries, ibf_err_t *err)
{
	uint32_t n = pl->n, k, b, r;
	const ibf_port_id_t *lk;
	ibf_probe_vec_t v;
	unsigned t = 0, nl;
	int res;

	for (k = 1; k < n && t < tries && pl->mate[a] == NONE; k++) {
		b = a + k < n ? a + k : a + k - n;
		if (*live_at(pl, a, b) != LIVE)
			continue;
		if (pl->mate[b] != NONE && !pl->nholes)
			continue;
		if (!(lk = pair_links(pl, a, b, &v, &nl, err)))
			return -2;
		r = pl->nholes ? hole_for(pl, a, b, lk, nl, pl->nrounds) :
				 NONE;
		if (r == NONE && !fits(pl, a, b, lk, nl))
			continue;
		if (pair_rest(pl, a, b, lk, &v, err) < 0)
			return -2;
		t++;
		if ((res = add_row(pl, &v)) < 0)
			return -1;
		if (!res) {
			set_live(pl, a, b, SPENT);
			if (spent(pl, sc, err) < 0)
				return -2;
		} else if (r != NONE && record_pair(pl, a, b, r, &v) < 0)
			return -1;
		else if (r == NONE)
			mark(pl, a, b, &v, true);
	}
	return pl->mate[a] != NONE;
}

/* Hosts with the fewest live partners pick first: they are the ones a
 * perfect matching can least afford to strand (counting sort). */
static int host_order(struct planner *pl)
{
	uint32_t n = pl->n, a, *cnt = calloc(n + 1, sizeof(*cnt)), s = 0, t;

	if (!cnt)
		return -1;
	for (a = 0; a < n; a++)
		cnt[pl->nlive[a]]++;
	for (a = 0; a <= n; a++) {
		t = cnt[a];
		cnt[a] = s;
		s += t;
	}
	for (a = 0; a < n; a++)
		pl->order[cnt[pl->nlive[a]]++] = a;
	free(cnt);
	return 0;
}

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

#define RMAX 64u		/* hosts in a region */
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

/* The round's rows again (some of its probes were taken out): the pairs
 * that filled earlier rounds' holes meanwhile, then the round's probes; a
 * subset of an independent set, every one is added. */
static int round_rows_rebuild(struct planner *pl, ibf_err_t *err)
{
	uint32_t a, b, i;
	ibf_probe_vec_t v;

	ibf_probe_ech_truncate(&pl->ech, pl->round_rows);
	for (i = pl->round_pairs; i < pl->npairs; i++) {
		if (pair_vec(pl, pl->pairs[i].a, pl->pairs[i].b, &v, err) < 0)
			return -2;
		if (add_row(pl, &v) != 1)
			return -1;
	}
	for (a = 0; a < pl->n; a++) {
		b = pl->mate[a];
		if (b == NONE || b < a)
			continue;
		if (pair_vec(pl, a, b, &v, err) < 0)
			return -2;
		if (add_row(pl, &v) != 1)
			return -1;
	}
	return 0;
}

/* Put the region's probes (mates m, by region index) into the round. */
static int region_apply(struct planner *pl, const struct region_buf *rb,
			const uint32_t *m, ibf_err_t *err)
{
	uint32_t j, a, b;
	ibf_probe_vec_t v;

	for (j = 0; j < rb->nh; j++) {
		a = rb->h[j];
		b = m[j];
		if (b == NONE || b < a)
			continue;
		if (pair_vec(pl, a, b, &v, err) < 0)
			return -2;
		if (add_row(pl, &v) != 1)
			return -1;	/* independent in this very state */
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
static int regions(struct planner *pl, ibf_err_t *err)
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

/* ---- rounds ----------------------------------------------------------------- */

/* Room for the round about to be built: its occupancy rows, zeroed. */
static int open_round(struct planner *pl)
{
	uint32_t n = pl->n, np = pl->l->fabric->nports, r = pl->nrounds;
	void *const arrs[] = { &pl->occ_host, &pl->occ_link, &pl->holes };
	const size_t sz[] = { n, np, sizeof(*pl->holes) };

	if (ibf_array_grow_par(&pl->rcap, (size_t)r + 1, 3, arrs, sz) < 0)
		return -1;
	memset(pl->occ_host + (size_t)r * n, 0, n);
	memset(pl->occ_link + (size_t)r * np, 0, np);
	pl->holes[r] = n;
	for (pl->nholes = 0, r = 0; r < pl->nrounds; r++)
		pl->nholes += pl->holes[r] >= 2;
	pl->round_rows = pl->ech.nrows;
	pl->round_pairs = pl->npairs;
	return 0;
}

/* The round's probes go to the plan. */
static int commit_round(struct planner *pl, ibf_err_t *err)
{
	uint32_t n = pl->n, a, b, added = 0;
	ibf_probe_vec_t v;

	for (a = 0; a < n; a++) {
		b = pl->mate[a];
		if (b == NONE || b < a)
			continue;
		if (pair_vec(pl, a, b, &v, err) < 0)
			return -2;
		if (record_pair(pl, a, b, pl->nrounds, &v) < 0)
			return -1;
		added++;
	}
	pl->nrounds += added > 0;
	return 0;
}

/* One round: a matching of probes that fit together and raise the rank,
 * greedy first (most constrained hosts first, nearest partners first),
 * then mended by region searches (a round holds at most n/2 probes, and
 * perfect rounds are what reaches the lower bound). */
static int build_round(struct planner *pl, struct scratch *sc,
		       unsigned tries, ibf_err_t *err)
{
	uint32_t n = pl->n, i, a, free_hosts;
	int res;

	for (a = 0; a < n; a++)
		pl->mate[a] = NONE;
	for (a = 0; a < pl->l->fabric->nports; a++)
		pl->link_busy[a] = NONE;
	if (open_round(pl) < 0)
		return -1;
	pl->fresh = pl->stale = 0;
	if (host_order(pl) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		a = pl->order[i];
		if (pl->mate[a] != NONE || !pl->nlive[a])
			continue;
		if ((res = match_host(pl, sc, a, tries, err)) < 0)
			return res;
		if (res && (res = taken(pl, sc, true, err)) < 0)
			return res;
	}
	/* Mend a round when few hosts that could still be probed are left
	 * out (a region holds at most RMAX hosts). */
	for (a = 0, free_hosts = 0; a < n; a++)
		free_hosts += pl->mate[a] == NONE && pl->nlive[a];
	if (free_hosts > 1 &&
	    (free_hosts <= RMAX / 2 || 8 * free_hosts <= n) &&
	    (res = regions(pl, err)) < 0)
		return res;
	return commit_round(pl, err);
}

static void planner_free(struct planner *pl)
{
	free(pl->live);
	free(pl->nlive);
	free(pl->pairs);
	free(pl->pair_round);
	free(pl->occ_host);
	free(pl->occ_link);
	free(pl->holes);
	free(pl->perm);
	free(pl->xcol);
	free(pl->mate);
	free(pl->link_busy);
	free(pl->order);
	if (pl->rb) {
		IBF_FREE_ALL(pl->rb->pool, pl->rb->lmap, pl->rb->lport,
			     pl->rb->lstart, pl->rb->lent, pl->rb->gx,
			     pl->rb->gm, pl->rb->inreg, pl->rb->rcol,
			     pl->rb->rval);
		ibf_probe_ech_free(&pl->rb->sub);
	}
	free(pl->rb);
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
	free(sc->fr);
	free(sc->S);
	free(sc->slot);
	free(sc->first);
	free(sc->second);
	free(sc->used);
	free(sc->direct);
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
	sc->fr = malloc(n * sizeof(*sc->fr));
	sc->S = malloc((size_t)n * nsw * sizeof(*sc->S));
	sc->slot = malloc(n * sizeof(*sc->slot));
	sc->first = malloc(nsw * sizeof(*sc->first));
	sc->second = malloc(nsw * sizeof(*sc->second));
	sc->used = malloc(nsw * sizeof(*sc->used));
	sc->direct = malloc(n * sizeof(*sc->direct));
	if (!sc->x || !sc->D || !sc->sum || !sc->state || !sc->stack ||
	    !sc->hx || !sc->hsw || !sc->fr || !sc->S || !sc->slot ||
	    !sc->first || !sc->second || !sc->used || !sc->direct) {
		scratch_free(sc);
		return -1;
	}
	return 0;
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
			s = ibf_probe_fold(s + (uint64_t)e->eval[e->off[r] + k] *
					   x[e->ecol[e->off[r] + k]]);
		x[c] = s ? (uint32_t)(P - s) : 0;
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

#define TILE 64u

/* Per source host: its column's share and its leaf switch (NONE when it
 * is cabled to another host). */
static void source_shares(const struct planner *pl, const uint32_t *x,
			  uint32_t *hx, uint32_t *hsw)
{
	const ibf_fabric_t *f = pl->l->fabric;
	uint32_t a;

	for (a = 0; a < pl->n; a++) {
		ibf_port_id_t pa = pl->h->ports[a];
		ibf_port_id_t in = f->ports[pa].peer;

		hx[a] = x[pl->cols.port_col[pa]];
		hsw[a] = ibf_node_is_switch(f, f->ports[in].node) ?
			 f->switch_index[f->ports[in].node] : NONE;
	}
}

/* Where the routes into each destination start: every host's slot in a
 * row of S (its switch, or nsw, a slot holding 0, for a host cabled
 * straight to another), the switches that have hosts with up to two of
 * them (to name a source other than the destination), and the hosts
 * cabled straight to another. */
static void source_slots(const struct planner *pl, struct scratch *sc)
{
	uint32_t n = pl->n, nsw = pl->l->fabric->nswitches, a, s;

	for (s = 0; s <= nsw; s++)
		sc->first[s] = sc->second[s] = NONE;
	sc->nused = sc->ndirect = 0;
	for (a = 0; a < n; a++) {
		s = sc->hsw[a];
		sc->slot[a] = s == NONE ? nsw : s;
		if (s == NONE) {
			sc->direct[sc->ndirect++] = a;
		} else if (sc->first[s] == NONE) {
			sc->first[s] = a;
			sc->used[sc->nused++] = s;
		} else if (sc->second[s] == NONE) {
			sc->second[s] = a;
		}
	}
}

/* Every host's route to host b delivered (dest_sums() has just filled
 * state for b); else a broken source in *bad_a. */
static bool routes_to_ok(const struct planner *pl, const struct scratch *sc,
			 uint32_t b, uint32_t *bad_a)
{
	const ibf_fabric_t *f = pl->l->fabric;
	ibf_port_id_t pb = pl->h->ports[b];
	uint32_t i, s, a;

	for (i = 0; i < sc->nused; i++) {
		s = sc->used[i];
		a = sc->first[s] != b ? sc->first[s] : sc->second[s];
		if (sc->state[s] != 2 && a != NONE) {
			*bad_a = a;
			return false;
		}
	}
	for (i = 0; i < sc->ndirect; i++) {
		a = sc->direct[i];
		if (a != b && f->ports[pl->h->ports[a]].peer != pb) {
			*bad_a = a;
			return false;
		}
	}
	return true;
}

/* Row b of S: x summed along each switch's route to host b (slot nsw: 0);
 * the pair a -> b then sums hx[a] + S[b][slot[a]].  Rows of switches
 * rather than of hosts: 5x smaller than an n x n table on the 3,456-host
 * tree, and nothing but the sums is written.  False if a route is broken
 * (the caller traces it for the message). */
static bool route_sums(struct planner *pl, const uint32_t *x,
		       struct scratch *sc, uint32_t *bad_a, uint32_t *bad_b)
{
	uint32_t n = pl->n, nsw = pl->l->fabric->nswitches, b;

	source_shares(pl, x, sc->hx, sc->hsw);
	source_slots(pl, sc);
	for (b = 0; b < n; b++) {
		uint32_t *row = sc->S + (size_t)b * (nsw + 1);

		dest_sums(pl, pl->h->ports[b], x, row, sc->state, sc->stack);
		row[nsw] = 0;
		if (!routes_to_ok(pl, sc, b, bad_a)) {
			*bad_b = b;
			return false;
		}
	}
	return true;
}

/* sc->x: a random null-space vector by column, host columns at the share
 * one traversal carries. */
static void null_vector(struct planner *pl, struct scratch *sc)
{
	uint32_t c;

	kernel_vector(&pl->ech, &pl->rng, sc->x);
	if (pl->perm) {	/* positions back to columns */
		for (c = 0; c < pl->cols.ncols; c++)
			pl->xcol[c] = sc->x[pl->perm[c]];
		memcpy(sc->x, pl->xcol, pl->cols.ncols * sizeof(*sc->x));
	}
	/* Along a path each host link carries half its column's unknown
	 * (directed: the column is a sum of two links). */
	for (c = 0; c < pl->cols.nhostcols; c++)
		if (ibf_probe_cols_halved(&pl->cols, c))
			sc->x[c] = ibf_probe_mulmod(sc->x[c], (P + 1) / 2);
}

/* Whether each pair is outside the span of the rows so far (LIVE) or not
 * (DEAD), judged with one random null-space vector, with the hosts' LIVE
 * partners counted.  Returns the number of LIVE pairs, or -2 on a broken
 * route. */
static int64_t find_live(struct planner *pl, struct scratch *sc,
			 ibf_err_t *err)
{
	uint32_t n = pl->n, a, b, a0, b0, ba, bb;
	size_t stride = (size_t)pl->l->fabric->nswitches + 1;
	int64_t nlive = 0;

	null_vector(pl, sc);
	if (!route_sums(pl, sc->x, sc, &ba, &bb)) {
		ibf_probe_vec_t v;

		if (ibf_probe_vec_make(pl->l, &pl->cols, pl->h->ports[ba],
				       pl->h->ports[bb], &v, err) == IBF_OK)
			ibf_err_set(err, IBF_ERR_INVALID,
				    "a route between hosts %u and %u is "
				    "broken", ba, bb);
		return -2;
	}
	if (pl->nlive)
		memset(pl->nlive, 0, n * sizeof(*pl->nlive));
	/* Symmetric sweep in tiles: the S rows of both tiles stay cached. */
	for (a0 = 0; a0 < n; a0 += TILE)
		for (b0 = a0; b0 < n; b0 += TILE)
			for (a = a0; a < a0 + TILE && a < n; a++) {
				const uint32_t *sa = sc->S + (size_t)a * stride;
				uint32_t ha = sc->hx[a], la = sc->slot[a];

				for (b = b0 > a ? b0 : a + 1;
				     b < b0 + TILE && b < n; b++) {
					uint32_t s = addmod(
						addmod(ha, sc->S[(size_t)b *
								 stride + la]),
						addmod(sc->hx[b],
						       sa[sc->slot[b]]));
					uint8_t v = s ? LIVE : DEAD;

					set_live(pl, a, b, v);
					nlive += s != 0;
					if (pl->nlive && v == LIVE) {
						pl->nlive[a]++;
						pl->nlive[b]++;
					}
				}
			}
	return nlive;
}

/* Within a round: the pairs between hosts still free in it, judged
 * again; a LIVE one now inside the span becomes SPENT (the round's probes
 * may still be taken out again).  O(free x (switches + free)) instead of
 * O(n^2): late in a round few hosts are free.  Routes were all checked by
 * find_live() at the round's start. */
static void judge_free(struct planner *pl, struct scratch *sc)
{
	uint32_t n = pl->n, nf = 0, i, j, a, b;
	uint32_t *F = sc->fr, *Dc = sc->D;

	for (a = 0; a < n; a++)
		if (pl->mate[a] == NONE)
			F[nf++] = a;
	null_vector(pl, sc);
	source_shares(pl, sc->x, sc->hx, sc->hsw);
	for (j = 0; j < nf; j++) {
		b = F[j];
		dest_sums(pl, pl->h->ports[b], sc->x, sc->sum, sc->state,
			  sc->stack);
		for (i = 0; i < nf; i++) {
			uint32_t s = sc->hsw[F[i]];

			Dc[(size_t)j * nf + i] = s != NONE && sc->state[s] == 2 ?
				addmod(sc->hx[F[i]], sc->sum[s]) : sc->hx[F[i]];
		}
	}
	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++) {
			uint8_t *l = live_at(pl, F[i], F[j]);

			if (*l == LIVE &&
			    !addmod(Dc[(size_t)j * nf + i],
				    Dc[(size_t)i * nf + j]))
				set_live(pl, F[i], F[j], SPENT);
		}
}

/* ---- packing the tail ------------------------------------------------------- */

static void occ_set(struct planner *pl, uint32_t r, uint32_t a, uint32_t b,
		    const ibf_probe_vec_t *v, uint8_t on)
{
	uint8_t *lb = pl->occ_link + (size_t)r * pl->l->fabric->nports;
	unsigned i;

	pl->occ_host[(size_t)r * pl->n + a] = on;
	pl->occ_host[(size_t)r * pl->n + b] = on;
	for (i = 0; i < v->nlinks; i++)
		lb[v->links[i]] = on;
	pl->holes[r] += on ? -2 : 2;
}

/* The pairs are fixed; each, the last taken first, moves to the earliest
 * round with room for it, so that short tail rounds empty. */
static int repack(struct planner *pl, ibf_err_t *err)
{
	ibf_probe_vec_t v;
	uint32_t i, r;

	for (i = pl->npairs; i-- > 0;) {
		uint32_t a = pl->pairs[i].a, b = pl->pairs[i].b;

		if (pair_vec(pl, a, b, &v, err) < 0)
			return -2;
		r = hole_for(pl, a, b, v.links, v.nlinks, pl->pair_round[i]);
		if (r == NONE)
			continue;
		occ_set(pl, pl->pair_round[i], a, b, &v, 0);
		occ_set(pl, r, a, b, &v, 1);
		pl->pair_round[i] = r;
	}
	return 0;
}

/* The first strategy, cheap and good where rounds have room to spare: a
 * pass opens a round, and every host in index order takes up to `tries`
 * LIVE partners, each into the first round with room for it, if it raises
 * the rank.  Rounds come out as many as the busiest host has pairs. */
static int pass(struct planner *pl, struct scratch *sc, unsigned tries,
		ibf_err_t *err)
{
	uint32_t n = pl->n, a, k, b, r;
	const ibf_port_id_t *lk;
	ibf_probe_vec_t v;
	unsigned t, nl;
	int res;

	if (open_round(pl) < 0)
		return -1;
	pl->fresh = pl->stale = 0;
	for (a = 0; a < n; a++)
		for (k = 1, t = 0; k < n && t < tries; k++) {
			b = a + k < n ? a + k : a + k - n;
			if (*live_at(pl, a, b) != LIVE)
				continue;
			t++;
			if (!(lk = pair_links(pl, a, b, &v, &nl, err)))
				return -2;
			r = hole_for(pl, a, b, lk, nl, pl->nrounds + 1);
			if (r == NONE)
				continue;
			if (pair_rest(pl, a, b, lk, &v, err) < 0)
				return -2;
			if ((res = add_row(pl, &v)) < 0)
				return -1;
			if (!res) {
				set_live(pl, a, b, DEAD);
				continue;
			}
			if (record_pair(pl, a, b, r, &v) < 0)
				return -1;
			if ((res = taken(pl, sc, false, err)) < 0)
				return res;
		}
	pl->nrounds += pl->holes[pl->nrounds] < n;
	return 0;
}

/* Most probes the free hosts free[0..nf) of committed round r can
 * still take together, their links free in r (lb: r's link row, marked
 * and cleared here while trying): exhaustive, for small holes. */
static uint32_t hole_probes(struct planner *pl, uint8_t *lb,
			    const uint32_t *free_, uint32_t nf)
{
	uint32_t best, j, got;
	ibf_probe_vec_t v;
	unsigned i;

	if (nf < 2)
		return 0;
	best = hole_probes(pl, lb, free_ + 1, nf - 1); /* free_[0] left out */
	for (j = 1; j < nf && best < nf / 2; j++) {
		uint32_t rest[HOLE_EXACT], nr = 0, k;

		if (pair_vec(pl, free_[0], free_[j], &v, NULL) < 0)
			continue;
		for (i = 0; i < v.nlinks && !lb[v.links[i]]; i++)
			;
		if (i < v.nlinks)
			continue;
		for (k = 1; k < nf; k++)
			if (k != j)
				rest[nr++] = free_[k];
		for (i = 0; i < v.nlinks; i++)
			lb[v.links[i]] = 1;
		got = 1 + hole_probes(pl, lb, rest, nr);
		for (i = 0; i < v.nlinks; i++)
			lb[v.links[i]] = 0;
		best = got > best ? got : best;
	}
	return best;
}

/* Can the pairs still needed (rank - those planned) fit in fewer than
 * limit rounds?  They can only go where hosts are free: the holes of the
 * rounds so far (counted exactly, links included, when small) and whole
 * rounds up to limit - 1, floor(n/2) probes each.  Each count is an upper
 * bound, so "no" is sure. */
static bool can_beat(struct planner *pl, uint32_t limit, uint32_t rank)
{
	uint64_t room = (uint64_t)(limit - 1 - pl->nrounds) * (pl->n / 2);
	uint32_t r, a, nf, free_[HOLE_EXACT];

	if (rank <= pl->npairs)
		return true;
	for (r = 0; r < pl->nrounds && rank - pl->npairs > room; r++) {
		const uint8_t *hb = pl->occ_host + (size_t)r * pl->n;

		if (pl->holes[r] > HOLE_EXACT) {
			room += pl->holes[r] / 2;
			continue;
		}
		for (a = 0, nf = 0; a < pl->n && nf < HOLE_EXACT; a++)
			if (!hb[a])
				free_[nf++] = a;
		room += hole_probes(pl, pl->occ_link + (size_t)r *
				    pl->l->fabric->nports, free_, nf);
	}
	return rank - pl->npairs <= room;
}

/* Rounds until two independent random null-space vectors find no live
 * pair (the chance that an independent pair is left is below 2^-60);
 * then the tail is packed into earlier rounds where it fits.  With a
 * limit (a plan of that many rounds to beat) and the rank (its pairs:
 * every maximal plan has as many), planning stops as soon as it cannot
 * beat it. */
static int run_planner(struct planner *pl, unsigned tries, bool perfect,
		       uint32_t limit, uint32_t rank, ibf_err_t *err)
{
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
		if (limit && (pl->nrounds + 1 >= limit ||
			      (rank && !can_beat(pl, limit, rank)))) {
			res = 1;	/* cannot beat the plan it is to beat */
			break;
		}
		res = perfect ? build_round(pl, &sc, tries, err) :
				pass(pl, &sc, tries, err);
		if (res < 0)
			break;
	}
	scratch_free(&sc);
	return res ? res : repack(pl, err);
}

static int make_order(struct planner *pl)
{
	uint32_t nc = pl->cols.ncols;

	pl->perm = malloc(nc * sizeof(*pl->perm));
	pl->xcol = malloc(nc * sizeof(*pl->xcol));
	if (!pl->perm || !pl->xcol)
		return -1;
	return ibf_probe_col_order(pl->l->fabric, &pl->cols, pl->perm);
}

/* Pairs sorted by round (counting sort), empty rounds dropped. */
static ibf_status_t export_plan(struct planner *pl, ibf_probe_plan_t *out)
{
	uint32_t *cnt = calloc(pl->nrounds + 1, sizeof(*cnt)), i, r, nr = 0;

	out->nhosts = pl->n;
	out->npairs = out->rank = pl->npairs;
	out->pairs = malloc((pl->npairs + 1) * sizeof(*out->pairs));
	out->round_start = calloc(pl->nrounds + 1,
				  sizeof(*out->round_start));
	if (!out->pairs || !out->round_start || !cnt) {
		free(cnt);
		return IBF_ERR_NOMEM;
	}
	for (i = 0; i < pl->npairs; i++)
		cnt[pl->pair_round[i]]++;
	for (r = 0; r < pl->nrounds; r++)
		if (cnt[r]) {
			out->round_start[nr + 1] = out->round_start[nr] +
						   cnt[r];
			cnt[r] = out->round_start[nr++];
		}
	for (i = 0; i < pl->npairs; i++)
		out->pairs[cnt[pl->pair_round[i]]++] = pl->pairs[i];
	free(cnt);
	out->nrounds = nr;
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

/* Pair vectors for every strategy of one plan: the columns they are
 * over (each planner makes the same ones again) and the cache. */
struct pair_cache {
	ibf_probe_cols_t cols;
	ibf_probe_vcache_t vc;
};

static void pair_cache_free(struct pair_cache *pc)
{
	ibf_probe_vcache_free(&pc->vc);
	ibf_probe_cols_free(&pc->cols);
}

static ibf_status_t pair_cache_init(struct pair_cache *pc,
				    const ibf_lfts_t *l,
				    const ibf_hostlist_t *h,
				    ibf_probe_model_t model, ibf_err_t *err)
{
	ibf_status_t st;

	memset(pc, 0, sizeof(*pc));
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &pc->cols,
				      err)) != IBF_OK)
		return st;
	if (ibf_probe_vcache_init(&pc->vc, l, &pc->cols, h) != IBF_OK) {
		pair_cache_free(pc);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	return IBF_OK;
}

/* One plan by one strategy (perfect: round by round; else passes).  With
 * a limit, planning stops once limit - 1 rounds are full and pairs are
 * left, or (given the rank) once the pairs left cannot fit in the rounds
 * below the limit: it would need limit rounds at least (*beaten set, out
 * empty). */
static ibf_status_t plan_once(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, ibf_probe_vcache_t *vc,
			      unsigned tries, bool perfect, uint32_t limit,
			      uint32_t rank, bool *beaten,
			      ibf_probe_plan_t *out, ibf_err_t *err)
{
	struct planner pl = { .l = l, .h = h, .n = h->n, .vc = vc,
			      .rng.s = 0x9e3779b97f4a7c15ull };
	ibf_status_t st;
	int res;

	memset(out, 0, sizeof(*out));
	if ((st = ibf_probe_cols_init(l->fabric, h, model, &pl.cols,
				      err)) != IBF_OK)
		return st;
	pl.live = calloc((size_t)pl.n * pl.n, 1);
	pl.nlive = calloc(pl.n, sizeof(*pl.nlive));
	pl.mate = malloc(pl.n * sizeof(*pl.mate));
	pl.order = malloc(pl.n * sizeof(*pl.order));
	pl.link_busy = malloc((l->fabric->nports + 1) *
			      sizeof(*pl.link_busy));
	if (!pl.live || !pl.nlive || !pl.mate || !pl.order || !pl.link_busy ||
	    ibf_probe_ech_init(&pl.ech, pl.cols.ncols) != IBF_OK ||
	    make_order(&pl) < 0) {
		planner_free(&pl);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	res = run_planner(&pl, tries, perfect, limit, rank, err);
	*beaten = res == 1;
	if (res == 1) {
		out->tested = pl.tested;
		planner_free(&pl);
		return IBF_OK;
	}
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
	return IBF_OK;
}

ibf_status_t ibf_probe_plan_by(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			       const ibf_probe_opts_t *o, bool perfect,
			       ibf_probe_plan_t *out, ibf_err_t *err)
{
	ibf_probe_model_t model = o ? o->model : IBF_PROBE_DIRECTED;
	struct pair_cache pc;
	ibf_status_t st;
	bool beaten;

	if (h->n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "probe planning needs at least 2 hosts");
	if ((st = pair_cache_init(&pc, l, h, model, err)) != IBF_OK)
		return st;
	st = plan_once(l, h, model, &pc.vc, o && o->tries ? o->tries : 64,
		       perfect, 0, 0, &beaten, out, err);
	pair_cache_free(&pc);
	return st;
}

/* Where the fabric has the shape for it (symmetric model, three-level
 * fat tree, rank = 3 x hosts), six perfect rounds by design replace the
 * passes' plan: the same rank, so as maximal. */
static ibf_status_t by_design(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, ibf_probe_plan_t *out,
			      ibf_err_t *err)
{
	ibf_probe_plan_t alt;
	int res;

	if (model != IBF_PROBE_SYMMETRIC)
		return IBF_OK;
	res = ibf_probe_plan_lattice(l, h, out->npairs, &alt);
	if (res < 0) {
		ibf_probe_plan_free(out);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (res == 1 && alt.nrounds < out->nrounds) {
		alt.nlinks = out->nlinks;
		alt.tested += out->tested;
		ibf_probe_plan_free(out);
		*out = alt;
	} else if (res == 1) {
		ibf_probe_plan_free(&alt);
	}
	return IBF_OK;
}

/* Passes, then rounds by design or perfect rounds where they miss the
 * bound (ibf_probe_plan()). */
static ibf_status_t plan_best(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			      ibf_probe_model_t model, unsigned tries,
			      ibf_probe_vcache_t *vc, ibf_probe_plan_t *out,
			      ibf_err_t *err)
{
	ibf_probe_plan_t alt;
	ibf_status_t st;
	bool beaten;

	if ((st = plan_once(l, h, model, vc, tries, false, 0, 0, &beaten, out,
			    err)) != IBF_OK)
		return st;
	if (out->nrounds > out->lower_bound &&
	    (st = by_design(l, h, model, out, err)) != IBF_OK)
		return st;
	if (out->nrounds <= out->lower_bound)
		return IBF_OK;
	if ((st = plan_once(l, h, model, vc, tries, true, out->nrounds,
			    out->npairs, &beaten, &alt, err)) != IBF_OK) {
		ibf_probe_plan_free(out);
		return st;
	}
	alt.tested += out->tested;
	if (!beaten && alt.nrounds < out->nrounds) {
		ibf_probe_plan_free(out);
		*out = alt;
	} else {
		out->tested = alt.tested;
		ibf_probe_plan_free(&alt);
	}
	return IBF_OK;
}

/* Passes first; where they miss the lower bound, rounds by design where
 * the fabric allows, else perfect rounds, and the plan with fewer rounds
 * is kept (all are maximal independent sets of the same rank). */
ibf_status_t ibf_probe_plan(const ibf_lfts_t *l, const ibf_hostlist_t *h,
			    const ibf_probe_opts_t *o, ibf_probe_plan_t *out,
			    ibf_err_t *err)
{
	struct timespec t0, t1;
	unsigned tries = o && o->tries ? o->tries : 64;
	ibf_probe_model_t model = o ? o->model : IBF_PROBE_DIRECTED;
	struct pair_cache pc;
	ibf_status_t st;

	memset(out, 0, sizeof(*out));
	if (h->n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "probe planning needs at least 2 hosts");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((st = pair_cache_init(&pc, l, h, model, err)) != IBF_OK)
		return st;
	st = plan_best(l, h, model, tries, &pc.vc, out, err);
	pair_cache_free(&pc);
	if (st != IBF_OK)
		return st;
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
	struct planner pl = { .l = l, .h = h, .n = h->n, .cols = *c,
			      .ech = *e, .rng.s = 0x2545f4914f6cdd1dull };
	struct scratch sc;
	uint32_t n = h->n;
	ibf_status_t st = IBF_OK;
	size_t i;
	int k;

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
