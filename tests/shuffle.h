/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * A seeded shuffle of 0..n-1 of the tests' own (a 64-bit LCG and
 * Fisher-Yates), for orders such as ranks placed on hosts at random:
 * tests and benchmarks use it instead of the library's generators.
 */
#ifndef IBF_TESTS_SHUFFLE_H
#define IBF_TESTS_SHUFFLE_H

#include <stdint.h>

static inline void t_shuffle(uint32_t *order, uint32_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	uint32_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n ? n - 1 : 0; i > 0; i--) {
		uint32_t j, t;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (uint32_t)((x >> 33) % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

#endif
