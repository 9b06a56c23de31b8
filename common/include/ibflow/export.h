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

#include <ibflow/decls.h>
#include <ibflow/fabric.h>
#include <ibflow/hosts.h>
#include <ibflow/lfts.h>
#include <ibflow/route.h>
#include <ibflow/sl_io.h>

IBF_BEGIN_DECLS

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

/* ---- the consumers' reader -------------------------------------------------
 *
 * What a consumer (libibflow_ucx's UCX_IBFLOW_FABRIC) may be given: the
 * export above (a manifest with a "format" line, read by
 * ibf_export_load()), or a plain manifest (an older plugin's, a testbed's,
 * written by hand): "topology NAME", "lfts NAME" (relative to dir or
 * absolute), optionally "routing N" or "generation N" (which a data file
 * may repeat among its first lines as "# routing N" and must then agree
 * with), "engine NAME", "status S" (only "complete" is used), "endpoints
 * N", "switches N", "lmc N" (checked against the topology).  The manifest
 * must read the same before and after the data files.
 */
typedef struct ibf_export_set {
	ibf_fabric_t *fabric;
	ibf_lfts_t *lfts;
	char engine[64];
	uint64_t routing;        /* the manifest's routing number, or 0 */
	uint64_t digest;         /* tells sets apart: of the manifest and
				    the data files (plain), of generation
				    and sizes (format 1) */
	char *topo_path;         /* the data files read (real paths) */
	char *lfts_path;
} ibf_export_set_t;

/* One attempt at reading dir: IBF_OK fills out; otherwise out is empty,
 * err names the file and why, and *retry says whether trying again
 * shortly may help (an export being written, a mix of two routings). */
ibf_status_t ibf_export_read_set(const char *dir, ibf_export_set_t *out,
				 bool *retry, ibf_err_t *err);
void ibf_export_set_free(ibf_export_set_t *s);

/* ---- reading while the subnet manager rewrites the export ----------------
 *
 * A reader that meets an export being written (or files of two routings)
 * is told to try again (retry above).  These do so: up to `tries`
 * attempts (0 counts as 1), `interval_ms` apart, while the last attempt
 * said that trying again may help; err is the last attempt's.
 */
typedef struct ibf_export_retry {
	unsigned tries;
	unsigned interval_ms;
} ibf_export_retry_t;

/* ibf_export_load(), tried again as rt says. */
ibf_status_t ibf_export_load_retry(const char *dir,
				   const ibf_export_retry_t *rt,
				   ibf_export_t **out, ibf_err_t *err);

/* ibf_export_read_set(), and then every switch of the topology must have
 * its table (a dump cut at a table boundary reads without error; the gap
 * would show only when a route crosses the switch); both tried again as
 * rt says. */
ibf_status_t ibf_export_read_set_retry(const char *dir,
				       const ibf_export_retry_t *rt,
				       ibf_export_set_t *out, ibf_err_t *err);

IBF_END_DECLS
#endif
