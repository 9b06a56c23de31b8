/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-probe: planned latency probes over UCX (docs/ucx.md).
 *
 * Every process runs this program; they meet through the built-in TCP
 * bootstrap (IBFLOW_BOOT_ADDR, and IBFLOW_BOOT_RANK/_SIZE or mpirun's
 * OMPI_COMM_WORLD_RANK/_SIZE), or --np N starts N local processes.  Rank
 * 0 prints the report and writes the files.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/ucx.h>

#include "tool.h"


static const char *const PROG = "ibflow-probe";
#define usage_error(...) ibf_tool_usage_error(PROG, __VA_ARGS__)

typedef struct args {
	ibf_ucx_boot_params_t boot;
	bool all_pairs, serial, fallback, quiet, verbose;
	const char *json, *rtt_out, *plan_out;
	unsigned np;
} args_t;

/* One process of --np: its arguments and the configuration. */
struct job {
	args_t a;
	const ibf_ucx_config_t *cfg;
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow-probe [options]\n"
"\n"
"Measure round-trip times between the hosts of a job over UCX and turn\n"
"them into link latencies and the RTT of every host pair.  With the fabric\n"
"known (UCX_IBFLOW_FABRIC) only the pairs of a minimal plan are measured,\n"
"each planned round's ping-pongs at once; --all-pairs measures every pair\n"
"one by one instead.  Each pair: ping-pongs until the best RTT has not\n"
"improved for UCX_IBFLOW_PROBE_STALL exchanges (at most _PROBE_MAX), in\n"
"_PROBE_RUNS runs (one per pass over the schedule); the minimum and\n"
"maximum of the runs' bests are kept.\n"
"\n"
"  --all-pairs        every host pair, one at a time (no plan)\n"
"  --serial           the plan's probes one at a time\n"
"  --json FILE        result as JSON (\"-\" = stdout)\n"
"  --rtt-out FILE     measured RTTs as \"A B RTT\" (ibflow probe-solve --rtt)\n"
"  --plan-out FILE    the plan (ibflow probe-solve --plan)\n"
"  --fallback         go on topology-unaware (all pairs) when a process\n"
"                     cannot be mapped to the fabric\n"
"  --quiet            no text report\n"
"  --verbose          also say how each process found its endpoint\n"
"  --np N             start N local processes (one machine; for tests)\n"
"  --boot HOST:PORT   where rank 0 listens (IBFLOW_BOOT_ADDR)\n"
"  --rank R           this process's rank (IBFLOW_BOOT_RANK; default\n"
"                     OMPI_COMM_WORLD_RANK under mpirun)\n"
"  --size N           processes (IBFLOW_BOOT_SIZE / OMPI_COMM_WORLD_SIZE)\n"
"  -h, --help         this text\n"
"\n"
"Configuration: UCX_IBFLOW_* (docs/ucx.md; `LD_PRELOAD=libibflow_ucx.so\n"
"ucx_info -cf` lists them).  Exit status: 0 ok, 2 bad usage, configuration,\n"
"fabric or mapping, 3 communication failure.\n");
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option opts[] = {
		{ "all-pairs", no_argument, NULL, 'A' },
		{ "serial", no_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'j' },
		{ "rtt-out", required_argument, NULL, 'r' },
		{ "plan-out", required_argument, NULL, 'p' },
		{ "fallback", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "np", required_argument, NULL, 'n' },
		{ "boot", required_argument, NULL, 'b' },
		{ "rank", required_argument, NULL, 'R' },
		{ "size", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_rank = false;
	int c, rc;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'A': a->all_pairs = true; break;
		case 'S': a->serial = true; break;
		case 'j': a->json = optarg; break;
		case 'r': a->rtt_out = optarg; break;
		case 'p': a->plan_out = optarg; break;
		case 'F': a->fallback = true; break;
		case 'q': a->quiet = true; break;
		case 'v': a->verbose = true; break;
		case 'n':
			if (!ibf_tool_parse_u32(optarg, &a->np) || !a->np ||
			    a->np > 1024)
				return usage_error("--np: '%s' is not 1..1024",
						   optarg);
			break;
		case 'b':
		case 'R':
		case 'Z':
			rc = ibf_tool_boot_option(PROG, c, optarg, &a->boot,
						  &have_rank);
			if (rc)
				return rc;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return ibf_tool_bad_option(PROG, argv, optind, optopt);
		}
	}
	if (optind != argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (a->all_pairs && a->serial)
		return usage_error("%s", "--all-pairs and --serial exclude "
				   "each other");
	if ((rc = ibf_tool_boot_check(PROG, &a->boot, have_rank)))
		return rc;
	if (a->np && a->boot.size)
		return usage_error("%s", "--np starts its own processes: no "
				   "--rank/--size");
	return 0;
}

/* ---- one process ---------------------------------------------------------------- */

/* Rank 0 reports every error; the others only what happened to them
 * alone (the collective failures rank 0 already names). */
static int fail(uint32_t rank, const ibf_ucx_err_t *e, int code)
{
	if (rank == 0 || (e->status != IBF_UCX_ERR_PEER &&
			  e->status != IBF_UCX_ERR_MAP &&
			  e->status != IBF_UCX_ERR_FABRIC))
		fprintf(stderr, "%s: rank %u: %s\n", PROG, rank, e->msg);
	return code ? code : ibf_tool_exit_for(e->status);
}

typedef ibf_ucx_status_t (*writer_t)(const ibf_ucx_t *,
				     const ibf_ucx_probe_result_t *, FILE *,
				     ibf_ucx_err_t *);

/* Write to a file ("-" = stdout) through a temporary file and rename. */
static int write_file(const char *path, writer_t w, const ibf_ucx_t *u,
		      const ibf_ucx_probe_result_t *r)
{
	char tmp[4096];
	ibf_ucx_err_t e;
	FILE *fp;
	int ok;

	if (!strcmp(path, "-"))
		return w(u, r, stdout, &e) == IBF_UCX_OK ? 0 :
		       fail(0, &e, EXIT_INPUT);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fp = fopen(tmp, "w");
	if (!fp) {
		fprintf(stderr, "%s: %s: %s\n", PROG, tmp, strerror(errno));
		return EXIT_INPUT;
	}
	ok = w(u, r, fp, &e) == IBF_UCX_OK;
	if (fclose(fp) != 0 && ok) {
		ok = 0;
		snprintf(e.msg, sizeof(e.msg), "%.900s: %s", tmp,
			 strerror(errno));
	}
	if (ok && rename(tmp, path) != 0) {
		ok = 0;
		snprintf(e.msg, sizeof(e.msg), "%.900s: %s", path,
			 strerror(errno));
	}
	if (!ok) {
		unlink(tmp);
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	return 0;
}

static void print_sources(const ibf_ucx_t *u)
{
	char name[256];
	uint32_t i;

	for (i = 0; i < ibf_ucx_size(u); i++)
		printf("rank %u: host %u %s%s%s\n", i, ibf_ucx_rank_host(u, i),
		       ibf_ucx_host_name(u, ibf_ucx_rank_host(u, i), name,
					 sizeof(name)),
		       ibf_ucx_rank_source(u, i)[0] ? " via " : "",
		       ibf_ucx_rank_source(u, i));
	if (!ibf_ucx_topology_aware(u))
		printf("topology-unaware: %s\n", ibf_ucx_unaware_why(u));
}

static int report(const args_t *a, const ibf_ucx_t *u,
		  const ibf_ucx_probe_result_t *r)
{
	ibf_ucx_err_t e;
	int rc = 0;

	if (a->verbose)
		print_sources(u);
	if (!a->quiet && ibf_ucx_probe_write_text(u, r, stdout, &e) !=
	    IBF_UCX_OK)
		rc = fail(0, &e, EXIT_INPUT);
	if (!rc && a->json)
		rc = write_file(a->json, ibf_ucx_probe_write_json, u, r);
	if (!rc && a->rtt_out)
		rc = write_file(a->rtt_out, ibf_ucx_probe_write_rtt, u, r);
	if (!rc && a->plan_out)
		rc = write_file(a->plan_out, ibf_ucx_probe_write_plan, u, r);
	fflush(stdout);
	return rc;
}

static int run(const args_t *a, const ibf_ucx_config_t *cfg)
{
	ibf_ucx_boot_params_t bp = a->boot;
	ibf_ucx_params_t up;
	ibf_ucx_probe_opts_t po;
	ibf_ucx_probe_result_t res;
	ibf_ucx_boot_t *boot = NULL;
	ibf_ucx_t *u = NULL;
	ibf_ucx_err_t e;
	int rc = 0;

	if (!bp.timeout_s)
		bp.timeout_s = ibf_ucx_config_timeout(cfg);
	if (ibf_ucx_boot_params_env(&bp, &e) != IBF_UCX_OK) {
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	if (ibf_ucx_boot_open(&bp, &boot, &e) != IBF_UCX_OK)
		return fail(bp.rank, &e, 0);
	memset(&up, 0, sizeof(up));
	up.oob = ibf_ucx_boot_oob(boot);
	up.config = cfg;
	up.flags = a->fallback ? IBF_UCX_INIT_FALLBACK : 0;
	if (ibf_ucx_init(&up, &u, &e) != IBF_UCX_OK) {
		if (e.status == IBF_UCX_ERR_OOB && ibf_ucx_boot_error(boot)[0])
			snprintf(e.msg + strlen(e.msg),
				 sizeof(e.msg) - strlen(e.msg), ": %s",
				 ibf_ucx_boot_error(boot));
		rc = fail(bp.rank, &e, 0);
		ibf_ucx_boot_close(boot);
		return rc;
	}
	ibf_ucx_probe_opts_init(u, &po);
	if (a->all_pairs || !ibf_ucx_topology_aware(u))
		po.all_pairs = true;
	if (a->serial)
		po.serial = true;
	if (ibf_ucx_probe(u, &po, &res, &e) != IBF_UCX_OK)
		rc = fail(bp.rank, &e, 0);
	else if (bp.rank == 0)
		rc = report(a, u, &res);
	if (rc == 0)
		ibf_ucx_probe_result_free(&res);
	if (ibf_ucx_finalize(u, &e) != IBF_UCX_OK && !rc)
		rc = fail(bp.rank, &e, 0);
	ibf_ucx_boot_close(boot);
	return rc;
}

/* ---- --np: local processes -------------------------------------------------------- */

static int run_job(void *ctx)
{
	const struct job *j = ctx;

	return run(&j->a, j->cfg);
}

int main(int argc, char **argv)
{
	ibf_ucx_config_t *cfg = NULL;
	ibf_ucx_err_t e;
	args_t a;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (ibf_ucx_config_read(&cfg, &e) != IBF_UCX_OK) {
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	if (a.fallback &&
	    ibf_ucx_config_modify(cfg, "FALLBACK", "y", &e) != IBF_UCX_OK) {
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		ibf_ucx_config_release(cfg);
		return EXIT_INPUT;
	}
	struct job j = { a, cfg };

	rc = ibf_tool_run(PROG, a.np, &j.a.boot,
			  ibf_ucx_config_timeout(cfg), run_job, &j);
	ibf_ucx_config_release(cfg);
	return rc;
}
