/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Latency probes over UCX (private). */
#ifndef IBFLOW_UCX_PROBE_INTERNAL_H
#define IBFLOW_UCX_PROBE_INTERNAL_H

#include "core/ucx_internal.h"

/* The initiator's side of one run of one pair: warm-up (if asked), the
 * run, then a stop message.  *best: the run's best RTT (microseconds);
 * *exchanges counts the timed exchanges. */
ibf_ucx_status_t ibf_ucxi_ping(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *o, bool warm_up,
			       double *best, uint32_t *exchanges,
			       ibf_ucx_err_t *err);
/* The responder's side: answer pings until the stop message. */
ibf_ucx_status_t ibf_ucxi_pong(ibf_ucx_t *u, uint32_t peer, uint32_t seq,
			       const ibf_ucx_probe_opts_t *o,
			       ibf_ucx_err_t *err);

#endif
