/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The export of one routing for its consumers (the UCX side): a directory
 * holding
 *   ibflow-topology.ibnd  the fabric, ibnetdiscover format
 *   ibflow-lfts.dump      the forwarding tables, opensm-lfts.dump format
 *   ibflow-order.txt      the host order (a host list)
 *   ibflow-sl.txt         the SL of every route (SL file)
 *   ibflow-export.txt     the manifest, written first ("writing") and last
 *                         ("complete" or "failed")
 * Every data file begins with the line "# ibflow export GENERATION"; the
 * manifest names the generation and each file with its size in bytes.
 * A consumer must use a set only when the manifest says "status complete"
 * and every file carries that generation and size: ibf_export_check() and
 * ibf_export_load() do exactly that, so a half-written export, a failed
 * one or a mix of two routings is refused, never read as current.
 * Format of the manifest: docs/formats-routing.md, "Export".
 */
#ifndef IBFLOW_EXPORT_H
#define IBFLOW_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/lfts.h>
#include <ibflow/route.h>
#include <ibflow/sl_io.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define IBF_EXPORT_MANIFEST "ibflow-export.txt"
#define IBF_EXPORT_GEN_MAX 64

enum {
	IBF_EXPORT_TOPOLOGY = 0,
	IBF_EXPORT_LFTS,
	IBF_EXPORT_ORDER,
	IBF_EXPORT_SL,
	IBF_EXPORT_NFILES
};

typedef struct ibf_export_info {
	char generation[IBF_EXPORT_GEN_MAX]; /* "RUN-ROUTING": unique across
						restarts of the producer */
	char engine[32];                     /* e.g. "ibflow-dmodk" */
	uint64_t routing;                    /* routing number of the run */
	uint32_t endpoints, switches;
	unsigned lmc, sls;
	uint64_t bytes[IBF_EXPORT_NFILES];   /* filled by write / check */
	bool retry;                          /* check/load failed because an
						export is being written or
						files of two generations
						meet: try again shortly */
} ibf_export_info_t;

/* File name of file k ("ibflow-topology.ibnd", ...). */
const char *ibf_export_file_name(unsigned k);

/*
 * Write routing r (its fabric, tables, order, SLs) into dir as generation
 * info->generation.  The manifest first says "status writing", the data
 * files are written (each atomically, the topology and the order read back
 * and compared before they are put in place), then the manifest says
 * "status complete".  On any failure the manifest says "status failed"
 * with the reason (when it can still be written) and err has it: the
 * directory never holds a set that looks current but is not.
 * info->bytes is filled.
 */
ibf_status_t ibf_export_write(const char *dir, const ibf_routing_t *r,
			      ibf_export_info_t *info, ibf_err_t *err);

/*
 * Is dir a complete, consistent export?  Reads the manifest (status
 * complete), and checks that every data file exists, begins with the
 * manifest's generation and has the manifest's size.  IBF_OK fills info;
 * IBF_ERR_NOT_FOUND no manifest; IBF_ERR_INVALID otherwise, with
 * info->retry set when an export is being written or a file belongs to
 * another generation (a newer export is replacing this one: try again),
 * clear for a failed or malformed export.  err says which file and why.
 */
ibf_status_t ibf_export_check(const char *dir, ibf_export_info_t *info,
			      ibf_err_t *err);

/* A loaded export. */
typedef struct ibf_export {
	ibf_export_info_t info;
	ibf_fabric_t *fabric;
	ibf_lfts_t *lfts;
	ibf_hostlist_t order;   /* every endpoint once */
	ibf_sls_t sls;
} ibf_export_t;

/*
 * Check, read every file, check again (the manifest must not have changed
 * meanwhile) and check the contents against the manifest (endpoints,
 * switches, LMC, the order listing every endpoint once).  Same statuses as
 * ibf_export_check(); *out is NULL on failure, *retry (may be NULL) says
 * whether trying again may help.
 */
ibf_status_t ibf_export_load(const char *dir, ibf_export_t **out,
			     bool *retry, ibf_err_t *err);
void ibf_export_free(ibf_export_t *e);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
