/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Growable arrays (see array.h).
 */
#include <stdlib.h>
#include <string.h>

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

int ibf_array_grow_par(size_t *cap, size_t need, unsigned k,
		       void *const ptrs[], const size_t elem[])
{
	size_t ncap = SIZE_MAX, c;
	unsigned i;
	void *arr;

	if (need <= *cap)
		return 0;
	for (i = 0; i < k; i++) {
		c = *cap;
		memcpy(&arr, ptrs[i], sizeof(arr));
		arr = ibf_array_grow(arr, &c, need, elem[i]);
		if (!arr)
			return -1;
		memcpy(ptrs[i], &arr, sizeof(arr));
		ncap = c < ncap ? c : ncap;
	}
	*cap = ncap;
	return 0;
}

int ibf_calloc_each(const ibf_calloc_req_t *req, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		void *arr = calloc(req[i].n, req[i].elem);

		if (!arr)
			return -1;
		memcpy(req[i].ptr, &arr, sizeof(arr));
	}
	return 0;
}

int ibf_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t ibf_sort_unique_u32(uint32_t *v, uint32_t n)
{
	uint32_t k = 0;

	if (n < 32) {
		for (uint32_t i = 1; i < n; i++) {
			uint32_t x = v[i], j = i;

			for (; j && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	} else {
		qsort(v, n, sizeof(*v), ibf_cmp_u32);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}
