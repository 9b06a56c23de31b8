/*
 * The ibflow command line: one subcommand per file (cmd_<name>.c), all
 * dispatched from the table in main.c.
 *
 * Exit status, for every subcommand:
 *   0  success;
 *   1  the command ran and found defects (e.g. `ibflow check`);
 *   2  bad usage or bad input (the message says FILE:LINE: what).
 */
#ifndef IBFLOW_CLI_H
#define IBFLOW_CLI_H

#include <ibflow/ibflow.h>
#include <ibflow/topo_io.h>
#include <ibflow/lfts_io.h>

#define IBF_EXIT_OK     0
#define IBF_EXIT_DEFECT 1
#define IBF_EXIT_INPUT  2

typedef struct ibf_cmd {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
} ibf_cmd_t;

int ibf_cmd_gen(int argc, char **argv);
int ibf_cmd_convert(int argc, char **argv);
int ibf_cmd_info(int argc, char **argv);
int ibf_cmd_check(int argc, char **argv);
int ibf_cmd_paths(int argc, char **argv);
int ibf_cmd_route(int argc, char **argv);
int ibf_cmd_eval(int argc, char **argv);
int ibf_cmd_liquid(int argc, char **argv);
int ibf_cmd_probe_plan(int argc, char **argv);
int ibf_cmd_probe_solve(int argc, char **argv);

/* Print "ibflow CMD: message" on stderr; returns IBF_EXIT_INPUT. */
int ibf_cli_fail(const char *cmd, const ibf_err_t *err);
int ibf_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Load a topology (format auto-detected) or report and return NULL. */
ibf_fabric_t *ibf_cli_load_topo(const char *cmd, const char *path,
				unsigned lmc);
/* Load LFTs for a fabric or report and return NULL. */
ibf_lfts_t *ibf_cli_load_lfts(const char *cmd, const ibf_fabric_t *f,
			      const char *path);

/* Load a topology and the LFTs routing it: IBF_EXIT_OK with both, or
 * IBF_EXIT_INPUT with neither (the problem reported). */
int ibf_cli_load_routed(const char *cmd, const char *topo, const char *lfts,
			unsigned lmc, ibf_fabric_t **f, ibf_lfts_t **l);

/* Parse the name of a topology format the library can write (for --to,
 * --format) or report. */
int ibf_cli_parse_write_format(const char *cmd, const char *opt,
			       const char *arg, ibf_topo_format_t *out);

/* Parse a keyword option value: names[] is NULL-terminated, *out gets the
 * index of the match; anything else is reported with the choices. */
int ibf_cli_parse_choice(const char *cmd, const char *opt, const char *arg,
			 const char *const *names, int *out);

/* Parse an unsigned 64-bit option value (decimal or 0x hex) or report. */
int ibf_cli_parse_u64(const char *cmd, const char *opt, const char *arg,
		      uint64_t *out);
/* Parse a finite real in (lo, hi] (hi may be INFINITY) or report. */
int ibf_cli_parse_real(const char *cmd, const char *opt, const char *arg,
		       double lo, double hi, double *out);

/* Parse a decimal option value within [min, max] or report. */
int ibf_cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		       unsigned min, unsigned max, unsigned *out);

#endif
