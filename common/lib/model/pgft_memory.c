/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * A remembered PGFT labeling (pgft_memory.h): sorted by NodeGUID for the
 * lookups of recognition, compared, freed.  Made from a recognition in
 * pgft_remember.c.
 */
#include <ibflow/pgft_memory.h>

#include <stdlib.h>
#include <string.h>

static int node_cmp(const void *x, const void *y)
{
	const ibf_pgft_mem_node_t *a = x, *b = y;

	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

static int link_cmp(const void *x, const void *y)
{
	const ibf_pgft_mem_link_t *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return (int)a->port - (int)b->port;
}

const ibf_pgft_mem_node_t *ibf_pgft_memory_node(const ibf_pgft_memory_t *m,
						uint64_t guid)
{
	ibf_pgft_mem_node_t key = { .guid = guid };

	return m && m->nnodes ? bsearch(&key, m->nodes, m->nnodes,
					sizeof(key), node_cmp) : NULL;
}

const ibf_pgft_mem_link_t *ibf_pgft_memory_link(const ibf_pgft_memory_t *m,
						uint64_t guid, unsigned port)
{
	ibf_pgft_mem_link_t key = { .guid = guid, .port = (uint8_t)port };

	return m && m->nlinks ? bsearch(&key, m->links, m->nlinks,
					sizeof(key), link_cmp) : NULL;
}

bool ibf_pgft_memory_sort(ibf_pgft_memory_t *m)
{
	uint32_t i;

	/* (empty arrays may be NULL, which qsort must not get) */
	if (m->nnodes)
		qsort(m->nodes, m->nnodes, sizeof(*m->nodes), node_cmp);
	if (m->nlinks)
		qsort(m->links, m->nlinks, sizeof(*m->links), link_cmp);
	for (i = 1; i < m->nnodes; i++)
		if (m->nodes[i].guid == m->nodes[i - 1].guid)
			return false;
	for (i = 1; i < m->nlinks; i++)
		if (!link_cmp(&m->links[i], &m->links[i - 1]))
			return false;
	return true;
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
	return !n || !memcmp(a, b, n);   /* empty arrays may be NULL */
}

bool ibf_pgft_memory_equal(const ibf_pgft_memory_t *a,
			   const ibf_pgft_memory_t *b)
{
	return a && b && a->nnodes == b->nnodes && a->nlinks == b->nlinks &&
	       !memcmp(&a->shape, &b->shape, sizeof(a->shape)) &&
	       same_bytes(a->nodes, b->nodes, a->nnodes * sizeof(*a->nodes)) &&
	       same_bytes(a->links, b->links, a->nlinks * sizeof(*a->links));
}

void ibf_pgft_memory_destroy(ibf_pgft_memory_t *m)
{
	if (!m)
		return;
	free(m->nodes);
	free(m->links);
	free(m);
}
