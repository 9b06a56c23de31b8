/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * PGFT recognition (see pgft.h and docs/pgft.md); the result's accessors
 * are pgft.c's.
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
 *  4. labels (pgft_labels.c), one digit position i = 1..h at a time. A link
 *     between levels l and l+1 changes only digit l+1, so digit i is
 *     constant on every connected piece of the fabric without the
 *     level-(i-1)/i links: below (levels < i) these pieces are the
 *     level-(i-1) subtrees, above (levels >= i) the replica classes of level
 *     i.  Each piece gets its digit either from the port numbers of its
 *     links across the boundary (when the cabling keeps one port per slot
 *     across the whole level, which also places pieces whose siblings are
 *     gone), or from NodeGUIDs: the pieces inside one level-i subtree
 *     (below) or one level-(i-1) class (above) are numbered in order of
 *     their smallest host / top switch NodeGUID.  The labels must name
 *     distinct nodes;
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

#include "model/pgft_internal.h"

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
			if ((st = pgft_blame_outlier(r)) != IBF_OK)
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
			nm(f, n, a), pgft_label_str(pg, n, la, 80), q,
			nm(f, v, b), pgft_label_str(pg, v, lb, 80));
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

/* ---- recognize ---------------------------------------------------------- */

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
	if ((st = pgft_label_nodes(r)) != IBF_OK ||
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
