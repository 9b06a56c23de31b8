/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Node-aware all-to-all plans (ibflow/liquid_hosts.h): the ranks grouped
 * into units (their CA ports), the units' all-to-all planned by
 * ibf_liquid_plan_alltoall(), predecessors per unit pair walked from the
 * unit plan's paths (never stored as link sets), and each rank's slice.
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/liquid_hosts.h>

#include "base/array.h"
#include "base/hash.h"
#include "sched/liquid_a2a.h"
#include "sched/liquid_volume.h"

struct ibf_liquid_hplan {
	ibf_liquid_hplan_info_t info;
	ibf_liquid_plan_t *up;       /* the units' plan; NULL below 2 units */
	uint32_t *unit_of;           /* [nranks] */
	uint32_t *unit_off;          /* [nunits + 1] into unit_rank */
	uint32_t *unit_rank;         /* [nranks] */
	ibf_port_id_t *unit_port;    /* [nunits] */
	/* Unit pairs in frame order (ibf_liquid_hplan_view_t). */
	uint32_t *pair_src, *pair_dst, *pair_frame;
	uint64_t *frame_off;
	uint64_t *pred_off, *succ_off;
	uint32_t *pred, *succ;
	uint32_t *xpred_off, *xsucc_off;   /* the next call's, likewise (at
					      most one entry per link) */
	uint32_t *xpred, *xsucc;
	/* Unit u's sends: pairs send_pair[u (U - 1) ..], frame order; its
	 * receives recv_pair likewise.  Only on request
	 * (ibf_liquid_hplan_unit_lists). */
	uint32_t *send_pair, *recv_pair;
	uint32_t *frame_of_unit;     /* [nframes] the frame of each frame of
					the unit plan; NULL: the same */
	uint32_t *frame_of_pair;     /* [U * U] placed by volume, or NULL */
};

static ibf_status_t nomem(ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_NOMEM, "liquid hosts: out of memory");
}

/* ---- units ------------------------------------------------------------------ */

ibf_status_t ibf_liquid_units(const ibf_port_id_t *rank_port,
			      uint32_t nranks, uint32_t *unit_of,
			      uint32_t *nunits, ibf_err_t *err)
{
	struct ibf_hash *h = ibf_hash_create_u64();
	uint32_t u = 0;

	*nunits = 0;
	if (!h)
		return nomem(err);
	for (uint32_t r = 0; r < nranks; r++) {
		uint32_t old = ibf_hash_get_u64(h, rank_port[r]);

		if (old == IBF_HASH_NONE) {
			if (ibf_hash_put_u64(h, rank_port[r], u, NULL) !=
			    IBF_OK) {
				ibf_hash_destroy(h);
				return nomem(err);
			}
			old = u++;
		}
		unit_of[r] = old;
	}
	ibf_hash_destroy(h);
	*nunits = u;
	return IBF_OK;
}

static ibf_status_t units_build(ibf_liquid_hplan_t *p,
				const ibf_port_id_t *rank_port, uint32_t n,
				ibf_err_t *err)
{
	uint32_t U, *fill;
	ibf_status_t st;

	p->unit_of = malloc(((size_t)n + 1) * sizeof(uint32_t));
	p->unit_rank = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!p->unit_of || !p->unit_rank)
		return nomem(err);
	st = ibf_liquid_units(rank_port, n, p->unit_of, &U, err);
	if (st != IBF_OK)
		return st;
	p->unit_off = calloc((size_t)U + 2, sizeof(uint32_t));
	p->unit_port = malloc(((size_t)U + 1) * sizeof(ibf_port_id_t));
	fill = calloc((size_t)U + 1, sizeof(uint32_t));
	if (!p->unit_off || !p->unit_port || !fill) {
		free(fill);
		return nomem(err);
	}
	for (uint32_t r = 0; r < n; r++) {
		p->unit_off[p->unit_of[r] + 1]++;
		p->unit_port[p->unit_of[r]] = rank_port[r];
	}
	for (uint32_t u = 0; u < U; u++) {
		p->unit_off[u + 1] += p->unit_off[u];
		if (p->unit_off[u + 1] - p->unit_off[u] > p->info.max_ranks)
			p->info.max_ranks = p->unit_off[u + 1] -
					    p->unit_off[u];
	}
	for (uint32_t r = 0; r < n; r++)
		p->unit_rank[p->unit_off[p->unit_of[r]] +
			     fill[p->unit_of[r]]++] = r;
	free(fill);
	p->info.nranks = n;
	p->info.nunits = U;
	return IBF_OK;
}

static uint64_t ranks_of(const ibf_liquid_hplan_t *p, uint32_t u)
{
	return p->unit_off[u + 1] - p->unit_off[u];
}

static uint64_t volume(const ibf_liquid_hplan_t *p, uint64_t k)
{
	return ranks_of(p, p->pair_src[k]) * ranks_of(p, p->pair_dst[k]);
}

/* ---- unit pairs in frame order ---------------------------------------------- */

static ibf_status_t pairs_build(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	uint64_t T = p->info.npairs, *off;
	uint32_t *pr, nf = p->info.nframes;

	if (ibf_liquid_plan_frames(p->up, &off, &pr, err) != IBF_OK)
		return IBF_ERR_NOMEM;
	p->frame_off = off;
	p->pair_src = malloc((T + 1) * sizeof(uint32_t));
	p->pair_dst = malloc((T + 1) * sizeof(uint32_t));
	p->pair_frame = malloc((T + 1) * sizeof(uint32_t));
	if (!p->pair_src || !p->pair_dst || !p->pair_frame) {
		free(pr);
		return nomem(err);
	}
	for (uint32_t f = 0; f < nf; f++)
		for (uint64_t k = off[f]; k < off[f + 1]; k++) {
			p->pair_src[k] = pr[2 * k];
			p->pair_dst[k] = pr[2 * k + 1];
			p->pair_frame[k] = f;
		}
	free(pr);
	return IBF_OK;
}

/* ---- predecessors ----------------------------------------------------------- */

/* Growing CSR of the predecessor lists, appended pair by pair in frame
 * order. */
struct pred_build {
	const struct lq_a2a *a;
	uint32_t *first;       /* [links] the link's first user */
	uint32_t *last;        /* [links] the link's latest user */
	uint64_t *wload;       /* [links] blocks over the link */
	uint64_t *end;         /* [pairs] when the pair's blocks are in, in
				  block times, each pair starting as soon as
				  its predecessors have arrived */
	uint32_t *cand;        /* [longest path + 1] */
	uint32_t *buf;
	uint64_t fill, cap;
};

static bool has_pred(const ibf_liquid_hplan_t *p, const struct pred_build *b,
		     uint32_t k, uint32_t q)
{
	uint64_t lo = p->pred_off[k], hi = p->pred_off[k + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (b->buf[mid] == q)
			return true;
		if (b->buf[mid] < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Pair k's path: the source unit's own link, then the tail from its
 * switch.  n links into out (room for H + 1). */
static uint32_t pair_path(const struct lq_a2a *a, uint32_t s, uint32_t d,
			  uint32_t *out)
{
	uint32_t len;
	const uint32_t *tl = lq_a2a_tail(a, (uint64_t)a->grp[s] * a->n + d,
					 &len);

	out[0] = a->inj[s];
	memcpy(out + 1, tl, (size_t)len * sizeof(uint32_t));
	return len + 1;
}

/* Pairs in frame order read their tails in no order the caches follow
 * (at 1,024 leaf switches x 4,096 hosts the tails are 100 MB): fetch a
 * pair's tail this many pairs ahead. */
#define TAIL_AHEAD 16

/* GCC 12 at -O2 emits no instruction for __builtin_prefetch here (none
 * in the object's disassembly), so on x86 the instruction is written. */
static inline void fetch_line(const void *x)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)x));
#else
	__builtin_prefetch(x);
#endif
}

static inline void tail_prefetch(const struct lq_a2a *a,
				 const ibf_liquid_hplan_t *p, uint64_t k)
{
	uint64_t t = (uint64_t)a->grp[p->pair_src[k]] * a->n + p->pair_dst[k];

	fetch_line(&a->tlen[t]);
	fetch_line(&a->tl[t * a->H]);
	fetch_line(&a->tl[t * a->H + a->H - 1]);
}

/* k's end from its predecessors' (they are all earlier): the plan's
 * length in block times (plan_blocks) is the latest. */
static void chain_end(ibf_liquid_hplan_t *p, struct pred_build *b,
		      uint64_t k, uint64_t vol)
{
	uint64_t start = 0;

	for (uint64_t x = p->pred_off[k]; x < p->pred_off[k + 1]; x++)
		if (b->end[b->buf[x]] > start)
			start = b->end[b->buf[x]];
	b->end[k] = start + vol;
	if (b->end[k] > p->info.plan_blocks)
		p->info.plan_blocks = b->end[k];
}

/* k's list: the distinct latest users of its links, minus any already on
 * the list of another of them (it arrived before that one started).
 * Pairs come in frame order. */
static bool collect(ibf_liquid_hplan_t *p, struct pred_build *b, uint64_t k)
{
	uint32_t path[LQ_A2A_MAX_PATH], nc = 0;
	uint32_t np = pair_path(b->a, p->pair_src[k], p->pair_dst[k], path);
	uint64_t vol = volume(p, k);

	for (uint32_t i = 0; i < np; i++) {
		b->wload[path[i]] += vol;
		if (b->last[path[i]] != LQ_NONE)
			b->cand[nc++] = b->last[path[i]];
		else
			b->first[path[i]] = (uint32_t)k;
	}
	/* a path's few links: insertion sort */
	for (uint32_t i = 1; i < nc; i++) {
		uint32_t v = b->cand[i], j = i;

		for (; j && b->cand[j - 1] > v; j--)
			b->cand[j] = b->cand[j - 1];
		b->cand[j] = v;
	}
	if (b->fill + nc > b->cap) {
		uint64_t cap = b->cap * 2 + nc + 1024;
		uint32_t *nb = realloc(b->buf, cap * sizeof(uint32_t));

		if (!nb)
			return false;
		b->buf = nb;
		b->cap = cap;
	}
	/* a list holds earlier pairs only: cand[i] can be on the list of
	 * a later candidate alone (cand is ascending) */
	for (uint32_t i = 0; i < nc; i++) {
		bool implied = i > 0 && b->cand[i] == b->cand[i - 1];

		for (uint32_t j = i + 1; j < nc && !implied; j++)
			implied = b->cand[j] != b->cand[i] &&
				  has_pred(p, b, b->cand[j], b->cand[i]);
		if (!implied)
			b->buf[b->fill++] = b->cand[i];
	}
	p->pred_off[k + 1] = b->fill;
	chain_end(p, b, k, vol);
	/* k is now its links' latest user: the other pairs of its frame use
	 * none of them */
	for (uint32_t i = 0; i < np; i++)
		b->last[path[i]] = (uint32_t)k;
	if (b->fill - p->pred_off[k] > p->info.max_pred)
		p->info.max_pred = (uint32_t)(b->fill - p->pred_off[k]);
	return true;
}

/* Without every path traced (the unit plan's limit expired while
 * tracing) the links are unknown: each pair waits for the one before. */
static void chain(ibf_liquid_hplan_t *p, struct pred_build *b)
{
	for (uint64_t k = 0; k < p->info.npairs; k++) {
		if (k)
			b->buf[b->fill++] = (uint32_t)(k - 1);
		p->pred_off[k + 1] = b->fill;
		chain_end(p, b, k, volume(p, k));
	}
	p->info.max_pred = p->info.npairs > 1;
}

/* The inverse of the lists off/val over T pairs: *ioff [T + 2] (the
 * first T + 1 used), *ival, ascending within a pair. */
static ibf_status_t invert(uint64_t T, const uint64_t *off,
			   const uint32_t *val, uint64_t **ioff,
			   uint32_t **ival, ibf_err_t *err)
{
	uint64_t m = off[T], *io = calloc(T + 2, sizeof(uint64_t));
	uint32_t *iv = malloc((m + 1) * sizeof(uint32_t));

	*ioff = io;
	*ival = iv;
	if (!io || !iv)
		return nomem(err);
	for (uint64_t x = 0; x < m; x++)
		io[val[x] + 2]++;
	for (uint64_t k = 0; k < T; k++)
		io[k + 2] += io[k + 1];
	for (uint64_t k = 0; k < T; k++)
		for (uint64_t x = off[k]; x < off[k + 1]; x++)
			iv[io[val[x] + 1]++] = (uint32_t)k;
	return IBF_OK;
}

static ibf_status_t succ_build(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	return invert(p->info.npairs, p->pred_off, p->pred, &p->succ_off,
		      &p->succ, err);
}

/* Per pair k, the distinct val[x] of the links x with key[x] == k
 * (LQ_NONE: an unused link), ascending: *ooff [T + 2] (the first T + 1
 * used), 32-bit (at most one entry per link), *oval.  A counting sort by
 * key, then unique per pair: O(links + pairs). */
static ibf_status_t links_by(uint64_t T, const uint32_t *key,
			     const uint32_t *val_of, uint32_t nlinks,
			     uint32_t **ooff, uint32_t **oval, ibf_err_t *err)
{
	uint32_t *off = calloc(T + 2, sizeof(uint32_t));
	uint32_t *val = malloc(((size_t)nlinks + 2) * sizeof(uint32_t));
	uint32_t m = 0;

	*ooff = off;
	*oval = val;
	if (!off || !val)
		return nomem(err);
	for (uint32_t x = 0; x < nlinks; x++)
		if (key[x] != LQ_NONE)
			off[key[x] + 2]++;
	for (uint64_t k = 0; k < T; k++)
		off[k + 2] += off[k + 1];
	for (uint32_t x = 0; x < nlinks; x++)
		if (key[x] != LQ_NONE)
			val[off[key[x] + 1]++] = val_of[x];
	for (uint64_t k = 0; k < T; k++) {
		uint32_t from = off[k], to = off[k + 1];

		off[k] = m;
		if (to == from)
			continue;
		m += ibf_sort_unique_u32(val + from, to - from);
		memmove(val + off[k], val + from,
			(size_t)(m - off[k]) * sizeof(uint32_t));
	}
	off[T] = m;
	return IBF_OK;
}

/* Without the links (chain): the first pair waits for the last. */
static ibf_status_t xchain(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	uint64_t T = p->info.npairs;

	p->xpred_off = calloc(T + 2, sizeof(uint32_t));
	p->xsucc_off = calloc(T + 2, sizeof(uint32_t));
	p->xpred = malloc(2 * sizeof(uint32_t));
	p->xsucc = malloc(2 * sizeof(uint32_t));
	if (!p->xpred_off || !p->xsucc_off || !p->xpred || !p->xsucc)
		return nomem(err);
	if (T > 1) {
		p->xpred[0] = (uint32_t)(T - 1);
		p->xsucc[0] = 0;
		for (uint64_t k = 1; k <= T; k++)
			p->xpred_off[k] = 1;
		p->xsucc_off[T] = 1;
	}
	return IBF_OK;
}

/* The plan run again right after itself (a loop of calls): pair k waits,
 * on each link it is the first to use, for that link's last user of the
 * previous call (ibf_liquid_deps_t's xpred); xsucc the inverse: the
 * first users of the links q is the last to use.  From each link's first
 * and last user, O(links + pairs); without them (chain), xchain(). */
static ibf_status_t xpreds_build(ibf_liquid_hplan_t *p, const uint32_t *first,
				 const uint32_t *last, uint32_t nlinks,
				 ibf_err_t *err)
{
	uint64_t T = p->info.npairs;
	ibf_status_t st;

	if (!first)
		return xchain(p, err);
	st = links_by(T, first, last, nlinks, &p->xpred_off, &p->xpred, err);
	if (st == IBF_OK)
		st = links_by(T, last, first, nlinks, &p->xsucc_off,
			      &p->xsucc, err);
	return st;
}

static ibf_status_t preds_build(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	const struct lq_a2a *a = lq_plan_a2a(p->up);
	struct pred_build b = { .a = a };
	uint64_t T = p->info.npairs;
	ibf_status_t st = IBF_OK;

	p->pred_off = calloc(T + 2, sizeof(uint64_t));
	b.first = malloc(((size_t)a->L + 1) * sizeof(uint32_t));
	b.last = malloc(((size_t)a->L + 1) * sizeof(uint32_t));
	b.wload = calloc((size_t)a->L + 1, sizeof(uint64_t));
	b.cand = malloc(((size_t)a->H + 2) * sizeof(uint32_t));
	b.cap = a->complete ? 3 * T + 1024 : T + 1;
	b.buf = malloc(b.cap * sizeof(uint32_t));
	b.end = malloc((T + 1) * sizeof(uint64_t));
	if (!p->pred_off || !b.first || !b.last || !b.wload || !b.cand ||
	    !b.buf || !b.end || a->H + 1 > LQ_A2A_MAX_PATH) {
		st = a->H + 1 > LQ_A2A_MAX_PATH ?
		     ibf_err_set(err, IBF_ERR_RANGE, "liquid hosts: a path "
				 "of %u links: more than %u", a->H + 1,
				 LQ_A2A_MAX_PATH) : nomem(err);
		goto out;
	}
	for (uint32_t x = 0; x < a->L; x++)
		b.first[x] = b.last[x] = LQ_NONE;
	p->info.max_path = a->H + 1;
	if (!a->complete) {
		chain(p, &b);
	} else {
		for (uint64_t k = 0; k < T && st == IBF_OK; k++) {
			if (k + TAIL_AHEAD < T)
				tail_prefetch(a, p, k + TAIL_AHEAD);
			if (!collect(p, &b, k))
				st = nomem(err);
		}
		for (uint32_t x = 0; x < a->L; x++)
			if (b.wload[x] > p->info.bound_blocks)
				p->info.bound_blocks = b.wload[x];
	}
	p->pred = b.buf;
	b.buf = NULL;
	p->info.ndeps = p->pred_off[T];
	if (st == IBF_OK)
		st = succ_build(p, err);
	if (st == IBF_OK)
		st = xpreds_build(p, a->complete ? b.first : NULL, b.last,
				  a->L, err);
out:
	free(b.first);
	free(b.last);
	free(b.wload);
	free(b.cand);
	free(b.buf);
	free(b.end);
	return st;
}

/* Each unit's sends and receives in frame order. */
ibf_status_t ibf_liquid_hplan_unit_lists(ibf_liquid_hplan_t *p,
					 ibf_err_t *err)
{
	uint32_t U = p->info.nunits, *ns, *nr;
	uint64_t T = p->info.npairs;

	if (p->send_pair || U < 2)
		return IBF_OK;
	p->send_pair = malloc((T + 1) * sizeof(uint32_t));
	p->recv_pair = malloc((T + 1) * sizeof(uint32_t));
	ns = calloc(2 * (size_t)U + 1, sizeof(uint32_t));
	if (!p->send_pair || !p->recv_pair || !ns) {
		free(ns);
		return nomem(err);
	}
	nr = ns + U;
	for (uint64_t k = 0; k < T; k++) {
		uint32_t s = p->pair_src[k], d = p->pair_dst[k];

		p->send_pair[(uint64_t)s * (U - 1) + ns[s]++] = (uint32_t)k;
		p->recv_pair[(uint64_t)d * (U - 1) + nr[d]++] = (uint32_t)k;
	}
	free(ns);
	return IBF_OK;
}

static uint64_t fnv(uint64_t h, uint32_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* Four FNV-1a lanes (sources, destinations, frames, predecessors): each
 * a chain of multiplications, run side by side. */
static uint64_t fingerprint(const ibf_liquid_hplan_t *p)
{
	uint64_t h[4] = { 0xcbf29ce484222325ull, 0xcbf29ce484222325ull,
			  0xcbf29ce484222325ull, 0xcbf29ce484222325ull };
	uint64_t T = p->info.npairs, m = T ? p->pred_off[T] : 0;

	for (uint64_t k = 0; k < T; k++) {
		h[0] = fnv(h[0], p->pair_src[k]);
		h[1] = fnv(h[1], p->pair_dst[k]);
		h[2] = fnv(h[2], p->pair_frame[k]);
		if (k < m)
			h[3] = fnv(h[3], p->pred[k]);
	}
	for (uint64_t x = T; x < m; x++)
		h[3] = fnv(h[3], p->pred[x]);
	for (int i = 1; i < 4; i++)
		h[0] = fnv(fnv(h[0], (uint32_t)h[i]), (uint32_t)(h[i] >> 32));
	return h[0];
}

/* ---- frame order for hosts of different rank counts ------------------------ */

static void deps_free(ibf_liquid_hplan_t *p)
{
	free(p->pred_off);
	free(p->pred);
	free(p->succ_off);
	free(p->succ);
	free(p->xpred_off);
	free(p->xpred);
	free(p->xsucc_off);
	free(p->xsucc);
	p->pred_off = p->succ_off = NULL;
	p->xpred_off = p->xsucc_off = NULL;
	p->pred = p->succ = p->xpred = p->xsucc = NULL;
	p->info.plan_blocks = 0;
	p->info.max_pred = 0;
	p->info.ndeps = 0;
}

/* New frame g is old frame ord[g]. */
static ibf_status_t frames_permute(ibf_liquid_hplan_t *p, const uint32_t *ord,
				   ibf_err_t *err)
{
	uint64_t T = p->info.npairs, x = 0;
	uint32_t nf = p->info.nframes;
	uint32_t *ns = malloc((T + 1) * sizeof(uint32_t));
	uint32_t *nd = malloc((T + 1) * sizeof(uint32_t));
	uint32_t *nfr = malloc((T + 1) * sizeof(uint32_t));
	uint64_t *noff = malloc(((size_t)nf + 2) * sizeof(uint64_t));

	if (!ns || !nd || !nfr || !noff) {
		free(ns);
		free(nd);
		free(nfr);
		free(noff);
		return nomem(err);
	}
	for (uint32_t g = 0; g < nf; g++) {
		uint32_t f = ord[g];

		noff[g] = x;
		for (uint64_t k = p->frame_off[f]; k < p->frame_off[f + 1];
		     k++, x++) {
			ns[x] = p->pair_src[k];
			nd[x] = p->pair_dst[k];
			nfr[x] = g;
		}
	}
	noff[nf] = x;
	free(p->pair_src);
	free(p->pair_dst);
	free(p->pair_frame);
	free(p->frame_off);
	p->pair_src = ns;
	p->pair_dst = nd;
	p->pair_frame = nfr;
	p->frame_off = noff;
	return IBF_OK;
}

struct frame_key {
	uint64_t big;
	uint32_t f;
};

static int by_big_first(const void *x, const void *y)
{
	const struct frame_key *a = x, *b = y;

	if (a->big != b->big)
		return a->big > b->big ? -1 : 1;
	return a->f < b->f ? -1 : a->f > b->f;
}

static bool uniform(const ibf_liquid_hplan_t *p)
{
	for (uint32_t u = 1; u < p->info.nunits; u++)
		if (ranks_of(p, u) != ranks_of(p, 0))
			return false;
	return true;
}

/* Hosts of different rank counts: a frame mixing pairs of 1 and 64 blocks
 * lets the releases chain them.  The frames ordered by their largest pair,
 * biggest first, chain less on some fabrics (kary:4,3 with 1-8 ranks per
 * host: +30 % -> +13 % over the bound) and more on others: both chains
 * are computed and the shorter kept. */
static ibf_status_t try_volume_order(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	uint32_t nf = p->info.nframes, *ord, *inv;
	struct frame_key *key;
	uint64_t before = p->info.plan_blocks;
	ibf_status_t st;

	if (uniform(p) || nf < 2)
		return IBF_OK;
	key = malloc((size_t)nf * sizeof(*key));
	ord = malloc(2 * (size_t)nf * sizeof(uint32_t));
	if (!key || !ord) {
		free(key);
		free(ord);
		return nomem(err);
	}
	inv = ord + nf;
	for (uint32_t f = 0; f < nf; f++) {
		key[f].f = f;
		key[f].big = 0;
		for (uint64_t k = p->frame_off[f]; k < p->frame_off[f + 1]; k++)
			if (volume(p, k) > key[f].big)
				key[f].big = volume(p, k);
	}
	qsort(key, nf, sizeof(*key), by_big_first);
	for (uint32_t g = 0; g < nf; g++) {
		ord[g] = key[g].f;
		inv[key[g].f] = g;
	}
	free(key);
	deps_free(p);
	st = frames_permute(p, ord, err);
	if (st == IBF_OK)
		st = preds_build(p, err);
	if (st == IBF_OK && p->info.plan_blocks >= before) {
		deps_free(p);
		st = frames_permute(p, inv, err);
		if (st == IBF_OK)
			st = preds_build(p, err);
		free(ord);
		return st;
	}
	/* keep the old -> new frame map (inv) for ibf_liquid_hplan_frame */
	memmove(ord, inv, (size_t)nf * sizeof(uint32_t));
	p->frame_of_unit = ord;
	return st;
}

/* Each pair placed by its volume (liquid_volume.c), kept if it chains
 * less. */
static ibf_status_t try_volume_place(ibf_liquid_hplan_t *p, ibf_err_t *err)
{
	struct lq_vpairs v = { p->info.npairs, p->info.nunits,
			       p->info.nframes, p->pair_src, p->pair_dst,
			       p->pair_frame, p->frame_off, NULL };
	uint64_t chain = p->info.plan_blocks;
	ibf_status_t st = lq_volume_place(lq_plan_a2a(p->up), p->unit_off,
					  p->info.bound_blocks, &chain, &v,
					  err);

	if (st != IBF_OK || !v.frame_of_pair)
		return st;
	p->pair_src = v.src;
	p->pair_dst = v.dst;
	p->pair_frame = v.frame;
	p->frame_off = v.frame_off;
	p->info.nframes = v.nframes;
	p->frame_of_pair = v.frame_of_pair;
	deps_free(p);
	return preds_build(p, err);
}

static ibf_status_t plan_units(ibf_liquid_hplan_t *p, const ibf_lfts_t *l,
			       const ibf_liquid_opts_t *opts, ibf_err_t *err)
{
	const ibf_liquid_plan_info_t *ui;
	ibf_status_t st;
	uint32_t U = p->info.nunits;

	st = ibf_liquid_plan_alltoall(l, p->unit_port, U, opts, &p->up, err);
	if (st != IBF_OK)
		return st;
	ui = ibf_liquid_plan_info(p->up);
	p->info.npairs = ui->ntransfers;
	p->info.nframes = ui->nframes;
	p->info.duration = ui->duration;
	p->info.timed_out = ui->timed_out;
	p->info.method = ui->method;
	p->info.rr_frames = ui->rr_frames;
	p->info.unit_seconds = ui->seconds;
	st = pairs_build(p, err);
	if (st == IBF_OK)
		st = preds_build(p, err);
	if (st == IBF_OK)
		st = try_volume_order(p, err);
	if (st == IBF_OK)
		st = try_volume_place(p, err);
	return st;
}

ibf_status_t ibf_liquid_hplan_create(const ibf_lfts_t *l,
				     const ibf_port_id_t *rank_port,
				     uint32_t nranks,
				     const ibf_liquid_opts_t *opts,
				     ibf_liquid_hplan_t **out,
				     ibf_err_t *err)
{
	ibf_liquid_hplan_t *p = calloc(1, sizeof(*p));
	ibf_liquid_opts_t o = opts ? *opts : (ibf_liquid_opts_t){ 0 };
	double t0 = lq_now();
	ibf_status_t st;

	*out = NULL;
	ibf_err_clear(err);
	if (!p)
		return nomem(err);
	if (o.time_limit <= 0)
		o.time_limit = IBF_LIQUID_HPLAN_TIME_LIMIT;
	if (nranks < 1) {
		free(p);
		return ibf_err_set(err, IBF_ERR_INVALID, "liquid hosts: no "
				   "rank");
	}
	st = units_build(p, rank_port, nranks, err);
	for (uint32_t u = 0; st == IBF_OK && u < p->info.nunits; u++) {
		uint64_t c = ranks_of(p, u);

		p->info.local_blocks += c * (c - 1);
		p->info.net_blocks += c * (nranks - c);
	}
	if (st == IBF_OK && p->info.nunits >= 2)
		st = plan_units(p, l, &o, err);
	if (st != IBF_OK) {
		ibf_liquid_hplan_destroy(p);
		return st;
	}
	p->info.liquid = !p->info.timed_out &&
			 p->info.plan_blocks == p->info.bound_blocks;
	p->info.fingerprint = fingerprint(p);
	p->info.seconds = lq_now() - t0;
	*out = p;
	return IBF_OK;
}

void ibf_liquid_hplan_destroy(ibf_liquid_hplan_t *p)
{
	if (!p)
		return;
	ibf_liquid_plan_destroy(p->up);
	free(p->unit_of);
	free(p->unit_off);
	free(p->unit_rank);
	free(p->unit_port);
	free(p->pair_src);
	free(p->pair_dst);
	free(p->pair_frame);
	free(p->frame_off);
	deps_free(p);
	free(p->send_pair);
	free(p->recv_pair);
	free(p->frame_of_unit);
	free(p->frame_of_pair);
	free(p);
}

const ibf_liquid_hplan_info_t *
ibf_liquid_hplan_info(const ibf_liquid_hplan_t *p)
{
	return &p->info;
}

const uint32_t *ibf_liquid_hplan_unit_of(const ibf_liquid_hplan_t *p)
{
	return p->unit_of;
}

const ibf_port_id_t *ibf_liquid_hplan_unit_port(const ibf_liquid_hplan_t *p)
{
	return p->unit_port;
}

const uint32_t *ibf_liquid_hplan_unit_ranks(const ibf_liquid_hplan_t *p,
					    const uint32_t **unit_off)
{
	if (unit_off)
		*unit_off = p->unit_off;
	return p->unit_rank;
}

void ibf_liquid_hplan_view(const ibf_liquid_hplan_t *p,
			   ibf_liquid_hplan_view_t *v)
{
	static const uint64_t zero[1];
	static const uint32_t zero32[1];

	v->npairs = p->info.npairs;
	v->nframes = p->info.nframes;
	v->pair_src = p->pair_src;
	v->pair_dst = p->pair_dst;
	v->pair_frame = p->pair_frame;
	v->frame_off = p->frame_off ? p->frame_off : zero;
	v->pred_off = p->pred_off ? p->pred_off : zero;
	v->succ_off = p->succ_off ? p->succ_off : zero;
	v->pred = p->pred;
	v->succ = p->succ;
	v->xpred_off = p->xpred_off ? p->xpred_off : zero32;
	v->xsucc_off = p->xsucc_off ? p->xsucc_off : zero32;
	v->xpred = p->xpred;
	v->xsucc = p->xsucc;
	v->send_pair = p->send_pair;
	v->recv_pair = p->recv_pair;
}

uint32_t ibf_liquid_hplan_frame(const ibf_liquid_hplan_t *p, uint32_t a,
				uint32_t b)
{
	uint32_t f;

	if (!p->up)
		return IBF_LIQUID_IDLE;
	if (p->frame_of_pair)
		return p->frame_of_pair[(uint64_t)a * p->info.nunits + b];
	f = ibf_liquid_plan_frame(p->up, a, b);
	return p->frame_of_unit ? p->frame_of_unit[f] : f;
}

/* ---- slices ----------------------------------------------------------------- */

static uint64_t unit_nsucc(const ibf_liquid_hplan_t *p, uint32_t u)
{
	uint32_t U = p->info.nunits;
	uint64_t n = 0;

	for (uint32_t i = 0; U > 1 && i < U - 1; i++) {
		uint32_t k = p->recv_pair[(uint64_t)u * (U - 1) + i];

		n += p->succ_off[k + 1] - p->succ_off[k];
	}
	return n;
}

size_t ibf_liquid_hslice_words(const ibf_liquid_hplan_t *p, uint32_t rank)
{
	uint32_t U = p->info.nunits, m = U > 1 ? U - 1 : 0;

	if (rank >= p->info.nranks || (m && !p->recv_pair))
		return 0;
	return IBF_LIQUID_HSLICE_HEADER + 4 * (size_t)m + 4 * ((size_t)m + 1) +
	       2 * unit_nsucc(p, p->unit_of[rank]);
}

/* k's release tokens: one per rank of each predecessor's receiving
 * unit. */
static uint32_t tokens(const ibf_liquid_hplan_t *p, uint64_t k)
{
	uint64_t tok = 0;

	for (uint64_t x = p->pred_off[k]; x < p->pred_off[k + 1]; x++)
		tok += ranks_of(p, p->pair_dst[p->pred[x]]);
	return (uint32_t)tok;
}

static void pack_sends(const ibf_liquid_hplan_t *p, uint32_t u,
		       uint32_t *w)
{
	uint32_t U = p->info.nunits;

	for (uint32_t i = 0; i + 1 < U; i++, w += 4) {
		uint32_t k = p->send_pair[(uint64_t)u * (U - 1) + i];

		w[0] = p->pair_frame[k];
		w[1] = p->pair_dst[k];
		w[2] = (uint32_t)(p->pred_off[k + 1] - p->pred_off[k]);
		w[3] = tokens(p, k);
	}
}

static void pack_recvs(const ibf_liquid_hplan_t *p, uint32_t u,
		       uint32_t *w, uint32_t *sw)
{
	uint32_t U = p->info.nunits, ns = 0;

	for (uint32_t i = 0; i + 1 < U; i++, w += 4) {
		uint32_t k = p->recv_pair[(uint64_t)u * (U - 1) + i];

		w[0] = p->pair_frame[k];
		w[1] = p->pair_src[k];
		w[2] = (uint32_t)ranks_of(p, p->pair_src[k]);
		w[3] = ns;
		for (uint64_t x = p->succ_off[k]; x < p->succ_off[k + 1];
		     x++, ns++) {
			sw[2 * ns] = p->pair_src[p->succ[x]];
			sw[2 * ns + 1] = p->pair_frame[p->succ[x]];
		}
	}
	w[0] = w[1] = w[2] = 0;
	w[3] = ns;
}

ibf_status_t ibf_liquid_hslice_pack(const ibf_liquid_hplan_t *p,
				    uint32_t rank, uint32_t *buf, size_t cap,
				    size_t *nwords, ibf_err_t *err)
{
	uint32_t U = p->info.nunits, m = U > 1 ? U - 1 : 0, u;
	size_t need;

	*nwords = 0;
	if (rank >= p->info.nranks)
		return ibf_err_set(err, IBF_ERR_RANGE, "liquid slice: rank %u "
				   "of %u", rank, p->info.nranks);
	if (m && !p->send_pair)
		return ibf_err_set(err, IBF_ERR_INVALID, "liquid slice: the "
				   "units' lists are not built "
				   "(ibf_liquid_hplan_unit_lists)");
	need = ibf_liquid_hslice_words(p, rank);
	if (cap < need)
		return ibf_err_set(err, IBF_ERR_RANGE, "liquid slice: %zu "
				   "words, room for %zu", need, cap);
	u = p->unit_of[rank];
	buf[0] = IBF_LIQUID_HSLICE_MAGIC;
	buf[1] = IBF_LIQUID_HSLICE_VERSION;
	buf[2] = rank;
	buf[3] = u;
	buf[4] = U;
	buf[5] = p->info.nframes;
	buf[6] = m;
	buf[7] = m;
	buf[8] = (uint32_t)unit_nsucc(p, u);
	if (m) {
		uint32_t *rw = buf + IBF_LIQUID_HSLICE_HEADER + 4 * (size_t)m;

		pack_sends(p, u, buf + IBF_LIQUID_HSLICE_HEADER);
		pack_recvs(p, u, rw, rw + 4 * ((size_t)m + 1));
	} else {
		uint32_t *w = buf + IBF_LIQUID_HSLICE_HEADER;

		w[0] = w[1] = w[2] = w[3] = 0;
	}
	*nwords = need;
	return IBF_OK;
}

static ibf_status_t bad(ibf_err_t *err, size_t word, const char *what)
{
	return ibf_err_set(err, IBF_ERR_PARSE, "liquid slice: word %zu: %s",
			   word, what);
}

static ibf_status_t parse_lists(const ibf_liquid_hslice_t *v,
				ibf_err_t *err)
{
	size_t base = IBF_LIQUID_HSLICE_HEADER;

	for (uint32_t i = 0; i < v->nsends; i++) {
		const ibf_liquid_hslice_send_t *s = &v->send[i];
		size_t w = base + 4 * (size_t)i;

		if (s->frame >= v->nframes || (i && s->frame <=
					       v->send[i - 1].frame))
			return bad(err, w, "send frames not ascending in "
				   "range");
		if (s->unit >= v->nunits || s->unit == v->unit)
			return bad(err, w + 1, "send unit out of range");
		if (s->ntokens < s->npred)
			return bad(err, w + 3, "fewer tokens than "
				   "predecessors");
	}
	base += 4 * (size_t)v->nsends;
	for (uint32_t i = 0; i <= v->nrecvs; i++) {
		const ibf_liquid_hslice_recv_t *r = &v->recv[i];
		size_t w = base + 4 * (size_t)i;

		if (r->succ > v->nsucc || (i && r->succ < v->recv[i - 1].succ)
		    || (i == v->nrecvs && r->succ != v->nsucc))
			return bad(err, w + 3, "successor offsets");
		if (i == v->nrecvs)
			break;
		if (r->frame >= v->nframes || (i && r->frame <=
					       v->recv[i - 1].frame))
			return bad(err, w, "receive frames not ascending in "
				   "range");
		if (r->unit >= v->nunits || r->unit == v->unit || !r->nblocks)
			return bad(err, w + 1, "receive unit or blocks");
	}
	base += 4 * ((size_t)v->nrecvs + 1);
	for (uint32_t i = 0; i < v->nsucc; i++)
		if (v->succ[i].unit >= v->nunits ||
		    v->succ[i].frame >= v->nframes)
			return bad(err, base + 2 * (size_t)i, "successor out "
				   "of range");
	return IBF_OK;
}

ibf_status_t ibf_liquid_hslice_parse(const uint32_t *buf, size_t nwords,
				     ibf_liquid_hslice_t *v, ibf_err_t *err)
{
	size_t need;

	memset(v, 0, sizeof(*v));
	if (nwords < IBF_LIQUID_HSLICE_HEADER)
		return bad(err, nwords, "shorter than the header");
	if (buf[0] != IBF_LIQUID_HSLICE_MAGIC)
		return bad(err, 0, "not a liquid slice");
	if (buf[1] != IBF_LIQUID_HSLICE_VERSION)
		return bad(err, 1, "unknown version");
	v->rank = buf[2];
	v->unit = buf[3];
	v->nunits = buf[4];
	v->nframes = buf[5];
	v->nsends = buf[6];
	v->nrecvs = buf[7];
	v->nsucc = buf[8];
	if (v->unit >= v->nunits)
		return bad(err, 3, "unit out of range");
	if (v->nsends >= v->nunits || v->nrecvs >= v->nunits)
		return bad(err, 6, "more sends or receives than units");
	need = IBF_LIQUID_HSLICE_HEADER + 4 * (size_t)v->nsends +
	       4 * ((size_t)v->nrecvs + 1) + 2 * (size_t)v->nsucc;
	if (nwords != need)
		return bad(err, nwords, "length does not match the counts");
	v->send = (const void *)(buf + IBF_LIQUID_HSLICE_HEADER);
	v->recv = (const void *)(buf + IBF_LIQUID_HSLICE_HEADER +
				 4 * (size_t)v->nsends);
	v->succ = (const void *)(buf + IBF_LIQUID_HSLICE_HEADER +
				 4 * (size_t)v->nsends +
				 4 * ((size_t)v->nrecvs + 1));
	return parse_lists(v, err);
}

/* ---- JSON ------------------------------------------------------------------- */

ibf_status_t ibf_liquid_hplan_write_json(const ibf_fabric_t *f,
					 const ibf_liquid_hplan_t *p,
					 FILE *fp, ibf_err_t *err)
{
	const ibf_liquid_hplan_info_t *in = &p->info;
	char a[128], b[128];

	fprintf(fp, "{\"ranks\":%u,\"units\":%u,\"frames\":%u,"
		"\"duration\":%u,\"bound_blocks\":%llu,\"plan_blocks\":%llu,"
		"\"liquid\":%s,\"local_blocks\":%llu,\"net_blocks\":%llu,"
		"\"unit_frames\":[", in->nranks, in->nunits, in->nframes,
		in->duration, (unsigned long long)in->bound_blocks,
		(unsigned long long)in->plan_blocks,
		in->liquid ? "true" : "false",
		(unsigned long long)in->local_blocks,
		(unsigned long long)in->net_blocks);
	for (uint32_t fr = 0; fr < in->nframes; fr++) {
		fprintf(fp, "%s\n[", fr ? "," : "");
		for (uint64_t k = p->frame_off[fr]; k < p->frame_off[fr + 1];
		     k++) {
			fprintf(fp, "%s[", k > p->frame_off[fr] ? "," : "");
			lq_json_str(fp, ibf_port_host_name(
				f, p->unit_port[p->pair_src[k]], a,
				sizeof(a)));
			fputc(',', fp);
			lq_json_str(fp, ibf_port_host_name(
				f, p->unit_port[p->pair_dst[k]], b,
				sizeof(b)));
			fputc(']', fp);
		}
		fputc(']', fp);
	}
	fprintf(fp, "%s],\"time_s\":%.6f}\n", in->nframes ? "\n" : "",
		in->seconds);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}
