/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The liquid schedule of a context's all-to-all, collectively: rank 0
 * plans (a2a_plan.c), broadcasts its verdict, scatters every rank its
 * host's slice, and every rank says whether it could hold its part.  So every
 * rank takes the same decision: liquid everywhere, or nowhere (the
 * caller's algorithm).  Only a failed exchange (a dead or stalled peer)
 * is an error.
 *
 * Test hooks (environment, read by the process concerned):
 * IBFLOW_TEST_A2A_MAX_TRANSFERS=N lowers the planner's limit on the
 * schedule's transfers, host pairs (rank 0); IBFLOW_TEST_A2A_REFUSE=R makes rank R refuse the
 * memory for its part.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/a2a_internal.h"

#define PLANNER 0

ibf_ucxi_a2a_ask_t ibf_ucxi_a2a_ask(const ibf_ucx_t *u, bool by_auto)
{
	ibf_ucxi_a2a_ask_t a = { .need_gain = 0 };
	bool rdma;

	if (!by_auto)
		return a;
	rdma = ibf_ucxi_transport(u->wire.ctx) != IBF_UCXI_TL_OTHER;
	a.transport = rdma ? "RDMA" : "TCP";
	a.need_gain = u->cfg->v.alltoall_gain;
	if (a.need_gain < 0)
		a.need_gain = rdma ? IBF_UCXI_GAIN_RDMA : IBF_UCXI_GAIN_TCP;
	return a;
}

/* A test hook's number, or def. */
static uint64_t hook(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	x = strtoull(v, &end, 10);
	return *end ? def : (uint64_t)x;
}

/* A host leader passes its host's slice on to the host's other ranks
 * (length, then the words; length 0 when the leader has none: then
 * nobody of the host holds a part, and the agreement says so). */
static ibf_ucx_status_t host_forward(ibf_ucx_t *u, void **buf, size_t *len,
				     ibf_ucx_err_t *err)
{
	uint32_t h = u->rank_host[u->rank], leader = u->host_leader[h];
	uint32_t seq = (u->seq += 2) - 1;
	uint64_t n = *len;
	ibf_ucx_status_t st = IBF_UCX_OK;

	if (u->rank == leader) {
		for (uint32_t r = leader + 1; r < u->size && st == IBF_UCX_OK;
		     r++) {
			if (u->rank_host[r] != h)
				continue;
			st = ibf_ucxi_send(u, r, ibf_ucxi_tag(
					   IBF_UCXI_TAG_SCATTER, seq, u->rank),
					   &n, sizeof(n), err);
			if (st == IBF_UCX_OK && n)
				st = ibf_ucxi_send(u, r, ibf_ucxi_tag(
						   IBF_UCXI_TAG_SCATTER,
						   seq + 1, u->rank), *buf,
						   n, err);
		}
		return st;
	}
	st = ibf_ucxi_recv(u, leader, ibf_ucxi_tag(IBF_UCXI_TAG_SCATTER, seq,
						   leader), &n, sizeof(n), err);
	free(*buf);
	*buf = NULL;
	*len = 0;
	if (st != IBF_UCX_OK || !n)
		return st;
	*buf = malloc(n);
	if (!*buf)   /* the agreement will say: this rank holds nothing */
		return IBF_UCX_OK;
	*len = n;
	return ibf_ucxi_recv(u, leader, ibf_ucxi_tag(IBF_UCXI_TAG_SCATTER,
						     seq + 1, leader),
			     *buf, n, err);
}

/* Every rank's host's slice: from the planner to each host's first rank
 * (the others get an empty part), which passes it on within the host;
 * so the planner sends each slice once.  Or the exchange's error. */
static ibf_ucx_status_t scatter_slices(ibf_ucx_t *u,
				       const ibf_ucxi_a2a_plan_t *p,
				       uint32_t **w, size_t *nwords,
				       ibf_ucx_err_t *err)
{
	uint64_t *lens = NULL;
	const void **parts = NULL;
	size_t len = 0;
	void *buf = NULL;
	ibf_ucx_status_t st;

	if (u->rank == PLANNER) {
		lens = malloc(((size_t)u->size + 1) * sizeof(*lens));
		parts = malloc(((size_t)u->size + 1) * sizeof(*parts));
		if (!lens || !parts) {
			free(lens);
			free(parts);
			return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM,
					       "all-to-all schedule: out of "
					       "memory");
		}
		for (uint32_t r = 0; r < u->size; r++) {
			uint32_t h = u->rank_host[r];

			parts[r] = p->words + p->off[h];
			lens[r] = u->host_leader[h] != r ? 0 :
				  (p->off[h + 1] - p->off[h]) *
				  sizeof(uint32_t);
		}
	}
	st = ibf_ucxi_scatterv(u, PLANNER, parts, lens, &buf, &len, err);
	free(lens);
	free(parts);
	if (st == IBF_UCX_OK)
		st = host_forward(u, &buf, &len, err);
	*w = buf;
	*nwords = len / sizeof(uint32_t);
	return st;
}

/* Whether every rank holds its part: the first that does not, or
 * IBF_UCXI_NOPEER; the exchange's error otherwise.  all: the planner's
 * [size] bytes for the gather (allocated before its verdict). */
static ibf_ucx_status_t agree(ibf_ucx_t *u, bool held, uint8_t *all,
			      uint32_t *failed, ibf_ucx_err_t *err)
{
	uint8_t mine = held;
	ibf_ucx_status_t st;

	*failed = IBF_UCXI_NOPEER;
	st = ibf_ucxi_gather(u, PLANNER, &mine, all, 1, err);
	for (uint32_t r = 0; st == IBF_UCX_OK && u->rank == PLANNER &&
	     r < u->size && *failed == IBF_UCXI_NOPEER; r++)
		if (!all[r])
			*failed = r;
	if (st == IBF_UCX_OK)
		st = ibf_ucx_bcast(u, PLANNER, failed, sizeof(*failed), err);
	return st;
}

ibf_ucx_status_t ibf_ucxi_a2a_schedule(ibf_ucx_t *u,
				       const ibf_ucxi_a2a_ask_t *ask,
				       ibf_ucxi_a2a_sched_t *s,
				       ibf_ucx_err_t *err)
{
	ibf_ucxi_a2a_plan_t p;
	ibf_ucxi_a2a_ask_t a = *ask;
	ibf_ucx_err_t mine = { 0 };
	uint32_t *w = NULL, failed;
	uint8_t *all = NULL;
	size_t nwords = 0;
	ibf_ucx_status_t st;

	memset(s, 0, sizeof(*s));
	memset(&p, 0, sizeof(p));
	if (u->rank == PLANNER) {
		a.max_transfers = hook("IBFLOW_TEST_A2A_MAX_TRANSFERS",
				       a.max_transfers);
		ibf_ucxi_a2a_plan(u, &a, &p);
		all = malloc(u->size);
		if (!all && p.hdr.verdict == IBF_UCX_OK) {
			ibf_ucxi_a2a_plan_free(&p);
			p.hdr.verdict = IBF_UCX_ERR_SCHEDULE;
			snprintf(p.hdr.why, sizeof(p.hdr.why), "all-to-all "
				 "schedule: memory refused (the agreement)");
		}
	}
	st = ibf_ucx_bcast(u, PLANNER, &p.hdr, sizeof(p.hdr), err);
	if (st != IBF_UCX_OK)
		goto out;
	/* the figures stay for the counters, also when no part comes */
	s->nframes = p.hdr.nframes;
	s->duration = p.hdr.duration;
	s->rr_frames = p.hdr.rr_frames;
	s->liquid = p.hdr.liquid;
	if (p.hdr.verdict != IBF_UCX_OK) {
		p.hdr.why[sizeof(p.hdr.why) - 1] = '\0';
		st = ibf_ucx_err_set(err, p.hdr.verdict == IBF_UCX_ERR_DECLINED
				     ? IBF_UCX_ERR_DECLINED :
				     IBF_UCX_ERR_SCHEDULE, "%s", p.hdr.why);
		goto out;
	}
	st = scatter_slices(u, &p, &w, &nwords, err);
	if (st != IBF_UCX_OK)
		goto out;
	if (hook("IBFLOW_TEST_A2A_REFUSE", IBF_UCXI_NOPEER) == u->rank)
		ibf_ucx_err_set(&mine, IBF_UCX_ERR_NOMEM, "all-to-all "
				"schedule: memory refused (test hook "
				"IBFLOW_TEST_A2A_REFUSE)");
	else
		ibf_ucxi_a2a_slice_take(u->size, u->rank, u->rank_host,
					u->nhosts, &p.hdr, w, nwords, s,
					&mine);
	st = agree(u, mine.status == IBF_UCX_OK, all, &failed, err);
	if (st == IBF_UCX_OK && failed != IBF_UCXI_NOPEER) {
		if (failed == u->rank)
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_SCHEDULE, "%s",
					     mine.msg);
		else
			st = ibf_ucx_err_set(err, IBF_UCX_ERR_SCHEDULE,
					     "all-to-all schedule: rank %u "
					     "could not hold its part", failed);
	}
out:
	if (st != IBF_UCX_OK)
		ibf_ucxi_a2a_sched_free(s);
	free(w);
	free(all);
	ibf_ucxi_a2a_plan_free(&p);
	return st;
}
