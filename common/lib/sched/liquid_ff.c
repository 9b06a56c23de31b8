/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * First fit over all frames at once: each transfer, in a given order,
 * takes the first frame in which all its links are free.  Unlike round
 * robin, which closes a phase's frames before the next phase, the
 * leftovers of a phase fill the holes of earlier frames.  Used by the
 * all-to-all engine (liquid_a2a.c) and for traffics of link sets
 * (liquid.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "sched/liquid_ff.h"

void lq_ff_free(struct lq_ff *F)
{
	free(F->bits);
	free(F->full);
	free(F->ffw);
	memset(F, 0, sizeof(*F));
}

/* Room for fw words of frames (64 * fw frames). */
static bool ff_grow(struct lq_ff *F, uint32_t fw)
{
	uint32_t sw = (fw + 63) / 64;
	uint64_t *b = realloc(F->bits, (size_t)fw * F->L * sizeof(uint64_t));
	uint64_t *u;

	if (!b)
		return false;
	F->bits = b;
	memset(b + (size_t)F->FW * F->L, 0,
	       (size_t)(fw - F->FW) * F->L * sizeof(uint64_t));
	u = realloc(F->full, (size_t)sw * F->L * sizeof(uint64_t));
	if (!u)
		return false;
	F->full = u;
	memset(u + (size_t)F->SW * F->L, 0,
	       (size_t)(sw - F->SW) * F->L * sizeof(uint64_t));
	F->FW = fw;
	F->SW = sw;
	return true;
}

bool lq_ff_init(struct lq_ff *F, uint32_t nlinks, uint32_t duration)
{
	memset(F, 0, sizeof(*F));
	F->L = nlinks ? nlinks : 1;
	F->ffw = calloc(F->L, sizeof(uint32_t));
	/* The bound and a margin; grown on demand. */
	return F->ffw && ff_grow(F, (duration + duration / 16 + 64) / 64 + 1);
}

static void ff_take(struct lq_ff *F, const uint32_t *l, uint32_t nl,
		    uint32_t f)
{
	size_t L = F->L;
	uint32_t w = f / 64;

	for (uint32_t q = 0; q < nl; q++) {
		uint64_t *b = &F->bits[(size_t)w * L + l[q]];

		*b |= 1ull << (f % 64);
		if (*b != UINT64_MAX)
			continue;
		F->full[(size_t)(w / 64) * L + l[q]] |= 1ull << (w % 64);
		while (F->ffw[l[q]] < F->FW &&
		       F->bits[(size_t)F->ffw[l[q]] * L + l[q]] == UINT64_MAX)
			F->ffw[l[q]]++;
	}
	if (f + 1 > F->nf)
		F->nf = f + 1;
}

/* The first frame free on the nl links, from word w0 on; LQ_NONE if none
 * below 64 * FW.  Words full on some link are skipped 64 at a time.
 * *words: words compared. */
static uint32_t ff_find(const struct lq_ff *F, const uint32_t *l,
			uint32_t nl, uint32_t w0, uint32_t *words)
{
	size_t L = F->L;

	for (uint32_t sw = w0 / 64; sw < F->SW; sw++) {
		uint64_t sm = 0, cand;

		for (uint32_t q = 0; q < nl; q++)
			sm |= F->full[(size_t)sw * L + l[q]];
		cand = ~sm;
		if (sw == w0 / 64)
			cand &= ~0ull << (w0 % 64);
		while (cand) {
			uint32_t w = sw * 64 + (uint32_t)__builtin_ctzll(cand);
			uint64_t m = 0;

			cand &= cand - 1;
			if (w >= F->FW)
				break;
			++*words;
			for (uint32_t q = 0; q < nl; q++)
				m |= F->bits[(size_t)w * L + l[q]];
			if (~m)
				return w * 64 + (uint32_t)__builtin_ctzll(~m);
		}
	}
	return LQ_NONE;
}

uint32_t lq_ff_place(struct lq_ff *F, const uint32_t *l, uint32_t nl,
		     struct lq_clock *clk)
{
	uint32_t w0 = 0, f, words = 0;

	for (uint32_t q = 0; q < nl; q++)
		if (F->ffw[l[q]] > w0)
			w0 = F->ffw[l[q]];
	while ((f = ff_find(F, l, nl, w0, &words)) == LQ_NONE) {
		w0 = F->FW;
		if (!ff_grow(F, F->FW + F->FW / 2 + 1))
			return LQ_NONE;
	}
	ff_take(F, l, nl, f);
	lq_tick(clk, (uint64_t)(words + 2) * nl);
	return f;
}

void lq_mixed_order(uint32_t n, uint32_t *perm, uint32_t *pos)
{
	uint64_t seed = 0x6c697175696400ull ^ n;   /* "liquid" */

	for (uint32_t p = 0; p < n; p++)
		perm[p] = p;
	for (uint32_t p = n; p > 1; p--) {
		ibf_rng_t r = { ibf_splitmix64(&seed) };
		uint32_t q = (uint32_t)ibf_rng_below(&r, p), v = perm[p - 1];

		perm[p - 1] = perm[q];
		perm[q] = v;
	}
	for (uint32_t p = 0; p < n; p++)
		pos[perm[p]] = p;
}

/* ---- traffics of link sets ------------------------------------------------ */

/* Round-robin phases over a mixed order of the hosts (copies of a pair in
 * successive sweeps), as the all-to-all engine takes them. */
uint32_t lq_ff_sets(const ibf_liquid_traffic_t *t, uint32_t duration,
		    uint32_t *frame_of, struct lq_clock *clk)
{
	uint32_t n = t->nhosts ? t->nhosts : 1, nf = LQ_NONE;
	struct lq_pkey *k = malloc(((size_t)t->ntransfers + 1) * sizeof(*k));
	uint32_t *perm = malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *pos = malloc(((size_t)n + 1) * sizeof(uint32_t));
	struct lq_ff F = { 0 };

	if (!k || !perm || !pos || !lq_ff_init(&F, t->nlinks, duration))
		goto out;
	lq_mixed_order(n, perm, pos);
	if (!lq_phase_keys(t, pos, k))
		goto out;
	lq_tick(clk, (uint64_t)t->ntransfers * 32);
	for (uint32_t i = 0; i < t->ntransfers && !clk->expired; i++) {
		uint32_t x = k[i].x;

		frame_of[x] = lq_ff_place(&F, t->links + t->link_off[x],
					  t->link_off[x + 1] - t->link_off[x],
					  clk);
		if (frame_of[x] == LQ_NONE)
			goto out;
	}
	if (!clk->expired)
		nf = F.nf;
out:
	lq_ff_free(&F);
	free(k);
	free(perm);
	free(pos);
	return nf;
}
