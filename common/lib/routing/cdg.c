/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Channel dependency graphs (see cdg.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "routing/cdg.h"

int ibf_cdg_init(ibf_cdg_t *g, uint32_t nch, bool ordered)
{
	uint32_t i;

	memset(g, 0, sizeof(*g));
	g->nch = nch;
	g->deps = calloc((size_t)nch * IBF_CDG_WORDS + 1, sizeof(*g->deps));
	if (!g->deps)
		return -1;
	if (!ordered)
		return 0;
	/* the witness store's bound, 64 channels a channel: witnesses of
	 * about 16 channels, a few per channel, on the fabrics measured */
	g->wit_max = nch < (UINT32_MAX - 65536) / 64 ? 64 * nch + 65536 :
						       UINT32_MAX;
	g->ord = malloc(((size_t)nch + 1) * sizeof(*g->ord));
	g->out = calloc((size_t)nch + 1, sizeof(*g->out));
	g->in = calloc((size_t)nch + 1, sizeof(*g->in));
	g->refused = calloc((size_t)nch * IBF_CDG_WORDS + 1,
			    sizeof(*g->refused));
	if (!g->ord || !g->out || !g->in || !g->refused)
		return -1;
	for (i = 0; i < nch; i++)
		g->ord[i] = i;
	return 0;
}

void ibf_cdg_free(ibf_cdg_t *g)
{
	uint32_t i;
	size_t k;

	for (i = 0; g->out && g->in && i < g->nch; i++) {
		free(g->out[i].v);
		free(g->in[i].v);
	}
	for (k = 0; g->refused && k < (size_t)g->nch * IBF_CDG_WORDS; k++)
		free(g->refused[k]);
	free(g->refused);
	free(g->wit);
	free(g->ord);
	free(g->out);
	free(g->in);
	free(g->deps);
	memset(g, 0, sizeof(*g));
}

/* ---- cycle search ---------------------------------------------------- */

struct dfs {
	uint8_t *color;     /* 0 white, 1 grey (on the stack), 2 black */
	uint32_t *stack;
	uint16_t *next;     /* next port number to try, per stack entry */
};

/* The stack from the grey channel `back` to its top is the cycle. */
static int save_cycle(const struct dfs *d, uint32_t top, uint32_t back,
		      uint32_t **cycle, uint32_t *len)
{
	uint32_t from = top;

	while (from > 0 && d->stack[from - 1] != back)
		from--;
	from--;
	*len = top - from;
	*cycle = malloc(sizeof(**cycle) * *len);
	if (!*cycle)
		return -1;
	memcpy(*cycle, d->stack + from, sizeof(**cycle) * *len);
	return 0;
}

/* Depth-first from c0; stops at the first back arc (1), 0 if none, -1
 * out of memory. */
static int dfs_from(const ibf_cdg_t *g, ibf_cdg_next_fn next, void *arg,
		    struct dfs *d, uint32_t c0, uint32_t **cycle,
		    uint32_t *len)
{
	uint32_t top = 1;

	d->stack[0] = c0;
	d->next[0] = 0;
	d->color[c0] = 1;
	while (top) {
		uint32_t c = d->stack[top - 1], nxt;
		const uint64_t *w = g->deps + (size_t)c * IBF_CDG_WORDS;
		unsigned k = d->next[top - 1];

		while (k < 64 * IBF_CDG_WORDS && !(w[k / 64] >> (k % 64) & 1))
			k++;
		if (k >= 64 * IBF_CDG_WORDS) {
			d->color[c] = 2;
			top--;
			continue;
		}
		d->next[top - 1] = (uint16_t)(k + 1);
		nxt = next(arg, c, k);
		if (d->color[nxt] == 1)
			return save_cycle(d, top, nxt, cycle, len) ? -1 : 1;
		if (d->color[nxt] == 0 && !ibf_cdg_has_deps(g, nxt)) {
			d->color[nxt] = 2; /* a sink, often ejection */
		} else if (d->color[nxt] == 0) {
			d->color[nxt] = 1;
			d->stack[top] = nxt;
			d->next[top++] = 0;
		}
	}
	return 0;
}

ibf_status_t ibf_cdg_find_cycle(const ibf_cdg_t *g, ibf_cdg_next_fn next,
				void *arg, uint32_t **cycle, uint32_t *len,
				ibf_err_t *err)
{
	uint32_t c;
	struct dfs d;
	int rc = 0;

	*cycle = NULL;
	*len = 0;
	d.color = calloc((size_t)g->nch + 1, 1);
	d.stack = malloc(sizeof(*d.stack) * ((size_t)g->nch + 1));
	d.next = malloc(sizeof(*d.next) * ((size_t)g->nch + 1));
	if (!d.color || !d.stack || !d.next)
		rc = -1;
	for (c = 0; rc == 0 && c < g->nch; c++)
		if (!d.color[c] && ibf_cdg_has_deps(g, c))
			rc = dfs_from(g, next, arg, &d, c, cycle, len);
	free(d.color);
	free(d.stack);
	free(d.next);
	if (rc < 0)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return IBF_OK;
}

/* ---- ordered graphs ------------------------------------------------------ */

int ibf_cdg_scratch_init(ibf_cdg_scratch_t *s, uint32_t nch)
{
	size_t n = (size_t)nch + 1;

	memset(s, 0, sizeof(*s));
	return IBF_CALLOC_ALL(IBF_CALLOC_ARRAY(s->mark, n),
			      IBF_CALLOC_ARRAY(s->stack, n),
			      IBF_CALLOC_ARRAY(s->set, n),
			      IBF_CALLOC_ARRAY(s->set_ord, n),
			      IBF_CALLOC_ARRAY(s->parent, n));
}

void ibf_cdg_scratch_free(ibf_cdg_scratch_t *s)
{
	IBF_FREE_ALL(s->mark, s->stack, s->set, s->set_ord, s->parent);
	memset(s, 0, sizeof(*s));
}

static int adj_push(ibf_cdg_adj_t *v, uint32_t x)
{
	uint32_t *nv = ibf_array_grow32(v->v, &v->cap, (uint64_t)v->n + 1,
					sizeof(*nv));

	if (!nv)
		return -1;
	v->v = nv;
	v->v[v->n++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Channels reachable from `from` along out (fwd) or in (!fwd) arcs whose
 * order lies strictly between the bounds, appended to s->set from *ns,
 * each with the channel it was reached from in s->parent.  Returns 1 if
 * `stop` is reached (a cycle; its s->parent set too). */
static int pk_search(const ibf_cdg_t *g, ibf_cdg_scratch_t *s, uint32_t from,
		     int fwd, uint32_t lo, uint32_t hi, uint32_t stop,
		     uint32_t *ns)
{
	uint32_t top = 0, k;

	s->mark[from] = s->epoch;
	s->stack[top++] = from;
	s->set[(*ns)++] = (uint64_t)g->ord[from] << 32 | from;
	while (top) {
		uint32_t x = s->stack[--top];
		const ibf_cdg_adj_t *adj = fwd ? &g->out[x] : &g->in[x];

		for (k = 0; k < adj->n; k++) {
			uint32_t w = adj->v[k];

			if (w == stop) {
				s->parent[w] = x;
				return 1;
			}
			if (s->mark[w] == s->epoch || g->ord[w] <= lo ||
			    g->ord[w] >= hi)
				continue;
			s->mark[w] = s->epoch;
			s->parent[w] = x;
			s->stack[top++] = w;
			s->set[(*ns)++] = (uint64_t)g->ord[w] << 32 | w;
		}
	}
	return 0;
}

/* Pearce-Kelly: when b precedes a, reorder the affected region so that
 * everything reaching a comes before everything b reaches. */
static int pk_reorder(ibf_cdg_t *g, ibf_cdg_scratch_t *s, uint32_t a,
		      uint32_t b)
{
	uint32_t lb = g->ord[b], ub = g->ord[a], nb = 0, nf, i;

	if (lb >= ub)
		return 0;
	if (++s->epoch == 0) { /* marks of 2^32 searches ago look fresh */
		memset(s->mark, 0, ((size_t)g->nch + 1) * sizeof(*s->mark));
		s->epoch = 1;
	}
	/* forward from b inside (lb, ub): meeting a is a cycle */
	if (pk_search(g, s, b, 1, lb, ub, a, &nb))
		return 1;
	nf = nb;
	pk_search(g, s, a, 0, lb, ub, UINT32_MAX, &nb);
	/* backward set (ends at a) goes before the forward set */
	qsort(s->set, nf, sizeof(*s->set), cmp_u64);
	qsort(s->set + nf, nb - nf, sizeof(*s->set), cmp_u64);
	for (i = 0; i < nb; i++)
		s->set_ord[i] = (uint32_t)(s->set[i] >> 32);
	qsort(s->set_ord, nb, sizeof(*s->set_ord), ibf_cmp_u32);
	for (i = 0; i < nb - nf; i++)
		g->ord[(uint32_t)s->set[nf + i]] = s->set_ord[i];
	for (i = 0; i < nf; i++)
		g->ord[(uint32_t)s->set[i]] = s->set_ord[nb - nf + i];
	return 0;
}

/* The refusal record of a -> (port bport), NULL if its block is not
 * there. */
static ibf_cdg_refusal_t *refusal(const ibf_cdg_t *g, uint32_t a,
				  unsigned bport)
{
	ibf_cdg_refusal_t *blk =
		g->refused[(size_t)a * IBF_CDG_WORDS + bport / 64];

	return blk ? &blk[bport % 64] : NULL;
}

static bool has_arc(const ibf_cdg_t *g, uint32_t x, uint32_t y)
{
	const ibf_cdg_adj_t *o = &g->out[x], *i = &g->in[y];
	const ibf_cdg_adj_t *v = o->n <= i->n ? o : i;
	uint32_t want = v == o ? y : x, k;

	for (k = 0; k < v->n; k++)
		if (v->v[k] == want)
			return true;
	return false;
}

/* Does the witness of r, a path from b back to a, still hold? */
static bool witness_holds(const ibf_cdg_t *g, const ibf_cdg_refusal_t *r)
{
	const uint32_t *w = g->wit + r->off;
	uint32_t k;

	if (!r->len)
		return false;
	for (k = 0; k + 1 < r->len; k++)
		if (!has_arc(g, w[k + 1], w[k]))
			return false;
	return true;
}

/* Room for n more witness channels: 0, or -1 (keep no witness).  Old
 * witnesses of dependencies refused again are garbage; past the bound
 * every witness is dropped and the store starts over. */
static int wit_room(ibf_cdg_t *g, uint32_t n)
{
	uint32_t *nw;
	size_t i;

	if (n > g->wit_max / 2)
		return -1;
	if (g->nwit + (uint64_t)n > g->wit_max) {
		for (i = 0; i < (size_t)g->nch * IBF_CDG_WORDS; i++) {
			uint32_t k;

			for (k = 0; g->refused[i] && k < 64; k++)
				g->refused[i][k].len = 0;
		}
		g->nwit = 0;
	}
	nw = ibf_array_grow32(g->wit, &g->capwit, (uint64_t)g->nwit + n,
			      sizeof(*nw));
	if (!nw)
		return -1;
	g->wit = nw;
	return 0;
}

/* Remember that a -> (port bport) closes a cycle, with the path from b
 * to a that the search found (s->parent, from a back to b); without
 * memory it is simply searched for again next time. */
static void refuse(ibf_cdg_t *g, const ibf_cdg_scratch_t *s, uint32_t a,
		   uint32_t b, unsigned bport)
{
	ibf_cdg_refusal_t **blk =
		&g->refused[(size_t)a * IBF_CDG_WORDS + bport / 64];
	ibf_cdg_refusal_t *r;
	uint32_t n = 1, x;

	if (!*blk)
		*blk = calloc(64, sizeof(**blk));
	if (!*blk)
		return;
	r = &(*blk)[bport % 64];
	r->stamp = g->removals + 1;
	r->len = 0;
	for (x = a; x != b; x = s->parent[x])
		n++;
	if (wit_room(g, n))
		return;
	r->off = g->nwit;
	r->len = n;
	for (x = a; x != b; x = s->parent[x])
		g->wit[g->nwit++] = x;
	g->wit[g->nwit++] = b;
}

int ibf_cdg_insert(ibf_cdg_t *g, ibf_cdg_scratch_t *s, uint32_t a,
		   uint32_t b, unsigned bport)
{
	ibf_cdg_refusal_t *r = refusal(g, a, bport);

	/* refused with nothing taken back since: the cycle is still there */
	if (r && r->stamp == g->removals + 1)
		return 1;
	if (r && witness_holds(g, r)) {
		r->stamp = g->removals + 1;
		return 1;
	}
	if (pk_reorder(g, s, a, b)) {
		refuse(g, s, a, b, bport);
		return 1;
	}
	if (adj_push(&g->out[a], b))
		return -1;
	if (adj_push(&g->in[b], a)) {
		g->out[a].n--;
		return -1;
	}
	ibf_cdg_mark(g, a, bport);
	return 0;
}

void ibf_cdg_remove_newest(ibf_cdg_t *g, uint32_t a, uint32_t b,
			   unsigned bport)
{
	g->out[a].n--;
	g->in[b].n--;
	g->deps[(size_t)a * IBF_CDG_WORDS + bport / 64] &=
		~(UINT64_C(1) << (bport % 64));
	g->ndeps--;
	/* every refusal is now in doubt; at the wrap (stamp 0 is "never")
	 * forget them all */
	if (++g->removals == UINT32_MAX) {
		size_t i;

		for (i = 0; i < (size_t)g->nch * IBF_CDG_WORDS; i++) {
			uint32_t k;

			for (k = 0; g->refused[i] && k < 64; k++)
				g->refused[i][k].stamp = 0;
		}
		g->removals = 0;
	}
}
