/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Node-aware plans placed by volume (liquid_volume.h).
 *
 * The unit plan's frames treat every unit pair alike; with hosts of 1 to
 * 8 ranks a pair is 1 to 64 blocks, and a frame mixing them lets the
 * releases chain the long ones behind the short ones.  Here each link
 * has a timeline of busy block times, and the pairs, in a priority
 * order, each take the earliest time at which all their links are free
 * for their whole volume (a list schedule, holes filled).  The start
 * times then give the order of the pairs on every link, from which the
 * predecessors follow as always (each link's previous user); frames are
 * the layers of that order (a pair one frame after the latest frame on
 * its links), so a frame still uses a link at most once and a unit sends
 * and receives in ascending frames.  Several priority orders are placed
 * and the one with the shortest chain kept, if shorter than the plan's.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/liquid_volume.h"

struct span {
	uint64_t s, e;         /* busy block times [s, e) */
};

/* Link timelines: link x's spans sorted, disjoint, touching ones merged,
 * span[off[x] .. off[x] + n[x]); off leaves room for every user. */
struct vq {
	const struct lq_a2a *a;
	const uint32_t *unit_off;
	const struct lq_vpairs *v;
	uint64_t *off;
	uint32_t *n;
	struct span *span;
	uint64_t work;         /* spent of LQ_VOLUME_WORK */
};

static uint64_t vol(const uint32_t *unit_off, uint32_t s, uint32_t d)
{
	return (uint64_t)(unit_off[s + 1] - unit_off[s]) *
	       (unit_off[d + 1] - unit_off[d]);
}

/* Pair s -> d's tail from s's switch; its path is s's own link, then the
 * tail: link i is link_at(.., i). */
static const uint32_t *tail_of(const struct lq_a2a *a, uint32_t s, uint32_t d,
			       uint32_t *nlinks)
{
	uint32_t len;
	const uint32_t *tl = lq_a2a_tail(a, (uint64_t)a->grp[s] * a->n + d,
					 &len);

	*nlinks = len + 1;
	return tl;
}

static uint32_t link_at(const struct lq_a2a *a, uint32_t s,
			const uint32_t *tl, uint32_t i)
{
	return i ? tl[i - 1] : a->inj[s];
}

uint64_t lq_volume_chain(const struct lq_a2a *a, const uint32_t *unit_off,
			 const struct lq_vpairs *v)
{
	uint64_t *end = calloc((size_t)a->L + 1, sizeof(uint64_t)), chain = 0;

	if (!end)
		return UINT64_MAX;
	for (uint64_t k = 0; k < v->T; k++) {
		uint32_t s = v->src[k], d = v->dst[k], np;
		const uint32_t *tl = tail_of(a, s, d, &np);
		uint64_t t = 0;

		/* a link's latest user ended last: it started after the
		 * previous one was in */
		for (uint32_t i = 0; i < np; i++)
			if (end[link_at(a, s, tl, i)] > t)
				t = end[link_at(a, s, tl, i)];
		t += vol(unit_off, s, d);
		for (uint32_t i = 0; i < np; i++)
			end[link_at(a, s, tl, i)] = t;
		if (t > chain)
			chain = t;
	}
	free(end);
	return chain;
}

/* ---- timelines -------------------------------------------------------------- */

/* The earliest t' >= t at which [t', t' + len) is free on link x. */
static uint64_t link_fit(struct vq *q, uint32_t x, uint64_t t, uint64_t len)
{
	const struct span *b = q->span + q->off[x];
	uint32_t lo = 0, hi = q->n[x];

	while (lo < hi) {      /* the first span ending after t */
		uint32_t mid = lo + (hi - lo) / 2;

		if (b[mid].e > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (; lo < q->n[x] && b[lo].s < t + len; lo++, q->work++)
		if (b[lo].e > t)
			t = b[lo].e;
	return t;
}

/* Mark [t, t + len) busy on link x (free there: link_fit said so). */
static void link_take(struct vq *q, uint32_t x, uint64_t t, uint64_t len)
{
	struct span *b = q->span + q->off[x];
	uint32_t n = q->n[x], i = 0, lo = 0, hi = n;

	while (lo < hi) {      /* the first span starting at or after t */
		uint32_t mid = lo + (hi - lo) / 2;

		if (b[mid].s >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	i = lo;
	if (i > 0 && b[i - 1].e == t) {
		b[i - 1].e = t + len;
		if (i < n && b[i].s == t + len) {
			b[i - 1].e = b[i].e;
			memmove(b + i, b + i + 1, (n - i - 1) * sizeof(*b));
			q->n[x]--;
			q->work += n - i;
		}
	} else if (i < n && b[i].s == t + len) {
		b[i].s = t;
	} else {
		memmove(b + i + 1, b + i, (n - i) * sizeof(*b));
		b[i].s = t;
		b[i].e = t + len;
		q->n[x]++;
		q->work += n - i;
	}
}

/* Every pair, in the order prio, at its earliest common free time:
 * start[k].  False past the work budget. */
static bool place(struct vq *q, const uint32_t *prio, uint64_t *start)
{
	const struct lq_a2a *a = q->a;
	const struct lq_vpairs *v = q->v;

	memset(q->n, 0, (size_t)a->L * sizeof(uint32_t));
	for (uint64_t i = 0; i < v->T; i++) {
		uint32_t k = prio[i], s = v->src[k], d = v->dst[k], np;
		const uint32_t *tl = tail_of(a, s, d, &np);
		uint64_t len = vol(q->unit_off, s, d), t = 0;
		uint32_t ok = 0;

		/* push t past every link's conflict until a whole pass of
		 * the links agrees */
		for (uint32_t j = 0; ok < np; j = (j + 1) % np) {
			uint64_t t2 = link_fit(q, link_at(a, s, tl, j), t,
					       len);

			ok = t2 == t ? ok + 1 : 1;
			t = t2;
		}
		for (uint32_t j = 0; j < np; j++)
			link_take(q, link_at(a, s, tl, j), t, len);
		start[k] = t;
		q->work += np;
		if (q->work > LQ_VOLUME_WORK)
			return false;
	}
	return true;
}

/* ---- priority orders -------------------------------------------------------- */

struct key {
	uint64_t a, b;         /* descending */
	uint32_t k;            /* ascending: the plan's order breaks ties */
};

static int by_key(const void *x, const void *y)
{
	const struct key *p = x, *r = y;

	if (p->a != r->a)
		return p->a > r->a ? -1 : 1;
	if (p->b != r->b)
		return p->b > r->b ? -1 : 1;
	return p->k < r->k ? -1 : p->k > r->k;
}

/* Start times ascending (key a = UINT64_MAX - start). */
static void sort_keys(struct key *key, uint64_t T, uint32_t *out)
{
	qsort(key, T, sizeof(*key), by_key);
	for (uint64_t i = 0; i < T; i++)
		out[i] = key[i].k;
}

enum prio {
	PRIO_PLAN,       /* the plan's frame order */
	PRIO_VOLUME,     /* largest volume first */
	PRIO_LOAD,       /* busiest link (in blocks) first, then volume */
	PRIO_COUNT
};

/* The blocks over each link: wl [L]. */
static void link_blocks(const struct vq *q, uint64_t *wl)
{
	const struct lq_vpairs *v = q->v;

	for (uint64_t k = 0; k < v->T; k++) {
		uint32_t np;
		const uint32_t *tl = tail_of(q->a, v->src[k], v->dst[k], &np);

		for (uint32_t i = 0; i < np; i++)
			wl[link_at(q->a, v->src[k], tl, i)] +=
				vol(q->unit_off, v->src[k], v->dst[k]);
	}
}

static void prio_order(const struct vq *q, enum prio how, const uint64_t *wl,
		       struct key *key, uint32_t *prio)
{
	const struct lq_vpairs *v = q->v;

	for (uint64_t k = 0; k < v->T; k++) {
		uint32_t s = v->src[k], d = v->dst[k], np;
		const uint32_t *tl = tail_of(q->a, s, d, &np);
		uint64_t busiest = 0;

		for (uint32_t i = 0; i < np; i++)
			if (wl[link_at(q->a, s, tl, i)] > busiest)
				busiest = wl[link_at(q->a, s, tl, i)];
		key[k].k = (uint32_t)k;
		key[k].a = how == PRIO_PLAN ? 0 : how == PRIO_VOLUME ?
			   vol(q->unit_off, s, d) : busiest;
		key[k].b = how == PRIO_LOAD ? vol(q->unit_off, s, d) : 0;
	}
	sort_keys(key, v->T, prio);
}

/* ---- the placement as a plan ----------------------------------------------- */

static void vpairs_free(struct lq_vpairs *v)
{
	free(v->src);
	free(v->dst);
	free(v->frame);
	free(v->frame_off);
	free(v->frame_of_pair);
	memset(v, 0, sizeof(*v));
}

/* out: q->v's pairs by start time, in frames of layers.  ord: scratch
 * [T]; last [L]. */
static bool as_plan(const struct vq *q, const uint64_t *start, struct key *key,
		    uint32_t *ord, uint32_t *last, struct lq_vpairs *out)
{
	const struct lq_vpairs *v = q->v;
	uint64_t T = v->T, *cnt;
	uint32_t nf = 0, *fr = malloc((T + 1) * sizeof(uint32_t));

	for (uint64_t k = 0; k < T; k++) {
		key[k].k = (uint32_t)k;
		key[k].a = UINT64_MAX - start[k];
		key[k].b = 0;
	}
	sort_keys(key, T, ord);
	for (uint32_t x = 0; x < q->a->L; x++)
		last[x] = LQ_NONE;
	*out = (struct lq_vpairs){ .T = T, .U = v->U };
	out->src = malloc((T + 1) * sizeof(uint32_t));
	out->dst = malloc((T + 1) * sizeof(uint32_t));
	out->frame = malloc((T + 1) * sizeof(uint32_t));
	out->frame_of_pair = calloc((size_t)v->U * v->U + 1, sizeof(uint32_t));
	if (!fr || !out->src || !out->dst || !out->frame ||
	    !out->frame_of_pair) {
		free(fr);
		return false;
	}
	/* a pair's frame: one after the latest frame on its links */
	for (uint64_t i = 0; i < T; i++) {
		uint32_t k = ord[i], s = v->src[k], np, f = 0;
		const uint32_t *tl = tail_of(q->a, s, v->dst[k], &np);

		for (uint32_t j = 0; j < np; j++) {
			uint32_t x = link_at(q->a, s, tl, j);

			if (last[x] != LQ_NONE && last[x] + 1 > f)
				f = last[x] + 1;
		}
		for (uint32_t j = 0; j < np; j++)
			last[link_at(q->a, s, tl, j)] = f;
		fr[k] = f;
		if (f + 1 > nf)
			nf = f + 1;
	}
	cnt = calloc((size_t)nf + 2, sizeof(uint64_t));
	if (!cnt) {
		free(fr);
		return false;
	}
	/* counting sort by frame, start order within a frame */
	for (uint64_t k = 0; k < T; k++)
		cnt[fr[k] + 1]++;
	for (uint32_t f = 0; f < nf; f++)
		cnt[f + 1] += cnt[f];
	for (uint64_t i = 0; i < T; i++) {
		uint32_t k = ord[i];
		uint64_t x = cnt[fr[k]]++;

		out->src[x] = v->src[k];
		out->dst[x] = v->dst[k];
		out->frame[x] = fr[k];
		out->frame_of_pair[(uint64_t)v->src[k] * v->U + v->dst[k]] =
			fr[k];
	}
	/* cnt[f] now ends frame f: shift into starts */
	memmove(cnt + 1, cnt, (size_t)nf * sizeof(uint64_t));
	cnt[0] = 0;
	out->frame_off = cnt;
	out->nframes = nf;
	free(fr);
	return true;
}

static bool is_uniform(const uint32_t *unit_off, uint32_t U)
{
	for (uint32_t u = 1; u < U; u++)
		if (unit_off[u + 1] - unit_off[u] != unit_off[1] - unit_off[0])
			return false;
	return true;
}

struct scratch {
	uint64_t *start, *wl;
	uint32_t *prio, *ord, *last;
	struct key *key;
};

static bool scratch_init(struct vq *q, struct scratch *w)
{
	const struct lq_a2a *a = q->a;
	uint64_t T = q->v->T, m = 0;

	w->start = malloc((T + 1) * sizeof(uint64_t));
	w->wl = calloc((size_t)a->L + 1, sizeof(uint64_t));
	w->prio = malloc((T + 1) * sizeof(uint32_t));
	w->ord = malloc((T + 1) * sizeof(uint32_t));
	w->last = malloc(((size_t)a->L + 1) * sizeof(uint32_t));
	w->key = malloc((T + 1) * sizeof(struct key));
	q->off = calloc((size_t)a->L + 1, sizeof(uint64_t));
	q->n = calloc((size_t)a->L + 1, sizeof(uint32_t));
	if (!w->start || !w->wl || !w->prio || !w->ord || !w->last ||
	    !w->key || !q->off || !q->n)
		return false;
	/* room for every user of each link */
	for (uint64_t k = 0; k < T; k++) {
		uint32_t np;
		const uint32_t *tl = tail_of(a, q->v->src[k], q->v->dst[k],
					     &np);

		for (uint32_t i = 0; i < np; i++)
			q->n[link_at(a, q->v->src[k], tl, i)]++;
	}
	for (uint32_t x = 0; x < a->L; x++) {
		q->off[x] = m;
		m += q->n[x];
	}
	q->span = malloc((m + 1) * sizeof(struct span));
	return q->span != NULL;
}

static void scratch_free(struct vq *q, struct scratch *w)
{
	free(w->start);
	free(w->wl);
	free(w->prio);
	free(w->ord);
	free(w->last);
	free(w->key);
	free(q->off);
	free(q->n);
	free(q->span);
}

/* Each priority order placed; the shortest chain below *chain into best. */
static bool candidates(struct vq *q, struct scratch *w, uint64_t *chain,
		       struct lq_vpairs *best)
{
	link_blocks(q, w->wl);
	for (int how = 0; how < PRIO_COUNT; how++) {
		struct lq_vpairs c;
		uint64_t len;

		prio_order(q, (enum prio)how, w->wl, w->key, w->prio);
		if (!place(q, w->prio, w->start))
			return true;   /* out of budget: what we have */
		if (!as_plan(q, w->start, w->key, w->ord, w->last, &c)) {
			vpairs_free(&c);
			return false;
		}
		len = lq_volume_chain(q->a, q->unit_off, &c);
		if (len == UINT64_MAX) {
			vpairs_free(&c);
			return false;
		}
		if (len < *chain) {
			vpairs_free(best);
			*best = c;
			*chain = len;
		} else {
			vpairs_free(&c);
		}
	}
	return true;
}

ibf_status_t lq_volume_place(const struct lq_a2a *a,
			     const uint32_t *unit_off, uint64_t bound,
			     uint64_t *chain, struct lq_vpairs *v,
			     ibf_err_t *err)
{
	struct vq q = { .a = a, .unit_off = unit_off, .v = v };
	struct scratch w = { 0 };
	struct lq_vpairs best = { 0 };
	bool ok;

	/* within 1 % of the bound there is too little to win for the CPU
	 * (1,024 hosts: a second); a pair costs at least its links in work,
	 * so past the budget's pairs no placement could finish (and the
	 * timelines would take 16 bytes per pair and link) */
	if (v->T < 2 || !a->complete || is_uniform(unit_off, v->U) ||
	    *chain <= bound + bound / 100 ||
	    v->T * ((uint64_t)a->H + 1) > LQ_VOLUME_WORK)
		return IBF_OK;
	ok = scratch_init(&q, &w) && candidates(&q, &w, chain, &best);
	scratch_free(&q, &w);
	if (!ok) {
		vpairs_free(&best);
		return ibf_err_set(err, IBF_ERR_NOMEM, "liquid hosts: out of "
				   "memory");
	}
	if (best.frame_of_pair) {
		free(v->src);
		free(v->dst);
		free(v->frame);
		free(v->frame_off);
		*v = best;
	}
	return IBF_OK;
}

ibf_status_t lq_volume_times(const struct lq_a2a *a,
			     const uint32_t *unit_off,
			     const struct lq_vpairs *v, const uint32_t *prio,
			     uint64_t *start, ibf_err_t *err)
{
	struct vq q = { .a = a, .unit_off = unit_off, .v = v };
	struct scratch w = { 0 };
	ibf_status_t st = IBF_OK;

	if (!scratch_init(&q, &w))
		st = ibf_err_set(err, IBF_ERR_NOMEM, "liquid hosts: out of "
				 "memory");
	else if (!place(&q, prio, start))
		st = ibf_err_set(err, IBF_ERR_RANGE, "liquid hosts: volume "
				 "placement past its work budget");
	scratch_free(&q, &w);
	return st;
}
