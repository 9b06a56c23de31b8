/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Direct-network generators: every router (switch) carries hosts.
 *   slimfly:Q[:P]           MMS graph (Besta & Hoefler, SC'14)
 *   dragonfly:A,P,H         balanced Dragonfly (Kim et al., ISCA'08)
 *   hyperx:L:S:K[:P]        regular HyperX (Ahn et al., SC'09)
 *   jellyfish:NR,K,P[:SEED] random regular graph (Singla et al., NSDI'12)
 *   torus:X,Y,Z[:P]         3D torus
 * Parameters and defaults follow the FatPaths paper (Besta et al., SC'20),
 * Appendix A and Table V; docs/generators.md has the details.
 *
 * Common layout: hosts first in node order, P per router, router-major
 * (host r*P + j hangs off router r, port j + 1), then the routers.  A
 * router's ports 1..P go to its hosts, ports P+1.. to other routers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "gen/gen_internal.h"

/* Size checks shared by the families: nr routers, p hosts each, knet
 * router-to-router ports each. */
static ibf_status_t direct_check(ibf_gen_t *g, uint64_t nr, uint64_t p,
				 uint64_t knet)
{
	ibf_status_t st = ibf_gen_check_ports(g, p + knet, "a router");

	if (st != IBF_OK)
		return st;
	return ibf_gen_check_size(g, ibf_gen_mul(nr, p), ibf_gen_mul(nr, p),
				  nr);
}

static ibf_node_id_t router_id(uint32_t nr, unsigned p, uint32_t r)
{
	return nr * p + r;
}

/* Hosts, P per router; the caller then adds the nr routers. */
static ibf_status_t add_hosts(ibf_gen_t *g, uint32_t nr, unsigned p)
{
	ibf_node_id_t id;
	ibf_status_t st;
	uint64_t i;

	for (i = 0; i < (uint64_t)nr * p; i++)
		if ((st = ibf_gen_add_host(g, 1, &id)) != IBF_OK)
			return st;
	return IBF_OK;
}

static ibf_status_t link_hosts(ibf_gen_t *g, uint32_t nr, unsigned p)
{
	ibf_status_t st;
	uint32_t r;
	unsigned j;

	for (r = 0; r < nr; r++)
		for (j = 0; j < p; j++) {
			st = ibf_gen_link(g, r * p + j, 1,
					  router_id(nr, p, r), j + 1);
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Link a simple k-regular graph given as rows of k neighbours: rows are
 * sorted here, and router u's port P+1+i goes to its i-th neighbour. */
static ibf_status_t link_regular(ibf_gen_t *g, uint32_t nr, unsigned p,
				 unsigned k, uint32_t *adj)
{
	ibf_status_t st;
	uint32_t u, *hit;
	unsigned i;

	for (u = 0; u < nr; u++)
		qsort(adj + (size_t)u * k, k, sizeof(*adj), cmp_u32);
	for (u = 0; u < nr; u++)
		for (i = 0; i < k; i++) {
			uint32_t v = adj[(size_t)u * k + i];

			if (v < u)
				continue;
			hit = bsearch(&u, adj + (size_t)v * k, k, sizeof(*adj),
				      cmp_u32);
			if (!hit || v == u)
				return ibf_err_set(g->err, IBF_ERR_INVALID,
						   "internal: router %u's "
						   "neighbour %u is not "
						   "symmetric", u, v);
			st = ibf_gen_link(g, router_id(nr, p, u), p + 1 + i,
					  router_id(nr, p, v),
					  p + 1 +
					  (unsigned)(hit - adj - (size_t)v * k));
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}

/* Optional hosts-per-router field idx; def when absent. */
static ibf_status_t opt_hosts(ibf_gen_t *g, unsigned idx, unsigned def,
			      unsigned *p)
{
	ibf_status_t st;

	*p = def;
	if (g->spec->nfields <= idx)
		return IBF_OK;
	st = ibf_gen_check_field(g, idx, "P", 1, 1, 1, IBF_MAX_PORTS);
	if (st == IBF_OK)
		*p = (unsigned)g->spec->f[idx].v[0];
	return st;
}

/* ---- Slim Fly (MMS graphs) ------------------------------------------------ */

static bool is_prime(unsigned q)
{
	unsigned d;

	if (q < 2)
		return false;
	for (d = 2; d * d <= q; d++)
		if (q % d == 0)
			return false;
	return true;
}

static unsigned pow_mod(unsigned b, unsigned e, unsigned q)
{
	unsigned long long r = 1, x = b % q;

	for (; e; e >>= 1, x = x * x % q)
		if (e & 1)
			r = r * x % q;
	return (unsigned)r;
}

/* Smallest primitive element of GF(q), q prime. */
static unsigned primitive_root(unsigned q)
{
	unsigned xi, n, d, ok;

	for (xi = 2; xi < q; xi++) {
		ok = 1;
		for (n = q - 1, d = 2; n > 1 && ok; d++) {
			if (n % d)
				continue;
			ok = pow_mod(xi, (q - 1) / d, q) != 1;
			while (n % d == 0)
				n /= d;
		}
		if (ok)
			return xi;
	}
	return 1; /* q = 2 */
}

/*
 * Generator sets X (within subgraph 0 columns) and X' (subgraph 1) for
 * q = 4w + delta, xi primitive (Besta & Hoefler, section 3.1):
 *   delta = 1:  X = even powers of xi, X' = odd powers;
 *   delta = -1: X  = {xi^0, xi^2, .., xi^(2w-2)} u {xi^(2w-1), .., xi^(4w-3)},
 *               X' = {xi^1, xi^3, .., xi^(2w-1)} u {xi^(2w), .., xi^(4w-2)}.
 * Both are closed under negation, so the graph is undirected.
 */
static void mms_sets(unsigned q, int delta, uint8_t *x, uint8_t *xp)
{
	unsigned xi = primitive_root(q), w, e;

	memset(x, 0, q);
	memset(xp, 0, q);
	if (delta == 1) {
		for (e = 0; e < q - 1; e++)
			(e % 2 ? xp : x)[pow_mod(xi, e, q)] = 1;
		return;
	}
	w = (q + 1) / 4;
	for (e = 0; e <= 2 * w - 2; e += 2)
		x[pow_mod(xi, e, q)] = 1;
	for (e = 2 * w - 1; e <= 4 * w - 3; e += 2)
		x[pow_mod(xi, e, q)] = 1;
	for (e = 1; e <= 2 * w - 1; e += 2)
		xp[pow_mod(xi, e, q)] = 1;
	for (e = 2 * w; e <= 4 * w - 2; e += 2)
		xp[pow_mod(xi, e, q)] = 1;
}

/*
 * Routers (s, a, b), s in {0, 1}, a, b in GF(q), numbered s*q^2 + a*q + b:
 *   (0,x,y) ~ (0,x,y')  iff y - y' in X
 *   (1,m,c) ~ (1,m,c')  iff c - c' in X'
 *   (0,x,y) ~ (1,m,c)   iff y = m*x + c  (mod q)
 */
static void mms_adjacency(unsigned q, const uint8_t *x, const uint8_t *xp,
			  unsigned k, uint32_t *adj)
{
	unsigned s, a, b, o, n;
	uint32_t u;

	for (s = 0; s < 2; s++)
		for (a = 0; a < q; a++)
			for (b = 0; b < q; b++) {
				u = s * q * q + a * q + b;
				n = 0;
				for (o = 0; o < q; o++)
					if ((s ? xp : x)[(b + q - o) % q])
						adj[u * k + n++] =
							s * q * q + a * q + o;
				/* cross: (0,x,y) to (1,m,y-m*x);
				 *        (1,m,c) to (0,x,m*x+c) */
				for (o = 0; o < q; o++)
					adj[u * k + n++] = s == 0 ?
						q * q + o * q +
						(b + q * q - o * a % q) % q :
						o * q + (a * o + b) % q;
			}
}

ibf_status_t ibf_gen_slimfly(ibf_gen_t *g)
{
	uint8_t *x = NULL, *xp = NULL;
	uint32_t *adj = NULL, nr, r;
	unsigned q, k, p;
	ibf_status_t st;
	ibf_node_id_t id;
	int delta;

	st = ibf_gen_check_field(g, 0, "Q", 1, 1, 3, 1000);
	if (st != IBF_OK)
		return st;
	q = (unsigned)g->spec->f[0].v[0];
	if (!is_prime(q))
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "Q = %u is not an odd prime (prime powers "
				    "are not implemented)", q);
	delta = q % 4 == 1 ? 1 : -1;
	k = (3 * q - (unsigned)delta) / 2;
	if ((st = opt_hosts(g, 1, (k + 1) / 2, &p)) != IBF_OK ||
	    (st = direct_check(g, 2ULL * q * q, p, k)) != IBF_OK)
		return st;
	nr = 2 * q * q;
	x = malloc(q);
	xp = malloc(q);
	adj = malloc((size_t)nr * k * sizeof(*adj));
	if (!x || !xp || !adj) {
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	mms_sets(q, delta, x, xp);
	mms_adjacency(q, x, xp, k, adj);
	if ((st = add_hosts(g, nr, p)) != IBF_OK)
		goto out;
	for (r = 0; r < nr; r++) {
		st = ibf_gen_add_switch(g, p + k, &id, "sf-%u-%u-%u",
					r / (q * q), r / q % q, r % q);
		if (st != IBF_OK)
			goto out;
	}
	if ((st = link_hosts(g, nr, p)) == IBF_OK)
		st = link_regular(g, nr, p, k, adj);
out:
	free(x);
	free(xp);
	free(adj);
	return st;
}

/* ---- Dragonfly ---------------------------------------------------------- */

/*
 * g = a*h + 1 groups of a routers, numbered group*a + r.  Router ports:
 * 1..p hosts, then a-1 local ports (to the other routers of the group in
 * increasing order), then h global ports.  Global channels of a group are
 * numbered c = r*h + t (router r, its global port t); channel c of group i
 * goes to group c < i ? c : c + 1 ("absolute"/consecutive arrangement), so
 * groups i < j are joined by channel j-1 of i and channel i of j.
 */
ibf_status_t ibf_gen_dragonfly(ibf_gen_t *g)
{
	const uint64_t *v = g->spec->f[0].v;
	unsigned a, p, h, ng, gi, gj, r, s, ci, cj;
	uint32_t nr;
	ibf_node_id_t id;
	ibf_status_t st;

	st = ibf_gen_check_field(g, 0, "A,P,H", 3, 3, 1, IBF_MAX_PORTS);
	if (st != IBF_OK)
		return st;
	a = (unsigned)v[0];
	p = (unsigned)v[1];
	h = (unsigned)v[2];
	ng = a * h + 1;
	st = direct_check(g, (uint64_t)a * ng, p, a - 1 + h);
	if (st != IBF_OK)
		return st;
	nr = a * ng;
	if ((st = add_hosts(g, nr, p)) != IBF_OK)
		return st;
	for (gi = 0; gi < ng; gi++)
		for (r = 0; r < a; r++)
			if ((st = ibf_gen_add_switch(g, p + a - 1 + h, &id,
						     "df-g%u-r%u", gi, r)) !=
			    IBF_OK)
				return st;
	if ((st = link_hosts(g, nr, p)) != IBF_OK)
		return st;
	for (gi = 0; gi < ng; gi++)
		for (r = 0; r < a; r++)
			for (s = r + 1; s < a; s++)
				if ((st = ibf_gen_link(g,
					router_id(nr, p, gi * a + r), p + s,
					router_id(nr, p, gi * a + s),
					p + r + 1)) != IBF_OK)
					return st;
	for (gi = 0; gi < ng; gi++)
		for (gj = gi + 1; gj < ng; gj++) {
			ci = gj - 1;
			cj = gi;
			st = ibf_gen_link(g,
					  router_id(nr, p, gi * a + ci / h),
					  p + a + ci % h,
					  router_id(nr, p, gj * a + cj / h),
					  p + a + cj % h);
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}

/* ---- HyperX ------------------------------------------------------------ */

typedef struct hx {
	unsigned l, s, k, p;
	uint32_t nr;
} hx_t;

/* Router port for the k-th link to coordinate v of dimension d when our
 * own coordinate there is c. */
static unsigned hx_port(const hx_t *x, unsigned d, unsigned c, unsigned v,
			unsigned k)
{
	return x->p + 1 + d * (x->s - 1) * x->k + (v < c ? v : v - 1) * x->k +
	       k;
}

static ibf_status_t hx_links(ibf_gen_t *g, const hx_t *x)
{
	unsigned d, c, v, k;
	uint32_t u, stride, w;
	ibf_status_t st;

	for (u = 0; u < x->nr; u++) {
		stride = x->nr;
		for (d = 0; d < x->l; d++) {
			stride /= x->s; /* coordinate 0 is most significant */
			c = u / stride % x->s;
			for (v = c + 1; v < x->s; v++) {
				w = u + (v - c) * stride;
				for (k = 0; k < x->k; k++) {
					st = ibf_gen_link(g,
						router_id(x->nr, x->p, u),
						hx_port(x, d, c, v, k),
						router_id(x->nr, x->p, w),
						hx_port(x, d, v, c, k));
					if (st != IBF_OK)
						return st;
				}
			}
		}
	}
	return IBF_OK;
}

ibf_status_t ibf_gen_hyperx(ibf_gen_t *g)
{
	char desc[64];
	uint64_t nr = 1;
	unsigned kn, d, i, n;
	uint32_t u, stride;
	ibf_node_id_t id;
	ibf_status_t st;
	hx_t x;

	if ((st = ibf_gen_check_field(g, 0, "L", 1, 1, 1, 16)) != IBF_OK ||
	    (st = ibf_gen_check_field(g, 1, "S", 1, 1, 2, IBF_MAX_PORTS)) !=
	    IBF_OK ||
	    (st = ibf_gen_check_field(g, 2, "K", 1, 1, 1, IBF_MAX_PORTS)) !=
	    IBF_OK)
		return st;
	x.l = (unsigned)g->spec->f[0].v[0];
	x.s = (unsigned)g->spec->f[1].v[0];
	x.k = (unsigned)g->spec->f[2].v[0];
	kn = x.l * (x.s - 1) * x.k; /* at most 16*253*254 */
	/* FatPaths: p = k'/D with D = L, i.e. (S-1)*K */
	if ((st = opt_hosts(g, 3, (x.s - 1) * x.k, &x.p)) != IBF_OK)
		return st;
	for (d = 0; d < x.l; d++)
		nr = ibf_gen_mul(nr, x.s);
	if ((st = direct_check(g, nr, x.p, kn)) != IBF_OK)
		return st;
	x.nr = (uint32_t)nr;
	if ((st = add_hosts(g, x.nr, x.p)) != IBF_OK)
		return st;
	for (u = 0; u < x.nr; u++) {
		n = (unsigned)snprintf(desc, sizeof(desc), "hx");
		for (stride = x.nr, i = 0; i < x.l; i++) {
			stride /= x.s;
			n += (unsigned)snprintf(desc + n, sizeof(desc) - n,
						"-%u", u / stride % x.s);
		}
		st = ibf_gen_add_switch(g, x.p + kn, &id, "%s", desc);
		if (st != IBF_OK)
			return st;
	}
	if ((st = link_hosts(g, x.nr, x.p)) != IBF_OK)
		return st;
	return hx_links(g, &x);
}

/* ---- Jellyfish -------------------------------------------------------- */

#define JF_TRIES 16           /* graphs tried before giving up */
#define JF_PICKS 64           /* random picks before an exhaustive scan */

typedef struct jf {
	uint32_t nr, k;
	uint32_t *adj;    /* nr rows of k; row u valid for [0, deg[u]) */
	uint32_t *deg;
	uint32_t *open;   /* routers with free ports */
	uint32_t *where;  /* position in open[], or UINT32_MAX */
	uint32_t nopen;
	uint32_t *edges;  /* pairs */
	uint64_t nedges;
	ibf_rng_t rng;
} jf_t;

static bool jf_adjacent(const jf_t *j, uint32_t u, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < j->deg[u]; i++)
		if (j->adj[(size_t)u * j->k + i] == v)
			return true;
	return false;
}

static void jf_open_update(jf_t *j, uint32_t u)
{
	bool want = j->deg[u] < j->k;

	if (want && j->where[u] == UINT32_MAX) {
		j->where[u] = j->nopen;
		j->open[j->nopen++] = u;
	} else if (!want && j->where[u] != UINT32_MAX) {
		uint32_t last = j->open[--j->nopen];

		j->open[j->where[u]] = last;
		j->where[last] = j->where[u];
		j->where[u] = UINT32_MAX;
	}
}

static void jf_connect(jf_t *j, uint32_t u, uint32_t v)
{
	j->adj[(size_t)u * j->k + j->deg[u]++] = v;
	j->adj[(size_t)v * j->k + j->deg[v]++] = u;
	j->edges[2 * j->nedges] = u;
	j->edges[2 * j->nedges + 1] = v;
	j->nedges++;
	jf_open_update(j, u);
	jf_open_update(j, v);
}

static void jf_unrow(jf_t *j, uint32_t u, uint32_t v)
{
	uint32_t *row = j->adj + (size_t)u * j->k, i;

	for (i = 0; i < j->deg[u]; i++)
		if (row[i] == v) {
			row[i] = row[--j->deg[u]];
			break;
		}
	jf_open_update(j, u);
}

static void jf_remove_edge(jf_t *j, uint64_t e)
{
	uint32_t u = j->edges[2 * e], v = j->edges[2 * e + 1];

	j->nedges--;
	j->edges[2 * e] = j->edges[2 * j->nedges];
	j->edges[2 * e + 1] = j->edges[2 * j->nedges + 1];
	jf_unrow(j, u, v);
	jf_unrow(j, v, u);
}

/* Connect every non-adjacent pair of open routers still having ports. */
static bool jf_scan(jf_t *j)
{
	bool any = false;
	uint32_t a, b;

	for (a = 0; a < j->nopen; a++)
		for (b = a + 1; b < j->nopen; b++) {
			uint32_t u = j->open[a], v = j->open[b];

			if (!jf_adjacent(j, u, v)) {
				jf_connect(j, u, v);
				any = true;
				/* open[] changed under us: restart */
				a = 0;
				b = 0;
				if (j->nopen < 2)
					return any;
			}
		}
	return any;
}

/* Singla et al.'s construction: join random pairs of routers with free
 * ports while possible. */
static void jf_random_phase(jf_t *j)
{
	unsigned fails = 0;

	while (j->nopen >= 2) {
		uint32_t u = j->open[ibf_rng_below(&j->rng, j->nopen)];
		uint32_t v = j->open[ibf_rng_below(&j->rng, j->nopen)];

		if (u != v && !jf_adjacent(j, u, v)) {
			jf_connect(j, u, v);
			fails = 0;
		} else if (++fails >= JF_PICKS) {
			if (!jf_scan(j))
				return;
			fails = 0;
		}
	}
}

/* Then free the remaining ports by edge swaps: a router u with two free
 * ports takes over a random link (x, y) as (u, x), (u, y); two routers
 * u, v with one free port each (and already adjacent) as (u, x), (v, y). */
static bool jf_fix_phase(jf_t *j)
{
	uint64_t budget = 1000 + 100ULL * j->nr * j->k;

	while (j->nopen > 0 && budget--) {
		uint32_t u = j->open[0], v = u, x, y, i;
		uint64_t e;

		for (i = 0; i < j->nopen; i++)
			if (j->k - j->deg[j->open[i]] >= 2)
				break;
		if (i < j->nopen) {
			u = v = j->open[i];
		} else if (j->nopen >= 2) {
			v = j->open[1];
		} else {
			return false; /* odd number of free ports */
		}
		if (!j->nedges)
			return false;
		e = ibf_rng_below(&j->rng, j->nedges);
		x = j->edges[2 * e];
		y = j->edges[2 * e + 1];
		if (ibf_rng_below(&j->rng, 2)) {
			x = j->edges[2 * e + 1];
			y = j->edges[2 * e];
		}
		if (x == u || x == v || y == u || y == v ||
		    jf_adjacent(j, u, x) || jf_adjacent(j, v, y))
			continue;
		jf_remove_edge(j, e);
		jf_connect(j, u, x);
		jf_connect(j, v, y);
	}
	return j->nopen == 0;
}

static bool jf_connected(const jf_t *j, uint32_t *queue, uint8_t *seen)
{
	uint32_t head = 0, tail = 0, i, u;

	memset(seen, 0, j->nr);
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		u = queue[head++];
		for (i = 0; i < j->deg[u]; i++) {
			uint32_t v = j->adj[(size_t)u * j->k + i];

			if (!seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	return tail == j->nr;
}

/* Pick a random link with (want = 1) or without (0) both ends seen. */
static bool jf_pick(jf_t *j, const uint8_t *seen, uint8_t want, uint64_t *e)
{
	unsigned t;

	for (t = 0; t < 1000; t++) {
		*e = ibf_rng_below(&j->rng, j->nedges);
		if (seen[j->edges[2 * *e]] == want)
			return true;
	}
	return false;
}

/* Join the component of router 0 with another one: swap a link (a, b) of
 * the first and a link (c, d) of the other for (a, c), (b, d).  The result
 * is connected unless both links were bridges (never with K = 2, where
 * components are cycles); bounded, the caller retries with a new seed. */
static bool jf_join(jf_t *j, uint32_t *queue, uint8_t *seen)
{
	unsigned rounds;

	for (rounds = 0; rounds < 256; rounds++) {
		uint64_t e1, e2;
		uint32_t a, b, c, d;

		if (jf_connected(j, queue, seen))
			return true;
		if (!jf_pick(j, seen, 1, &e1) || !jf_pick(j, seen, 0, &e2))
			return false;
		a = j->edges[2 * e1];
		b = j->edges[2 * e1 + 1];
		c = j->edges[2 * e2];
		d = j->edges[2 * e2 + 1];
		/* remove the later index first: swap-with-last removal */
		jf_remove_edge(j, e1 > e2 ? e1 : e2);
		jf_remove_edge(j, e1 > e2 ? e2 : e1);
		jf_connect(j, a, c);
		jf_connect(j, b, d);
	}
	return false;
}

static bool jf_try(jf_t *j, uint64_t seed, uint32_t *queue, uint8_t *seen)
{
	uint32_t u;

	j->rng.s = seed;
	j->nopen = 0;
	j->nedges = 0;
	for (u = 0; u < j->nr; u++) {
		j->deg[u] = 0;
		j->where[u] = UINT32_MAX;
		jf_open_update(j, u);
	}
	jf_random_phase(j);
	return jf_fix_phase(j) && jf_join(j, queue, seen);
}

static ibf_status_t jf_build(ibf_gen_t *g, jf_t *j, unsigned p,
			     uint64_t seed)
{
	uint32_t *queue = malloc(j->nr * sizeof(*queue)), r;
	uint8_t *seen = malloc(j->nr);
	ibf_rng_t derive = { seed };
	ibf_status_t st = IBF_OK;
	ibf_node_id_t id;
	unsigned t;

	if (!queue || !seen) {
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* Try the seed itself first, then seeds derived from it. */
	for (t = 0; t < JF_TRIES; t++)
		if (jf_try(j, t ? ibf_rng_next(&derive) : seed, queue,
			   seen))
			break;
	if (t == JF_TRIES) {
		st = ibf_gen_fail(g, IBF_ERR_INVALID,
				  "no connected %u-regular graph on %u "
				  "routers found in %u tries from SEED %llu",
				  j->k, j->nr, JF_TRIES,
				  (unsigned long long)seed);
		goto out;
	}
	if ((st = add_hosts(g, j->nr, p)) != IBF_OK)
		goto out;
	for (r = 0; r < j->nr; r++)
		if ((st = ibf_gen_add_switch(g, p + j->k, &id, "jf-r%u", r)) !=
		    IBF_OK)
			goto out;
	if ((st = link_hosts(g, j->nr, p)) == IBF_OK)
		st = link_regular(g, j->nr, p, j->k, j->adj);
out:
	free(queue);
	free(seen);
	return st;
}

ibf_status_t ibf_gen_jellyfish(ibf_gen_t *g)
{
	const uint64_t *v = g->spec->f[0].v;
	jf_t j = { 0 };
	uint64_t seed = 0;
	ibf_status_t st;
	unsigned p;

	st = ibf_gen_check_field(g, 0, "NR,K,P", 3, 3, 1, IBF_LID_UCAST_MAX);
	if (st != IBF_OK)
		return st;
	if ((st = ibf_gen_seed_field(g, 1, &seed)) != IBF_OK)
		return st;
	j.nr = (uint32_t)v[0];
	j.k = (uint32_t)v[1];
	p = (unsigned)v[2];
	if (j.k >= j.nr)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "K = %u needs NR > K routers, NR = %u",
				    j.k, j.nr);
	if ((uint64_t)j.nr * j.k % 2)
		return ibf_gen_fail(g, IBF_ERR_RANGE,
				    "NR*K = %u*%u is odd: no K-regular graph",
				    j.nr, j.k);
	if ((st = direct_check(g, j.nr, p, j.k)) != IBF_OK)
		return st;
	j.adj = malloc((size_t)j.nr * j.k * sizeof(*j.adj));
	j.deg = malloc(j.nr * sizeof(*j.deg));
	j.open = malloc(j.nr * sizeof(*j.open));
	j.where = malloc(j.nr * sizeof(*j.where));
	j.edges = malloc((size_t)j.nr * j.k * sizeof(*j.edges));
	if (!j.adj || !j.deg || !j.open || !j.where || !j.edges)
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
	else
		st = jf_build(g, &j, p, seed);
	free(j.adj);
	free(j.deg);
	free(j.open);
	free(j.where);
	free(j.edges);
	return st;
}

/* ---- 3D torus ----------------------------------------------------------- */

/*
 * Switches (x, y, z) numbered (x*Y + y)*Z + z.  Per dimension of size
 * n >= 3 two ports (+1 then -1 neighbour), of size 2 one port (the ring of
 * two is a single link), of size 1 none; dimensions in x, y, z order after
 * the P host ports.
 */
static unsigned torus_dim_ports(unsigned n)
{
	return n >= 3 ? 2 : n == 2 ? 1 : 0;
}

static ibf_status_t torus_links(ibf_gen_t *g, const unsigned *dim,
				unsigned p, uint32_t nr)
{
	unsigned c[3], d, base;
	uint32_t u, v, stride[3] = { dim[1] * dim[2], dim[2], 1 };
	ibf_status_t st;

	for (u = 0; u < nr; u++) {
		for (d = 0; d < 3; d++)
			c[d] = u / stride[d] % dim[d];
		base = p + 1;
		for (d = 0; d < 3; d++) {
			if (dim[d] >= 2 && (dim[d] >= 3 || c[d] == 0)) {
				v = u - c[d] * stride[d] +
				    (c[d] + 1) % dim[d] * stride[d];
				/* our + port to its - port (size 2: the one
				 * port each) */
				st = ibf_gen_link(g, router_id(nr, p, u), base,
						  router_id(nr, p, v),
						  base + (dim[d] >= 3));
				if (st != IBF_OK)
					return st;
			}
			base += torus_dim_ports(dim[d]);
		}
	}
	return IBF_OK;
}

ibf_status_t ibf_gen_torus(ibf_gen_t *g)
{
	unsigned dim[3], p, kn = 0, d;
	uint64_t nr;
	uint32_t u;
	ibf_node_id_t id;
	ibf_status_t st;

	st = ibf_gen_check_field(g, 0, "X,Y,Z", 3, 3, 1, IBF_LID_UCAST_MAX);
	if (st != IBF_OK || (st = opt_hosts(g, 1, 1, &p)) != IBF_OK)
		return st;
	for (d = 0; d < 3; d++) {
		dim[d] = (unsigned)g->spec->f[0].v[d];
		kn += torus_dim_ports(dim[d]);
	}
	nr = ibf_gen_mul(ibf_gen_mul(dim[0], dim[1]), dim[2]);
	if ((st = direct_check(g, nr, p, kn)) != IBF_OK)
		return st;
	if ((st = add_hosts(g, (uint32_t)nr, p)) != IBF_OK)
		return st;
	for (u = 0; u < nr; u++) {
		st = ibf_gen_add_switch(g, p + kn, &id, "t-%u-%u-%u",
					u / (dim[1] * dim[2]),
					u / dim[2] % dim[1], u % dim[2]);
		if (st != IBF_OK)
			return st;
	}
	if ((st = link_hosts(g, (uint32_t)nr, p)) != IBF_OK)
		return st;
	return torus_links(g, dim, p, (uint32_t)nr);
}

/* ---- Swiss-T1 -------------------------------------------------------------
 *
 * The testbed of E. Gabrielyan, "Liquid Schedule Construction Algorithm:
 * an Efficient Method for Coloring a Congestion Graph" (2006), section 8.1,
 * Figures 14-15: 8 TNET switches, 32 nodes of 2 processors, each
 * processor with its own link, one transmitting and one receiving.  The
 * K-ring's links, as the routing table of Figure 15 marks them direct:
 * every odd switch (paper numbering 1..8) to every even one, K(4,4).
 * Host 8r + 2q is the transmitting and 8r + 2q + 1 the receiving processor
 * of node 4r + q on switch r + 1 ("t1-sw<r+1>"). */
ibf_status_t ibf_gen_swisst1(ibf_gen_t *g)
{
	const unsigned nr = 8, p = 8;
	ibf_node_id_t id;
	ibf_status_t st;

	if ((st = direct_check(g, nr, p, 4)) != IBF_OK ||
	    (st = add_hosts(g, nr, p)) != IBF_OK)
		return st;
	for (unsigned r = 0; r < nr; r++)
		if ((st = ibf_gen_add_switch(g, p + 4, &id, "t1-sw%u",
					     r + 1)) != IBF_OK)
			return st;
	if ((st = link_hosts(g, nr, p)) != IBF_OK)
		return st;
	/* Switch r's neighbours in increasing order on ports p+1..p+4: odd
	 * r (0-based, paper's even) meets 0,2,4,6 and even r meets 1,3,5,7;
	 * the neighbour's port for r is p+1+r/2. */
	for (unsigned r = 0; r < nr; r += 2)
		for (unsigned k = 0; k < 4; k++) {
			unsigned s = 2 * k + 1;

			st = ibf_gen_link(g, router_id(nr, p, r), p + 1 + k,
					  router_id(nr, p, s), p + 1 + r / 2);
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}
