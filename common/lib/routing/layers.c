/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Router graph and FatPaths layer construction (see layers.h).
 */
#include <stdlib.h>
#include <string.h>

#include "routing/layers.h"

/* ---- router graph ----------------------------------------------------- */

void ibf_rgraph_free(ibf_rgraph_t *g)
{
	free(g->ea);
	free(g->eb);
	free(g->pa);
	free(g->pb);
	free(g->adj_off);
	free(g->adj_edge);
	free(g->ord);
	memset(g, 0, sizeof(*g));
}

/* The switch-to-switch links, each once (from its lower port id): counted,
 * and stored into g's edge arrays unless g is NULL. */
static uint32_t switch_links(const ibf_fabric_t *f, ibf_rgraph_t *g)
{
	uint32_t i, e = 0;
	unsigned p;

	for (i = 0; i < f->nswitches; i++) {
		ibf_node_id_t sw = f->switches[i];

		for (p = 1; p <= f->nodes[sw].nports; p++) {
			const ibf_port_t *pt = ibf_node_port(f, sw, p);
			const ibf_port_t *q;

			if (pt->peer == IBF_NO_ID ||
			    ibf_node_port_id(f, sw, p) >= pt->peer)
				continue;
			q = &f->ports[pt->peer];
			if (!ibf_node_is_switch(f, q->node) || q->node == sw)
				continue;
			if (g) {
				g->ea[e] = i;
				g->pa[e] = (uint8_t)p;
				g->eb[e] = f->switch_index[q->node];
				g->pb[e] = q->num;
			}
			e++;
		}
	}
	return e;
}

/* An end of a link, for sorting: (NodeGUID, port), then the edge. */
struct end_key {
	uint64_t guid;
	uint32_t port, e;
};

static int cmp_end(const void *x, const void *y)
{
	const struct end_key *a = x, *b = y;

	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
}

/* Edges renumbered by their lower end's (NodeGUID, port), that end made
 * ea; ord = routers by NodeGUID.  Afterwards nothing depends on the
 * fabric's node order.  -1: out of memory. */
static int canonical_order(const ibf_fabric_t *f, ibf_rgraph_t *g)
{
	struct end_key *k = malloc(((size_t)g->nedges + g->n + 1) *
				   sizeof(*k));
	uint32_t *ea = malloc(((size_t)g->nedges + 1) * sizeof(*ea));
	uint8_t *pa = malloc((size_t)g->nedges + 1);
	uint32_t e, i;

	if (!k || !ea || !pa) {
		free(k), free(ea), free(pa);
		return -1;
	}
	for (e = 0; e < g->nedges; e++) {
		uint64_t ga = f->nodes[f->switches[g->ea[e]]].guid;
		uint64_t gb = f->nodes[f->switches[g->eb[e]]].guid;

		if (gb < ga || (gb == ga && g->pb[e] < g->pa[e])) {
			uint32_t t = g->ea[e];
			uint8_t tp = g->pa[e];

			g->ea[e] = g->eb[e];
			g->pa[e] = g->pb[e];
			g->eb[e] = t;
			g->pb[e] = tp;
			ga = gb;
		}
		k[e] = (struct end_key){ ga, g->pa[e], e };
	}
	qsort(k, g->nedges, sizeof(*k), cmp_end);
	memcpy(ea, g->ea, g->nedges * sizeof(*ea));
	memcpy(pa, g->pa, g->nedges);
	for (i = 0; i < g->nedges; i++) {
		g->ea[i] = ea[k[i].e];
		g->pa[i] = pa[k[i].e];
	}
	memcpy(ea, g->eb, g->nedges * sizeof(*ea));
	memcpy(pa, g->pb, g->nedges);
	for (i = 0; i < g->nedges; i++) {
		g->eb[i] = ea[k[i].e];
		g->pb[i] = pa[k[i].e];
	}
	for (i = 0; i < g->n; i++)
		k[i] = (struct end_key){ f->nodes[f->switches[i]].guid, 0, i };
	qsort(k, g->n, sizeof(*k), cmp_end);
	for (i = 0; i < g->n; i++)
		g->ord[i] = k[i].e;
	free(k), free(ea), free(pa);
	return 0;
}

/* Adjacency lists in increasing edge id. */
static void fill_adjacency(ibf_rgraph_t *g)
{
	uint32_t e, u;

	for (e = 0; e < g->nedges; e++) {
		g->adj_off[g->ea[e] + 1]++;
		g->adj_off[g->eb[e] + 1]++;
	}
	for (u = 0; u < g->n; u++)
		g->adj_off[u + 1] += g->adj_off[u];
	/* place with a moving cursor per router, then restore offsets */
	for (e = 0; e < g->nedges; e++) {
		g->adj_edge[g->adj_off[g->ea[e]]++] = e;
		g->adj_edge[g->adj_off[g->eb[e]]++] = e;
	}
	for (u = g->n; u > 0; u--)
		g->adj_off[u] = g->adj_off[u - 1];
	g->adj_off[0] = 0;
}

ibf_status_t ibf_rgraph_build(const ibf_fabric_t *f, ibf_rgraph_t *g,
			      ibf_err_t *err)
{
	memset(g, 0, sizeof(*g));
	g->n = f->nswitches;
	g->nedges = switch_links(f, NULL);
	g->ea = malloc(((size_t)g->nedges + 1) * sizeof(*g->ea));
	g->eb = malloc(((size_t)g->nedges + 1) * sizeof(*g->eb));
	g->pa = malloc((size_t)g->nedges + 1);
	g->pb = malloc((size_t)g->nedges + 1);
	g->adj_off = calloc((size_t)g->n + 1, sizeof(*g->adj_off));
	g->adj_edge = malloc((2 * (size_t)g->nedges + 1) *
			     sizeof(*g->adj_edge));
	g->ord = malloc(((size_t)g->n + 1) * sizeof(*g->ord));
	if (!g->ea || !g->eb || !g->pa || !g->pb || !g->adj_off ||
	    !g->adj_edge || !g->ord) {
		ibf_rgraph_free(g);
		return ibf_err_set(err, IBF_ERR_NOMEM, "router graph: %s",
				   ibf_status_str(IBF_ERR_NOMEM));
	}
	switch_links(f, g);
	if (canonical_order(f, g) < 0) {
		ibf_rgraph_free(g);
		return ibf_err_set(err, IBF_ERR_NOMEM, "router graph: %s",
				   ibf_status_str(IBF_ERR_NOMEM));
	}
	fill_adjacency(g);
	return IBF_OK;
}

void ibf_rgraph_bfs(const ibf_rgraph_t *g, const uint8_t *mask, uint32_t src,
		    uint32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, u, k;

	for (u = 0; u < g->n; u++)
		dist[u] = UINT32_MAX;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		u = queue[head++];
		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
			uint32_t e = g->adj_edge[k], v;

			if (mask && !mask[e])
				continue;
			v = ibf_rgraph_other(g, e, u);
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

static bool rgraph_regular(const ibf_rgraph_t *g)
{
	uint32_t u, deg = g->adj_off[1] - g->adj_off[0];

	for (u = 1; u < g->n; u++)
		if (g->adj_off[u + 1] - g->adj_off[u] != deg)
			return false;
	return true;
}

/* Two routers at the same BFS distance from one router are linked: an
 * odd cycle, so the graph is not bipartite (connected, dist from BFS). */
static bool rgraph_odd_cycle(const ibf_rgraph_t *g, const uint32_t *dist)
{
	uint32_t e;

	for (e = 0; e < g->nedges; e++)
		if (dist[g->ea[e]] == dist[g->eb[e]])
			return true;
	return false;
}

bool ibf_rgraph_slimfly(const ibf_rgraph_t *g, bool hamming, uint32_t *dist,
			uint32_t *queue)
{
	uint32_t u, k;

	if (hamming || g->n < 3 || !rgraph_regular(g))
		return false;
	for (u = 0; u < g->n; u++) {
		ibf_rgraph_bfs(g, NULL, u, dist, queue);
		for (k = 0; k < g->n; k++)
			if (dist[k] > 2) /* UINT32_MAX: not connected */
				return false;
		if (u == 0 && !rgraph_odd_cycle(g, dist))
			return false;
	}
	return true;
}

/* ---- Hamming graphs (HyperX) ------------------------------------------ */

struct hamming {
	const ibf_rgraph_t *g;
	uint64_t *adj;      /* [n * words] adjacency bits */
	size_t words;
	uint32_t *line;     /* [nedges] line (maximal clique) of each edge */
	uint32_t *ldim;     /* [nedges] dimension of each line (by line id) */
	uint32_t *mark;     /* [n] */
	uint32_t *queue;    /* [n] */
};

static bool ham_adj(const struct hamming *h, uint32_t u, uint32_t v)
{
	return h->adj[(size_t)u * h->words + v / 64] >> (v % 64) & 1;
}

/* The line of edge e: its ends and their common neighbours, which must
 * be a clique; every edge inside gets line id id.  0 ok, 1 not a line
 * (an edge already in another one, or the set is no clique). */
static int ham_line(struct hamming *h, uint32_t e, uint32_t id)
{
	const ibf_rgraph_t *g = h->g;
	uint32_t u = g->ea[e], v = g->eb[e], m = 0, i, j, k, w;

	h->queue[m++] = u;
	h->queue[m++] = v;
	h->mark[u] = h->mark[v] = id + 1;
	for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
		w = ibf_rgraph_other(g, g->adj_edge[k], u);
		if (h->mark[w] != id + 1 && ham_adj(h, v, w)) {
			h->mark[w] = id + 1;
			h->queue[m++] = w;
		}
	}
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
			if (!ham_adj(h, h->queue[i], h->queue[j]))
				return 1;
	for (i = 0; i < m; i++) {
		u = h->queue[i];
		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
			uint32_t f = g->adj_edge[k];

			if (h->mark[ibf_rgraph_other(g, f, u)] != id + 1)
				continue;
			if (h->line[f] != UINT32_MAX && h->line[f] != id)
				return 1;
			h->line[f] = id;
		}
	}
	return 0;
}

/* The edge from u to a neighbour w of u that is also a neighbour of x,
 * w != skip; UINT32_MAX if none. */
static uint32_t ham_square(const struct hamming *h, uint32_t u, uint32_t x,
			   uint32_t skip)
{
	const ibf_rgraph_t *g = h->g;
	uint32_t k;

	for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
		uint32_t e = g->adj_edge[k], w = ibf_rgraph_other(g, e, u);

		if (w != skip && w != x && ham_adj(h, w, x))
			return e;
	}
	return UINT32_MAX;
}

/* Dimensions of the lines at v, reached from u (all of whose lines have
 * theirs): the line of u-v has its dimension at u; any other line D at v
 * holds some x, and u, v, x, w form a square with w on u's line of D's
 * dimension.  0 ok, 1 inconsistent. */
static int ham_label(struct hamming *h, uint32_t u, uint32_t v)
{
	const ibf_rgraph_t *g = h->g;
	uint32_t k;

	for (k = g->adj_off[v]; k < g->adj_off[v + 1]; k++) {
		uint32_t e = g->adj_edge[k], x = ibf_rgraph_other(g, e, v);
		uint32_t d, sq;

		if (x == u) {
			continue; /* u's own line: labelled at u */
		} else if (ham_adj(h, u, x)) {
			/* x on the line of u-v */
			continue;
		}
		sq = ham_square(h, u, x, v);
		if (sq == UINT32_MAX)
			return 1;
		d = h->ldim[h->line[sq]];
		if (h->ldim[h->line[e]] == UINT32_MAX)
			h->ldim[h->line[e]] = d;
		else if (h->ldim[h->line[e]] != d)
			return 1;
	}
	return 0;
}

/* Every router on exactly one line of each of the ndims dimensions. */
static int ham_check(struct hamming *h, unsigned ndims, uint8_t *dim)
{
	const ibf_rgraph_t *g = h->g;
	uint32_t u, k, e;

	for (u = 0; u < g->n; u++) {
		uint32_t seen = 0;

		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
			uint32_t d = h->ldim[h->line[g->adj_edge[k]]];
			uint32_t l = h->line[g->adj_edge[k]];
			uint32_t j;

			if (d >= ndims)
				return 1;
			for (j = g->adj_off[u]; j < k; j++)
				if (h->ldim[h->line[g->adj_edge[j]]] == d &&
				    h->line[g->adj_edge[j]] != l)
					return 1;
			seen |= UINT32_C(1) << d;
		}
		if (seen != (UINT32_C(1) << ndims) - 1)
			return 1;
	}
	for (e = 0; e < g->nedges; e++)
		dim[e] = (uint8_t)h->ldim[h->line[e]];
	return 0;
}

/* Lines, then their dimensions from the first router outward. */
static int ham_find(struct hamming *h, uint8_t *dim, unsigned *ndims)
{
	const ibf_rgraph_t *g = h->g;
	uint32_t e, k, nl = 0, head = 0, tail = 0, root = g->ord[0];
	unsigned nd = 0;

	for (e = 0; e < g->nedges; e++) {
		h->adj[(size_t)g->ea[e] * h->words + g->eb[e] / 64] |=
			UINT64_C(1) << (g->eb[e] % 64);
		h->adj[(size_t)g->eb[e] * h->words + g->ea[e] / 64] |=
			UINT64_C(1) << (g->ea[e] % 64);
		h->line[e] = h->ldim[e] = UINT32_MAX;
	}
	for (e = 0; e < g->nedges; e++)
		if (h->line[e] == UINT32_MAX && ham_line(h, e, nl++))
			return 0;
	for (k = g->adj_off[root]; k < g->adj_off[root + 1]; k++) {
		uint32_t l = h->line[g->adj_edge[k]];

		if (h->ldim[l] == UINT32_MAX) {
			if (nd == 32)
				return 0;
			h->ldim[l] = nd++;
		}
	}
	memset(h->mark, 0, g->n * sizeof(*h->mark));
	h->mark[root] = 1;
	h->queue[tail++] = root;
	while (head < tail) {
		uint32_t u = h->queue[head++];

		for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
			uint32_t v = ibf_rgraph_other(g, g->adj_edge[k], u);

			if (h->mark[v])
				continue;
			if (ham_label(h, u, v))
				return 0;
			h->mark[v] = 1;
			h->queue[tail++] = v;
		}
	}
	if (tail != g->n || nd == 0 || ham_check(h, nd, dim))
		return 0;
	*ndims = nd;
	return 1;
}

int ibf_rgraph_hamming(const ibf_rgraph_t *g, uint8_t *dim, unsigned *ndims)
{
	struct hamming h = { .g = g, .words = (g->n + 63) / 64 };
	int rc = -1;

	*ndims = 0;
	if (g->n < 2 || g->n > IBF_HAMMING_MAX_ROUTERS || !g->nedges)
		return 0;
	h.adj = calloc((size_t)g->n * h.words, sizeof(*h.adj));
	h.line = malloc(g->nedges * sizeof(*h.line));
	h.ldim = malloc(g->nedges * sizeof(*h.ldim));
	h.mark = calloc(g->n, sizeof(*h.mark));
	h.queue = malloc(g->n * sizeof(*h.queue));
	if (h.adj && h.line && h.ldim && h.mark && h.queue)
		rc = ham_find(&h, dim, ndims);
	free(h.adj), free(h.line), free(h.ldim), free(h.mark), free(h.queue);
	return rc;
}

/* ---- union-find repair ------------------------------------------------ */

static uint32_t uf_find(uint32_t *par, uint32_t x)
{
	while (par[x] != x) {
		par[x] = par[par[x]];
		x = par[x];
	}
	return x;
}

static int uf_union(uint32_t *par, uint32_t a, uint32_t b)
{
	a = uf_find(par, a);
	b = uf_find(par, b);
	if (a == b)
		return 0;
	par[a < b ? b : a] = a < b ? a : b;
	return 1;
}

static void shuffle(ibf_rng_t *rng, uint32_t *v, uint32_t n)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = (uint32_t)ibf_rng_below(rng, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* A random permutation of the routers, drawn over them in NodeGUID
 * order: rank[u] = position of router u. */
static void random_ranks(const ibf_rgraph_t *g, ibf_rng_t *rng,
			 uint32_t *rank, uint32_t *byrank)
{
	uint32_t r;

	memcpy(byrank, g->ord, g->n * sizeof(*byrank));
	shuffle(rng, byrank, g->n);
	for (r = 0; r < g->n; r++)
		rank[byrank[r]] = r;
}

/* Connect the layer again by adding back edges of the full graph that join
 * two of its components, in random order: the fewest edges that make every
 * pair routable (a layer cannot be more connected than the full graph).
 * scratch: [nedges + n]. */
static uint32_t repair(const ibf_rgraph_t *g, uint8_t *mask, ibf_rng_t *rng,
		       uint32_t *scratch)
{
	uint32_t *par = scratch, *order = scratch + g->n, e, added = 0;

	for (e = 0; e < g->n; e++)
		par[e] = e;
	for (e = 0; e < g->nedges; e++) {
		order[e] = e;
		if (mask[e])
			uf_union(par, g->ea[e], g->eb[e]);
	}
	shuffle(rng, order, g->nedges);
	for (e = 0; e < g->nedges; e++) {
		uint32_t x = order[e];

		if (!mask[x] && uf_union(par, g->ea[x], g->eb[x])) {
			mask[x] = 1;
			added++;
		}
	}
	return added;
}

/* rank := BFS order of the layer from the router first in pi, each
 * router's new neighbours ranked in pi order; routers the layer cannot
 * reach (a disconnected fabric, refused by the engine) come last.
 * scratch: [2n]. */
static void bfs_order(const ibf_rgraph_t *g, const uint8_t *mask,
		      uint32_t *rank, uint32_t *scratch)
{
	uint32_t *pi = scratch, *queue = scratch + g->n;
	uint32_t head = 0, tail = 0, u, k, j, next = 0;

	memcpy(pi, rank, g->n * sizeof(*pi));
	for (u = 0; u < g->n; u++)
		rank[u] = UINT32_MAX;
	for (;;) {
		uint32_t root = UINT32_MAX;

		for (u = 0; u < g->n; u++)
			if (rank[u] == UINT32_MAX &&
			    (root == UINT32_MAX || pi[u] < pi[root]))
				root = u;
		if (root == UINT32_MAX)
			return;
		rank[root] = next++;
		queue[tail++] = root;
		while (head < tail) {
			uint32_t first = tail;

			u = queue[head++];
			for (k = g->adj_off[u]; k < g->adj_off[u + 1]; k++) {
				uint32_t e = g->adj_edge[k];
				uint32_t v = ibf_rgraph_other(g, e, u);

				if (!mask[e] || rank[v] != UINT32_MAX)
					continue;
				rank[v] = 0; /* seen; ranked below */
				/* insertion sort by pi: degrees are small */
				for (j = tail++; j > first &&
				     pi[queue[j - 1]] > pi[v]; j--)
					queue[j] = queue[j - 1];
				queue[j] = v;
			}
			for (j = first; j < tail; j++)
				rank[queue[j]] = next++;
		}
	}
}

static uint32_t components(const ibf_rgraph_t *g, uint32_t *par)
{
	uint32_t e, n = 0;

	for (e = 0; e < g->n; e++)
		par[e] = e;
	for (e = 0; e < g->nedges; e++)
		uf_union(par, g->ea[e], g->eb[e]);
	for (e = 0; e < g->n; e++)
		n += uf_find(par, e) == e;
	return n;
}

/* ---- Listing 1: random uniform edge sampling -------------------------- */

/* Each link is kept with probability rho.  Listing 1 also orients the
 * sampled links along a random vertex permutation pi so that a layer is a
 * DAG ("if needed"): InfiniBand layers must route both ways, so links stay
 * undirected and pi becomes the layer's up/down order (see layers.h). */
static void layer_random(const ibf_rgraph_t *g, double rho, ibf_rng_t *rng,
			 uint8_t *mask, uint32_t *rank, uint32_t *scratch)
{
	uint32_t e;

	/* pi drawn over the routers in NodeGUID order */
	for (e = 0; e < g->n; e++)
		scratch[e] = e;
	shuffle(rng, scratch, g->n);
	for (e = 0; e < g->n; e++)
		rank[g->ord[e]] = scratch[e];
	for (e = 0; e < g->nedges; e++)
		mask[e] = ibf_rng_unit(rng) < rho;
}

/* ---- Listing 2: overlap-minimizing layers ----------------------------- */

#define OV_MAXLEN 16u

struct overlap {
	const ibf_rgraph_t *g;
	uint8_t *dist;        /* [n * n] full-graph hop distances (cap 255) */
	uint32_t *cnt;        /* [n * n] paths placed per unordered pair */
	uint64_t *w;          /* [nedges] edge weights W */
	uint32_t *pi;         /* [n] permutation rank of each router */
	uint8_t *blocked;     /* [nedges] chords excluded in this layer */
	uint8_t *gone;        /* [n * n] pairs dropped from V in this layer */
	uint32_t *pairs;      /* [2 * npairs] candidate pairs */
	/* find_path DP over (length, router) */
	uint64_t *best;       /* [(OV_MAXLEN + 1) * n] */
	uint32_t *pred_e;     /* [(OV_MAXLEN + 1) * n] */
	uint32_t *byrank;     /* [n] router with permutation rank r */
};

static void ov_free(struct overlap *ov)
{
	free(ov->dist);
	free(ov->cnt);
	free(ov->w);
	free(ov->pi);
	free(ov->blocked);
	free(ov->gone);
	free(ov->pairs);
	free(ov->best);
	free(ov->pred_e);
	free(ov->byrank);
}

static int ov_alloc(struct overlap *ov, const ibf_rgraph_t *g)
{
	size_t n = g->n, nn = n * n;

	memset(ov, 0, sizeof(*ov));
	ov->g = g;
	ov->dist = malloc(nn + 1);
	ov->cnt = calloc(nn + 1, sizeof(*ov->cnt));
	ov->w = calloc((size_t)g->nedges + 1, sizeof(*ov->w));
	ov->pi = malloc((n + 1) * sizeof(*ov->pi));
	ov->blocked = malloc((size_t)g->nedges + 1);
	ov->gone = malloc(nn + 1);
	ov->pairs = malloc((nn + 1) * sizeof(*ov->pairs));
	ov->best = malloc((OV_MAXLEN + 1) * (n + 1) * sizeof(*ov->best));
	ov->pred_e = malloc((OV_MAXLEN + 1) * (n + 1) * sizeof(*ov->pred_e));
	ov->byrank = malloc((n + 1) * sizeof(*ov->byrank));
	return ov->dist && ov->cnt && ov->w && ov->pi && ov->blocked &&
	       ov->gone && ov->pairs && ov->best && ov->pred_e && ov->byrank;
}

static void ov_distances(struct overlap *ov, uint32_t *dist, uint32_t *queue)
{
	const ibf_rgraph_t *g = ov->g;
	uint32_t s, t;

	for (s = 0; s < g->n; s++) {
		ibf_rgraph_bfs(g, NULL, s, dist, queue);
		for (t = 0; t < g->n; t++)
			ov->dist[(size_t)s * g->n + t] =
				dist[t] > 255 ? 255 : (uint8_t)dist[t];
	}
}

#define OV_INF UINT64_MAX

/* find_path of Listing 2: a path u -> v, increasing in the permutation rank
 * (so simple, and the layer stays a DAG of placed paths), over edges not
 * blocked, of length d(u,v) + 1 if one exists (paths one hop longer than
 * minimal are preferred, section V-B3), else d(u,v); least total weight W.
 * Fills path[] with edge ids, returns its length or 0. */
static unsigned ov_find_path(struct overlap *ov, uint32_t u, uint32_t v,
			     uint32_t *path)
{
	const ibf_rgraph_t *g = ov->g;
	size_t n = g->n;
	unsigned d = ov->dist[u * n + v], maxl = d + 1, len, l;
	uint32_t r, ru = ov->pi[u], rv = ov->pi[v];

	if (maxl > OV_MAXLEN)
		maxl = OV_MAXLEN;
	for (r = ru; r <= rv; r++)
		for (l = 0; l <= maxl; l++)
			ov->best[l * n + ov->byrank[r]] = OV_INF;
	ov->best[u] = 0;
	for (r = ru; r < rv; r++) {
		uint32_t x = ov->byrank[r], k;

		for (k = g->adj_off[x]; k < g->adj_off[x + 1]; k++) {
			uint32_t e = g->adj_edge[k];
			uint32_t y = ibf_rgraph_other(g, e, x);

			if (ov->blocked[e] || ov->pi[y] <= r || ov->pi[y] > rv)
				continue;
			for (l = 0; l < maxl; l++) {
				uint64_t b = ov->best[l * n + x];

				/* prune: y must still reach v in time */
				if (b == OV_INF ||
				    l + 1 + ov->dist[y * n + v] > maxl)
					continue;
				b += ov->w[e];
				if (b < ov->best[(l + 1) * n + y]) {
					ov->best[(l + 1) * n + y] = b;
					ov->pred_e[(l + 1) * n + y] = e;
				}
			}
		}
	}
	if (ov->best[(size_t)maxl * n + v] != OV_INF)
		len = maxl;
	else if (d < maxl && ov->best[(size_t)d * n + v] != OV_INF)
		len = d;
	else
		return 0;
	for (l = len, r = v; l > 0; l--) {
		uint32_t e = ov->pred_e[l * n + r];

		path[l - 1] = e;
		r = ibf_rgraph_other(g, e, r);
	}
	return len;
}

/* Lines 24-29 and 46-47 of Listing 2 for a found path. */
static uint32_t ov_place(struct overlap *ov, uint32_t u, const uint32_t *path,
			 unsigned len, uint8_t *mask)
{
	const ibf_rgraph_t *g = ov->g;
	size_t n = g->n;
	uint32_t vtx[OV_MAXLEN + 1], added = 0, k;
	unsigned i, j;

	vtx[0] = u;
	for (i = 0; i < len; i++) {
		vtx[i + 1] = ibf_rgraph_other(g, path[i], vtx[i]);
		if (!mask[path[i]]) {
			mask[path[i]] = 1;
			added++;
		}
		/* weight: the paper's i * (len - 1 - i), plus 1 so that the
		 * end links of a path count as used too */
		ov->w[path[i]] += 1 + (uint64_t)i * (len - 1 - i);
	}
	for (i = 0; i <= len; i++) {
		for (j = i + 1; j <= len; j++) {
			uint32_t a = vtx[i], b = vtx[j];

			/* sub-pairs have their path in this layer now */
			ov->gone[a * n + b] = ov->gone[b * n + a] = 1;
			if (j - i < 2)
				continue;
			/* a chord would shortcut the placed path */
			for (k = g->adj_off[a]; k < g->adj_off[a + 1]; k++)
				if (ibf_rgraph_other(g, g->adj_edge[k], a) == b)
					ov->blocked[g->adj_edge[k]] = 1;
		}
	}
	ov->cnt[(size_t)vtx[0] * n + vtx[len]]++;
	ov->cnt[(size_t)vtx[len] * n + vtx[0]]++;
	return added;
}

/* Candidate pairs of Listing 2's queue Q: pi(u) < pi(v), fewest paths
 * placed so far first, ties in random order (shuffle, then a stable
 * counting sort by count). */
static uint32_t ov_queue(struct overlap *ov, ibf_rng_t *rng, uint32_t *tmp)
{
	size_t n = ov->g->n;
	uint32_t u, v, np = 0, i, j, maxc = 0, *bucket;

	/* routers in NodeGUID order: the shuffle sees the same list
	 * whatever the fabric's node order */
	for (i = 0; i < n; i++) {
		u = ov->g->ord[i];
		for (j = 0; j < n; j++) {
			v = ov->g->ord[j];
			if (ov->pi[u] < ov->pi[v] &&
			    ov->dist[u * n + v] != 255) {
				tmp[np++] = u * (uint32_t)n + v;
				if (ov->cnt[u * n + v] > maxc)
					maxc = ov->cnt[u * n + v];
			}
		}
	}
	shuffle(rng, tmp, np);
	bucket = calloc((size_t)maxc + 2, sizeof(*bucket));
	if (!bucket)
		return UINT32_MAX;
	for (i = 0; i < np; i++)
		bucket[ov->cnt[tmp[i]] + 1]++;
	for (i = 1; i <= maxc + 1; i++)
		bucket[i] += bucket[i - 1];
	for (i = 0; i < np; i++)
		ov->pairs[bucket[ov->cnt[tmp[i]]]++] = tmp[i];
	free(bucket);
	return np;
}

/* One layer: place paths for pairs in queue order until the layer holds
 * rho * |E| edges (the paper's constant M bounds the paths per layer; the
 * density bound plays that role and keeps both methods comparable). */
static int layer_overlap(struct overlap *ov, double rho, ibf_rng_t *rng,
			 uint8_t *mask, uint32_t *rank, uint32_t *tmp)
{
	const ibf_rgraph_t *g = ov->g;
	size_t n = g->n;
	uint32_t np, i, nin = 0, path[OV_MAXLEN];
	uint32_t target = (uint32_t)(rho * g->nedges);

	random_ranks(g, rng, ov->pi, ov->byrank);
	memcpy(rank, ov->pi, n * sizeof(*rank));
	memset(ov->blocked, 0, g->nedges);
	memset(ov->gone, 0, n * n);
	memset(mask, 0, g->nedges);
	np = ov_queue(ov, rng, tmp);
	if (np == UINT32_MAX)
		return -1;
	for (i = 0; i < np && nin < target; i++) {
		uint32_t u = ov->pairs[i] / (uint32_t)n;
		uint32_t v = ov->pairs[i] % (uint32_t)n;
		unsigned len;

		if (ov->gone[ov->pairs[i]])
			continue;
		len = ov_find_path(ov, u, v, path);
		if (len)
			nin += ov_place(ov, u, path, len, mask);
	}
	return 0;
}

/* ---- driver ------------------------------------------------------------ */

void ibf_layers_free(ibf_layers_t *l)
{
	free(l->in);
	free(l->nin);
	free(l->repaired);
	free(l->rank);
	memset(l, 0, sizeof(*l));
}

static ibf_status_t nomem(ibf_layers_t *l, ibf_err_t *err)
{
	ibf_layers_free(l);
	return ibf_err_set(err, IBF_ERR_NOMEM, "layers: %s",
			   ibf_status_str(IBF_ERR_NOMEM));
}

static void count_layer(const ibf_rgraph_t *g, ibf_layers_t *l, unsigned i)
{
	const uint8_t *m = ibf_layer_mask(l, i);
	uint32_t e;

	l->nin[i] = 0;
	for (e = 0; e < g->nedges; e++)
		l->nin[i] += m[e];
}

static ibf_status_t build_overlap(const ibf_rgraph_t *g,
				  const ibf_layers_opts_t *o, ibf_layers_t *l,
				  ibf_rng_t *rng, uint32_t *scratch,
				  ibf_err_t *err)
{
	struct overlap ov;
	uint32_t *tmp, *dist;
	unsigned i;

	if (g->n > IBF_LAYERS_OVERLAP_MAX_ROUTERS)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
			"layers: the overlap method is limited to %u "
			"switches (it keeps all-pairs tables), this fabric "
			"has %u; use --method random",
			IBF_LAYERS_OVERLAP_MAX_ROUTERS, g->n);
	tmp = malloc(((size_t)g->n * g->n + 1) * sizeof(*tmp));
	dist = malloc(((size_t)g->n + 1) * sizeof(*dist));
	if (!tmp || !dist || !ov_alloc(&ov, g)) {
		free(tmp);
		free(dist);
		ov_free(&ov);
		return IBF_ERR_NOMEM;
	}
	ov_distances(&ov, dist, scratch);
	for (i = 1; i < o->n; i++) {
		uint8_t *m = l->in + (size_t)i * g->nedges;

		if (layer_overlap(&ov, o->density, rng, m,
				  l->rank + (size_t)i * g->n, tmp)) {
			ov_free(&ov);
			free(tmp);
			free(dist);
			return IBF_ERR_NOMEM;
		}
	}
	ov_free(&ov);
	free(tmp);
	free(dist);
	return IBF_OK;
}

ibf_status_t ibf_layers_build(const ibf_rgraph_t *g,
			      const ibf_layers_opts_t *o, ibf_layers_t *l,
			      ibf_err_t *err)
{
	ibf_rng_t rng = { o->seed };
	uint32_t *scratch;
	ibf_status_t st = IBF_OK;
	unsigned i;

	memset(l, 0, sizeof(*l));
	if (o->n < 1 || !(o->density > 0.0 && o->density <= 1.0))
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "layers: need n >= 1 and 0 < density <= 1 "
				   "(n = %u, density = %g)", o->n, o->density);
	l->n = o->n;
	l->nedges = g->nedges;
	l->in = calloc((size_t)o->n * g->nedges + 1, 1);
	l->nin = calloc(o->n, sizeof(*l->nin));
	l->repaired = calloc(o->n, sizeof(*l->repaired));
	l->rank = malloc(((size_t)o->n * g->n + 1) * sizeof(*l->rank));
	scratch = malloc(((size_t)g->nedges + 2 * g->n + 1) *
			 sizeof(*scratch));
	if (!l->in || !l->nin || !l->repaired || !l->rank || !scratch) {
		free(scratch);
		return nomem(l, err);
	}
	l->ncomponents = components(g, scratch);
	memset(l->in, 1, g->nedges);
	for (i = 0; i < g->n; i++)
		l->rank[g->ord[i]] = i;
	if (o->method == IBF_LAYERS_OVERLAP)
		st = build_overlap(g, o, l, &rng, scratch, err);
	else
		for (i = 1; i < o->n; i++)
			layer_random(g, o->density, &rng,
				     l->in + (size_t)i * g->nedges,
				     l->rank + (size_t)i * g->n, scratch);
	if (st == IBF_OK)
		for (i = 0; i < o->n; i++) {
			l->repaired[i] = repair(g, l->in +
						(size_t)i * g->nedges, &rng,
						scratch);
			count_layer(g, l, i);
		}
	for (i = 1; st == IBF_OK && i < o->n; i++)
		bfs_order(g, ibf_layer_mask(l, i), l->rank + (size_t)i * g->n,
			  scratch);
	free(scratch);
	if (st == IBF_ERR_NOMEM)
		return nomem(l, err);
	if (st != IBF_OK)
		ibf_layers_free(l);
	return st;
}
