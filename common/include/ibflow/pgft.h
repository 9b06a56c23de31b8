/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * PGFT recognition: from an unlabeled fabric (arbitrary GUIDs, port numbers
 * and node order, as OpenSM sees it) to PGFT(h; m; w; p), every node's level
 * and label, every port's place in the wiring, and the topological host
 * order.  Fabrics that are not PGFTs are refused with a message naming the
 * switch, what was expected and what was found.  See docs/pgft.md.
 *
 * Labels follow Mollah et al. (IEEE TPDS 2018) section 2.1 and
 * gen_fattree.c (spec indexing, 1-based): a level-l node (hosts are level 0) is (l; x_h, .., x_1) with
 * x_i in [0, m_i) for i > l (its subtree) and x_i in [0, w_i) for i <= l
 * (which replica of its subtree's roots it is).  (l; x) and (l+1; y) are
 * linked iff x_i = y_i for every i != l+1, by p_{l+1} parallel links; the
 * parent's digit y_{l+1} is its place among the child's parents, the
 * child's digit x_{l+1} its place among the parent's children.
 *
 * rank = a node's index within its level in label order: the label read as
 * a mixed-radix number, x_h most significant (radix m_i for i > l, w_i for
 * i <= l).  Digit values are unique only up to permutation within each
 * subtree; recognition makes one consistent choice, from NodeGUIDs and
 * port numbers only: the node order of the fabric never matters.
 *
 * Degraded fabrics: a fabric that is a PGFT minus some hosts, switches
 * and links is recognized as the complete PGFT it belongs to.  Parameters
 * are the largest seen per level (or a remembered shape, ibf_pgft_opts_t),
 * absent nodes are holes in node_at[] (IBF_NO_ID), absent links between
 * present nodes are listed in missing[] and their port slots hold 0.
 * Digits follow the port numbers when the cabling keeps a port convention
 * per level (every level-l switch reaches the child in slot c over the same
 * port, every child its parent y over the same port), so the nodes that
 * remain keep their labels, host positions and routes when others fail.
 * Engines must skip slots holding 0 and choose only NCAs from which the
 * destination is still reachable downwards (ibf_pgft_down_ok()).
 */
#ifndef IBFLOW_PGFT_H
#define IBFLOW_PGFT_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/pgft_memory.h>

IBF_BEGIN_DECLS

/* A link of the PGFT that the fabric lacks. */
typedef struct ibf_pgft_missing {
	ibf_node_id_t child;   /* level l node */
	ibf_node_id_t parent;  /* level l+1 node */
	unsigned k;            /* parallel index, 0..p_{l+1}-1 */
} ibf_pgft_missing_t;

/* Level of nodes that are not part of the tree (CAs without links). */
#define IBF_PGFT_NO_LEVEL 0xffu

typedef struct ibf_pgft_opts {
	/* A previous recognition of this subnet: used when the fabric fits in
	 * it (same height, no larger parameters, no new port numbers), else
	 * ignored.  NULL: none. */
	const ibf_pgft_shape_t *hint;
	/* Labels to keep (its shape serves as the hint when hint is NULL).
	 * NULL: none. */
	const ibf_pgft_memory_t *memory;
} ibf_pgft_opts_t;

typedef struct ibf_pgft {
	const ibf_fabric_t *fabric;
	unsigned h;                         /* switch levels; hosts level 0 */
	/* 1-based like the spec: m[1..h], w[1..h], p[1..h]; [0] unused */
	unsigned m[IBF_PGFT_MAX_H + 1];
	unsigned w[IBF_PGFT_MAX_H + 1];
	unsigned p[IBF_PGFT_MAX_H + 1];
	/* wprod[l] = prod(i<=l) w_i (replicas of a level-l subtree root,
	 * wprod[0] = 1); mprod[l] = prod(i>l) m_i (level-l subtrees) */
	uint64_t wprod[IBF_PGFT_MAX_H + 1];
	uint64_t mprod[IBF_PGFT_MAX_H + 1];

	/* per node id */
	uint8_t *level;                     /* IBF_PGFT_NO_LEVEL: not in the
					       tree (a CA without links) */
	uint32_t *rank;                     /* index within its level */
	uint8_t *label;                     /* digits: label[n * h + i - 1]
					       = x_i, i = 1..h */
	/* level_off[l] + rank -> node id, IBF_NO_ID for a node the fabric
	 * lacks; level_off[h+1] = nodes of the complete PGFT */
	ibf_node_id_t *node_at;
	uint32_t level_off[IBF_PGFT_MAX_H + 2];
	uint32_t level_count[IBF_PGFT_MAX_H + 1];   /* complete PGFT */
	uint32_t level_present[IBF_PGFT_MAX_H + 1]; /* in the fabric */

	/*
	 * Port tables, per node id.  up_port[up_off[n] + y * p_{l+1} + k] is
	 * the port number of n's k-th parallel link to its parent whose digit
	 * x_{l+1} is y (w_{l+1} * p_{l+1} slots; none at level h).
	 * down_port[down_off[n] + c * p_l + k]: k-th link to the child whose
	 * digit x_l is c (m_l * p_l slots; none for hosts).  0 = link missing
	 * (or the node at the other end missing).
	 */
	uint8_t *up_port, *down_port;
	uint32_t *up_off, *down_off;

	/*
	 * Endpoints (connected CA ports) in topological order: hosts in label
	 * order; a host's ports by (parent digit y, parallel index k).  With
	 * w_1 > 1 the ports of a host lie in different planes: leaves with
	 * different x_1 share no ancestor, so an endpoint only reaches the
	 * endpoints of its own plane (plane = x_1 of its leaf).  ep_d gives
	 * each endpoint's place within its plane in the complete PGFT (host
	 * rank * p_1 + k): the index D-mod-K works on, unchanged when other
	 * hosts are missing.
	 */
	ibf_port_id_t *host_order;
	uint32_t nhosts;                    /* endpoints (== nendpoints) */
	uint32_t *ep_pos;                   /* fabric endpoint index ->
					       position in host_order */
	uint32_t *ep_d;                     /* fabric endpoint index -> place
					       in its plane, complete PGFT */

	/* Links of the complete PGFT between two present nodes that the
	 * fabric lacks; nodes it lacks: level_count - level_present. */
	unsigned missing_links;
	ibf_pgft_missing_t *missing;        /* [missing_links] */
	uint64_t missing_nodes;
	/* Ordered endpoint pairs of one plane with no up*-down* path left
	 * (0 unless links or switches are missing). */
	uint64_t unreachable_pairs;
	/* Digits taken from port numbers, per level boundary l (1..h):
	 * bit 0 the child side (x_l of level-(l-1) nodes), bit 1 the parent
	 * side (x_l of level-l nodes); otherwise from NodeGUIDs. */
	uint8_t port_digits[IBF_PGFT_MAX_H + 1];
	bool hint_used;
	ibf_pgft_shape_t shape;             /* to pass back as a hint */
	/* With ibf_pgft_opts_t.memory: labels taken from it, or "" and
	 * memory_why says why it was ignored. */
	bool memory_used;
	char memory_why[192];
} ibf_pgft_t;

/*
 * Recognize f (finalized) as a PGFT.  IBF_OK: *out holds the result.
 * IBF_ERR_INVALID: not a PGFT, or not connected; err says where and why;
 * *out is NULL.
 */
ibf_status_t ibf_pgft_recognize(const ibf_fabric_t *f, ibf_pgft_t **out,
				ibf_err_t *err);
/* The same with options (o may be NULL). */
ibf_status_t ibf_pgft_recognize_opts(const ibf_fabric_t *f,
				     const ibf_pgft_opts_t *o,
				     ibf_pgft_t **out, ibf_err_t *err);
void ibf_pgft_destroy(ibf_pgft_t *pg);

/* The labeling of pg to remember: every node of the fabric, and the nodes
 * of old (an earlier memory, may be NULL) that the fabric lacks, as long
 * as no present node took their label (a returning node then gets its
 * own slot back).  NULL when out of memory. */
ibf_pgft_memory_t *ibf_pgft_memory_from(const ibf_pgft_t *pg,
					const ibf_pgft_memory_t *old);

/* "PGFT(3; 6,6,12; 1,6,6; 1,1,1)" into buf; returns buf. */
const char *ibf_pgft_format(const ibf_pgft_t *pg, char *buf, size_t len);
/* Missing link i as text: 'level-1 "s1-3" (0x...) - level-2 "s2-0"
 * (0x...), parallel link 1 of 2'; returns buf. */
const char *ibf_pgft_missing_str(const ibf_pgft_t *pg, unsigned i,
				 char *buf, size_t len);

/* ---- label arithmetic ------------------------------------------------ */

static inline unsigned ibf_pgft_digit(const ibf_pgft_t *pg, ibf_node_id_t n,
				      unsigned i)
{
	return pg->label[(size_t)n * pg->h + i - 1];
}

/* The parent of n (level l < h) whose digit x_{l+1} is y; IBF_NO_ID if the
 * fabric lacks it.  Likewise for the child. */
ibf_node_id_t ibf_pgft_parent(const ibf_pgft_t *pg, ibf_node_id_t n,
			      unsigned y);
/* The child of n (level l > 0) whose digit x_l is c. */
ibf_node_id_t ibf_pgft_child(const ibf_pgft_t *pg, ibf_node_id_t n,
			     unsigned c);

/* Is node a (level j <= level L of s) a descendant-or-self of s?  True iff
 * the digits x_i agree for i > L (same subtree) and for i <= j (the
 * replica digits a keeps on its way up).  For a host: digits i > L. */
bool ibf_pgft_is_below(const ibf_pgft_t *pg, ibf_node_id_t s,
		       ibf_node_id_t a);

/* Level of the nearest common ancestors of two nodes of the same level l:
 * l if a == b, else the highest i > l with differing x_i; h + 1 when they
 * have none (different replica digits x_l..x_1, e.g. leaves of different
 * planes when w_1 > 1).  For two endpoints use their leaves. */
unsigned ibf_pgft_nca_level(const ibf_pgft_t *pg, ibf_node_id_t a,
			    ibf_node_id_t b);

static inline unsigned ibf_pgft_up_port(const ibf_pgft_t *pg,
					ibf_node_id_t n, unsigned y,
					unsigned k)
{
	return pg->up_port[pg->up_off[n] + y * pg->p[pg->level[n] + 1] + k];
}

static inline unsigned ibf_pgft_down_port(const ibf_pgft_t *pg,
					  ibf_node_id_t n, unsigned c,
					  unsigned k)
{
	return pg->down_port[pg->down_off[n] + c * pg->p[pg->level[n]] + k];
}

/* True when every switch and every link between switches is present (only
 * hosts or host links may be missing): reachability follows the labels. */
bool ibf_pgft_switches_whole(const ibf_pgft_t *pg);

/* Endpoint port id -> the leaf it is linked to (node id). */
ibf_node_id_t ibf_pgft_ep_leaf(const ibf_pgft_t *pg, ibf_port_id_t ep);

/* Can switch s deliver to endpoint ep going only down, over links that are
 * present?  Always true when ep lies below s and missing_links == 0. */
bool ibf_pgft_down_ok(const ibf_pgft_t *pg, ibf_node_id_t s,
		      ibf_port_id_t ep);

IBF_END_DECLS
#endif
