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

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/ucx.h>

#include "tool.h"


static const char *const PROG = "ibflow-probe";

typedef struct args {
	ibf_ucx_boot_params_t boot;
	bool have_rank;
	bool all_pairs, serial, fallback, quiet, verbose;
	const char *json, *rtt_out, *plan_out, *prom;
	ibf_probe_health_opts_t health;
	unsigned np;
} args_t;

/* 0: run; -1: help printed; else the exit status of a usage error. */
static int parse_args(int argc, char **argv, args_t *a)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_FLAG("all-pairs", &a->all_pairs,
			     "every host pair, one at a time (no plan)"),
		IBF_OPT_FLAG("serial", &a->serial,
			     "the plan's probes one at a time"),
		IBF_OPT_STR("json", &a->json, "FILE",
			    "result as JSON (\"-\" = stdout)"),
		IBF_OPT_STR("rtt-out", &a->rtt_out, "FILE",
			    "measured RTTs as \"A B RTT\" (ibflow probe-solve "
			    "--rtt)"),
		IBF_OPT_STR("plan-out", &a->plan_out, "FILE",
			    "the plan (ibflow probe-solve --plan)"),
		IBF_OPT_STR("prom", &a->prom, "FILE", "link latencies and the "
			    "health verdict as\nPrometheus metrics "
			    "(node_exporter textfile collector)"),
		IBF_OPT_REAL("threshold", &a->health.threshold, "K", 0.0,
			     INFINITY, "a link is suspect above its reference "
			     "+ K x scale", .def = "5"),
		IBF_OPT_REAL("expect-link", &a->health.expected_link, "US",
			     0.0, INFINITY, "expected one-way latency of a "
			     "link: the\nreference instead of the peers' "
			     "median", .def_text = "unknown"),
		IBF_OPT_FLAG("fallback", &a->fallback,
			     "go on topology-unaware (all pairs) when a "
			     "process\ncannot be mapped to the fabric"),
		IBF_OPT_FLAG("quiet", &a->quiet, "no text report"),
		IBF_OPT_FLAG("verbose", &a->verbose,
			     "also say how each process found its endpoint "
			     "and\nwhat each sent on its routes' SL contexts"),
		IBF_TOOL_OPTS_JOB(a, 1),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = PROG, .opts = opts,
		.about =
"Measure round-trip times between the hosts of a job over UCX and turn\n"
"them into link latencies and the RTT of every host pair.  With the fabric\n"
"known (UCX_IBFLOW_FABRIC) only the pairs of a minimal plan are measured,\n"
"each planned round's ping-pongs at once; --all-pairs measures every pair\n"
"one by one instead.  Each pair: ping-pongs until the best RTT has not\n"
"improved for UCX_IBFLOW_PROBE_STALL exchanges (at most _PROBE_MAX), in\n"
"_PROBE_RUNS runs (one per pass over the schedule); the minimum and\n"
"maximum of the runs' bests are kept.  The solved links are judged\n"
"against their peers (ibflow probe-solve's health verdict, the spread of\n"
"the runs as each measurement's noise).\n",
		.notes =
"Configuration: UCX_IBFLOW_* (docs/ucx.md; `LD_PRELOAD=libibflow_ucx.so\n"
"ucx_info -cf` lists them).\n",
		.exit = "0 ok, 2 bad usage, configuration, fabric or mapping,\n"
			"3 communication failure.",
	};
	int rc;

	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&spec, argc, argv, NULL, &rc))
		return rc == IBF_EXIT_OK ? -1 : rc;
	if (a->all_pairs && a->serial)
		return ibf_cli_usage_error(PROG, "--all-pairs and --serial "
					   "exclude each other");
	return ibf_tool_boot_check(PROG, &a->boot, a->have_rank, a->np);
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

/* One of the library's writers behind ibf_cli_write_file(). */
typedef struct out {
	writer_t w;
	const ibf_ucx_t *u;
	const ibf_ucx_probe_result_t *r;
} out_t;

static ibf_status_t put(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const out_t *o = ctx;
	ibf_ucx_err_t e;

	return o->w(o->u, o->r, fp, &e) == IBF_UCX_OK ? IBF_OK :
	       ibf_tool_err(&e, err);
}

static int write_file(const char *path, writer_t w, const ibf_ucx_t *u,
		      const ibf_ucx_probe_result_t *r)
{
	const out_t o = { w, u, r };

	return ibf_cli_write_file(PROG, path, put, &o);
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
	if (!rc && a->prom)
		rc = write_file(a->prom, ibf_ucx_probe_write_prom, u, r);
	fflush(stdout);
	return rc;
}

static int fail_any(uint32_t rank, const ibf_ucx_err_t *e)
{
	return fail(rank, e, 0);
}

static int run(const void *args, const ibf_ucx_config_t *cfg)
{
	const args_t *a = args;
	ibf_ucx_probe_opts_t po;
	ibf_ucx_probe_result_t res;
	ibf_tool_proc_t p;
	ibf_ucx_err_t e;
	int rc;

	rc = ibf_tool_open(PROG, &a->boot, cfg,
			   a->fallback ? IBF_UCX_INIT_FALLBACK : 0, fail_any,
			   &p);
	if (rc)
		return rc;
	ibf_ucx_probe_opts_init(p.u, &po);
	if (a->all_pairs || !ibf_ucx_topology_aware(p.u))
		po.all_pairs = true;
	if (a->serial)
		po.serial = true;
	po.health = a->health;
	if (ibf_ucx_probe(p.u, &po, &res, &e) != IBF_UCX_OK)
		rc = fail(p.bp.rank, &e, 0);
	else if (p.bp.rank == 0)
		rc = report(a, p.u, &res);
	if (rc == 0 && a->verbose)
		ibf_tool_print_sl_counts(p.u);
	if (rc == 0)
		ibf_ucx_probe_result_free(&res);
	return ibf_tool_close(&p, fail_any, rc);
}

int main(int argc, char **argv)
{
	args_t a;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? 0 : rc;
	return ibf_tool_run(PROG, a.np, &a.boot, a.fallback, run, &a);
}
