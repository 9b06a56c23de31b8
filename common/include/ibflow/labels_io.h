/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The labels file: a remembered PGFT labeling (ibf_pgft_memory_t) as
 * text, the same for the OpenSM plugin's cache file and `ibflow route
 * --labels-out / --labels-from` (docs/formats.md, "Labels file").
 */
#ifndef IBFLOW_LABELS_IO_H
#define IBFLOW_LABELS_IO_H

#include <ibflow/decls.h>
#include <ibflow/pgft.h>
#include <ibflow/status.h>

IBF_BEGIN_DECLS

/* Write atomically (temporary file, then rename); "-" is stdout. */
ibf_status_t ibf_labels_write_file(const char *path, const ibf_pgft_memory_t *m,
				   ibf_err_t *err);
/* Read; errors say FILE:LINE.  *out is NULL unless IBF_OK. */
ibf_status_t ibf_labels_read(const char *path, ibf_pgft_memory_t **out,
			     ibf_err_t *err);
/* The same from memory (tests, fuzzing). */
ibf_status_t ibf_labels_parse(const char *name, const char *buf, size_t len,
			      ibf_pgft_memory_t **out, ibf_err_t *err);

IBF_END_DECLS
#endif
