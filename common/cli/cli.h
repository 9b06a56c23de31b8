/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The ibflow command line: one subcommand per file (cmd_<name>.c), all
 * dispatched from the table in main.c; options, usage errors, exit
 * statuses and output files: cli_opt.h.
 */
#ifndef IBFLOW_CLI_H
#define IBFLOW_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/ibflow.h>
#include <ibflow/eval.h>
#include <ibflow/topo_io.h>
#include <ibflow/lfts_io.h>

#include "cli_opt.h"

typedef struct ibf_cmd {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	/* Appended to the summary in parentheses, when the command's
	 * choices live in a library table (route: its engines); or NULL. */
	size_t (*summary_list)(char *buf, size_t size);
} ibf_cmd_t;

int ibf_cmd_gen(int argc, char **argv);
int ibf_cmd_convert(int argc, char **argv);
int ibf_cmd_info(int argc, char **argv);
int ibf_cmd_check(int argc, char **argv);
int ibf_cmd_paths(int argc, char **argv);
int ibf_cmd_netplan(int argc, char **argv);
int ibf_cmd_route(int argc, char **argv);
int ibf_cmd_order(int argc, char **argv);
int ibf_cmd_eval(int argc, char **argv);
int ibf_cmd_liquid(int argc, char **argv);
int ibf_cmd_sim(int argc, char **argv);
int ibf_cmd_probe_plan(int argc, char **argv);
int ibf_cmd_probe_solve(int argc, char **argv);
int ibf_cmd_infer(int argc, char **argv);
int ibf_cmd_slurm_topology(int argc, char **argv);

/* On stderr: the reader's note (ibf_fabric_note) as a warning, and when
 * f's LIDs were assumed (its file carried none) which SM's first sweep
 * they follow. */
void ibf_cli_note_lids(const char *cmd, const char *path,
		       const ibf_fabric_t *f);
/* Load a topology (format auto-detected) or report and return NULL; notes
 * assumed LIDs (ibf_cli_note_lids). */
ibf_fabric_t *ibf_cli_load_topo(const char *cmd, const char *path,
				unsigned lmc);
/* Load LFTs for a fabric or report and return NULL. */
ibf_lfts_t *ibf_cli_load_lfts(const char *cmd, const ibf_fabric_t *f,
			      const char *path);

/* The OpenSM plugin's export in dir (--fabric DIR), tried again while a
 * newer one is being written (five times, 0.2 s apart): IBF_EXIT_OK, or
 * IBF_EXIT_INPUT with the problem reported. */
struct ibf_export;
int ibf_cli_load_export(const char *cmd, const char *dir,
			struct ibf_export **e);

/* Load a topology and the LFTs routing it: IBF_EXIT_OK with both, or
 * IBF_EXIT_INPUT with neither (the problem reported). */
int ibf_cli_load_routed(const char *cmd, const char *topo, const char *lfts,
			unsigned lmc, ibf_fabric_t **f, ibf_lfts_t **l);

/* Load the routed fabric, run fn on it (the fabric is l->fabric), free
 * it; fn's exit status, or IBF_EXIT_INPUT when loading failed. */
typedef int (*ibf_cli_routed_fn)(const ibf_lfts_t *l, void *arg);
int ibf_cli_run_routed(const char *cmd, const char *topo, const char *lfts,
		       unsigned lmc, ibf_cli_routed_fn fn, void *arg);

/* A destination port for reports: its host name, or "switch \"DESC\"". */
const char *ibf_cli_dest_name(const ibf_fabric_t *f, ibf_port_id_t p,
			      char *buf, size_t len);

/* ---- reports of `ibflow eval` (report.c, plot.c) ------------------------- */

/* The table routing x pattern: flows, index, (opt_index, ratio), rates,
 * worst link load, times. */
void ibf_cli_eval_table(const ibf_eval_t *e, FILE *fp);

/* Can ibf_cli_eval_plot() run (gnuplot found at configure time and still
 * executable)?  IBF_ERR_UNSUPPORTED "gnuplot not found" otherwise. */
ibf_status_t ibf_cli_plot_check(ibf_err_t *err);

/* SVG bar chart of the indices, written atomically: one group per
 * pattern, one bar per routing (and "optimum" when computed). */
ibf_status_t ibf_cli_eval_plot(const ibf_eval_t *e, const char *path,
			       ibf_err_t *err);

#endif
