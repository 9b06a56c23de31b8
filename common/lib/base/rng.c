/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Seeded pseudo-random streams (see rng.h).
 */
#include "base/rng.h"

uint64_t ibf_rng_below(ibf_rng_t *r, uint64_t n)
{
	uint64_t lim = ibf_rng_reject_bound(n), x;

	do
		x = ibf_rng_next(r);
	while (x >= lim);
	return x % n;
}

void ibf_xrng_seed(ibf_xrng_t *r, uint64_t seed)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		r->s[i] = ibf_splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ibf_xrng_next(ibf_xrng_t *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t ibf_xrng_below(ibf_xrng_t *r, uint64_t n)
{
	uint64_t lim = ibf_rng_reject_bound(n), x;

	do
		x = ibf_xrng_next(r);
	while (x >= lim);
	return x % n;
}
