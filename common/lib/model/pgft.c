/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The PGFT a recognition made (pgft.h, docs/pgft.md): its accessors, its
 * parameters and labels as text for messages, and the message the
 * recognition's steps share when a fabric does not fit
 * (pgft_blame_outlier).  The recognition is pgft_recognize.c, its
 * labels step pgft_labels.c.
 */
#include <ibflow/pgft.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pgft_internal.h"

/* ---- messages ----------------------------------------------------------- */

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
ibf_status_t pgft_blame_outlier(rec_t *r)
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

unsigned pgft_radix(const ibf_pgft_t *pg, unsigned level, unsigned i)
{
	return i > level ? pg->m[i] : pg->w[i];
}

const char *pgft_label_str(const ibf_pgft_t *pg, ibf_node_id_t n,
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
		idx = idx * pgft_radix(pg, nl, i) +
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
