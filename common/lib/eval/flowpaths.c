/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * From (source host, destination host) flows to MMF problems: trace each
 * flow through the LFTs (ibf_trace) and record the egress ports it uses.
 * See mmf.h.
 */
#include <ibflow/mmf.h>
#include <ibflow/trace.h>

#include <stdlib.h>

/* Longest path accepted: far above any loop-free fabric diameter. */
#define MAX_PATH 256u

static bool is_endpoint(const ibf_fabric_t *f, ibf_port_id_t p)
{
	return p < f->nports && f->endpoint_index[p] < f->nendpoints &&
	       f->endpoints[f->endpoint_index[p]] == p;
}

static ibf_status_t check_pair(const ibf_fabric_t *f, const ibf_flow_t *fl,
			       uint32_t i, ibf_err_t *err)
{
	char a[128], b[128];

	if (!is_endpoint(f, fl->src) || !is_endpoint(f, fl->dst))
		return ibf_err_set(err, IBF_ERR_NOT_FOUND,
				   "flow %u: port %u or %u is not a connected "
				   "host port", i, fl->src, fl->dst);
	if (fl->src == fl->dst)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "flow %s -> %s: source and destination "
				   "are the same host (no network path)",
				   ibf_port_host_name(f, fl->src, a, sizeof(a)),
				   ibf_port_host_name(f, fl->dst, b,
						      sizeof(b)));
	if (!fl->count)
		return ibf_err_set(err, IBF_ERR_INVALID,
				   "flow %s -> %s: count 0",
				   ibf_port_host_name(f, fl->src, a, sizeof(a)),
				   ibf_port_host_name(f, fl->dst, b,
						      sizeof(b)));
	return IBF_OK;
}

static ibf_status_t broken(const ibf_fabric_t *f, const ibf_flow_t *fl,
			   unsigned dlid, ibf_trace_result_t r,
			   unsigned nhops, ibf_err_t *err)
{
	char a[128], b[128];

	return ibf_err_set(err, IBF_ERR_INVALID,
			   "flow %s -> %s (DLID %u): route broken: %s "
			   "after %u hops",
			   ibf_port_host_name(f, fl->src, a, sizeof(a)),
			   ibf_port_host_name(f, fl->dst, b, sizeof(b)), dlid,
			   r == IBF_TRACE_OK ? "path too long" :
			   ibf_trace_result_str(r), nhops);
}

/* Trace every DLID of the flow and collect (egress port, 1 / ndlids). */
static ibf_status_t add_flow(const ibf_lfts_t *l, const ibf_flow_t *fl,
			     unsigned ndlids, ibf_port_id_t *hops,
			     uint32_t *links, double *fracs,
			     ibf_mmf_problem_t *p, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned base = f->ports[fl->dst].lid, d, n = 0, nh, i;
	double share = 1.0 / ndlids;

	for (d = 0; d < ndlids; d++) {
		ibf_trace_result_t r = ibf_trace(l, fl->src, base + d, hops,
						 MAX_PATH, &nh);

		if (r != IBF_TRACE_OK || nh > MAX_PATH)
			return broken(f, fl, base + d, r, nh, err);
		for (i = 0; i < nh; i++) {
			links[n] = hops[i];
			fracs[n++] = share;
		}
	}
	return ibf_mmf_problem_add_flow(p, fl->count, links, fracs, n, err);
}

static void set_capacities(const ibf_fabric_t *f, ibf_mmf_problem_t *p,
			   uint32_t offset)
{
	ibf_port_id_t q;

	for (q = 0; q < f->nports; q++)
		if (f->ports[q].peer != IBF_NO_ID)
			p->capacity[offset + q] =
				ibf_port_capacity(&f->ports[q]);
}

ibf_status_t ibf_flowpaths_build(const ibf_lfts_t *l, const ibf_traffic_t *tr,
				 ibf_flowpaths_mode_t mode,
				 ibf_mmf_problem_t *p, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	ibf_port_id_t *hops;
	uint32_t *links, i;
	double *fracs;
	ibf_status_t st;
	unsigned nd;

	if ((st = ibf_mmf_problem_init(p, f->nports, err)) != IBF_OK)
		return st;
	set_capacities(f, p, 0);
	nd = mode == IBF_FLOWPATHS_LMC ? 1u << IBF_LMC_MAX : 1;
	hops = malloc(MAX_PATH * sizeof(*hops));
	links = malloc((size_t)nd * MAX_PATH * sizeof(*links));
	fracs = malloc((size_t)nd * MAX_PATH * sizeof(*fracs));
	if (!hops || !links || !fracs) {
		st = ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < tr->n; i++) {
		const ibf_flow_t *fl = &tr->flows[i];

		if ((st = check_pair(f, fl, i, err)) != IBF_OK)
			goto out;
		nd = mode == IBF_FLOWPATHS_LMC ? 1u << f->ports[fl->dst].lmc
					       : 1;
		st = add_flow(l, fl, nd, hops, links, fracs, p, err);
		if (st != IBF_OK)
			goto out;
	}
out:
	free(hops);
	free(links);
	free(fracs);
	if (st != IBF_OK)
		ibf_mmf_problem_free(p);
	return st;
}

ibf_status_t ibf_flowpaths_crossbar(const ibf_fabric_t *f,
				    const ibf_traffic_t *tr,
				    ibf_mmf_problem_t *p, ibf_err_t *err)
{
	static const double one[2] = { 1.0, 1.0 };
	ibf_status_t st;
	uint32_t i;

	if ((uint64_t)f->nports * 2 >= UINT32_MAX)
		return ibf_err_set(err, IBF_ERR_RANGE, "too many ports");
	if ((st = ibf_mmf_problem_init(p, 2 * f->nports, err)) != IBF_OK)
		return st;
	set_capacities(f, p, 0);
	set_capacities(f, p, f->nports);
	for (i = 0; i < tr->n; i++) {
		const ibf_flow_t *fl = &tr->flows[i];
		uint32_t links[2] = { fl->src, f->nports + fl->dst };

		st = check_pair(f, fl, i, err);
		if (st == IBF_OK)
			st = ibf_mmf_problem_add_flow(p, fl->count, links, one,
						      2, err);
		if (st != IBF_OK) {
			ibf_mmf_problem_free(p);
			return st;
		}
	}
	return IBF_OK;
}
