/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* All-to-all at scale (liquid_a2a.c): ranks grouped by their switch, the
 * G x n tails traced once, schedules as one frame number per transfer. */
#ifndef IBFLOW_LIQUID_A2A_H
#define IBFLOW_LIQUID_A2A_H

#include "sched/liquid_ff.h"

/* 2^31 transfers (46,341 ranks): 8 GiB of frame numbers. */
#define LQ_A2A_MAX_TRANSFERS 0x80000000u

struct lq_a2a {
	const ibf_lfts_t *l;
	uint32_t n;              /* ranks */
	uint64_t T;              /* n (n - 1) transfers */
	ibf_port_id_t *ranks;    /* [n] CA ports */
	uint32_t G;              /* groups: nodes the ranks' links lead to */
	uint32_t *grp, *gpos;    /* [n] group of each rank, place in it */
	uint32_t *goff, *gmem;   /* group members, CSR in rank order */
	uint32_t W;              /* 64-bit words for a bitmap of members */
	uint32_t L;              /* directed links (egress ports) used */
	ibf_port_id_t *link_port;/* [L] */
	uint32_t *link_rank;     /* [L] rank whose own link it is, or NONE */
	uint32_t *inj;           /* [n] link of each rank's port */
	/* Tail t = g*n + j: links tl[t*H .. t*H + tlen[t]) (while tracing,
	 * tl[toff[t] .. toff[t+1])). */
	uint32_t *toff, *tl;
	uint8_t *tlen;
	uint32_t H;              /* longest tail */
	uint32_t *load;          /* [L] */
	uint32_t D;              /* duration: the largest load */
	bool complete;           /* every tail traced before the deadline */
};

/* A schedule: one frame number per transfer, laid out by phase in some
 * order of the ranks.  With pos[i] the place of rank i in that order
 * (identity when pos is NULL), transfer i -> j sits at slot
 * (k - 1) n + pos[i], k = pos[j] - pos[i] mod n (1..n-1): the transfers of
 * a phase of that order are adjacent. */
struct lq_sched {
	uint32_t *frame_of;   /* [T] */
	uint32_t nframes;     /* LQ_NONE: none */
	uint32_t *pos, *perm; /* [n] order and its inverse, or NULL */
};

static inline uint64_t lq_a2a_slot(uint32_t n, const uint32_t *pos,
				   uint32_t i, uint32_t j)
{
	uint32_t pi = pos ? pos[i] : i, pj = pos ? pos[j] : j;
	uint32_t k = pj >= pi ? pj - pi : pj + n - pi;

	return (uint64_t)(k - 1) * n + pi;
}

static inline uint32_t lq_sched_frame(const struct lq_sched *s, uint32_t n,
				      uint32_t i, uint32_t j)
{
	return s->frame_of[lq_a2a_slot(n, s->pos, i, j)];
}

void lq_sched_free(struct lq_sched *s);

/* Validates the ranks, groups them and traces the tails.  If the clock
 * expires while tracing, the result has complete = false (untraced tails
 * empty); route errors name the pair. */
ibf_status_t lq_a2a_build(const ibf_lfts_t *l, const ibf_port_id_t *ranks,
			  uint32_t n, struct lq_clock *clk,
			  struct lq_a2a **out, ibf_err_t *err);
void lq_a2a_free(struct lq_a2a *a);

/* Round-robin baseline (rank order, identity layout) into s, frame_of
 * allocated here.  *cut: the clock expired (or the tails are incomplete)
 * and the rest got a frame per transfer.  False on allocation failure. */
bool lq_a2a_round_robin(const struct lq_a2a *a, struct lq_sched *s,
			struct lq_clock *clk, bool *cut);

/* Orders in which first fit takes the transfers. */
enum lq_a2a_order {
	/* Phases i -> i + k mod n in a fixed pseudo-random order of the
	 * ranks: a phase's transfers then spread over the fabric whatever
	 * the rank order. */
	LQ_ORDER_MIXED,
	/* Group pairs g -> g + m mod G, then member shifts: suits fat trees
	 * with the ranks listed switch by switch. */
	LQ_ORDER_GROUPS,
};

/* First fit into s (allocated here): every transfer, in the given order,
 * takes the first frame in which all its links are free.  False on
 * allocation failure or when the clock expired (s then holds nothing). */
bool lq_a2a_first_fit(const struct lq_a2a *a, enum lq_a2a_order order,
		      struct lq_sched *s, struct lq_clock *clk);

/* True if each group's ranks are consecutive in rank order (ranks listed
 * switch by switch), where group pairs are the natural phases. */
bool lq_a2a_grouped(const struct lq_a2a *a);


/* Room for the longest path a node-aware plan walks (a rank's own link and
 * its tail); ibf_liquid_hplan_create refuses longer ones by name. */
#define LQ_A2A_MAX_PATH 256u

/* The engine of a plan (liquid_plan.c), for the node-aware plans built on
 * it (liquid_hosts.c). */
const struct lq_a2a *lq_plan_a2a(const ibf_liquid_plan_t *p);

static inline const uint32_t *lq_a2a_tail(const struct lq_a2a *a, uint64_t t,
					  uint32_t *len)
{
	*len = a->tlen[t];
	return a->tl + t * a->H;
}

#endif
