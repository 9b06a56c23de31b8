/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Routing engines of libibflow, for the table in route.c. */
#ifndef IBFLOW_ROUTE_INTERNAL_H
#define IBFLOW_ROUTE_INTERNAL_H

#include <stdbool.h>

#include <json-c/json.h>

#include <ibflow/route.h>

extern const ibf_route_engine_t ibf_route_engine_minhop;
extern const ibf_route_engine_t ibf_route_engine_dmodk;
extern const ibf_route_engine_t ibf_route_engine_uapr;
extern const ibf_route_engine_t ibf_route_engine_layered;
extern const ibf_route_engine_t ibf_route_engine_swisst1;

/* dmodk (multipath false) and uapr (true) share one core: route_dmodk.c. */
ibf_status_t ibf_route_pgft_run(const ibf_fabric_t *f, bool multipath,
				const ibf_route_opts_t *o, ibf_routing_t *r,
				ibf_err_t *err);

/* An engine's findings are a json-c object behind the opaque
 * ibf_routing_t.report, so that the public headers need no json-c. */
static inline json_object *ibf_route_report_json(const ibf_routing_t *r)
{
	return (json_object *)r->report;
}

/* Replace the findings (o's reference passes to r; NULL drops them). */
static inline void ibf_route_report_set(ibf_routing_t *r, json_object *o)
{
	json_object_put((json_object *)r->report);
	r->report = (struct ibf_route_report *)o;
}

/* route_io.c, for the export: the host order as verified host-list text
 * (malloc'd), and the SL file body on fp. */
ibf_status_t ibf_order_text(const ibf_routing_t *r, const char *name,
			    char **buf, size_t *len, ibf_err_t *err);
void ibf_routing_write_sl_fp(const ibf_routing_t *r, FILE *fp);

#endif
