/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe planning (see probe_plan.c): passes over the hosts that fill the
 * rounds, the tail's repacking, and one strategy run to its end.
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "sched/probe_planner.h"

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
		r = plan_hole_for(pl, a, b, v.links, v.nlinks,
				  pl->pair_round[i]);
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

	if (plan_open_round(pl) < 0)
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
			r = plan_hole_for(pl, a, b, lk, nl, pl->nrounds + 1);
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
			if (plan_record_pair(pl, a, b, r, &v) < 0)
				return -1;
			if ((res = plan_taken(pl, sc, false, err)) < 0)
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
int plan_run_planner(struct planner *pl, unsigned tries, bool perfect,
		     uint32_t limit, uint32_t rank, ibf_err_t *err)
{
	struct scratch sc;
	unsigned clean = 0;
	int res = 0;

	if (plan_scratch_init(&sc, pl->cols.ncols, pl->n,
			 pl->l->fabric->nswitches) < 0)
		return -1;
	while (clean < 2) {
		int64_t nlive = plan_find_live(pl, &sc, err);

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
		res = perfect ? plan_build_round(pl, &sc, tries, err) :
				pass(pl, &sc, tries, err);
		if (res < 0)
			break;
	}
	plan_scratch_free(&sc);
	return res ? res : repack(pl, err);
}

int plan_make_order(struct planner *pl)
{
	uint32_t nc = pl->cols.ncols;

	pl->perm = malloc(nc * sizeof(*pl->perm));
	pl->xcol = malloc(nc * sizeof(*pl->xcol));
	if (!pl->perm || !pl->xcol)
		return -1;
	return ibf_probe_col_order(pl->l->fabric, &pl->cols, pl->perm);
}

/* Pairs sorted by round (counting sort), empty rounds dropped. */
