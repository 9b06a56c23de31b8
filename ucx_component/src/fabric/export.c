/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * UCX_IBFLOW_FABRIC: the export directory read with libibflow's reader of
 * either manifest (ibf_export_read_set, common/lib/formats/export_read.c),
 * tried again a few times while a newer routing is being put in place;
 * then every switch must have its table, and the testbed's address map
 * is noted when the directory has one, and the SLs the routing needs
 * (its SL file): UCX sends on one SL, UCX_IB_SL, whatever the route.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/export.h>
#include <ibflow/sl_io.h>

#include "core/ucx_internal.h"

#define ADDRMAP      "ibflow-addrmap.txt"
#define SLFILE       "ibflow-sl.txt"
#ifndef READ_TRIES
#define READ_TRIES   10          /* the fuzz target builds with 1 */
#endif
#define RETRY_NS     100000000L  /* 100 ms between tries */

static void join(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* One attempt with libibflow's reader of either manifest; *retry when
 * trying again may help. */
static ibf_ucx_status_t read_dir(const char *dir, ibf_ucxi_fabric_t *out,
				 bool *retry, ibf_ucx_err_t *err)
{
	ibf_export_set_t set;
	ibf_err_t e;

	ibf_err_clear(&e);
	if (ibf_export_read_set(dir, &set, retry, &e) != IBF_OK)
		return ibf_ucxi_err_lib(err, e.status == IBF_ERR_NOMEM ?
					IBF_UCX_ERR_NOMEM : IBF_UCX_ERR_FABRIC,
					&e, NULL);
	out->fabric = set.fabric;
	out->lfts = set.lfts;
	snprintf(out->engine, sizeof(out->engine), "%s", set.engine);
	out->routing = set.routing;
	out->digest = set.digest;
	out->topo_path = set.topo_path;
	out->lfts_path = set.lfts_path;
	return IBF_UCX_OK;
}

/* Every switch of the topology has its table: a dump cut at a table
 * boundary reads without error, and the gap would show only when a
 * route crosses the switch.  Retried, as a dump still being written. */
static ibf_ucx_status_t check_tables(const ibf_ucxi_fabric_t *f, bool *retry,
				     ibf_ucx_err_t *err)
{
	const ibf_fabric_t *fab = f->fabric;
	uint32_t i, missing = 0, first = 0;

	for (i = 0; i < fab->nswitches; i++)
		if (!f->lfts->has_table[i] && !missing++)
			first = i;
	if (!missing)
		return IBF_UCX_OK;
	*retry = true;
	return ibf_ucx_err_set(err, IBF_UCX_ERR_FABRIC, "%s: tables for %u of "
			       "the topology's %u switches (none for '%s' "
			       "GUID 0x%016" PRIx64 "%s): cut short or of "
			       "another fabric", f->lfts_path,
			       fab->nswitches - missing, fab->nswitches,
			       ibf_node_desc(fab, fab->switches[first]),
			       ibf_node(fab, fab->switches[first])->guid,
			       missing > 1 ? " and others" : "");
}

/* The SLs the routing relies on, from the export's SL file: 1 when it
 * has none or it does not read (an SL file is optional). */
static unsigned route_sls(const ibf_ucxi_fabric_t *f, const char *dir)
{
	char path[4096];
	ibf_sls_t sls;
	ibf_err_t e;
	unsigned n;

	join(path, sizeof(path), dir, SLFILE);
	ibf_err_clear(&e);
	if (ibf_sl_read(f->fabric, path, &sls, &e) != IBF_OK)
		return 1;
	n = sls.nsls ? sls.nsls : 1;
	ibf_sls_free(&sls);
	return n;
}

ibf_ucx_status_t ibf_ucxi_fabric_load(const char *dir, ibf_ucxi_fabric_t *f,
				      ibf_ucx_err_t *err)
{
	struct timespec nap = { 0, RETRY_NS };
	char path[4096];
	bool retry = true;
	unsigned i;
	ibf_ucx_status_t st = IBF_UCX_ERR_FABRIC;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < READ_TRIES && retry; i++) {
		ibf_ucxi_fabric_free(f);
		retry = false;
		st = read_dir(dir, f, &retry, err);
		if (st == IBF_UCX_OK)
			st = check_tables(f, &retry, err);
		if (st == IBF_UCX_OK)
			break;
		if (retry && i + 1 < READ_TRIES)
			nanosleep(&nap, NULL);
	}
	if (st != IBF_UCX_OK) {
		ibf_ucxi_fabric_free(f);
		ibf_ucx_err_prefix(err, "%sFABRIC=%s: ", IBF_UCX_VAR_PREFIX,
				   dir);
		return st;
	}
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
	ibf_lfts_destroy(f->lfts);
	ibf_fabric_destroy(f->fabric);
	free(f->dir);
	free(f->addrmap);
	free(f->topo_path);
	free(f->lfts_path);
	memset(f, 0, sizeof(*f));
}
