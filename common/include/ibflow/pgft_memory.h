/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What PGFT recognition (pgft.h) carries from one run to the next: the
 * shape it saw (ibf_pgft_opts_t.hint) and the labels it gave
 * (ibf_pgft_opts_t.memory, made by ibf_pgft_memory_from()), and the
 * lookups recognition makes in them.  Plain data by NodeGUID: nothing
 * here needs a recognition, so pgft.h builds on this header and not the
 * other way round.
 */
#ifndef IBFLOW_PGFT_MEMORY_H
#define IBFLOW_PGFT_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/decls.h>

IBF_BEGIN_DECLS

#define IBF_PGFT_MAX_H 16u  /* switch levels (as many as ibf_gen makes) */

/*
 * The shape of a recognized PGFT: parameters and the port numbers used on
 * each side of each level boundary.  Passed back as a hint
 * (ibf_pgft_opts_t.hint), it keeps a tree that lost nodes labeled as the
 * complete tree it was seen as before (e.g. a 2-level tree without one of
 * its spines would otherwise be a complete tree with one spine less).
 */
typedef struct ibf_pgft_shape {
	unsigned h;
	unsigned m[IBF_PGFT_MAX_H + 1], w[IBF_PGFT_MAX_H + 1];
	unsigned p[IBF_PGFT_MAX_H + 1];
	/* bitmaps over port numbers 0..255: down_ports[l] the ports level-l
	 * switches use towards level l-1, up_ports[l] the ports level-(l-1)
	 * nodes use towards level l */
	uint64_t down_ports[IBF_PGFT_MAX_H + 1][4];
	uint64_t up_ports[IBF_PGFT_MAX_H + 1][4];
} ibf_pgft_shape_t;

/*
 * A remembered labeling (ibf_pgft_memory_from()): the shape, every node's
 * level and label by NodeGUID, and the parallel index of every link that
 * has parallel siblings or ends at a host (by the lower node's GUID and
 * port; for a host port also its place, ep_d).  Recognition given one
 * (ibf_pgft_opts_t.memory) keeps every remembered node's label and every
 * remembered link's index, on any cabling, and gives new nodes free
 * slots; when the fabric no longer fits it (other levels, two nodes on
 * one label, a new node without a free slot) it is ignored and why is
 * said (ibf_pgft_t.memory_why).  File format: labels_io.h.
 */
typedef struct ibf_pgft_mem_node {
	uint64_t guid;                       /* NodeGUID */
	uint8_t level;
	uint8_t digit[IBF_PGFT_MAX_H];       /* x_i at [i - 1] */
} ibf_pgft_mem_node_t;

#define IBF_PGFT_NO_PLACE UINT32_MAX

typedef struct ibf_pgft_mem_link {
	uint64_t guid;                       /* the lower node's NodeGUID */
	uint8_t port;                        /* and its port */
	uint8_t k;                           /* parallel index */
	uint32_t place;                      /* host port: ep_d, else
						IBF_PGFT_NO_PLACE */
} ibf_pgft_mem_link_t;

typedef struct ibf_pgft_memory {
	ibf_pgft_shape_t shape;
	uint32_t nnodes, nlinks;
	ibf_pgft_mem_node_t *nodes;          /* sorted by guid */
	ibf_pgft_mem_link_t *links;          /* sorted by (guid, port) */
} ibf_pgft_memory_t;

void ibf_pgft_memory_destroy(ibf_pgft_memory_t *m);
/* Same shape, nodes and links (false if either is NULL). */
bool ibf_pgft_memory_equal(const ibf_pgft_memory_t *a,
			   const ibf_pgft_memory_t *b);
/* Sort nodes and links for the lookups; false if a GUID (or a GUID and
 * port) is there twice. */
bool ibf_pgft_memory_sort(ibf_pgft_memory_t *m);
/* Lookups (NULL when absent). */
const ibf_pgft_mem_node_t *ibf_pgft_memory_node(const ibf_pgft_memory_t *m,
						uint64_t guid);
const ibf_pgft_mem_link_t *ibf_pgft_memory_link(const ibf_pgft_memory_t *m,
						uint64_t guid, unsigned port);

IBF_END_DECLS
#endif
