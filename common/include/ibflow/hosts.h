/*
 * Host lists (one host per line) and traffic files (lines "SRC DST [COUNT]").
 * A host is a NodeDescription, a 0x... port (or node) GUID, or a LID; see
 * ibf_fabric_resolve_host().  Blank lines and # comments are ignored.
 */
#ifndef IBFLOW_HOSTS_H
#define IBFLOW_HOSTS_H

#include <stdio.h>

#include <ibflow/fabric.h>
#include <ibflow/io.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ibf_hostlist {
	ibf_port_id_t *ports;
	uint32_t n;
} ibf_hostlist_t;

typedef struct ibf_flow {
	ibf_port_id_t src, dst;
	uint32_t count;
} ibf_flow_t;

typedef struct ibf_traffic {
	ibf_flow_t *flows;
	uint32_t n;
} ibf_traffic_t;

ibf_status_t ibf_hosts_read(const ibf_fabric_t *f, const char *path,
			    ibf_hostlist_t *out, ibf_err_t *err);
ibf_status_t ibf_hosts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				 ibf_hostlist_t *out, ibf_err_t *err);
ibf_status_t ibf_hosts_write(const ibf_fabric_t *f, const ibf_hostlist_t *h,
			     FILE *fp, ibf_err_t *err);
void ibf_hostlist_free(ibf_hostlist_t *h);

ibf_status_t ibf_traffic_read(const ibf_fabric_t *f, const char *path,
			      ibf_traffic_t *out, ibf_err_t *err);
ibf_status_t ibf_traffic_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				   ibf_traffic_t *out, ibf_err_t *err);
ibf_status_t ibf_traffic_write(const ibf_fabric_t *f, const ibf_traffic_t *tr,
			       FILE *fp, ibf_err_t *err);
void ibf_traffic_free(ibf_traffic_t *tr);

#ifdef __cplusplus
}
#endif
#endif
