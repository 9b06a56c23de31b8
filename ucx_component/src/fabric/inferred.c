/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_FABRIC=infer: no export, the context's fabric is the tree
 * inferred from RTTs among the processes when they meet (infer/), routed
 * along its unique paths.
 */
#include "config.h"

#include <stdlib.h>

#include <ibflow/infer.h>
#include <ibflow/route.h>

#include "infer/ucx_infer_internal.h"

/* Every rank builds the same fabric and routes from the same tree:
 * minhop on a tree gives the tree's unique paths. */
static ibf_ucx_status_t make_fabric(ibf_ucx_t *u,
				    const ibf_ucx_infer_result_t *res,
				    ibf_ucx_err_t *err)
{
	ibf_routing_t *rt = NULL;
	ibf_fabric_t *f = NULL;
	ibf_err_t ie;
	uint32_t h;

	ibf_err_clear(&ie);
	if (ibf_infer_tree_fabric(&res->r.tree,
				  (const char *const *)res->names, 0, &f,
				  &ie) != IBF_OK ||
	    ibf_route(f, "minhop", NULL, &rt, &ie) != IBF_OK) {
		ibf_fabric_destroy(f);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "%sFABRIC="
				       "infer: the inferred tree: %s",
				       IBF_UCX_VAR_PREFIX, ie.msg);
	}
	for (h = 0; h < u->nhosts; h++)
		if (ibf_fabric_resolve_host(f, res->names[h],
					    &u->hosts.ports[h], &ie) != IBF_OK)
			break;
	if (h < u->nhosts) {
		ibf_routing_destroy(rt);
		ibf_fabric_destroy(f);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "%sFABRIC="
				       "infer: host %s: %s", IBF_UCX_VAR_PREFIX,
				       res->names[h], ie.msg);
	}
	u->fab.fabric = f;
	u->fab.lfts = rt->lfts;
	rt->lfts = NULL;
	ibf_routing_destroy(rt);
	snprintf(u->fab.engine, sizeof(u->fab.engine), "minhop");
	u->hosts.n = u->nhosts;
	u->aware = true;
	u->why[0] = '\0';
	return IBF_UCX_OK;
}

ibf_ucx_status_t ibf_ucxi_fabric_infer(ibf_ucx_t *u, ibf_ucx_err_t *err)
{
	ibf_ucx_infer_result_t *res = calloc(1, sizeof(*res));
	ibf_ucx_status_t st;

	if (!res)
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	st = ibf_ucx_infer(u, NULL, res, err);
	if (st != IBF_UCX_OK) {
		free(res);
		return st;
	}
	st = make_fabric(u, res, err);
	if (st != IBF_UCX_OK) {
		ibf_ucx_infer_result_free(res);
		free(res);
		return st;
	}
	return ibf_ucxi_infer_keep(u, res, err);
}
