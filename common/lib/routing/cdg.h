/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Channel dependency graphs (CDGs).  Internal to libibflow.
 *
 * A channel is a directed link, named by an integer id chosen by the user
 * of the graph (an egress port id, or a dense id per switch-to-switch
 * link).  A dependency c1 -> c2 says that some route arriving by c1 leaves
 * the next switch by c2; it is stored as one bit per (c1, port number of
 * c2 at c1's head switch), 256 bits a channel, so membership is O(1) and
 * the graph costs 32 bytes a channel.  Credit-based flow control cannot
 * deadlock on a VL whose CDG is acyclic (Dally and Seitz).
 *
 * Two uses, one graph:
 *  - the deadlock check builds a VL's whole CDG, then looks for a cycle
 *    (ibf_cdg_find_cycle);
 *  - layered routing adds dependencies one at a time and must refuse the
 *    first that closes a cycle: an "ordered" graph keeps a topological
 *    order under insertion (Pearce and Kelly, "A dynamic topological sort
 *    algorithm for directed acyclic graphs", JEA 2006) and can take back
 *    its newest dependencies.
 *
 * Layered routing asks again and again about the same few dependencies
 * that close a cycle (a switch offered the same way into the tree of
 * every DLID), and takes dependencies back seldom.  An ordered graph
 * therefore remembers each refusal with the count of take-backs at the
 * time: while no dependency has been taken back since, the graph only
 * grew, the path that closed the cycle is still there, and the refusal
 * stands without a search.  After a take-back the path found then (its
 * witness) is checked arc by arc before a new search.
 */
#ifndef IBFLOW_ROUTING_CDG_H
#define IBFLOW_ROUTING_CDG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ibflow/status.h>

#define IBF_CDG_WORDS 4u /* 256 port numbers per channel */

typedef struct ibf_cdg_adj {
	uint32_t *v;
	uint32_t n, cap;
} ibf_cdg_adj_t;

/* A refused dependency: stamp = take-backs + 1 at its last refusal (0
 * never refused), its witness wit[off .. off + len) (0: none kept). */
typedef struct ibf_cdg_refusal {
	uint32_t stamp, off, len;
} ibf_cdg_refusal_t;

typedef struct ibf_cdg {
	uint32_t nch;
	uint64_t *deps;          /* [nch * IBF_CDG_WORDS] */
	uint64_t ndeps;
	/* ordered graphs only: position in the topological order, arcs */
	uint32_t *ord;
	ibf_cdg_adj_t *out, *in;
	/* refusals: per channel and 64 port numbers, a lazily allocated
	 * block of 64 */
	ibf_cdg_refusal_t **refused; /* [nch * IBF_CDG_WORDS] */
	uint32_t removals;       /* dependencies taken back so far */
	uint32_t *wit, nwit, capwit; /* witnesses: a, then back to b */
	uint32_t wit_max;        /* channels kept before starting over */
} ibf_cdg_t;

/* Work space of the ordered insertions, shared by the graphs of one run. */
typedef struct ibf_cdg_scratch {
	uint32_t *mark, epoch;   /* [nch] */
	uint32_t *stack;         /* [nch] */
	uint64_t *set;           /* [nch] (ord << 32 | channel) */
	uint32_t *set_ord;       /* [nch] */
	uint32_t *parent;        /* [nch] where the search came from */
} ibf_cdg_scratch_t;

/* 0, or -1 out of memory (free what was set up with ibf_cdg_free). */
int ibf_cdg_init(ibf_cdg_t *g, uint32_t nch, bool ordered);
void ibf_cdg_free(ibf_cdg_t *g);

static inline bool ibf_cdg_has(const ibf_cdg_t *g, uint32_t c, unsigned port)
{
	return g->deps[(size_t)c * IBF_CDG_WORDS + port / 64] >> (port % 64) & 1;
}

/* Record c -> (the channel leaving c's head by port); counted once. */
static inline void ibf_cdg_mark(ibf_cdg_t *g, uint32_t c, unsigned port)
{
	uint64_t *w = &g->deps[(size_t)c * IBF_CDG_WORDS + port / 64];
	uint64_t bit = UINT64_C(1) << (port % 64);

	g->ndeps += !(*w & bit);
	*w |= bit;
}

static inline bool ibf_cdg_has_deps(const ibf_cdg_t *g, uint32_t c)
{
	const uint64_t *w = g->deps + (size_t)c * IBF_CDG_WORDS;

	return w[0] | w[1] | w[2] | w[3];
}

/* The channel that leaves the head switch of channel c by port. */
typedef uint32_t (*ibf_cdg_next_fn)(void *arg, uint32_t c, unsigned port);

/* A cycle of the graph, if it has one: *cycle gets its channels in order
 * (each depends on the previous, the first on the last; free() it) and
 * *len their number; *len = 0 when the graph is acyclic. */
ibf_status_t ibf_cdg_find_cycle(const ibf_cdg_t *g, ibf_cdg_next_fn next,
				void *arg, uint32_t **cycle, uint32_t *len,
				ibf_err_t *err);

/* ---- ordered graphs ------------------------------------------------------ */

int ibf_cdg_scratch_init(ibf_cdg_scratch_t *s, uint32_t nch);
void ibf_cdg_scratch_free(ibf_cdg_scratch_t *s);

/* Add a -> b, b leaving a's head by port bport, unless it closes a cycle:
 * 0 added, 1 a cycle (graph unchanged), -1 out of memory (unchanged).
 * The dependency must not be in the graph yet (ibf_cdg_has). */
int ibf_cdg_insert(ibf_cdg_t *g, ibf_cdg_scratch_t *s, uint32_t a,
		   uint32_t b, unsigned bport);

/* Take back a -> b; only the newest dependencies of a and of b can be
 * taken back, newest first.  The order stays topological. */
void ibf_cdg_remove_newest(ibf_cdg_t *g, uint32_t a, uint32_t b,
			   unsigned bport);

#endif
