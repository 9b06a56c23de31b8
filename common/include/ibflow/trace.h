/*
 * Tracing routes through LFTs, and the all-pairs route check.
 */
#ifndef IBFLOW_TRACE_H
#define IBFLOW_TRACE_H

#include <stdio.h>

#include <ibflow/lfts.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ibf_trace_result {
	IBF_TRACE_OK = 0,      /* delivered to the port owning the DLID */
	IBF_TRACE_NO_ROUTE,    /* a switch has no entry for the DLID */
	IBF_TRACE_DEAD_END,    /* the entry names a port with no link, or a
				  port beyond the switch's port count */
	IBF_TRACE_LOOP,        /* a switch is visited twice */
	IBF_TRACE_MISDELIVERED,/* reached a CA that does not own the DLID */
	IBF_TRACE_NO_SWITCH_TABLE, /* a switch on the way has no LFT at all */
} ibf_trace_result_t;

const char *ibf_trace_result_str(ibf_trace_result_t r);

/* Follow DLID from source port src.  hops_out (may be NULL, capacity
 * max_hops) receives the egress port ids in order; *nhops their count. */
ibf_trace_result_t ibf_trace(const ibf_lfts_t *l, ibf_port_id_t src,
			     unsigned dlid, ibf_port_id_t *hops_out,
			     unsigned max_hops, unsigned *nhops);

#ifdef __cplusplus
}
#endif
#endif
