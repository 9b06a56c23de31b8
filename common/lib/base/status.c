/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <ibflow/status.h>

#include <stdio.h>
#include <string.h>

const char *ibf_status_str(ibf_status_t status)
{
	switch (status) {
	case IBF_OK:              return "success";
	case IBF_ERR_NOMEM:       return "out of memory";
	case IBF_ERR_IO:          return "I/O error";
	case IBF_ERR_PARSE:       return "malformed input";
	case IBF_ERR_INVALID:     return "inconsistent input";
	case IBF_ERR_NOT_FOUND:   return "not found";
	case IBF_ERR_RANGE:       return "out of range";
	case IBF_ERR_UNSUPPORTED: return "unsupported";
	}
	return "unknown status";
}

ibf_status_t ibf_err_vset(ibf_err_t *err, ibf_status_t status,
			  const char *fmt, va_list ap)
{
	if (err) {
		err->status = status;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return status;
}

ibf_status_t ibf_err_set(ibf_err_t *err, ibf_status_t status,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ibf_err_vset(err, status, fmt, ap);
	va_end(ap);
	return status;
}

void ibf_err_prefix(ibf_err_t *err, const char *fmt, ...)
{
	char head[IBF_ERR_MSG_MAX];
	size_t hl, ml;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	hl = strlen(head);
	ml = strlen(err->msg);
	if (hl >= sizeof(err->msg))
		hl = sizeof(err->msg) - 1;
	if (hl + ml >= sizeof(err->msg))
		ml = sizeof(err->msg) - 1 - hl;
	memmove(err->msg + hl, err->msg, ml);
	memcpy(err->msg, head, hl);
	err->msg[hl + ml] = '\0';
}
