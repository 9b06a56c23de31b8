/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Node-aware liquid plans (ibflow/liquid_hosts.h), judged by the test's
 * own walker through the LFTs: frames of unit pairs that share no link,
 * every block between ranks of distinct ports covered exactly once, no
 * block within a port on the network, the bound recomputed from rank
 * pairs, predecessors that order every link, and the slices replayed as
 * a token protocol (every send released by exactly the tokens it
 * expects, nothing left waiting).  A 16,384-rank plan (128 hosts x 128
 * ranks) is made and its slices checked for size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <ibflow/gen.h>
#include <ibflow/liquid_hosts.h>

#include "test_util.h"

#define MAXH 64

static unsigned walk(const ibf_lfts_t *l, ibf_port_id_t src,
		     ibf_port_id_t dst, ibf_port_id_t *hops)
{
	return tu_walk(l, src, dst, hops, MAXH);
}

/* Is a an ancestor of k through the predecessor lists? */
static bool ancestor(const ibf_liquid_hplan_view_t *v, uint32_t k,
		     uint32_t a, uint8_t *mark, uint32_t *stack)
{
	uint32_t top = 0;
	bool found = false;

	memset(mark, 0, v->npairs);
	stack[top++] = k;
	while (top && !found) {
		uint32_t x = stack[--top];

		for (uint64_t e = v->pred_off[x]; e < v->pred_off[x + 1]; e++) {
			uint32_t q = v->pred[e];

			found = found || q == a;
			if (!mark[q]) {
				mark[q] = 1;
				stack[top++] = q;
			}
		}
	}
	return found;
}

/* The next call's predecessors of each pair: on each port it is the
 * first to use, that port's last user (last[], after the whole plan);
 * xsucc their inverse.  A pair that opens no port waits for none. */
static void judge_next_call(const ibf_lfts_t *l, const ibf_port_id_t *up,
			    const ibf_liquid_hplan_view_t *v,
			    const uint32_t *last, uint32_t nports)
{
	uint32_t *first = malloc((nports + 1) * sizeof(uint32_t));
	uint32_t want[MAXH], nw, h;
	ibf_port_id_t hops[MAXH];
	uint64_t nx = 0;

	assert_non_null(first);
	for (uint32_t x = 0; x < nports; x++)
		first[x] = UINT32_MAX;
	for (uint64_t k = 0; k < v->npairs; k++) {
		h = walk(l, up[v->pair_src[k]], up[v->pair_dst[k]], hops);
		nw = 0;
		for (unsigned x = 0; x < h; x++) {
			if (first[hops[x]] != UINT32_MAX)
				continue;
			first[hops[x]] = (uint32_t)k;
			want[nw++] = last[hops[x]];
		}
		for (uint32_t i = 0; i < nw; i++)       /* sort, unique */
			for (uint32_t j = i + 1; j < nw; j++)
				if (want[j] < want[i]) {
					uint32_t t = want[i];

					want[i] = want[j];
					want[j] = t;
				}
		for (uint32_t i = 0, m = 0; i <= nw; i++) {
			if (i < nw && m && want[m - 1] == want[i])
				continue;
			if (i == nw) {
				nw = m;
				break;
			}
			want[m++] = want[i];
		}
		assert_int_equal(v->xpred_off[k + 1] - v->xpred_off[k], nw);
		for (uint32_t i = 0; i < nw; i++) {
			uint32_t q = want[i];
			bool back = false;

			assert_int_equal(v->xpred[v->xpred_off[k] + i], q);
			for (uint64_t e = v->xsucc_off[q];
			     e < v->xsucc_off[q + 1]; e++)
				back = back || v->xsucc[e] == k;
			assert_true(back);
		}
		nx += nw;
	}
	assert_int_equal(v->xsucc_off[v->npairs], nx);
	free(first);
}

/* The plan against rank_port, from nothing but the walker. */
static void judge(const ibf_lfts_t *l, const ibf_port_id_t *rp, uint32_t n,
		  const ibf_liquid_hplan_t *p)
{
	const ibf_fabric_t *f = l->fabric;
	const ibf_liquid_hplan_info_t *in = ibf_liquid_hplan_info(p);
	const ibf_port_id_t *up = ibf_liquid_hplan_unit_port(p);
	ibf_liquid_hplan_view_t v;
	uint32_t *cover = calloc((size_t)n * n, sizeof(uint32_t));
	uint64_t *load = calloc(f->nports, sizeof(uint64_t));
	uint32_t *used = calloc(f->nports, sizeof(uint32_t));
	uint32_t *last = malloc(f->nports * sizeof(uint32_t));
	uint8_t *mark;
	uint32_t *stack;
	ibf_port_id_t hops[MAXH];
	uint64_t bound = 0, local = 0, plan = 0, *end;

	assert_non_null(cover);
	ibf_liquid_hplan_view(p, &v);
	mark = malloc(v.npairs + 1);
	stack = malloc((v.npairs + 1) * MAXH * sizeof(uint32_t));
	for (uint32_t x = 0; x < f->nports; x++)
		last[x] = UINT32_MAX;
	/* The bound from rank pairs. */
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			unsigned h;

			if (i == j)
				continue;
			if (rp[i] == rp[j]) {
				local++;
				continue;
			}
			h = walk(l, rp[i], rp[j], hops);
			for (unsigned x = 0; x < h; x++)
				if (++load[hops[x]] > bound)
					bound = load[hops[x]];
		}
	assert_int_equal(in->bound_blocks, bound);
	assert_int_equal(in->local_blocks, local);
	end = calloc(v.npairs + 1, sizeof(uint64_t));
	for (uint32_t fr = 0; fr < v.nframes; fr++) {

		assert_true(v.frame_off[fr + 1] > v.frame_off[fr]);
		for (uint64_t k = v.frame_off[fr]; k < v.frame_off[fr + 1];
		     k++) {
			uint32_t s = v.pair_src[k], d = v.pair_dst[k];
			uint64_t vol = 0;
			unsigned h;

			assert_int_equal(v.pair_frame[k], fr);
			assert_int_equal(ibf_liquid_hplan_frame(p, s, d), fr);
			assert_int_not_equal(up[s], up[d]);
			for (uint32_t i = 0; i < n; i++)
				for (uint32_t j = 0; j < n; j++)
					if (rp[i] == up[s] && rp[j] == up[d]) {
						cover[(size_t)i * n + j]++;
						vol++;
					}
			for (uint64_t e = v.pred_off[k]; e < v.pred_off[k + 1];
			     e++)
				if (end[v.pred[e]] > end[k])
					end[k] = end[v.pred[e]];
			end[k] += vol;
			if (end[k] > plan)
				plan = end[k];
			h = walk(l, up[s], up[d], hops);
			for (unsigned x = 0; x < h; x++) {
				if (used[hops[x]] == fr + 1)
					fail_msg("frame %u: two unit pairs "
						 "on port %u", fr, hops[x]);
				used[hops[x]] = fr + 1;
				/* The link's previous user must be waited
				 * for, directly or through another. */
				if (last[hops[x]] != UINT32_MAX)
					assert_true(ancestor(&v, (uint32_t)k,
						last[hops[x]], mark, stack));
			}
		}
		for (uint64_t k = v.frame_off[fr]; k < v.frame_off[fr + 1];
		     k++) {
			unsigned h = walk(l, up[v.pair_src[k]],
					  up[v.pair_dst[k]], hops);

			for (unsigned x = 0; x < h; x++)
				last[hops[x]] = (uint32_t)k;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			assert_int_equal(cover[(size_t)i * n + j],
					 i != j && rp[i] != rp[j]);
	judge_next_call(l, up, &v, last, f->nports);
	assert_int_equal(in->plan_blocks, plan);
	assert_true(plan >= bound);
	assert_int_equal(in->liquid, plan == bound);
	free(cover);
	free(load);
	free(used);
	free(last);
	free(mark);
	free(stack);
	free(end);
}

/* Every rank's slice packed, parsed, and run as a token protocol: a send
 * (its blocks to every rank of a unit) starts once it holds ntokens
 * tokens; a rank that has all its blocks of a unit pair gives one token
 * to every rank of each successor's sending unit.  Everything must be
 * sent, every token expected. */
struct rstate {
	uint32_t *w;
	ibf_liquid_hslice_t s;
	uint32_t next;        /* next send */
	uint32_t *tokens;     /* [nframes] tokens for the send of frame f */
	uint32_t *got;        /* [nunits] blocks received from each unit */
};

static void replay(const ibf_liquid_hplan_t *p, uint32_t n,
		   const ibf_port_id_t *rp)
{
	const ibf_liquid_hplan_info_t *in = ibf_liquid_hplan_info(p);
	const uint32_t *uoff, *urank = ibf_liquid_hplan_unit_ranks(p, &uoff);
	const uint32_t *uof = ibf_liquid_hplan_unit_of(p);
	struct rstate *r = calloc(n, sizeof(*r));
	uint32_t U = in->nunits, nf = in->nframes, done = 0;
	bool progress = true;
	ibf_err_t err;

	assert_non_null(r);
	for (uint32_t i = 0; i < n; i++) {
		size_t w = ibf_liquid_hslice_words(p, i), got;

		/* O(units + successors), nothing per rank pair. */
		assert_true(w <= 10 * ((size_t)U + 1) +
			    2 * (size_t)U * MAXH);
		r[i].w = malloc(w * sizeof(uint32_t));
		assert_int_equal(ibf_liquid_hslice_pack(p, i, r[i].w, w - 1,
							&got, &err),
				 IBF_ERR_RANGE);
		assert_int_equal(ibf_liquid_hslice_pack(p, i, r[i].w, w, &got,
							&err), IBF_OK);
		assert_int_equal(got, w);
		assert_int_equal(ibf_liquid_hslice_parse(r[i].w, w, &r[i].s,
							 &err), IBF_OK);
		assert_int_equal(r[i].s.rank, i);
		assert_int_equal(r[i].s.unit, uof[i]);
		assert_int_equal(rp[urank[uoff[uof[i]]]], rp[i]);
		r[i].tokens = calloc(nf + 1, sizeof(uint32_t));
		r[i].got = calloc(U + 1, sizeof(uint32_t));
	}
	while (progress) {
		progress = false;
		for (uint32_t i = 0; i < n; i++) {
			const ibf_liquid_hslice_send_t *snd;
			uint32_t d;

			if (r[i].next >= r[i].s.nsends)
				continue;
			snd = &r[i].s.send[r[i].next];
			assert_true(r[i].tokens[snd->frame] <= snd->ntokens);
			if (r[i].tokens[snd->frame] < snd->ntokens)
				continue;
			r[i].next++;
			progress = true;
			for (uint32_t x = uoff[snd->unit];
			     x < uoff[snd->unit + 1]; x++) {
				const ibf_liquid_hslice_t *ds;

				d = urank[x];
				ds = &r[d].s;
				if (++r[d].got[uof[i]] < uoff[uof[i] + 1] -
							 uoff[uof[i]])
					continue;
				/* all of unit uof[i] has arrived at d */
				for (uint32_t k = 0; k < ds->nrecvs; k++) {
					if (ds->recv[k].unit != uof[i])
						continue;
					assert_int_equal(ds->recv[k].nblocks,
						r[d].got[uof[i]]);
					for (uint32_t e = ds->recv[k].succ;
					     e < ds->recv[k + 1].succ; e++) {
						uint32_t su = ds->succ[e].unit;

						for (uint32_t y = uoff[su];
						     y < uoff[su + 1]; y++)
							r[urank[y]].tokens[
							ds->succ[e].frame]++;
					}
				}
			}
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(r[i].next, r[i].s.nsends);
		assert_int_equal(r[i].s.nsends, U - 1);
		for (uint32_t k = 0; k < r[i].s.nsends; k++)
			assert_int_equal(r[i].tokens[r[i].s.send[k].frame],
					 r[i].s.send[k].ntokens);
		done++;
		free(r[i].w);
		free(r[i].tokens);
		free(r[i].got);
	}
	assert_int_equal(done, n);
	free(r);
}

/* Ranks on hosts: per[h] ranks on host h of the fabric's endpoints,
 * interleaved (rank r on host r mod H while hosts have room). */
static ibf_port_id_t *place(const ibf_fabric_t *f, const uint32_t *per,
			    uint32_t H, uint32_t *n)
{
	uint32_t tot = 0, *left = malloc(H * sizeof(uint32_t)), k = 0;
	ibf_port_id_t *rp;

	for (uint32_t h = 0; h < H; h++)
		tot += per[h];
	rp = malloc((tot + 1) * sizeof(*rp));
	memcpy(left, per, H * sizeof(uint32_t));
	while (k < tot)
		for (uint32_t h = 0; h < H; h++)
			if (left[h]) {
				left[h]--;
				rp[k++] = f->endpoints[h];
			}
	free(left);
	*n = tot;
	return rp;
}

static void one_case(const char *spec, const char *engine, uint32_t H,
		     const uint32_t *per, uint32_t ppn)
{
	ibf_fabric_t *f = tu_gen(spec, 0);
	ibf_routing_t *ro = tu_route(f, engine);
	uint32_t *cnt = malloc(H * sizeof(uint32_t)), n;
	ibf_liquid_opts_t o = { .time_limit = 30 };
	ibf_liquid_hplan_t *p, *p2;
	ibf_port_id_t *rp;
	ibf_err_t err;
	const ibf_liquid_hplan_info_t *in;

	if (H > f->nendpoints)
		H = f->nendpoints;
	for (uint32_t h = 0; h < H; h++)
		cnt[h] = per ? per[h] : ppn;
	rp = place(f, cnt, H, &n);
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, n, &o, &p,
						 &err), IBF_OK);
	in = ibf_liquid_hplan_info(p);
	print_message("# %s %u ranks on %u units: %u frames, bound %llu "
		      "blocks, plan %llu, %llu deps\n", spec, n, in->nunits,
		      in->nframes, (unsigned long long)in->bound_blocks,
		      (unsigned long long)in->plan_blocks,
		      (unsigned long long)in->ndeps);
	assert_int_equal(in->nranks, n);
	assert_false(in->timed_out);
	judge(ro->lfts, rp, n, p);
	assert_int_equal(ibf_liquid_hplan_unit_lists(p, &err), IBF_OK);
	replay(p, n, rp);
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, n, &o, &p2,
						 &err), IBF_OK);
	assert_int_equal(ibf_liquid_hplan_info(p2)->fingerprint,
			 in->fingerprint);
	ibf_liquid_hplan_destroy(p2);
	ibf_liquid_hplan_destroy(p);
	free(rp);
	free(cnt);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

static void test_equal_ppn(void **state)
{
	(void)state;
	one_case("kary:4,2", "dmodk", 16, NULL, 1);
	one_case("kary:4,2", "dmodk", 16, NULL, 2);
	one_case("kary:4,2", "dmodk", 8, NULL, 4);
	one_case("xgft:2:4,4:1,2", "dmodk", 16, NULL, 3);
	one_case("dragonfly:2,1,1", "minhop", 6, NULL, 2);
}

static void test_mixed_ppn(void **state)
{
	static const uint32_t per[] = { 3, 1, 2, 1, 4, 1, 1, 2, 5, 1, 1, 3 };
	static const uint32_t one[] = { 6, 1 };

	(void)state;
	one_case("kary:4,2", "dmodk", 12, per, 0);
	one_case("xgft:2:4,4:1,2", "dmodk", 12, per, 0);
	one_case("kary:2,2", "dmodk", 2, one, 0);
}

/* 1-8 ranks on the 64 hosts of kary:4,3 in turn: the plan whose frames
 * are reordered by their largest pair (a shorter chain there). */
static void test_mixed_reordered(void **state)
{
	uint32_t per[64];

	(void)state;
	for (uint32_t h = 0; h < 64; h++)
		per[h] = 1 + h % 8;
	one_case("kary:4,3", "dmodk", 64, per, 0);
}

/* One host: no network pair, everything through shared memory. */
static void test_one_host(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:2,2", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	ibf_port_id_t rp[4];
	ibf_liquid_hplan_t *p;
	ibf_err_t err;
	uint32_t w[64];
	size_t nw;
	ibf_liquid_hslice_t s;

	(void)state;
	for (int i = 0; i < 4; i++)
		rp[i] = f->endpoints[1];
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, 4, NULL, &p,
						 &err), IBF_OK);
	assert_int_equal(ibf_liquid_hplan_unit_lists(p, &err), IBF_OK);
	assert_int_equal(ibf_liquid_hplan_info(p)->nframes, 0);
	assert_int_equal(ibf_liquid_hplan_info(p)->local_blocks, 12);
	assert_int_equal(ibf_liquid_hslice_pack(p, 2, w, 64, &nw, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_hslice_parse(w, nw, &s, &err), IBF_OK);
	assert_int_equal(s.nsends + s.nrecvs + s.nsucc, 0);
	ibf_liquid_hplan_destroy(p);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* Damaged slices are refused, naming the word. */
static void test_bad_slices(void **state)
{
	ibf_fabric_t *f = tu_gen("kary:4,2", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	ibf_liquid_hplan_t *p;
	ibf_liquid_hslice_t s;
	ibf_err_t err;
	uint32_t w[512], c[512];
	size_t nw;

	(void)state;
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, f->endpoints, 8,
						 NULL, &p, &err), IBF_OK);
	assert_int_equal(ibf_liquid_hslice_pack(p, 3, w, 512, &nw, &err),
			 IBF_ERR_INVALID);
	assert_int_equal(ibf_liquid_hplan_unit_lists(p, &err), IBF_OK);
	assert_int_equal(ibf_liquid_hslice_pack(p, 3, w, 512, &nw, &err),
			 IBF_OK);
	assert_int_equal(ibf_liquid_hslice_parse(w, nw - 1, &s, &err),
			 IBF_ERR_PARSE);
	memcpy(c, w, nw * 4);
	c[0] ^= 1;
	assert_int_equal(ibf_liquid_hslice_parse(c, nw, &s, &err),
			 IBF_ERR_PARSE);
	assert_non_null(strstr(err.msg, "word 0"));
	memcpy(c, w, nw * 4);
	c[IBF_LIQUID_HSLICE_HEADER] = 1000;    /* a send's frame */
	assert_int_equal(ibf_liquid_hslice_parse(c, nw, &s, &err),
			 IBF_ERR_PARSE);
	memcpy(c, w, nw * 4);
	c[IBF_LIQUID_HSLICE_HEADER + 1] = 3;   /* its own unit */
	assert_int_equal(ibf_liquid_hslice_parse(c, nw, &s, &err),
			 IBF_ERR_PARSE);
	assert_int_equal(ibf_liquid_hslice_parse(w, nw, &s, &err), IBF_OK);
	ibf_liquid_hplan_destroy(p);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

/* 16,384 ranks: 128 hosts x 128 ranks on a 3-level PGFT.  The plan is
 * made, each slice is a few kilobytes (none holds the n^2 traffic), and
 * the blocks are accounted for without walking them all. */
static void test_16384(void **state)
{
	ibf_fabric_t *f = tu_gen("pgft:3:16,8,8:1,8,8:1,1,1", 0);
	ibf_routing_t *ro = tu_route(f, "dmodk");
	uint32_t n = 16384, H = 128;
	ibf_port_id_t *rp = malloc(n * sizeof(*rp));
	ibf_liquid_hplan_t *p;
	const ibf_liquid_hplan_info_t *in;
	ibf_liquid_hslice_t s;
	ibf_err_t err;
	size_t maxw = 0;
	uint32_t *w;

	(void)state;
	for (uint32_t r = 0; r < n; r++)
		rp[r] = f->endpoints[(r / 128) * 8];   /* every 8th host */
	assert_int_equal(ibf_liquid_hplan_create(ro->lfts, rp, n, NULL, &p,
						 &err), IBF_OK);
	assert_int_equal(ibf_liquid_hplan_unit_lists(p, &err), IBF_OK);
	in = ibf_liquid_hplan_info(p);
	print_message("# 128 x 128: %u frames, duration %u, bound %llu "
		      "blocks, plan %llu, %.3f s\n", in->nframes,
		      in->duration, (unsigned long long)in->bound_blocks,
		      (unsigned long long)in->plan_blocks, in->seconds);
	assert_int_equal(in->nunits, H);
	assert_int_equal(in->max_ranks, 128);
	assert_int_equal(in->npairs, (uint64_t)H * (H - 1));
	assert_int_equal(in->net_blocks, (uint64_t)n * (n - 128));
	assert_int_equal(in->local_blocks, (uint64_t)H * 128 * 127);
	assert_int_equal(in->bound_blocks, (uint64_t)in->duration * 128 *
			 128);
	assert_true(in->plan_blocks >= in->bound_blocks);
	w = malloc(ibf_liquid_hslice_words(p, 0) * 4 + 4096 * 4);
	for (uint32_t r = 0; r < n; r += 97) {
		size_t nw, cap = ibf_liquid_hslice_words(p, r);

		assert_int_equal(ibf_liquid_hslice_pack(p, r, w, cap, &nw,
							&err), IBF_OK);
		assert_int_equal(ibf_liquid_hslice_parse(w, nw, &s, &err),
				 IBF_OK);
		assert_int_equal(s.nsends, H - 1);
		for (uint32_t k = 0; k < s.nrecvs; k++)
			assert_int_equal(s.recv[k].nblocks, 128);
		if (nw > maxw)
			maxw = nw;
	}
	assert_true(maxw * 4 < 64 * 1024);
	free(w);
	ibf_liquid_hplan_destroy(p);
	free(rp);
	ibf_routing_destroy(ro);
	ibf_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_ppn),
		cmocka_unit_test(test_mixed_ppn),
		cmocka_unit_test(test_mixed_reordered),
		cmocka_unit_test(test_one_host),
		cmocka_unit_test(test_bad_slices),
		cmocka_unit_test(test_16384),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
