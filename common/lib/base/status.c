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

/* Heads are a file and a line or a few words of context: one longer
 * than this is cut here (the message buffers are 512 and 1024 bytes). */
#define IBF_MSG_HEAD_MAX 1024

void ibf_msg_vprefix(char *msg, size_t size, const char *fmt, va_list ap)
{
	char head[IBF_MSG_HEAD_MAX];
	size_t hl, ml;

	vsnprintf(head, sizeof(head), fmt, ap);
	hl = strlen(head);
	ml = strlen(msg);
	if (hl >= size)
		hl = size - 1;
	if (hl + ml >= size)
		ml = size - 1 - hl;
	memmove(msg + hl, msg, ml);
	memcpy(msg, head, hl);
	msg[hl + ml] = '\0';
}

void ibf_err_prefix(ibf_err_t *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	ibf_msg_vprefix(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}
