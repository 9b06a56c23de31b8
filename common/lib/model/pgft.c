/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * PGFT recognition (see pgft.h and docs/pgft.md).
 *
 * The fabric may lack hosts, switches and links: it is recognized as the
 * complete PGFT it belongs to.  Nothing here looks at node order or
 * descriptions to decide; NodeGUIDs and port numbers choose among the
 * equivalent labelings, so two models of one subnet that differ only in
 * node order get the same labels, port tables and host order.
 *
 *  1. levels: BFS distance from the CAs, except that a switch that hangs
 *     below its neighbours (a leaf whose hosts are all gone, a middle
 *     switch without children) is put two levels down: a level-L switch
 *     cannot have two children in one level-(L-1) subtree;
 *  2. parameters: per level, the largest number of distinct parents (w),
 *     distinct children (m) and links per connected pair (p) - a missing
 *     node or link only lowers the counts of its neighbours;
 *  3. the fabric must fit in PGFT(h; m; w; p): no level holds more nodes;
 *  4. labels, one digit position i = 1..h at a time.  A link between
 *     levels l and l+1 changes only digit l+1, so digit i is constant on
 *     every connected piece of the fabric without the level-(i-1)/i
 *     links: below (levels < i) these pieces are the level-(i-1) subtrees,
 *     above (levels >= i) the replica classes of level i.  Each piece gets
 *     its digit either from the port numbers of its links across the
 *     boundary (when the cabling keeps one port per slot across the whole
 *     level, which also places pieces whose siblings are gone), or from
 *     NodeGUIDs: the pieces inside one level-i subtree (below) or one
 *     level-(i-1) class (above) are numbered in order of their smallest
 *     host / top switch NodeGUID.  The labels must name distinct nodes;
 *  5. every link is filed in the port tables; empty slots between present
 *     nodes are the missing links;
 *  6. with switch links or switches missing, the endpoint pairs left
 *     without an up*-down* path are counted (bitsets over endpoints).
 */
#include <ibflow/pgft.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static const char *nm(const ibf_fabric_t *f, ibf_node_id_t n, char *buf)
{
	snprintf(buf, NAME_LEN, "\"%s\" (0x%016" PRIx64 ")",
		 ibf_node_desc(f, n), f->nodes[n].guid);
	return buf;
}

static const char *kind(const ibf_fabric_t *f, ibf_node_id_t n)
{
	return ibf_node_is_switch(f, n) ? "switch" : "host";
}

static ibf_node_id_t peer_node(const ibf_fabric_t *f, ibf_node_id_t n,
			       unsigned q)
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

static bool next_link(const rec_t *r, link_walk_t *w)
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

static ibf_status_t nomem(rec_t *r)
{
	return ibf_err_set(r->err, IBF_ERR_NOMEM, "pgft: out of memory");
}

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	while (uf[x] != x)
		x = uf[x] = uf[uf[x]];
	return x;
}

static void uf_join(uint32_t *uf, uint32_t a, uint32_t b)
{
	a = uf_find(uf, a);
	b = uf_find(uf, b);
	if (a != b)
		uf[a < b ? b : a] = a < b ? a : b;
}

static unsigned bits_count(const uint64_t *b)
{
	return (unsigned)(__builtin_popcountll(b[0]) +
			  __builtin_popcountll(b[1]) +
			  __builtin_popcountll(b[2]) +
			  __builtin_popcountll(b[3]));
}

/* Number of set bits below q. */
static unsigned bits_rank(const uint64_t *b, unsigned q)
{
	unsigned w = q / 64, i, n = 0;

	for (i = 0; i < w; i++)
		n += (unsigned)__builtin_popcountll(b[i]);
	if (q % 64)
		n += (unsigned)__builtin_popcountll(b[w] &
						    ((1ULL << (q % 64)) - 1));
	return n;
}

static void bits_set(uint64_t *b, unsigned q)
{
	b[q / 64] |= 1ULL << (q % 64);
}

static bool bits_subset(const uint64_t *a, const uint64_t *b)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

/* Distinct neighbours of n at level want, sorted, into nb[];
 * multiplicities into mult[].  Returns how many. */
static unsigned neighbours_at(const rec_t *r, ibf_node_id_t n, unsigned want,
			      ibf_node_id_t *nb, unsigned *mult)
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

static unsigned neighbours(const rec_t *r, ibf_node_id_t n, int dir,
			   ibf_node_id_t *nb, unsigned *mult)
{
	return neighbours_at(r, n, (unsigned)(r->pg->level[n] + dir), nb,
			     mult);
}

/* Union-find over the links whose both ends have a level in [lo, hi]. */
static void join_levels(rec_t *r, unsigned lo, unsigned hi)
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

/* ---- 1. levels -------------------------------------------------------- */

static ibf_status_t check_connected(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_node_id_t n, v, first = IBF_NO_ID;
	char a[NAME_LEN], b[NAME_LEN];
	unsigned q;
	bool linked;

	for (n = 0; n < f->nnodes; n++)
		r->uf[n] = n;
	for (n = 0; n < f->nnodes; n++)
		for (q = 1; q <= f->nodes[n].nports; q++) {
			v = peer_node(f, n, q);
			if (v != IBF_NO_ID)
				uf_join(r->uf, n, v);
		}
	for (n = 0; n < f->nnodes; n++) {
		linked = false;
		for (q = 1; q <= f->nodes[n].nports && !linked; q++)
			linked = peer_node(f, n, q) != IBF_NO_ID;
		if (!linked)
			continue;
		if (first == IBF_NO_ID)
			first = n;
		else if (uf_find(r->uf, n) != uf_find(r->uf, first))
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: the fabric is not connected: %s "
				"%s has no path to %s %s", kind(f, n),
				nm(f, n, a), kind(f, first), nm(f, first, b));
	}
	return IBF_OK;
}

/* BFS distance from the linked CAs; a pinned switch enters at its pin
 * (pins only ever lower a level, so the BFS never reaches one earlier). */
static ibf_status_t bfs_levels(rec_t *r, const uint8_t *pin,
			       ibf_node_id_t *queue)
{
	const ibf_fabric_t *f = r->f;
	uint8_t *lev = r->pg->level;
	uint32_t head = 0, tail = 0, mark;
	ibf_node_id_t n, u, v;
	unsigned q, L, maxpin = 0;
	char a[NAME_LEN];

	memset(lev, NO_LEVEL, f->nnodes);
	for (n = 0; n < f->nnodes; n++) {
		if (pin[n] != NO_LEVEL && pin[n] > maxpin)
			maxpin = pin[n];
		if (f->nodes[n].type != IBF_NODE_CA)
			continue;
		for (q = 1; q <= f->nodes[n].nports; q++)
			if (peer_node(f, n, q) != IBF_NO_ID)
				break;
		if (q <= f->nodes[n].nports) {
			lev[n] = 0;
			queue[tail++] = n;
		}
	}
	for (L = 0; head < tail || L < maxpin; L++) {
		mark = tail;
		for (; head < mark; head++) {
			u = queue[head];
			for (q = 1; q <= f->nodes[u].nports; q++) {
				v = peer_node(f, u, q);
				if (v == IBF_NO_ID || lev[v] != NO_LEVEL)
					continue;
				if (L + 1 > IBF_PGFT_MAX_H)
					return ibf_err_set(r->err,
						IBF_ERR_INVALID,
						"not a PGFT: switch %s is "
						"more than %u hops from the "
						"nearest host", nm(f, v, a),
						IBF_PGFT_MAX_H);
				lev[v] = (uint8_t)(L + 1);
				queue[tail++] = v;
			}
		}
		for (n = 0; n < f->nnodes; n++)
			if (pin[n] == L + 1 && lev[n] == NO_LEVEL) {
				lev[n] = (uint8_t)(L + 1);
				queue[tail++] = n;
			}
	}
	return IBF_OK;
}

/* A switch at level L >= 3 whose neighbours all lie at L-1 and two of
 * them in one level-(L-1) subtree hangs below them: pin it at L - 2.
 * True top switches have their children in distinct subtrees. */
static bool demote(rec_t *r, uint8_t *pin)
{
	const ibf_fabric_t *f = r->f;
	const uint8_t *lev = r->pg->level;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], n;
	unsigned mult[IBF_MAX_PORTS + 1], c, i, j, L, q;
	bool changed = false, any;

	for (L = 3; L <= IBF_PGFT_MAX_H; L++) {
		any = false;
		for (n = 0; n < f->nnodes && !any; n++)
			any = lev[n] == L;
		if (!any)
			break;
		join_levels(r, 0, L - 1);
		for (n = 0; n < f->nnodes; n++) {
			if (lev[n] != L)
				continue;
			for (q = 1; q <= f->nodes[n].nports; q++) {
				ibf_node_id_t v = peer_node(f, n, q);

				if (v != IBF_NO_ID && lev[v] != L - 1)
					break;
			}
			if (q <= f->nodes[n].nports)
				continue;
			c = neighbours_at(r, n, L - 1, nb, mult);
			for (i = 0; i < c; i++)
				for (j = i + 1; j < c; j++)
					if (uf_find(r->uf, nb[i]) ==
					    uf_find(r->uf, nb[j]) &&
					    pin[n] != L - 2) {
						pin[n] = (uint8_t)(L - 2);
						changed = true;
					}
		}
	}
	return changed;
}

static ibf_status_t assign_levels(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_node_id_t *queue = malloc(((size_t)f->nnodes + 1) *
				      sizeof(*queue) * 2);
	uint8_t *pin = malloc((size_t)f->nnodes + 1);
	ibf_status_t st = IBF_OK;
	char a[NAME_LEN];
	ibf_node_id_t n;
	unsigned round;

	if (!queue || !pin) {
		free(queue);
		free(pin);
		return nomem(r);
	}
	memset(pin, NO_LEVEL, f->nnodes);
	for (round = 0; round <= f->nswitches && st == IBF_OK; round++) {
		st = bfs_levels(r, pin, queue);
		if (st != IBF_OK || !r->may_demote || !demote(r, pin))
			break;
		r->demoted = true;
	}
	free(queue);
	free(pin);
	if (st != IBF_OK)
		return st;
	for (n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == IBF_NODE_ROUTER)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: router %s", nm(f, n, a));
		if (r->pg->level[n] == NO_LEVEL) {
			if (ibf_node_is_switch(f, n))
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: switch %s is not "
					"connected to any host", nm(f, n, a));
			continue; /* a CA without links: not in the tree */
		}
		if (r->pg->level[n] > r->pg->h)
			r->pg->h = r->pg->level[n];
	}
	if (r->pg->h == 0)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
				   "not a PGFT: no switches");
	return IBF_OK;
}

static ibf_status_t check_adjacent(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	const uint8_t *lev = r->pg->level;
	char a[NAME_LEN], b[NAME_LEN];
	link_walk_t w = { 0 };
	ibf_node_id_t n, v;

	while (next_link(r, &w)) {
		n = w.n;
		v = w.v;
		if (lev[v] + 1 == lev[n] || lev[v] == lev[n] + 1)
			continue;
		if (n == v)
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: port %u of %s %s is cabled to "
				"port %u of the same %s (a loopback cable)",
				w.q, kind(f, n), nm(f, n, a),
				f->ports[f->ports[ibf_node_port_id(f, n, w.q)]
						 .peer].num, kind(f, n));
		if (!lev[n] && !lev[v])
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: link between hosts %s and %s",
				nm(f, n, a), nm(f, v, b));
		if (lev[v] == lev[n])
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: extra link between level-%u "
				"switches %s and %s (a PGFT links adjacent "
				"levels only)", lev[n], nm(f, n, a),
				nm(f, v, b));
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: link between level-%u %s %s and "
			"level-%u %s %s (a PGFT links adjacent levels "
			"only)", lev[n], kind(f, n), nm(f, n, a),
			lev[v], kind(f, v), nm(f, v, b));
	}
	return IBF_OK;
}

/* The links between tree nodes, each once: the union-find passes of the
 * later steps walk this list instead of every port. */
static ibf_status_t list_edges(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	link_walk_t w = { 0 };
	ibf_node_id_t n;
	size_t cap = 0;

	for (n = 0; n < f->nnodes; n++)
		cap += f->nodes[n].nports;
	r->edge = malloc((cap / 2 + 1) * sizeof(*r->edge));
	if (!r->edge)
		return nomem(r);
	while (next_link(r, &w))
		if (w.v > w.n && r->nedge <= cap / 2) {
			r->edge[r->nedge][0] = w.n;
			r->edge[r->nedge++][1] = w.v;
		}
	return IBF_OK;
}

/* ---- 2. parameters ---------------------------------------------------- */

#define HW(r, l) ((r)->hist[3 * (l)])
#define HM(r, l) ((r)->hist[3 * (l) + 1])
#define HP(r, l) ((r)->hist[3 * (l) + 2])

/* Most common nonzero value (ties: the larger). */
static unsigned mode(const uint32_t *hist)
{
	unsigned v, best = 0;

	for (v = 1; v < 256; v++)
		if (hist[v] && (!best || hist[v] >= hist[best]))
			best = v;
	return best;
}

static unsigned max_of(const uint32_t *hist)
{
	unsigned v;

	for (v = 255; v > 0; v--)
		if (hist[v])
			return v;
	return 0;
}

static void level_name(unsigned l, char *buf)
{
	if (l)
		snprintf(buf, 32, "level-%u switches", l);
	else
		snprintf(buf, 32, "hosts");
}

/*
 * When the fabric does not fit, a node with more parents, children or
 * parallel links than most of its level is the likeliest culprit (an extra
 * cable): name the one with the smallest NodeGUID.  IBF_OK if none.
 */
static ibf_status_t blame_outlier(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], n, best = IBF_NO_ID;
	unsigned mult[IBF_MAX_PORTS + 1], c, i, l, what = 0, bi = 0, bc = 0;
	char a[NAME_LEN], b[NAME_LEN], ln[32];

	for (n = 0; n < f->nnodes; n++) {
		unsigned w = 0, cnt = 0, idx = 0;

		l = pg->level[n];
		if (l == NO_LEVEL)
			continue;
		if (l < pg->h) {
			c = neighbours(r, n, 1, nb, mult);
			if (c > r->mode_w[l + 1]) {
				w = 1;
				cnt = c;
			}
			for (i = 0; i < c && !w; i++)
				if (mult[i] > r->mode_p[l + 1]) {
					w = 3;
					cnt = mult[i];
					idx = nb[i];
				}
		}
		if (!w && l && (c = neighbours(r, n, -1, nb, mult)) >
			       r->mode_m[l]) {
			w = 2;
			cnt = c;
		}
		if (w && (best == IBF_NO_ID ||
			  f->nodes[n].guid < f->nodes[best].guid)) {
			best = n;
			what = w;
			bc = cnt;
			bi = idx;
		}
	}
	if (best == IBF_NO_ID)
		return IBF_OK;
	l = pg->level[best];
	level_name(l, ln);
	if (what == 1)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: %u parents at level %u, other %s "
			"have %u", kind(f, best), nm(f, best, a), bc, l + 1,
			ln, r->mode_w[l + 1]);
	if (what == 3)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: %u links to %s, other level-%u/%u "
			"pairs have %u", kind(f, best), nm(f, best, a), bc,
			nm(f, bi, b), l, l + 1, r->mode_p[l + 1]);
	return ibf_err_set(r->err, IBF_ERR_INVALID,
		"not a PGFT: switch %s: %u children at level %u, other %s "
		"have %u", nm(f, best, a), bc, l - 1, ln, r->mode_m[l]);
}

static void port_sets(rec_t *r)
{
	const uint8_t *lev = r->pg->level;
	link_walk_t w = { 0 };

	memset(r->dp, 0, sizeof(r->dp));
	memset(r->up, 0, sizeof(r->up));
	while (next_link(r, &w))
		if (lev[w.v] == lev[w.n] + 1)
			bits_set(r->up[lev[w.v]], w.q);
		else
			bits_set(r->dp[lev[w.n]], w.q);
}

/* The hint applies when this fabric fits in it. */
static bool hint_fits(const rec_t *r, const ibf_pgft_shape_t *s)
{
	const ibf_pgft_t *pg = r->pg;
	unsigned l;

	if (s->h != pg->h)
		return false;
	for (l = 1; l <= pg->h; l++)
		if (s->m[l] < pg->m[l] || s->w[l] < pg->w[l] ||
		    s->p[l] < pg->p[l] || !s->m[l] || !s->w[l] || !s->p[l] ||
		    !bits_subset(r->dp[l], s->down_ports[l]) ||
		    !bits_subset(r->up[l], s->up_ports[l]))
			return false;
	return true;
}

static ibf_status_t infer_params(rec_t *r, const ibf_pgft_shape_t *hint)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], n;
	unsigned mult[IBF_MAX_PORTS + 1], c, i, l;

	r->hist = calloc(3 * NLV, sizeof(*r->hist));
	if (!r->hist)
		return nomem(r);
	for (n = 0; n < f->nnodes; n++) {
		l = pg->level[n];
		if (l == NO_LEVEL)
			continue;
		if (l < pg->h) {
			c = neighbours(r, n, 1, nb, mult);
			HW(r, l + 1)[c]++;
			for (i = 0; i < c; i++)
				HP(r, l + 1)[mult[i]]++;
		}
		if (l)
			HM(r, l)[neighbours(r, n, -1, nb, mult)]++;
	}
	for (l = 1; l <= pg->h; l++) {
		pg->w[l] = max_of(HW(r, l));
		pg->m[l] = max_of(HM(r, l));
		pg->p[l] = max_of(HP(r, l));
		r->mode_w[l] = mode(HW(r, l));
		r->mode_m[l] = mode(HM(r, l));
		r->mode_p[l] = mode(HP(r, l));
		if (!pg->w[l] || !pg->m[l] || !pg->p[l])
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: no links between levels %u and "
				"%u", l - 1, l);
	}
	port_sets(r);
	r->hint = NULL;
	if (hint && hint_fits(r, hint)) {
		r->hint = hint;
		for (l = 1; l <= pg->h; l++) {
			pg->m[l] = hint->m[l];
			pg->w[l] = hint->w[l];
			pg->p[l] = hint->p[l];
			memcpy(r->dp[l], hint->down_ports[l], sizeof(r->dp[l]));
			memcpy(r->up[l], hint->up_ports[l], sizeof(r->up[l]));
		}
	}
	return IBF_OK;
}

/*
 * Parameters from the structure instead of the degrees: m_l = the most
 * level-(l-1) subtrees one level-l subtree joins, w_l = the most level-l
 * classes one level-(l-1) class joins.  Missing links lower every degree
 * of a level when each node lost one, never these counts (short of
 * splitting a subtree).  Raises pg->m / pg->w; true if any rose.
 */
static bool raise_params(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t n;
	unsigned i, side, best;
	bool raised = false;

	for (i = 1; i <= pg->h; i++)
		for (side = 0; side < 2; side++) {
			unsigned lo = side ? i : 0, hi = side ? pg->h : i - 1;
			unsigned glo = side ? i - 1 : 0;
			unsigned ghi = side ? pg->h : i;

			join_levels(r, lo, hi);
			for (n = 0; n < f->nnodes; n++)
				r->lo[n] = uf_find(r->uf, n);
			join_levels(r, glo, ghi);
			for (n = 0; n < f->nnodes; n++)
				r->key[n] = 0;
			best = 0;
			for (n = 0; n < f->nnodes; n++) {
				unsigned l = pg->level[n];
				uint32_t g;

				if (l == NO_LEVEL || l < lo || l > hi ||
				    r->lo[n] != n)
					continue;
				g = uf_find(r->uf, n);
				if (++r->key[g] > best)
					best = r->key[g];
			}
			if (best > 255)
				best = 255;
			if (!side && best > pg->m[i]) {
				pg->m[i] = best;
				raised = true;
			} else if (side && best > pg->w[i]) {
				pg->w[i] = best;
				raised = true;
			}
		}
	return raised;
}

/* ---- 3. sizes --------------------------------------------------------- */

#define MAX_SLOTS (1ULL << 30)

static ibf_status_t check_sizes(rec_t *r)
{
	ibf_pgft_t *pg = r->pg;
	const ibf_fabric_t *f = r->f;
	char s[160];
	ibf_node_id_t n;
	unsigned l, i;
	uint64_t total = 0, want;
	ibf_status_t st;

	memset(pg->level_count, 0, sizeof(pg->level_count));
	memset(pg->level_present, 0, sizeof(pg->level_present));
	pg->wprod[0] = 1;
	for (l = 1; l <= pg->h; l++)
		pg->wprod[l] = pg->wprod[l - 1] * pg->w[l];
	for (l = 0; l <= pg->h; l++) {
		pg->mprod[l] = 1;
		for (i = l + 1; i <= pg->h; i++)
			pg->mprod[l] *= pg->m[i];
	}
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL)
			pg->level_present[pg->level[n]]++;
	for (l = 0; l <= pg->h; l++) {
		want = pg->mprod[l] * pg->wprod[l];
		total += want;
		if (want < pg->level_present[l] || total > MAX_SLOTS ||
		    total > 16 * (uint64_t)f->nnodes + 4096) {
			if ((st = blame_outlier(r)) != IBF_OK)
				return st;
			if (want < pg->level_present[l])
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: extra %s: level %u has "
					"%u %s, %s has %" PRIu64,
					l ? "switch" : "host", l,
					pg->level_present[l],
					l ? "switches" : "hosts",
					ibf_pgft_format(pg, s, sizeof(s)),
					want);
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: %s would have %" PRIu64 " nodes, "
				"the fabric has %u: too little of it is "
				"there", ibf_pgft_format(pg, s, sizeof(s)),
				total, f->nnodes);
		}
		pg->level_count[l] = (uint32_t)want;
	}
	pg->level_off[0] = 0;
	for (l = 0; l <= pg->h; l++)
		pg->level_off[l + 1] = pg->level_off[l] + pg->level_count[l];
	pg->missing_nodes = total;
	for (l = 0; l <= pg->h; l++)
		pg->missing_nodes -= pg->level_present[l];
	return IBF_OK;
}

/* ---- 4. labels -------------------------------------------------------- */

typedef struct gnode {
	uint64_t a, b;
	ibf_node_id_t node;
} gnode_t;

static int gnode_cmp(const void *x, const void *y)
{
	const gnode_t *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->node < q->node ? -1 : p->node > q->node;
}

/* grank: hosts first, then switches, each by NodeGUID; trank: top
 * switches first, then the rest, each by NodeGUID. */
static ibf_status_t guid_ranks(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	gnode_t *v = malloc(((size_t)f->nnodes + 1) * sizeof(*v));
	ibf_node_id_t n;
	unsigned pass;

	if (!v)
		return nomem(r);
	for (pass = 0; pass < 2; pass++) {
		uint32_t *out = pass ? r->trank : r->grank;

		for (n = 0; n < f->nnodes; n++) {
			unsigned l = r->pg->level[n];

			v[n].a = pass ? (l != r->pg->h) : (l != 0);
			v[n].b = f->nodes[n].guid;
			v[n].node = n;
		}
		qsort(v, f->nnodes, sizeof(*v), gnode_cmp);
		for (n = 0; n < f->nnodes; n++)
			out[v[n].node] = n;
	}
	free(v);
	return IBF_OK;
}

/* A level-i subtree joins more level-(i-1) subtrees than m_i: name the
 * level-i switch whose set of child subtrees is the rarest in it (in a
 * PGFT all switches of a subtree have the same one). */
static ibf_status_t blame_merge(rec_t *r, unsigned i, uint32_t group,
				unsigned found)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t nb[IBF_MAX_PORTS + 1], u, best = IBF_NO_ID;
	unsigned mult[IBF_MAX_PORTS + 1], c, j;
	gnode_t *sv = malloc(((size_t)pg->level_present[i] + 1) * sizeof(*sv));
	uint32_t n = 0, a, b, bestc = UINT32_MAX;
	char nmb[NAME_LEN];
	ibf_status_t st;

	if ((st = blame_outlier(r)) != IBF_OK) {
		free(sv);
		return st;
	}
	if (!sv)
		return nomem(r);
	for (u = 0; u < f->nnodes; u++) {
		uint64_t hsh = 1469598103934665603ULL;
		uint32_t keys[IBF_MAX_PORTS + 1], t;

		if (pg->level[u] != i || r->grp[u] != group)
			continue;
		c = neighbours(r, u, -1, nb, mult);
		for (j = 0; j < c; j++) {
			keys[j] = r->key[r->lo[nb[j]]];
			for (a = j; a > 0 && keys[a - 1] > keys[a]; a--) {
				t = keys[a];
				keys[a] = keys[a - 1];
				keys[a - 1] = t;
			}
		}
		for (j = 0; j < c; j++)
			hsh = (hsh ^ keys[j]) * 1099511628211ULL;
		sv[n++] = (gnode_t){ hsh, f->nodes[u].guid, u };
	}
	qsort(sv, n, sizeof(*sv), gnode_cmp);
	for (a = 0; a < n; a = b) {
		for (b = a; b < n && sv[b].a == sv[a].a; b++)
			;
		if (b - a < bestc) {
			bestc = b - a;
			best = sv[a].node;
		}
	}
	free(sv);
	if (best == IBF_NO_ID)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
				   "not a PGFT: asymmetric wiring at level %u",
				   i);
	return ibf_err_set(r->err, IBF_ERR_INVALID,
		"not a PGFT: asymmetric wiring: level-%u switch %s joins "
		"level-%u subtrees that the other level-%u switches do not "
		"join (%u level-%u subtrees are linked together, a level-%u "
		"subtree of this PGFT has %u)", i, nm(f, best, nmb), i - 1, i,
		found, i - 1, i, pg->m[i]);
}

typedef struct piece {
	uint32_t group, key, root;
} piece_t;

static int piece_cmp(const void *x, const void *y)
{
	const piece_t *p = x, *q = y;

	if (p->group != q->group)
		return p->group < q->group ? -1 : 1;
	return p->key < q->key ? -1 : p->key > q->key;
}

/*
 * Digits from NodeGUIDs for the pieces of one side of boundary i: the
 * pieces (roots in part[], nodes with level in [plo, phi]) inside one
 * group (grp[], the next larger unit) are numbered by their smallest
 * rank[]; at most lim per group.  below: the side under the boundary.
 */
static ibf_status_t guid_digits(rec_t *r, unsigned i, bool below,
				const uint32_t *part, const uint32_t *rank,
				unsigned plo, unsigned phi, unsigned lim)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	piece_t *pc;
	uint32_t np = 0, a, b, k;
	ibf_node_id_t n;
	char x[NAME_LEN];

	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL && pg->level[n] >= plo &&
		    pg->level[n] <= phi)
			r->key[part[n]] = UNSET;
	for (n = 0; n < f->nnodes; n++) {
		if (pg->level[n] == NO_LEVEL || pg->level[n] < plo ||
		    pg->level[n] > phi)
			continue;
		if (r->key[part[n]] == UNSET)
			np++;
		if (rank[n] < r->key[part[n]])
			r->key[part[n]] = rank[n];
	}
	pc = malloc(((size_t)np + 1) * sizeof(*pc));
	if (!pc)
		return nomem(r);
	np = 0;
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL && pg->level[n] >= plo &&
		    pg->level[n] <= phi && part[n] == n)
			pc[np++] = (piece_t){ r->grp[n], r->key[n], n };
	qsort(pc, np, sizeof(*pc), piece_cmp);
	for (a = 0; a < np; a = b) {
		for (b = a; b < np && pc[b].group == pc[a].group; b++)
			r->dig[pc[b].root] = b - a;
		if (b - a <= lim)
			continue;
		k = b - a;
		if (below) {
			ibf_status_t st;

			/* blame among the level-i switches of the group */
			for (n = 0; n < f->nnodes; n++)
				if (pg->level[n] == i && r->grp[n] ==
				    pc[a].group)
					break;
			free(pc);
			if (n == f->nnodes)
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"not a PGFT: asymmetric wiring at "
					"level %u", i);
			st = blame_merge(r, i, r->grp[n], k);
			return st;
		}
		for (n = 0; n < f->nnodes; n++)
			if (pg->level[n] == i - 1 && r->grp[n] == pc[a].group)
				break;
		free(pc);
		if (blame_outlier(r) != IBF_OK)
			return r->err->status;
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: asymmetric wiring: the level-%u switches "
			"above %s %s fall into %u replica classes (sets of "
			"switches with the same top-level ancestors), "
			"expected at most w_%u = %u", i,
			n < f->nnodes ? kind(f, n) : "node",
			n < f->nnodes ? nm(f, n, x) : "?", k, i, lim);
	}
	free(pc);
	return IBF_OK;
}

/*
 * Digits from port numbers for one side of boundary i: every link across
 * the boundary gives the piece on this side the rank of the port number
 * at the other end (among the ports that level uses there) divided by
 * p_i; all links of a piece must agree.  False if they do not.
 */
static bool port_digits(rec_t *r, unsigned i, bool below,
			const uint32_t *part)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	const uint64_t *set = below ? r->dp[i] : r->up[i];
	unsigned pp = pg->p[i], q, d;
	ibf_node_id_t n, v;

	if (bits_count(set) != (below ? pg->m[i] : pg->w[i]) * pp)
		return false;
	for (n = 0; n < f->nnodes; n++)
		if (part[n] != UNSET)
			r->dig[part[n]] = UNSET;
	for (n = 0; n < f->nnodes; n++) {
		if (pg->level[n] != i - 1)
			continue;
		for (q = 1; q <= f->nodes[n].nports; q++) {
			ibf_port_id_t pp_id = ibf_node_port(f, n, q)->peer;
			ibf_node_id_t piece;

			v = peer_node(f, n, q);
			if (v == IBF_NO_ID || pg->level[v] != i)
				continue;
			if (below) {
				d = bits_rank(set, f->ports[pp_id].num) / pp;
				piece = part[n];
			} else {
				d = bits_rank(set, q) / pp;
				piece = part[v];
			}
			if (r->dig[piece] == UNSET)
				r->dig[piece] = d;
			else if (r->dig[piece] != d)
				return false;
		}
	}
	/* every piece borders the boundary in a connected fabric */
	for (n = 0; n < f->nnodes; n++)
		if (part[n] != UNSET && r->dig[part[n]] == UNSET)
			return false;
	return true;
}

/* The remembered labeling does not fit: why, for pg->memory_why. */
static ibf_status_t misfit(rec_t *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static ibf_status_t misfit(rec_t *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->pg->memory_why, sizeof(r->pg->memory_why), fmt, ap);
	va_end(ap);
	return IBF_ERR_INVALID;
}

/* Remembered digit i of the pieces (roots in part[], nodes with level in
 * [plo, phi]): what their remembered nodes say, which must agree.  -1 ok,
 * else a status. */
static int mem_piece_digits(rec_t *r, unsigned i, const uint32_t *part,
			    const uint32_t *rank, unsigned plo, unsigned phi,
			    unsigned lim)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	ibf_node_id_t n, *who = malloc(((size_t)f->nnodes + 1) * sizeof(*who));
	char a[NAME_LEN], b[NAME_LEN];
	unsigned d;

	if (!who)
		return nomem(r);
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL && pg->level[n] >= plo &&
		    pg->level[n] <= phi)
			r->key[part[n]] = r->dig[part[n]] = UNSET;
	for (n = 0; n < f->nnodes; n++) {
		uint32_t pc = part[n];

		if (pg->level[n] == NO_LEVEL || pg->level[n] < plo ||
		    pg->level[n] > phi)
			continue;
		if (rank[n] < r->key[pc])
			r->key[pc] = rank[n];
		if (!r->mnode[n])
			continue;
		d = r->mnode[n]->digit[i - 1];
		if (d >= lim) {
			free(who);
			return misfit(r, "%s has digit %u of %u at position "
				      "%u", nm(f, n, a), d, lim, i);
		}
		if (r->dig[pc] == UNSET) {
			r->dig[pc] = d;
			who[pc] = n;
		} else if (r->dig[pc] != d) {
			misfit(r, "%s and %s are joined now but were apart",
			       nm(f, who[pc], a), nm(f, n, b));
			free(who);
			return IBF_ERR_INVALID;
		}
	}
	free(who);
	return -1;
}

/*
 * Digits from the remembered labeling for one side of boundary i (pieces
 * as for guid_digits): a piece keeps the digit of its remembered nodes;
 * the pieces with none (new nodes only) get, in NodeGUID order, the
 * smallest digits their group does not use.
 */
static ibf_status_t mem_digits(rec_t *r, unsigned i, const uint32_t *part,
			       const uint32_t *rank, unsigned plo,
			       unsigned phi, unsigned lim)
{
	const ibf_fabric_t *f = r->f;
	const ibf_pgft_t *pg = r->pg;
	int st = mem_piece_digits(r, i, part, rank, plo, phi, lim);
	piece_t *pc;
	uint32_t np = 0, a, b, d;
	ibf_node_id_t n;
	char x[NAME_LEN];

	if (st >= 0)
		return (ibf_status_t)st;
	pc = malloc(((size_t)f->nnodes + 1) * sizeof(*pc));
	if (!pc)
		return nomem(r);
	/* remembered pieces first (key = digit), new ones after by GUID */
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL && pg->level[n] >= plo &&
		    pg->level[n] <= phi && part[n] == n)
			pc[np++] = (piece_t){ r->grp[n], r->dig[n] != UNSET ?
					      r->dig[n] : 0x80000000u |
					      r->key[n], n };
	qsort(pc, np, sizeof(*pc), piece_cmp);
	for (a = 0; a < np; a = b) {
		uint64_t used[4] = { 0 };

		for (b = a; b < np && pc[b].group == pc[a].group; b++) {
			if (pc[b].key < 0x80000000u) {
				bits_set(used, pc[b].key);
				continue;
			}
			for (d = 0; d < lim && (used[d / 64] >> (d % 64) & 1);
			     d++)
				;
			if (d == lim) {
				free(pc);
				return misfit(r, "no free slot for %s",
					      nm(f, pc[b].root, x));
			}
			bits_set(used, d);
			r->dig[pc[b].root] = d;
		}
	}
	free(pc);
	return IBF_OK;
}

/* Digit i of every node. */
static ibf_status_t digits_at(rec_t *r, unsigned i)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t n;
	ibf_status_t st;
	unsigned h = pg->h;

	/* pieces below (levels < i) and above (levels >= i) */
	join_levels(r, 0, i - 1);
	for (n = 0; n < f->nnodes; n++)
		r->lo[n] = pg->level[n] < i ? uf_find(r->uf, n) : UNSET;
	join_levels(r, i, h);
	for (n = 0; n < f->nnodes; n++)
		r->hi[n] = pg->level[n] != NO_LEVEL && pg->level[n] >= i ?
			   uf_find(r->uf, n) : UNSET;

	/* below: digits into dig[] of the lower roots */
	if (!r->mem && r->use_ports && port_digits(r, i, true, r->lo)) {
		pg->port_digits[i] |= 1;
	} else {
		join_levels(r, 0, i);
		for (n = 0; n < f->nnodes; n++)
			r->grp[n] = uf_find(r->uf, n);
		st = r->mem ? mem_digits(r, i, r->lo, r->grank, 0, i - 1,
					 pg->m[i]) :
			guid_digits(r, i, true, r->lo, r->grank, 0, i - 1,
				    pg->m[i]);
		if (st != IBF_OK)
			return st;
	}
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] < i)
			pg->label[(size_t)n * h + i - 1] =
				(uint8_t)r->dig[r->lo[n]];

	if (!r->mem && r->use_ports && port_digits(r, i, false, r->hi)) {
		pg->port_digits[i] |= 2;
	} else {
		join_levels(r, i - 1, h);
		for (n = 0; n < f->nnodes; n++)
			r->grp[n] = uf_find(r->uf, n);
		st = r->mem ? mem_digits(r, i, r->hi, r->trank, i, h,
					 pg->w[i]) :
			guid_digits(r, i, false, r->hi, r->trank, i, h,
				    pg->w[i]);
		if (st != IBF_OK)
			return st;
	}
	for (n = 0; n < f->nnodes; n++)
		if (pg->level[n] != NO_LEVEL && pg->level[n] >= i)
			pg->label[(size_t)n * h + i - 1] =
				(uint8_t)r->dig[r->hi[n]];
	return IBF_OK;
}

static unsigned radix(const ibf_pgft_t *pg, unsigned level, unsigned i)
{
	return i > level ? pg->m[i] : pg->w[i];
}

static const char *label_str(const ibf_pgft_t *pg, ibf_node_id_t n,
			     char *buf, size_t len)
{
	size_t o;
	unsigned i;

	o = (size_t)snprintf(buf, len, "(%u;", pg->level[n]);
	for (i = pg->h; i >= 1 && o < len; i--)
		o += (size_t)snprintf(buf + o, len - o, "%s%u",
				      i == pg->h ? " " : ",",
				      ibf_pgft_digit(pg, n, i));
	if (o < len)
		snprintf(buf + o, len - o, ")");
	return buf;
}

/* Ranks and node_at from the digits; two nodes on one label refuse. */
static ibf_status_t number_nodes(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	ibf_node_id_t u, *slot;
	unsigned l, i;
	uint64_t x;
	char a[NAME_LEN], b[NAME_LEN], s[160], lb[80];
	ibf_status_t st;

	for (x = 0; x < pg->level_off[pg->h + 1]; x++)
		pg->node_at[x] = IBF_NO_ID;
	for (u = 0; u < f->nnodes; u++) {
		l = pg->level[u];
		pg->rank[u] = UINT32_MAX;
		if (l == NO_LEVEL)
			continue;
		x = 0;
		for (i = pg->h; i >= 1; i--)
			x = x * radix(pg, l, i) + ibf_pgft_digit(pg, u, i);
		slot = &pg->node_at[pg->level_off[l] + x];
		if (*slot != IBF_NO_ID) {
			if ((st = blame_outlier(r)) != IBF_OK)
				return st;
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: asymmetric wiring: %s %s and %s "
				"would both be %s of %s", kind(f, u),
				nm(f, *slot, a), nm(f, u, b),
				label_str(pg, u, lb, sizeof(lb)),
				ibf_pgft_format(pg, s, sizeof(s)));
		}
		*slot = u;
		pg->rank[u] = (uint32_t)x;
	}
	return IBF_OK;
}

static ibf_status_t label_pass(rec_t *r, bool use_ports)
{
	ibf_pgft_t *pg = r->pg;
	ibf_status_t st;
	unsigned i;

	r->use_ports = use_ports;
	memset(pg->port_digits, 0, sizeof(pg->port_digits));
	memset(pg->label, 0, (size_t)r->f->nnodes * pg->h);
	for (i = 1; i <= pg->h; i++)
		if ((st = digits_at(r, i)) != IBF_OK)
			return st;
	return number_nodes(r);
}

/* Each node's memory; a node on another level than remembered makes the
 * memory a misfit. */
static ibf_status_t find_memory(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_node_id_t n;
	char a[NAME_LEN];

	r->mnode = calloc((size_t)f->nnodes + 1, sizeof(*r->mnode));
	if (!r->mnode)
		return nomem(r);
	for (n = 0; n < f->nnodes; n++) {
		const ibf_pgft_mem_node_t *m;

		if (r->pg->level[n] == NO_LEVEL)
			continue;
		m = ibf_pgft_memory_node(r->mem, f->nodes[n].guid);
		if (m && m->level != r->pg->level[n])
			return misfit(r, "%s was at level %u, is at level %u",
				      nm(f, n, a), m->level, r->pg->level[n]);
		r->mnode[n] = m;
	}
	return IBF_OK;
}

/* The remembered labels, if they fit; else why is kept and the labels
 * are found afresh. */
static ibf_status_t label_from_memory(rec_t *r)
{
	ibf_pgft_t *pg = r->pg;
	ibf_status_t st;

	if (!r->hint)
		st = misfit(r, "the fabric no longer fits its shape");
	else if ((st = find_memory(r)) == IBF_OK)
		st = label_pass(r, false);
	if (st == IBF_OK) {
		pg->memory_used = true;
		return IBF_OK;
	}
	if (st == IBF_ERR_INVALID && !pg->memory_why[0])
		snprintf(pg->memory_why, sizeof(pg->memory_why), "%.180s",
			 r->err->msg);
	r->mem = NULL;
	ibf_err_clear(r->err);
	return st == IBF_ERR_INVALID ? IBF_OK : st;
}

/* Remembered labels when they fit, else port digits when the cabling
 * allows them, else NodeGUID digits; the last attempt's message is the
 * one reported. */
static ibf_status_t label_nodes(rec_t *r)
{
	ibf_status_t st;

	if ((st = guid_ranks(r)) != IBF_OK)
		return st;
	if (r->mem) {
		if ((st = label_from_memory(r)) != IBF_OK)
			return st;
		if (r->pg->memory_used)
			return IBF_OK;
	}
	st = label_pass(r, true);
	if (st == IBF_ERR_INVALID) {
		ibf_err_clear(r->err);
		st = label_pass(r, false);
	}
	return st;
}

/* ---- 5. wiring -------------------------------------------------------- */

static ibf_status_t alloc_ports(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	size_t nu = 0, nd = 0;
	ibf_node_id_t u;
	unsigned l;

	pg->up_off = malloc(((size_t)f->nnodes + 1) * sizeof(*pg->up_off));
	pg->down_off = malloc(((size_t)f->nnodes + 1) *
			      sizeof(*pg->down_off));
	if (!pg->up_off || !pg->down_off)
		return nomem(r);
	for (u = 0; u < f->nnodes; u++) {
		l = pg->level[u];
		pg->up_off[u] = (uint32_t)nu;
		pg->down_off[u] = (uint32_t)nd;
		if (l == NO_LEVEL)
			continue;
		if (l < pg->h)
			nu += (size_t)pg->w[l + 1] * pg->p[l + 1];
		if (l)
			nd += (size_t)pg->m[l] * pg->p[l];
	}
	if (nu > UINT32_MAX || nd > UINT32_MAX)
		return ibf_err_set(r->err, IBF_ERR_RANGE, "pgft: too large");
	pg->up_port = calloc(nu + 1, 1);
	pg->down_port = calloc(nd + 1, 1);
	if (!pg->up_port || !pg->down_port)
		return nomem(r);
	return IBF_OK;
}

/* Parallel index of link n:q -> v from port numbers, or pp if none. */
static unsigned port_k(const rec_t *r, unsigned l, unsigned q,
		       unsigned qv)
{
	const ibf_pgft_t *pg = r->pg;
	unsigned pp = pg->p[l];

	if (pg->port_digits[l] & 2)
		return bits_rank(r->up[l], q) % pp;
	if (pg->port_digits[l] & 1)
		return bits_rank(r->dp[l], qv) % pp;
	return pp;
}

/* Remembered parallel index of link n:q, or pp if none. */
static unsigned mem_k(const rec_t *r, ibf_node_id_t n, unsigned q,
		      unsigned pp)
{
	const ibf_pgft_mem_link_t *m;

	if (!r->mem)
		return pp;
	m = ibf_pgft_memory_link(r->mem, r->f->nodes[n].guid, q);
	return m && m->k < pp ? m->k : pp;
}

/* File up link n:q -> v in both tables (the labels obey the rule by
 * construction; checked all the same). */
static ibf_status_t file_link(rec_t *r, ibf_node_id_t n, unsigned q,
			      ibf_node_id_t v)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	unsigned l = pg->level[n], pp = pg->p[l + 1], y, c, k, qv;
	ibf_node_id_t want;
	uint8_t *up, *down;
	char a[NAME_LEN], b[NAME_LEN], la[80], lb[80];

	qv = f->ports[ibf_node_port(f, n, q)->peer].num;
	y = ibf_pgft_digit(pg, v, l + 1);
	c = ibf_pgft_digit(pg, n, l + 1);
	want = ibf_pgft_parent(pg, n, y);
	if (want != v)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: asymmetric wiring: %s %s %s port %u is "
			"linked to %s %s against the PGFT rule", kind(f, n),
			nm(f, n, a), label_str(pg, n, la, 80), q, nm(f, v, b),
			label_str(pg, v, lb, 80));
	up = &pg->up_port[pg->up_off[n] + y * pp];
	down = &pg->down_port[pg->down_off[v] + c * pp];
	k = mem_k(r, n, q, pp);
	if (k >= pp)
		k = port_k(r, l + 1, q, qv);
	if (k >= pp || up[k] || down[k])
		for (k = 0; k < pp && (up[k] || down[k]); k++)
			;
	if (k == pp)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"not a PGFT: %s %s: more than %u links to %s",
			kind(f, n), nm(f, n, a), pp, nm(f, v, b));
	up[k] = (uint8_t)q;
	down[k] = (uint8_t)qv;
	return IBF_OK;
}

static ibf_status_t check_wiring(rec_t *r)
{
	ibf_pgft_t *pg = r->pg;
	link_walk_t w = { 0 };
	ibf_node_id_t u, v;
	ibf_status_t st;
	size_t nmiss = 0;
	unsigned q, slots, l, pass;
	uint32_t i;

	if ((st = alloc_ports(r)) != IBF_OK)
		return st;
	while (next_link(r, &w))
		if (pg->level[w.v] == pg->level[w.n] + 1 &&
		    (st = file_link(r, w.n, w.q, w.v)) != IBF_OK)
			return st;
	/* missing links: empty slots whose parent is present; counted,
	 * then listed */
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			if (!nmiss)
				return IBF_OK;
			pg->missing = malloc(nmiss * sizeof(*pg->missing));
			if (!pg->missing)
				return nomem(r);
		}
		for (l = 0; l < pg->h; l++)
			for (i = 0; i < pg->level_count[l]; i++) {
				u = pg->node_at[pg->level_off[l] + i];
				if (u == IBF_NO_ID)
					continue;
				slots = pg->w[l + 1] * pg->p[l + 1];
				for (q = 0; q < slots; q++) {
					ibf_pgft_missing_t *m;

					if (pg->up_port[pg->up_off[u] + q])
						continue;
					v = ibf_pgft_parent(pg, u,
							    q / pg->p[l + 1]);
					if (v == IBF_NO_ID)
						continue;
					if (!pass) {
						nmiss++;
						continue;
					}
					m = &pg->missing[pg->missing_links++];
					m->child = u;
					m->parent = v;
					m->k = q % pg->p[l + 1];
				}
			}
	}
	return IBF_OK;
}

/* ---- 6. reachability of a degraded PGFT -------------------------------- */

static void bs_or(uint64_t *d, const uint64_t *s, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		d[i] |= s[i];
}

static bool any_link(const uint8_t *slots, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (slots[k])
			return true;
	return false;
}

/* Are all switch links and switches there?  Missing hosts alone keep
 * every pair of present endpoints reachable. */
bool ibf_pgft_switches_whole(const ibf_pgft_t *pg)
{
	unsigned l, i;

	for (l = 1; l <= pg->h; l++)
		if (pg->level_present[l] != pg->level_count[l])
			return false;
	for (i = 0; i < pg->missing_links; i++)
		if (pg->level[pg->missing[i].child] > 0)
			return false;
	return true;
}

/* R(u) for switches: endpoints reachable down (bottom-up), then up*down*
 * (top-down, in place); count the endpoint pairs of a plane a leaf
 * cannot serve. */
static ibf_status_t count_unreachable(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	size_t words = (f->nendpoints + 63) / 64, sw = pg->level_off[1];
	size_t nsw = pg->level_off[pg->h + 1] - sw;
	uint64_t *R, *plane;
	uint32_t i, e;
	unsigned l, y, c, pp;
	ibf_node_id_t u, v;

	if (ibf_pgft_switches_whole(pg))
		return IBF_OK;
	R = calloc(nsw * words + 1, sizeof(*R));
	plane = calloc((size_t)pg->w[1] * words + 1, sizeof(*plane));
	if (!R || !plane) {
		free(R);
		free(plane);
		return nomem(r);
	}
#define RS(n) (R + ((size_t)pg->rank[n] + pg->level_off[pg->level[n]] - sw) \
		   * words)
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		ibf_node_id_t leaf = f->ports[f->ports[ep].peer].node;

		RS(leaf)[e / 64] |= 1ULL << (e % 64);
		plane[(size_t)ibf_pgft_digit(pg, leaf, 1) * words + e / 64] |=
			1ULL << (e % 64);
	}
	for (l = 2; l <= pg->h; l++)
		for (i = 0; i < pg->level_count[l]; i++) {
			u = pg->node_at[pg->level_off[l] + i];
			if (u == IBF_NO_ID)
				continue;
			for (c = 0; c < pg->m[l]; c++) {
				v = ibf_pgft_child(pg, u, c);
				if (v != IBF_NO_ID &&
				    any_link(&pg->down_port[pg->down_off[u] +
							    c * pg->p[l]],
					     pg->p[l]))
					bs_or(RS(u), RS(v), words);
			}
		}
	for (l = pg->h - 1; l >= 1; l--)
		for (i = 0; i < pg->level_count[l]; i++) {
			u = pg->node_at[pg->level_off[l] + i];
			if (u == IBF_NO_ID)
				continue;
			pp = pg->p[l + 1];
			for (y = 0; y < pg->w[l + 1]; y++) {
				v = ibf_pgft_parent(pg, u, y);
				if (v != IBF_NO_ID &&
				    any_link(&pg->up_port[pg->up_off[u] +
							  y * pp], pp))
					bs_or(RS(u), RS(v), words);
			}
		}
	for (e = 0; e < f->nendpoints; e++) {
		ibf_port_id_t ep = f->endpoints[e];
		ibf_node_id_t leaf = f->ports[f->ports[ep].peer].node;
		const uint64_t *pl = plane +
			(size_t)ibf_pgft_digit(pg, leaf, 1) * words;
		const uint64_t *ru = RS(leaf);
		size_t w;

		for (w = 0; w < words; w++)
			pg->unreachable_pairs +=
				(uint64_t)__builtin_popcountll(pl[w] & ~ru[w]);
	}
#undef RS
	free(R);
	free(plane);
	return IBF_OK;
}

/* ---- host order --------------------------------------------------------- */

static ibf_status_t host_order(rec_t *r)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	unsigned slots = pg->w[1] * pg->p[1], s, q;
	uint32_t i, n = 0, e;
	ibf_node_id_t u;
	ibf_port_id_t ep;

	pg->host_order = malloc(((size_t)f->nendpoints + 1) *
				sizeof(*pg->host_order));
	pg->ep_pos = malloc(((size_t)f->nendpoints + 1) * sizeof(*pg->ep_pos));
	pg->ep_d = malloc(((size_t)f->nendpoints + 1) * sizeof(*pg->ep_d));
	if (!pg->host_order || !pg->ep_pos || !pg->ep_d)
		return nomem(r);
	for (i = 0; i < pg->level_count[0]; i++) {
		u = pg->node_at[i];
		if (u == IBF_NO_ID)
			continue;
		for (s = 0; s < slots; s++) {
			q = pg->up_port[pg->up_off[u] + s];
			if (!q)
				continue;
			ep = ibf_node_port_id(f, u, q);
			e = f->endpoint_index[ep];
			if (n >= f->nendpoints || e == UINT32_MAX)
				return ibf_err_set(r->err, IBF_ERR_INVALID,
					"pgft: port %u of host \"%s\" is not "
					"an endpoint", q, ibf_node_desc(f, u));
			pg->ep_pos[e] = n;
			pg->ep_d[e] = i * pg->p[1] + s % pg->p[1];
			pg->host_order[n++] = ep;
		}
	}
	if (n != f->nendpoints)
		return ibf_err_set(r->err, IBF_ERR_INVALID,
			"pgft: %u of %u endpoints placed", n, f->nendpoints);
	pg->nhosts = n;
	return IBF_OK;
}

static void fill_shape(rec_t *r)
{
	ibf_pgft_t *pg = r->pg;
	ibf_pgft_shape_t *s = &pg->shape;

	memset(s, 0, sizeof(*s));
	s->h = pg->h;
	memcpy(s->m, pg->m, sizeof(s->m));
	memcpy(s->w, pg->w, sizeof(s->w));
	memcpy(s->p, pg->p, sizeof(s->p));
	memcpy(s->down_ports, r->dp, sizeof(s->down_ports));
	memcpy(s->up_ports, r->up, sizeof(s->up_ports));
	pg->hint_used = r->hint != NULL;
}

/* ---- API -------------------------------------------------------------- */

void ibf_pgft_destroy(ibf_pgft_t *pg)
{
	if (!pg)
		return;
	free(pg->level);
	free(pg->rank);
	free(pg->label);
	free(pg->node_at);
	free(pg->up_port);
	free(pg->down_port);
	free(pg->up_off);
	free(pg->down_off);
	free(pg->host_order);
	free(pg->ep_pos);
	free(pg->ep_d);
	free(pg->missing);
	free(pg);
}

static void rec_free(rec_t *r)
{
	free(r->uf);
	free(r->lo);
	free(r->hi);
	free(r->grp);
	free(r->dig);
	free(r->key);
	free(r->grank);
	free(r->trank);
	free(r->hist);
	free(r->edge);
	free(r->mnode);
	memset(r, 0, sizeof(*r));
}

static ibf_status_t recognize(rec_t *r, const ibf_pgft_shape_t *hint)
{
	const ibf_fabric_t *f = r->f;
	ibf_pgft_t *pg = r->pg;
	size_t n = (size_t)f->nnodes + 1;   /* per node, and one spare */
	ibf_status_t st;


	if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(r->uf, n),
			   IBF_CALLOC_ARRAY(r->grank, n),
			   IBF_CALLOC_ARRAY(r->trank, n),
			   IBF_CALLOC_ARRAY(r->lo, n),
			   IBF_CALLOC_ARRAY(r->hi, n),
			   IBF_CALLOC_ARRAY(r->grp, n),
			   IBF_CALLOC_ARRAY(r->dig, n),
			   IBF_CALLOC_ARRAY(r->key, n)))
		return nomem(r);
	if ((st = check_connected(r)) != IBF_OK ||
	    (st = assign_levels(r)) != IBF_OK ||
	    (st = check_adjacent(r)) != IBF_OK ||
	    (st = list_edges(r)) != IBF_OK ||
	    (st = infer_params(r, hint)) != IBF_OK)
		return st;
	st = check_sizes(r);
	if (st == IBF_ERR_INVALID && !r->hint && !r->demoted &&
	    raise_params(r)) {
		/* every node of a level lost a link: the level sizes show
		 * the tree is larger than the degrees say (not tried on
		 * moved levels: a miswired fabric can look so too) */
		ibf_err_clear(r->err);
		st = check_sizes(r);
	}
	if (st != IBF_OK)
		return st;
	pg->label = calloc((size_t)f->nnodes * pg->h + 1, 1);
	pg->node_at = malloc(((size_t)pg->level_off[pg->h + 1] + 1) *
			     sizeof(*pg->node_at));
	if (!pg->label || !pg->node_at)
		return nomem(r);
	if ((st = label_nodes(r)) != IBF_OK ||
	    (st = check_wiring(r)) != IBF_OK ||
	    (st = count_unreachable(r)) != IBF_OK ||
	    (st = host_order(r)) != IBF_OK)
		return st;
	fill_shape(r);
	return IBF_OK;
}

static ibf_pgft_t *pgft_new(const ibf_fabric_t *f)
{
	ibf_pgft_t *pg = calloc(1, sizeof(*pg));

	if (!pg)
		return NULL;
	pg->fabric = f;
	pg->level = malloc((size_t)f->nnodes + 1);
	pg->rank = malloc(((size_t)f->nnodes + 1) * sizeof(*pg->rank));
	if (!pg->level || !pg->rank) {
		ibf_pgft_destroy(pg);
		return NULL;
	}
	return pg;
}

ibf_status_t ibf_pgft_recognize_opts(const ibf_fabric_t *f,
				     const ibf_pgft_opts_t *o,
				     ibf_pgft_t **out, ibf_err_t *err)
{
	const ibf_pgft_memory_t *mem = o ? o->memory : NULL;
	const ibf_pgft_shape_t *hint = o && o->hint ? o->hint :
				       mem ? &mem->shape : NULL;
	ibf_pgft_t *pg = NULL;
	ibf_status_t st = IBF_ERR_INVALID;
	unsigned attempt;
	rec_t r;

	*out = NULL;
	if (!f->finalized)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "pgft: fabric is not finalized");
	if (!f->nnodes)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "not a PGFT: empty fabric");
	/* Attempts: with the hint, then without; each first letting step 1
	 * move hanging switches down, then (if it did) with plain BFS levels.
	 * The last refusal is reported: a miswired fabric can make true top
	 * switches look as if they hung below their children, and the plain
	 * levels name the miswiring. */
	for (attempt = hint ? 0 : 2; attempt < 4; attempt++) {
		bool skip_plain, hint_idle;

		memset(&r, 0, sizeof(r));
		pg = pgft_new(f);
		if (!pg)
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "pgft: out of memory");
		r.f = f;
		r.pg = pg;
		r.err = err;
		r.may_demote = !(attempt & 1);
		r.mem = attempt < 2 ? mem : NULL;
		ibf_err_clear(err);
		st = recognize(&r, attempt < 2 ? hint : NULL);
		skip_plain = r.may_demote && !r.demoted;
		hint_idle = attempt < 2 && !r.hint;
		rec_free(&r);
		if (st != IBF_ERR_INVALID || attempt == 3)
			break;
		ibf_pgft_destroy(pg);
		pg = NULL;
		if (skip_plain)
			attempt++;
		if (hint_idle && attempt >= 1)
			attempt = 3; /* without the hint: the same again */
	}
	if (st != IBF_OK) {
		ibf_pgft_destroy(pg);
		return st;
	}
	if (mem && !pg->memory_used && !pg->memory_why[0])
		snprintf(pg->memory_why, sizeof(pg->memory_why),
			 "the fabric no longer fits its shape");
	*out = pg;
	return IBF_OK;
}

ibf_status_t ibf_pgft_recognize(const ibf_fabric_t *f, ibf_pgft_t **out,
				ibf_err_t *err)
{
	return ibf_pgft_recognize_opts(f, NULL, out, err);
}

const char *ibf_pgft_format(const ibf_pgft_t *pg, char *buf, size_t len)
{
	const unsigned *v[3] = { pg->m, pg->w, pg->p };
	size_t o;
	unsigned i, j;

	o = (size_t)snprintf(buf, len, "PGFT(%u", pg->h);
	for (j = 0; j < 3 && o < len; j++)
		for (i = 1; i <= pg->h && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%u",
					      i == 1 ? "; " : ",", v[j][i]);
	if (o < len)
		snprintf(buf + o, len - o, ")");
	return buf;
}

const char *ibf_pgft_missing_str(const ibf_pgft_t *pg, unsigned i,
				 char *buf, size_t len)
{
	const ibf_pgft_missing_t *m = &pg->missing[i];
	char a[NAME_LEN], b[NAME_LEN];
	unsigned l = pg->level[m->child];

	snprintf(buf, len, "level-%u %s %s - level-%u switch %s, parallel "
		 "link %u of %u", l, l ? "switch" : "host",
		 nm(pg->fabric, m->child, a), l + 1,
		 nm(pg->fabric, m->parent, b), m->k + 1, pg->p[l + 1]);
	return buf;
}

/* The node at level nl whose digits are n's, with x_j := v. */
static ibf_node_id_t relabel(const ibf_pgft_t *pg, ibf_node_id_t n,
			     unsigned nl, unsigned j, unsigned v)
{
	uint64_t idx = 0;
	unsigned i;

	for (i = pg->h; i >= 1; i--)
		idx = idx * radix(pg, nl, i) +
		      (i == j ? v : ibf_pgft_digit(pg, n, i));
	return pg->node_at[pg->level_off[nl] + idx];
}

ibf_node_id_t ibf_pgft_parent(const ibf_pgft_t *pg, ibf_node_id_t n,
			      unsigned y)
{
	unsigned l = pg->level[n];

	return relabel(pg, n, l + 1, l + 1, y);
}

ibf_node_id_t ibf_pgft_child(const ibf_pgft_t *pg, ibf_node_id_t n,
			     unsigned c)
{
	unsigned l = pg->level[n];

	return relabel(pg, n, l - 1, l, c);
}

bool ibf_pgft_is_below(const ibf_pgft_t *pg, ibf_node_id_t s,
		       ibf_node_id_t a)
{
	unsigned L = pg->level[s], j = pg->level[a], i;

	if (j > L)
		return false;
	for (i = 1; i <= pg->h; i++)
		if ((i > L || i <= j) &&
		    ibf_pgft_digit(pg, s, i) != ibf_pgft_digit(pg, a, i))
			return false;
	return true;
}

unsigned ibf_pgft_nca_level(const ibf_pgft_t *pg, ibf_node_id_t a,
			    ibf_node_id_t b)
{
	unsigned l = pg->level[a], i;

	for (i = 1; i <= l; i++)
		if (ibf_pgft_digit(pg, a, i) != ibf_pgft_digit(pg, b, i))
			return pg->h + 1;
	for (i = pg->h; i > l; i--)
		if (ibf_pgft_digit(pg, a, i) != ibf_pgft_digit(pg, b, i))
			return i;
	return l;
}

ibf_node_id_t ibf_pgft_ep_leaf(const ibf_pgft_t *pg, ibf_port_id_t ep)
{
	const ibf_fabric_t *f = pg->fabric;

	return f->ports[f->ports[ep].peer].node;
}

bool ibf_pgft_down_ok(const ibf_pgft_t *pg, ibf_node_id_t s,
		      ibf_port_id_t ep)
{
	ibf_node_id_t leaf = ibf_pgft_ep_leaf(pg, ep), n = s;
	unsigned l, c;

	if (!ibf_pgft_is_below(pg, s, leaf))
		return false;
	for (l = pg->level[s]; l >= 2; l--) {
		c = ibf_pgft_digit(pg, leaf, l);
		if (!any_link(&pg->down_port[pg->down_off[n] + c * pg->p[l]],
			      pg->p[l]))
			return false;
		n = ibf_pgft_child(pg, n, c);
		if (n == IBF_NO_ID)
			return false;
	}
	return true;
}
