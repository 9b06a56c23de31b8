/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the standalone UCX tools (ibflow-probe, ibflow-infer) share beyond
 * the CLI's option table and writers (cli_opt.h): their exit statuses,
 * the bootstrap options (--boot, --rank, --size) and --np, which starts
 * the job's processes on this machine around the built-in bootstrap.
 */
#ifndef IBFLOW_TOOL_H
#define IBFLOW_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/ucx.h>

#include "cli_opt.h"

#define EXIT_INPUT   IBF_EXIT_INPUT /* bad usage, configuration, fabric
					 or mapping */
#define EXIT_RUNTIME 3   /* communication failed: UCX, timeout, a peer */

/* The exit status for a failure of this status. */
int ibf_tool_exit_for(ibf_ucx_status_t st);

/* Fork np processes, rank 0..np-1, each calling run(ctx) and exiting with
 * its result; boot (inside ctx) gets a free loopback port unless it names
 * an address, size np and, in each child, its rank.  Returns the worst
 * exit status of the children (EXIT_RUNTIME for one killed by a signal).
 * Once a child failed, those left get timeout seconds (and a margin) to
 * end; then they are killed and the status is EXIT_RUNTIME. */
int ibf_tool_spawn(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		   double timeout, int (*run)(void *ctx), void *ctx);

/* The job options of every tool, for its option table (cli_opt.h):
 * --np N (np_min..1024, into a->np) and the bootstrap's --boot HOST:PORT,
 * --rank R, --size N (into a->boot, a->have_rank); then
 * ibf_tool_boot_check(). */
#define IBF_TOOL_OPTS_JOB(a, np_min) \
	IBF_OPT_UINT("np", &(a)->np, "N", np_min, 1024, \
		     "start N local processes (one machine; for tests)"), \
	IBF_OPT_CALL("boot", ibf_tool_opt_boot_addr, &(a)->boot, "HOST:PORT", \
		     "where rank 0 listens (IBFLOW_BOOT_ADDR)"), \
	IBF_OPT_UINT("rank", &(a)->boot.rank, "R", 0, UINT32_MAX, \
		     "this process's rank (IBFLOW_BOOT_RANK; default\n" \
		     "OMPI_COMM_WORLD_RANK under mpirun)", \
		     .seen = &(a)->have_rank), \
	IBF_OPT_UINT("size", &(a)->boot.size, "N", 1, UINT32_MAX, \
		     "processes (IBFLOW_BOOT_SIZE / OMPI_COMM_WORLD_SIZE)")

/* --boot's handler: the address into ibf_ucx_boot_params_t.addr. */
int ibf_tool_opt_boot_addr(void *boot, const char *prog, const char *arg);

/* After parsing: --rank and --size come together, and not with --np
 * (which starts its own processes).  0, or EXIT_INPUT after the usage
 * error. */
int ibf_tool_boot_check(const char *prog, const ibf_ucx_boot_params_t *boot,
			bool have_rank, unsigned np);

/* An ibf_ucx_err_t as the CLI's ibf_err_t (cli_opt.h's writers). */
ibf_status_t ibf_tool_err(const ibf_ucx_err_t *ue, ibf_err_t *err);

/* One process of a tool: its arguments (the tool's own struct) and
 * the configuration; returns the exit status. */
typedef int (*ibf_tool_main_t)(const void *args,
			       const ibf_ucx_config_t *cfg);

/* The configuration (UCX_IBFLOW_*; with fallback, FALLBACK=y), then
 * run(args, cfg) in this process, or in np processes (ibf_tool_spawn,
 * *boot their bootstrap) when np is not 0.  The exit status. */
int ibf_tool_run(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		 bool fallback, ibf_tool_main_t run, const void *args);

/* How a tool reports a failure of rank's: returns the exit status. */
typedef int (*ibf_tool_fail_t)(uint32_t rank, const ibf_ucx_err_t *e);

/* A process's bootstrap and context. */
typedef struct ibf_tool_proc {
	ibf_ucx_boot_params_t bp;    /* as completed from the environment */
	ibf_ucx_boot_t *boot;
	ibf_ucx_t *u;
} ibf_tool_proc_t;

/* Meet the others (boot completed from IBFLOW_BOOT_* and mpirun's
 * variables, the timeout UCX_IBFLOW_TIMEOUT's unless set) and make the
 * context with cfg and the ibf_ucx_init flags: 0, or the exit status
 * after the report (a bad bootstrap environment as "PROG: message", the
 * rest through fail, a failed exchange with the bootstrap's reason). */
int ibf_tool_open(const char *prog, const ibf_ucx_boot_params_t *boot,
		  const ibf_ucx_config_t *cfg, unsigned flags,
		  ibf_tool_fail_t fail, ibf_tool_proc_t *p);
/* Finalize the context and close the bootstrap: rc, the run's exit
 * status, or when that is 0 the failure of the finalization. */
int ibf_tool_close(ibf_tool_proc_t *p, ibf_tool_fail_t fail, int rc);

/* --verbose, every rank: the messages posted on its routes' SL contexts
 * (ibf_ucx_route_sl_counts), one line "rank R: route SLs: SL k sent S
 * received C, ..." or "... none (the data context)". */
void ibf_tool_print_sl_counts(const ibf_ucx_t *u);

#endif
