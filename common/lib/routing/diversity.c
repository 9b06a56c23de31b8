/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Path diversity of a layered routing (see ibflow/diversity.h).
 *
 * Per pair the work is tiny (n routes of a few links), so everything runs on
 * small local arrays: the union of the routes' links becomes an undirected
 * unit-capacity graph and its s-t edge connectivity is found with BFS
 * augmenting paths (at most n of them, since s has at most n route links).
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/diversity.h>

#include "base/array.h"

struct div_ctx {
	const ibf_lfts_t *l;
	unsigned maxlen;       /* switches: a longer route has looped */
	uint32_t *path;        /* [n * maxlen] egress port ids per route */
	unsigned *len;         /* [n] */
	/* union graph: nodes are fabric node ids, arcs come in pairs */
	uint32_t *node;        /* [n * maxlen + 1] */
	uint32_t *arc_to;      /* [2 * n * maxlen] local node ids */
	uint32_t *arc_from;
	uint32_t *link;        /* [n * maxlen] undirected link keys */
	uint8_t *cap;          /* [2 * n * maxlen] */
	uint32_t *prev;        /* BFS: arc into each node */
	uint32_t *queue;
};

static void ctx_free(struct div_ctx *c)
{
	IBF_FREE_ALL(c->path, c->len, c->node, c->arc_to, c->arc_from, c->link,
		     c->cap, c->prev, c->queue);
}

static int ctx_init(struct div_ctx *c, const ibf_lfts_t *l, unsigned n)
{
	size_t k;

	memset(c, 0, sizeof(*c));
	c->l = l;
	c->maxlen = l->nswitches + 1;
	k = (size_t)n * c->maxlen + 1;
	return !IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c->path, k),
			       IBF_CALLOC_ARRAY(c->len, (size_t)n + 1),
			       IBF_CALLOC_ARRAY(c->node, k),
			       IBF_CALLOC_ARRAY(c->arc_to, 2 * k),
			       IBF_CALLOC_ARRAY(c->arc_from, 2 * k),
			       IBF_CALLOC_ARRAY(c->link, k),
			       IBF_CALLOC_ARRAY(c->cap, 2 * k),
			       IBF_CALLOC_ARRAY(c->prev, k),
			       IBF_CALLOC_ARRAY(c->queue, k));
}

/* Switch-to-switch links of the route from switch index s to dlid; -1 if
 * it does not arrive at a CA owning dlid. */
static int route(struct div_ctx *c, uint32_t s, unsigned dlid, uint32_t *out,
		 unsigned *len)
{
	const ibf_fabric_t *f = c->l->fabric;
	ibf_node_id_t x = f->switches[s];
	unsigned n = 0;

	for (;;) {
		uint8_t p = ibf_lfts_get(c->l, f->switch_index[x], dlid);
		ibf_port_id_t pid, peer;

		if (p == IBF_LFT_NO_PORT || p == 0 || p > f->nodes[x].nports)
			return -1;
		pid = ibf_node_port_id(f, x, p);
		peer = f->ports[pid].peer;
		if (peer == IBF_NO_ID)
			return -1;
		if (!ibf_node_is_switch(f, f->ports[peer].node)) {
			*len = n;
			return ibf_fabric_lid_owner(f, dlid) == peer ? 0 : -1;
		}
		if (n == c->maxlen)
			return -1;
		out[n++] = pid;
		x = f->ports[peer].node;
	}
}

static unsigned count_distinct(const struct div_ctx *c, unsigned n)
{
	unsigned i, j, d = 0;

	for (i = 0; i < n; i++) {
		const uint32_t *pi = c->path + (size_t)i * c->maxlen;

		for (j = 0; j < i; j++)
			if (c->len[j] == c->len[i] &&
			    !memcmp(c->path + (size_t)j * c->maxlen, pi,
				    c->len[i] * sizeof(*pi)))
				break;
		d += j == i;
	}
	return d;
}

static uint32_t local_node(struct div_ctx *c, unsigned *nn, uint32_t id)
{
	unsigned i;

	for (i = 0; i < *nn; i++)
		if (c->node[i] == id)
			return i;
	c->node[(*nn)++] = id;
	return i;
}

/* The union of the route links as pairs of arcs (2k, 2k+1), each link
 * once whatever direction the routes cross it in. */
static unsigned build_union(struct div_ctx *c, unsigned n, unsigned *nn)
{
	const ibf_fabric_t *f = c->l->fabric;
	unsigned i, j, k, na = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < c->len[i]; j++) {
			ibf_port_id_t p = c->path[(size_t)i * c->maxlen + j];
			ibf_port_id_t q = f->ports[p].peer;
			uint32_t key = p < q ? p : q;

			for (k = 0; k < na && c->link[k] != key; k++)
				;
			if (k < na)
				continue;
			c->link[na] = key;
			c->arc_from[2 * na] = local_node(c, nn,
							 f->ports[p].node);
			c->arc_to[2 * na] = local_node(c, nn,
						       f->ports[q].node);
			c->arc_from[2 * na + 1] = c->arc_to[2 * na];
			c->arc_to[2 * na + 1] = c->arc_from[2 * na];
			c->cap[2 * na] = c->cap[2 * na + 1] = 1;
			na++;
		}
	return 2 * na;
}

/* One BFS augmenting path from local node 0 to t; 1 if found. */
static int augment(struct div_ctx *c, unsigned nn, unsigned narcs, uint32_t t)
{
	unsigned head = 0, tail = 0, a, i;

	for (i = 0; i < nn; i++)
		c->prev[i] = UINT32_MAX;
	c->prev[0] = narcs; /* the source: any non-arc mark */
	c->queue[tail++] = 0;
	while (head < tail && c->prev[t] == UINT32_MAX) {
		uint32_t u = c->queue[head++];

		for (a = 0; a < narcs; a++)
			if (c->arc_from[a] == u && c->cap[a] &&
			    c->prev[c->arc_to[a]] == UINT32_MAX) {
				c->prev[c->arc_to[a]] = a;
				c->queue[tail++] = c->arc_to[a];
			}
	}
	if (c->prev[t] == UINT32_MAX)
		return 0;
	for (i = t; i != 0; i = c->arc_from[a]) {
		a = c->prev[i];
		c->cap[a]--;
		c->cap[a ^ 1]++;
	}
	return 1;
}

static unsigned count_cdp(struct div_ctx *c, unsigned n, uint32_t s)
{
	const ibf_fabric_t *f = c->l->fabric;
	unsigned nn = 0, narcs, flow = 0;
	uint32_t t = UINT32_MAX;
	unsigned i;

	local_node(c, &nn, f->switches[s]); /* local 0 = s */
	narcs = build_union(c, n, &nn);
	for (i = 0; i < n; i++)
		if (c->len[i]) {
			ibf_port_id_t last = c->path[(size_t)i * c->maxlen +
						     c->len[i] - 1];

			t = local_node(c, &nn,
				       f->ports[f->ports[last].peer].node);
			break;
		}
	if (t == UINT32_MAX)
		return 0; /* destination on s itself */
	while (augment(c, nn, narcs, t))
		flow++;
	return flow;
}

static int pair(struct div_ctx *c, uint32_t s, const unsigned *dlid,
		unsigned n, unsigned *distinct, unsigned *cdp)
{
	unsigned i;

	*distinct = *cdp = 0;
	for (i = 0; i < n; i++)
		if (route(c, s, dlid[i], c->path + (size_t)i * c->maxlen,
			  &c->len[i]))
			return -1;
	*distinct = count_distinct(c, n);
	*cdp = count_cdp(c, n, s);
	return 0;
}

int ibf_diversity_pair(const ibf_lfts_t *l, uint32_t s, const unsigned *dlid,
		       unsigned n, unsigned *distinct, unsigned *cdp)
{
	struct div_ctx c;
	int rc = -1;

	*distinct = *cdp = 0;
	if (ctx_init(&c, l, n))
		rc = pair(&c, s, dlid, n, distinct, cdp);
	ctx_free(&c);
	return rc;
}

static void account(ibf_diversity_t *d, unsigned distinct, unsigned cdp)
{
	d->pairs++;
	d->distinct_sum += distinct;
	d->cdp_sum += cdp;
	if (distinct < d->distinct_min)
		d->distinct_min = distinct;
	if (cdp < d->cdp_min)
		d->cdp_min = cdp;
	d->pairs_cdp_ge3 += cdp >= 3;
	d->distinct_hist[distinct < IBF_DIVERSITY_HIST ? distinct :
			 IBF_DIVERSITY_HIST - 1]++;
	d->cdp_hist[cdp < IBF_DIVERSITY_HIST ? cdp : IBF_DIVERSITY_HIST - 1]++;
}

ibf_status_t ibf_diversity_compute(const ibf_lfts_t *l, unsigned nlayers,
				   const unsigned *rep, ibf_diversity_t *out,
				   ibf_err_t *err)
{
	struct div_ctx c;
	uint32_t s, t;

	memset(out, 0, sizeof(*out));
	out->nlayers = nlayers;
	out->distinct_min = out->cdp_min = UINT32_MAX;
	if (!nlayers)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "diversity: no layers");
	if (!ctx_init(&c, l, nlayers)) {
		ctx_free(&c);
		return ibf_err_set(err, IBF_ERR_NOMEM, "diversity: %s",
				   ibf_status_str(IBF_ERR_NOMEM));
	}
	for (t = 0; t < l->nswitches; t++) {
		const unsigned *d = rep + (size_t)t * nlayers;

		if (!d[0])
			continue;
		for (s = 0; s < l->nswitches; s++) {
			unsigned di, cd;

			if (s == t)
				continue;
			if (pair(&c, s, d, nlayers, &di, &cd))
				out->broken++;
			else
				account(out, di, cd);
		}
	}
	ctx_free(&c);
	if (!out->pairs)
		out->distinct_min = out->cdp_min = 0;
	return IBF_OK;
}
