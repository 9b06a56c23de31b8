/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Private to infer.c, infer_parallel.c and infer_run.c (each on top of
 * the ones before): the tree under construction, the inference context
 * and the steps they share.
 */
#ifndef IBFLOW_INFER_CTX_H
#define IBFLOW_INFER_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "infer/infer_internal.h"

#define NONE IBF_INFER_NONE
/* Least-squares refits of the edge lengths during construction. */
#define REFIT_EVERY 8
#define REFIT_ITERATIONS 50
struct tree {
	uint32_t n;                /* hosts: nodes 0..n-1 */
	uint32_t nnodes;           /* hosts (placed or not) + switches */
	uint32_t root;
	uint32_t *parent;          /* NONE at the root and unplaced hosts */
	double *up;                /* length of the edge to the parent */
	double *rdist;             /* distance from the root */
	uint32_t *kid, *next, *prev; /* first child, sibling links */
	uint32_t *tin, *tout;      /* Euler tour of the current tree */
	uint8_t *placed;           /* hosts in the tree */
};

static inline bool is_anc(const struct tree *t, uint32_t u, uint32_t v)
{
	return t->tin[u] <= t->tin[v] && t->tin[v] < t->tout[u];
}
/* have[]/chave[] of a pair started and not over yet (parallel mode). */
#define IN_FLIGHT 3

/* Parallel mode: one host being inserted.  Its measurements live in
 * row idx of the caches (ctx cmin, cmax, chave); its search is re-run
 * from the start on the current tree whenever a measurement ends
 * (replay), taking what it measured from the cache, until it needs a
 * pair not measured yet (want) or places the host.  It has at most one
 * measurement in flight (its host is in it), named by idx to the
 * oracle; a slot whose host was placed meanwhile waits for it before it
 * takes the next host. */
struct slot {
	uint32_t idx;
	uint32_t h;
	uint32_t want;           /* the pair (h, want) asked for */
	bool want_look;          /* asked by the close-host search */
	ibf_rng_t rng;           /* the search's generator at its start */
	uint32_t first;          /* the search's random first host, kept
				    while the tree grows under it */
	uint32_t pairs, add_pairs;
	uint32_t look_started;   /* close-host pairs started, over all its
				    replays (the budget holds for them) */
	uint32_t flying;         /* the pair (h, flying) in flight, or NONE */
	uint32_t fly_anchor;     /* its anchor at the start (pair_links) */
	uint32_t fly_after;      /* measurements over when it started */
	bool fly_look;
	bool placed;             /* h is in the tree; only the flight is left */
};

struct ctx {
	const ibf_infer_oracle_t *o;
	const ibf_infer_opts_t *opts;
	ibf_err_t *err;
	struct tree t;
	ibf_rng_t rng;
	double tol;
	/* Measurements of the host being inserted, by the other host. */
	double *hmin, *hmax;
	uint8_t *have;           /* 0 not asked, 1 measured, 2 unavailable */
	uint32_t *asked;         /* hosts asked for the current host */
	uint32_t nasked;
	/* Bounds on the distance from the current host, per tree host. */
	double *lb, *ub;
	/* Candidate sets (close-host search, then add's M). */
	uint8_t *cand;
	uint32_t *cands, ncands;
	/* Scratch, per node. */
	double *dist;
	uint32_t *stack, *from, *path;
	double *pos;
	/* Results. */
	ibf_infer_meas_t *meas;
	uint32_t nmeas, measc;
	ibf_infer_stats_t *st;
	uint32_t host_pairs, add_pairs;
	bool in_lookahead;
	/* Parallel mode (docs/infer.md, "In parallel"). */
	struct slot *slots;      /* nslots, their caches by idx */
	uint32_t nslots;
	uint32_t *act, nact;     /* searching slots, in activation order */
	double *cmin, *cmax;     /* [nslots * n] */
	uint8_t *chave;          /* as have, per slot and host */
	struct slot *cur;        /* the slot being replayed, or NULL */
	bool blocked;            /* the replay stopped at an unmeasured pair */
	/* Measurements in flight: how many, and (an oracle without
	 * start/wait) the slots in the order started; their hosts and
	 * links, marked anew before pairs are admitted. */
	uint32_t nflying;
	uint32_t *fifo, nfifo;
	uint64_t flight_sum;     /* in flight, summed when each one ends */
	uint8_t *hmark, *emark;  /* [n] hosts, [2n] links by lower node */
};

/* infer.c: the tree, the context, one host's insertion, a pair's links */
void infer_tour(struct tree *t, uint32_t *stack, uint32_t *it);
ibf_status_t infer_take(struct ctx *c, uint32_t h, uint32_t k,
			ibf_status_t st, double mn, double mx, bool look,
			uint32_t after, uint8_t *have);
ibf_status_t infer_measure(struct ctx *c, uint32_t h, uint32_t k, bool *ok);
void infer_reset_host(struct ctx *c);
ibf_status_t infer_add(struct ctx *c, uint32_t h);
ibf_status_t infer_refit_now(struct ctx *c, uint32_t maxit);
uint32_t infer_anchor(const struct ctx *c, const struct slot *s);
bool infer_pair_links(struct ctx *c, const struct slot *s, uint32_t k,
		      uint32_t a, bool take);
ibf_status_t infer_export_tree(const struct tree *t, ibf_infer_tree_t *o,
			       ibf_err_t *err);
void infer_ctx_free(struct ctx *c);
int infer_par_alloc(struct ctx *c, uint32_t k);
int infer_ctx_alloc(struct ctx *c, uint32_t n);
ibf_status_t infer_check_order(const uint32_t *order, uint32_t n,
			       uint8_t *seen, ibf_err_t *err);
ibf_status_t infer_run_all(struct ctx *c, const uint32_t *order);

/* infer_parallel.c: hosts inserted in parallel */
ibf_status_t infer_run_par(struct ctx *c, const uint32_t *order);

#endif
