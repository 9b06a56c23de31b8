/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * tree:S,H,P[:SEED]  a random irregular tree: S switches of at most P
 * ports joined into a random tree, H hosts on them (docs/generators.md).
 * The test bed of topology inference (ibflow infer), where the network
 * is a tree but not a regular one.
 *
 * Switch s > 0 hangs from a random earlier switch that still has two free
 * ports (so every switch keeps one for a host); every leaf of the switch
 * tree gets one host, the other hosts go to random switches with a free
 * port.  Hosts are numbered switch by switch in depth-first order of the
 * switch tree.  Ports: 1 = the parent (switch 0 has none), then the child
 * switches, then the hosts.
 */
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "gen/gen_internal.h"

struct rtree {
	uint32_t s, h;
	unsigned p;
	uint32_t *parent;   /* switch tree */
	unsigned *deg;      /* ports used so far */
	uint32_t *hosts;    /* hosts per switch */
	uint32_t *order;    /* switches in depth-first order */
};

static uint32_t pick(ibf_rng_t *r, const struct rtree *t, uint32_t below,
		     unsigned need)
{
	uint32_t i, n = 0, k;

	for (i = 0; i < below; i++)
		n += t->deg[i] + need <= t->p;
	if (!n)
		return UINT32_MAX;
	k = (uint32_t)ibf_rng_below(r, n);
	for (i = 0; i < below; i++)
		if (t->deg[i] + need <= t->p && k-- == 0)
			return i;
	return UINT32_MAX;
}

static ibf_status_t shape(ibf_gen_t *g, struct rtree *t, uint64_t seed)
{
	ibf_rng_t r = { seed };
	uint32_t s, i, left = t->h;

	for (s = 1; s < t->s; s++) {
		uint32_t q = pick(&r, t, s, 2);

		if (q == UINT32_MAX)
			return ibf_gen_fail(g, IBF_ERR_RANGE, "P = %u ports "
					    "are too few for %u switches", t->p,
					    t->s);
		t->parent[s] = q;
		t->deg[q]++;
		t->deg[s] = 1;
	}
	for (s = 0; s < t->s; s++)
		if (t->deg[s] <= 1) { /* an end of the switch tree */
			if (!left)
				return ibf_gen_fail(g, IBF_ERR_RANGE, "H = %u "
						    "hosts are too few for the "
						    "leaf switches", t->h);
			t->hosts[s]++;
			left--;
		}
	for (s = 0; s < t->s; s++)
		t->deg[s] += t->hosts[s];
	for (i = 0; i < left; i++) {
		uint32_t q = pick(&r, t, t->s, 1);

		if (q == UINT32_MAX)
			return ibf_gen_fail(g, IBF_ERR_RANGE, "%u switches of "
					    "P = %u ports cannot hold H = %u "
					    "hosts", t->s, t->p, t->h);
		t->hosts[q]++;
		t->deg[q]++;
	}
	return IBF_OK;
}

/* Depth-first order of the switch tree from switch 0 (children in
 * increasing number). */
static void dfs_order(struct rtree *t)
{
	uint32_t *stack = t->order + t->s, sp = 0, n = 0, s, c;

	/* The upper half of order[] serves as the stack. */
	stack[sp++] = 0;
	while (sp) {
		s = stack[--sp];
		t->order[n++] = s;
		for (c = t->s; c-- > 1;)
			if (t->parent[c] == s)
				stack[sp++] = c;
	}
}

static ibf_status_t build(ibf_gen_t *g, struct rtree *t)
{
	ibf_node_id_t *sw = malloc(t->s * sizeof(*sw));
	unsigned *next = calloc(t->s, sizeof(*next));
	uint32_t i, s, k;
	ibf_status_t st = IBF_OK;
	ibf_node_id_t id;

	if (!sw || !next) {
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* Hosts first in node order: their switch ids are known once the
	 * hosts are in (switch j gets node id H + j). */
	for (i = 0; i < t->s; i++)
		sw[i] = t->h + i;
	for (s = 0; s < t->s; s++)
		next[s] = 1 + (s > 0);
	for (s = 0; s < t->s; s++)
		for (k = 1; k < t->s; k++)
			if (t->parent[k] == s)
				next[s]++; /* host ports follow children */
	for (i = 0; i < t->s && st == IBF_OK; i++) {
		s = t->order[i];
		for (k = 0; k < t->hosts[s] && st == IBF_OK; k++)
			st = ibf_gen_add_host(g, 1, &id);
	}
	for (s = 0; s < t->s && st == IBF_OK; s++)
		st = ibf_gen_add_switch(g, t->deg[s], &id, "tree-s%u", s);
	/* Host links, in host order. */
	for (i = 0, id = 0; i < t->s && st == IBF_OK; i++) {
		s = t->order[i];
		for (k = 0; k < t->hosts[s] && st == IBF_OK; k++)
			st = ibf_gen_link(g, id++, 1, sw[s], next[s]++);
	}
	/* Switch links: child c on its parent's next child port. */
	for (s = 0; s < t->s; s++)
		next[s] = 1 + (s > 0);
	for (k = 1; k < t->s && st == IBF_OK; k++)
		st = ibf_gen_link(g, sw[k], 1, sw[t->parent[k]],
				  next[t->parent[k]]++);
out:
	free(sw);
	free(next);
	return st;
}

ibf_status_t ibf_gen_tree(ibf_gen_t *g)
{
	const uint64_t *v = g->spec->f[0].v;
	struct rtree t = { 0 };
	uint64_t seed = 0;
	ibf_status_t st;

	st = ibf_gen_check_field(g, 0, "S,H,P", 3, 3, 1, IBF_GEN_MAX_HOSTS);
	if (st != IBF_OK)
		return st;
	if ((st = ibf_gen_seed_field(g, 1, &seed)) != IBF_OK)
		return st;
	t.s = (uint32_t)v[0];
	t.h = (uint32_t)v[1];
	if (v[2] < 2 || v[2] > IBF_MAX_PORTS)
		return ibf_gen_fail(g, IBF_ERR_RANGE, "P = %llu is out of "
				    "range (2..%u)", (unsigned long long)v[2],
				    IBF_MAX_PORTS);
	t.p = (unsigned)v[2];
	if ((st = ibf_gen_check_size(g, t.h, t.h, t.s)) != IBF_OK)
		return st;
	t.parent = malloc(t.s * sizeof(*t.parent));
	t.deg = calloc(t.s, sizeof(*t.deg));
	t.hosts = calloc(t.s, sizeof(*t.hosts));
	t.order = malloc(2 * (size_t)t.s * sizeof(*t.order));
	if (!t.parent || !t.deg || !t.hosts || !t.order)
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
	else if ((st = shape(g, &t, seed)) == IBF_OK) {
		dfs_order(&t);
		st = build(g, &t);
	}
	free(t.parent);
	free(t.deg);
	free(t.hosts);
	free(t.order);
	return st;
}
