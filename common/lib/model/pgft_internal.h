/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Private to pgft.c, pgft_labels.c and pgft_recognize.c: the
 * recognition's state (rec_t) and the small helpers its steps share.
 */
#ifndef IBFLOW_MODEL_PGFT_INTERNAL_H
#define IBFLOW_MODEL_PGFT_INTERNAL_H

#include <ibflow/pgft.h>

#include <inttypes.h>
#include <stdio.h>

#include "base/array.h"


#define NO_LEVEL IBF_PGFT_NO_LEVEL
#define NAME_LEN 192
#define NLV (IBF_PGFT_MAX_H + 2)
#define UNSET UINT32_MAX

/* A link between adjacent levels: child c (level l-1) port qc, parent p
 * (level l) port qp. */
typedef struct blink {
	ibf_node_id_t c, p;
	uint8_t qc, qp;
} blink_t;

typedef struct rec {
	const ibf_fabric_t *f;
	ibf_pgft_t *pg;
	ibf_err_t *err;
	const ibf_pgft_shape_t *hint;
	const ibf_pgft_memory_t *mem;      /* labels to keep, or NULL */
	const ibf_pgft_mem_node_t **mnode; /* per node: its memory, or NULL */
	bool use_ports;
	bool may_demote;    /* step 1 may move hanging switches down */
	bool demoted;       /* it did */
	uint32_t *uf;       /* union-find, per node */
	uint32_t *lo, *hi;  /* per node: piece below / above the boundary */
	uint32_t *grp;      /* per node: enclosing subtree / class piece */
	uint32_t *dig;      /* per piece root: its digit */
	uint32_t *key;      /* per piece root: ordering key */
	uint32_t *grank;    /* per node: rank by (not a host, GUID) */
	uint32_t *trank;    /* per node: rank by (not a top switch, GUID) */
	uint64_t dp[NLV][4], up[NLV][4]; /* ports used per boundary */
	unsigned mode_w[NLV], mode_m[NLV], mode_p[NLV];
	uint32_t (*hist)[256];
	ibf_node_id_t (*edge)[2];  /* links once (u < v), after step 1 */
	size_t nedge;
} rec_t;

/* '"desc" (0xGUID)' for messages. */
static inline const char *nm(const ibf_fabric_t *f, ibf_node_id_t n,
			     char *buf)
{
	snprintf(buf, NAME_LEN, "\"%s\" (0x%016" PRIx64 ")",
		 ibf_node_desc(f, n), f->nodes[n].guid);
	return buf;
}

static inline const char *kind(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return ibf_node_is_switch(f, n) ? "switch" : "host";
}

static inline ibf_node_id_t peer_node(const ibf_fabric_t *f,
				      ibf_node_id_t n, unsigned q)
{
	ibf_port_id_t pp = ibf_node_port(f, n, q)->peer;

	return pp == IBF_NO_ID ? IBF_NO_ID : f->ports[pp].node;
}

/* The links of the tree's nodes, one end at a time: port q of node n (a
 * node with a level) leads to node v.  Start from `link_walk_t w = { 0 }`
 * and loop `while (next_link(r, &w))`: nodes in order, a node's ports in
 * order, unlinked ports skipped. */
typedef struct link_walk {
	ibf_node_id_t n, v;
	unsigned q;
} link_walk_t;

static inline bool next_link(const rec_t *r, link_walk_t *w)
{
	const ibf_fabric_t *f = r->f;

	for (; w->n < f->nnodes; w->n++, w->q = 0) {
		if (r->pg->level[w->n] == NO_LEVEL)
			continue;
		while (++w->q <= f->nodes[w->n].nports) {
			w->v = peer_node(f, w->n, w->q);
			if (w->v != IBF_NO_ID)
				return true;
		}
	}
	return false;
}

static inline ibf_status_t nomem(rec_t *r)
{
	return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
}

static inline uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static inline void uf_join(uint32_t *uf, uint32_t a, uint32_t b)
{
	a = uf_find(uf, a);
	b = uf_find(uf, b);
	if (a != b)
		uf[a < b ? b : a] = a < b ? a : b;
}

static inline unsigned bits_count(const uint64_t *b)
{
	return (unsigned)(__builtin_popcountll(b[0]) +
			  __builtin_popcountll(b[1]) +
			  __builtin_popcountll(b[2]) +
			  __builtin_popcountll(b[3]));
}

/* Number of set bits below q. */
static inline unsigned bits_rank(const uint64_t *b, unsigned q)
{
	unsigned w = q / 64, i, n = 0;

	for (i = 0; i < w; i++)
		n += (unsigned)__builtin_popcountll(b[i]);
	if (q % 64)
		n += (unsigned)__builtin_popcountll(b[w] &
						    ((1ULL << (q % 64)) - 1));
	return n;
}

static inline void bits_set(uint64_t *b, unsigned q)
{
	b[q / 64] |= 1ULL << (q % 64);
}

static inline bool bits_subset(const uint64_t *a, const uint64_t *b)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

/* Distinct neighbours of n at level want, sorted, into nb[];
 * multiplicities into mult[].  Returns how many. */
static inline unsigned neighbours_at(const rec_t *r, ibf_node_id_t n,
				     unsigned want, ibf_node_id_t *nb,
				     unsigned *mult)
{
	const ibf_fabric_t *f = r->f;
	unsigned q, i, j, cnt = 0;
	ibf_node_id_t v;

	for (q = 1; q <= f->nodes[n].nports; q++) {
		v = peer_node(f, n, q);
		if (v == IBF_NO_ID || r->pg->level[v] != want)
			continue;
		for (i = 0; i < cnt && nb[i] < v; i++)
			;
		if (i < cnt && nb[i] == v) {
			mult[i]++;
			continue;
		}
		for (j = cnt; j > i; j--) {
			nb[j] = nb[j - 1];
			mult[j] = mult[j - 1];
		}
		nb[i] = v;
		mult[i] = 1;
		cnt++;
	}
	return cnt;
}

static inline unsigned neighbours(const rec_t *r, ibf_node_id_t n, int dir,
				  ibf_node_id_t *nb, unsigned *mult)
{
	return neighbours_at(r, n, (unsigned)(r->pg->level[n] + dir), nb,
			     mult);
}

/* Union-find over the links whose both ends have a level in [lo, hi]. */
static inline void join_levels(rec_t *r, unsigned lo, unsigned hi)
{
	const ibf_fabric_t *f = r->f;
	const uint8_t *lev = r->pg->level;
	ibf_node_id_t n, v;
	unsigned q;
	size_t e;

	for (n = 0; n < f->nnodes; n++)
		r->uf[n] = n;
	if (r->edge) {
		for (e = 0; e < r->nedge; e++) {
			unsigned a = lev[r->edge[e][0]], b = lev[r->edge[e][1]];

			if (a >= lo && a <= hi && b >= lo && b <= hi)
				uf_join(r->uf, r->edge[e][0], r->edge[e][1]);
		}
		return;
	}
	for (n = 0; n < f->nnodes; n++) {
		if (lev[n] == NO_LEVEL || lev[n] < lo || lev[n] > hi)
			continue;
		for (q = 1; q <= f->nodes[n].nports; q++) {
			v = peer_node(f, n, q);
			if (v != IBF_NO_ID && v > n && lev[v] != NO_LEVEL &&
			    lev[v] >= lo && lev[v] <= hi)
				uf_join(r->uf, n, v);
		}
	}
}

static inline bool any_link(const uint8_t *slots, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (slots[k])
			return true;
	return false;
}

/* pgft.c, messages.  When the fabric does not fit, name the node most
 * likely to hang on an extra cable (an error); IBF_OK if none stands out. */
ibf_status_t pgft_blame_outlier(rec_t *r);

/* The values digit i takes at a level: m_i for i > level, else w_i. */
unsigned pgft_radix(const ibf_pgft_t *pg, unsigned level, unsigned i);
/* A node's label, "(level; x_h ... x_1)", for messages. */
const char *pgft_label_str(const ibf_pgft_t *pg, ibf_node_id_t n, char *buf,
			   size_t len);

/* pgft_labels.c, step 4: remembered labels when they fit, else port
 * digits, else NodeGUID digits. */
ibf_status_t pgft_label_nodes(rec_t *r);

#endif
