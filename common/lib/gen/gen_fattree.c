/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Fat-tree generators: PGFT(h; m1..mh; w1..wh; p1..ph), XGFT (all p = 1)
 * and k-ary n-trees, after the definitions in Mollah et al., "Rapid
 * Calculation of Max-Min Fair Rates for Multi-Commodity Flows in Fat-Tree
 * Networks" (IEEE TPDS 2018), section 2.1 (the paper indexes m, w, p from
 * 0, we from 1 as the spec).
 *
 * Labels: a level-l node (hosts are level 0) is (l; x_h, .., x_1) with
 * x_i in [0, m_i) for i > l (which subtree it lies in) and x_i in [0, w_i)
 * for i <= l (which of the replicated roots of its subtree it is).  Nodes
 * (l; x) and (l+1; y) are connected iff x_i = y_i for every i != l+1, by
 * p_{l+1} parallel links; so a level-l node has m_l children and w_{l+1}
 * parents, and level l holds prod(i>l) m_i * prod(i<=l) w_i nodes.
 *
 * Numbering: within a level, nodes are numbered by their label read as a
 * mixed-radix number with x_h most significant, x_1 least (hosts under one
 * leaf switch are consecutive).  Ports: a switch's down ports come first,
 * 1..m_l*p_l, child-major (port = x_l * p_l + k + 1 for parallel link k to
 * the child whose x_l digit it is), then its up ports, parent-major
 * (port = m_l*p_l + y * p_{l+1} + k + 1 for link k to the parent whose
 * x_{l+1} digit is y).  A host's ports are its up ports: y * p_1 + k + 1.
 */
#include <stdio.h>

#include "gen/gen_internal.h"

#define MAX_LEVELS IBF_GEN_MAX_VALS

typedef struct pgft {
	unsigned h;
	/* 1-based like the spec; m[h+1], w[h+1], p[h+1] unused (0) */
	unsigned m[MAX_LEVELS + 2], w[MAX_LEVELS + 2], p[MAX_LEVELS + 2];
	uint64_t count[MAX_LEVELS + 1];  /* nodes per level */
	ibf_node_id_t first[MAX_LEVELS + 1]; /* node id of each level's 0 */
} pgft_t;

static unsigned radix(const pgft_t *t, unsigned level, unsigned i)
{
	return i > level ? t->m[i] : t->w[i];
}

static void decode(const pgft_t *t, unsigned level, uint64_t idx,
		   unsigned *x)
{
	unsigned i;

	for (i = 1; i <= t->h; i++) {
		x[i] = (unsigned)(idx % radix(t, level, i));
		idx /= radix(t, level, i);
	}
}

static uint64_t encode(const pgft_t *t, unsigned level, const unsigned *x)
{
	uint64_t idx = 0;
	unsigned i;

	for (i = t->h; i >= 1; i--)
		idx = idx * radix(t, level, i) + x[i];
	return idx;
}

static unsigned down_ports(const pgft_t *t, unsigned level)
{
	return level ? t->m[level] * t->p[level] : 0;
}

static unsigned node_ports(const pgft_t *t, unsigned level)
{
	unsigned n = down_ports(t, level);

	if (level < t->h)
		n += t->w[level + 1] * t->p[level + 1];
	return n;
}

/* Sizes and limits, before anything is allocated. */
static ibf_status_t pgft_check(ibf_gen_t *g, pgft_t *t)
{
	uint64_t switches = 0, nports;
	unsigned l, i;
	ibf_status_t st;
	char what[32];

	for (l = 0; l <= t->h; l++) {
		uint64_t c = 1;

		for (i = 1; i <= t->h; i++)
			c = ibf_gen_mul(c, radix(t, l, i));
		t->count[l] = c;
		if (l)
			switches = ibf_gen_add(switches, c);
		nports = (uint64_t)down_ports(t, l);
		if (l < t->h)
			nports += (uint64_t)t->w[l + 1] * t->p[l + 1];
		if (l)
			snprintf(what, sizeof(what), "a level-%u switch", l);
		else
			snprintf(what, sizeof(what), "a host (W1*P1)");
		st = ibf_gen_check_ports(g, nports, what);
		if (st != IBF_OK)
			return st;
	}
	st = ibf_gen_check_size(g, t->count[0],
				ibf_gen_mul(t->count[0],
					    (uint64_t)t->w[1] * t->p[1]),
				switches);
	if (st != IBF_OK)
		return st;
	t->first[0] = 0;
	for (l = 1; l <= t->h; l++)
		t->first[l] = t->first[l - 1] + (ibf_node_id_t)t->count[l - 1];
	return IBF_OK;
}

static ibf_status_t add_nodes(ibf_gen_t *g, const pgft_t *t)
{
	ibf_node_id_t id;
	ibf_status_t st;
	uint64_t i;
	unsigned l;

	for (i = 0; i < t->count[0]; i++) {
		st = ibf_gen_add_host(g, node_ports(t, 0), &id);
		if (st != IBF_OK)
			return st;
	}
	for (l = 1; l <= t->h; l++)
		for (i = 0; i < t->count[l]; i++) {
			st = ibf_gen_add_switch(g, node_ports(t, l), &id,
						"s%u-%llu", l,
						(unsigned long long)i);
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}

/* Links from every level-l node to its parents. */
static ibf_status_t link_level(ibf_gen_t *g, const pgft_t *t, unsigned l)
{
	unsigned x[MAX_LEVELS + 1], pos, y, k;
	unsigned up = down_ports(t, l), pp = t->p[l + 1];
	ibf_status_t st;
	uint64_t i;

	for (i = 0; i < t->count[l]; i++) {
		ibf_node_id_t child = t->first[l] + (ibf_node_id_t)i, parent;

		decode(t, l, i, x);
		pos = x[l + 1]; /* the child's place under its parents */
		for (y = 0; y < t->w[l + 1]; y++) {
			x[l + 1] = y;
			parent = t->first[l + 1] +
				 (ibf_node_id_t)encode(t, l + 1, x);
			for (k = 0; k < pp; k++) {
				st = ibf_gen_link(g, child, up + y * pp + k + 1,
						  parent, pos * pp + k + 1);
				if (st != IBF_OK)
					return st;
			}
		}
	}
	return IBF_OK;
}

static ibf_status_t pgft_build(ibf_gen_t *g, pgft_t *t)
{
	ibf_status_t st;
	unsigned l;

	if ((st = pgft_check(g, t)) != IBF_OK ||
	    (st = add_nodes(g, t)) != IBF_OK)
		return st;
	for (l = 0; l < t->h; l++)
		if ((st = link_level(g, t, l)) != IBF_OK)
			return st;
	return IBF_OK;
}

/* H and the per-level lists M, W and (if with_p) P. */
static ibf_status_t parse_levels(ibf_gen_t *g, pgft_t *t, bool with_p)
{
	static const char *names[] = { "M#", "W#", "P#" };
	unsigned f, i, nf = with_p ? 3 : 2;
	ibf_status_t st;

	st = ibf_gen_check_field(g, 0, "H", 1, 1, 1, MAX_LEVELS);
	if (st != IBF_OK)
		return st;
	t->h = (unsigned)g->spec->f[0].v[0];
	for (f = 0; f < nf; f++) {
		st = ibf_gen_check_field(g, f + 1, names[f], t->h, t->h, 1,
					 IBF_MAX_PORTS);
		if (st != IBF_OK)
			return st;
	}
	for (i = 1; i <= t->h; i++) {
		t->m[i] = (unsigned)g->spec->f[1].v[i - 1];
		t->w[i] = (unsigned)g->spec->f[2].v[i - 1];
		t->p[i] = with_p ? (unsigned)g->spec->f[3].v[i - 1] : 1;
	}
	return IBF_OK;
}

ibf_status_t ibf_gen_pgft(ibf_gen_t *g)
{
	pgft_t t = { 0 };
	ibf_status_t st = parse_levels(g, &t, true);

	return st != IBF_OK ? st : pgft_build(g, &t);
}

ibf_status_t ibf_gen_xgft(ibf_gen_t *g)
{
	pgft_t t = { 0 };
	ibf_status_t st = parse_levels(g, &t, false);

	return st != IBF_OK ? st : pgft_build(g, &t);
}

/* k-ary n-tree = XGFT(n; k, .., k; 1, k, .., k). */
ibf_status_t ibf_gen_kary(ibf_gen_t *g)
{
	const ibf_gen_field_t *f = &g->spec->f[0];
	pgft_t t = { 0 };
	ibf_status_t st;
	unsigned i;

	st = ibf_gen_check_field(g, 0, "K,N", 2, 2, 1, IBF_MAX_PORTS);
	if (st != IBF_OK)
		return st;
	if (f->v[1] > MAX_LEVELS)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "N = %llu is out of range (1..%u)",
				    (unsigned long long)f->v[1], MAX_LEVELS);
	t.h = (unsigned)f->v[1];
	for (i = 1; i <= t.h; i++) {
		t.m[i] = (unsigned)f->v[0];
		t.w[i] = i == 1 ? 1 : (unsigned)f->v[0];
		t.p[i] = 1;
	}
	return pgft_build(g, &t);
}
