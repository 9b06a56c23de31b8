/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Node-aware liquid all-to-all: frames of *unit pairs*, not rank pairs.
 *
 * A unit is one HCA port.  Ranks that share a port (the ranks of a host
 * with one port) form one unit; ranks that each have their own port
 * (multi-rail hosts, one rank per host) are units of their own.  All the
 * blocks from the ranks of unit A to the ranks of unit B follow A's one
 * path to B, so the unit pair (A, B) is one transfer of the schedule, of
 * volume c_A x c_B blocks (c_U = ranks of U).  Blocks between ranks of one
 * unit never touch the network: they go through shared memory at any
 * time, beside the network frames.
 *
 * The planner (one process) builds the plan with ibf_liquid_hplan_create()
 * from the fabric, its LFTs and the rank -> port map; every other rank
 * needs only its slice (ibf_liquid_hslice_pack(): O(units + successors)
 * 32-bit words, the same for all ranks of a unit but for the rank number)
 * which the planner can scatter.  A rank parses its slice with
 * ibf_liquid_hslice_parse() and runs its part from it alone; see
 * docs/ucx-alltoall.md ("Node-aware plans") for the protocol.
 *
 * The bound is the units' traffic's: the busiest link's blocks.
 */
#ifndef IBFLOW_LIQUID_HOSTS_H
#define IBFLOW_LIQUID_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/liquid.h>

IBF_BEGIN_DECLS

/* Units of a rank -> port map: unit_of[r] (array of nranks) numbers the
 * distinct ports by first appearance in rank order; *nunits receives
 * their count.  O(nranks); every rank that holds the map can run it. */
ibf_status_t ibf_liquid_units(const ibf_port_id_t *rank_port,
			      uint32_t nranks, uint32_t *unit_of,
			      uint32_t *nunits, ibf_err_t *err);

typedef struct ibf_liquid_hplan ibf_liquid_hplan_t;

typedef struct ibf_liquid_hplan_info {
	uint32_t nranks;
	uint32_t nunits;
	uint32_t max_ranks;         /* most ranks on one unit */
	uint64_t npairs;            /* unit pairs: nunits (nunits - 1) */
	uint64_t net_blocks;        /* rank blocks between distinct units */
	uint64_t local_blocks;      /* rank blocks within a unit (shm) */
	uint32_t nframes;
	uint32_t duration;          /* unit pairs on the busiest link */
	uint64_t bound_blocks;      /* blocks on the busiest link: no
				       schedule moves the network blocks
				       in less time */
	uint64_t plan_blocks;       /* the plan's length in block times
				       when each unit pair starts as soon
				       as its predecessors have arrived
				       (the longest chain of volumes) */
	bool liquid;                /* plan_blocks == bound_blocks */
	bool timed_out;             /* the unit plan was cut short */
	ibf_liquid_method_t method; /* of the unit-level plan */
	uint32_t rr_frames;         /* round robin over the units */
	uint64_t ndeps;             /* unit-pair predecessor entries */
	uint32_t max_pred;          /* longest predecessor list */
	uint32_t max_path;          /* links of the longest unit path */
	double seconds;             /* the whole call */
	double unit_seconds;        /* of it, the unit plan
				       (ibf_liquid_plan_alltoall) */
	uint64_t fingerprint;       /* hash of frames and dependencies */
} ibf_liquid_hplan_info_t;

/* Plan the all-to-all of nranks ranks, rank r on CA port rank_port[r]
 * (ports may repeat: ranks of one unit).  Unit pairs are planned by
 * ibf_liquid_plan_alltoall() over the units in order of first appearance;
 * predecessors per unit pair as ibf_liquid_deps_build() defines them, from
 * the paths without storing them.  No cap on ranks or blocks: memory is
 * about 36 bytes per unit pair and 8 per predecessor entry, plus the unit
 * plan's (liquid.h).  Fewer
 * than 2 units: a plan of no frame (everything through shared memory).
 * opts may be NULL; no time limit given: IBF_LIQUID_HPLAN_TIME_LIMIT (the
 * planner's CPU is what every rank waits for; above it only the exact
 * search of small unit plans would run on, for a frame or two). */
#define IBF_LIQUID_HPLAN_TIME_LIMIT 1.0
ibf_status_t ibf_liquid_hplan_create(const ibf_lfts_t *l,
				     const ibf_port_id_t *rank_port,
				     uint32_t nranks,
				     const ibf_liquid_opts_t *opts,
				     ibf_liquid_hplan_t **out,
				     ibf_err_t *err);
void ibf_liquid_hplan_destroy(ibf_liquid_hplan_t *p);
const ibf_liquid_hplan_info_t *ibf_liquid_hplan_info(
	const ibf_liquid_hplan_t *p);

/* unit_of [nranks], unit_port [nunits], unit_off [nunits + 1] into
 * unit_rank [nranks] (a unit's ranks, ascending). */
const uint32_t *ibf_liquid_hplan_unit_of(const ibf_liquid_hplan_t *p);
const ibf_port_id_t *ibf_liquid_hplan_unit_port(const ibf_liquid_hplan_t *p);
const uint32_t *ibf_liquid_hplan_unit_ranks(const ibf_liquid_hplan_t *p,
					    const uint32_t **unit_off);

/* Unit pairs in frame order: pair k (0 <= k < npairs) is
 * pair_src[k] -> pair_dst[k] in frame pair_frame[k]; frame_off
 * [nframes + 1] indexes the pairs by frame.  pred_off [npairs + 1] into
 * pred: the pairs k waits for (ascending); succ likewise the pairs that
 * wait for k.  xpred_off/xpred: the plan run again right after itself (a
 * loop of calls), the pairs of the previous call k waits for: on each
 * link k is the first to use, that link's last user (as ibf_liquid_deps_t's
 * xpred); xsucc the inverse (32-bit offsets: at most one entry per
 * link).  send_pair [nunits (nunits - 1)]: unit u's sends, pairs
 * send_pair[u (nunits - 1) ..], in frame order; recv_pair likewise its
 * receives; NULL until ibf_liquid_hplan_unit_lists() built them.  Any
 * pointer may be NULL. */
typedef struct ibf_liquid_hplan_view {
	uint64_t npairs;
	uint32_t nframes;
	const uint32_t *pair_src, *pair_dst, *pair_frame;
	const uint64_t *frame_off;
	const uint64_t *pred_off, *succ_off;
	const uint32_t *pred, *succ;
	const uint32_t *xpred_off, *xsucc_off;
	const uint32_t *xpred, *xsucc;
	const uint32_t *send_pair, *recv_pair;
} ibf_liquid_hplan_view_t;

void ibf_liquid_hplan_view(const ibf_liquid_hplan_t *p,
			   ibf_liquid_hplan_view_t *v);

/* Build each unit's sends and receives in frame order (the view's
 * send_pair, recv_pair: 8 bytes per unit pair), which the slices below
 * read; a planner with slices of its own needs none.  Once is enough. */
ibf_status_t ibf_liquid_hplan_unit_lists(ibf_liquid_hplan_t *p,
					 ibf_err_t *err);

/* The frame of unit pair a -> b (a != b). */
uint32_t ibf_liquid_hplan_frame(const ibf_liquid_hplan_t *p, uint32_t a,
				uint32_t b);

/* ---- a rank's slice ----------------------------------------------------------
 *
 * What one rank needs to run its part, and nothing of anyone else's:
 *
 *   send[k]  (its unit's sends, in frame order): in frame `frame` this
 *            rank sends its block to every rank of unit `unit`, once
 *            `npred` predecessor unit pairs have arrived, i.e. once it
 *            has `ntokens` release tokens for (this unit, frame) when each
 *            rank of a predecessor's receiving unit sends one (direct
 *            releases; ntokens = the sum of those units' ranks), or
 *            `npred` when one rank per unit gathers and forwards them.
 *   recv[k]  (its unit's receives, in frame order): from frame `frame`'s
 *            pair `unit` -> this unit, this rank receives `nblocks` blocks
 *            (one from every rank of `unit`); once they are all here it
 *            releases each successor: succ[recv[k].succ .. recv[k+1].succ)
 *            (recv[nrecvs].succ = nsucc), each a (unit, frame) whose every
 *            rank gets a token (direct), or whose gathering rank does.
 *
 * Blocks to ranks of the rank's own unit are not in the slice: shared
 * memory, at any time.  Packed as 32-bit words (host byte order):
 *   [0] IBF_LIQUID_HSLICE_MAGIC  [1] version (1)
 *   [2] rank  [3] unit  [4] nunits  [5] nframes
 *   [6] nsends  [7] nrecvs  [8] nsucc
 *   nsends x {frame, unit, npred, ntokens}
 *   nrecvs + 1 x {frame, unit, nblocks, succ}   (the last: 0, 0, 0, nsucc)
 *   nsucc x {unit, frame}
 * 9 + 4 nsends + 4 (nrecvs + 1) + 2 nsucc words: below 10 (units + 1) +
 * 2 nsucc, nsucc at most nunits x the longest path. */

#define IBF_LIQUID_HSLICE_MAGIC   0x4c514853u   /* "SHQL" */
#define IBF_LIQUID_HSLICE_VERSION 1u
#define IBF_LIQUID_HSLICE_HEADER  9u

typedef struct ibf_liquid_hslice_send {
	uint32_t frame, unit, npred, ntokens;
} ibf_liquid_hslice_send_t;

typedef struct ibf_liquid_hslice_recv {
	uint32_t frame, unit, nblocks, succ;
} ibf_liquid_hslice_recv_t;

typedef struct ibf_liquid_hslice_succ {
	uint32_t unit, frame;
} ibf_liquid_hslice_succ_t;

/* A parsed slice: pointers into the packed words. */
typedef struct ibf_liquid_hslice {
	uint32_t rank, unit, nunits, nframes;
	uint32_t nsends, nrecvs, nsucc;
	const ibf_liquid_hslice_send_t *send;   /* [nsends] */
	const ibf_liquid_hslice_recv_t *recv;   /* [nrecvs + 1] */
	const ibf_liquid_hslice_succ_t *succ;   /* [nsucc] */
} ibf_liquid_hslice_t;

/* Words of rank's slice (0 before ibf_liquid_hplan_unit_lists()).  A
 * unit's ranks get the same slice but for word 2 (the rank): a planner
 * may pack it once per unit and patch that word. */
size_t ibf_liquid_hslice_words(const ibf_liquid_hplan_t *p, uint32_t rank);
/* Pack rank's slice into buf[0..cap-1]; *nwords receives its length.
 * IBF_ERR_RANGE if cap is too small (nothing written beyond cap),
 * IBF_ERR_INVALID before ibf_liquid_hplan_unit_lists().
 * O(its unit's pairs and successors). */
ibf_status_t ibf_liquid_hslice_pack(const ibf_liquid_hplan_t *p,
				    uint32_t rank, uint32_t *buf, size_t cap,
				    size_t *nwords, ibf_err_t *err);
/* Check and view a packed slice (sizes, magic, version, frames and units
 * in range, frames ascending, successor offsets); v points into buf.
 * IBF_ERR_PARSE naming the first bad word. */
ibf_status_t ibf_liquid_hslice_parse(const uint32_t *buf, size_t nwords,
				     ibf_liquid_hslice_t *v, ibf_err_t *err);

/* The unit plan as JSON: {"ranks","units","frames","duration",
 * "bound_blocks","plan_blocks","liquid","local_blocks","net_blocks",
 * "unit_frames":[[["SRC","DST"],...],...],"time_s"}; units by
 * NodeDescription. */
ibf_status_t ibf_liquid_hplan_write_json(const ibf_fabric_t *f,
					 const ibf_liquid_hplan_t *p,
					 FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
