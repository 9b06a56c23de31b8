/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology inference in parallel (docs/infer.md, "In parallel"): several
 * hosts inserted at once, each search replayed on the current tree as
 * its measurements end, pairs admitted while they share no host and no
 * link with those in flight.  The serial steps are infer.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "infer/infer_ctx.h"

/* ---- in parallel -------------------------------------------------------- */

/* Mark the hosts of the measurements in flight and their links (admit),
 * on the tree as it is now (it may have grown since they started). */
static void flights_mark(struct ctx *c)
{
	uint32_t i;

	memset(c->hmark, 0, c->t.n);
	memset(c->emark, 0, 2 * (size_t)c->t.n);
	infer_tour(&c->t, c->stack, c->from);
	for (i = 0; i < c->nslots; i++) {
		const struct slot *s = &c->slots[i];

		if (s->flying == NONE)
			continue;
		c->hmark[s->h] = c->hmark[s->flying] = 1;
		infer_pair_links(c, s, s->flying, s->fly_anchor, true);
	}
}

/* Start slot s's measurement of (s->h, k), its anchor a (pair_links). */
static ibf_status_t flight_start(struct ctx *c, struct slot *s, uint32_t k,
				 uint32_t a)
{
	const ibf_infer_oracle_t *o = c->o;
	ibf_status_t st = IBF_OK;
	double t0 = ibf_infer_now();

	s->flying = k;
	s->fly_anchor = a;
	s->fly_look = s->want_look;
	s->look_started += s->want_look;
	s->fly_after = c->nmeas;
	c->chave[(size_t)s->idx * c->t.n + k] = IN_FLIGHT;
	if (++c->nflying > c->st->max_in_flight)
		c->st->max_in_flight = c->nflying;
	if (o->start)
		st = o->start(o->ctx, s->h, k, s->idx, c->err);
	else
		c->fifo[c->nfifo++] = s->idx;
	c->st->oracle_s += ibf_infer_now() - t0;
	return st;
}

/* Start slot s's wanted pair if it shares no host and no link with those
 * in flight (marked: flights_mark and the pairs started since).  A
 * pair's links are those of the tree path from its tree host k to its
 * slot's anchor a (the closest host its search found; before any, k's
 * own link) that reach past where h's route joins that path
 * (route_from).  Needs a current Euler tour. */
static ibf_status_t admit(struct ctx *c, struct slot *s)
{
	uint32_t k = s->want, a;

	if (k == NONE || s->flying != NONE || c->hmark[k] ||
	    (c->opts->max_in_flight && c->nflying >= c->opts->max_in_flight))
		return IBF_OK;
	a = infer_anchor(c, s);
	if (!infer_pair_links(c, s, k, a, false))
		return IBF_OK;
	infer_pair_links(c, s, k, a, true);
	c->hmark[k] = c->hmark[s->h] = 1;
	return flight_start(c, s, k, a);
}

/* The oracle's next measurement over: its slot (tag) and result.  An
 * oracle without start/wait measures the oldest started now. */
static ibf_status_t flight_next(struct ctx *c, struct slot **sp, double *mn,
				double *mx, ibf_status_t *pst)
{
	const ibf_infer_oracle_t *o = c->o;
	uint32_t tag;
	ibf_status_t st;

	*mn = *mx = 0;
	if (!o->wait) {
		tag = c->fifo[0];
		memmove(c->fifo, c->fifo + 1, --c->nfifo * sizeof(*c->fifo));
		*pst = o->measure(o->ctx, c->slots[tag].h,
				  c->slots[tag].flying, mn, mx, c->err);
		*sp = &c->slots[tag];
		return *pst == IBF_ERR_NOT_FOUND ? IBF_OK : *pst;
	}
	*pst = IBF_ERR_INVALID;
	if ((st = o->wait(o->ctx, &tag, mn, mx, pst, c->err)) != IBF_OK)
		return st;
	if (tag >= c->nslots || c->slots[tag].flying == NONE)
		return ibf_err_set(c->err, IBF_ERR_INVALID, "the oracle "
				   "ended measurement %u, which is not in "
				   "flight", tag);
	if (*pst != IBF_OK && *pst != IBF_ERR_NOT_FOUND)
		return ibf_err_set(c->err, IBF_ERR_INVALID, "the oracle left "
				   "hosts %u and %u without a result",
				   c->slots[tag].h, c->slots[tag].flying);
	*sp = &c->slots[tag];
	return IBF_OK;
}

/* Wait for one measurement in flight and file its result in its slot's
 * cache; a slot whose host was placed meanwhile is free again. */
static ibf_status_t flight_land(struct ctx *c)
{
	double mn, mx, t0 = ibf_infer_now();
	ibf_status_t st, pst;
	struct slot *s = NULL;
	uint32_t k;
	size_t at;

	st = flight_next(c, &s, &mn, &mx, &pst);
	c->st->oracle_s += ibf_infer_now() - t0;
	if (st != IBF_OK)
		return st;
	c->flight_sum += c->nflying--;
	k = s->flying;
	s->flying = NONE;
	at = (size_t)s->idx * c->t.n + k;
	st = infer_take(c, s->h, k, pst, mn, mx, s->fly_look, s->fly_after,
		  &c->chave[at]);
	if (st == IBF_OK && c->chave[at] == 1) {
		c->cmin[at] = mn;
		c->cmax[at] = mx;
		s->pairs++;
		s->add_pairs += !s->fly_look;
	}
	if (s->placed) {
		s->placed = false;
		s->h = NONE;
	}
	return st;
}

/* Re-run slot s's search on the current tree: *done when it placed its
 * host, else it waits for s->want. */
static ibf_status_t replay(struct ctx *c, struct slot *s, bool *done)
{
	ibf_status_t st;

	infer_reset_host(c);
	c->rng = s->rng;
	c->cur = s;
	c->blocked = false;
	s->want = NONE;
	st = infer_add(c, s->h);
	c->cur = NULL;
	*done = false;
	if (c->blocked)
		return IBF_OK;
	if (st != IBF_OK)
		return st;
	*done = true;
	if (s->pairs > c->st->max_host_pairs)
		c->st->max_host_pairs = s->pairs;
	if (s->add_pairs > c->st->max_add_pairs)
		c->st->max_add_pairs = s->add_pairs;
	return IBF_OK;
}

/* Free slots take the next hosts of the insertion order; each search
 * gets a generator of its own, so that a replay draws what the first
 * run drew. */
static void slots_fill(struct ctx *c, const uint32_t *order, uint32_t *next)
{
	uint32_t i;

	for (i = 0; i < c->nslots && *next < c->t.n; i++) {
		struct slot *s = &c->slots[i];
		uint64_t x;

		if (s->h != NONE)
			continue;
		s->h = order ? order[*next] : *next;
		(*next)++;
		x = c->opts->seed ^ ((uint64_t)s->h << 32 | s->h);
		s->rng.s = ibf_splitmix64(&x);
		s->want = s->first = NONE;
		s->pairs = s->add_pairs = s->look_started = 0;
		memset(c->chave + (size_t)i * c->t.n, 0, c->t.n);
		c->act[c->nact++] = i;
	}
}

/* Slot act[ai] placed its host: free, or once its flight lands. */
static void slot_retire(struct ctx *c, uint32_t ai)
{
	struct slot *s = &c->slots[c->act[ai]];

	if (s->flying != NONE)
		s->placed = true;
	else
		s->h = NONE;
	memmove(c->act + ai, c->act + ai + 1,
		(c->nact - ai - 1) * sizeof(*c->act));
	c->nact--;
}

/* Replay every active slot, oldest first, until a pass places no host (a
 * host placed changes the tree the others' searches ran on), starting
 * each one's wanted pair when it can start: the oldest searches are
 * nearest to placing their hosts, which grows the tree for all.  With
 * nothing in flight the oldest wanted pair always starts, so the search
 * goes on. */
static ibf_status_t replay_all(struct ctx *c, const uint32_t *order,
			       uint32_t *next, uint32_t *placed,
			       uint32_t *refit_at)
{
	bool moved = true;
	ibf_status_t st;

	flights_mark(c);
	while (moved && *placed < c->t.n) {
		uint32_t i = 0;

		moved = false;
		slots_fill(c, order, next);
		while (i < c->nact) {
			bool done;

			if ((st = replay(c, &c->slots[c->act[i]], &done)))
				return st;
			if (!done) {
				if ((st = admit(c, &c->slots[c->act[i++]])))
					return st;
				continue;
			}
			slot_retire(c, i);
			moved = true;
			/* the serial schedule of refits, by hosts placed */
			if (++*placed - 1 >= *refit_at) {
				uint32_t k = *placed - 1;

				*refit_at = k + (k / REFIT_EVERY > REFIT_EVERY ?
						 k / REFIT_EVERY : REFIT_EVERY);
				if ((st = infer_refit_now(c, REFIT_ITERATIONS)))
					return st;
			}
			flights_mark(c);
		}
	}
	return IBF_OK;
}

/* Replay, start what can start, wait for one measurement to end; again
 * until every host is placed, then let the last flights land (their
 * pairs are measured and count in the final refit). */
ibf_status_t infer_run_par(struct ctx *c, const uint32_t *order)
{
	uint32_t next = 1, placed = 1, refit_at = REFIT_EVERY;
	ibf_status_t st;

	c->t.root = order ? order[0] : 0;
	c->t.placed[c->t.root] = 1;
	for (;;) {
		st = replay_all(c, order, &next, &placed, &refit_at);
		if (st != IBF_OK || placed == c->t.n)
			break;
		if (!c->nflying)
			return ibf_err_set(c->err, IBF_ERR_INVALID, "parallel "
					   "inference: no pair to measure");
		if ((st = flight_land(c)) != IBF_OK)
			return st;
	}
	while (st == IBF_OK && c->nflying)
		st = flight_land(c);
	if (c->nmeas)
		c->st->mean_in_flight = (double)c->flight_sum /
					(c->nmeas + c->st->unavailable);
	return st == IBF_OK ? infer_refit_now(c, 4 * c->t.nnodes) : st;
}

