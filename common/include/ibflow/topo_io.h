/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Topology files: read ibnetdiscover output, ibsim net files and OpenSM's
 * opensm-subnet.lst (format auto-detected); write ibnetdiscover, ibsim and
 * Graphviz dot.  Readers return a finalized fabric or nothing.
 */
#ifndef IBFLOW_TOPO_IO_H
#define IBFLOW_TOPO_IO_H

#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/io.h>

IBF_BEGIN_DECLS

typedef enum ibf_topo_format {
	IBF_TOPO_AUTO = 0,
	IBF_TOPO_IBNETDISCOVER,
	IBF_TOPO_IBSIM,
	IBF_TOPO_SUBNET_LST,
	IBF_TOPO_DOT, /* write only */
} ibf_topo_format_t;

typedef struct ibf_topo_read_opts {
	ibf_topo_format_t format; /* IBF_TOPO_AUTO to detect */
	unsigned lmc;             /* LMC when the file carries no LIDs */
} ibf_topo_read_opts_t;

const char *ibf_topo_format_name(ibf_topo_format_t fmt);
/* "ibnetdiscover", "ibsim", "subnet-lst", "dot"; IBF_TOPO_AUTO if unknown */
ibf_topo_format_t ibf_topo_format_from_name(const char *name);

/* Which format a text looks like (IBF_TOPO_AUTO when it cannot tell). */
ibf_topo_format_t ibf_topo_detect(const ibf_text_t *t);

ibf_status_t ibf_topo_read(const char *path, const ibf_topo_read_opts_t *opts,
			   ibf_fabric_t **out, ibf_err_t *err);
ibf_status_t ibf_topo_read_text(ibf_text_t *t,
				const ibf_topo_read_opts_t *opts,
				ibf_fabric_t **out, ibf_err_t *err);

ibf_status_t ibf_topo_write(const ibf_fabric_t *f, ibf_topo_format_t fmt,
			    FILE *fp, ibf_err_t *err);
/* An ibsim net whose first node, the one OpenSM on ibsim runs from, is sm
 * (IBF_NO_ID: the first CA with port 1 cabled, else the first switch).  A
 * CA without port 1 cabled cannot carry the SM: IBF_ERR_INVALID. */
ibf_status_t ibf_topo_write_ibsim_sm(const ibf_fabric_t *f,
				     ibf_node_id_t sm, FILE *fp,
				     ibf_err_t *err);
bool ibf_topo_ibsim_can_run_sm(const ibf_fabric_t *f, ibf_node_id_t n);

/* Atomic write to a path ("-" = stdout). */
ibf_status_t ibf_topo_write_file(const ibf_fabric_t *f, ibf_topo_format_t fmt,
				 const char *path, ibf_err_t *err);

IBF_END_DECLS
#endif
