/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * Routing files: read OpenSM's opensm-lfts.dump and the output of ibroute /
 * dump_lfts (auto-detected); write the opensm-lfts.dump format.
 */
#ifndef IBFLOW_LFTS_IO_H
#define IBFLOW_LFTS_IO_H

#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/io.h>
#include <ibflow/lfts.h>

IBF_BEGIN_DECLS

ibf_status_t ibf_lfts_read(const ibf_fabric_t *f, const char *path,
			   ibf_lfts_t **out, ibf_err_t *err);
ibf_status_t ibf_lfts_read_text(const ibf_fabric_t *f, ibf_text_t *t,
				ibf_lfts_t **out, ibf_err_t *err);

ibf_status_t ibf_lfts_write(const ibf_lfts_t *l, FILE *fp, ibf_err_t *err);
ibf_status_t ibf_lfts_write_file(const ibf_lfts_t *l, const char *path,
				 ibf_err_t *err);

IBF_END_DECLS
#endif
