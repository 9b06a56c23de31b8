/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The deadlock check: with SL->VL identity on every port, the channel
 * dependency graph (CDG) of a VL has a node per channel (a directed link,
 * identified by its egress port) and an edge c1 -> c2 whenever some route
 * on that VL leaves a switch by c2 right after arriving by c1.  Credit-based
 * flow control cannot deadlock if every VL's CDG is acyclic.
 */
#ifndef IBFLOW_DEADLOCK_H
#define IBFLOW_DEADLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/decls.h>
#include <ibflow/lfts.h>
#include <ibflow/sl_io.h>

IBF_BEGIN_DECLS

/* ---- deadlock check ------------------------------------------------------ */

typedef struct ibf_deadlock_opts {
	bool switches;  /* also routes to switch LIDs (as check --switches) */
} ibf_deadlock_opts_t;

typedef struct ibf_deadlock_report {
	unsigned nvls;                   /* VLs carrying at least one route */
	uint64_t routes[IBF_NSLS];       /* (source, DLID) pairs per VL */
	uint64_t deps[IBF_NSLS];         /* CDG edges per VL */
	bool cyclic[IBF_NSLS];
	/* One cycle per cyclic VL: its channels (egress port ids) in order,
	 * each depending on the previous, the first on the last. */
	ibf_port_id_t *cycle[IBF_NSLS];
	unsigned cycle_len[IBF_NSLS];
} ibf_deadlock_report_t;

/* Build the CDG of every VL from the routes of every source endpoint to
 * every endpoint LID (and switch LID with opts->switches) and look for
 * cycles.  sls NULL = SL 0 everywhere.  Routes that fail (loops, dead ends)
 * contribute the dependencies up to where they fail; run ibf_check_run()
 * for those.  O(DLIDs x (endpoints + switches)) time, O(ports x VLs)
 * memory: no per-route storage. */
ibf_status_t ibf_deadlock_check(const ibf_lfts_t *l, const ibf_sls_t *sls,
				const ibf_deadlock_opts_t *opts,
				ibf_deadlock_report_t *rep, ibf_err_t *err);
void ibf_deadlock_report_free(ibf_deadlock_report_t *rep);
bool ibf_deadlock_found(const ibf_deadlock_report_t *rep);

IBF_END_DECLS
#endif
