/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all over UCP tagged messages: the selection.  The public
 * algorithm (liquid along the schedule, or pairwise round robin) comes
 * from UCX_IBFLOW_ALLTOALL, the fabric and the block size; the variant
 * that runs it from the table of variants (a2a_variants.c, one file
 * each), by UCX_IBFLOW_ALLTOALL_SYNC: by default liquid keeps every link
 * to one transfer at a time with releases along the links (a2a_links.c).
 * What a variant needs, the liquid schedule or the control lane, its
 * flags say, and it is provided here before it runs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "coll/a2a_internal.h"

const char *ibf_ucx_a2a_alg_str(ibf_ucx_a2a_alg_t a)
{
	switch (a) {
	case IBF_UCX_A2A_NONE: return "none";
	case IBF_UCX_A2A_LIQUID: return "liquid";
	case IBF_UCX_A2A_PAIRWISE: return "pairwise";
	}
	return "?";
}

/* The all-to-all's state of a context (schedule, counters): coll/'s,
 * made on the first call, freed with the context. */
static void a2a_free(void *data)
{
	struct ibf_ucxi_a2a *a = data;

	if (!a)
		return;
	ibf_ucxi_a2a_sched_free(&a->sched);
	free(a);
}

static const ibf_ucxi_state_key_t A2A = { "all-to-all", a2a_free };

static struct ibf_ucxi_a2a *a2a_of(const ibf_ucx_t *u)
{
	return ibf_ucxi_state_get(u, &A2A);
}

ibf_ucx_a2a_alg_t ibf_ucx_alltoall_select(const ibf_ucx_t *u,
					  size_t block_bytes)
{
	const ibf_ucx_cfg_t *v = &u->cfg->v;
	const struct ibf_ucxi_a2a *a = a2a_of(u);

	if (a && a->no_sched)
		return IBF_UCX_A2A_NONE;
	if (a && a->declined &&
	    v->alltoall == IBF_UCX_A2A_MODE_AUTO)
		return IBF_UCX_A2A_NONE;
	switch ((ibf_ucx_a2a_mode_t)v->alltoall) {
	case IBF_UCX_A2A_MODE_LIQUID:
		return u->aware ? IBF_UCX_A2A_LIQUID : IBF_UCX_A2A_PAIRWISE;
	case IBF_UCX_A2A_MODE_PAIRWISE:
		return IBF_UCX_A2A_PAIRWISE;
	case IBF_UCX_A2A_MODE_AUTO:
		return u->aware && block_bytes >= v->alltoall_thresh ?
			IBF_UCX_A2A_LIQUID : IBF_UCX_A2A_NONE;
	case IBF_UCX_A2A_MODE_OFF:
		break;
	}
	return IBF_UCX_A2A_NONE;
}

void ibf_ucx_a2a_stats(const ibf_ucx_t *u, ibf_ucx_a2a_stats_t *s)
{
	const struct ibf_ucxi_a2a *a = a2a_of(u);

	memset(s, 0, sizeof(*s));
	if (!a)
		return;
	s->liquid = a->nliquid;
	s->pairwise = a->npairwise;
	if (a->have_sched || a->declined) {
		s->nframes = a->sched.nframes;
		s->duration = a->sched.duration;
		s->schedule_liquid = a->sched.liquid;
		s->schedule_s = a->sched.seconds;
	}
}

static void copy_self(const ibf_ucx_t *u, const ibf_ucxi_blocks_t *b)
{
	size_t sl, rl;
	const void *s = ibf_ucxi_sblock(b, u->rank, &sl);
	void *r = ibf_ucxi_rblock(b, u->rank, &rl);

	if (sl && s != r)
		memmove(r, s, sl < rl ? sl : rl);
}

/* The variant that runs alg under this ALLTOALL_SYNC; NULL: alg is none
 * of the table's. */
static const ibf_ucxi_a2a_variant_t *variant_for(const ibf_ucx_t *u,
						 ibf_ucx_a2a_alg_t alg)
{
	const ibf_ucxi_a2a_variant_t *const *v, *fallback = NULL;
	int sync = (int)u->cfg->v.alltoall_sync;
	bool known = alg == IBF_UCX_A2A_NONE;

	for (v = ibf_ucxi_a2a_variants; *v; v++) {
		if ((*v)->flags & IBF_UCXI_A2A_FALLBACK && !fallback)
			fallback = *v;
		if ((*v)->alg != alg)
			continue;
		known = true;
		if ((*v)->sync != IBF_UCXI_A2A_ANY_SYNC && (*v)->sync != sync)
			continue;
		if ((*v)->flags & IBF_UCXI_A2A_SCHEDULE && u->size < 2)
			continue;
		return *v;
	}
	return known ? fallback : NULL;
}

/* What the variant's flags ask for: the schedule (rank 0's view of the
 * transport decides for all), the control lane. */
static ibf_ucx_status_t provide(ibf_ucx_t *u, struct ibf_ucxi_a2a *a,
				const ibf_ucxi_a2a_variant_t *v, bool by_auto,
				ibf_ucx_err_t *err)
{
	ibf_ucx_status_t st;

	if (v->flags & IBF_UCXI_A2A_SCHEDULE && !a->have_sched) {
		ibf_ucxi_a2a_ask_t ask = ibf_ucxi_a2a_ask(u, by_auto);

		st = ibf_ucxi_a2a_schedule(u, &ask, &a->sched, err);
		if (st == IBF_UCX_ERR_SCHEDULE)
			a->no_sched = true;
		if (st == IBF_UCX_ERR_DECLINED)
			a->declined = true;
		if (st != IBF_UCX_OK)
			return st;
		a->have_sched = true;
	}
	if (v->flags & IBF_UCXI_A2A_LANE)
		return ibf_ucxi_lane_setup(u, err);
	return IBF_UCX_OK;
}

static bool auto_mode(const ibf_ucx_t *u)
{
	return u->cfg->v.alltoall == IBF_UCX_A2A_MODE_AUTO;
}

/* by_auto: the caller left the choice to UCX_IBFLOW_ALLTOALL=auto */
static ibf_ucx_status_t run(ibf_ucx_t *u, const ibf_ucxi_blocks_t *b,
			    ibf_ucx_a2a_alg_t alg, bool by_auto,
			    ibf_ucx_err_t *err)
{
	struct ibf_ucxi_a2a *a = a2a_of(u);
	const ibf_ucxi_a2a_variant_t *v;
	ibf_ucx_status_t st;

	ibf_ucx_err_clear(err);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "all-to-all: out of memory");
		st = ibf_ucxi_state_put(u, &A2A, a, err);
		if (st != IBF_UCX_OK)
			return st;
	}
	if (alg == IBF_UCX_A2A_NONE) {
		by_auto = auto_mode(u);
		alg = ibf_ucx_alltoall_select(u, b->block);
	}
	v = variant_for(u, alg);
	if (!v)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID, "all-to-all:"
				       " unknown algorithm %d", (int)alg);
	st = provide(u, a, v, by_auto, err);
	if (st != IBF_UCX_OK)
		return st;
	copy_self(u, b);
	st = v->run(u, a, b, err);
	if (st != IBF_UCX_OK)
		return st;
	if (v->flags & IBF_UCXI_A2A_SCHEDULE)
		a->nliquid++;
	else
		a->npairwise++;
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucx_alltoall(ibf_ucx_t *u, const void *sendbuf,
				  void *recvbuf, size_t block_bytes,
				  ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err)
{
	ibf_ucxi_blocks_t b = { .sbuf = sendbuf, .rbuf = recvbuf,
		       .block = block_bytes };

	if (!u || (block_bytes && (!sendbuf || !recvbuf)))
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_alltoall: NULL argument");
	return run(u, &b, alg, false, err);
}

ibf_ucx_status_t ibf_ucx_alltoallv(ibf_ucx_t *u, const void *sendbuf,
				   const size_t *scounts,
				   const size_t *sdispls, void *recvbuf,
				   const size_t *rcounts,
				   const size_t *rdispls,
				   ibf_ucx_a2a_alg_t alg, ibf_ucx_err_t *err)
{
	ibf_ucxi_blocks_t b = { .sbuf = sendbuf, .rbuf = recvbuf, .sc = scounts,
		       .sd = sdispls, .rc = rcounts, .rd = rdispls };
	if (!u || !scounts || !sdispls || !rcounts || !rdispls)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "ibf_ucx_alltoallv: NULL argument");
	/* Block sizes differ between ranks, and the choice must not: the
	 * threshold does not apply, only the mode and the fabric. */
	bool by_auto = alg == IBF_UCX_A2A_NONE && auto_mode(u);

	if (alg == IBF_UCX_A2A_NONE)
		alg = ibf_ucx_alltoall_select(u, SIZE_MAX);
	if (alg == IBF_UCX_A2A_NONE)
		alg = IBF_UCX_A2A_PAIRWISE;
	return run(u, &b, alg, by_auto, err);
}
