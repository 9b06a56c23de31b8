/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * JSON documents onto a stream, one way for every report writer.
 * Internal to libibflow.
 */
#ifndef IBFLOW_BASE_JSON_OUT_H
#define IBFLOW_BASE_JSON_OUT_H

#include <stdio.h>

#include <json-c/json.h>

#include <ibflow/status.h>

/* Print root (json-c flags) and a newline on fp, then release root
 * (NULL: out of memory).  IBF_ERR_IO "write error" when fp fails. */
ibf_status_t ibf_json_write(json_object *root, int flags, FILE *fp,
			    ibf_err_t *err);

#endif
