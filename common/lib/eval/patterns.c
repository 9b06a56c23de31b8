/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * LFTI traffic patterns and rank placement.  See patterns.h.
 */
#include <ibflow/patterns.h>

#include "base/array.h"
#include "base/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shuffle(ibf_xrng_t *r, uint32_t *v, uint32_t n)
{
	uint32_t i, j, t;

	for (i = n; i > 1; i--) {
		j = (uint32_t)ibf_xrng_below(r, i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* ---- parsing ------------------------------------------------------------ */

static const struct {
	const char *word;
	ibf_pattern_kind_t kind;
	unsigned dims;
	bool diag;
	unsigned nparams; /* leading mandatory numbers (D) */
} kinds[] = {
	{ "perm", IBF_PATTERN_PERM, 0, false, 0 },
	{ "shift", IBF_PATTERN_SHIFT, 0, false, 0 },
	{ "bisect", IBF_PATTERN_BISECT, 0, false, 0 },
	{ "2dnn", IBF_PATTERN_NN, 2, false, 0 },
	{ "2dnndiag", IBF_PATTERN_NN, 2, true, 0 },
	{ "3dnn", IBF_PATTERN_NN, 3, false, 0 },
	{ "3dnndiag", IBF_PATTERN_NN, 3, true, 0 },
	{ "randn", IBF_PATTERN_RANDN, 0, false, 1 },
	{ "random", IBF_PATTERN_RANDOM, 0, false, 1 },
	{ "alltoall", IBF_PATTERN_ALLTOALL, 0, false, 0 },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* A decimal field up to the next ':' or the end. */
static bool field_uint(const char **s, unsigned *v)
{
	unsigned long x;
	char *end;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	x = strtoul(*s, &end, 10);
	if (errno || x > IBF_PATTERN_MAX_K || (*end && *end != ':'))
		return false;
	*v = (unsigned)x;
	*s = *end ? end + 1 : end;
	return true;
}

static ibf_status_t parse_numbers(const char *spec, const char *s,
				  unsigned i, ibf_pattern_t *p,
				  ibf_err_t *err)
{
	bool has_k;

	if (kinds[i].nparams) {
		if (!*s || !field_uint(&s, &p->d))
			return ibf_err_set(err, IBF_ERR_PARSE,
					   "%s: expected %s:D[:K] with D a "
					   "number", spec, kinds[i].word);
		if (p->d < 1)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "%s: D must be >= 1", spec);
	}
	has_k = *s != '\0';
	if (has_k && (kinds[i].kind == IBF_PATTERN_ALLTOALL))
		return ibf_err_set(err, IBF_ERR_PARSE,
				   "%s: alltoall takes no instance count",
				   spec);
	p->k = kinds[i].kind == IBF_PATTERN_SHIFT ||
	       kinds[i].kind == IBF_PATTERN_ALLTOALL ? 0 : 1;
	if (has_k) {
		if (!field_uint(&s, &p->k) || *s)
			return ibf_err_set(err, IBF_ERR_PARSE,
					   "%s: bad instance count K (a "
					   "number 1..%u expected)", spec,
					   IBF_PATTERN_MAX_K);
		if (p->k < 1)
			return ibf_err_set(err, IBF_ERR_INVALID,
					   "%s: K must be >= 1", spec);
	}
	return IBF_OK;
}

ibf_status_t ibf_pattern_parse(const char *spec, ibf_pattern_t *p,
			       ibf_err_t *err)
{
	size_t wl = strcspn(spec, ":");
	unsigned i;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", spec);
	if (wl == 4 && !strncmp(spec, "file", 4)) {
		if (spec[4] != ':' || !spec[5])
			return ibf_err_set(err, IBF_ERR_PARSE,
					   "%s: expected file:PATH", spec);
		p->kind = IBF_PATTERN_FILE;
		p->k = 1;
		p->path = strdup(spec + 5);
		if (!p->path)
			return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		return IBF_OK;
	}
	for (i = 0; i < NKINDS; i++)
		if (strlen(kinds[i].word) == wl &&
		    !strncmp(spec, kinds[i].word, wl))
			break;
	if (i == NKINDS)
		return ibf_err_set(err, IBF_ERR_PARSE,
				   "%s: unknown pattern (perm, shift, bisect, "
				   "2dnn, 2dnndiag, 3dnn, 3dnndiag, randn, "
				   "random, alltoall, file)", spec);
	p->kind = kinds[i].kind;
	p->dims = kinds[i].dims;
	p->diag = kinds[i].diag;
	return parse_numbers(spec, spec + wl + (spec[wl] == ':'), i, p, err);
}

void ibf_pattern_free(ibf_pattern_t *p)
{
	free(p->path);
	p->path = NULL;
}

uint32_t ibf_pattern_ninstances(const ibf_pattern_t *p, uint32_t nranks)
{
	if (p->kind == IBF_PATTERN_SHIFT && !p->k)
		return nranks > 1 ? nranks - 1 : 0;
	return p->k ? p->k : 1;
}

/* ---- generators --------------------------------------------------------- */

struct gen {
	const ibf_pattern_t *p;
	uint32_t n;
	ibf_xrng_t rng;
	ibf_traffic_t *out;
	uint32_t cap;
	ibf_err_t *err;
};

static ibf_status_t emit(struct gen *g, uint32_t s, uint32_t d)
{
	if (g->out->n == g->cap) {
		ibf_flow_t *v;

		if (g->cap == UINT32_MAX)
			return ibf_err_set(g->err, IBF_ERR_RANGE,
					   "%s: too many flows", g->p->name);
		v = ibf_array_grow32(g->out->flows, &g->cap,
				     (uint64_t)g->out->n + 1, sizeof(*v));
		if (!v)
			return ibf_err_set(g->err, IBF_ERR_NOMEM,
					   "out of memory");
		g->out->flows = v;
	}
	g->out->flows[g->out->n].src = s;
	g->out->flows[g->out->n].dst = d;
	g->out->flows[g->out->n++].count = 1;
	return IBF_OK;
}

static uint32_t *ranks_array(uint32_t n)
{
	uint32_t *v = malloc(((size_t)n + 1) * sizeof(*v)), i;

	if (v)
		for (i = 0; i < n; i++)
			v[i] = i;
	return v;
}

static ibf_status_t gen_perm(struct gen *g)
{
	uint32_t *v = ranks_array(g->n), i;
	ibf_status_t st = IBF_OK;

	if (!v)
		return ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
	/* Uniform over derangements by rejection: about e shuffles. */
	for (;;) {
		shuffle(&g->rng, v, g->n);
		for (i = 0; i < g->n && v[i] != i; i++)
			;
		if (i == g->n)
			break;
		for (i = 0; i < g->n; i++)
			v[i] = i;
	}
	for (i = 0; i < g->n && st == IBF_OK; i++)
		st = emit(g, i, v[i]);
	free(v);
	return st;
}

static ibf_status_t gen_shift(struct gen *g, uint32_t instance)
{
	uint32_t s, i;
	ibf_status_t st = IBF_OK;

	/* All shifts: instance i is shift i + 1; shift:K draws them. */
	s = g->p->k ? 1 + (uint32_t)ibf_xrng_below(&g->rng, g->n - 1)
		    : instance + 1;
	for (i = 0; i < g->n && st == IBF_OK; i++)
		st = emit(g, i, (uint32_t)(((uint64_t)i + s) % g->n));
	return st;
}

static ibf_status_t gen_bisect(struct gen *g)
{
	uint32_t *v = ranks_array(g->n), h = g->n / 2, i;
	ibf_status_t st = IBF_OK;

	if (!v)
		return ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
	shuffle(&g->rng, v, g->n);
	for (i = 0; i < h && st == IBF_OK; i++) {
		st = emit(g, v[i], v[h + i]);
		if (st == IBF_OK)
			st = emit(g, v[h + i], v[i]);
	}
	free(v);
	return st;
}

/* Pick grid sides (all >= minside) with product n, uniformly among the
 * ordered factorisations; false if none. */
static bool pick_grid(ibf_xrng_t *r, uint32_t n, unsigned dims,
		      uint32_t minside, uint32_t side[3])
{
	uint32_t count = 0, pick, x, y;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t seen = 0;

		if (pass == 1) {
			if (!count)
				return false;
			pick = (uint32_t)ibf_xrng_below(r, count);
		}
		for (x = minside; x <= n / minside; x++) {
			if (n % x)
				continue;
			if (dims == 2) {
				if (n / x < minside)
					continue;
				if (pass == 1 && seen++ == pick) {
					side[0] = x, side[1] = n / x;
					side[2] = 1;
					return true;
				}
				count += !pass;
				continue;
			}
			for (y = minside; y <= n / x / minside; y++) {
				if ((n / x) % y || n / x / y < minside)
					continue;
				if (pass == 1 && seen++ == pick) {
					side[0] = x, side[1] = y;
					side[2] = n / x / y;
					return true;
				}
				count += !pass;
			}
		}
	}
	return false;
}

static ibf_status_t gen_nn(struct gen *g)
{
	uint32_t side[3], nb[26], r, c[3];
	unsigned dims = g->p->dims, nnb, i, j;
	int o[3];
	ibf_status_t st = IBF_OK;

	if (!pick_grid(&g->rng, g->n, dims, 3, side) &&
	    !pick_grid(&g->rng, g->n, dims, 2, side))
		return ibf_err_set(g->err, IBF_ERR_INVALID,
				   "%s: %u ranks do not form a %uD grid with "
				   "sides >= 2", g->p->name, g->n, dims);
	for (r = 0; r < g->n && st == IBF_OK; r++) {
		c[0] = r % side[0];
		c[1] = r / side[0] % side[1];
		c[2] = r / side[0] / side[1];
		nnb = 0;
		for (o[2] = dims == 3 ? -1 : 0; o[2] <= (dims == 3); o[2]++)
		for (o[1] = -1; o[1] <= 1; o[1]++)
		for (o[0] = -1; o[0] <= 1; o[0]++) {
			unsigned nz = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);
			uint32_t q = 0, mul = 1;

			if (!nz || (!g->p->diag && nz > 1))
				continue;
			for (i = 0; i < 3; i++) {
				q += (c[i] + side[i] + o[i]) % side[i] * mul;
				mul *= side[i];
			}
			/* Sides of 2 make +1 and -1 the same rank. */
			for (j = 0; j < nnb && nb[j] != q; j++)
				;
			if (j == nnb && q != r)
				nb[nnb++] = q;
		}
		for (j = 0; j < nnb && st == IBF_OK; j++)
			st = emit(g, r, nb[j]);
	}
	return st;
}

static ibf_status_t gen_randn(struct gen *g)
{
	uint32_t d = g->p->d, *mark, *v = NULL, s, i, x;
	ibf_status_t st = IBF_OK;

	mark = calloc(g->n, sizeof(*mark));
	if (d > (g->n - 1) / 2)
		v = malloc((size_t)g->n * sizeof(*v));
	if (!mark || (d > (g->n - 1) / 2 && !v)) {
		st = ibf_err_set(g->err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (s = 0; s < g->n && st == IBF_OK; s++) {
		if (v) {
			/* Dense: partial Fisher-Yates over the others. */
			for (i = 0, x = 0; x < g->n; x++)
				if (x != s)
					v[i++] = x;
			for (i = 0; i < d && st == IBF_OK; i++) {
				uint32_t j = i + (uint32_t)ibf_xrng_below(&g->rng,
							       g->n - 1 - i);

				x = v[j];
				v[j] = v[i];
				v[i] = x;
				st = emit(g, s, x);
			}
			continue;
		}
		/* Sparse: rejection; mark[x] == s + 1 means taken. */
		mark[s] = s + 1;
		for (i = 0; i < d && st == IBF_OK; i++) {
			do
				x = (uint32_t)ibf_xrng_below(&g->rng, g->n);
			while (mark[x] == s + 1);
			mark[x] = s + 1;
			st = emit(g, s, x);
		}
	}
out:
	free(mark);
	free(v);
	return st;
}

static ibf_status_t gen_random(struct gen *g)
{
	uint64_t total = (uint64_t)g->n * g->p->d, i;
	ibf_status_t st = IBF_OK;

	if (total >= UINT32_MAX)
		return ibf_err_set(g->err, IBF_ERR_RANGE,
				   "%s: %llu flows are too many", g->p->name,
				   (unsigned long long)total);
	for (i = 0; i < total && st == IBF_OK; i++) {
		uint32_t s = (uint32_t)ibf_xrng_below(&g->rng, g->n);
		uint32_t d = (uint32_t)ibf_xrng_below(&g->rng, g->n - 1);

		st = emit(g, s, d >= s ? d + 1 : d);
	}
	return st;
}

static ibf_status_t gen_alltoall(struct gen *g)
{
	uint32_t s, d;
	ibf_status_t st = IBF_OK;

	if ((uint64_t)g->n * (g->n - 1) >= UINT32_MAX)
		return ibf_err_set(g->err, IBF_ERR_RANGE,
				   "%s: %u ranks make too many pairs",
				   g->p->name, g->n);
	for (s = 0; s < g->n && st == IBF_OK; s++)
		for (d = 0; d < g->n && st == IBF_OK; d++)
			if (d != s)
				st = emit(g, s, d);
	return st;
}

/* Seed of one instance: the pattern's kind and parameters, except K. */
static uint64_t instance_seed(const ibf_pattern_t *p, uint64_t seed,
			      uint32_t instance)
{
	uint64_t x = seed;

	x ^= ibf_splitmix64(&x) + (uint64_t)p->kind * 0x100000001b3ULL;
	x ^= ibf_splitmix64(&x) + ((uint64_t)p->d << 8 | p->dims << 1 | p->diag);
	x ^= ibf_splitmix64(&x) + instance;
	return ibf_splitmix64(&x);
}

static ibf_status_t check_size(const ibf_pattern_t *p, uint32_t n,
			       ibf_err_t *err)
{
	if (n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "%s: needs at least 2 ranks (have %u)",
				   p->name, n);
	if ((p->kind == IBF_PATTERN_RANDN) && p->d > n - 1)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "%s: D = %u distinct destinations need at "
				   "least %u ranks (have %u)", p->name, p->d,
				   p->d + 1, n);
	return IBF_OK;
}

ibf_status_t ibf_pattern_ranks(const ibf_pattern_t *p, uint32_t nranks,
			       uint32_t instance, uint64_t seed,
			       ibf_traffic_t *out, ibf_err_t *err)
{
	struct gen g = { .p = p, .n = nranks, .out = out, .err = err };
	ibf_status_t st;

	out->flows = NULL;
	out->n = 0;
	if (p->kind == IBF_PATTERN_FILE)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
				   "%s: a traffic file names hosts, not ranks",
				   p->name);
	if ((st = check_size(p, nranks, err)) != IBF_OK)
		return st;
	if (instance >= ibf_pattern_ninstances(p, nranks))
		return ibf_err_set(err, IBF_ERR_RANGE,
				   "%s: no instance %u (has %u)", p->name,
				   instance, ibf_pattern_ninstances(p, nranks));
	ibf_xrng_seed(&g.rng, instance_seed(p, seed, instance));
	switch (p->kind) {
	case IBF_PATTERN_PERM:     st = gen_perm(&g); break;
	case IBF_PATTERN_SHIFT:    st = gen_shift(&g, instance); break;
	case IBF_PATTERN_BISECT:   st = gen_bisect(&g); break;
	case IBF_PATTERN_NN:       st = gen_nn(&g); break;
	case IBF_PATTERN_RANDN:    st = gen_randn(&g); break;
	case IBF_PATTERN_RANDOM:   st = gen_random(&g); break;
	case IBF_PATTERN_ALLTOALL: st = gen_alltoall(&g); break;
	default:
		st = ibf_err_set(err, IBF_ERR_INVALID, "%s: bad pattern",
				 p->name);
	}
	if (st != IBF_OK)
		ibf_traffic_free(out);
	return st;
}

ibf_status_t ibf_pattern_traffic(const ibf_pattern_t *p,
				 const ibf_fabric_t *f,
				 const ibf_port_id_t *map, uint32_t nranks,
				 uint32_t instance, uint64_t seed,
				 ibf_traffic_t *out, ibf_err_t *err)
{
	ibf_status_t st;
	uint32_t i;

	if (p->kind == IBF_PATTERN_FILE) {
		st = ibf_traffic_read(f, p->path, out, err);
		if (st != IBF_OK)
			ibf_err_prefix(err, "%s: ", p->name);
		return st;
	}
	st = ibf_pattern_ranks(p, nranks, instance, seed, out, err);
	if (st != IBF_OK)
		return st;
	for (i = 0; i < out->n; i++) {
		out->flows[i].src = map[out->flows[i].src];
		out->flows[i].dst = map[out->flows[i].dst];
	}
	return IBF_OK;
}

ibf_status_t ibf_rankmap(const ibf_fabric_t *f, const ibf_port_id_t *order,
			 uint32_t norder, bool random, uint64_t seed,
			 ibf_port_id_t **map, uint32_t *nranks,
			 ibf_err_t *err)
{
	uint32_t n = order ? norder : f->nendpoints;
	ibf_xrng_t rng;
	ibf_port_id_t *m;

	*map = NULL;
	*nranks = 0;
	m = malloc(((size_t)n + 1) * sizeof(*m));
	if (!m)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	memcpy(m, order ? order : f->endpoints, (size_t)n * sizeof(*m));
	if (random) {
		/* Distinct stream from the patterns' seeds. */
		ibf_xrng_seed(&rng, seed ^ 0x6d61702d72616e64ULL);
		shuffle(&rng, m, n);
	}
	*map = m;
	*nranks = n;
	return IBF_OK;
}
