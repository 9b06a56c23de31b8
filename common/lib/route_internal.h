/* Routing engines of libibflow, for the table in route.c. */
#ifndef IBF_ROUTE_INTERNAL_H
#define IBF_ROUTE_INTERNAL_H

#include <ibflow/route.h>

extern const ibf_route_engine_t ibf_route_engine_minhop;
extern const ibf_route_engine_t ibf_route_engine_dmodk;
extern const ibf_route_engine_t ibf_route_engine_uapr;
extern const ibf_route_engine_t ibf_route_engine_layered;

#endif
