/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The exact liquid schedule search (Gabrielyan 2006, sections 5-7).
 *
 * Sets of transfers are bitsets of W words.  A category is (includer,
 * depot, excluder); fission on a depot transfer x gives the positive
 * sub-category (x included, transfers congesting x leave depot and
 * excluder) and the negative one (x moved to the excluder).  Pruned:
 *  - blank categories: an excluder transfer congests no depot transfer, so
 *    no full simultaneity of the category can exclude it;
 *  - idle categories: includer and depot together miss a bottleneck.
 * Skeleton: full teams of the skeleton (transfers using a bottleneck) are
 * found first (phase A), then extended by the other transfers that do not
 * congest them, with blank pruning only (phase B).
 *
 * Construction: frame k is a full team of the traffic reduced by frames
 * 0..k-1 (so it also uses the newly emerging bottlenecks); a dead end (no
 * full team) backtracks to the next full team of the previous frame.  If a
 * liquid schedule exists, one made of full teams of the reduced traffics
 * exists (paper, appendices C and D), so an exhausted search proves that
 * none exists.
 *
 * Transfers with identical link sets are interchangeable: the negative
 * branch excludes x together with its copies still in the depot, so the
 * search never visits two teams that differ only by which copy they hold.
 *
 * Everything is iterative (explicit fission stacks with an undo trail per
 * frame) because the number of frames can run to thousands.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/liquid_search.h"

enum { TR_INC, TR_DEP_DEL, TR_DEP_ADD, TR_EXC_DEL, TR_EXC_ADD };
#define TR_SHIFT 29
#define TR_MASK ((1u << TR_SHIFT) - 1)

enum { FR_POS, FR_NEG, FR_PHASE };

struct lq_frame {
	uint32_t x;
	uint32_t mark;   /* trail length before the branch was applied */
	uint8_t kind;
};

/* One frame of the schedule under construction: the reduced traffic and
 * the state of the enumeration of its full teams. */
struct lq_level {
	uint64_t *X, *S, *inc, *dep, *exc;   /* [W] each */
	uint32_t *load;                      /* [L] in X */
	uint8_t *cov;                        /* [L] bottleneck used by inc */
	uint32_t *bn;                        /* bottleneck links */
	uint32_t nbn, dur;
	struct lq_frame *stk;
	uint32_t nstk, stk_cap;
	uint32_t *trail;
	uint32_t ntrail, trail_cap;
	int phase;                           /* 0 skeleton, 1 extension */
	bool started;
};

struct lq_ctx {
	const ibf_liquid_traffic_t *t;
	uint32_t T, W, L;
	uint64_t *conf;    /* [T * W] transfers congesting each transfer */
	uint64_t *users;   /* [L * W] transfers using each link */
	uint32_t *gnext;   /* next transfer with the same link set */
	uint64_t *tmp;     /* [W] */
	struct lq_clock *clk;
	uint64_t spent;    /* words scanned since the last tick */
	uint64_t ncat;
	bool timed_out, nomem;
	struct lq_level **lv;
	uint32_t nlv;
};

/* ---- bitsets -------------------------------------------------------- */

static inline bool bit(const uint64_t *s, uint32_t i)
{
	return s[i >> 6] >> (i & 63) & 1;
}

static inline void bset(uint64_t *s, uint32_t i)
{
	s[i >> 6] |= 1ull << (i & 63);
}

static inline void bclr(uint64_t *s, uint32_t i)
{
	s[i >> 6] &= ~(1ull << (i & 63));
}

/* Non-zero words of s lie in [*lo, *hi); false if s is empty. */
static bool brange(const uint64_t *s, uint32_t W, uint32_t *lo, uint32_t *hi)
{
	uint32_t a = 0, b = W;

	while (a < W && !s[a])
		a++;
	if (a == W)
		return false;
	while (!s[b - 1])
		b--;
	*lo = a;
	*hi = b;
	return true;
}

static bool bmeets(const uint64_t *a, const uint64_t *b, uint32_t lo,
		   uint32_t hi)
{
	for (uint32_t w = lo; w < hi; w++)
		if (a[w] & b[w])
			return true;
	return false;
}

/* SWAR popcount: without -mpopcnt the builtin is a libgcc call. */
static inline uint32_t pop64(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555ull;
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

/* |a & b|, counted only up to cap (enough to compare with cap). */
static uint32_t bcount(const uint64_t *a, const uint64_t *b, uint32_t lo,
		       uint32_t hi, uint32_t cap)
{
	uint32_t n = 0;

	for (uint32_t w = lo; w < hi && n < cap; w++)
		if (a[w] & b[w])
			n += pop64(a[w] & b[w]);
	return n;
}

/* ---- setup ---------------------------------------------------------- */

static const uint32_t *tlinks(const struct lq_ctx *c, uint32_t x,
			      uint32_t *n)
{
	*n = c->t->link_off[x + 1] - c->t->link_off[x];
	return c->t->links + c->t->link_off[x];
}

static int cmp_sets(const struct lq_ctx *c, uint32_t a, uint32_t b)
{
	uint32_t na, nb;
	const uint32_t *la = tlinks(c, a, &na), *lb = tlinks(c, b, &nb);

	if (na != nb)
		return na < nb ? -1 : 1;
	for (uint32_t i = 0; i < na; i++)
		if (la[i] != lb[i])
			return la[i] < lb[i] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Merge sort by link set (qsort has no context argument in C11). */
static void sort_sets(const struct lq_ctx *c, uint32_t *v, uint32_t *tmp,
		      uint32_t n)
{
	uint32_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_sets(c, v, tmp, h);
	sort_sets(c, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = cmp_sets(c, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static bool same_set(const struct lq_ctx *c, uint32_t a, uint32_t b)
{
	uint32_t na, nb;
	const uint32_t *la = tlinks(c, a, &na), *lb = tlinks(c, b, &nb);

	return na == nb && !memcmp(la, lb, na * sizeof(*la));
}

static bool ctx_init(struct lq_ctx *c, const ibf_liquid_traffic_t *t)
{
	uint32_t *ord, *tmp;

	c->t = t;
	c->T = t->ntransfers;
	c->W = (c->T + 63) / 64;
	c->L = t->nlinks;
	c->conf = calloc((size_t)c->T * c->W, sizeof(uint64_t));
	c->users = calloc((size_t)c->L * c->W + 1, sizeof(uint64_t));
	c->gnext = malloc(((size_t)c->T + 1) * sizeof(uint32_t));
	c->tmp = calloc(c->W + 1, sizeof(uint64_t));
	ord = malloc(((size_t)c->T + 1) * sizeof(uint32_t));
	tmp = malloc(((size_t)c->T + 1) * sizeof(uint32_t));
	if (!c->conf || !c->users || !c->gnext || !c->tmp || !ord || !tmp) {
		free(ord);
		free(tmp);
		return false;
	}
	for (uint32_t x = 0; x < c->T; x++) {
		uint32_t n;
		const uint32_t *ls = tlinks(c, x, &n);

		for (uint32_t i = 0; i < n; i++)
			bset(c->users + (size_t)ls[i] * c->W, x);
	}
	for (uint32_t x = 0; x < c->T; x++) {
		uint32_t n;
		const uint32_t *ls = tlinks(c, x, &n);
		uint64_t *cx = c->conf + (size_t)x * c->W;

		if (lq_tick(c->clk, (uint64_t)n * c->W + 1)) {
			c->timed_out = true;
			break;
		}

		for (uint32_t i = 0; i < n; i++) {
			const uint64_t *u = c->users + (size_t)ls[i] * c->W;

			for (uint32_t w = 0; w < c->W; w++)
				cx[w] |= u[w];
		}
		bclr(cx, x);
	}
	/* Copies: chain each transfer to the next one with its link set. */
	for (uint32_t x = 0; x < c->T; x++) {
		ord[x] = x;
		c->gnext[x] = LQ_NONE;
	}
	sort_sets(c, ord, tmp, c->T);
	for (uint32_t i = 0; i + 1 < c->T; i++)
		if (same_set(c, ord[i], ord[i + 1]))
			c->gnext[ord[i]] = ord[i + 1];
	free(ord);
	free(tmp);
	return true;
}

static void level_free(struct lq_level *v)
{
	if (!v)
		return;
	free(v->X);
	free(v->load);
	free(v->cov);
	free(v->stk);
	free(v->trail);
	free(v);
}

static void ctx_free(struct lq_ctx *c)
{
	for (uint32_t i = 0; i < c->nlv; i++)
		level_free(c->lv[i]);
	free(c->lv);
	free(c->conf);
	free(c->users);
	free(c->gnext);
	free(c->tmp);
}

static struct lq_level *level_get(struct lq_ctx *c, uint32_t k)
{
	struct lq_level *v;

	if (k < c->nlv)
		return c->lv[k];
	if (k != c->nlv)
		return NULL;
	if ((k & (k - 1)) == 0) {   /* grow the pointer array at powers of 2 */
		struct lq_level **nl = realloc(c->lv, (k ? 2 * k : 1) *
					       sizeof(*nl));
		if (!nl)
			return NULL;
		c->lv = nl;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->X = calloc((size_t)5 * c->W + 1, sizeof(uint64_t));
	v->load = calloc((size_t)c->L * 2 + 1, sizeof(uint32_t));
	v->cov = calloc((size_t)c->L + 1, 1);
	if (!v->X || !v->load || !v->cov) {
		level_free(v);
		return NULL;
	}
	v->S = v->X + c->W;
	v->inc = v->S + c->W;
	v->dep = v->inc + c->W;
	v->exc = v->dep + c->W;
	v->bn = v->load + c->L;
	c->lv[c->nlv++] = v;
	return v;
}

/* Bottlenecks, skeleton and the prim-category of the level's traffic
 * (X and load already set). */
static void level_start(struct lq_ctx *c, struct lq_level *v)
{
	uint32_t W = c->W;

	v->dur = 0;
	for (uint32_t l = 0; l < c->L; l++)
		if (v->load[l] > v->dur)
			v->dur = v->load[l];
	v->nbn = 0;
	memset(v->S, 0, W * sizeof(uint64_t));
	for (uint32_t l = 0; l < c->L; l++) {
		v->cov[l] = 0;
		if (v->dur && v->load[l] == v->dur) {
			const uint64_t *u = c->users + (size_t)l * W;

			v->bn[v->nbn++] = l;
			for (uint32_t w = 0; w < W; w++)
				v->S[w] |= u[w] & v->X[w];
		}
	}
	memset(v->inc, 0, W * sizeof(uint64_t));
	memset(v->exc, 0, W * sizeof(uint64_t));
	memcpy(v->dep, v->S, W * sizeof(uint64_t));
	v->nstk = 0;
	v->ntrail = 0;
	v->phase = 0;
	v->started = false;
}

/* ---- trail ---------------------------------------------------------- */

static bool trail_push(struct lq_ctx *c, struct lq_level *v, uint32_t op,
		       uint32_t x)
{
	if (v->ntrail == v->trail_cap) {
		uint32_t cap = v->trail_cap ? 2 * v->trail_cap : 1024;
		uint32_t *nt = realloc(v->trail, (size_t)cap * sizeof(*nt));

		if (!nt) {
			c->nomem = true;
			return false;
		}
		v->trail = nt;
		v->trail_cap = cap;
	}
	v->trail[v->ntrail++] = op << TR_SHIFT | x;
	return true;
}

static void cov_set(struct lq_ctx *c, struct lq_level *v, uint32_t x,
		    uint8_t on)
{
	uint32_t n;
	const uint32_t *ls = tlinks(c, x, &n);

	for (uint32_t i = 0; i < n; i++)
		if (v->load[ls[i]] == v->dur)
			v->cov[ls[i]] = on;
}

static void undo_to(struct lq_ctx *c, struct lq_level *v, uint32_t mark)
{
	c->spent += v->ntrail - mark;
	while (v->ntrail > mark) {
		uint32_t e = v->trail[--v->ntrail], x = e & TR_MASK;

		switch (e >> TR_SHIFT) {
		case TR_INC:
			bclr(v->inc, x);
			cov_set(c, v, x, 0);
			break;
		case TR_DEP_DEL: bset(v->dep, x); break;
		case TR_DEP_ADD: bclr(v->dep, x); break;
		case TR_EXC_DEL: bset(v->exc, x); break;
		case TR_EXC_ADD: bclr(v->exc, x); break;
		}
	}
}

/* Remove set m (masked by s) from s, logging op for every member. */
static bool remove_logged(struct lq_ctx *c, struct lq_level *v, uint64_t *s,
			  const uint64_t *m, uint32_t op)
{
	c->spent += c->W;
	for (uint32_t w = 0; w < c->W; w++) {
		uint64_t r = s[w] & m[w];

		s[w] &= ~r;
		while (r) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(r);

			r &= r - 1;
			if (!trail_push(c, v, op, x))
				return false;
		}
	}
	return true;
}

static bool apply_positive(struct lq_ctx *c, struct lq_level *v, uint32_t x)
{
	const uint64_t *cx = c->conf + (size_t)x * c->W;

	bset(v->inc, x);
	cov_set(c, v, x, 1);
	bclr(v->dep, x);
	return trail_push(c, v, TR_INC, x) &&
	       trail_push(c, v, TR_DEP_DEL, x) &&
	       remove_logged(c, v, v->dep, cx, TR_DEP_DEL) &&
	       remove_logged(c, v, v->exc, cx, TR_EXC_DEL);
}

/* x and its copies still in the depot move to the excluder. */
static bool apply_negative(struct lq_ctx *c, struct lq_level *v, uint32_t x)
{
	for (uint32_t y = x; y != LQ_NONE; y = c->gnext[y]) {
		if (!bit(v->dep, y))
			continue;
		bclr(v->dep, y);
		bset(v->exc, y);
		if (!trail_push(c, v, TR_DEP_DEL, y) ||
		    !trail_push(c, v, TR_EXC_ADD, y))
			return false;
	}
	return true;
}

static bool push_frame(struct lq_ctx *c, struct lq_level *v, uint32_t x,
		       uint8_t kind)
{
	if (v->nstk == v->stk_cap) {
		uint32_t cap = v->stk_cap ? 2 * v->stk_cap : 256;
		struct lq_frame *ns = realloc(v->stk, (size_t)cap *
					      sizeof(*ns));

		if (!ns) {
			c->nomem = true;
			return false;
		}
		v->stk = ns;
		v->stk_cap = cap;
	}
	v->stk[v->nstk++] = (struct lq_frame){ x, v->ntrail, kind };
	return true;
}

/* ---- one category ----------------------------------------------------- */

enum { EX_PRUNE, EX_LEAF, EX_BRANCH };

/* Blank: an excluder transfer congests nothing left in the depot. */
static bool blank(struct lq_ctx *c, const struct lq_level *v,
		  bool dep_any, uint32_t lo, uint32_t hi)
{
	c->spent += c->W;
	for (uint32_t w = 0; w < c->W; w++) {
		uint64_t r = v->exc[w];

		while (r) {
			uint32_t z = w * 64 + (uint32_t)__builtin_ctzll(r);

			r &= r - 1;
			c->spent += hi - lo + 1;
			if (!dep_any ||
			    !bmeets(c->conf + (size_t)z * c->W, v->dep, lo,
				    hi))
				return true;
		}
	}
	return false;
}

/* Among the depot transfers in u, the one whose links are most loaded in
 * the level's traffic (busiest link, then total): links about to become
 * bottlenecks are served first, as the greedy colouring does. */
static uint32_t busiest(struct lq_ctx *c, const struct lq_level *v,
			const uint64_t *u, uint32_t lo, uint32_t hi)
{
	uint64_t bestk = 0;
	uint32_t best = LQ_NONE;

	c->spent += hi - lo;

	for (uint32_t w = lo; w < hi; w++) {
		uint64_t r = u[w] & v->dep[w];

		while (r) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(r), n;
			const uint32_t *ls = tlinks(c, x, &n);
			uint64_t mx = 0, sum = 0;

			r &= r - 1;
			c->spent += n;
			for (uint32_t i = 0; i < n; i++) {
				sum += v->load[ls[i]];
				if (v->load[ls[i]] > mx)
					mx = v->load[ls[i]];
			}
			if (best == LQ_NONE || (mx << 32 | sum) > bestk) {
				bestk = mx << 32 | sum;
				best = x;
			}
		}
	}
	return best;
}

/* Decide what to do with the level's current category: prune it, accept
 * it as a leaf (depot and excluder empty) or split it on *x. */
static int examine(struct lq_ctx *c, const struct lq_level *v,
		   uint32_t *x)
{
	uint32_t lo = 0, hi = 0, best = LQ_NONE, bestn = UINT32_MAX;
	bool any = brange(v->dep, c->W, &lo, &hi);

	c->spent += c->W;

	if (v->phase == 0) {
		/* Idle check, and the most constrained uncovered bottleneck
		 * to split on (any depot transfer would do: this one makes
		 * the first teams come quickly and dead ends show early). */
		for (uint32_t i = 0; i < v->nbn; i++) {
			uint32_t l = v->bn[i], n;
			const uint64_t *u = c->users + (size_t)l * c->W;

			if (v->cov[l])
				continue;
			if (!any)
				return EX_PRUNE;
			c->spent += hi - lo;
			n = bestn > 1 ? bcount(u, v->dep, lo, hi, bestn)
				      : bmeets(u, v->dep, lo, hi);
			if (!n)
				return EX_PRUNE;
			if (n < bestn) {
				bestn = n;
				best = l;
			}
		}
	}
	if (blank(c, v, any, lo, hi))
		return EX_PRUNE;
	if (!any)
		return EX_LEAF;
	if (best != LQ_NONE)
		*x = busiest(c, v, c->users + (size_t)best * c->W, lo, hi);
	else
		*x = busiest(c, v, v->dep, lo, hi);
	return EX_BRANCH;
}

/* Skeleton team found: open phase B with the other transfers of X that do
 * not congest it. */
static bool phase_switch(struct lq_ctx *c, struct lq_level *v)
{
	uint64_t *u = c->tmp;

	if (!push_frame(c, v, LQ_NONE, FR_PHASE))
		return false;
	memset(u, 0, c->W * sizeof(uint64_t));
	for (uint32_t w = 0; w < c->W; w++) {
		uint64_t r = v->inc[w];

		while (r) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(r);
			const uint64_t *cx = c->conf + (size_t)x * c->W;

			r &= r - 1;
			c->spent += c->W;
			for (uint32_t k = 0; k < c->W; k++)
				u[k] |= cx[k];
		}
	}
	v->phase = 1;
	for (uint32_t w = 0; w < c->W; w++) {
		uint64_t r = v->X[w] & ~v->S[w] & ~u[w] & ~v->inc[w];

		v->dep[w] |= r;
		while (r) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(r);

			r &= r - 1;
			if (!trail_push(c, v, TR_DEP_ADD, x))
				return false;
		}
	}
	return true;
}

/* Undo the latest positive branch and take its negative one. */
static bool backtrack(struct lq_ctx *c, struct lq_level *v)
{
	while (v->nstk) {
		struct lq_frame *f = &v->stk[v->nstk - 1];

		undo_to(c, v, f->mark);
		if (f->kind == FR_POS) {
			f->kind = FR_NEG;
			return apply_negative(c, v, f->x);
		}
		if (f->kind == FR_PHASE)
			v->phase = 0;
		v->nstk--;
	}
	return false;
}

/* The anchor.  The frames of a liquid schedule can be put in any order,
 * so the one holding a given transfer a of the level's traffic X can come
 * first; every bottleneck carries one transfer per frame, so that frame
 * uses them all (a team), and adding to it the transfers of later frames
 * that congest none of its members keeps it a team, keeps the later frames
 * congestion-free and every link's load within the frames left: a liquid
 * schedule whose first frame is a full team holding a.  Hence the level
 * only needs the full teams that hold a, and an exhausted search still
 * proves that none exists; without the anchor every full team not holding
 * a is tried as well, i.e. the same frames again in another order.  a is
 * the transfer the first fission would take (examine()), so the first team
 * found is the one the plain enumeration finds first.  Applied before the
 * fission stack, it is never undone within the level. */
static bool force_anchor(struct lq_ctx *c, struct lq_level *v)
{
	uint32_t x;

	if (examine(c, v, &x) != EX_BRANCH)
		return true;   /* pruned or a leaf: the loop sees it again */
	return apply_positive(c, v, x);
}

/* Count the words scanned since the last call, plus units, on the clock:
 * a category's cost grows with the bottlenecks and the depot's span, so
 * a budget of work, unlike a count of categories, tracks the CPU time
 * whatever the traffic. */
static bool charge(struct lq_ctx *c, uint64_t units)
{
	uint64_t u = c->spent + units;

	c->spent = 0;
	return lq_tick(c->clk, u);
}

/* The level's next full team in v->inc; false when there is none left, on
 * timeout or on allocation failure (see c->timed_out, c->nomem). */
static bool next_team(struct lq_ctx *c, struct lq_level *v)
{
	uint32_t x;

	if (!v->started) {
		v->started = true;
		if (!force_anchor(c, v))
			return false;
	} else if (!backtrack(c, v)) {
		return false;
	}
	for (;;) {
		++c->ncat;
		if (charge(c, v->nbn)) {
			c->timed_out = true;
			return false;
		}
		switch (examine(c, v, &x)) {
		case EX_PRUNE:
			if (!backtrack(c, v))
				return false;
			break;
		case EX_LEAF:
			if (v->phase == 1)
				return true;
			if (!phase_switch(c, v))
				return false;
			break;
		default:
			if (!push_frame(c, v, x, FR_POS) ||
			    !apply_positive(c, v, x))
				return false;
		}
	}
}

/* ---- construction ----------------------------------------------------- */

/* The traffic of level k+1: level k's minus its team. */
static void level_child(struct lq_ctx *c, const struct lq_level *p,
			struct lq_level *v)
{
	for (uint32_t w = 0; w < c->W; w++)
		v->X[w] = p->X[w] & ~p->inc[w];
	memcpy(v->load, p->load, c->L * sizeof(uint32_t));
	for (uint32_t w = 0; w < c->W; w++) {
		uint64_t r = p->inc[w];

		while (r) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(r), n;
			const uint32_t *ls = tlinks(c, x, &n);

			r &= r - 1;
			for (uint32_t i = 0; i < n; i++)
				v->load[ls[i]]--;
		}
	}
	level_start(c, v);
}

static bool empty(const uint64_t *s, uint32_t W)
{
	for (uint32_t w = 0; w < W; w++)
		if (s[w])
			return false;
	return true;
}

/* Frames 0..k from the includers of levels 0..k.  Levels below *dirty
 * hold the teams recorded last time, so only the rest is rewritten (the
 * search may reach thousands of frames). */
static void record(const struct lq_ctx *c, uint32_t k, uint32_t *dirty,
		   uint32_t *frame_of)
{
	for (uint32_t x = 0; x < c->T; x++)
		if (frame_of[x] != LQ_NONE && frame_of[x] >= *dirty)
			frame_of[x] = LQ_NONE;
	for (uint32_t i = *dirty; i <= k; i++) {
		const uint64_t *inc = c->lv[i]->inc;

		for (uint32_t w = 0; w < c->W; w++) {
			uint64_t r = inc[w];

			while (r) {
				frame_of[w * 64 + __builtin_ctzll(r)] = i;
				r &= r - 1;
			}
		}
	}
	*dirty = k + 1;
}

static void construct(struct lq_ctx *c, const uint32_t *load,
		      uint32_t *frame_of, struct lq_search_out *out)
{
	struct lq_level *v = level_get(c, 0), *n;
	uint32_t k = 0, dirty = 0;

	if (!v) {
		c->nomem = true;
		return;
	}
	for (uint32_t x = 0; x < c->T; x++)
		bset(v->X, x);
	memcpy(v->load, load, c->L * sizeof(uint32_t));
	level_start(c, v);
	for (;;) {
		v = c->lv[k];
		if (!next_team(c, v)) {
			if (c->timed_out || c->nomem)
				return;
			if (k == 0) {
				out->exhausted = true;
				return;
			}
			k--;
			continue;
		}
		if (k < dirty)
			dirty = k;
		/* record() and level_child() sweep the traffic. */
		if (charge(c, (uint64_t)c->W + c->L +
			   (k + 1 > out->depth ? c->T : 0))) {
			c->timed_out = true;
			return;
		}
		if (k + 1 > out->depth) {
			out->depth = k + 1;
			record(c, k, &dirty, frame_of);
		}
		n = level_get(c, k + 1);
		if (!n) {
			c->nomem = true;
			return;
		}
		level_child(c, v, n);
		if (empty(n->X, c->W)) {
			out->found = true;
			record(c, k, &dirty, frame_of);
			return;
		}
		k++;
	}
}

ibf_status_t lq_search(const ibf_liquid_traffic_t *t, const uint32_t *load,
		       uint32_t duration, struct lq_clock *clk,
		       uint32_t *frame_of, struct lq_search_out *out)
{
	struct lq_ctx c;

	memset(out, 0, sizeof(*out));
	for (uint32_t x = 0; x < t->ntransfers; x++)
		frame_of[x] = LQ_NONE;
	if (!t->ntransfers || !duration) {
		out->found = true;
		return IBF_OK;
	}
	memset(&c, 0, sizeof(c));
	c.clk = clk;
	if (!ctx_init(&c, t)) {
		ctx_free(&c);
		return IBF_ERR_NOMEM;
	}
	if (!c.timed_out)
		construct(&c, load, frame_of, out);
	out->timed_out = c.timed_out;
	out->categories = c.ncat;
	ctx_free(&c);
	return c.nomem ? IBF_ERR_NOMEM : IBF_OK;
}
