/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The all-pairs route check: every (source endpoint, destination LID) pair
 * traced through the LFTs (with the per-DLID trees of trace.h), defects
 * counted by kind with their first examples, hop statistics.
 */
#ifndef IBFLOW_CHECK_H
#define IBFLOW_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/decls.h>
#include <ibflow/trace.h>

IBF_BEGIN_DECLS

/* ---- the all-pairs check ----------------------------------------------- */

#define IBF_CHECK_MAX_OFFSETS (1u << IBF_LMC_MAX)

typedef struct ibf_check_opts {
	bool switches;         /* also trace to every switch LID */
	unsigned max_examples; /* examples kept per defect kind */
	unsigned nthreads;     /* 0 or 1: single-threaded */
	bool naive;            /* per-pair ibf_trace() instead of trees */
} ibf_check_opts_t;

#define IBF_CHECK_OPTS_DEFAULT { false, 10, 1, false }

typedef struct ibf_check_stats {
	uint64_t pairs;
	uint64_t count[IBF_TRACE_NRESULTS]; /* by ibf_trace_result_t */
	uint64_t hop_sum;                   /* over OK pairs */
	unsigned hop_min, hop_max;          /* over OK pairs (0 if none) */
} ibf_check_stats_t;

typedef struct ibf_check_example {
	ibf_port_id_t src;
	unsigned dlid;
	ibf_port_id_t dst;     /* owner of dlid */
	ibf_trace_info_t info;
} ibf_check_example_t;

typedef struct ibf_check_report {
	uint32_t nsources;      /* endpoints traced from */
	uint32_t ndlids;        /* destination LIDs traced to */
	uint32_t noffsets;      /* 2^LMC of the fabric */
	uint32_t switches_without_table;
	ibf_check_stats_t all;
	ibf_check_stats_t to_switches;  /* part of all (opts.switches) */
	/* Endpoint destinations by LID offset (dlid - base LID). */
	ibf_check_stats_t by_offset[IBF_CHECK_MAX_OFFSETS];
	uint64_t *hop_hist;     /* [hop_hist_len]: OK pairs by hop count */
	unsigned hop_hist_len;
	/* First examples of each defect kind in (DLID, source) order. */
	ibf_check_example_t *examples[IBF_TRACE_NRESULTS];
	unsigned nexamples[IBF_TRACE_NRESULTS];
} ibf_check_report_t;

/* Trace every (source endpoint, destination LID) pair: all 2^LMC LIDs of
 * every endpoint except the source's own, and with opts->switches every
 * switch LID.  opts may be NULL (defaults).  Free with
 * ibf_check_report_free(). */
ibf_status_t ibf_check_run(const ibf_lfts_t *l, const ibf_check_opts_t *opts,
			   ibf_check_report_t *report, ibf_err_t *err);
void ibf_check_report_free(ibf_check_report_t *report);

/* Pairs whose route is broken. */
uint64_t ibf_check_defects(const ibf_check_report_t *report);

/* The report as a JSON document (host names, switch descriptions). */
ibf_status_t ibf_check_report_write_json(const ibf_lfts_t *l,
					 const ibf_check_report_t *report,
					 FILE *fp, ibf_err_t *err);

IBF_END_DECLS
#endif
