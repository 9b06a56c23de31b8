/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all liquid schedules at scale (thousands of ranks).
 *
 * Routes are destination-based: the path of rank i to rank j is i's own
 * link followed by the path from i's switch to j.  So no transfer is
 * stored: ranks are grouped by the switch they hang off, and only the
 * G x n "tails" (group g -> rank j) are traced and kept.  Which transfers
 * are still to be scheduled is one bit per transfer, twice (by tail and by
 * sender); the schedule is one frame number per transfer.
 *
 * Schedules built here:
 *  - round robin, the paper's topology-unaware baseline: phase k sends
 *    i -> i + k mod n, each phase split first-fit (in rank order) into
 *    congestion-free frames.  Built first, so any time limit returns a
 *    valid schedule;
 *  - first fit over all frames at once: every transfer, in a phase order,
 *    takes the first frame in which all its links are free (one bit per
 *    link and frame, and per link a bit per 64 frames when they are all
 *    busy, so busy stretches are skipped 4,096 frames at a time).  Unlike
 *    round robin, a phase's leftovers fill the holes of earlier frames.
 *    Two phase orders: rank shifts i -> i + k, and group pairs (switch g
 *    to switch g + m, then the members), which suits ranks listed switch
 *    by switch.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "base/array.h"
#include "sched/liquid_a2a.h"

/* ---- building: groups, links, tails ------------------------------------ */

void lq_a2a_free(struct lq_a2a *a)
{
	if (!a)
		return;
	free(a->ranks);
	free(a->grp);
	free(a->gpos);
	free(a->goff);
	free(a->gmem);
	free(a->inj);
	free(a->link_port);
	free(a->link_rank);
	free(a->toff);
	free(a->tl);
	free(a->tlen);
	free(a->load);
	free(a);
}

static ibf_status_t nomem(ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_NOMEM, "liquid: out of memory");
}

/* Ranks must be distinct connected CA ports. */
static ibf_status_t check_ranks(const ibf_fabric_t *f,
				const ibf_port_id_t *ranks, uint32_t n,
				uint32_t *seen, ibf_err_t *err)
{
	char a[64];

	for (uint32_t i = 0; i < n; i++) {
		ibf_port_id_t p = ranks[i];

		if (p >= f->nports || ibf_node_is_switch(f, f->ports[p].node) ||
		    f->ports[p].num == 0 || f->ports[p].peer == IBF_NO_ID)
			return ibf_err_set(err, IBF_ERR_INVALID, "rank %u: not "
					   "a connected CA port", i);
		if (seen[p] != LQ_NONE)
			return ibf_err_set(err, IBF_ERR_INVALID, "ranks %u and "
					   "%u are the same port (%s)",
					   seen[p], i, ibf_port_host_name(
						   f, p, a, sizeof(a)));
		seen[p] = i;
	}
	return IBF_OK;
}

/* Groups by the node at the other end of each rank's link, numbered in
 * order of first appearance among the ranks. */
static ibf_status_t make_groups(struct lq_a2a *a, const ibf_fabric_t *f,
				ibf_err_t *err)
{
	uint32_t *gof = malloc(((size_t)f->nnodes + 1) * sizeof(uint32_t));
	uint32_t n = a->n, maxg = 0;

	a->grp = malloc(((size_t)n + 1) * sizeof(uint32_t));
	a->gpos = malloc(((size_t)n + 1) * sizeof(uint32_t));
	a->goff = calloc((size_t)n + 2, sizeof(uint32_t));
	a->gmem = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!gof || !a->grp || !a->gpos || !a->goff || !a->gmem) {
		free(gof);
		return nomem(err);
	}
	for (uint32_t v = 0; v < f->nnodes; v++)
		gof[v] = LQ_NONE;
	a->G = 0;
	for (uint32_t i = 0; i < n; i++) {
		ibf_node_id_t v = f->ports[f->ports[a->ranks[i]].peer].node;

		if (gof[v] == LQ_NONE)
			gof[v] = a->G++;
		a->grp[i] = gof[v];
		a->gpos[i] = a->goff[gof[v] + 2]++;
	}
	free(gof);
	for (uint32_t g = 0; g < a->G; g++) {
		if (a->goff[g + 2] > maxg)
			maxg = a->goff[g + 2];
		a->goff[g + 2] += a->goff[g + 1];
	}
	for (uint32_t i = 0; i < n; i++)
		a->gmem[a->goff[a->grp[i] + 1]++] = i;
	a->W = (maxg + 63) / 64;
	return IBF_OK;
}

static uint32_t link_of(struct lq_a2a *a, uint32_t *port_link,
			ibf_port_id_t p)
{
	if (port_link[p] == LQ_NONE) {
		port_link[p] = a->L;
		a->link_port[a->L++] = p;
	}
	return port_link[p];
}

/* The path from group g's switch to rank j, traced from a member of g
 * other than j. */
static ibf_status_t trace_tail(struct lq_a2a *a, const ibf_lfts_t *l,
			       uint32_t g, uint32_t j, uint32_t *port_link,
			       ibf_port_id_t *hops, unsigned maxh,
			       size_t *cap, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	uint32_t m0 = a->gmem[a->goff[g]], src, t = g * a->n + j;
	size_t k = a->toff[t];
	ibf_trace_result_t r;
	unsigned nh = 0;
	char n1[64], n2[64];

	src = m0 != j ? m0 : a->goff[g + 1] - a->goff[g] > 1 ?
		a->gmem[a->goff[g] + 1] : LQ_NONE;
	if (src == LQ_NONE) {           /* j alone in its group */
		a->toff[t + 1] = (uint32_t)k;
		return IBF_OK;
	}
	r = ibf_trace(l, a->ranks[src], ibf_port_base_lid(f, a->ranks[j]),
		      hops, maxh, &nh);
	if (r != IBF_TRACE_OK || nh > maxh || nh < 1)
		return ibf_err_set(err, IBF_ERR_INVALID, "route %s -> %s is "
				   "not delivered: %s",
				   ibf_port_host_name(f, a->ranks[src], n1,
						      sizeof(n1)),
				   ibf_port_host_name(f, a->ranks[j], n2,
						      sizeof(n2)),
				   r == IBF_TRACE_OK ? "too long" :
				   ibf_trace_result_str(r));
	if (k + nh > *cap) {
		uint32_t *nt;

		if (k + nh > UINT32_MAX ||
		    !(nt = ibf_array_grow(a->tl, cap, k + nh, sizeof(*nt))))
			return nomem(err);
		a->tl = nt;
	}
	for (unsigned h = 1; h < nh; h++)
		a->tl[k++] = link_of(a, port_link, hops[h]);
	if (nh - 1 > a->H)
		a->H = nh - 1;
	a->toff[t + 1] = (uint32_t)k;
	return IBF_OK;
}

/* Tails to a fixed stride of H links (one lookup instead of two). */
static ibf_status_t fixed_stride(struct lq_a2a *a)
{
	uint64_t nt = (uint64_t)a->G * a->n;
	uint32_t H = a->H ? a->H : 1;
	uint32_t *tl = malloc((nt * H + 1) * sizeof(uint32_t));
	uint8_t *len = malloc(nt + 1);

	if (!tl || !len || H > 255) {
		free(tl);
		free(len);
		return IBF_ERR_NOMEM;
	}
	for (uint64_t t = 0; t < nt; t++) {
		len[t] = (uint8_t)(a->toff[t + 1] - a->toff[t]);
		memcpy(tl + t * H, a->tl + a->toff[t], len[t] * sizeof(*tl));
	}
	free(a->tl);
	free(a->toff);
	a->toff = NULL;
	a->tl = tl;
	a->tlen = len;
	a->H = H;
	return IBF_OK;
}

static void loads(struct lq_a2a *a)
{
	for (uint32_t i = 0; i < a->n; i++)
		a->load[a->inj[i]] += a->n - 1;
	for (uint32_t g = 0; g < a->G; g++) {
		uint32_t k = a->goff[g + 1] - a->goff[g];

		for (uint32_t j = 0; j < a->n; j++) {
			uint32_t t = g * a->n + j, s = k - (a->grp[j] == g);

			const uint32_t *tl = a->tl + (uint64_t)t * a->H;

			for (uint32_t q = 0; q < a->tlen[t]; q++)
				a->load[tl[q]] += s;
		}
	}
	a->D = 0;
	for (uint32_t x = 0; x < a->L; x++)
		if (a->load[x] > a->D)
			a->D = a->load[x];
}

static ibf_status_t build_tails(struct lq_a2a *a, const ibf_lfts_t *l,
				struct lq_clock *clk, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned maxh = f->nswitches + 2;
	uint32_t *port_link = malloc(((size_t)f->nports + 1) *
				     sizeof(uint32_t));
	ibf_port_id_t *hops = malloc(((size_t)maxh + 1) * sizeof(*hops));
	size_t cap = (size_t)a->G * a->n * 4 + 16;
	ibf_status_t st = IBF_OK;

	a->link_port = malloc(((size_t)f->nports + 1) * sizeof(ibf_port_id_t));
	a->inj = malloc(((size_t)a->n + 1) * sizeof(uint32_t));
	a->toff = calloc((size_t)a->G * a->n + 1, sizeof(uint32_t));
	a->tl = malloc(cap * sizeof(uint32_t));
	if (!port_link || !hops || !a->link_port || !a->inj || !a->toff ||
	    !a->tl) {
		free(port_link);
		free(hops);
		return nomem(err);
	}
	for (uint32_t p = 0; p < f->nports; p++)
		port_link[p] = LQ_NONE;
	for (uint32_t i = 0; i < a->n; i++)
		a->inj[i] = link_of(a, port_link, a->ranks[i]);
	a->complete = true;
	for (uint64_t t = 0; st == IBF_OK && t < (uint64_t)a->G * a->n; t++) {
		if (!a->complete) {     /* cut short: the rest stays empty */
			a->toff[t + 1] = a->toff[t];
			continue;
		}
		st = trace_tail(a, l, (uint32_t)(t / a->n),
				(uint32_t)(t % a->n), port_link, hops, maxh,
				&cap, err);
		if (lq_tick(clk, 8))
			a->complete = false;
	}
	free(port_link);
	free(hops);
	if (st != IBF_OK)
		return st;
	st = fixed_stride(a);
	if (st != IBF_OK)
		return nomem(err);
	a->link_rank = malloc(((size_t)a->L + 1) * sizeof(uint32_t));
	a->load = calloc((size_t)a->L + 1, sizeof(uint32_t));
	if (!a->link_rank || !a->load)
		return nomem(err);
	for (uint32_t x = 0; x < a->L; x++)
		a->link_rank[x] = LQ_NONE;
	for (uint32_t i = 0; i < a->n; i++)
		a->link_rank[a->inj[i]] = i;
	loads(a);
	return IBF_OK;
}

ibf_status_t lq_a2a_build(const ibf_lfts_t *l, const ibf_port_id_t *ranks,
			  uint32_t n, struct lq_clock *clk,
			  struct lq_a2a **out, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	struct lq_a2a *a = calloc(1, sizeof(*a));
	uint32_t *seen = malloc(((size_t)f->nports + 1) * sizeof(uint32_t));
	ibf_status_t st;

	*out = NULL;
	if (!a || !seen) {
		free(a);
		free(seen);
		return nomem(err);
	}
	if ((uint64_t)n * (n ? n - 1 : 0) > LQ_A2A_MAX_TRANSFERS) {
		free(a);
		free(seen);
		return ibf_err_set(err, IBF_ERR_RANGE, "%u ranks: more than "
				   "%u transfers", n,
				   (unsigned)LQ_A2A_MAX_TRANSFERS);
	}
	for (uint32_t p = 0; p < f->nports; p++)
		seen[p] = LQ_NONE;
	a->l = l;
	a->n = n;
	a->T = (uint64_t)n * (n ? n - 1 : 0);
	a->ranks = malloc(((size_t)n + 1) * sizeof(ibf_port_id_t));
	if (!a->ranks) {
		free(seen);
		lq_a2a_free(a);
		return nomem(err);
	}
	memcpy(a->ranks, ranks, (size_t)n * sizeof(*ranks));
	st = check_ranks(f, ranks, n, seen, err);
	free(seen);
	if (st == IBF_OK)
		st = make_groups(a, f, err);
	if (st == IBF_OK)
		st = build_tails(a, l, clk, err);
	if (st != IBF_OK) {
		lq_a2a_free(a);
		return st;
	}
	*out = a;
	return IBF_OK;
}

/* ---- round robin --------------------------------------------------------- */

void lq_sched_free(struct lq_sched *s)
{
	free(s->frame_of);
	free(s->pos);
	free(s->perm);
	memset(s, 0, sizeof(*s));
	s->nframes = LQ_NONE;
}

/* A phase's frames as bits per link: word w of link x at busy[w L + x],
 * valid in phase ph[x] only (stale words read as 0, cleared at the
 * link's first use in a phase); W words per link, grown on demand. */
struct rr_bits {
	uint64_t *busy;
	uint32_t *ph;
	uint32_t W, L;
};

static uint64_t rr_word(const struct rr_bits *b, uint32_t x, uint32_t w,
			uint32_t k)
{
	return b->ph[x] == k ? b->busy[(uint64_t)w * b->L + x] : 0;
}

static bool rr_grow(struct rr_bits *b)
{
	uint64_t *nb = realloc(b->busy, ((uint64_t)b->W + 1) * b->L *
			       sizeof(uint64_t));

	if (!nb)
		return false;
	memset(nb + (uint64_t)b->W * b->L, 0, b->L * sizeof(uint64_t));
	b->busy = nb;
	b->W++;
	return true;
}

/* The first of the phase's frames free on all of i -> j's links, taken;
 * LQ_NONE when memory runs out. */
static uint32_t rr_place(const struct lq_a2a *a, struct rr_bits *b,
			 uint32_t i, uint32_t j, uint32_t k)
{
	uint64_t t = (uint64_t)a->grp[i] * a->n + j;
	uint32_t l[LQ_A2A_MAX_PATH + 1], nl = 0, w = 0, f;   /* inj + tail */
	uint64_t m;

	l[nl++] = a->inj[i];
	for (uint32_t q = 0; q < a->tlen[t]; q++)
		l[nl++] = a->tl[t * a->H + q];
	for (;; w++) {
		if (w == b->W && !rr_grow(b))
			return LQ_NONE;
		m = 0;
		for (uint32_t q = 0; q < nl; q++)
			m |= rr_word(b, l[q], w, k);
		if (~m)
			break;
	}
	f = w * 64 + (uint32_t)__builtin_ctzll(~m);
	for (uint32_t q = 0; q < nl; q++) {
		if (b->ph[l[q]] != k) {
			for (uint32_t v = 0; v < b->W; v++)
				b->busy[(uint64_t)v * b->L + l[q]] = 0;
			b->ph[l[q]] = k;
		}
		b->busy[(uint64_t)w * b->L + l[q]] |= 1ull << (f % 64);
	}
	return f;
}

/* Phases k = 1..n-1 (i -> i + k mod n), each split first-fit in rank order:
 * pass r takes every transfer of the phase that fits beside those taken
 * before it in the pass.  That is, each transfer in rank order takes the
 * phase's first frame free on all its links (the transfers before it in
 * its pass are those before it in that frame), so it is found by bits,
 * not by passes over the pending ones (at 4,096 hosts on a Dragonfly, 94
 * frames a phase: 1.6 s of passes).  The clock is charged as the passes
 * were (4 units per pending transfer per pass).  If it expires, every
 * transfer not yet placed gets a frame of its own (always
 * congestion-free). */
bool lq_a2a_round_robin(const struct lq_a2a *a, struct lq_sched *sc,
			struct lq_clock *clk, bool *cut)
{
	uint32_t n = a->n, nf = 0, k = 1;
	struct rr_bits b = { .L = a->L };
	bool ok = true;

	memset(sc, 0, sizeof(*sc));
	sc->nframes = LQ_NONE;
	sc->frame_of = malloc((a->T + 1) * sizeof(uint32_t));
	b.ph = calloc((size_t)a->L + 1, sizeof(uint32_t));
	if (!b.ph || !sc->frame_of) {
		free(b.ph);
		lq_sched_free(sc);
		return false;
	}
	*cut = !a->complete;
	for (; k < n && a->complete && ok; k++) {
		uint32_t *fo = sc->frame_of + (uint64_t)(k - 1) * n, nph = 0;
		uint64_t units = 0;

		if (lq_tick(clk, 1)) {
			*cut = true;
			break;
		}
		for (uint32_t i = 0; i < n && ok; i++) {
			uint32_t j = i + k >= n ? i + k - n : i + k;
			uint32_t f = rr_place(a, &b, i, j, k);

			ok = f != LQ_NONE;
			fo[i] = nf + f;
			nph = f + 1 > nph ? f + 1 : nph;
			units += 4 * ((uint64_t)f + 1);
		}
		lq_tick(clk, units);
		nf += nph;
	}
	/* Phases not reached: a frame per transfer. */
	for (uint64_t x = (uint64_t)(k - 1) * n; ok && x < a->T; x++)
		sc->frame_of[x] = nf++;
	free(b.busy);
	free(b.ph);
	if (!ok) {
		lq_sched_free(sc);
		return false;
	}
	sc->nframes = nf;
	return true;
}

/* ---- first fit --------------------------------------------------------- */

/* Place i -> j (slot x) in its first free frame. */
static bool ff_put(struct lq_ff *F, const struct lq_a2a *a, uint32_t *fo,
		   uint32_t i, uint32_t j, uint64_t x, struct lq_clock *clk)
{
	uint64_t t = (uint64_t)a->grp[i] * a->n + j;
	uint32_t l[256], nl = 0, f;

	l[nl++] = a->inj[i];
	for (uint32_t q = 0; q < a->tlen[t]; q++)
		l[nl++] = a->tl[t * a->H + q];
	f = lq_ff_place(F, l, nl, clk);
	if (f == LQ_NONE)
		return false;
	fo[x] = f;
	return !clk->expired;
}

static bool mixed_order(uint32_t n, struct lq_sched *s)
{
	s->perm = malloc(((size_t)n + 1) * sizeof(uint32_t));
	s->pos = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!s->perm || !s->pos)
		return false;
	lq_mixed_order(n, s->perm, s->pos);
	return true;
}

/* Phases perm[p] -> perm[p + k mod n]; within a phase the senders go
 * group by group, so a group's tails are read together, and the next
 * tails are prefetched. */
static bool ff_mixed(struct lq_ff *F, const struct lq_a2a *a,
		     const struct lq_sched *s, struct lq_clock *clk)
{
	uint32_t n = a->n;

	for (uint32_t k = 1; k < n; k++)
		for (uint32_t q = 0; q < n; q++) {
			uint32_t i = a->gmem[q], p = s->pos[i] + k, j;

			if (q + 8 < n) {
				uint32_t i2 = a->gmem[q + 8];
				uint32_t p2 = s->pos[i2] + k;
				uint64_t t2 = (uint64_t)a->grp[i2] * n +
					s->perm[p2 >= n ? p2 - n : p2];

				__builtin_prefetch(&a->tl[t2 * a->H]);
				__builtin_prefetch(&a->tlen[t2]);
			}
			j = s->perm[p >= n ? p - n : p];
			if (!ff_put(F, a, s->frame_of, i, j,
				    (uint64_t)(k - 1) * n + s->pos[i], clk))
				return false;
		}
	return true;
}

/* Group pairs g -> g + m mod G; within a pair the member shifts r: member
 * p of g sends to member p + r mod k' of g + m.  Each ordered pair of
 * distinct ranks comes once. */
static bool ff_groups(struct lq_ff *F, const struct lq_a2a *a,
		      uint32_t *fo, struct lq_clock *clk)
{
	uint32_t maxk = 0, n = a->n;

	for (uint32_t g = 0; g < a->G; g++)
		if (a->goff[g + 1] - a->goff[g] > maxk)
			maxk = a->goff[g + 1] - a->goff[g];
	for (uint32_t m = 0; m < a->G; m++)
		for (uint32_t r = 0; r < maxk; r++)
			for (uint32_t g = 0; g < a->G; g++) {
				uint32_t h = (g + m) % a->G;
				uint32_t kg = a->goff[g + 1] - a->goff[g];
				uint32_t kh = a->goff[h + 1] - a->goff[h];

				for (uint32_t p = 0; r < kh && p < kg; p++) {
					uint32_t i = a->gmem[a->goff[g] + p];
					uint32_t j = a->gmem[a->goff[h] +
							     (p + r) % kh];

					if (i != j &&
					    !ff_put(F, a, fo, i, j, lq_a2a_slot(
						    n, NULL, i, j), clk))
						return false;
				}
			}
	return true;
}

bool lq_a2a_first_fit(const struct lq_a2a *a, enum lq_a2a_order order,
		      struct lq_sched *s, struct lq_clock *clk)
{
	struct lq_ff F = { 0 };
	bool ok;

	memset(s, 0, sizeof(*s));
	s->nframes = LQ_NONE;
	if (!a->complete || clk->expired)
		return false;
	s->frame_of = malloc((a->T + 1) * sizeof(uint32_t));
	ok = s->frame_of && lq_ff_init(&F, a->L, a->D);
	if (ok && order == LQ_ORDER_MIXED)
		ok = mixed_order(a->n, s) && ff_mixed(&F, a, s, clk);
	else if (ok)
		ok = ff_groups(&F, a, s->frame_of, clk);
	s->nframes = F.nf;
	lq_ff_free(&F);
	if (!ok) {
		lq_sched_free(s);
		return false;
	}
	return true;
}

bool lq_a2a_grouped(const struct lq_a2a *a)
{
	for (uint32_t i = 1; i < a->n; i++)
		if (a->grp[i] != a->grp[i - 1] &&
		    a->grp[i] != a->grp[i - 1] + 1)
			return false;
	return true;
}
