/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Probe planning (see probe_plan.c): the plan so far, the round being
 * built, and which pairs are still independent of the plan (liveness,
 * by random vectors of the null space).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/rng.h"
#include "sched/probe_planner.h"

#define P IBF_PROBE_PRIME

/* ---- planning ----------------------------------------------------------- */

static void judge_free(struct planner *pl, struct scratch *sc);

/* Probes taken make more and more LIVE pairs dependent: judge liveness
 * again (O(n^2)) after every n/4 of them rather than eliminate in vain. */
int plan_taken(struct planner *pl, struct scratch *sc, bool mid,
	       ibf_err_t *err)
{
	if (++pl->fresh < pl->n / 4 + 1)
		return 0;
	pl->fresh = pl->stale = 0;
	if (mid) {
		judge_free(pl, sc);
		return 0;
	}
	return plan_find_live(pl, sc, err) < 0 ? -2 : 0;
}

/* Round by round, the last rounds test many LIVE pairs that the round's
 * probes have made dependent (they are few, so plan_taken() rarely judges
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
uint32_t plan_hole_for(const struct planner *pl, uint32_t a, uint32_t b,
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
int plan_record_pair(struct planner *pl, uint32_t a, uint32_t b,
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
		r = pl->nholes ? plan_hole_for(pl, a, b, lk, nl, pl->nrounds) :
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
		} else if (r != NONE && plan_record_pair(pl, a, b, r, &v) < 0)
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

/* ---- rounds ----------------------------------------------------------------- */

/* Room for the round about to be built: its occupancy rows, zeroed. */
int plan_open_round(struct planner *pl)
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
		if (plan_record_pair(pl, a, b, pl->nrounds, &v) < 0)
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
int plan_build_round(struct planner *pl, struct scratch *sc,
		     unsigned tries, ibf_err_t *err)
{
	uint32_t n = pl->n, i, a, free_hosts;
	int res;

	for (a = 0; a < n; a++)
		pl->mate[a] = NONE;
	for (a = 0; a < pl->l->fabric->nports; a++)
		pl->link_busy[a] = NONE;
	if (plan_open_round(pl) < 0)
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
		if (res && (res = plan_taken(pl, sc, true, err)) < 0)
			return res;
	}
	/* Mend a round when few hosts that could still be probed are left
	 * out (a region holds at most RMAX hosts). */
	for (a = 0, free_hosts = 0; a < n; a++)
		free_hosts += pl->mate[a] == NONE && pl->nlive[a];
	if (free_hosts > 1 &&
	    (free_hosts <= RMAX / 2 || 8 * free_hosts <= n) &&
	    (res = plan_regions(pl, err)) < 0)
		return res;
	return commit_round(pl, err);
}

void plan_planner_free(struct planner *pl)
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
	plan_regions_free(pl->rb);
	ibf_probe_cols_free(&pl->cols);
	ibf_probe_ech_free(&pl->ech);
}

void plan_scratch_free(struct scratch *sc)
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

int plan_scratch_init(struct scratch *sc, uint32_t ncols, uint32_t n,
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
		plan_scratch_free(sc);
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
int64_t plan_find_live(struct planner *pl, struct scratch *sc,
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
 * plan_find_live() at the round's start. */
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
