/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Growable arrays: one place for capacity doubling and its overflow
 * checks.  Internal to libibflow.
 */
#ifndef IBFLOW_BASE_ARRAY_H
#define IBFLOW_BASE_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Returns arr (elements of elem bytes, room for *cap) reallocated to hold
 * at least need elements, with *cap updated; capacities double, so n
 * appends cost O(n).  Returns NULL, with arr and *cap untouched, when
 * memory runs out or the size would overflow. */
void *ibf_array_grow(void *arr, size_t *cap, size_t need, size_t elem);

/* The same for arrays whose capacity is a 32-bit count. */
void *ibf_array_grow32(void *arr, uint32_t *cap, uint64_t need, size_t elem);

/* Parallel arrays that share one capacity: grows every array to hold at
 * least need elements.  ptrs[i] is the address of array i's pointer (a
 * T **, passed as void *; read and written with memcpy, so any object
 * pointer type goes), elem[i] its element size.  *cap is updated only
 * when all k arrays grew; an array already grown when a later one fails
 * is simply larger than *cap says.  Returns 0, or -1 when memory runs out
 * or the size would overflow. */
int ibf_array_grow_par(size_t *cap, size_t need, unsigned k,
		       void *const ptrs[], const size_t elem[]);

/* Ascending order of uint32_t for qsort() and bsearch(). */
int ibf_cmp_u32(const void *a, const void *b);

/* Sort v[0..n) ascending and drop repeats; returns the new count.  Short
 * arrays (paths) by insertion sort. */
uint32_t ibf_sort_unique_u32(uint32_t *v, uint32_t n);

/* One of a context's flat arrays to calloc() together with the others
 * (IBF_CALLOC_ALL): the address of its pointer (a T **, passed as void *;
 * written with memcpy, like ibf_array_grow_par()), its element count and
 * size. */
typedef struct ibf_calloc_req {
	void *ptr;
	size_t n, elem;
} ibf_calloc_req_t;

/* IBF_CALLOC_ARRAY(c->a, n): c->a gets n zeroed elements of its type. */
#define IBF_CALLOC_ARRAY(p, count)                                           \
	{ .ptr = &(p), .n = (count), .elem = sizeof(*(p)) }

/* calloc() the arrays of req[0..k) in order: 0, or -1 when memory runs
 * out (the arrays allocated before stay, for the context's own free). */
int ibf_calloc_each(const ibf_calloc_req_t *req, size_t k);

/* A context's flat arrays in one statement:
 * if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c->a, n), IBF_CALLOC_ARRAY(c->b, m)))
 *         return IBF_ERR_NOMEM; */
#define IBF_CALLOC_ALL(...)                                                  \
	ibf_calloc_each((const ibf_calloc_req_t[]){ __VA_ARGS__ },           \
			sizeof((const ibf_calloc_req_t[]){ __VA_ARGS__ }) /  \
			sizeof(ibf_calloc_req_t))

/* free() every pointer of a context's flat arrays in one statement:
 * IBF_FREE_ALL(c->a, c->b, c->c). */
static inline void ibf_free_each(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
#define IBF_FREE_ALL(...)                                                    \
	ibf_free_each((void *const[]){ __VA_ARGS__ },                        \
		      sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
