/*
 * Service levels of a routing and the deadlock check.
 *
 * SL file (written by ibf_routing_write_sl, read by ibf_sl_read), one route
 * class per line, '#' starts a comment:
 *   * DLID SL        every source uses SL for DLID
 *   SLID DLID SL     the endpoint owning SLID uses SL for DLID (overrides
 *                    the '*' line of that DLID)
 * Pairs no line covers use SL 0.  Each (SLID's endpoint, DLID) and each
 * '*' DLID may appear once.
 *
 * Deadlock check: with SL->VL identity on every port, the channel
 * dependency graph (CDG) of a VL has a node per channel (a directed link,
 * identified by its egress port) and an edge c1 -> c2 whenever some route
 * on that VL leaves a switch by c2 right after arriving by c1.  Credit-based
 * flow control cannot deadlock if every VL's CDG is acyclic.
 */
#ifndef IBFLOW_SL_H
#define IBFLOW_SL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/io.h>
#include <ibflow/route.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IBF_SL_MAX 15u
#define IBF_NSLS   16u

/* SLs of every (source endpoint, DLID) pair, laid out as in ibf_routing_t:
 * by_pair when some SL depends on the source, else by_dlid, else SL 0. */
typedef struct ibf_sls {
	const ibf_fabric_t *fabric;
	uint8_t *by_dlid;   /* [lid_top + 1] or NULL */
	uint8_t *by_pair;   /* [nendpoints * (lid_top + 1)] or NULL */
	unsigned nsls;      /* highest SL in use + 1 */
	bool owned;         /* arrays belong to this struct (ibf_sl_read) */
} ibf_sls_t;

static inline unsigned ibf_sls_get(const ibf_sls_t *s, ibf_port_id_t src,
				   unsigned dlid)
{
	if (!s)
		return 0;
	if (s->by_pair)
		return s->by_pair[(size_t)s->fabric->endpoint_index[src] *
				  (s->fabric->lid_top + 1) + dlid];
	return s->by_dlid ? s->by_dlid[dlid] : 0;
}

/* A view of a routing's SLs (no copy; valid while r lives). */
void ibf_sls_from_routing(const ibf_routing_t *r, ibf_sls_t *out);

/* Read an SL file against a fabric; errors are "FILE:LINE: what".  On
 * failure *out is left empty. */
ibf_status_t ibf_sl_read(const ibf_fabric_t *f, const char *path,
			 ibf_sls_t *out, ibf_err_t *err);
ibf_status_t ibf_sl_read_text(const ibf_fabric_t *f, ibf_text_t *t,
			      ibf_sls_t *out, ibf_err_t *err);
void ibf_sls_free(ibf_sls_t *s);

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

/* Print the cycle of a VL: one channel a line, "  "SWITCH"/PORT -> "PEER"/PORT". */
void ibf_deadlock_print_cycle(const ibf_fabric_t *f,
			      const ibf_deadlock_report_t *rep, unsigned vl,
			      FILE *fp);

#ifdef __cplusplus
}
#endif
#endif
