/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Seeded pseudo-random streams: reproducible from a 64-bit seed, no global
 * state, no rand().  Internal to libibflow.
 *
 * Two generators, one home:
 *  - ibf_rng_t, splitmix64: one word of state, enough for the generators'
 *    wiring choices and layered routing's edge sampling;
 *  - ibf_xrng_t, xoshiro256** seeded through splitmix64: four words, for
 *    the long streams of random traffic patterns and rank placements.
 * Both draw bounded values by rejection, so every residue is equally likely.
 */
#ifndef IBFLOW_BASE_RNG_H
#define IBFLOW_BASE_RNG_H

#include <stdint.h>

/* The splitmix64 step: advances *state, returns the next output. */
static inline uint64_t ibf_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Outputs at or above this bound are rejected when drawing below n: the
 * top partial block of the 64-bit range would favour small residues. */
static inline uint64_t ibf_rng_reject_bound(uint64_t n)
{
	return UINT64_MAX - UINT64_MAX % n;
}

typedef struct ibf_rng {
	uint64_t s;
} ibf_rng_t;

static inline uint64_t ibf_rng_next(ibf_rng_t *r)
{
	return ibf_splitmix64(&r->s);
}

/* Uniform in [0, n), n > 0. */
uint64_t ibf_rng_below(ibf_rng_t *r, uint64_t n);

/* Uniform in [0, 1) with 53 random bits. */
static inline double ibf_rng_unit(ibf_rng_t *r)
{
	return (double)(ibf_rng_next(r) >> 11) * 0x1.0p-53;
}

typedef struct ibf_xrng {
	uint64_t s[4];
} ibf_xrng_t;

void ibf_xrng_seed(ibf_xrng_t *r, uint64_t seed);
uint64_t ibf_xrng_next(ibf_xrng_t *r);
/* Uniform in [0, n), n > 0. */
uint64_t ibf_xrng_below(ibf_xrng_t *r, uint64_t n);

#endif
