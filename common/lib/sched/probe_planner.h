/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Private to the probe planner (probe_plan.c on top of probe_tail.c, on
 * top of probe_rounds.c, on top of probe_region.c): the planner's state
 * and the steps they share.
 */
#ifndef IBFLOW_PROBE_PLANNER_H
#define IBFLOW_PROBE_PLANNER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "sched/probe_internal.h"

#define NONE IBF_PROBE_NONE
#define RMAX 64u		/* hosts in a region */

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

struct region_buf;

static inline uint8_t *live_at(const struct planner *pl, uint32_t a,
			       uint32_t b)
{
	return pl->live + (size_t)a * pl->n + b;
}

static inline void set_live(struct planner *pl, uint32_t a, uint32_t b,
			    uint8_t v)
{
	*live_at(pl, a, b) = *live_at(pl, b, a) = v;
}

static inline int pair_vec(struct planner *pl, uint32_t a, uint32_t b,
			   ibf_probe_vec_t *v, ibf_err_t *err)
{
	return ibf_probe_vcache_get(pl->vc, a, b, v, err) == IBF_OK ? 0 : -2;
}

/* Just the links of pair (a, b), for the tests of room (fits(),
 * plan_hole_for()) that turn most pairs away before they are eliminated:
 * read in place from the cache (valid until the next pair_vec()), or
 * the whole vector traced into v. */
static inline const ibf_port_id_t *pair_links(struct planner *pl, uint32_t a,
					      uint32_t b, ibf_probe_vec_t *v,
					      unsigned *n, ibf_err_t *err)
{
	return ibf_probe_vcache_links(pl->vc, a, b, v, n, err);
}

/* The whole vector of a pair whose links pair_links() gave as lk. */
static inline int pair_rest(struct planner *pl, uint32_t a, uint32_t b,
			    const ibf_port_id_t *lk, ibf_probe_vec_t *v,
			    ibf_err_t *err)
{
	return lk == v->links ? 0 : pair_vec(pl, a, b, v, err);
}

/* Both hosts free in this round and no directed link of either leg used
 * by another probe of it. */
static inline bool fits(const struct planner *pl, uint32_t a, uint32_t b,
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
static inline void mark(struct planner *pl, uint32_t a, uint32_t b,
			const ibf_probe_vec_t *v, bool on)
{
	unsigned i;

	pl->mate[a] = on ? b : NONE;
	pl->mate[b] = on ? a : NONE;
	for (i = 0; i < v->nlinks; i++)
		pl->link_busy[v->links[i]] = on ? a : NONE;
}

static inline const ibf_probe_vec_t *permuted(const struct planner *pl,
					      const ibf_probe_vec_t *v,
					      ibf_probe_vec_t *w)
{
	return ibf_probe_vec_permute(pl->perm, v, w);
}

/* Add v to the echelon form if it raises the rank: 1 added, 0 not, -1 no
 * memory. */
static inline int add_row(struct planner *pl, const ibf_probe_vec_t *v)
{
	ibf_probe_vec_t w;

	pl->tested++;
	return ibf_probe_ech_add(&pl->ech, permuted(pl, v, &w), true);
}

/* probe_rounds.c: the plan so far, rounds, liveness */
int plan_taken(struct planner *pl, struct scratch *sc, bool mid,
	       ibf_err_t *err);
uint32_t plan_hole_for(const struct planner *pl, uint32_t a, uint32_t b,
		       const ibf_port_id_t *lk, unsigned nl,
		       uint32_t before);
int plan_record_pair(struct planner *pl, uint32_t a, uint32_t b,
		     uint32_t r, const ibf_probe_vec_t *v);
int plan_open_round(struct planner *pl);
int plan_build_round(struct planner *pl, struct scratch *sc,
		     unsigned tries, ibf_err_t *err);
void plan_scratch_free(struct scratch *sc);
int plan_scratch_init(struct scratch *sc, uint32_t ncols, uint32_t n,
		      uint32_t nswitches);
int64_t plan_find_live(struct planner *pl, struct scratch *sc,
		       ibf_err_t *err);
void plan_planner_free(struct planner *pl);

/* probe_region.c: region searches of the round being built */
int plan_regions(struct planner *pl, ibf_err_t *err);
void plan_regions_free(struct region_buf *rb);

/* probe_tail.c: passes, the tail, a strategy's run */
int plan_run_planner(struct planner *pl, unsigned tries, bool perfect,
		     uint32_t limit, uint32_t rank, ibf_err_t *err);
int plan_make_order(struct planner *pl);

#endif
