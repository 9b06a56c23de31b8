/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Service levels of a routing: the SL file (the deadlock check that uses
 * them: deadlock.h).
 *
 * SL file (written by ibf_sls_write_file, read by ibf_sls_read), one route
 * class per line, '#' starts a comment:
 *   * DLID SL        every source uses SL for DLID
 *   SLID DLID SL     the endpoint owning SLID uses SL for DLID (overrides
 *                    the '*' line of that DLID)
 * Pairs no line covers use SL 0.  Each (SLID's endpoint, DLID) and each
 * '*' DLID may appear once.
 */
#ifndef IBFLOW_SL_IO_H
#define IBFLOW_SL_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/io.h>
#include <ibflow/fabric.h>

IBF_BEGIN_DECLS

#define IBF_SL_MAX 15u
#define IBF_NSLS   16u

/* SLs of every (source endpoint, DLID) pair, laid out as in ibf_routing_t:
 * by_pair when some SL depends on the source, else by_dlid, else SL 0. */
typedef struct ibf_sls {
	const ibf_fabric_t *fabric;
	uint8_t *by_dlid;   /* [lid_top + 1] or NULL */
	uint8_t *by_pair;   /* [nendpoints * (lid_top + 1)] or NULL */
	unsigned nsls;      /* highest SL in use + 1 */
	bool owned;         /* arrays belong to this struct (ibf_sls_read) */
} ibf_sls_t;

static inline unsigned ibf_sls_get(const ibf_sls_t *s, ibf_port_id_t src,
				   unsigned dlid)
{
	if (!s)
		return 0;
	if (s->by_pair)
		return s->by_pair[(size_t)s->fabric->endpoint_index[src] *
				  (s->fabric->lid_top + 1) + dlid];
	return s->by_dlid ? s->by_dlid[dlid] : 0;
}

/* Write an SL table (engine names the routing in the header comment). */
ibf_status_t ibf_sls_write_file(const ibf_sls_t *s, const char *engine,
				const char *path, ibf_err_t *err);
void ibf_sls_write(const ibf_sls_t *s, const char *engine, FILE *fp);

/* Read an SL file against a fabric; errors are "FILE:LINE: what".  On
 * failure *out is left empty. */
ibf_status_t ibf_sls_read(const ibf_fabric_t *f, const char *path,
			  ibf_sls_t *out, ibf_err_t *err);
ibf_status_t ibf_sls_read_text(const ibf_fabric_t *f, ibf_text_t *t,
			       ibf_sls_t *out, ibf_err_t *err);
void ibf_sls_free(ibf_sls_t *s);

IBF_END_DECLS
#endif
