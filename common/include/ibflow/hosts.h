/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Host lists: one host per line, its name as it is (blanks inside
 * included) or a "quoted name" (\" a quote, \\ a backslash).  A host is
 * a NodeDescription, a 0x... port (or node) GUID, or a LID; see
 * ibf_fabric_resolve_host().  Blank lines and # comments are ignored.
 */
#ifndef IBFLOW_HOSTS_H
#define IBFLOW_HOSTS_H

#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/io.h>

IBF_BEGIN_DECLS

typedef struct ibf_hostlist {
	ibf_port_id_t *ports;
	uint32_t n;
} ibf_hostlist_t;

ibf_status_t ibf_hosts_read(const ibf_fabric_t *f, const char *path,
			    ibf_hostlist_t *out, ibf_err_t *err);
/* A rank list: each line's host gets ppn (>= 1) consecutive ranks; a host
 * may be on several lines (it then has more ranks, in those places). */
ibf_status_t ibf_hosts_read_ranks(const ibf_fabric_t *f, const char *path,
				  uint32_t ppn, ibf_hostlist_t *out,
				  ibf_err_t *err);
ibf_status_t ibf_hosts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				 ibf_hostlist_t *out, ibf_err_t *err);
ibf_status_t ibf_hosts_write(const ibf_fabric_t *f, const ibf_hostlist_t *h,
			     FILE *fp, ibf_err_t *err);
void ibf_hostlist_free(ibf_hostlist_t *h);

IBF_END_DECLS
#endif
