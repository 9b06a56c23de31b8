/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Status codes and one-line error reports. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ucx_internal.h"

/* The codes libibflow has too read as libibflow's (one text each). */
const char *ibf_ucx_status_str(ibf_ucx_status_t status)
{
	switch (status) {
	case IBF_UCX_OK:              return ibf_status_str(IBF_OK);
	case IBF_UCX_INPROGRESS:      return "in progress";
	case IBF_UCX_ERR_NOMEM:       return ibf_status_str(IBF_ERR_NOMEM);
	case IBF_UCX_ERR_INVALID:     return "invalid argument";
	case IBF_UCX_ERR_CONFIG:      return "bad configuration";
	case IBF_UCX_ERR_FABRIC:      return "bad fabric description";
	case IBF_UCX_ERR_MAP:         return "process not mapped to the fabric";
	case IBF_UCX_ERR_UCX:         return "UCX error";
	case IBF_UCX_ERR_OOB:         return "out-of-band exchange failed";
	case IBF_UCX_ERR_TIMEOUT:     return "timed out";
	case IBF_UCX_ERR_IO:          return ibf_status_str(IBF_ERR_IO);
	case IBF_UCX_ERR_UNSUPPORTED: return ibf_status_str(IBF_ERR_UNSUPPORTED);
	case IBF_UCX_ERR_PEER:        return "another process failed";
	case IBF_UCX_ERR_SCHEDULE:    return "no schedule";
	case IBF_UCX_ERR_DECLINED:    return "declined";
	}
	return "unknown status";
}

ibf_ucx_status_t ibf_ucx_err_set(ibf_ucx_err_t *err, ibf_ucx_status_t st,
				 const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->status = st;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return st;
}

ibf_ucx_status_t ibf_ucxi_err_lib(ibf_ucx_err_t *err, ibf_ucx_status_t st,
				  const ibf_err_t *e, const char *what)
{
	return what ? ibf_ucx_err_set(err, st, "%s: %s", what, e->msg) :
	       ibf_ucx_err_set(err, st, "%s", e->msg);
}

void ibf_ucx_err_clear(ibf_ucx_err_t *err)
{
	if (err) {
		err->status = IBF_UCX_OK;
		err->msg[0] = '\0';
	}
}

void ibf_ucx_err_prefix(ibf_ucx_err_t *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	ibf_msg_vprefix(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

double ibf_ucxi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- test hook: a UCX call made to fail ------------------------------------ */

static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static unsigned long fault_at;     /* 0: never */
static unsigned long fault_calls;

static void fault_read(void)
{
	const char *v = getenv("IBFLOW_TEST_UCX_FAIL");
	char *end;

	if (v && *v) {
		fault_at = strtoul(v, &end, 10);
		if (*end || !fault_at) {
			fprintf(stderr, "ibflow: IBFLOW_TEST_UCX_FAIL=%s: not a "
				"positive number, ignored\n", v);
			fault_at = 0;
		}
	}
}

ucs_status_t ibf_ucxi_fault(const char *what)
{
	pthread_once(&fault_once, fault_read);
	if (!fault_at ||
	    __atomic_add_fetch(&fault_calls, 1, __ATOMIC_RELAXED) != fault_at)
		return UCS_OK;
	fprintf(stderr, "ibflow: IBFLOW_TEST_UCX_FAIL=%lu: %s made to fail "
		"(pid %ld)\n", fault_at, what, (long)getpid());
	return UCS_ERR_NO_RESOURCE;
}
