/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * PGFT recognition, step 4 (see pgft.c): the labels, one digit position
 * at a time, from the port numbers of the links across each boundary or
 * from NodeGUIDs.
 */
#include <stdlib.h>
#include <string.h>

#include "model/pgft_internal.h"

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

	if ((st = pgft_blame_outlier(r)) != IBF_OK) {
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
		if (pgft_blame_outlier(r) != IBF_OK)
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
			x = x * pgft_radix(pg, l, i) + ibf_pgft_digit(pg, u, i);
		slot = &pg->node_at[pg->level_off[l] + x];
		if (*slot != IBF_NO_ID) {
			if ((st = pgft_blame_outlier(r)) != IBF_OK)
				return st;
			return ibf_err_set(r->err, IBF_ERR_INVALID,
				"not a PGFT: asymmetric wiring: %s %s and %s "
				"would both be %s of %s", kind(f, u),
				nm(f, *slot, a), nm(f, u, b),
				pgft_label_str(pg, u, lb, sizeof(lb)),
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
ibf_status_t pgft_label_nodes(rec_t *r)
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
