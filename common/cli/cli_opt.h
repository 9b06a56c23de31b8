/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * The command-line furniture every ibflow program shares (the internal
 * library libibflow_cli): one typed option table and its parser, one help
 * layout, usage errors that name the option, and files written whole or
 * not at all.  Used by the `ibflow` subcommands and by the programs of
 * their own (ibflow-probe, ibflow-infer, the test programs of tests/ucx).
 *
 * Who speaks: every function takes the name of a command, CMD.  An
 * `ibflow` subcommand is named as typed ("route") and its messages begin
 * "ibflow route: "; a program of its own is named in full, "ibflow-..."
 * ("ibflow-probe"), and its messages begin "ibflow-probe: ".
 *
 * Exit status, for every command:
 *   0  success;
 *   1  the command ran and found defects (e.g. `ibflow check`);
 *   2  bad usage or bad input (the message says FILE:LINE: what).
 */
#ifndef IBFLOW_CLI_OPT_H
#define IBFLOW_CLI_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ibflow/ibflow.h>
#include <ibflow/topo_io.h>

#define IBF_EXIT_OK     0
#define IBF_EXIT_DEFECT 1
#define IBF_EXIT_INPUT  2

/* Print "ibflow CMD: message" (or "ibflow-PROG: message") on stderr;
 * returns IBF_EXIT_INPUT. */
int ibf_cli_fail(const char *cmd, const ibf_err_t *err);
int ibf_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- options: one declarative table per command, one parser --------------
 *
 * A command describes its options in an array of ibf_opt_t (the macros
 * below, ended by IBF_OPT_END), each naming where its value goes, and
 * calls ibf_cli_parse().  The parser handles --name VALUE, --name=VALUE,
 * unambiguous prefixes of long names, -x VALUE, -xVALUE, flags together
 * (-fz), "--" and -h/--help,
 * checks values and required options, and prints every command's help in
 * one layout.  An option's .def is its default: the parser sets it, as if
 * given, before it reads argv, so the default help shows is the one used
 * (a flag's default is false).  Error messages name the option; the exit status is
 * IBF_EXIT_INPUT.
 */

typedef enum ibf_arg_kind {
	IBF_ARG_NONE,   /* a flag: bool, set to true */
	IBF_ARG_STR,    /* const char *: the value as given */
	IBF_ARG_UINT,   /* unsigned: decimal in [min, max] */
	IBF_ARG_U64,    /* uint64_t: decimal or 0x hex */
	IBF_ARG_REAL,   /* double: finite, in (lo, hi] (hi may be INFINITY);
			   [lo, hi] with .lo_incl */
	IBF_ARG_CHOICE, /* int: index of the value in choices[] */
	IBF_ARG_CALL,   /* call(target, cmd, value): repeated or list options */
} ibf_arg_kind_t;

typedef struct ibf_opt {
	const char *name;      /* long name without "--"; NULL ends a table */
	char letter;           /* short form (-o), or 0 */
	ibf_arg_kind_t kind;
	void *target;          /* where the value goes (type by kind) */
	const char *meta;      /* the value's placeholder in help ("FILE") */
	const char *help;      /* lines separated by \n */
	const char *def;       /* the default, a value as typed: set
				  before argv is parsed, and shown in help */
	const char *def_text;  /* or a default described ("2^LMC"), which
				  the command works out: help only */
	const char *section;   /* heading printed before the option, or NULL */
	bool required;
	bool *seen;            /* set when the option is given, or NULL */
	unsigned min, max;                   /* IBF_ARG_UINT */
	double lo, hi;                       /* IBF_ARG_REAL */
	bool lo_incl;                        /* IBF_ARG_REAL: lo allowed */
	const char *const *choices;          /* IBF_ARG_CHOICE, NULL-ended */
	int (*call)(void *target, const char *cmd, const char *value);
} ibf_opt_t;

/* A library's default constant as an option's .def (the constant a plain
 * number: IBF_OPT_NUM(IBF_PROBE_TRIES_DEFAULT) is "64"), so that the
 * default the help shows and the one the library takes for 0 are one. */
#define IBF_OPT_NUM(c) IBF_OPT_NUM_(c)
#define IBF_OPT_NUM_(c) #c

/* The conditional expression makes the compiler check the target's type. */
#define IBF_OPT_TARGET(p, type) ((void *)(1 ? (p) : (type *)0))

/* Trailing arguments set more fields: .letter = 'o', .required = true,
 * .def = "1", .def_text = "2^LMC", .section = "layered:", .seen = &given,
 * .lo_incl = true. */
#define IBF_OPT_FLAG(name_, tgt, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_NONE, \
	  .target = IBF_OPT_TARGET(tgt, bool), .help = (help_), __VA_ARGS__ }
#define IBF_OPT_STR(name_, tgt, meta_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_STR, \
	  .target = IBF_OPT_TARGET(tgt, const char *), .meta = (meta_), \
	  .help = (help_), __VA_ARGS__ }
#define IBF_OPT_UINT(name_, tgt, meta_, min_, max_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_UINT, \
	  .target = IBF_OPT_TARGET(tgt, unsigned), .meta = (meta_), \
	  .min = (min_), .max = (max_), .help = (help_), __VA_ARGS__ }
#define IBF_OPT_U64(name_, tgt, meta_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_U64, \
	  .target = IBF_OPT_TARGET(tgt, uint64_t), .meta = (meta_), \
	  .help = (help_), __VA_ARGS__ }
#define IBF_OPT_REAL(name_, tgt, meta_, lo_, hi_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_REAL, \
	  .target = IBF_OPT_TARGET(tgt, double), .meta = (meta_), \
	  .lo = (lo_), .hi = (hi_), .help = (help_), __VA_ARGS__ }
#define IBF_OPT_CHOICE(name_, tgt, meta_, choices_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_CHOICE, \
	  .target = IBF_OPT_TARGET(tgt, int), .meta = (meta_), \
	  .choices = (choices_), .help = (help_), __VA_ARGS__ }
#define IBF_OPT_CALL(name_, fn, tgt, meta_, help_, ...) \
	{ .name = (name_), .kind = IBF_ARG_CALL, .call = (fn), \
	  .target = (tgt), .meta = (meta_), .help = (help_), __VA_ARGS__ }
#define IBF_OPT_END { .name = NULL }

/* Options several commands share, in one wording. */
#define IBF_OPT_TOPO(tgt) \
	IBF_OPT_STR("topo", tgt, "FILE", "topology (ibnetdiscover, ibsim net, " \
		    "opensm-subnet.lst)", .required = true)
#define IBF_OPT_LFTS(tgt) \
	IBF_OPT_STR("lfts", tgt, "FILE", "forwarding tables (opensm-lfts.dump, " \
		    "ibroute output)", .required = true)
/* A fabric from the OpenSM plugin's export or from a topology file, one of
 * the two (order, slurm-topology): what: what the command takes from the
 * export; more: what goes with --topo */
#define IBF_OPT_FABRIC(tgt, what) \
	IBF_OPT_STR("fabric", tgt, "DIR", "the OpenSM plugin's export " \
		    "(export_dir): " what)
#define IBF_OPT_TOPO_OR_FABRIC(tgt, more) \
	IBF_OPT_STR("topo", tgt, "FILE", "topology (ibnetdiscover, ibsim " \
		    "net,\nopensm-subnet.lst)" more)
#define IBF_OPT_LMC(tgt) \
	IBF_OPT_UINT("lmc", tgt, "N", 0, IBF_LMC_MAX, "LMC when the topology " \
		     "carries no LIDs", .def = "0")
/* --ppn K of the all-to-alls (liquid, sim): ranks per listed host */
#define IBF_OPT_PPN(tgt) \
	IBF_OPT_UINT("ppn", tgt, "K", 1, 1u << 16, "ranks per host of the " \
		     "--alltoall list\n(consecutive ranks; a host listed " \
		     "again gets\nmore)", .def = "1")
#define IBF_OPT_THREADS(tgt) \
	IBF_OPT_UINT("threads", tgt, "N", 1, IBF_THREADS_MAX, \
		     "worker threads", .def = "1")
/* --json FILE; what: "the schedule" */
#define IBF_OPT_JSON(tgt, what) \
	IBF_OPT_STR("json", tgt, "FILE", "write " what " as JSON (\"-\" = " \
		    "stdout,\nthe text then goes to stderr)")
/* --seed S of eval's traffic patterns and random rank map (eval, sim) */
#define IBF_OPT_PATTERN_SEED(tgt) \
	IBF_OPT_U64("seed", tgt, "S", "seed of patterns and random map", \
		    .def = "0")
#define IBF_OPT_OUTPUT(tgt) \
	IBF_OPT_STR("output", tgt, "FILE", "output file, written atomically", \
		    .letter = 'o', .def_text = "stdout")

/* A command's command line: its options and what its help says. */
typedef struct ibf_cli_spec {
	const char *name;       /* the command as typed ("route"), or a
				   program's full name ("ibflow-probe") */
	const char *usage;      /* after "usage: ibflow NAME " (or
				   "usage: ibflow-PROG "); NULL: made
				   from the required options and operands */
	const char *operands;   /* placeholders of the operands ("SRC DST") */
	unsigned min_operands, max_operands;
	const char *about;      /* what the command does (lines end in \n) */
	const char *notes;      /* printed after the options, or NULL */
	const char *exit;       /* after "Exit status: " */
	const ibf_opt_t *opts;  /* ends with IBF_OPT_END */
} ibf_cli_spec_t;

/*
 * Parse argv (argv[0] is the command name) into the targets of s->opts;
 * the operands, in order, go to operand[0 .. s->max_operands) (NULL where
 * absent).  True: run the command.  False: return *rc at once: IBF_EXIT_OK
 * after -h/--help (printed on stdout), IBF_EXIT_INPUT after a usage error
 * (reported on stderr).
 */
bool ibf_cli_parse(const ibf_cli_spec_t *s, int argc, char **argv,
		   const char **operand, int *rc);

/* The help text (what -h prints). */
void ibf_cli_help(const ibf_cli_spec_t *s, FILE *fp);

/* The choices of --format and --to (topology formats the library writes)
 * and the format of a choice. */
extern const char *const ibf_cli_write_formats[];
ibf_topo_format_t ibf_cli_write_format(int choice);

/* A finite real in (lo, hi] (hi may be INFINITY), for IBF_OPT_CALL
 * handlers; reports and returns IBF_EXIT_INPUT on a bad value. */
int ibf_cli_parse_real(const char *cmd, const char *opt, const char *arg,
		       double lo, double hi, double *out);
/* The value parser behind IBF_OPT_UINT, for IBF_OPT_CALL options that
 * take a number or a keyword: a decimal in [min, max], or report and
 * return IBF_EXIT_INPUT. */
int ibf_cli_parse_uint(const char *cmd, const char *opt, const char *arg,
		       unsigned min, unsigned max, unsigned *out);

/* --lookahead N|all of the inference commands (ibf_infer_opts_t's
 * lookahead, an unsigned): 0..1000000 (0 off) or "all". */
int ibf_cli_opt_lookahead(void *target, const char *cmd, const char *v);

/* ---- outputs -------------------------------------------------------------- */

/* Writes a document onto fp (a library writer behind a closure). */
typedef ibf_status_t (*ibf_cli_writer_t)(const void *ctx, FILE *fp,
					 ibf_err_t *err);

/* Write path ("-" = stdout) atomically with fn: IBF_EXIT_OK, or
 * IBF_EXIT_INPUT with the problem reported and nothing left behind. */
int ibf_cli_write_file(const char *cmd, const char *path,
		       ibf_cli_writer_t fn, const void *ctx);

/* Where the text report goes: stderr when path (a --json FILE) is "-",
 * so that JSON on stdout stays parseable; stdout otherwise. */
FILE *ibf_cli_text_out(const char *json_path);

#endif
