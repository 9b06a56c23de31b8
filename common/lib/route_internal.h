/* Routing engines of libibflow, for the table in route.c. */
#ifndef IBF_ROUTE_INTERNAL_H
#define IBF_ROUTE_INTERNAL_H

#include <stdbool.h>

#include <ibflow/route.h>

extern const ibf_route_engine_t ibf_route_engine_minhop;
extern const ibf_route_engine_t ibf_route_engine_dmodk;
extern const ibf_route_engine_t ibf_route_engine_uapr;
extern const ibf_route_engine_t ibf_route_engine_layered;

/* dmodk (multipath false) and uapr (true) share one core: route_dmodk.c. */
ibf_status_t ibf_route_pgft_run(const ibf_fabric_t *f, bool multipath,
				ibf_routing_t *r, ibf_err_t *err);

#endif
