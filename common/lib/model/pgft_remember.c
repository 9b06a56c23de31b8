/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The labeling of a recognition to remember (ibf_pgft_memory_from(),
 * pgft.h): merged with the previous memory so that nodes and links that
 * are down keep their slots until someone else takes them.
 */
#include <ibflow/pgft.h>

#include <stdlib.h>
#include <string.h>

static void node_of(const ibf_pgft_t *pg, ibf_node_id_t n,
		    ibf_pgft_mem_node_t *out)
{
	unsigned i;

	memset(out, 0, sizeof(*out));
	out->guid = pg->fabric->nodes[n].guid;
	out->level = pg->level[n];
	for (i = 1; i <= pg->h; i++)
		out->digit[i - 1] = ibf_pgft_digit(pg, n, i);
}

/* Is the slot of remembered node a taken by a node of the fabric? */
static bool slot_taken(const ibf_pgft_t *pg, const ibf_pgft_mem_node_t *a)
{
	uint64_t x = 0;
	unsigned i;

	if (a->level > pg->h)
		return true;
	for (i = pg->h; i >= 1; i--) {
		unsigned rad = i > a->level ? pg->m[i] : pg->w[i];

		if (a->digit[i - 1] >= rad)
			return true;   /* outside the tree: forget it */
		x = x * rad + a->digit[i - 1];
	}
	return pg->node_at[pg->level_off[a->level] + x] != IBF_NO_ID;
}

/* The remembered links of node n: its up links where p > 1 or n is a
 * host (endpoints). */
static uint32_t links_of(const ibf_pgft_t *pg, ibf_node_id_t n,
			 ibf_pgft_mem_link_t *out)
{
	unsigned l = pg->level[n], pp, y, k, q;
	uint32_t c = 0;

	if (l >= pg->h)
		return 0;
	pp = pg->p[l + 1];
	if (l && pp < 2)
		return 0;
	for (y = 0; y < pg->w[l + 1]; y++)
		for (k = 0; k < pp; k++) {
			q = ibf_pgft_up_port(pg, n, y, k);
			if (!q)
				continue;
			out[c].guid = pg->fabric->nodes[n].guid;
			out[c].port = (uint8_t)q;
			out[c].k = (uint8_t)k;
			out[c].place = IBF_PGFT_NO_PLACE;
			if (!l) {
				ibf_port_id_t ep = ibf_node_port_id(pg->fabric,
								    n, q);
				uint32_t e = pg->fabric->endpoint_index[ep];

				if (e != UINT32_MAX)
					out[c].place = pg->ep_d[e];
			}
			c++;
		}
	return c;
}

static bool present(const ibf_pgft_t *pg, uint64_t guid)
{
	ibf_node_id_t n = ibf_fabric_node_by_guid(pg->fabric, guid);

	return n != IBF_NO_ID && pg->level[n] != IBF_PGFT_NO_LEVEL;
}

/* Sort for the lookups.  The check for repeats that comes with it has
 * nothing to find here: the fabric's node GUIDs are distinct, and a node
 * or link of old (itself without repeats) joins only where the fabric
 * lacks it. */
static void sort_memory(ibf_pgft_memory_t *m)
{
	(void)ibf_pgft_memory_sort(m);
}

/* Links of old that are down now, of nodes still remembered: they keep
 * their parallel index when they return (if it is still free).  m is
 * sorted; so it is again after. */
static void merge_links(ibf_pgft_memory_t *m, const ibf_pgft_memory_t *old)
{
	ibf_pgft_memory_t now = *m;   /* the sorted links of the fabric */
	uint32_t i;

	for (i = 0; old && i < old->nlinks; i++)
		if (!ibf_pgft_memory_link(&now, old->links[i].guid,
					  old->links[i].port) &&
		    ibf_pgft_memory_node(m, old->links[i].guid))
			m->links[m->nlinks++] = old->links[i];
	sort_memory(m);
}

ibf_pgft_memory_t *ibf_pgft_memory_from(const ibf_pgft_t *pg,
					const ibf_pgft_memory_t *old)
{
	const ibf_fabric_t *f = pg->fabric;
	ibf_pgft_memory_t *m = calloc(1, sizeof(*m));
	size_t cap_n = f->nnodes + (old ? old->nnodes : 0) + 1;
	size_t cap_l = f->nports + (old ? old->nlinks : 0) + 1;
	ibf_node_id_t n;
	uint32_t i;

	if (!m)
		return NULL;
	m->nodes = malloc(cap_n * sizeof(*m->nodes));
	m->links = malloc(cap_l * sizeof(*m->links));
	if (!m->nodes || !m->links) {
		ibf_pgft_memory_destroy(m);
		return NULL;
	}
	m->shape = pg->shape;
	for (n = 0; n < f->nnodes; n++) {
		if (pg->level[n] == IBF_PGFT_NO_LEVEL)
			continue;
		node_of(pg, n, &m->nodes[m->nnodes++]);
		m->nlinks += links_of(pg, n, &m->links[m->nlinks]);
	}
	/* what is down keeps its slot until another node takes it */
	for (i = 0; old && i < old->nnodes; i++)
		if (!present(pg, old->nodes[i].guid) &&
		    !slot_taken(pg, &old->nodes[i]))
			m->nodes[m->nnodes++] = old->nodes[i];
	sort_memory(m);
	merge_links(m, old);
	return m;
}
