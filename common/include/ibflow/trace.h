/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Tracing routes through LFTs (the all-pairs check built on it: check.h).
 *
 * A route starts at a connected CA port, crosses its link and is then
 * forwarded by the LFT of every switch it reaches until it arrives at a CA
 * port (delivered if that port owns the DLID), at a switch whose entry is
 * port 0 (delivered if the switch owns the DLID), or fails.
 *
 * Hop counts are links traversed: host - leaf - host is 2, host - leaf -
 * spine - leaf - host is 4, host - leaf (a switch's own LID) is 1.
 *
 * Two independent algorithms answer the same question:
 *  - ibf_trace() walks one (source, DLID) pair hop by hop;
 *  - ibf_trace_tree_*() resolve one DLID for every switch at once (the LFT
 *    column of a DLID is a functional graph over the switches; a memoized
 *    walk settles each switch once), after which every source is O(1).
 * The check (ibf_check_run) uses the second and can be asked for the first;
 * the unit tests hold them against each other.
 */
#ifndef IBFLOW_TRACE_H
#define IBFLOW_TRACE_H

#include <stdbool.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

typedef enum ibf_trace_result {
	IBF_TRACE_OK = 0,      /* delivered to the port owning the DLID */
	IBF_TRACE_NO_ROUTE,    /* a switch has no entry for the DLID */
	IBF_TRACE_DEAD_END,    /* the entry names a port with no link, or a
				  port beyond the switch's port count (LFTs
				  built in memory; the file readers refuse
				  the latter as bad input) */
	IBF_TRACE_LOOP,        /* a switch is visited twice */
	IBF_TRACE_MISDELIVERED,/* reached a CA that does not own the DLID (or
				  a switch's port 0 for a LID not its own) */
	IBF_TRACE_NO_SWITCH_TABLE, /* a switch on the way has no LFT at all */
} ibf_trace_result_t;

#define IBF_TRACE_NRESULTS 6

const char *ibf_trace_result_str(ibf_trace_result_t r);

/* Where and how a trace ended.
 *  OK, MISDELIVERED: node/port = the node and port number reached (port 0
 *    for a switch);
 *  NO_ROUTE, DEAD_END, NO_SWITCH_TABLE: the failing switch and its LFT
 *    entry for the DLID (255 for no route/no table);
 *  LOOP: the first switch visited twice and its LFT entry.
 * nhops: links traversed up to that point; for LOOP up to the second
 * arrival at that switch (tail + one turn of the cycle). */
typedef struct ibf_trace_info {
	ibf_trace_result_t result;
	unsigned nhops;
	ibf_node_id_t node;
	unsigned port;
} ibf_trace_info_t;

/* Follow DLID from source port src (a connected CA port).  hops_out (may be
 * NULL) receives the first max_hops egress port ids (the source port first);
 * *nhops (may be NULL) the full count, as in ibf_trace_info_t.  No
 * allocation: safe to call from many threads on one ibf_lfts_t. */
ibf_trace_result_t ibf_trace(const ibf_lfts_t *l, ibf_port_id_t src,
			     unsigned dlid, ibf_port_id_t *hops_out,
			     unsigned max_hops, unsigned *nhops);

/* Same, also saying where the trace ended (info may be NULL). */
ibf_trace_result_t ibf_trace_info(const ibf_lfts_t *l, ibf_port_id_t src,
				  unsigned dlid, ibf_port_id_t *hops_out,
				  unsigned max_hops, ibf_trace_info_t *info);

/* ---- one DLID from every switch ---------------------------------------- */

typedef struct ibf_trace_tree {
	const ibf_lfts_t *lfts;
	unsigned dlid;
	/* Per switch index, valid after ibf_trace_tree_build(): */
	uint8_t *result;      /* ibf_trace_result_t */
	uint8_t *port;        /* ibf_trace_info_t.port */
	uint32_t *dist;       /* links from arriving at the switch to the end */
	ibf_node_id_t *node;  /* ibf_trace_info_t.node */
	/* Private scratch for the memoized walk. */
	uint32_t *done, *onstack, *pos, *next, *stack;
	uint32_t epoch;
} ibf_trace_tree_t;

ibf_status_t ibf_trace_tree_create(const ibf_lfts_t *l, ibf_trace_tree_t **out);
void ibf_trace_tree_destroy(ibf_trace_tree_t *t);
/* Resolve dlid for every switch: O(switches). */
void ibf_trace_tree_build(ibf_trace_tree_t *t, unsigned dlid);
/* The route from source port src to the tree's DLID, as ibf_trace_info()
 * would find it (no hop list). */
ibf_trace_result_t ibf_trace_tree_from(const ibf_trace_tree_t *t,
				       ibf_port_id_t src,
				       ibf_trace_info_t *info);

IBF_END_DECLS
#endif
