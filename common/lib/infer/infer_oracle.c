/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Oracles for the inference: a table of recorded RTTs (an RTT file), and
 * a synthetic one that measures a known fabric with chosen latencies,
 * noise and measurement time (docs/infer.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/hash.h"
#include "infer/infer_internal.h"

#define NONE IBF_INFER_NONE

/* ---- measurements in flight (start / wait) ------------------------------- */

/* One started measurement, its result known at the start; the one with
 * the least key ends first (ties: the first started). */
struct flight {
	uint32_t tag;
	double key;
	double min, max;
	ibf_status_t st;
};

struct flights {
	struct flight *f;
	uint32_t n, cap;
};

static ibf_status_t flights_push(struct flights *fl, const struct flight *x,
				 ibf_err_t *err)
{
	if (fl->n == fl->cap) {
		uint32_t cap = fl->cap ? 2 * fl->cap : 16;
		struct flight *f = realloc(fl->f, cap * sizeof(*f));

		if (!f)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		fl->f = f;
		fl->cap = cap;
	}
	fl->f[fl->n++] = *x;
	return IBF_OK;
}

/* The next to end, out of the list: reported as wait does, *key its
 * key (key may be NULL). */
static ibf_status_t flights_pop(struct flights *fl, uint32_t *tag,
				double *min, double *max, ibf_status_t *st,
				double *key, ibf_err_t *err)
{
	uint32_t i, first = 0;
	const struct flight *x;

	if (!fl->n)
		return ibf_err_set(err, IBF_ERR_INVALID, "wait: no measurement "
				   "in flight");
	for (i = 1; i < fl->n; i++)
		if (fl->f[i].key < fl->f[first].key)
			first = i;
	x = &fl->f[first];
	*tag = x->tag;
	*min = x->min;
	*max = x->max;
	*st = x->st;
	if (key)
		*key = x->key;
	memmove(fl->f + first, fl->f + first + 1,
		(fl->n - first - 1) * sizeof(*fl->f));
	fl->n--;
	return IBF_OK;
}

/* ---- table -------------------------------------------------------------- */

struct ibf_infer_table {
	uint32_t n;
	struct ibf_hash *index;  /* a * n + b (a < b) -> slot, in file order */
	double *min, *max;
	struct flights flying;
};

static uint64_t pair_key(uint32_t n, uint32_t a, uint32_t b)
{
	return a < b ? (uint64_t)a * n + b : (uint64_t)b * n + a;
}

ibf_status_t ibf_infer_table_create(const ibf_rtt_set_t *s, uint32_t nhosts,
				    ibf_infer_table_t **out, ibf_err_t *err)
{
	ibf_infer_table_t *t = calloc(1, sizeof(*t));
	uint32_t i, used = 0;

	*out = NULL;
	if (!t || !(t->index = ibf_hash_create_u64()) ||
	    !(t->min = malloc((s->n + 1) * sizeof(*t->min))) ||
	    !(t->max = malloc((s->n + 1) * sizeof(*t->max)))) {
		ibf_infer_table_destroy(t);
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	t->n = nhosts;
	for (i = 0; i < s->n; i++) {
		const ibf_rtt_meas_t *m = &s->m[i];
		uint32_t slot = IBF_NO_ID;
		ibf_status_t st;

		if (m->a >= nhosts || m->b >= nhosts) {
			ibf_infer_table_destroy(t);
			return ibf_err_set(err, IBF_ERR_INVALID, "measurement "
					   "%u names a host beyond %u", i,
					   nhosts);
		}
		st = ibf_hash_put_u64(t->index, pair_key(nhosts, m->a, m->b),
				      used, &slot);
		if (st == IBF_OK) {
			t->min[used] = m->min;
			t->max[used++] = m->max;
			continue;
		}
		if (st != IBF_ERR_INVALID) {
			ibf_infer_table_destroy(t);
			return ibf_err_set(err, IBF_ERR_NOMEM,
					   "out of memory");
		}
		if (m->min < t->min[slot])
			t->min[slot] = m->min;
		if (m->max > t->max[slot])
			t->max[slot] = m->max;
	}
	*out = t;
	return IBF_OK;
}

void ibf_infer_table_destroy(ibf_infer_table_t *t)
{
	if (!t)
		return;
	ibf_hash_destroy(t->index);
	free(t->min);
	free(t->max);
	free(t->flying.f);
	free(t);
}

static ibf_status_t table_measure(void *ctx, uint32_t a, uint32_t b,
				     double *min, double *max,
				     ibf_err_t *err)
{
	const ibf_infer_table_t *t = ctx;
	uint32_t slot;

	(void)err;
	if (a >= t->n || b >= t->n || a == b)
		return IBF_ERR_NOT_FOUND;
	slot = ibf_hash_get_u64(t->index, pair_key(t->n, a, b));
	if (slot == IBF_NO_ID)
		return IBF_ERR_NOT_FOUND;
	*min = t->min[slot];
	*max = t->max[slot];
	return IBF_OK;
}

/* The pair's place in the file is when it ended. */
static ibf_status_t table_start(void *ctx, uint32_t a, uint32_t b,
				uint32_t tag, ibf_err_t *err)
{
	ibf_infer_table_t *t = ctx;
	struct flight x = { .tag = tag, .key = -1 };

	x.st = table_measure(t, a, b, &x.min, &x.max, err);
	if (x.st == IBF_OK)
		x.key = ibf_hash_get_u64(t->index, pair_key(t->n, a, b));
	return flights_push(&t->flying, &x, err);
}

static ibf_status_t table_wait(void *ctx, uint32_t *tag, double *min,
			       double *max, ibf_status_t *st, ibf_err_t *err)
{
	return flights_pop(&((ibf_infer_table_t *)ctx)->flying, tag, min, max,
			   st, NULL, err);
}

ibf_infer_oracle_t ibf_infer_table_oracle(ibf_infer_table_t *t)
{
	return (ibf_infer_oracle_t){ .nhosts = t->n,
				     .measure = table_measure,
				     .ctx = t, .start = table_start,
				     .wait = table_wait };
}

/* ---- synthetic oracle --------------------------------------------------- */

struct ibf_infer_synth {
	ibf_infer_synth_opts_t o;
	uint32_t n;
	char **names;
	double *truth;        /* [n * n] true RTTs */
	double min_hop_rtt;
	double charged;       /* the virtual clock, µs */
	ibf_rng_t rng, rng_all;
	struct flights flying; /* key: the end on the clock */
};

/* Hops from the nearest host, per node (multi-source BFS). */
static int node_levels(const ibf_fabric_t *f, uint32_t *level)
{
	uint32_t *q = malloc(f->nnodes * sizeof(*q)), qh = 0, qt = 0, n, p;

	if (!q)
		return -1;
	for (n = 0; n < f->nnodes; n++) {
		level[n] = NONE;
		if (!ibf_node_is_switch(f, n)) {
			level[n] = 0;
			q[qt++] = n;
		}
	}
	while (qh < qt) {
		n = q[qh++];
		for (p = 1; p <= ibf_node(f, n)->nports; p++) {
			ibf_port_id_t peer = ibf_node_port(f, n, p)->peer;
			uint32_t m;

			if (peer == IBF_NO_ID)
				continue;
			m = ibf_port(f, peer)->node;
			if (level[m] == NONE) {
				level[m] = level[n] + 1;
				q[qt++] = m;
			}
		}
	}
	free(q);
	return 0;
}

static bool is_tree(const ibf_fabric_t *f)
{
	uint64_t links = 0, nodes = 0;
	ibf_port_id_t p;
	uint32_t n;

	for (p = 0; p < f->nports; p++)
		links += f->ports[p].peer != IBF_NO_ID && f->ports[p].peer > p;
	for (n = 0; n < f->nnodes; n++) {
		for (p = 1; p <= f->nodes[n].nports; p++)
			if (ibf_node_port(f, n, p)->peer != IBF_NO_ID)
				break;
		nodes += p <= f->nodes[n].nports;
	}
	return links + 1 == nodes;
}

/* Latency of the link leaving every port (both ends equal). */
static int link_latencies(const ibf_fabric_t *f,
			  const ibf_infer_synth_opts_t *o, ibf_rng_t *r,
			  double *lat, double *min_lat)
{
	uint32_t *level = malloc(f->nnodes * sizeof(*level)), maxl = 0, n;
	double *per_level = NULL;
	bool tree = is_tree(f);
	ibf_port_id_t p;

	if (!level || node_levels(f, level)) {
		free(level);
		return -1;
	}
	for (n = 0; n < f->nnodes; n++)
		if (level[n] != NONE && level[n] > maxl)
			maxl = level[n];
	per_level = malloc(((size_t)maxl + 2) * sizeof(*per_level));
	if (!per_level) {
		free(level);
		return -1;
	}
	for (n = 0; n < maxl + 2; n++)
		per_level[n] = 1 + o->jitter * ibf_rng_unit(r);
	*min_lat = INFINITY;
	for (p = 0; p < f->nports; p++)
		lat[p] = 0;
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *a = ibf_port(f, p), *b;
		uint32_t la, lb, l;
		bool host;

		if (a->peer == IBF_NO_ID || a->peer < p)
			continue;
		b = ibf_port(f, a->peer);
		host = !ibf_node_is_switch(f, a->node) ||
		       !ibf_node_is_switch(f, b->node);
		la = level[a->node];
		lb = level[b->node];
		l = (la < lb ? la : lb) + 1;
		if (host)
			l = 1;
		lat[p] = o->latency[(l < o->nlatency ? l : o->nlatency) - 1] *
			 (tree ? 1 + o->jitter * ibf_rng_unit(r) :
			  per_level[l < maxl + 2 ? l : maxl + 1]);
		lat[a->peer] = lat[p];
		if (lat[p] < *min_lat)
			*min_lat = lat[p];
	}
	free(level);
	free(per_level);
	return 0;
}

/* Dijkstra from one CA node over the links; CAs other than the source do
 * not forward.  Binary heap of (distance, node), lazy deletion. */
struct heap {
	double *k;
	uint32_t *v;
	uint32_t n;
};

static void heap_push(struct heap *h, double k, uint32_t v)
{
	uint32_t i = h->n++;

	while (i && h->k[(i - 1) / 2] > k) {
		h->k[i] = h->k[(i - 1) / 2];
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->k[i] = k;
	h->v[i] = v;
}

static void heap_pop(struct heap *h, double *k, uint32_t *v)
{
	double lk = h->k[--h->n];
	uint32_t lv = h->v[h->n], i = 0;

	*k = h->k[0];
	*v = h->v[0];
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->k[c + 1] < h->k[c])
			c++;
		if (h->k[c] >= lk)
			break;
		h->k[i] = h->k[c];
		h->v[i] = h->v[c];
		i = c;
	}
	h->k[i] = lk;
	h->v[i] = lv;
}

static void dijkstra(const ibf_fabric_t *f, const double *lat, uint32_t src,
		     double *d, struct heap *h)
{
	uint32_t n;

	for (n = 0; n < f->nnodes; n++)
		d[n] = INFINITY;
	d[src] = 0;
	h->n = 0;
	heap_push(h, 0, src);
	while (h->n) {
		double k;
		uint32_t v, p;

		heap_pop(h, &k, &v);
		if (k > d[v] || (v != src && !ibf_node_is_switch(f, v)))
			continue;
		for (p = 1; p <= ibf_node(f, v)->nports; p++) {
			ibf_port_id_t pid = ibf_node_port_id(f, v, p);
			ibf_port_id_t peer = f->ports[pid].peer;
			uint32_t m;

			if (peer == IBF_NO_ID)
				continue;
			m = f->ports[peer].node;
			if (k + lat[pid] < d[m]) {
				d[m] = k + lat[pid];
				heap_push(h, d[m], m);
			}
		}
	}
}

static ibf_status_t synth_truth(ibf_infer_synth_t *s, const ibf_fabric_t *f,
				const double *lat, ibf_err_t *err)
{
	double *d = malloc(f->nnodes * sizeof(*d));
	size_t hcap = (size_t)f->nports + f->nnodes + 1;
	struct heap h = { malloc(hcap * sizeof(double)),
			  malloc(hcap * sizeof(uint32_t)), 0 };
	ibf_status_t st = IBF_OK;
	uint32_t a, b;

	if (!d || !h.k || !h.v) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (a = 0; a < s->n && st == IBF_OK; a++) {
		ibf_port_id_t pa = f->endpoints[a];

		/* From the host's own port: a multi-port CA is several
		 * hosts, each leaving by its port. */
		dijkstra(f, lat, ibf_port(f, f->ports[pa].peer)->node, d, &h);
		for (b = 0; b < s->n; b++) {
			ibf_port_id_t pb = f->endpoints[b];
			double x = d[ibf_port(f, f->ports[pb].peer)->node] +
				   lat[pa] + lat[pb];

			if (a == b)
				x = 0;
			if (!isfinite(x))
				st = ibf_err_set(err, IBF_ERR_INVALID, "hosts "
						 "%s and %s are not connected",
						 s->names[a], s->names[b]);
			s->truth[(size_t)a * s->n + b] = 2 * x;
		}
	}
out:
	free(d);
	free(h.k);
	free(h.v);
	return st;
}

ibf_status_t ibf_infer_synth_create(const ibf_fabric_t *f,
				    const ibf_infer_synth_opts_t *o,
				    ibf_infer_synth_t **out, ibf_err_t *err)
{
	ibf_infer_synth_t *s = calloc(1, sizeof(*s));
	double *lat = NULL, min_lat;
	ibf_status_t st = IBF_OK;
	uint32_t i;

	*out = NULL;
	if (!s)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	s->o = *o;
	if (!s->o.nlatency) {
		s->o.latency[0] = 1.0;
		s->o.latency[1] = 0.25;
		s->o.nlatency = 2;
	}
	if (s->o.nlatency > IBF_INFER_SYNTH_LEVELS) {
		ibf_infer_synth_destroy(s);
		return ibf_err_set(err, IBF_ERR_RANGE, "at most %d latency "
				   "levels", IBF_INFER_SYNTH_LEVELS);
	}
	for (i = 0; i < s->o.nlatency; i++)
		if (!(s->o.latency[i] > 0) || !isfinite(s->o.latency[i])) {
			ibf_infer_synth_destroy(s);
			return ibf_err_set(err, IBF_ERR_RANGE, "latency of "
					   "level %u is %g, not positive", i + 1,
					   s->o.latency[i]);
		}
	if (!(s->o.jitter >= 0))
		s->o.jitter = 0;
	if (!(s->o.noise >= 0))
		s->o.noise = 0;
	if (o->overhead == 0)
		s->o.overhead = 20;
	else if (!(o->overhead > 0))
		s->o.overhead = 0;
	s->rng.s = o->seed;
	s->rng_all.s = o->seed ^ 0x5deece66dULL;
	s->n = f->nendpoints;
	if (s->n < 2) {
		ibf_infer_synth_destroy(s);
		return ibf_err_set(err, IBF_ERR_INVALID, "the fabric has %u "
				   "hosts, inference needs 2", s->n);
	}
	s->names = calloc(s->n, sizeof(*s->names));
	s->truth = malloc((size_t)s->n * s->n * sizeof(*s->truth));
	lat = malloc(f->nports * sizeof(*lat));
	if (!s->names || !s->truth || !lat ||
	    link_latencies(f, &s->o, &s->rng, lat, &min_lat)) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	s->min_hop_rtt = 2 * min_lat;
	for (i = 0; i < s->n && st == IBF_OK; i++) {
		char buf[256];

		s->names[i] = strdup(ibf_port_host_name(f, f->endpoints[i],
							buf, sizeof(buf)));
		if (!s->names[i])
			st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (st == IBF_OK)
		st = synth_truth(s, f, lat, err);
out:
	free(lat);
	if (st != IBF_OK) {
		ibf_infer_synth_destroy(s);
		return st;
	}
	*out = s;
	return IBF_OK;
}

void ibf_infer_synth_destroy(ibf_infer_synth_t *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; s->names && i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->truth);
	free(s->flying.f);
	free(s);
}

/* Exp(1) by inversion. */
static double expo(ibf_rng_t *r)
{
	return -log1p(-ibf_rng_unit(r));
}

/* One measurement of a true RTT: the interval and the time it took. */
static double synth_one(const ibf_infer_synth_t *s, ibf_rng_t *r,
			double rtt, double *min, double *max)
{
	double took = s->o.overhead;
	int round, j;

	if (s->o.model == IBF_INFER_NOISE_UNIFORM) {
		double v = rtt + s->o.noise * (2 * ibf_rng_unit(r) - 1);

		*min = *max = v > 0 ? v : 0;
		return took + 30 * rtt;
	}
	*min = INFINITY;
	*max = 0;
	for (round = 0; round < 3; round++) {
		double best = INFINITY;
		int since = 0;

		for (j = 0; j < 30 && since < 10; j++) {
			double v = rtt + s->o.noise * expo(r);

			took += v;
			if (v < best) {
				best = v;
				since = 0;
			} else {
				since++;
			}
		}
		if (best < *min)
			*min = best;
		if (best > *max)
			*max = best;
	}
	return took;
}

static void wait_us(double us)
{
	struct timespec ts;

	if (!(us > 0))
		return;
	ts.tv_sec = (time_t)(us / 1e6);
	ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1e3);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static ibf_status_t synth_measure(void *ctx, uint32_t a, uint32_t b,
				     double *min, double *max,
				     ibf_err_t *err)
{
	ibf_infer_synth_t *s = ctx;
	double took;

	if (a >= s->n || b >= s->n || a == b)
		return ibf_err_set(err, IBF_ERR_INVALID, "no pair %u %u", a,
				   b);
	took = synth_one(s, &s->rng, s->truth[(size_t)a * s->n + b], min,
			 max);
	s->charged += took;
	if (s->o.sleep)
		wait_us(took);
	return IBF_OK;
}

/* Measured at the start (so the generator is drawn in start order), it
 * ends its charged time later on the clock. */
static ibf_status_t synth_start(void *ctx, uint32_t a, uint32_t b,
				uint32_t tag, ibf_err_t *err)
{
	ibf_infer_synth_t *s = ctx;
	struct flight x = { .tag = tag, .st = IBF_OK };

	if (a >= s->n || b >= s->n || a == b)
		return ibf_err_set(err, IBF_ERR_INVALID, "no pair %u %u", a,
				   b);
	x.key = s->charged + synth_one(s, &s->rng,
				       s->truth[(size_t)a * s->n + b], &x.min,
				       &x.max);
	return flights_push(&s->flying, &x, err);
}

static ibf_status_t synth_wait(void *ctx, uint32_t *tag, double *min,
			       double *max, ibf_status_t *st, ibf_err_t *err)
{
	ibf_infer_synth_t *s = ctx;
	double end;
	ibf_status_t rc = flights_pop(&s->flying, tag, min, max, st, &end,
				      err);

	if (rc != IBF_OK)
		return rc;
	if (s->o.sleep)
		wait_us(end - s->charged);
	if (end > s->charged)
		s->charged = end;
	return IBF_OK;
}

ibf_infer_oracle_t ibf_infer_synth_oracle(ibf_infer_synth_t *s)
{
	return (ibf_infer_oracle_t){ .nhosts = s->n,
				     .measure = synth_measure,
				     .ctx = s, .start = synth_start,
				     .wait = synth_wait };
}

uint32_t ibf_infer_synth_nhosts(const ibf_infer_synth_t *s)
{
	return s->n;
}

const char *const *ibf_infer_synth_names(const ibf_infer_synth_t *s)
{
	return (const char *const *)s->names;
}

const double *ibf_infer_synth_truth(const ibf_infer_synth_t *s)
{
	return s->truth;
}

double ibf_infer_synth_min_hop_rtt(const ibf_infer_synth_t *s)
{
	return s->min_hop_rtt;
}

double ibf_infer_synth_charged(const ibf_infer_synth_t *s)
{
	return s->charged;
}

void ibf_infer_synth_measure_all(ibf_infer_synth_t *s, double *out)
{
	uint32_t a, b;

	for (a = 0; a < s->n; a++) {
		out[(size_t)a * s->n + a] = 0;
		for (b = a + 1; b < s->n; b++) {
			double mn, mx;

			synth_one(s, &s->rng_all,
				  s->truth[(size_t)a * s->n + b], &mn, &mx);
			out[(size_t)a * s->n + b] = mn;
			out[(size_t)b * s->n + a] = mn;
		}
	}
}
