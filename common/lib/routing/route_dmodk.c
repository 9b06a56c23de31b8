/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Destination-mod-k (Zahavi) on PGFTs, and the routing core it shares with
 * UAPR (route_uapr.c).  See docs/routing.md for the rules and guarantees.
 *
 * Notation (pgft.h, 1-based levels): a level-l switch going up chooses one
 * of R = w_{l+1} p_{l+1} up links; we number them u = k * w + y (parent
 * digit y, parallel index k), i.e. the parent is u mod w.  With d the
 * destination's index within its plane in topological order and
 * W_l = prod(2 <= i <= l) w_i:
 *
 *   up at level l:            u = floor(d / W_l) mod (w_{l+1} p_{l+1})
 *   down from level l to l-1: k = floor(d / W_l) mod p_l
 *
 * The parent digits chosen on the way up are then the mixed-radix digits of
 * d over (w_2, w_3, ..), so the level-l up link a flow leaves a level-l
 * subtree by is d mod (W_l w_{l+1} p_{l+1}), and the level-(l+1) down link
 * it enters a level-l subtree by is d mod (W_{l+1} p_{l+1}) - the same
 * modulus, which equals the subtree's endpoint count on full-bisection
 * trees.  A shift permutation sends a subtree's endpoints to a cyclic range
 * of consecutive destinations, so no link carries two of its flows.
 *
 * UAPR adds, per LID offset j, mixed-radix digits of j (a_i over w_i p_i,
 * b_i over p_i, lowest level least significant) to u and k at each level.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <ibflow/pgft.h>

#include "base/array.h"
#include "routing/route_internal.h"

enum mode { M_SELF, M_DOWN, M_UP, M_FIXED, M_NONE };

typedef struct pgr {
	const ibf_fabric_t *f;
	const ibf_pgft_t *pg;
	ibf_lfts_t *l;
	const char *name;
	bool multi;
	bool healthy;        /* all switches and switch links present:
				reachability from labels */
	uint64_t unrouted;   /* entries left unrouted (no up*-down* path) */
	unsigned h;
	ibf_node_id_t target;
	unsigned tlevel;
	uint32_t wp[IBF_PGFT_MAX_H + 2]; /* W_l = prod(2 <= i <= l) w_i */

	/* Per node, valid when the stamp equals the epoch (one target). */
	uint32_t epoch;
	uint32_t *dn_st, *ok_st, *du_st;
	uint32_t *bfs_d, *bfs_st, bfs_epoch;  /* any_route_port() */
	uint8_t *dn_group;   /* dn: the down group leading to the target */
	uint8_t *ok_val, *du_val;
	ibf_node_id_t *queue;

	/* Per switch index, for the current target. */
	uint8_t *mode;
	uint8_t *fixed;      /* M_FIXED: the port */

	/* Endpoints by leaf (rank among leaves), in topological order. */
	uint32_t *leaf_first;        /* [nleaves + 1] */
	ibf_port_id_t *leaf_eps;

	/* Per (endpoint of the leaf, offset): slots by level. */
	uint16_t *tab;
} pgr_t;

static inline unsigned level_of(const pgr_t *c, ibf_node_id_t n)
{
	return c->pg->level[n];
}

static inline ibf_node_id_t peer_node(const pgr_t *c, ibf_node_id_t n,
				      unsigned port)
{
	return c->f->ports[c->f->ports[ibf_node_port_id(c->f, n, port)].peer]
		.node;
}

static unsigned plane_of(const pgr_t *c, ibf_node_id_t n)
{
	return c->pg->w[1] > 1 ? ibf_pgft_digit(c->pg, n, 1) : 0;
}

/* ---- per-target reachability ------------------------------------------ */

/* dn = the target and every node above it over present links (all can
 * deliver going down only); dn_group = the down group towards it. */
static void mark_down(pgr_t *c, ibf_node_id_t t)
{
	const ibf_pgft_t *pg = c->pg;
	uint32_t qh = 0, qt = 0;

	c->dn_st[t] = c->epoch;
	c->queue[qt++] = t;
	while (qh < qt) {
		ibf_node_id_t n = c->queue[qh++];
		unsigned l = level_of(c, n), s, ns;

		if (l >= c->h)
			continue;
		ns = pg->w[l + 1] * pg->p[l + 1];
		for (s = 0; s < ns; s++) {
			unsigned port = pg->up_port[pg->up_off[n] + s];
			ibf_node_id_t par;

			if (!port)
				continue;
			par = peer_node(c, n, port);
			if (c->dn_st[par] == c->epoch)
				continue;
			c->dn_st[par] = c->epoch;
			c->dn_group[par] = (uint8_t)ibf_pgft_digit(pg, n, l + 1);
			c->queue[qt++] = par;
		}
	}
}

static inline bool is_dn(const pgr_t *c, ibf_node_id_t n)
{
	return c->dn_st[n] == c->epoch;
}

#define FAR 255u

/* Degraded trees: up links to climb from n before a node that delivers
 * downwards (FAR: none), over the links present.  Memoized per target. */
static unsigned up_dist(pgr_t *c, ibf_node_id_t n)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l, s, ns, best = FAR;

	if (is_dn(c, n))
		return 0;
	if (c->ok_st[n] == c->epoch)
		return c->ok_val[n];
	l = level_of(c, n);
	if (l < c->h) {
		ns = pg->w[l + 1] * pg->p[l + 1];
		for (s = 0; s < ns && best > 1; s++) {
			unsigned port = pg->up_port[pg->up_off[n] + s], d;

			if (!port)
				continue;
			d = up_dist(c, peer_node(c, n, port));
			if (d + 1 < best)
				best = d + 1;
		}
	}
	c->ok_st[n] = c->epoch;
	c->ok_val[n] = (uint8_t)best;
	return best;
}

/* Can n reach the target going up, then down? */
static bool up_ok(pgr_t *c, ibf_node_id_t n)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l, top;

	if (is_dn(c, n))
		return true;
	if (!c->healthy)
		return up_dist(c, n) != FAR;
	/* The replica digits up to both levels never change going up (and
	 * are free above n's level): they must agree.  Any parent that
	 * keeps them then lies on a shortest up*-down* route. */
	top = level_of(c, n) < c->tlevel ? level_of(c, n) : c->tlevel;
	for (l = 1; l <= top; l++)
		if (ibf_pgft_digit(pg, n, l) != ibf_pgft_digit(pg, c->target, l))
			return false;
	return true;
}

/* A down port of switch n leading to a node that can reach the target
 * up*-down* (first in slot order), or 0.  Only switch-originated traffic
 * takes such a down-up route; endpoints always start at an up_ok leaf. */
static unsigned down_up_port(pgr_t *c, ibf_node_id_t n);

static bool down_up_ok(pgr_t *c, ibf_node_id_t n)
{
	if (up_ok(c, n))
		return true;
	if (level_of(c, n) <= 1)
		return false;
	if (c->du_st[n] != c->epoch) {
		c->du_st[n] = c->epoch;
		c->du_val[n] = down_up_port(c, n) != 0;
	}
	return c->du_val[n];
}

static unsigned down_up_port(pgr_t *c, ibf_node_id_t n)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l = level_of(c, n), s, ns = pg->m[l] * pg->p[l];

	for (s = 0; s < ns; s++) {
		unsigned port = pg->down_port[pg->down_off[n] + s];

		if (port && down_up_ok(c, peer_node(c, n, port)))
			return port;
	}
	return 0;
}

/* Any loop-free way out for a LID switch n cannot reach at all (another
 * plane when w_1 > 1): down to a leaf, then to its first endpoint. */
static unsigned nowhere_port(pgr_t *c, ibf_node_id_t n)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l = level_of(c, n), s, ns = pg->m[l] * pg->p[l];

	for (s = 0; s < ns; s++)
		if (pg->down_port[pg->down_off[n] + s])
			return pg->down_port[pg->down_off[n] + s];
	return 0;
}

/* Choose each switch's mode for target t (a leaf for endpoint LIDs, the
 * switch itself for switch LIDs). */
static void set_modes(pgr_t *c, ibf_node_id_t t)
{
	const ibf_fabric_t *f = c->f;
	uint32_t s;

	c->epoch++;
	c->target = t;
	c->tlevel = level_of(c, t);
	mark_down(c, t);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];

		if (n == t) {
			c->mode[s] = M_SELF;
		} else if (is_dn(c, n)) {
			c->mode[s] = M_DOWN;
		} else if (up_ok(c, n)) {
			c->mode[s] = M_UP;
		} else if (down_up_ok(c, n)) {
			c->mode[s] = M_FIXED;
			c->fixed[s] = (uint8_t)down_up_port(c, n);
		} else {
			c->mode[s] = M_NONE;
			c->fixed[s] = (uint8_t)nowhere_port(c, n);
		}
	}
}

/* ---- port choice ------------------------------------------------------ */

/* Up from n: preferred slot (parent digit y = slot / p, parallel index
 * k = slot % p, i.e. link u = k * w + y).  If that link is gone or its
 * parent no longer lies on a shortest up*-down* route, the destinations
 * that wanted it are spread over the usable links by their next digits
 * (spread): a failed link's traffic is shared by its siblings, and every
 * other destination keeps its link. */
static unsigned up_port(pgr_t *c, ibf_node_id_t n, unsigned slot,
			unsigned spread)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l = level_of(c, n), w = pg->w[l + 1], p = pg->p[l + 1];
	unsigned r = w * p, u0 = (slot % p) * w + slot / p, u, i, nu = 0;
	unsigned want = c->healthy ? 0 : up_dist(c, n) - 1;
	uint8_t ok[IBF_MAX_PORTS + 1];

	for (i = 0; i < r; i++) {
		unsigned port;
		ibf_node_id_t par;

		u = u0 + i < r ? u0 + i : u0 + i - r;
		port = pg->up_port[pg->up_off[n] + (u % w) * p + u / w];
		if (!port)
			continue;
		par = peer_node(c, n, port);
		if (c->healthy ? up_ok(c, par) : up_dist(c, par) == want) {
			if (!i)
				return port;
			ok[nu++] = (uint8_t)port;
		}
	}
	return nu ? ok[spread % nu] : 0;
}

/* Down from n (dn) towards the target: parallel link k of its group, or
 * one of the present ones chosen by spread. */
static unsigned down_port(pgr_t *c, ibf_node_id_t n, unsigned k,
			  unsigned spread)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned l = level_of(c, n), p = pg->p[l], i, nu = 0;
	uint32_t base = pg->down_off[n] + c->dn_group[n] * p;
	uint8_t ok[IBF_MAX_PORTS + 1];

	for (i = 0; i < p; i++) {
		unsigned kk = k + i < p ? k + i : k + i - p;
		unsigned port = pg->down_port[base + kk];

		if (port && is_dn(c, peer_node(c, n, port))) {
			if (!i)
				return port;
			ok[nu++] = (uint8_t)port;
		}
	}
	return nu ? ok[spread % nu] : 0;
}

/*
 * Slots for destination index d and LID offset j: tab[l] (l = 1..h-1) the
 * up slot (y * p + k for link u = k * w + y) at level l, tab[h + l]
 * (l = 2..h) the down parallel index at level l; tab[2h + 1 + l] and
 * tab[3h + 1 + l] the spread values used when those links are gone (the
 * digits of d above the ones that chose the link, plus the offset for
 * uapr so that its LIDs keep distinct paths).
 */
#define TW(h) (4 * (h) + 2)

static void slots(const pgr_t *c, uint32_t d, unsigned j, uint16_t *tab)
{
	const ibf_pgft_t *pg = c->pg;
	unsigned i, j0 = c->multi ? j : 0;

	for (i = 2; i <= c->h; i++) {
		unsigned r = pg->w[i] * pg->p[i], p = pg->p[i];
		unsigned a = 0, b = 0;
		uint32_t q = d / c->wp[i - 1], qd = d / c->wp[i];

		if (c->multi) {
			a = j % r;
			j /= r;
			b = j % p;
			j /= p;
		}
		tab[2 * c->h + i] = (uint16_t)((q / r + j0) & 0xffff);
		tab[3 * c->h + 1 + i] = (uint16_t)((qd / p + j0) & 0xffff);
		q = (q + a) % r;
		tab[i - 1] = (uint16_t)((q % pg->w[i]) * p + q / pg->w[i]);
		tab[c->h + i] = (uint16_t)((qd + b) % p);
	}
}

/* ---- filling the tables ----------------------------------------------- */

static ibf_status_t unreachable(pgr_t *c, ibf_node_id_t from,
				ibf_node_id_t to, ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_INVALID, "%s: switch \"%s\" has no "
			   "way to \"%s\" over the links present",
			   c->name, ibf_node_desc(c->f, from),
			   ibf_node_desc(c->f, to));
}

/* Switch s's entries for the endpoints e0..e0+ne-1 of the target leaf.
 * Healthy fabrics take the table slot directly; degraded ones look for
 * usable links.  A switch of the target's plane that has no up*-down*
 * path to it leaves the entries unrouted (counted). */
static void fill_row(pgr_t *c, uint32_t s, uint32_t e0, uint32_t ne,
		     unsigned noff, bool check, bool none)
{
	const ibf_fabric_t *f = c->f;
	const ibf_pgft_t *pg = c->pg;
	const uint32_t tw = TW(c->h);
	ibf_node_id_t n = f->switches[s];
	uint8_t *row = c->l->port + (size_t)s * c->l->stride;
	unsigned lv = level_of(c, n), mode = c->mode[s], i, j;
	const uint8_t *base = NULL;
	unsigned ti = lv, si = 2 * c->h + 1 + lv;

	if (mode == M_UP) {
		base = pg->up_port + pg->up_off[n];
	} else if (mode == M_DOWN) {
		base = pg->down_port + pg->down_off[n] +
		       c->dn_group[n] * pg->p[lv];
		ti = c->h + lv;
		si = 3 * c->h + 1 + lv;
	}
	for (i = 0; i < ne; i++) {
		ibf_port_id_t ep = c->leaf_eps[e0 + i];
		const ibf_port_t *pp = &f->ports[ep];
		unsigned no = 1u << pp->lmc, lid = pp->lid, port;
		const uint16_t *tb = c->tab + (size_t)i * noff * tw;

		if (no > noff)
			no = noff;
		for (j = 0; j < no; j++, tb += tw) {
			if (mode == M_SELF)
				port = f->ports[pp->peer].num;
			else if (none)
				port = IBF_LFT_NO_PORT;
			else if (!base)
				port = c->fixed[s];
			else if (!check)
				port = base[tb[ti]];
			else if (mode == M_UP)
				port = up_port(c, n, tb[ti], tb[si]);
			else
				port = down_port(c, n, tb[ti], tb[si]);
			if (!port)
				port = IBF_LFT_NO_PORT;
			if (port == IBF_LFT_NO_PORT)
				c->unrouted++;
			row[lid + j] = (uint8_t)port;
		}
	}
}

/* Every LID of the endpoints below leaf t. */
static void route_leaf(pgr_t *c, ibf_node_id_t t)
{
	const ibf_fabric_t *f = c->f;
	const uint32_t tw = TW(c->h);
	uint32_t r = c->pg->rank[t], e0 = c->leaf_first[r];
	uint32_t ne = c->leaf_first[r + 1] - e0, i, s;
	unsigned noff = 1u << f->lmc, j;
	bool check = !c->healthy;
	unsigned plane = plane_of(c, t);

	if (!ne)
		return;
	set_modes(c, t);
	for (i = 0; i < ne; i++) {
		ibf_port_id_t ep = c->leaf_eps[e0 + i];

		for (j = 0; j < noff; j++)
			slots(c, c->pg->ep_d[f->endpoint_index[ep]], j,
			      c->tab + (i * noff + j) * tw);
	}
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];

		fill_row(c, s, e0, ne, noff, check,
			 c->mode[s] == M_NONE && plane_of(c, n) == plane);
	}
}

/* Degraded trees only: a switch of the target's plane with no up*-down*
 * route even after going down (a leaf that lost the one uplink towards a
 * switch target).  It takes a shortest route over any links; the switches
 * on it that can route up*-down* do, so the route has at most one
 * down-up turn and cannot loop (BFS distance falls until it meets them).
 * Endpoint LIDs never need this: recognition guarantees up*-down* paths
 * between the endpoints of a plane. */
static unsigned any_route_port(pgr_t *c, ibf_node_id_t t, ibf_node_id_t n,
			       bool *done)
{
	const ibf_fabric_t *f = c->f;
	unsigned p;

	if (!*done) {
		uint32_t qh = 0, qt = 0;

		c->bfs_epoch++;
		c->bfs_st[t] = c->bfs_epoch;
		c->bfs_d[t] = 0;
		c->queue[qt++] = t;
		while (qh < qt) {
			ibf_node_id_t a = c->queue[qh++];

			for (p = 1; p <= f->nodes[a].nports; p++) {
				ibf_port_id_t q = ibf_node_port(f, a, p)->peer;
				ibf_node_id_t b;

				if (q == IBF_NO_ID)
					continue;
				b = f->ports[q].node;
				if (!ibf_node_is_switch(f, b) ||
				    c->bfs_st[b] == c->bfs_epoch)
					continue;
				c->bfs_st[b] = c->bfs_epoch;
				c->bfs_d[b] = c->bfs_d[a] + 1;
				c->queue[qt++] = b;
			}
		}
		*done = true;
	}
	if (c->bfs_st[n] != c->bfs_epoch)
		return 0;
	for (p = 1; p <= f->nodes[n].nports; p++) {
		ibf_port_id_t q = ibf_node_port(f, n, p)->peer;
		ibf_node_id_t b;

		if (q == IBF_NO_ID)
			continue;
		b = f->ports[q].node;
		if (ibf_node_is_switch(f, b) && c->bfs_st[b] == c->bfs_epoch &&
		    c->bfs_d[b] + 1 == c->bfs_d[n])
			return p;
	}
	return 0;
}

/* A switch's LID: up*-down* from every switch that can; switches that
 * cannot (their replica digits differ) go down first. */
static ibf_status_t route_switch(pgr_t *c, ibf_node_id_t t, ibf_err_t *err)
{
	const ibf_fabric_t *f = c->f;
	unsigned lid = f->ports[ibf_node_port_id(f, t, 0)].lid;
	uint32_t rank = c->pg->rank[t], s;
	unsigned plane = plane_of(c, t);
	bool bfs_done = false;

	set_modes(c, t);
	for (s = 0; s < f->nswitches; s++) {
		ibf_node_id_t n = f->switches[s];
		unsigned lv = level_of(c, n), port = 0;

		switch (c->mode[s]) {
		case M_SELF:
			port = 0;
			break;
		case M_DOWN:
			port = down_port(c, n, rank % c->pg->p[lv],
					 rank / c->pg->p[lv]);
			break;
		case M_UP:
			port = up_port(c, n, (rank / c->wp[lv]) %
				       (c->pg->w[lv + 1] * c->pg->p[lv + 1]),
				       rank / c->wp[lv] /
				       (c->pg->w[lv + 1] * c->pg->p[lv + 1]));
			break;
		default:
			port = c->fixed[s];
			if (c->mode[s] == M_NONE && plane_of(c, n) == plane)
				port = any_route_port(c, t, n, &bfs_done);
			break;
		}
		if (!port && c->mode[s] != M_SELF)
			return unreachable(c, n, t, err);
		c->l->port[(size_t)s * c->l->stride + lid] = (uint8_t)port;
	}
	return IBF_OK;
}

/* ---- setup ------------------------------------------------------------ */

/* Endpoints grouped by leaf (complete leaf ranks; absent leaves hold
 * none), in topological order. */
static ibf_status_t index_endpoints(pgr_t *c)
{
	const ibf_pgft_t *pg = c->pg;
	uint32_t nleaves = pg->level_count[1], i;

	c->leaf_first = calloc(nleaves + 2, sizeof(*c->leaf_first));
	c->leaf_eps = malloc(sizeof(*c->leaf_eps) * (pg->nhosts + 1));
	if (!c->leaf_first || !c->leaf_eps)
		return IBF_ERR_NOMEM;
	for (i = 0; i < pg->nhosts; i++) {
		ibf_node_id_t leaf = ibf_pgft_ep_leaf(pg, pg->host_order[i]);

		c->leaf_first[pg->rank[leaf] + 1]++;
	}
	for (i = 0; i < nleaves; i++)
		c->leaf_first[i + 1] += c->leaf_first[i];
	for (i = 0; i < pg->nhosts; i++) {
		ibf_port_id_t ep = pg->host_order[i];
		uint32_t lr = pg->rank[ibf_pgft_ep_leaf(pg, ep)];

		/* leaf_first[lr] counts up while filling; rebuilt below */
		c->leaf_eps[c->leaf_first[lr]++] = ep;
	}
	for (i = nleaves; i > 0; i--)
		c->leaf_first[i] = c->leaf_first[i - 1];
	c->leaf_first[0] = 0;
	return IBF_OK;
}

static ibf_status_t setup(pgr_t *c)
{
	const ibf_pgft_t *pg = c->pg;
	uint32_t nn = c->f->nnodes, ns = c->f->nswitches, maxeps = 0, i;
	unsigned l;

	c->h = pg->h;
	c->wp[0] = c->wp[1] = 1;
	for (l = 2; l <= c->h + 1; l++)
		c->wp[l] = c->wp[l - 1] * (l <= c->h ? pg->w[l] : 1);
	if (IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(c->dn_st, nn),
			   IBF_CALLOC_ARRAY(c->ok_st, nn),
			   IBF_CALLOC_ARRAY(c->du_st, nn),
			   IBF_CALLOC_ARRAY(c->bfs_d, nn),
			   IBF_CALLOC_ARRAY(c->bfs_st, nn),
			   IBF_CALLOC_ARRAY(c->dn_group, nn),
			   IBF_CALLOC_ARRAY(c->ok_val, nn),
			   IBF_CALLOC_ARRAY(c->du_val, nn),
			   IBF_CALLOC_ARRAY(c->queue, nn),
			   IBF_CALLOC_ARRAY(c->mode, ns + 1),
			   IBF_CALLOC_ARRAY(c->fixed, ns + 1)))
		return IBF_ERR_NOMEM;
	if (index_endpoints(c) != IBF_OK)
		return IBF_ERR_NOMEM;
	for (i = 0; i < pg->level_count[1]; i++)
		if (c->leaf_first[i + 1] - c->leaf_first[i] > maxeps)
			maxeps = c->leaf_first[i + 1] - c->leaf_first[i];
	c->tab = malloc(sizeof(*c->tab) * ((size_t)maxeps << c->f->lmc) *
			TW(c->h) + 1);
	return c->tab ? IBF_OK : IBF_ERR_NOMEM;
}

static void teardown(pgr_t *c)
{
	free(c->dn_st);
	free(c->ok_st);
	free(c->du_st);
	free(c->bfs_d);
	free(c->bfs_st);
	free(c->dn_group);
	free(c->ok_val);
	free(c->du_val);
	free(c->queue);
	free(c->mode);
	free(c->fixed);
	free(c->leaf_first);
	free(c->leaf_eps);
	free(c->tab);
}

static ibf_status_t route_all(pgr_t *c, ibf_err_t *err)
{
	const ibf_pgft_t *pg = c->pg;
	const ibf_fabric_t *f = c->f;
	ibf_status_t st = IBF_OK;
	uint32_t i, s;

	for (i = 0; i < pg->level_count[1]; i++) {
		ibf_node_id_t leaf = pg->node_at[pg->level_off[1] + i];

		if (leaf != IBF_NO_ID)
			route_leaf(c, leaf);
	}
	for (s = 0; s < f->nswitches && st == IBF_OK; s++)
		st = route_switch(c, f->switches[s], err);
	for (s = 0; s < f->nswitches; s++)
		c->l->has_table[s] = 1;
	return st;
}

#define REPORT_MISSING_MAX 100

/* Did every digit come from port numbers (labels stable under loss)? */
static bool labels_from_ports(const ibf_pgft_t *pg)
{
	unsigned l;

	for (l = 1; l <= pg->h; l++)
		if ((pg->port_digits[l] & 3) != 3 && (pg->m[l] > 1 ||
						      pg->w[l] > 1))
			return false;
	return true;
}

/* --report: the shape, the links missing (first 100), and for uapr the
 * shortest paths per pair by NCA level with how evenly the LIDs cover
 * them (docs/routing.md). */
static void add_report(const pgr_t *c, ibf_routing_t *r)
{
	const ibf_pgft_t *pg = c->pg;
	char buf[256];
	json_object *o = json_object_new_object(), *a;
	unsigned i, noff = 1u << c->f->lmc;
	uint64_t paths = 1;

	if (!o)
		return;
	json_object_object_add(o, "pgft", json_object_new_string(
		ibf_pgft_format(pg, buf, sizeof(buf))));
	json_object_object_add(o, "missing_links",
			       json_object_new_int((int)pg->missing_links));
	json_object_object_add(o, "missing_hosts", json_object_new_int64(
		(int64_t)(pg->level_count[0] - pg->level_present[0])));
	json_object_object_add(o, "missing_switches", json_object_new_int64(
		(int64_t)(pg->missing_nodes - (pg->level_count[0] -
					       pg->level_present[0]))));
	json_object_object_add(o, "unreachable_pairs", json_object_new_int64(
		(int64_t)pg->unreachable_pairs));
	json_object_object_add(o, "unrouted_entries", json_object_new_int64(
		(int64_t)c->unrouted));
	json_object_object_add(o, "labels_from_ports",
			       json_object_new_boolean(labels_from_ports(pg)));
	json_object_object_add(o, "remembered_shape",
			       json_object_new_boolean(pg->hint_used));
	json_object_object_add(o, "remembered_labels",
			       json_object_new_boolean(pg->memory_used));
	if (pg->memory_why[0])
		json_object_object_add(o, "labels_ignored",
				       json_object_new_string(pg->memory_why));
	a = json_object_new_array();
	for (i = 0; a && i < pg->missing_links && i < REPORT_MISSING_MAX; i++)
		json_object_array_add(a, json_object_new_string(
			ibf_pgft_missing_str(pg, i, buf, sizeof(buf))));
	if (a)
		json_object_object_add(o, "missing", a);
	json_object_object_add(o, "lid_offsets_distinct_paths",
			       json_object_new_boolean(c->multi));
	a = c->multi ? json_object_new_array() : NULL;
	for (i = 2; a && i <= pg->h; i++) {
		json_object *lv = json_object_new_object();

		paths *= (uint64_t)pg->w[i] * pg->p[i] * pg->p[i];
		if (!lv)
			break;
		json_object_object_add(lv, "nca_level", json_object_new_int(
			(int)i));
		json_object_object_add(lv, "shortest_paths",
				       json_object_new_int64((int64_t)paths));
		json_object_object_add(lv, "uses_per_path_min",
				       json_object_new_int64(
				       (int64_t)(noff / paths)));
		json_object_object_add(lv, "uses_per_path_max",
				       json_object_new_int64((int64_t)
				       ((noff + paths - 1) / paths)));
		json_object_array_add(a, lv);
	}
	if (a)
		json_object_object_add(o, "paths", a);
	ibf_route_report_set(r, o);
}

ibf_status_t ibf_route_pgft_run(const ibf_fabric_t *f, bool multipath,
				const ibf_route_opts_t *o, ibf_routing_t *r,
				ibf_err_t *err)
{
	const char *name = multipath ? "uapr" : "dmodk";
	ibf_pgft_opts_t po = { o ? o->pgft_hint : NULL,
			       o ? o->pgft_memory : NULL };
	pgr_t c = { 0 };
	ibf_pgft_t *pg = NULL;
	ibf_status_t st;

	st = ibf_pgft_recognize_opts(f, &po, &pg, err);
	if (st != IBF_OK) {
		ibf_err_prefix(err, "%s: ", name);
		return st;
	}
	c.f = f;
	c.pg = pg;
	c.l = r->lfts;
	c.name = name;
	c.multi = multipath;
	c.healthy = ibf_pgft_switches_whole(pg);
	st = setup(&c);
	if (st != IBF_OK)
		ibf_err_set(err, st, "%s: out of memory", name);
	else
		st = route_all(&c, err);
	if (st == IBF_OK) {
		r->order = malloc(sizeof(*r->order) * (pg->nhosts + 1));
		if (!r->order) {
			st = ibf_err_set(err, IBF_ERR_NOMEM,
					 "%s: out of memory", name);
		} else {
			memcpy(r->order, pg->host_order,
			       sizeof(*r->order) * pg->nhosts);
			r->norder = pg->nhosts;
			r->unrouted = c.unrouted;
			r->pgft_shape = malloc(sizeof(*r->pgft_shape));
			if (r->pgft_shape)
				*r->pgft_shape = pg->shape;
			r->pgft_memory = ibf_pgft_memory_from(pg,
				pg->memory_used ? po.memory : NULL);
			add_report(&c, r);
		}
	}
	teardown(&c);
	ibf_pgft_destroy(pg);
	return st;
}

static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	return ibf_route_pgft_run(f, false, o, r, err);
}

const ibf_route_engine_t ibf_route_engine_dmodk = {
	"dmodk",
	"destination-mod-k on PGFTs (all LIDs of a port routed alike)",
	run,
	IBF_ROUTE_PGFT_LABELS,
};
