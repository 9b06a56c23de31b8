/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Routes between the processes of a topology-aware context: the egress
 * ports of the path the fabric's forwarding tables give. */
#include "config.h"

#include <ibflow/trace.h>

#include "core/ucx_internal.h"

ibf_ucx_status_t ibf_ucx_route(const ibf_ucx_t *u, uint32_t src_rank,
			       uint32_t dst_rank, ibf_port_id_t *links,
			       unsigned max, unsigned *n, ibf_ucx_err_t *err)
{
	ibf_port_id_t s, d;
	ibf_trace_result_t r;

	if (!u->aware)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_UNSUPPORTED,
				       "route: topology-unaware (%s)", u->why);
	if (src_rank >= u->size || dst_rank >= u->size)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_INVALID,
				       "route: rank out of range");
	s = u->hosts.ports[u->rank_host[src_rank]];
	d = u->hosts.ports[u->rank_host[dst_rank]];
	r = ibf_trace(u->fab.lfts, s,
		      ibf_port(u->fab.fabric, d)->lid + u->cfg->v.lid_offset,
		      links, max, n);
	if (r != IBF_TRACE_OK)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "route from "
				       "rank %u to rank %u: %s", src_rank,
				       dst_rank, ibf_trace_result_str(r));
	return IBF_UCX_OK;
}
