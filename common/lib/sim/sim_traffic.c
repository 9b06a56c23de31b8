/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Traffic for the simulator: flows of a pattern, all-to-all algorithms as
 * messages with dependencies, timed sends from a trace file.
 *
 * The all-to-all algorithms follow what their implementations wait for
 * (docs/sim.md): a step that waits for the previous one to complete
 * depends on the messages it sent and received; rendezvous handshakes of
 * large messages are not modelled, except where the algorithm itself
 * sends control messages (liquid releases, barriers).
 */
#include <stdlib.h>
#include <string.h>

#include <ibflow/liquid.h>
#include <ibflow/liquid_hosts.h>

#include "formats/names.h"
#include "sim_internal.h"

ibf_status_t ibf_sim_add_traffic(ibf_sim_t *s, const ibf_traffic_t *tr,
				 uint64_t bytes, ibf_err_t *err)
{
	uint32_t i, c;
	ibf_status_t st;

	for (i = 0; i < tr->n; i++)
		for (c = 0; c < tr->flows[i].count; c++) {
			st = ibf_sim_add_msg(s, tr->flows[i].src,
					     tr->flows[i].dst, bytes,
					     IBF_SIM_DATA, 0, NULL, err);
			if (st != IBF_OK)
				return st;
		}
	return IBF_OK;
}

static const char *const a2a_names[] = {
	"liquid", "liquid-barrier", "pairwise", "linear", "linear-sync",
	"bruck",
};

const char *ibf_sim_a2a_name(ibf_sim_a2a_t alg)
{
	return (unsigned)alg < sizeof(a2a_names) / sizeof(a2a_names[0]) ?
	       a2a_names[alg] : "?";
}

ibf_status_t ibf_sim_a2a_parse(const char *spec, ibf_sim_a2a_t *alg,
			       unsigned *k, ibf_err_t *err)
{
	unsigned i;
	char *end;
	unsigned long v;

	*k = 0;
	for (i = 0; i < sizeof(a2a_names) / sizeof(a2a_names[0]); i++)
		if (!strcmp(spec, a2a_names[i]) &&
		    i != IBF_SIM_A2A_LINEAR_SYNC) {
			*alg = (ibf_sim_a2a_t)i;
			if (i == IBF_SIM_A2A_LIQUID)
				*k = IBF_SIM_LIQUID_AUTO;
			return IBF_OK;
		}
	if (!strncmp(spec, "liquid:", 7)) {
		v = strtoul(spec + 7, &end, 10);
		if (spec[7] >= '0' && spec[7] <= '9' && !*end &&
		    v < IBF_SIM_LIQUID_AUTO) {
			*alg = IBF_SIM_A2A_LIQUID;
			*k = (unsigned)v;
			return IBF_OK;
		}
	}
	if (!strncmp(spec, "linear-sync:", 12)) {
		v = strtoul(spec + 12, &end, 10);
		if (spec[12] >= '0' && spec[12] <= '9' && !*end && v >= 1 &&
		    v <= 1000000) {
			*alg = IBF_SIM_A2A_LINEAR_SYNC;
			*k = (unsigned)v;
			return IBF_OK;
		}
	}
	return ibf_err_set(err, IBF_ERR_PARSE, "algorithm '%s': expected "
			   "liquid, liquid:BYTES, liquid-barrier, pairwise, "
			   "linear, "
			   "linear-sync:K (K >= 1) or bruck", spec);
}

/* ---- building blocks ---------------------------------------------------- */

/* Dependencies of a step: message `after` waits for each of n messages
 * (SIM_NONE entries skipped). */
static ibf_status_t deps(ibf_sim_t *s, uint32_t after, const uint32_t *before,
			 unsigned n, ibf_err_t *err)
{
	ibf_status_t st;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (before[i] == SIM_NONE)
			continue;
		st = ibf_sim_add_dep(s, before[i], after, err);
		if (st != IBF_OK)
			return st;
	}
	return IBF_OK;
}

static ibf_status_t msg(ibf_sim_t *s, ibf_port_id_t a, ibf_port_id_t b,
			uint64_t bytes, ibf_sim_kind_t kind, uint32_t *id,
			ibf_err_t *err)
{
	return ibf_sim_add_msg(s, a, b, bytes, kind, 0, id, err);
}

/* ---- the all-to-all's ranks ----------------------------------------------
 * Rank i sends from snd[i] and receives at rcv[i]: the same host for an
 * ordinary all-to-all (blocks between distinct ranks, distances 1..n-1),
 * two hosts for the Swiss-T1's processor pairs (every (i, j), i to itself
 * included: distances 0..n-1). */
typedef struct a2a {
	ibf_sim_t *s;
	const ibf_port_id_t *snd, *rcv;
	uint32_t n;
	uint32_t d0;          /* first distance: 0 with two lists, else 1 */
	uint64_t bytes;
} a2a_t;

/* ---- step-wise algorithms ------------------------------------------------
 * sent[i] = the message rank i sent in the previous step, recvd[i] = the
 * one it received. */

typedef struct steps {
	uint32_t *sent, *recvd, *nsent, *nrecvd;
} steps_t;

static ibf_status_t steps_init(steps_t *st, uint32_t n, ibf_err_t *err)
{
	uint32_t i;

	st->sent = malloc(4 * (size_t)n * sizeof(uint32_t));
	if (!st->sent)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st->recvd = st->sent + n;
	st->nsent = st->recvd + n;
	st->nrecvd = st->nsent + n;
	for (i = 0; i < 2 * n; i++)
		st->sent[i] = SIM_NONE;
	return IBF_OK;
}

/* One step: rank i sends `bytes` to rank i + dist after its previous step
 * (sent and received) completed. */
static ibf_status_t step(const a2a_t *a, steps_t *st, uint32_t dist,
			 uint64_t bytes, ibf_err_t *err)
{
	uint32_t i, dst, prev[2];
	ibf_status_t e;

	for (i = 0; i < a->n; i++) {
		dst = (i + dist) % a->n;
		prev[0] = st->sent[i];
		prev[1] = st->recvd[i];
		e = msg(a->s, a->snd[i], a->rcv[dst], bytes, IBF_SIM_DATA,
			&st->nsent[i], err);
		if (e == IBF_OK)
			e = deps(a->s, st->nsent[i], prev, 2, err);
		if (e != IBF_OK)
			return e;
		st->nrecvd[dst] = st->nsent[i];
	}
	memcpy(st->sent, st->nsent, a->n * sizeof(uint32_t));
	memcpy(st->recvd, st->nrecvd, a->n * sizeof(uint32_t));
	return IBF_OK;
}

static ibf_status_t a2a_pairwise(const a2a_t *a, ibf_err_t *err)
{
	steps_t st;
	uint32_t d;
	ibf_status_t e = steps_init(&st, a->n, err);

	for (d = a->d0; e == IBF_OK && d < a->n; d++)
		e = step(a, &st, d, a->bytes, err);
	free(st.sent);
	return e;
}

/* Bruck: in step k, block j (1 <= j < n, relative index) travels 2^k
 * further when bit k of j is set; the final rotation is local. */
static ibf_status_t a2a_bruck(const a2a_t *a, ibf_err_t *err)
{
	steps_t st;
	uint32_t dist, j, cnt;
	ibf_status_t e;

	if (a->d0 == 0)
		return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "bruck: not "
				   "between separate sender and receiver "
				   "lists");
	e = steps_init(&st, a->n, err);
	for (dist = 1; e == IBF_OK && dist < a->n; dist <<= 1) {
		for (cnt = 0, j = 1; j < a->n; j++)
			cnt += (j & dist) != 0;
		e = step(a, &st, dist, cnt * a->bytes, err);
	}
	free(st.sent);
	return e;
}

/* linear: every send at once (k = 0); linear-sync:K: a rank's send d waits
 * for its send d - K. */
static ibf_status_t a2a_linear(const a2a_t *a, unsigned k, ibf_err_t *err)
{
	uint32_t n = a->n, i, d;
	uint32_t *id = malloc((size_t)n * n * sizeof(uint32_t));
	ibf_status_t e = IBF_OK;

	if (!id)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (d = a->d0; e == IBF_OK && d < n; d++)
		for (i = 0; e == IBF_OK && i < n; i++) {
			e = msg(a->s, a->snd[i], a->rcv[(i + d) % n], a->bytes,
				IBF_SIM_DATA, &id[(size_t)i * n + d], err);
			if (e == IBF_OK && k && d >= a->d0 + k)
				e = ibf_sim_add_dep(a->s,
						    id[(size_t)i * n + d - k],
						    id[(size_t)i * n + d], err);
		}
	free(id);
	return e;
}

/* ---- liquid ---------------------------------------------------------------*/

typedef struct liquid_plan {
	ibf_liquid_traffic_t *t;
	uint32_t nframes;
	uint32_t *frame_of;      /* [ntransfers] */
	uint32_t *frame_off;     /* [nframes + 1] CSR into frame_tr */
	uint32_t *frame_tr;      /* [ntransfers] transfers by frame */
	uint32_t *id;            /* [ntransfers] message of each transfer */
} liquid_plan_t;

/* The transfers as the liquid scheduler sees them: the hosts' all-to-all,
 * or with two lists every (sender i, receiver j) in round-robin order. */
static ibf_status_t liquid_traffic(const a2a_t *a, ibf_liquid_traffic_t **t,
				   ibf_err_t *err)
{
	ibf_hostlist_t hl = { (ibf_port_id_t *)a->snd, a->n };
	ibf_traffic_t tr;
	uint32_t i, d;
	ibf_status_t st;

	if (a->d0)
		return ibf_liquid_traffic_alltoall(a->s->lfts, &hl, t, err);
	tr.n = 0;
	tr.flows = malloc((size_t)a->n * a->n * sizeof(*tr.flows));
	if (!tr.flows)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (d = 0; d < a->n; d++)
		for (i = 0; i < a->n; i++)
			tr.flows[tr.n++] = (ibf_flow_t){ a->snd[i],
				a->rcv[(i + d) % a->n], 1 };
	st = ibf_liquid_traffic_from_flows(a->s->lfts, &tr, t, err);
	free(tr.flows);
	return st;
}

/* Frames of an ordinary all-to-all: the plan the UCX runtime computes for
 * one process per host (ibf_liquid_plan_alltoall), looked up per transfer
 * (the traffic's host positions are the ranks). */
static ibf_status_t plan_frames(const a2a_t *a, liquid_plan_t *lp,
				const ibf_liquid_opts_t *lopts,
				ibf_err_t *err)
{
	ibf_liquid_plan_t *plan;
	const ibf_liquid_traffic_t *t = lp->t;
	uint32_t i;
	ibf_status_t st;

	st = ibf_liquid_plan_alltoall(a->s->lfts, a->snd, a->n, lopts, &plan,
				      err);
	if (st != IBF_OK)
		return st;
	lp->nframes = ibf_liquid_plan_info(plan)->nframes;
	for (i = 0; i < t->ntransfers; i++)
		lp->frame_of[i] = ibf_liquid_plan_frame(plan, t->src[i],
							t->dst[i]);
	ibf_liquid_plan_destroy(plan);
	return IBF_OK;
}

/* Frames of any other traffic: ibf_liquid_schedule. */
static ibf_status_t schedule_frames(liquid_plan_t *lp,
				    const ibf_liquid_opts_t *lopts,
				    ibf_err_t *err)
{
	ibf_liquid_result_t res;
	ibf_status_t st = ibf_liquid_schedule(lp->t, lopts, &res, err);

	if (st != IBF_OK)
		return st;
	lp->nframes = res.nframes;
	memcpy(lp->frame_of, res.frame_of,
	       lp->t->ntransfers * sizeof(uint32_t));
	ibf_liquid_result_free(&res);
	return IBF_OK;
}

/* frame_off / frame_tr from frame_of (a counting sort). */
static ibf_status_t index_frames(liquid_plan_t *lp, ibf_err_t *err)
{
	uint32_t i, nt = lp->t->ntransfers;

	lp->frame_off = calloc((size_t)lp->nframes + 1, sizeof(uint32_t));
	if (!lp->frame_off)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < nt; i++)
		lp->frame_off[lp->frame_of[i] + 1]++;
	for (i = 0; i < lp->nframes; i++)
		lp->frame_off[i + 1] += lp->frame_off[i];
	for (i = 0; i < nt; i++)
		lp->frame_tr[lp->frame_off[lp->frame_of[i]]++] = i;
	for (i = lp->nframes; i > 0; i--)
		lp->frame_off[i] = lp->frame_off[i - 1];
	lp->frame_off[0] = 0;
	return IBF_OK;
}

static ibf_status_t liquid_schedule(const a2a_t *a,
				    const ibf_liquid_opts_t *lopts,
				    liquid_plan_t *lp, ibf_err_t *err)
{
	size_t nt;
	ibf_status_t st;

	memset(lp, 0, sizeof(*lp));
	st = liquid_traffic(a, &lp->t, err);
	if (st != IBF_OK)
		return st;
	nt = lp->t->ntransfers ? lp->t->ntransfers : 1;
	lp->frame_of = malloc(nt * sizeof(uint32_t));
	lp->frame_tr = malloc(nt * sizeof(uint32_t));
	lp->id = malloc(nt * sizeof(uint32_t));
	if (!lp->frame_of || !lp->frame_tr || !lp->id)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	st = a->d0 ? plan_frames(a, lp, lopts, err) :
	     schedule_frames(lp, lopts, err);
	return st == IBF_OK ? index_frames(lp, err) : st;
}

static void liquid_free(liquid_plan_t *lp)
{
	ibf_liquid_traffic_destroy(lp->t);
	free(lp->frame_of);
	free(lp->frame_off);
	free(lp->frame_tr);
	free(lp->id);
}

static ibf_status_t liquid_transfers(ibf_sim_t *s, liquid_plan_t *lp,
				     uint64_t bytes, ibf_err_t *err)
{
	const ibf_liquid_traffic_t *t = lp->t;
	uint32_t i;
	ibf_status_t st;

	for (i = 0; i < t->ntransfers; i++) {
		st = msg(s, t->hosts[t->src[i]], t->hosts[t->dst[i]], bytes,
			 IBF_SIM_DATA, &lp->id[i], err);
		if (st != IBF_OK)
			return st;
	}
	return IBF_OK;
}

/* Transfer i starts once each predecessor has arrived and its receiver's
 * release has reached i's sender (local when they are one host). */
static ibf_status_t liquid_releases(ibf_sim_t *s, liquid_plan_t *lp,
				    ibf_err_t *err)
{
	const ibf_liquid_traffic_t *t = lp->t;
	ibf_liquid_deps_t d;
	uint32_t i, j, p, rel;
	ibf_status_t st;

	st = ibf_liquid_deps_build(t, lp->frame_of, lp->nframes, &d, err);
	if (st != IBF_OK)
		return st;
	for (i = 0; st == IBF_OK && i < t->ntransfers; i++)
		for (j = d.pred_off[i]; st == IBF_OK && j < d.pred_off[i + 1];
		     j++) {
			p = d.pred[j];
			st = msg(s, t->hosts[t->dst[p]], t->hosts[t->src[i]],
				 s->o.ctrl_bytes, IBF_SIM_CONTROL, &rel, err);
			if (st == IBF_OK)
				st = ibf_sim_add_dep(s, lp->id[p], rel, err);
			if (st == IBF_OK)
				st = ibf_sim_add_dep(s, rel, lp->id[i], err);
		}
	ibf_liquid_deps_free(&d);
	return st;
}

/* The barrier after a frame among hosts h[0..n-1]: host i entered it
 * (local join enter[i]); a dissemination barrier of ceil(log2 n) rounds of
 * control messages; exit_[i] joins host i's last round.  round, last:
 * scratch of n each. */
static ibf_status_t barrier(ibf_sim_t *s, const ibf_port_id_t *h,
			    uint32_t n, const uint32_t *enter,
			    uint32_t *exit_, uint32_t *round, uint32_t *last,
			    ibf_err_t *err)
{
	uint32_t i, dist, prev[2];
	ibf_status_t st = IBF_OK;

	memcpy(last, enter, n * sizeof(uint32_t));
	for (dist = 1; st == IBF_OK && dist < n; dist <<= 1) {
		for (i = 0; st == IBF_OK && i < n; i++) {
			st = msg(s, h[i], h[(i + dist) % n], s->o.ctrl_bytes,
				 IBF_SIM_CONTROL, &round[i], err);
			if (st == IBF_OK)
				st = deps(s, round[i], &last[i], 1, err);
		}
		/* the next round's sender also waits for what it received */
		for (i = 0; st == IBF_OK && i < n; i++) {
			prev[0] = round[i];
			prev[1] = round[(i + n - dist) % n];
			st = msg(s, h[i], h[i], 0, IBF_SIM_LOCAL, &last[i], err);
			if (st == IBF_OK)
				st = deps(s, last[i], prev, 2, err);
		}
	}
	memcpy(exit_, last, n * sizeof(uint32_t));
	return st;
}

/* Frame f's transfer waits for both its hosts to have left the barrier
 * after frame f - 1, and each host enters the next barrier once its own
 * transfers of frame f are done. */
static ibf_status_t frame_joins(ibf_sim_t *s, const liquid_plan_t *lp,
				uint32_t f, const uint32_t *enter,
				const uint32_t *exit_, ibf_err_t *err)
{
	const ibf_liquid_traffic_t *t = lp->t;
	uint32_t j, tr, ends[2];
	ibf_status_t st = IBF_OK;

	for (j = lp->frame_off[f]; st == IBF_OK && j < lp->frame_off[f + 1];
	     j++) {
		tr = lp->frame_tr[j];
		ends[0] = exit_[t->src[tr]];
		ends[1] = exit_[t->dst[tr]];
		st = deps(s, lp->id[tr], ends, 2, err);
		if (st == IBF_OK)
			st = ibf_sim_add_dep(s, lp->id[tr], enter[t->src[tr]],
					     err);
		if (st == IBF_OK)
			st = ibf_sim_add_dep(s, lp->id[tr], enter[t->dst[tr]],
					     err);
	}
	return st;
}

static ibf_status_t liquid_barriers(ibf_sim_t *s, liquid_plan_t *lp,
				    ibf_err_t *err)
{
	const ibf_liquid_traffic_t *t = lp->t;
	uint32_t n = t->nhosts, f, i;
	uint32_t *mem = malloc(4 * (size_t)n * sizeof(uint32_t));
	uint32_t *enter = mem, *exit_ = mem + n;
	ibf_status_t st = IBF_OK;

	if (!mem)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (i = 0; i < n; i++)
		exit_[i] = SIM_NONE;
	for (f = 0; st == IBF_OK && f < lp->nframes; f++) {
		for (i = 0; st == IBF_OK && i < n; i++) {
			st = msg(s, t->hosts[i], t->hosts[i], 0, IBF_SIM_LOCAL,
				 &enter[i], err);
			if (st == IBF_OK)
				st = deps(s, enter[i], &exit_[i], 1, err);
		}
		if (st == IBF_OK)
			st = frame_joins(s, lp, f, enter, exit_, err);
		if (st == IBF_OK && f + 1 < lp->nframes)
			st = barrier(s, t->hosts, n, enter, exit_, mem + 2 * n,
				     mem + 3 * n, err);
	}
	free(mem);
	return st;
}

static ibf_status_t a2a_liquid(const a2a_t *a, bool with_barrier,
			       const ibf_liquid_opts_t *lopts,
			       uint32_t *frames, ibf_err_t *err)
{
	liquid_plan_t lp;
	ibf_status_t st;

	st = liquid_schedule(a, lopts, &lp, err);
	if (st == IBF_OK)
		st = liquid_transfers(a->s, &lp, a->bytes, err);
	if (st == IBF_OK)
		st = with_barrier ? liquid_barriers(a->s, &lp, err) :
		     liquid_releases(a->s, &lp, err);
	if (st == IBF_OK && frames)
		*frames = lp.nframes;
	liquid_free(&lp);
	return st;
}

/* ---- node-aware liquid -----------------------------------------------------
 * The plan of ibf_liquid_hplan_create: unit pairs (ranks sharing a host
 * port) in frames.  Pair k = A -> B is c_A x c_B data messages, every rank
 * of A to every rank of B at once, started by one release join at A.
 * Each predecessor p of k sends one release from p's receiving unit to
 * k's sending unit (local when they are one host) once p is in - or,
 * with an early window of E bytes, once all but the last E bytes of p
 * are in (E / (c_A c_B) of each block), so that the release crosses the
 * fabric while p's tail still drains.  Gathering and forwarding within a
 * host are shared memory, free here, as are the blocks within a unit
 * (not simulated). */

typedef struct unit_pairs {
	ibf_liquid_hplan_view_t v;
	const uint32_t *uoff;
	const ibf_port_id_t *uport;
	uint64_t early;             /* release window, bytes; 0: at arrival */
	uint32_t *start, *notify;   /* [npairs] message ids */
	bool *notify_early;         /* notify[k] fires its releases early */
} unit_pairs_t;

static uint32_t unit_ranks(const unit_pairs_t *u, uint32_t x)
{
	return u->uoff[x + 1] - u->uoff[x];
}

/* Pair k's data messages and joins: start[k] is what its releases feed,
 * notify[k] what releases its successors. */
static ibf_status_t unit_pair_blocks(const a2a_t *a, unit_pairs_t *u,
				     uint64_t k, ibf_err_t *err)
{
	uint32_t A = u->v.pair_src[k], B = u->v.pair_dst[k], id, x;
	uint32_t vol = unit_ranks(u, A) * unit_ranks(u, B);
	bool single = vol == 1;
	uint64_t left = (u->early + vol - 1) / vol;
	ibf_status_t st = IBF_OK;

	u->start[k] = u->notify[k] = SIM_NONE;
	u->notify_early[k] = single && u->early;
	if (!single && u->v.pred_off[k + 1] > u->v.pred_off[k])
		st = msg(a->s, u->uport[A], u->uport[A], 0, IBF_SIM_LOCAL,
			 &u->start[k], err);
	if (st == IBF_OK && !single)
		st = msg(a->s, u->uport[B], u->uport[B], 0, IBF_SIM_LOCAL,
			 &u->notify[k], err);
	for (x = 0; st == IBF_OK && x < vol; x++) {
		st = msg(a->s, u->uport[A], u->uport[B], a->bytes,
			 IBF_SIM_DATA, &id, err);
		if (st == IBF_OK && u->start[k] != SIM_NONE)
			st = ibf_sim_add_dep(a->s, u->start[k], id, err);
		if (st == IBF_OK && !single)
			st = u->early ? ibf_sim_add_dep_early(
				a->s, id, u->notify[k], left, err) :
			     ibf_sim_add_dep(a->s, id, u->notify[k], err);
		if (single)
			u->start[k] = u->notify[k] = id;
	}
	return st;
}

static ibf_status_t unit_pair_releases(const a2a_t *a, unit_pairs_t *u,
				       uint64_t k, ibf_err_t *err)
{
	ibf_status_t st = IBF_OK;
	uint32_t rel;

	for (uint64_t x = u->v.pred_off[k];
	     st == IBF_OK && x < u->v.pred_off[k + 1]; x++) {
		uint32_t q = u->v.pred[x];

		st = msg(a->s, u->uport[u->v.pair_dst[q]],
			 u->uport[u->v.pair_src[k]], a->s->o.ctrl_bytes,
			 IBF_SIM_CONTROL, &rel, err);
		if (st == IBF_OK)
			st = u->notify_early[q] ?
			     ibf_sim_add_dep_early(a->s, u->notify[q], rel,
						   u->early, err) :
			     ibf_sim_add_dep(a->s, u->notify[q], rel, err);
		if (st == IBF_OK)
			st = ibf_sim_add_dep(a->s, rel, u->start[k], err);
	}
	return st;
}

/* The default window: a release and the successor's first packet each
 * cross the longest path (hops x latency), at the first unit's link
 * rate. */
static uint64_t auto_window(const a2a_t *a, const ibf_liquid_hplan_info_t *in,
			    const ibf_port_id_t *uport)
{
	double gbps = a->s->o.rate_gbps > 0 ? a->s->o.rate_gbps :
		      ibf_sim_link_gbps(&a->s->fabric->ports[uport[0]]);
	double sec = 2.0 * in->max_path * a->s->o.latency_ns * 1e-9;

	return (uint64_t)(sec * gbps * 1e9 / 8);
}

static ibf_status_t a2a_liquid_units(const a2a_t *a,
				     const ibf_liquid_opts_t *lopts,
				     unsigned window, uint32_t *frames,
				     ibf_err_t *err)
{
	ibf_liquid_hplan_t *p;
	unit_pairs_t u = { 0 };
	ibf_status_t st;
	size_t np;

	st = ibf_liquid_hplan_create(a->s->lfts, a->snd, a->n, lopts, &p,
				     err);
	if (st != IBF_OK)
		return st;
	ibf_liquid_hplan_view(p, &u.v);
	ibf_liquid_hplan_unit_ranks(p, &u.uoff);
	u.uport = ibf_liquid_hplan_unit_port(p);
	u.early = window == IBF_SIM_LIQUID_AUTO ?
		  (u.v.npairs ? auto_window(a, ibf_liquid_hplan_info(p),
					    u.uport) : 0) : window;
	np = (size_t)u.v.npairs + 1;
	u.start = malloc(np * sizeof(uint32_t));
	u.notify = malloc(np * sizeof(uint32_t));
	u.notify_early = malloc(np * sizeof(bool));
	if (!u.start || !u.notify || !u.notify_early)
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (uint64_t k = 0; st == IBF_OK && k < u.v.npairs; k++)
		st = unit_pair_blocks(a, &u, k, err);
	for (uint64_t k = 0; st == IBF_OK && k < u.v.npairs; k++)
		st = unit_pair_releases(a, &u, k, err);
	if (st == IBF_OK && frames)
		*frames = u.v.nframes;
	free(u.start);
	free(u.notify);
	free(u.notify_early);
	ibf_liquid_hplan_destroy(p);
	return st;
}

static ibf_status_t check_ranks(const ibf_port_id_t *ranks,
				const ibf_port_id_t *recv, uint32_t n,
				ibf_err_t *err)
{
	uint32_t i, j;

	if (n < 2)
		return ibf_err_set(err, IBF_ERR_INVALID, "all-to-all of %u "
				   "ranks: needs at least 2", n);
	for (i = 0; recv && i < n; i++)
		for (j = 0; j < n; j++)
			if ((j > i && (ranks[i] == ranks[j] ||
				       recv[i] == recv[j])) ||
			    ranks[i] == recv[j])
				return ibf_err_set(err, IBF_ERR_INVALID,
						   "all-to-all: ranks %u and "
						   "%u share a host", i, j);
	return IBF_OK;
}

static bool shared_hosts(const ibf_port_id_t *ranks, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (ranks[i] == ranks[j])
				return true;
	return false;
}

ibf_status_t ibf_sim_add_alltoall(ibf_sim_t *s, const ibf_port_id_t *ranks,
				  const ibf_port_id_t *recv, uint32_t n,
				  uint64_t bytes, ibf_sim_a2a_t alg,
				  unsigned k, const ibf_liquid_opts_t *lopts,
				  uint32_t *frames, ibf_err_t *err)
{
	a2a_t a = { s, ranks, recv ? recv : ranks, n, recv ? 0 : 1, bytes };
	ibf_status_t st;

	if (frames)
		*frames = 0;
	st = check_ranks(ranks, recv, n, err);
	if (st != IBF_OK)
		return st;
	switch (alg) {
	case IBF_SIM_A2A_LIQUID:
		if (!recv)
			return a2a_liquid_units(&a, lopts, k, frames, err);
		return a2a_liquid(&a, false, lopts, frames, err);
	case IBF_SIM_A2A_LIQUID_BARRIER:
		if (!recv && shared_hosts(ranks, n))
			return ibf_err_set(err, IBF_ERR_UNSUPPORTED,
					   "liquid-barrier: one rank per "
					   "host");
		return a2a_liquid(&a, true, lopts, frames, err);
	case IBF_SIM_A2A_PAIRWISE:
		return a2a_pairwise(&a, err);
	case IBF_SIM_A2A_LINEAR:
		return a2a_linear(&a, 0, err);
	case IBF_SIM_A2A_LINEAR_SYNC:
		return a2a_linear(&a, k ? k : 1, err);
	case IBF_SIM_A2A_BRUCK:
		return a2a_bruck(&a, err);
	}
	return ibf_err_set(err, IBF_ERR_INVALID, "unknown algorithm");
}

/* ---- trace files -------------------------------------------------------- */

static ibf_status_t lookup_host(void *ctx, const char *name, uint32_t *id,
				ibf_err_t *err)
{
	ibf_status_t st = ibf_fabric_resolve_host(ctx, name, id, err);

	return st == IBF_OK || st == IBF_ERR_NOMEM ? st : IBF_ERR_NOT_FOUND;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	*v = strtoull(s, &end, 10);
	return !*end && *v <= max && !(*v == UINT64_MAX);
}

static bool parse_time_us(const char *s, double *v)
{
	char *end;

	if ((*s < '0' || *s > '9') && *s != '.')
		return false;
	*v = strtod(s, &end);
	return !*end && *v >= 0 && *v <= 1e12;
}

/* "TIME_US BYTES SRC DST" */
static ibf_status_t trace_line(ibf_sim_t *s, const ibf_text_t *t, char *line,
			       ibf_err_t *err)
{
	ibf_words_t w;
	ibf_names_pair_t found[2];
	ibf_err_t plain;
	double us;
	uint64_t bytes;
	ibf_status_t st;
	int n;

	if ((st = ibf_words_split(t, line, &w, err)) != IBF_OK)
		return st;
	if (w.n == 0)
		return IBF_OK;
	if (w.n < 4)
		return ibf_text_error(t, err, IBF_ERR_PARSE, "expected TIME_US "
				      "BYTES SRC DST");
	if (w.w[0].quoted || !parse_time_us(w.w[0].s, &us))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "TIME_US '%.40s': "
				      "a number of microseconds >= 0",
				      w.w[0].s);
	if (w.w[1].quoted || !parse_u64(w.w[1].s, (uint64_t)1 << 40, &bytes))
		return ibf_text_error(t, err, IBF_ERR_PARSE, "BYTES '%.40s': "
				      "an integer 0..2^40", w.w[1].s);
	memmove(&w.w[0], &w.w[2], (w.n - 2) * sizeof(w.w[0]));
	w.n -= 2;
	ibf_err_clear(&plain);
	n = ibf_words_pairs(&w, w.n, lookup_host, (void *)s->fabric, found, 2,
			    &plain);
	if (n < 0)
		return ibf_err_set(err, plain.status, "%s", plain.msg);
	if (n != 1)
		return ibf_text_error(t, err, n ? IBF_ERR_PARSE :
				      IBF_ERR_NOT_FOUND, n ? "ambiguous "
				      "hosts: quote the names" : "SRC DST do "
				      "not name two hosts of the topology");
	st = ibf_sim_add_msg(s, found[0].a, found[0].b, bytes, IBF_SIM_DATA,
			     us * 1e-6, NULL, err);
	if (st != IBF_OK)
		ibf_err_prefix(err, "%s:%u: ", t->name, t->line);
	return st;
}

ibf_status_t ibf_sim_add_trace_text(ibf_sim_t *s, ibf_text_t *t,
				    ibf_err_t *err)
{
	ibf_status_t st = IBF_OK;
	char *line;

	ibf_text_rewind(t);
	while (st == IBF_OK && (line = ibf_text_next_line(t)) != NULL)
		st = trace_line(s, t, line, err);
	return st;
}

ibf_status_t ibf_sim_add_trace(ibf_sim_t *s, const char *path,
			       ibf_err_t *err)
{
	ibf_text_t t;
	ibf_status_t st = ibf_text_load(&t, path, err);

	if (st != IBF_OK)
		return st;
	st = ibf_sim_add_trace_text(s, &t, err);
	ibf_text_free(&t);
	return st;
}
