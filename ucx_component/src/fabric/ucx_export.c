/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_FABRIC: the export directory read with libibflow's reader of
 * either manifest, tried again a few times while a newer routing is being
 * put in place, every switch with its table (ibf_export_read_set_retry,
 * common/lib/export/); the testbed's address map is noted when the
 * directory has one, and the SLs of the routes (its SL file): UCX
 * sends every packet of a context on one SL, UCX_IB_SL, so the SL of a
 * route is the SL of the context a message goes on (core/sl_lanes.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/export.h>
#include <ibflow/sl_io.h>

#include "core/ucx_internal.h"

#define ADDRMAP      "ibflow-addrmap.txt"
#define SLFILE       "ibflow-sl.txt"
#ifndef READ_TRIES
#define READ_TRIES   10          /* the fuzz target builds with 1 */
#endif
#define RETRY_MS     100         /* between tries */

static void join(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* The SLs of the routes, from the export's SL file, kept in f->sls; 1
 * SL (all routes on SL 0) when it has none or it does not read (an SL
 * file is optional). */
static unsigned route_sls(ibf_ucxi_fabric_t *f, const char *dir)
{
	char path[4096];
	ibf_err_t e;

	join(path, sizeof(path), dir, SLFILE);
	ibf_err_clear(&e);
	if (ibf_sls_read(f->fabric, path, &f->sls, &e) != IBF_OK) {
		memset(&f->sls, 0, sizeof(f->sls));
		return 1;
	}
	return f->sls.nsls ? f->sls.nsls : 1;
}

ibf_ucx_status_t ibf_ucxi_fabric_load(const char *dir, ibf_ucxi_fabric_t *f,
				      ibf_ucx_err_t *err)
{
	const ibf_export_retry_t rt = { READ_TRIES, RETRY_MS };
	ibf_export_set_t set;
	char path[4096];
	ibf_ucx_status_t st;
	ibf_err_t e;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	if (ibf_export_read_set_retry(dir, &rt, &set, &e) != IBF_OK) {
		st = ibf_ucxi_err_lib(err, e.status == IBF_ERR_NOMEM ?
				      IBF_UCX_ERR_NOMEM : IBF_UCX_ERR_FABRIC,
				      &e, NULL);
		ibf_ucx_err_prefix(err, "%sFABRIC=%s: ", IBF_UCX_VAR_PREFIX,
				   dir);
		return st;
	}
	f->fabric = set.fabric;
	f->lfts = set.lfts;
	snprintf(f->engine, sizeof(f->engine), "%s", set.engine);
	f->routing = set.routing;
	f->digest = set.digest;
	f->topo_path = set.topo_path;
	f->lfts_path = set.lfts_path;
	f->dir = strdup(dir);
	f->route_sls = route_sls(f, dir);
	join(path, sizeof(path), dir, ADDRMAP);
	fp = fopen(path, "r");
	if (fp) {
		fclose(fp);
		f->addrmap = strdup(path);
	}
	if (!f->dir) {
		ibf_ucxi_fabric_free(f);
		return ibf_ucx_err_set(err, IBF_UCX_ERR_NOMEM, "out of memory");
	}
	return IBF_UCX_OK;
}

void ibf_ucxi_fabric_free(ibf_ucxi_fabric_t *f)
{
	ibf_sls_free(&f->sls);
	ibf_lfts_destroy(f->lfts);
	ibf_fabric_destroy(f->fabric);
	free(f->dir);
	free(f->addrmap);
	free(f->topo_path);
	free(f->lfts_path);
	memset(f, 0, sizeof(*f));
}
