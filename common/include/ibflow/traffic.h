/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Traffic files: lines "SRC DST [COUNT]" (COUNT copies of the flow SRC ->
 * DST, default 1).  Hosts are named as in host lists (hosts.h); a name
 * with blanks may be "quoted", and unquoted words are read in the one
 * split that names two hosts.  Blank lines and # comments are ignored.
 * See docs/formats-routing.md.
 */
#ifndef IBFLOW_TRAFFIC_H
#define IBFLOW_TRAFFIC_H

#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/io.h>

IBF_BEGIN_DECLS

typedef struct ibf_flow {
	ibf_port_id_t src, dst;
	uint32_t count;
} ibf_flow_t;

typedef struct ibf_traffic {
	ibf_flow_t *flows;
	uint32_t n;
} ibf_traffic_t;

/* Read a whole file ("-" = stdin); on a bad line FILE:LINE: what, and
 * nothing returned. */
ibf_status_t ibf_traffic_read(const ibf_fabric_t *f, const char *path,
			      ibf_traffic_t *out, ibf_err_t *err);
ibf_status_t ibf_traffic_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				   ibf_traffic_t *out, ibf_err_t *err);
/* Names that read back as the same ports (GUIDs where a name cannot). */
ibf_status_t ibf_traffic_write(const ibf_fabric_t *f, const ibf_traffic_t *tr,
			       FILE *fp, ibf_err_t *err);
void ibf_traffic_free(ibf_traffic_t *tr);

IBF_END_DECLS
#endif
