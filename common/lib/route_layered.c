/* PLACEHOLDER: being written in this session. */
#include "route_internal.h"

static ibf_status_t run(const ibf_fabric_t *f, const ibf_route_opts_t *o,
			ibf_routing_t *r, ibf_err_t *err)
{
	return ibf_err_set(err, IBF_ERR_UNSUPPORTED, "layered: not implemented");
}

const ibf_route_engine_t ibf_route_engine_layered = { "layered", "", run };
