/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow status codes and error reports.
 *
 * Every fallible libibflow call returns an ibf_status_t and, when given an
 * ibf_err, fills it with one human-readable line ("FILE:LINE: what is wrong"
 * for parsers).  There is no errno-style global: an ibf_err lives with the
 * caller, so OpenSM threads and MPI ranks never share error state.
 */
#ifndef IBFLOW_STATUS_H
#define IBFLOW_STATUS_H

#include <stdarg.h>
#include <stddef.h>

#include <ibflow/decls.h>

IBF_BEGIN_DECLS

typedef enum ibf_status {
	IBF_OK = 0,
	IBF_ERR_NOMEM,       /* allocation failed */
	IBF_ERR_IO,          /* a file could not be opened, read or written */
	IBF_ERR_PARSE,       /* malformed input: syntax, truncation, junk */
	IBF_ERR_INVALID,     /* well-formed but inconsistent input */
	IBF_ERR_NOT_FOUND,   /* a named node, port, host or LID does not exist */
	IBF_ERR_RANGE,       /* a value outside what InfiniBand allows */
	IBF_ERR_UNSUPPORTED, /* a request this build or engine cannot serve */
} ibf_status_t;

#define IBF_ERR_MSG_MAX 512

typedef struct ibf_err {
	ibf_status_t status;
	char msg[IBF_ERR_MSG_MAX];
} ibf_err_t;

const char *ibf_status_str(ibf_status_t status);

/* Record an error in err (may be NULL) and return status, so callers can
 * write `return ibf_err_set(err, IBF_ERR_PARSE, "%s:%u: ...", ...);`. */
ibf_status_t ibf_err_set(ibf_err_t *err, ibf_status_t status,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
ibf_status_t ibf_err_vset(ibf_err_t *err, ibf_status_t status,
			  const char *fmt, va_list ap);

/* Prepend context ("FILE:LINE: ") to the message already in err. */
void ibf_err_prefix(ibf_err_t *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The same for any message buffer of size bytes (the UCX component's
 * error reports carry a larger one): the head (at most 1023 bytes)
 * first, the message cut at its end to fit. */
void ibf_msg_vprefix(char *msg, size_t size, const char *fmt, va_list ap);

static inline void ibf_err_clear(ibf_err_t *err)
{
	if (err) {
		err->status = IBF_OK;
		err->msg[0] = '\0';
	}
}

IBF_END_DECLS
#endif
