/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * What the standalone UCX tools (ibflow-probe, ibflow-infer) share: their
 * exit statuses, usage errors, the bootstrap options (--boot, --rank,
 * --size) and --np, which starts the job's processes on this machine
 * around the built-in bootstrap.
 */
#ifndef IBF_TOOL_H
#define IBF_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <ibflow/ucx.h>

#define EXIT_INPUT   2   /* bad usage, configuration, fabric or mapping */
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

/* "PROG: <fmt with arg> (--help for usage)" on stderr; EXIT_INPUT. */
int ibf_tool_usage_error(const char *prog, const char *fmt, const char *arg);

/* getopt_long's '?' (opterr 0), given optind and optopt: the unknown
 * option or the one missing its value, named; EXIT_INPUT. */
int ibf_tool_bad_option(const char *prog, char **argv, int ind, int opt);

/* A decimal unsigned 32-bit integer, nothing else. */
bool ibf_tool_parse_u32(const char *s, uint32_t *v);

/* The bootstrap options, given by their getopt codes 'b' (--boot ADDR),
 * 'R' (--rank N) and 'Z' (--size N): 0 when taken, EXIT_INPUT (after the
 * usage error) when the value is bad. */
int ibf_tool_boot_option(const char *prog, int opt, const char *arg,
			 ibf_ucx_boot_params_t *boot, bool *have_rank);

/* After parsing: --rank and --size come together. */
int ibf_tool_boot_check(const char *prog, const ibf_ucx_boot_params_t *boot,
			bool have_rank);

/* run(ctx) in this process, or in np processes (ibf_tool_spawn) when np
 * is not 0. */
int ibf_tool_run(const char *prog, unsigned np, ibf_ucx_boot_params_t *boot,
		 double timeout, int (*run)(void *ctx), void *ctx);

#endif
