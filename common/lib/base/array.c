/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Growable arrays (see array.h).
 */
#include <stdlib.h>

#include "base/array.h"

/* Below this many elements an array is not worth growing in small steps. */
#define ARRAY_MIN_CAP 16

static size_t grown_capacity(size_t cap, size_t need, size_t max)
{
	size_t ncap = cap ? cap : ARRAY_MIN_CAP;

	while (ncap < need)
		ncap = ncap > max / 2 ? max : ncap * 2;
	return ncap;
}

void *ibf_array_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t max = SIZE_MAX / (elem ? elem : 1), ncap;
	void *p;

	if (need <= *cap)
		return arr;
	if (need > max)
		return NULL;
	ncap = grown_capacity(*cap, need, max);
	p = realloc(arr, ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

void *ibf_array_grow32(void *arr, uint32_t *cap, uint64_t need, size_t elem)
{
	size_t max = SIZE_MAX / (elem ? elem : 1), ncap;
	void *p;

	if (max > UINT32_MAX)
		max = UINT32_MAX;
	if (need <= *cap)
		return arr;
	if (need > max)
		return NULL;
	ncap = grown_capacity(*cap, (size_t)need, max);
	p = realloc(arr, ncap * elem);
	if (p)
		*cap = (uint32_t)ncap;
	return p;
}

int ibf_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}
