/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * All-to-all plans (ibflow/liquid.h): the pipeline over the engine of
 * liquid_a2a.c, the small-plan path through the exact search of
 * liquid.c / liquid_search.c, and the views the UCX side uses.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/liquid_a2a.h"
#include "sched/liquid_search.h"

struct ibf_liquid_plan {
	struct lq_a2a *a;
	struct lq_sched best;
	ibf_liquid_plan_info_t info;
};

void ibf_liquid_plan_destroy(ibf_liquid_plan_t *p)
{
	if (!p)
		return;
	lq_sched_free(&p->best);
	lq_a2a_free(p->a);
	free(p);
}

const ibf_liquid_plan_info_t *ibf_liquid_plan_info(const ibf_liquid_plan_t *p)
{
	return &p->info;
}

const struct lq_a2a *lq_plan_a2a(const ibf_liquid_plan_t *p)
{
	return p->a;
}

uint32_t ibf_liquid_plan_frame(const ibf_liquid_plan_t *p, uint32_t src,
			       uint32_t dst)
{
	return lq_sched_frame(&p->best, p->a->n, src, dst);
}

void ibf_liquid_plan_rank(const ibf_liquid_plan_t *p, uint32_t rank,
			  uint32_t *send_to, uint32_t *recv_from)
{
	uint32_t n = p->a->n, nf = p->info.nframes;

	for (uint32_t f = 0; f < nf; f++) {
		if (send_to)
			send_to[f] = IBF_LIQUID_IDLE;
		if (recv_from)
			recv_from[f] = IBF_LIQUID_IDLE;
	}
	for (uint32_t q = 0; q < n; q++) {
		if (q == rank)
			continue;
		if (send_to)
			send_to[lq_sched_frame(&p->best, n, rank, q)] = q;
		if (recv_from)
			recv_from[lq_sched_frame(&p->best, n, q, rank)] = q;
	}
}

uint32_t ibf_liquid_plan_links(const ibf_liquid_plan_t *p,
			       const ibf_port_id_t **link_port,
			       const uint32_t **load)
{
	*link_port = p->a->link_port;
	*load = p->a->load;
	return p->a->L;
}

ibf_status_t ibf_liquid_plan_frames(const ibf_liquid_plan_t *p,
				    uint64_t **frame_off, uint32_t **pairs,
				    ibf_err_t *err)
{
	uint32_t n = p->a->n, nf = p->info.nframes;
	uint64_t *off = calloc((size_t)nf + 2, sizeof(uint64_t));
	uint32_t *pr = malloc((2 * p->a->T + 1) * sizeof(uint32_t));

	*frame_off = NULL;
	*pairs = NULL;
	if (!off || !pr) {
		free(off);
		free(pr);
		return ibf_err_set(err, IBF_ERR_NOMEM, "liquid: out of memory");
	}
	for (uint64_t x = 0; x < p->a->T; x++)
		off[p->best.frame_of[x] + 2]++;
	for (uint32_t f = 0; f < nf; f++)
		off[f + 2] += off[f + 1];
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint64_t k;

			if (i == j)
				continue;
			k = off[lq_sched_frame(&p->best, n, i, j) + 1]++;
			pr[2 * k] = i;
			pr[2 * k + 1] = j;
		}
	*frame_off = off;
	*pairs = pr;
	return IBF_OK;
}

ibf_status_t ibf_liquid_plan_write_json(const ibf_fabric_t *f,
					const ibf_liquid_plan_t *p, FILE *fp,
					ibf_err_t *err)
{
	const ibf_liquid_plan_info_t *in = &p->info;
	uint64_t *off;
	uint32_t *pr;
	char a[128], b[128];

	if (ibf_liquid_plan_frames(p, &off, &pr, err) != IBF_OK)
		return IBF_ERR_NOMEM;
	fprintf(fp, "{\"transfers\":%llu,\"duration\":%u,"
		"\"liquid_throughput\":%.10g,\"liquid\":%s,"
		"\"optimal_proven\":%s,\"frames\":[",
		(unsigned long long)in->ntransfers, in->duration,
		in->liquid_throughput, in->liquid ? "true" : "false",
		in->optimal_proven ? "true" : "false");
	for (uint32_t i = 0; i < in->nframes; i++) {
		fprintf(fp, "%s\n[", i ? "," : "");
		for (uint64_t k = off[i]; k < off[i + 1]; k++) {
			fprintf(fp, "%s[", k > off[i] ? "," : "");
			lq_json_str(fp, ibf_port_host_name(
				f, p->a->ranks[pr[2 * k]], a, sizeof(a)));
			fputc(',', fp);
			lq_json_str(fp, ibf_port_host_name(
				f, p->a->ranks[pr[2 * k + 1]], b, sizeof(b)));
			fputc(']', fp);
		}
		fputc(']', fp);
	}
	fprintf(fp, "%s],\"time_s\":%.6f}\n", in->nframes ? "\n" : "",
		in->seconds);
	free(off);
	free(pr);
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}

/* ---- small plans: the traffic of ibf_liquid_traffic_alltoall() ---------- */

/* The all-to-all as link sets, transfers in row-major order (i, j) and
 * links numbered in order of first use, exactly as
 * ibf_liquid_traffic_alltoall() builds it, so small plans get the very
 * schedules ibf_liquid_schedule() gives. */
static ibf_status_t small_traffic(const struct lq_a2a *a,
				  ibf_liquid_traffic_t **out, ibf_err_t *err)
{
	uint32_t n = a->n, T = (uint32_t)a->T, k = 0, next = 0;
	uint32_t *off = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *ls = malloc(((size_t)T * (a->H + 1) + 1) * sizeof(uint32_t));
	uint32_t *src = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *dst = malloc(((size_t)T + 1) * sizeof(uint32_t));
	uint32_t *id = malloc(((size_t)a->L + 1) * sizeof(uint32_t));
	ibf_port_id_t *port = malloc(((size_t)a->L + 1) * sizeof(*port));
	ibf_port_id_t *hosts = malloc(((size_t)n + 1) * sizeof(*hosts));
	ibf_status_t st = IBF_ERR_NOMEM;
	uint32_t x = 0;

	*out = NULL;
	if (!off || !ls || !src || !dst || !id || !port || !hosts)
		goto done;
	for (uint32_t q = 0; q < a->L; q++)
		id[q] = LQ_NONE;
	off[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			uint32_t len;
			const uint32_t *tl;

			if (i == j)
				continue;
			tl = lq_a2a_tail(a, (uint64_t)a->grp[i] * n + j, &len);
			for (uint32_t q = 0; q <= len; q++) {
				uint32_t v = q ? tl[q - 1] : a->inj[i];

				if (id[v] == LQ_NONE) {
					id[v] = next;
					port[next++] = a->link_port[v];
				}
				ls[k++] = id[v];
			}
			src[x] = i;
			dst[x] = j;
			off[++x] = k;
		}
	st = ibf_liquid_traffic_from_sets(T, off, ls, n, src, dst, out, err);
	if (st != IBF_OK)
		goto done;
	/* Abstract so far: give it the fabric's ports. */
	free((*out)->hosts);
	free((*out)->link_port);
	(*out)->hosts = hosts;
	(*out)->link_port = port;
	hosts = NULL;
	port = NULL;
	memcpy((*out)->hosts, a->ranks, (size_t)n * sizeof(*a->ranks));
done:
	free(off);
	free(ls);
	free(src);
	free(dst);
	free(id);
	free(port);
	free(hosts);
	if (st == IBF_ERR_NOMEM && (!err || err->status == IBF_OK))
		ibf_err_set(err, st, "liquid: out of memory");
	return st;
}

/* The exact pipeline on a small all-to-all, within what is left of the
 * clock; its schedule replaces the plan's if it is not longer. */
static ibf_status_t small_plan(ibf_liquid_plan_t *p,
			       const ibf_liquid_opts_t *o,
			       struct lq_clock *clk, ibf_err_t *err)
{
	const struct lq_a2a *a = p->a;
	ibf_liquid_traffic_t *t;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t so = *o;
	ibf_status_t st;
	double left = clk->deadline - lq_now();

	if (left <= 0 || clk->work >= clk->work_limit) {
		clk->expired = true;
		return IBF_OK;
	}
	st = small_traffic(a, &t, err);
	if (st != IBF_OK)
		return st;
	so.time_limit = left;
	so.work_limit = clk->work_limit == UINT64_MAX ? 0 :
		clk->work_limit - clk->work;
	st = ibf_liquid_schedule(t, &so, &r, err);
	ibf_liquid_traffic_destroy(t);
	if (st != IBF_OK)
		return st;
	if (r.nframes <= p->best.nframes) {
		uint32_t x = 0;

		for (uint32_t i = 0; i < a->n; i++)
			for (uint32_t j = 0; j < a->n; j++)
				if (i != j)
					p->best.frame_of[lq_a2a_slot(
						a->n, p->best.pos, i, j)] =
						r.frame_of[x++];
		p->best.nframes = r.nframes;
		p->info.method = r.method;
	}
	p->info.exhausted = r.exhausted;
	p->info.search_depth = r.search_depth;
	p->info.categories = r.categories;
	p->info.timed_out = p->info.timed_out || r.timed_out;
	lq_tick(clk, r.work);
	ibf_liquid_result_free(&r);
	return IBF_OK;
}

/* ---- the pipeline ------------------------------------------------------------ */

/* Phase orders by structure: group pairs first when the ranks are listed
 * switch by switch and each switch's routes to another switch's ranks
 * leave by as many different links as they can (fat trees: the
 * destination picks the up port); otherwise the mixed shifts. */
static bool groups_first(const struct lq_a2a *a)
{
	uint32_t *cnt, *seen;
	bool ok = lq_a2a_grouped(a) && a->G > 1;

	if (!ok)
		return false;
	cnt = calloc((size_t)a->L + 1, sizeof(uint32_t));
	seen = calloc((size_t)a->L + 1, sizeof(uint32_t));
	for (uint32_t g = 0; ok && cnt && seen && g < a->G && g < 16; g++) {
		uint32_t h = (g + 1 + g * 7) % a->G, links = 0, mx = 0;
		uint32_t kh = a->goff[h + 1] - a->goff[h];

		if (h == g)
			continue;
		/* Distinct first links of g toward all ranks, then the most
		 * ranks of h behind one of them. */
		for (uint32_t j = 0; j < a->n; j++) {
			uint32_t len;
			const uint32_t *tl = lq_a2a_tail(
				a, (uint64_t)g * a->n + j, &len);

			if (len && a->grp[j] != g && seen[tl[0]] != g + 1) {
				seen[tl[0]] = g + 1;
				links++;
			}
		}
		for (uint32_t q = a->goff[h]; q < a->goff[h + 1]; q++) {
			uint32_t len;
			const uint32_t *tl = lq_a2a_tail(
				a, (uint64_t)g * a->n + a->gmem[q], &len);

			if (len && ++cnt[tl[0]] > mx)
				mx = cnt[tl[0]];
		}
		for (uint32_t q = a->goff[h]; q < a->goff[h + 1]; q++) {
			uint32_t len;
			const uint32_t *tl = lq_a2a_tail(
				a, (uint64_t)g * a->n + a->gmem[q], &len);

			if (len)
				cnt[tl[0]] = 0;
		}
		ok = links > 1 && mx <= (kh + links - 1) / links;
	}
	ok = ok && cnt && seen;
	free(cnt);
	free(seen);
	return ok;
}

static void try_first_fit(ibf_liquid_plan_t *p, enum lq_a2a_order order,
			  struct lq_clock *clk, bool *nomem)
{
	struct lq_sched s;

	if (p->best.nframes == p->a->D || clk->expired)
		return;
	if (!lq_a2a_first_fit(p->a, order, &s, clk)) {
		*nomem = *nomem || !clk->expired;
		return;
	}
	if (s.nframes < p->best.nframes) {
		lq_sched_free(&p->best);
		p->best = s;
		p->info.method = IBF_LIQUID_FIRST_FIT;
		p->info.exhausted = false;
	} else {
		lq_sched_free(&s);
	}
}

static uint64_t fingerprint(const ibf_liquid_plan_t *p)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; p->best.pos && i < p->a->n; i++)
		h = (h ^ p->best.pos[i]) * 0x100000001b3ull;
	for (uint64_t x = 0; x < p->a->T; x++)
		h = (h ^ p->best.frame_of[x]) * 0x100000001b3ull;
	return h;
}

static uint32_t largest_frame(const ibf_liquid_plan_t *p)
{
	uint32_t *c = calloc((size_t)p->best.nframes + 1, sizeof(uint32_t));
	uint32_t m = 0;

	for (uint64_t x = 0; c && x < p->a->T; x++)
		if (++c[p->best.frame_of[x]] > m)
			m = c[p->best.frame_of[x]];
	free(c);
	return m;
}

static void base_info(ibf_liquid_plan_t *p)
{
	const struct lq_a2a *a = p->a;
	ibf_liquid_plan_info_t *in = &p->info;

	in->nranks = a->n;
	in->ntransfers = a->T;
	in->duration = a->D;
	in->liquid_throughput = a->D ? (double)a->T / a->D : 0;
	in->nlinks = a->L;
	for (uint32_t x = 0; x < a->L; x++)
		in->nbottlenecks += a->D && a->load[x] == a->D;
}

static ibf_status_t run(ibf_liquid_plan_t *p, const ibf_liquid_opts_t *o,
			struct lq_clock *clk, ibf_err_t *err)
{
	struct lq_a2a *a = p->a;
	bool cut = false, nomem = false, grp;

	if (!lq_a2a_round_robin(a, &p->best, clk, &cut))
		return ibf_err_set(err, IBF_ERR_NOMEM, "liquid: out of memory");
	p->info.rr_frames = p->best.nframes;
	p->info.method = IBF_LIQUID_ROUND_ROBIN;
	p->info.timed_out = cut;
	if (!a->complete || (p->best.nframes == a->D && !o->search_first))
		return IBF_OK;
	/* First fit before the exact search: it is bounded (tens of
	 * milliseconds at 128 ranks), while the search runs to its budget
	 * where it finds no liquid schedule, and a budget spent there
	 * must not leave the plan at round robin. */
	grp = groups_first(a);
	try_first_fit(p, grp ? LQ_ORDER_GROUPS : LQ_ORDER_MIXED, clk, &nomem);
	/* Within 1% of the bound the other order is not tried: where the
	 * first order is the right one it is the worse one by more than
	 * that, and on 4,096 ranks it costs several times the first. */
	if ((uint64_t)p->best.nframes * 100 > (uint64_t)a->D * 101)
		try_first_fit(p, grp ? LQ_ORDER_MIXED : LQ_ORDER_GROUPS, clk,
			      &nomem);
	if (nomem)
		return ibf_err_set(err, IBF_ERR_NOMEM, "liquid: out of memory");
	if (a->T <= LQ_SEARCH_MAX_TRANSFERS &&
	    (p->best.nframes != a->D || o->search_first))
		return small_plan(p, o, clk, err);
	return IBF_OK;
}

ibf_status_t ibf_liquid_plan_alltoall(const ibf_lfts_t *l,
				      const ibf_port_id_t *ranks,
				      uint32_t nranks,
				      const ibf_liquid_opts_t *opts,
				      ibf_liquid_plan_t **out,
				      ibf_err_t *err)
{
	static const ibf_liquid_opts_t defaults = { 0 };
	const ibf_liquid_opts_t *o = opts ? opts : &defaults;
	ibf_liquid_plan_t *p = calloc(1, sizeof(*p));
	struct lq_clock clk;
	ibf_status_t st;

	*out = NULL;
	ibf_err_clear(err);
	lq_clock_start(&clk, o->time_limit > 0 ? o->time_limit : 10,
		       o->work_limit);
	if (!p)
		return ibf_err_set(err, IBF_ERR_NOMEM, "liquid: out of memory");
	p->best.nframes = LQ_NONE;
	st = lq_a2a_build(l, ranks, nranks, &clk, &p->a, err);
	if (st == IBF_OK) {
		base_info(p);
		st = run(p, o, &clk, err);
	}
	if (st != IBF_OK) {
		ibf_liquid_plan_destroy(p);
		return st;
	}
	p->info.nframes = p->best.nframes;
	p->info.liquid = p->a->complete && p->best.nframes == p->a->D;
	p->info.optimal_proven = p->info.liquid ||
		(p->info.exhausted && p->best.nframes == p->a->D + 1);
	p->info.timed_out = p->info.timed_out || clk.expired ||
		!p->a->complete;
	p->info.fingerprint = fingerprint(p);
	p->info.largest_frame = largest_frame(p);
	p->info.seconds = lq_now() - clk.start;
	p->info.work = clk.work;
	*out = p;
	return IBF_OK;
}
