/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the standalone UCX tools (ibflow-probe, ibflow-infer) share: their
 * exit statuses and --np, which starts the job's processes on this
 * machine around the built-in bootstrap.
 */
#ifndef IBF_TOOL_H
#define IBF_TOOL_H

#include <ibflow/ucx.h>

#define EXIT_INPUT   2   /* bad usage, configuration, fabric or mapping */
#define EXIT_RUNTIME 3   /* communication failed: UCX, timeout, a peer */

/* The exit status for a failure of this status. */
int ibf_tool_exit_for(ibf_ucx_status_t st);

/* Fork np processes, rank 0..np-1, each calling run(ctx) and exiting with
 * its result; boot (inside ctx) gets a free loopback port unless it names
 * an address, size np and, in each child, its rank.  Returns the worst
 * exit status of the children (EXIT_RUNTIME for one killed by a signal). */
int ibf_tool_spawn(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		   int (*run)(void *ctx), void *ctx);

#endif
