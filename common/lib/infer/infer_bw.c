/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Bandwidth maps from an inferred tree (HPDC'07, section 6.1): which
 * pairs to measure, stage by stage, so that concurrent measurements
 * share no link; the edges each measurement stands for; the bandwidth of
 * any pair predicted as the least edge bandwidth on its path.  Plus a
 * synthetic bandwidth oracle over a true fabric (fair shares of links).
 *
 * Why a stage is free of conflicts: the measurements of stage i run
 * between hosts under different children of switches at one depth; two
 * switches at one depth have disjoint subtrees, and under one switch
 * each child's subtree is used by one pair.  The odd child left over at
 * a switch is paired with a sibling already used, so it waits for an
 * extra round of its own (all switches' leftovers together).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "infer/infer_internal.h"
#include "base/array.h"

#define NONE IBF_INFER_NONE

/* The tree rooted at a centre switch. */
struct rooted {
	uint32_t nn, n, root, height;
	uint32_t *off, *nb, *eid;   /* adjacency (CSR) with edge ids */
	uint32_t *parent, *pedge, *depth;
	uint32_t *order;            /* nodes by BFS from the root */
};

static void rooted_free(struct rooted *r)
{
	IBF_FREE_ALL(r->off, r->nb, r->eid, r->parent, r->pedge, r->depth,
		     r->order);
}

/* BFS from s: depth and parents; returns the largest depth. */
static uint32_t bfs(struct rooted *r, uint32_t s)
{
	uint32_t qh = 0, qt = 0, k, far = 0;

	for (k = 0; k < r->nn; k++)
		r->depth[k] = NONE;
	r->depth[s] = 0;
	r->parent[s] = r->pedge[s] = NONE;
	r->order[qt++] = s;
	while (qh < qt) {
		uint32_t v = r->order[qh++];

		if (r->depth[v] > far)
			far = r->depth[v];
		for (k = r->off[v]; k < r->off[v + 1]; k++) {
			uint32_t u = r->nb[k];

			if (r->depth[u] != NONE)
				continue;
			r->depth[u] = r->depth[v] + 1;
			r->parent[u] = v;
			r->pedge[u] = r->eid[k];
			r->order[qt++] = u;
		}
	}
	return far;
}

static int rooted_build(const ibf_infer_tree_t *t, struct rooted *r)
{
	uint32_t i, *fill, best = NONE, v;

	memset(r, 0, sizeof(*r));
	r->nn = t->nnodes;
	r->n = t->nhosts;
	r->off = calloc((size_t)r->nn + 1, sizeof(*r->off));
	r->nb = malloc(2 * (size_t)t->nedges * sizeof(*r->nb) + 1);
	r->eid = malloc(2 * (size_t)t->nedges * sizeof(*r->eid) + 1);
	r->parent = malloc(r->nn * sizeof(*r->parent));
	r->pedge = malloc(r->nn * sizeof(*r->pedge));
	r->depth = malloc(r->nn * sizeof(*r->depth));
	r->order = malloc(r->nn * sizeof(*r->order));
	fill = calloc((size_t)r->nn + 1, sizeof(*fill));
	if (!r->off || !r->nb || !r->eid || !r->parent || !r->pedge ||
	    !r->depth || !r->order || !fill) {
		free(fill);
		return -1;
	}
	for (i = 0; i < t->nedges; i++) {
		r->off[t->ea[i] + 1]++;
		r->off[t->eb[i] + 1]++;
	}
	for (i = 0; i < r->nn; i++)
		r->off[i + 1] += r->off[i];
	/* Neighbours in edge order, so that children come in a fixed
	 * order. */
	for (i = 0; i < t->nedges; i++) {
		uint32_t a = t->ea[i], b = t->eb[i];

		r->nb[r->off[a] + fill[a]] = b;
		r->eid[r->off[a] + fill[a]++] = i;
		r->nb[r->off[b] + fill[b]] = a;
		r->eid[r->off[b] + fill[b]++] = i;
	}
	free(fill);
	/* A centre: the switch of least eccentricity (the lowest number on
	 * ties); fewest stages. */
	r->height = NONE;
	for (v = r->n; v < r->nn; v++) {
		uint32_t h = bfs(r, v);

		if (h < r->height) {
			r->height = h;
			best = v;
		}
	}
	r->root = best;
	r->height = bfs(r, best);
	return 0;
}

/* ---- planning and measuring --------------------------------------------- */

struct plan {
	ibf_infer_bwmap_t *m;
	uint32_t cap;
	ibf_err_t *err;
};

static ibf_status_t push(struct plan *p, uint32_t a, uint32_t b, uint32_t ea,
			 uint32_t eb)
{
	ibf_infer_bwmap_t *m = p->m;

	if (m->nmeas == p->cap) {
		uint32_t c = p->cap ? 2 * p->cap : 64;
		uint32_t *np = realloc(m->pairs, 2 * (size_t)c * sizeof(*np));
		uint32_t *ne;
		double *nb;

		if (np)
			m->pairs = np;
		ne = realloc(m->edge, 2 * (size_t)c * sizeof(*ne));
		if (ne)
			m->edge = ne;
		nb = realloc(m->bw, (size_t)c * sizeof(*nb));
		if (nb)
			m->bw = nb;
		if (!np || !ne || !nb)
			return ibf_err_set(p->err, IBF_ERR_NOMEM,
					   "out of memory");
		p->cap = c;
	}
	m->pairs[2 * m->nmeas] = a;
	m->pairs[2 * m->nmeas + 1] = b;
	m->edge[2 * m->nmeas] = ea;
	m->edge[2 * m->nmeas + 1] = eb;
	m->bw[m->nmeas++] = NAN;
	return IBF_OK;
}

static ibf_status_t close_round(struct plan *p, uint32_t stage, uint32_t from)
{
	ibf_infer_bwmap_t *m = p->m;
	uint32_t *rs, *st;

	if (m->nmeas == from)
		return IBF_OK;
	rs = realloc(m->round_start, (m->nrounds + 2) * sizeof(*rs));
	if (rs)
		m->round_start = rs;
	st = realloc(m->round_stage, (m->nrounds + 1) * sizeof(*st));
	if (st)
		m->round_stage = st;
	if (!rs || !st)
		return ibf_err_set(p->err, IBF_ERR_NOMEM, "out of memory");
	m->round_start[m->nrounds] = from;
	m->round_start[m->nrounds + 1] = m->nmeas;
	m->round_stage[m->nrounds++] = stage;
	return IBF_OK;
}

/* The host under child c (entered from its parent) with the most
 * bandwidth to c by the edges measured so far (unmeasured edges do not
 * limit; ties: the lowest host number). */
static uint32_t representative(const struct rooted *r, const double *ebw,
			       uint32_t c, uint32_t *stack, double *lim)
{
	uint32_t sp = 0, best = NONE, k;
	double bbw = -1;

	lim[c] = INFINITY;
	stack[sp++] = c;
	while (sp) {
		uint32_t v = stack[--sp];

		if (v < r->n && (lim[v] > bbw || (lim[v] == bbw && v < best))) {
			best = v;
			bbw = lim[v];
		}
		for (k = r->off[v]; k < r->off[v + 1]; k++) {
			uint32_t u = r->nb[k];
			double e = ebw[r->eid[k]];

			if (u == r->parent[v])
				continue;
			lim[u] = isnan(e) || e >= lim[v] ? lim[v] : e;
			stack[sp++] = u;
		}
	}
	return best;
}

static ibf_status_t measure_round(struct plan *p, uint32_t round,
				  const ibf_infer_bw_oracle_t *o)
{
	ibf_infer_bwmap_t *m = p->m;
	uint32_t a = m->round_start[round], b = m->round_start[round + 1], k;
	ibf_status_t st;

	st = o->measure(o->ctx, m->pairs + 2 * a, b - a, m->bw + a, p->err);
	if (st != IBF_OK)
		return st;
	for (k = a; k < b; k++) {
		if (!(m->bw[k] >= 0) || !isfinite(m->bw[k]))
			return ibf_err_set(p->err, IBF_ERR_INVALID, "the "
					   "bandwidth oracle returned %g for "
					   "hosts %u and %u", m->bw[k],
					   m->pairs[2 * k], m->pairs[2 * k + 1]);
		m->edge_bw[m->edge[2 * k]] = m->bw[k];
		if (m->edge[2 * k + 1] != NONE)
			m->edge_bw[m->edge[2 * k + 1]] = m->bw[k];
	}
	return IBF_OK;
}

/* One stage: switches at depth d and their children. */
static ibf_status_t stage(struct plan *p, const struct rooted *r, uint32_t d,
			  uint32_t sn, const ibf_infer_bw_oracle_t *o,
			  uint32_t *scratch, double *lim)
{
	uint32_t *stack = scratch, *rep = scratch + r->nn;
	uint32_t *edg = scratch + 2 * (size_t)r->nn, i, k, from, np;
	ibf_infer_bwmap_t *m = p->m;
	ibf_status_t st;
	int pass;

	/* Pass 0: the pairs; pass 1: the odd child of each switch against
	 * its first sibling. */
	for (pass = 0; pass < 2; pass++) {
		from = m->nmeas;
		for (i = 0; i < r->nn; i++) {
			uint32_t x = r->order[i];

			if (r->depth[x] != d || x < r->n)
				continue;
			np = 0;
			for (k = r->off[x]; k < r->off[x + 1]; k++)
				if (r->nb[k] != r->parent[x]) {
					rep[np] = representative(r, m->edge_bw,
								 r->nb[k],
								 stack, lim);
					edg[np++] = r->eid[k];
				}
			if (pass == 0) {
				for (k = 0; k + 1 < np; k += 2)
					if ((st = push(p, rep[k], rep[k + 1],
						       edg[k], edg[k + 1])) !=
					    IBF_OK)
						return st;
			} else if (np % 2 && np > 1) {
				st = push(p, rep[np - 1], rep[0], edg[np - 1],
					  NONE);
				if (st != IBF_OK)
					return st;
			}
		}
		if ((st = close_round(p, sn, from)) != IBF_OK)
			return st;
		if (o && m->nmeas > from &&
		    (st = measure_round(p, m->nrounds - 1, o)) != IBF_OK)
			return st;
	}
	return IBF_OK;
}

ibf_status_t ibf_infer_bw_run(const ibf_infer_tree_t *t,
			      const ibf_infer_bw_oracle_t *o,
			      ibf_infer_bwmap_t *out, ibf_err_t *err)
{
	struct plan p = { out, 0, err };
	struct rooted r;
	uint32_t *scratch = NULL, i;
	double *lim = NULL;
	ibf_status_t st = IBF_OK;

	memset(out, 0, sizeof(*out));
	if (t->nnodes <= t->nhosts)
		return ibf_err_set(err, IBF_ERR_INVALID, "the tree has no "
				   "switch");
	out->edge_bw = malloc(((size_t)t->nedges + 1) *
			      sizeof(*out->edge_bw));
	scratch = malloc(3 * (size_t)t->nnodes * sizeof(*scratch));
	lim = malloc(t->nnodes * sizeof(*lim));
	out->round_start = calloc(1, sizeof(*out->round_start));
	if (!out->edge_bw || !scratch || !lim || !out->round_start ||
	    rooted_build(t, &r)) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->nedges; i++)
		out->edge_bw[i] = NAN;
	out->root = r.root;
	out->height = r.height;
	for (i = 1; i <= r.height && st == IBF_OK; i++)
		st = stage(&p, &r, r.height - i, i, o, scratch, lim);
	rooted_free(&r);
out:
	free(scratch);
	free(lim);
	if (st != IBF_OK)
		ibf_infer_bwmap_free(out);
	return st;
}

void ibf_infer_bwmap_free(ibf_infer_bwmap_t *m)
{
	if (!m)
		return;
	IBF_FREE_ALL(m->round_start, m->round_stage, m->pairs, m->edge, m->bw,
		     m->edge_bw);
	memset(m, 0, sizeof(*m));
}

ibf_status_t ibf_infer_bw_predict(const ibf_infer_tree_t *t,
				  const ibf_infer_bwmap_t *m, double *out,
				  ibf_err_t *err)
{
	struct rooted r;
	double *lim = malloc(t->nnodes * sizeof(*lim));
	uint32_t a, b, i;

	if (!lim || rooted_build(t, &r)) {
		free(lim);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	for (a = 0; a < t->nhosts; a++) {
		/* BFS from a carrying the least measured bandwidth. */
		bfs(&r, a);
		lim[a] = INFINITY;
		for (i = 1; i < r.nn; i++) {
			uint32_t v = r.order[i];
			double e = m->edge_bw[r.pedge[v]];

			lim[v] = isnan(e) || e >= lim[r.parent[v]] ?
				 lim[r.parent[v]] : e;
		}
		for (b = 0; b < t->nhosts; b++)
			out[(size_t)a * t->nhosts + b] =
				a == b || isinf(lim[b]) ? NAN : lim[b];
	}
	free(lim);
	rooted_free(&r);
	return IBF_OK;
}

/* ---- JSON --------------------------------------------------------------- */

static json_object *name_of(const ibf_infer_tree_t *t,
			    const char *const *names, uint32_t v)
{
	char buf[32];

	if (v < t->nhosts && names)
		return json_object_new_string(names[v]);
	snprintf(buf, sizeof(buf), v < t->nhosts ? "h%u" : "infer-s%u",
		 v < t->nhosts ? v : v - t->nhosts);
	return json_object_new_string(buf);
}

static json_object *num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *edge_json(const ibf_infer_tree_t *t,
			      const char *const *names, uint32_t e, double bw)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "a", name_of(t, names, t->ea[e]));
	json_object_object_add(o, "b", name_of(t, names, t->eb[e]));
	json_object_object_add(o, "bw", num(bw));
	return o;
}

ibf_status_t ibf_infer_bw_write_json(const ibf_infer_tree_t *t,
				     const char *const *names,
				     const ibf_infer_bwmap_t *m, FILE *fp,
				     ibf_err_t *err)
{
	json_object *root = json_object_new_object();
	json_object *rounds = json_object_new_array();
	json_object *edges = json_object_new_array();
	uint32_t i, k, j;
	int rc = !root || !rounds || !edges;

	for (i = 0; i < m->nrounds && !rc; i++) {
		json_object *r = json_object_new_object();
		json_object *pairs = json_object_new_array();

		rc |= !r || !pairs;
		for (k = m->round_start[i]; k < m->round_start[i + 1] && !rc;
		     k++) {
			json_object *pr = json_object_new_object();
			json_object *es = json_object_new_array();

			rc |= !pr || !es;
			for (j = 0; j < 2 && !rc; j++)
				if (m->edge[2 * k + j] != NONE)
					json_object_array_add(es, edge_json(
						t, names, m->edge[2 * k + j],
						m->bw[k]));
			json_object_object_add(pr, "a",
					       name_of(t, names, m->pairs[2 * k]));
			json_object_object_add(pr, "b", name_of(
				t, names, m->pairs[2 * k + 1]));
			json_object_object_add(pr, "edges", es);
			json_object_object_add(pr, "bw", num(m->bw[k]));
			json_object_array_add(pairs, pr);
		}
		json_object_object_add(r, "stage",
				       json_object_new_int((int)m->round_stage[i]));
		json_object_object_add(r, "pairs", pairs);
		json_object_array_add(rounds, r);
	}
	for (i = 0; i < t->nedges && !rc; i++)
		rc |= json_object_array_add(edges, edge_json(t, names, i,
							     m->edge_bw[i]));
	if (!rc) {
		json_object_object_add(root, "root", name_of(t, names, m->root));
		json_object_object_add(root, "stages",
				       json_object_new_int((int)m->height));
		json_object_object_add(root, "measurements",
				       json_object_new_int((int)m->nmeas));
		json_object_object_add(root, "rounds", rounds);
		rounds = NULL;
		json_object_object_add(root, "edges", edges);
		edges = NULL;
		rc = fputs(json_object_to_json_string_ext(root,
			   JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED),
			   fp) < 0 || fputc('\n', fp) == EOF;
	}
	json_object_put(rounds);
	json_object_put(edges);
	json_object_put(root);
	return rc ? ibf_err_set(err, IBF_ERR_IO, "cannot write the bandwidth "
				"plan") : IBF_OK;
}

/* ---- synthetic bandwidth oracle ----------------------------------------- */

struct ibf_infer_bw_synth {
	const ibf_fabric_t *f;
	uint32_t n;
	ibf_port_id_t *hosts;
	uint32_t *from;     /* [n * nnodes]: port a BFS from host i came by */
	uint32_t *users;    /* per port (the link's lower port id) */
};

/* One shortest path from host i's node: the port each node was reached
 * through (CAs other than the source do not forward). */
static void bw_bfs(const ibf_fabric_t *f, ibf_port_id_t hp, uint32_t *from,
		   uint32_t *q)
{
	uint32_t qh = 0, qt = 0, v, p, src = f->ports[hp].node;

	for (v = 0; v < f->nnodes; v++)
		from[v] = NONE;
	from[src] = hp;
	q[qt++] = src;
	while (qh < qt) {
		v = q[qh++];
		if (v != src && !ibf_node_is_switch(f, v))
			continue;
		for (p = 1; p <= ibf_node(f, v)->nports; p++) {
			ibf_port_id_t out = ibf_node_port_id(f, v, p);
			ibf_port_id_t peer = f->ports[out].peer;

			if (v == src && out != hp)
				continue; /* leave by the host's own port */
			if (peer == IBF_NO_ID || from[f->ports[peer].node] !=
			    NONE)
				continue;
			from[f->ports[peer].node] = peer;
			q[qt++] = f->ports[peer].node;
		}
	}
}

ibf_status_t ibf_infer_bw_synth_create(const ibf_fabric_t *f,
				       const ibf_port_id_t *hosts,
				       uint32_t n, ibf_infer_bw_synth_t **out,
				       ibf_err_t *err)
{
	ibf_infer_bw_synth_t *s = calloc(1, sizeof(*s));
	uint32_t *q = malloc(f->nnodes * sizeof(*q)), i;

	*out = NULL;
	if (!s || !q ||
	    !(s->hosts = malloc(n * sizeof(*s->hosts))) ||
	    !(s->from = malloc((size_t)n * f->nnodes * sizeof(*s->from))) ||
	    !(s->users = calloc(f->nports, sizeof(*s->users)))) {
		free(q);
		ibf_infer_bw_synth_destroy(s);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	s->f = f;
	s->n = n;
	memcpy(s->hosts, hosts, n * sizeof(*hosts));
	for (i = 0; i < n; i++) {
		if (hosts[i] >= f->nports || f->ports[hosts[i]].peer ==
		    IBF_NO_ID) {
			free(q);
			ibf_infer_bw_synth_destroy(s);
			return ibf_err_set(err, IBF_ERR_INVALID, "host %u is "
					   "not a connected port", i);
		}
		bw_bfs(f, hosts[i], s->from + (size_t)i * f->nnodes, q);
	}
	free(q);
	*out = s;
	return IBF_OK;
}

void ibf_infer_bw_synth_destroy(ibf_infer_bw_synth_t *s)
{
	if (!s)
		return;
	free(s->hosts);
	free(s->from);
	free(s->users);
	free(s);
}

/* Walk the path from host b back to host a: f(link's lower port). */
static bool walk(const ibf_infer_bw_synth_t *s, uint32_t a, uint32_t b,
		 int add, double *least)
{
	const ibf_fabric_t *f = s->f;
	const uint32_t *from = s->from + (size_t)a * f->nnodes;
	uint32_t v = f->ports[s->hosts[b]].node, src = f->ports[s->hosts[a]].node;

	*least = INFINITY;
	while (v != src) {
		ibf_port_id_t in = from[v], back, lo;
		double c;

		if (in == NONE)
			return false;
		back = f->ports[in].peer;
		lo = in < back ? in : back;
		s->users[lo] += add;
		c = ibf_port_capacity(&f->ports[lo]) /
		    (s->users[lo] ? s->users[lo] : 1);
		if (c < *least)
			*least = c;
		v = f->ports[back].node;
	}
	return true;
}

ibf_status_t ibf_infer_bw_synth_measure(void *ctx, const uint32_t *pairs,
					uint32_t n, double *bw,
					ibf_err_t *err)
{
	ibf_infer_bw_synth_t *s = ctx;
	uint32_t k;
	double x;

	for (k = 0; k < n; k++)
		if (pairs[2 * k] >= s->n || pairs[2 * k + 1] >= s->n ||
		    pairs[2 * k] == pairs[2 * k + 1] ||
		    !walk(s, pairs[2 * k], pairs[2 * k + 1], 1, &x)) {
			uint32_t bad = k;

			while (k--)
				walk(s, pairs[2 * k], pairs[2 * k + 1], -1,
				     &x);
			return ibf_err_set(err, IBF_ERR_INVALID, "no path "
					   "between hosts %u and %u",
					   pairs[2 * bad], pairs[2 * bad + 1]);
		}
	/* Shares with every user counted, then take the users back. */
	for (k = 0; k < n; k++)
		walk(s, pairs[2 * k], pairs[2 * k + 1], 0, &bw[k]);
	for (k = 0; k < n; k++)
		walk(s, pairs[2 * k], pairs[2 * k + 1], -1, &x);
	return IBF_OK;
}

void ibf_infer_bw_synth_alone(const ibf_infer_bw_synth_t *s, double *out)
{
	ibf_infer_bw_synth_t *w = (ibf_infer_bw_synth_t *)s;
	uint32_t a, b;

	for (a = 0; a < s->n; a++)
		for (b = 0; b < s->n; b++) {
			double x = NAN;

			if (a != b)
				walk(w, a, b, 0, &x);
			out[(size_t)a * s->n + b] = x;
		}
}
