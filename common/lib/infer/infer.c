/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Incremental tree construction from RTTs (HPDC'07, sections 3 and 4;
 * docs/infer.md).
 *
 * The tree under construction is rooted at the first host; lengths are
 * kept on the RTT scale (an edge counts once per direction, so the sum
 * over a path is the RTT).  A node's distance from the root never changes
 * when an edge above it is split, so distances are kept per node and any
 * two nodes' distance is rdist[a] + rdist[b] - 2 rdist[lca].
 *
 * Inserting host H (procedure add):
 *  - the close-host search measures a few tree hosts and prunes the
 *    others with the paper's 3x and x/3 rules; A = the closest found;
 *  - M = the tree's other hosts; B = the candidate most likely near H
 *    (measured ones first, then the smallest lower bound on its distance
 *    from H);
 *  - the branching point of (A, B, H) lies at (AH + AB - BH) / 2 from A
 *    (equation (1) on the RTT scale); with the measured intervals,
 *    widened by tol, it lies in [lo, hi].  If an existing switch on the
 *    path A-B falls in that interval (the nearest one if several), the
 *    point is that switch X: H is in neither X's subtree holding A nor
 *    the one holding B, both leave M, and A becomes the closer of A and
 *    B.  Otherwise a new switch is made there and H hangs from it;
 *  - when M is empty, H hangs from the last X.
 * H's own edge is the mean over every host J it measured of RTT(H, J)
 * minus the tree distance from its switch to J.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "infer/infer_internal.h"
#include "infer/infer_ctx.h"

/* ---- the tree under construction ---------------------------------------- */

static void link_kid(struct tree *t, uint32_t p, uint32_t c)
{
	t->parent[c] = p;
	t->prev[c] = NONE;
	t->next[c] = t->kid[p];
	if (t->kid[p] != NONE)
		t->prev[t->kid[p]] = c;
	t->kid[p] = c;
}

static void unlink_kid(struct tree *t, uint32_t c)
{
	uint32_t p = t->parent[c];

	if (t->prev[c] != NONE)
		t->next[t->prev[c]] = t->next[c];
	else
		t->kid[p] = t->next[c];
	if (t->next[c] != NONE)
		t->prev[t->next[c]] = t->prev[c];
	t->parent[c] = NONE;
}

/* Euler tour of the tree, iteratively (trees may be deep chains): it[]
 * holds the next child to enter while a node is open. */
void infer_tour(struct tree *t, uint32_t *stack, uint32_t *it)
{
	uint32_t sp = 0, clock = 0;

	stack[sp++] = t->root;
	it[t->root] = t->kid[t->root];
	t->tin[t->root] = clock++;
	while (sp) {
		uint32_t v = stack[sp - 1], c = it[v];

		if (c == NONE) {
			t->tout[v] = clock;
			sp--;
			continue;
		}
		it[v] = t->next[c];
		t->tin[c] = clock++;
		it[c] = t->kid[c];
		stack[sp++] = c;
	}
}

/* Distances (RTT scale) from node s to every node in the tree. */
static void dist_from(const struct tree *t, uint32_t s, double *d,
		      uint32_t *stack, uint32_t *from)
{
	uint32_t sp = 0;

	d[s] = 0;
	from[s] = NONE;
	stack[sp++] = s;
	while (sp) {
		uint32_t v = stack[--sp], c;

		if (t->parent[v] != NONE && t->parent[v] != from[v]) {
			uint32_t p = t->parent[v];

			d[p] = d[v] + t->up[v];
			from[p] = v;
			stack[sp++] = p;
		}
		for (c = t->kid[v]; c != NONE; c = t->next[c])
			if (c != from[v]) {
				d[c] = d[v] + t->up[c];
				from[c] = v;
				stack[sp++] = c;
			}
	}
}

static void tree_free(struct tree *t)
{
	IBF_FREE_ALL(t->parent, t->up, t->rdist, t->kid, t->next, t->prev,
		     t->tin, t->tout, t->placed);
}

static int tree_init(struct tree *t, uint32_t n)
{
	size_t cap = 2 * (size_t)n, i;

	memset(t, 0, sizeof(*t));
	t->n = n;
	t->nnodes = n;
	t->parent = malloc(cap * sizeof(*t->parent));
	t->up = calloc(cap, sizeof(*t->up));
	t->rdist = calloc(cap, sizeof(*t->rdist));
	t->kid = malloc(cap * sizeof(*t->kid));
	t->next = malloc(cap * sizeof(*t->next));
	t->prev = malloc(cap * sizeof(*t->prev));
	t->tin = calloc(cap, sizeof(*t->tin));
	t->tout = calloc(cap, sizeof(*t->tout));
	t->placed = calloc(n, 1);
	if (!t->parent || !t->up || !t->rdist || !t->kid || !t->next ||
	    !t->prev || !t->tin || !t->tout || !t->placed)
		return -1;
	for (i = 0; i < cap; i++)
		t->parent[i] = t->kid[i] = t->next[i] = t->prev[i] = NONE;
	return 0;
}

/* A new switch on the edge from c to its parent, t from c. */
static uint32_t split_edge(struct tree *t, uint32_t c, double at)
{
	uint32_t x = t->nnodes++, p = t->parent[c];

	if (at < 0)
		at = 0;
	if (at > t->up[c])
		at = t->up[c];
	unlink_kid(t, c);
	link_kid(t, p, x);
	t->up[x] = t->up[c] - at;
	t->rdist[x] = t->rdist[p] + t->up[x];
	link_kid(t, x, c);
	t->up[c] = at;
	return x;
}

static void hang(struct tree *t, uint32_t x, uint32_t h, double len)
{
	link_kid(t, x, h);
	t->up[h] = len > 0 ? len : 0;
	t->rdist[h] = t->rdist[x] + t->up[h];
	t->placed[h] = 1;
}

/* ---- inference context -------------------------------------------------- */


static ibf_status_t record(struct ctx *c, uint32_t a, uint32_t b,
			   double mn, double mx, bool look,
			   uint32_t started_after)
{
	if (c->nmeas == c->measc) {
		ibf_infer_meas_t *m = ibf_array_grow32(c->meas, &c->measc,
						       (uint64_t)c->nmeas + 1,
						       sizeof(*m));

		if (!m)
			return ibf_err_set(c->err, IBF_ERR_NOMEM,
					   "out of memory");
		c->meas = m;
	}
	c->meas[c->nmeas].a = a;
	c->meas[c->nmeas].b = b;
	c->meas[c->nmeas].min = mn;
	c->meas[c->nmeas].max = mx;
	c->meas[c->nmeas].lookahead = look;
	c->meas[c->nmeas].started_after = started_after;
	c->nmeas++;
	return IBF_OK;
}

/* Tighten every tree host's bounds on its distance from h with the
 * measurement of h and k: |x - d(k, j)| <= d(h, j) <= x + d(k, j). */
static void bounds_from(struct ctx *c, uint32_t k)
{
	uint32_t j;

	dist_from(&c->t, k, c->dist, c->stack, c->from);
	for (j = 0; j < c->t.n; j++) {
		double lo, hi;

		if (!c->t.placed[j])
			continue;
		lo = fabs(c->hmin[k] - c->dist[j]) - c->tol;
		hi = c->hmin[k] + c->dist[j];
		if (lo > c->lb[j])
			c->lb[j] = lo;
		if (hi < c->ub[j])
			c->ub[j] = hi;
	}
}

/* What the oracle said of h and k (started after `after`
 * measurements were over), checked and counted: IBF_OK with *have 1
 * (measured, recorded) or 2 (unavailable), or the failure. */
ibf_status_t infer_take(struct ctx *c, uint32_t h, uint32_t k,
			ibf_status_t st, double mn, double mx, bool look,
			uint32_t after, uint8_t *have)
{
	if (st == IBF_ERR_NOT_FOUND) {
		*have = 2;
		c->st->unavailable++;
		ibf_err_clear(c->err);
		return IBF_OK;
	}
	if (st != IBF_OK)
		return st;
	if (!isfinite(mn) || !isfinite(mx) || mn < 0 || mx < mn)
		return ibf_err_set(c->err, IBF_ERR_INVALID, "the oracle "
				   "returned RTT [%g, %g] for hosts %u and %u",
				   mn, mx, h, k);
	*have = 1;
	if (look)
		c->st->lookahead_pairs++;
	else
		c->st->add_pairs++;
	return record(c, h, k, mn, mx, look, after);
}

/* Parallel mode: the replayed search's measurement of k comes from its
 * slot's cache; one not made yet stops the search (c->blocked, unwound
 * as a failure that is none) and is what the slot asks for next. */
static ibf_status_t replayed(struct ctx *c, uint32_t k, bool *ok)
{
	struct slot *s = c->cur;
	size_t at = (size_t)s->idx * c->t.n + k;

	if (!c->chave[at] || c->chave[at] == IN_FLIGHT) {
		s->want = k;
		s->want_look = c->in_lookahead;
		c->blocked = true;
		return IBF_ERR_UNSUPPORTED;
	}
	c->asked[c->nasked++] = k;
	c->have[k] = c->chave[at];
	if (c->have[k] != 1)
		return IBF_OK;
	c->hmin[k] = c->cmin[at];
	c->hmax[k] = c->cmax[at];
	*ok = true;
	bounds_from(c, k);
	return IBF_OK;
}

/* Measure h and k once; false when the pair is unavailable. */
ibf_status_t infer_measure(struct ctx *c, uint32_t h, uint32_t k, bool *ok)
{
	double mn = 0, mx = 0, t0;
	ibf_status_t st;

	*ok = c->have[k] == 1;
	if (c->have[k])
		return IBF_OK;
	if (c->cur)
		return replayed(c, k, ok);
	c->asked[c->nasked++] = k;
	t0 = ibf_infer_now();
	st = c->o->measure(c->o->ctx, h, k, &mn, &mx, c->err);
	c->st->oracle_s += ibf_infer_now() - t0;
	st = infer_take(c, h, k, st, mn, mx, c->in_lookahead, c->nmeas,
			&c->have[k]);
	if (st != IBF_OK || c->have[k] != 1)
		return st;
	c->hmin[k] = mn;
	c->hmax[k] = mx;
	c->host_pairs++;
	c->add_pairs += !c->in_lookahead;
	*ok = true;
	bounds_from(c, k);
	return IBF_OK;
}

/* Forget the current host's measurements. */
void infer_reset_host(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->nasked; i++)
		c->have[c->asked[i]] = 0;
	c->nasked = 0;
	for (i = 0; i < c->t.n; i++) {
		c->lb[i] = 0;
		c->ub[i] = INFINITY;
	}
	c->host_pairs = c->add_pairs = 0;
}

static void cands_all(struct ctx *c)
{
	uint32_t j;

	c->ncands = 0;
	for (j = 0; j < c->t.n; j++) {
		c->cand[j] = c->t.placed[j];
		if (c->cand[j])
			c->cands[c->ncands++] = j;
	}
}

static void cand_drop(struct ctx *c, uint32_t i)
{
	c->cand[c->cands[i]] = 0;
	c->cands[i] = c->cands[--c->ncands];
}


/* By its bounds, is j more likely near the host than b? */
static bool nearer_bounds(const struct ctx *c, uint32_t j, uint32_t b)
{
	return c->lb[j] < c->lb[b] ||
	       (c->lb[j] == c->lb[b] && c->ub[j] < c->ub[b]);
}

/* Parallel mode: could the replayed search's pair with tree host j start
 * now - j and the links from j to the anchor a (NONE: j's own link) free
 * of the measurements in flight?  (Marks and tour: replay_all.) */
static bool startable(struct ctx *c, uint32_t j, uint32_t a)
{
	return !c->hmark[j] && infer_pair_links(c, c->cur, j, a, false);
}

/* Parallel mode: best is a candidate not measured yet.  Those with the
 * same lower bound (often 0: nothing is known of them yet) are as likely
 * near the host by the first rule: of them, the nearest by the upper
 * bound that can start now, so that searches asking for the same hosts
 * spread over the free ones; best when none can.  (Taking any lower
 * bound within the coincidence radius of best's was tried: more pairs
 * in flight but 10-50 % more pairs, and no faster.) */
static uint32_t cand_startable(struct ctx *c, uint32_t best)
{
	uint32_t i, a = infer_anchor(c, c->cur), pick = NONE;
	double lb = c->lb[c->cands[best]];

	for (i = 0; i < c->ncands; i++) {
		uint32_t j = c->cands[i];

		if (c->have[j] == 1 || c->lb[j] != lb ||
		    (pick != NONE && !nearer_bounds(c, j, c->cands[pick])))
			continue;
		if (startable(c, j, a))
			pick = i;
	}
	return pick != NONE ? pick : best;
}

/* The candidate to measure next: one already measured (free) first, then
 * the smallest lower bound, then the smallest upper bound (in parallel,
 * among equal lower bounds one that can start now: cand_startable). */
static uint32_t cand_best(struct ctx *c)
{
	uint32_t i, best = NONE;

	for (i = 0; i < c->ncands; i++) {
		uint32_t j = c->cands[i], b;

		if (best == NONE) {
			best = i;
			continue;
		}
		b = c->cands[best];
		if ((c->have[j] == 1) != (c->have[b] == 1)) {
			if (c->have[j] == 1)
				best = i;
			continue;
		}
		if (c->have[j] == 1 ? c->hmin[j] < c->hmin[b] :
		    nearer_bounds(c, j, b))
			best = i;
	}
	if (c->cur && c->cur->flying == NONE && best != NONE &&
	    c->have[c->cands[best]] != 1)
		best = cand_startable(c, best);
	return best;
}

/* The search's random first candidate.  A replayed search (parallel
 * mode) keeps the host it drew first: the tree, and so the draw's range,
 * may have grown since, and a new draw would cost a new measurement.
 * It draws among the candidates that can start now, if any. */
static uint32_t first_pick(struct ctx *c)
{
	struct slot *s = c->cur;
	uint32_t i, nfree = 0, r;

	if (s && s->first != NONE)
		for (i = 0; i < c->ncands; i++)
			if (c->cands[i] == s->first)
				return i;
	for (i = 0; s && s->flying == NONE && i < c->ncands; i++)
		nfree += startable(c, c->cands[i], NONE);
	if (!nfree) {
		i = (uint32_t)ibf_rng_below(&c->rng, c->ncands);
	} else {
		r = (uint32_t)ibf_rng_below(&c->rng, nfree);
		for (i = 0; !startable(c, c->cands[i], NONE) || r--; i++)
			;
	}
	if (s)
		s->first = c->cands[i];
	return i;
}

/* Parallel mode: may the replayed search measure j?  A pair in its
 * cache, yes; a new one only while the host's close-host pairs, over all
 * its replays, are within the budget: a search re-run on a grown tree
 * takes other turns and would otherwise spend the budget again on each
 * (up to 19 pairs for one host against the serial 8-13). */
static bool within_budget(const struct ctx *c, uint32_t j, unsigned budget)
{
	const struct slot *s = c->cur;

	return !s || c->chave[(size_t)s->idx * c->t.n + j] ||
	       s->look_started < budget;
}

/* The close-host search (the paper's find_close_host): measure
 * candidates, dropping those a measurement shows to be far (tree distance
 * to the host measured > 3x or < x/3, x its RTT); stop at the budget or
 * when no candidate can be closer than the best found.  The first
 * candidate is random, as the paper's "arbitrary". */
static ibf_status_t close_host(struct ctx *c, uint32_t h, uint32_t *best)
{
	const unsigned full = c->opts->lookahead ? c->opts->lookahead :
			      IBF_INFER_LOOKAHEAD_DEFAULT;
	unsigned budget = full;
	double bx = INFINITY;
	ibf_status_t st = IBF_OK;
	uint32_t i;

	*best = NONE;
	if (budget == IBF_INFER_LOOKAHEAD_OFF)
		return IBF_OK;
	cands_all(c);
	c->in_lookahead = true;
	for (; c->ncands && budget; budget--) {
		uint32_t pick = bx == INFINITY ? first_pick(c) : cand_best(c),
			 j = c->cands[pick];
		double x;
		bool ok;

		if (bx != INFINITY && c->lb[j] >= bx)
			break; /* nobody left can be closer */
		if (!within_budget(c, j, full))
			break;
		cand_drop(c, pick);
		if ((st = infer_measure(c, h, j, &ok)) != IBF_OK)
			break;
		if (!ok)
			continue;
		x = c->hmin[j];
		if (x < bx) {
			bx = x;
			*best = j;
		}
		/* c->dist holds the distances from j (bounds_from). */
		for (i = 0; i < c->ncands;) {
			double y = c->dist[c->cands[i]];

			if (y > 3 * x || y < x / 3)
				cand_drop(c, i);
			else
				i++;
		}
	}
	c->in_lookahead = false;
	return st;
}

/* ---- a pair's links (parallel mode) ------------------------------------ */

/* The host slot s's search is closest to so far (its smallest measured
 * RTT), or NONE. */
uint32_t infer_anchor(const struct ctx *c, const struct slot *s)
{
	const uint8_t *hv = c->chave + (size_t)s->idx * c->t.n;
	const double *mn = c->cmin + (size_t)s->idx * c->t.n;
	uint32_t j, best = NONE;

	for (j = 0; j < c->t.n; j++)
		if (hv[j] == 1 && (best == NONE || mn[j] < mn[best]))
			best = j;
	return best;
}

/* Where the route of slot s's host h to a tree host k is taken to join
 * the path from k to h's anchor a, as a distance from a (RTT scale):
 * half of RTT(h, a).  h branches off that path at some B with d(a, B) +
 * d(B, h) = RTT(h, a); the links past B lead to k on h's route, those
 * before it do not.  B is at half the RTT when h's side below B is as
 * long as a's: hosts on one switch with equal links, or an anchor in
 * another pod of a tree with equal levels, where B is the top switch and
 * a's side of the path is not on h's route.  So a pair that locates h
 * across the top holds k's side only, not the anchor's pod uplink as
 * well (h's own side is unknown until h is located). */
static double route_from(const struct ctx *c, const struct slot *s,
			 uint32_t a)
{
	size_t at = (size_t)s->idx * c->t.n + a;

	if (a == NONE || c->chave[at] != 1)
		return -1;
	return c->cmin[at] / 2;
}

/* The links of the tree path between tree host k and anchor a that reach
 * past `from` (RTT scale, measured from a), named by their lower node
 * (k == a: k's own link): are they all unmarked (take false), or mark
 * them (take true).  Needs a current Euler tour. */
static bool path_links(struct ctx *c, uint32_t k, uint32_t a, double from,
		       bool take)
{
	const struct tree *t = &c->t;
	uint32_t lca = a, v;

	if (a == k) {
		/* the root host's link is named by its one child */
		v = t->parent[k] != NONE ? k : t->kid[k];
		if (v == NONE)
			return true;
		if (!take)
			return !c->emark[v];
		c->emark[v] = 1;
		return true;
	}
	while (!is_anc(t, lca, k))
		lca = t->parent[lca];
	for (int side = 0; side < 2; side++)
		for (v = side ? k : a; v != lca; v = t->parent[v]) {
			/* the far end of v's link, seen from a */
			double end = side ? t->rdist[a] - 2 * t->rdist[lca] +
					    t->rdist[v] :
				     t->rdist[a] - t->rdist[t->parent[v]];

			if (end <= from)
				continue;
			if (!take && c->emark[v])
				return false;
			c->emark[v] |= take;
		}
	return true;
}

/* Slot s's pair with tree host k, its anchor a (NONE: none yet): its
 * links (those of path_links past route_from, or k's own), unmarked
 * (take false) or marked (take true). */
bool infer_pair_links(struct ctx *c, const struct slot *s, uint32_t k,
		      uint32_t a, bool take)
{
	if (a == NONE)
		a = k;
	return path_links(c, k, a, route_from(c, s, a), take);
}

/* ---- add: place one host ------------------------------------------------ */

/* The path from a to b: nodes into c->path, their distances from a into
 * c->pos; returns the number of nodes. */
static uint32_t path_of(struct ctx *c, uint32_t a, uint32_t b)
{
	const struct tree *t = &c->t;
	uint32_t lca = a, n = 0, m, v, i;

	while (!is_anc(t, lca, b))
		lca = t->parent[lca];
	for (v = a; v != lca; v = t->parent[v]) {
		c->path[n] = v;
		c->pos[n++] = t->rdist[a] - t->rdist[v];
	}
	c->path[n] = lca;
	c->pos[n++] = t->rdist[a] - t->rdist[lca];
	m = n;
	for (v = b; v != lca; v = t->parent[v])
		n++;
	for (v = b, i = n - 1; v != lca; v = t->parent[v], i--) {
		c->path[i] = v;
		c->pos[i] = t->rdist[a] - 2 * t->rdist[lca] + t->rdist[v];
	}
	(void)m;
	return n;
}

/* Drop from M the hosts in x's subtree (tree rooted at x) holding a. */
static void prune_side(struct ctx *c, uint32_t x, uint32_t a)
{
	const struct tree *t = &c->t;
	uint32_t i, top = a;
	bool below = x != a && is_anc(t, x, a);

	if (below)
		while (t->parent[top] != x)
			top = t->parent[top];
	for (i = 0; i < c->ncands;) {
		uint32_t k = c->cands[i];

		if (below ? is_anc(t, top, k) : !is_anc(t, x, k))
			cand_drop(c, i);
		else
			i++;
	}
}

/* Where the branching point of (a, b, h) is: an existing switch (*x, and
 * *made false) or a new one made on the path (*made true). */
static void branch(struct ctx *c, uint32_t a, uint32_t b, uint32_t *x,
		   bool *made)
{
	struct tree *t = &c->t;
	uint32_t n = path_of(c, a, b), i, best = NONE;
	double ab = c->pos[n - 1], tol = c->tol;
	double at = (c->hmin[a] + ab - c->hmin[b]) / 2;
	/* tol: the coincidence radius; a relative 1e-9 for rounding (exact
	 * inputs, tol 0). */
	double slack = tol + 1e-9 * (c->hmax[a] + ab + c->hmax[b]);
	double lo = (c->hmin[a] + ab - c->hmax[b]) / 2 - slack;
	double hi = (c->hmax[a] + ab - c->hmin[b]) / 2 + slack;

	for (i = 1; i + 1 < n; i++)
		if (c->pos[i] >= lo && c->pos[i] <= hi &&
		    (best == NONE ||
		     fabs(c->pos[i] - at) < fabs(c->pos[best] - at)))
			best = i;
	if (best != NONE) {
		*x = c->path[best];
		*made = false;
		return;
	}
	if (at < 0)
		at = 0;
	if (at > ab)
		at = ab;
	for (i = 0; i + 2 < n && c->pos[i + 1] < at; i++)
		;
	/* The edge path[i] - path[i+1] holds the point. */
	if (t->parent[c->path[i]] == c->path[i + 1])
		*x = split_edge(t, c->path[i], at - c->pos[i]);
	else
		*x = split_edge(t, c->path[i + 1], c->pos[i + 1] - at);
	*made = true;
}

/* Hang h from x: its edge is the mean over the hosts j it measured of
 * RTT(h, j) - d(x, j). */
static void hang_host(struct ctx *c, uint32_t x, uint32_t h)
{
	double sum = 0;
	uint32_t i, n = 0;

	dist_from(&c->t, x, c->dist, c->stack, c->from);
	for (i = 0; i < c->nasked; i++) {
		uint32_t j = c->asked[i];

		if (c->have[j] == 1) {
			sum += c->hmin[j] - c->dist[j];
			n++;
		}
	}
	hang(&c->t, x, h, n ? sum / n : 0);
}

/* h cannot be placed: none of the tree's hosts (what) can be measured
 * with it.  In parallel, while other searches may still grow the tree,
 * the search waits for them (it asks for nothing); else it fails. */
static ibf_status_t unmeasurable(struct ctx *c, uint32_t h, const char *what)
{
	if (c->cur && c->nact > 1) {
		c->cur->want = NONE;
		c->blocked = true;
		return IBF_ERR_UNSUPPORTED;
	}
	return ibf_err_set(c->err, IBF_ERR_INVALID, "host %u: %s can be "
			   "measured with it", h, what);
}

ibf_status_t infer_add(struct ctx *c, uint32_t h)
{
	uint32_t a, x = NONE, i;
	ibf_status_t st;
	bool ok, made;

	infer_tour(&c->t, c->stack, c->from);
	if ((st = close_host(c, h, &a)) != IBF_OK)
		return st;
	cands_all(c);
	if (a == NONE) {
		/* No search: any measurable host will do as A. */
		while (c->ncands) {
			i = cand_best(c);
			a = c->cands[i];
			cand_drop(c, i);
			if ((st = infer_measure(c, h, a, &ok)) != IBF_OK)
				return st;
			if (ok)
				break;
			a = NONE;
		}
	} else {
		for (i = 0; c->cands[i] != a; i++)
			;
		cand_drop(c, i);
	}
	if (a == NONE)
		return unmeasurable(c, h, "no host of the tree");
	if (c->t.nnodes == c->t.n && c->t.kid[c->t.root] == NONE) {
		hang_host(c, a, h); /* the second host */
		return IBF_OK;
	}
	while (c->ncands) {
		uint32_t b;

		i = cand_best(c);
		b = c->cands[i];
		cand_drop(c, i);
		if ((st = infer_measure(c, h, b, &ok)) != IBF_OK)
			return st;
		if (!ok)
			continue;
		branch(c, a, b, &x, &made);
		if (made)
			break;
		prune_side(c, x, a);
		prune_side(c, x, b);
		if (c->hmin[b] < c->hmin[a])
			a = b;
	}
	if (x == NONE)
		return unmeasurable(c, h, "no second host of the tree");
	hang_host(c, x, h);
	return IBF_OK;
}

/* ---- least-squares edge lengths ------------------------------------------- */

/* Path edges (named by their lower node) of every measurement, CSR. */
struct rows {
	uint32_t *off, *col;
	double *y;
	uint32_t n;
};

static int rows_build(const struct ctx *c, struct rows *r)
{
	const struct tree *t = &c->t;
	size_t cap = 0, len = 0;
	uint32_t i;

	r->n = c->nmeas;
	r->off = malloc((c->nmeas + 1) * sizeof(*r->off));
	r->y = malloc((c->nmeas + 1) * sizeof(*r->y));
	r->col = NULL;
	if (!r->off || !r->y)
		return -1;
	for (i = 0; i < c->nmeas; i++) {
		uint32_t a = c->meas[i].a, b = c->meas[i].b, lca = a, v;

		r->off[i] = (uint32_t)len;
		r->y[i] = 0;
		/* an empty row: a host the parallel mode has not placed yet */
		if (!t->placed[a] || !t->placed[b])
			continue;
		while (!is_anc(t, lca, b))
			lca = t->parent[lca];
		r->y[i] = c->meas[i].min;
		for (int side = 0; side < 2; side++)
			for (v = side ? b : a; v != lca; v = t->parent[v]) {
				if (len == cap) {
					uint32_t *nc;

					cap = cap ? 2 * cap : 4096;
					nc = realloc(r->col,
						     cap * sizeof(*nc));
					if (!nc)
						return -1;
					r->col = nc;
				}
				r->col[len++] = v;
			}
	}
	r->off[c->nmeas] = (uint32_t)len;
	return 0;
}

static void rows_free(struct rows *r)
{
	free(r->off);
	free(r->col);
	free(r->y);
}

static void rdist_update(struct tree *t, uint32_t *stack)
{
	uint32_t sp = 0, k;

	t->rdist[t->root] = 0;
	stack[sp++] = t->root;
	while (sp) {
		uint32_t v = stack[--sp];

		for (k = t->kid[v]; k != NONE; k = t->next[k]) {
			t->rdist[k] = t->rdist[v] + t->up[k];
			stack[sp++] = k;
		}
	}
}

/* CGLS from the lengths found, so what the measurements do not determine
 * keeps its value; lengths are kept non-negative.  Needs a current
 * Euler tour. */
static int refit(struct ctx *c, uint32_t maxit)
{
	struct tree *t = &c->t;
	uint32_t nn = t->nnodes, i, k, it;
	double *res, *s, *p, *q, gamma = 0, g0;
	struct rows r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	res = malloc((c->nmeas + 1) * sizeof(*res));
	q = malloc((c->nmeas + 1) * sizeof(*q));
	s = calloc(nn, sizeof(*s));
	p = calloc(nn, sizeof(*p));
	if (!res || !q || !s || !p || rows_build(c, &r))
		goto out;
	for (i = 0; i < r.n; i++) {
		res[i] = r.y[i];
		for (k = r.off[i]; k < r.off[i + 1]; k++)
			res[i] -= t->up[r.col[k]];
		for (k = r.off[i]; k < r.off[i + 1]; k++)
			s[r.col[k]] += res[i];
	}
	for (i = 0; i < nn; i++) {
		p[i] = s[i];
		gamma += s[i] * s[i];
	}
	g0 = gamma;
	for (it = 0; it < maxit && gamma > 1e-24 * (g0 + 1e-300); it++) {
		double qq = 0, alpha, g1 = 0;

		for (i = 0; i < r.n; i++) {
			q[i] = 0;
			for (k = r.off[i]; k < r.off[i + 1]; k++)
				q[i] += p[r.col[k]];
			qq += q[i] * q[i];
		}
		if (qq <= 0)
			break;
		alpha = gamma / qq;
		for (i = 0; i < nn; i++) {
			t->up[i] += alpha * p[i];
			s[i] = 0;
		}
		for (i = 0; i < r.n; i++) {
			res[i] -= alpha * q[i];
			for (k = r.off[i]; k < r.off[i + 1]; k++)
				s[r.col[k]] += res[i];
		}
		for (i = 0; i < nn; i++)
			g1 += s[i] * s[i];
		for (i = 0; i < nn; i++)
			p[i] = s[i] + g1 / gamma * p[i];
		gamma = g1;
	}
	for (i = 0; i < nn; i++)
		if (t->up[i] < 0 || t->parent[i] == NONE)
			t->up[i] = 0;
	rdist_update(t, c->stack);
	rc = 0;
out:
	rows_free(&r);
	free(res);
	free(q);
	free(s);
	free(p);
	return rc;
}

/* ---- result ------------------------------------------------------------- */

/* The public tree: switches renumbered after the hosts in the order they
 * were made (they already are), RTT-scale lengths halved into one-way
 * latencies; two hosts get a switch between them. */
ibf_status_t infer_export_tree(const struct tree *t, ibf_infer_tree_t *o,
			       ibf_err_t *err)
{
	uint32_t v, e = 0;
	bool pair = t->nnodes == t->n;

	o->nhosts = t->n;
	o->nnodes = t->nnodes + pair;
	o->nedges = o->nnodes - 1;
	o->ea = malloc(o->nedges * sizeof(*o->ea));
	o->eb = malloc(o->nedges * sizeof(*o->eb));
	o->lat = malloc(o->nedges * sizeof(*o->lat));
	if (!o->ea || !o->eb || !o->lat)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (v = 0; v < t->nnodes; v++) {
		if (t->parent[v] == NONE)
			continue;
		o->ea[e] = v;
		o->eb[e] = pair ? t->n : t->parent[v];
		o->lat[e++] = pair ? t->up[v] / 4 : t->up[v] / 2;
	}
	if (pair) {
		o->ea[e] = t->root;
		o->eb[e] = t->n;
		o->lat[e++] = o->lat[0];
	}
	return IBF_OK;
}

void infer_ctx_free(struct ctx *c)
{
	tree_free(&c->t);
	IBF_FREE_ALL(c->hmin, c->hmax, c->have, c->asked, c->lb, c->ub, c->cand,
		     c->cands, c->dist, c->stack, c->from, c->path, c->pos,
		     c->meas, c->slots, c->act, c->cmin, c->cmax, c->chave,
		     c->fifo, c->hmark, c->emark);
}

/* The parallel mode's slots, caches and flight marks for k slots. */
int infer_par_alloc(struct ctx *c, uint32_t k)
{
	size_t n = c->t.n, i;

	c->nslots = k;
	c->slots = calloc(k, sizeof(*c->slots));
	c->act = malloc(k * sizeof(*c->act));
	c->cmin = malloc(k * n * sizeof(*c->cmin));
	c->cmax = malloc(k * n * sizeof(*c->cmax));
	c->chave = calloc(k * n, 1);
	c->fifo = malloc(k * sizeof(*c->fifo));
	c->hmark = malloc(n);
	c->emark = malloc(2 * n);
	if (!c->slots || !c->act || !c->cmin || !c->cmax || !c->chave ||
	    !c->fifo || !c->hmark || !c->emark)
		return -1;
	for (i = 0; i < k; i++) {
		c->slots[i].idx = (uint32_t)i;
		c->slots[i].h = c->slots[i].flying = NONE;
	}
	return 0;
}

int infer_ctx_alloc(struct ctx *c, uint32_t n)
{
	size_t nn = 2 * (size_t)n;

	if (tree_init(&c->t, n))
		return -1;
	c->hmin = calloc(n, sizeof(*c->hmin));
	c->hmax = calloc(n, sizeof(*c->hmax));
	c->have = calloc(n, 1);
	c->asked = malloc(n * sizeof(*c->asked));
	c->lb = calloc(n, sizeof(*c->lb));
	c->ub = malloc(n * sizeof(*c->ub));
	c->cand = calloc(n, 1);
	c->cands = malloc(n * sizeof(*c->cands));
	c->dist = calloc(nn, sizeof(*c->dist));
	c->stack = malloc(nn * sizeof(*c->stack));
	c->from = malloc(nn * sizeof(*c->from));
	c->path = malloc(nn * sizeof(*c->path));
	c->pos = malloc(nn * sizeof(*c->pos));
	return c->hmin && c->hmax && c->have && c->asked && c->lb && c->ub &&
	       c->cand && c->cands && c->dist && c->stack && c->from &&
	       c->path && c->pos ? 0 : -1;
}

ibf_status_t infer_check_order(const uint32_t *order, uint32_t n,
			       uint8_t *seen, ibf_err_t *err)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (order[i] >= n || seen[order[i]])
			return ibf_err_set(err, IBF_ERR_INVALID, "insertion "
					   "order: entry %u (%u) is not a new "
					   "host below %u", i, order[i], n);
		seen[order[i]] = 1;
	}
	memset(seen, 0, n);
	return IBF_OK;
}

/* Least squares over all measurements so far: the positions of new
 * switches come from single measurements, and errors along a path would
 * add up otherwise. */
ibf_status_t infer_refit_now(struct ctx *c, uint32_t maxit)
{
	if (c->opts->raw_lengths || c->t.nnodes == c->t.n)
		return IBF_OK;
	infer_tour(&c->t, c->stack, c->from);
	if (refit(c, maxit))
		return ibf_err_set(c->err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

ibf_status_t infer_run_all(struct ctx *c, const uint32_t *order)
{
	uint32_t i, n = c->t.n, next = REFIT_EVERY;
	ibf_status_t st;

	c->t.root = order ? order[0] : 0;
	c->t.placed[c->t.root] = 1;
	for (i = 1; i < n; i++) {
		uint32_t h = order ? order[i] : i;

		infer_reset_host(c);
		if ((st = infer_add(c, h)) != IBF_OK)
			return st;
		if (c->host_pairs > c->st->max_host_pairs)
			c->st->max_host_pairs = c->host_pairs;
		if (c->add_pairs > c->st->max_add_pairs)
			c->st->max_add_pairs = c->add_pairs;
		/* Every 8 hosts, then every 1/8 more: a refit costs the
		 * measurements so far, so the total stays near linear. */
		if (i >= next) {
			next = i + (i / REFIT_EVERY > REFIT_EVERY ?
				    i / REFIT_EVERY : REFIT_EVERY);
			if ((st = infer_refit_now(c, REFIT_ITERATIONS)) !=
			    IBF_OK)
				return st;
		}
	}
	return infer_refit_now(c, 4 * c->t.nnodes);
}
