/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/*
 * ibflow-infer: the topology of a job's hosts inferred from RTTs measured
 * over UCX (docs/ucx.md, "Topology inference"; the algorithm:
 * docs/infer.md).
 *
 * Every process runs this program; they meet through the built-in TCP
 * bootstrap as ibflow-probe's do (IBFLOW_BOOT_ADDR, IBFLOW_BOOT_RANK/_SIZE
 * or mpirun's variables), or --np N starts N local processes.  Rank 0
 * runs the inference, asking pair by pair for ping-pongs, prints the tree
 * and writes the files.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/topo_io.h>
#include <ibflow/ucx.h>

#include "tool.h"


static const char *const PROG = "ibflow-infer";

typedef struct args {
	ibf_ucx_boot_params_t boot;
	bool have_rank;
	const char *topo, *trace, *dot, *json;
	const char *bw, *bw_pairs;   /* bandwidth map outputs */
	size_t bw_bytes, bw_chunk;   /* 0: the library's defaults */
	uint32_t bw_alone;
	bool bw_infer;
	double tol;            /* µs; < 0: UCX_IBFLOW_INFER_TOL */
	unsigned lookahead;
	unsigned seed;
	unsigned parallel;     /* 0: UCX_IBFLOW_INFER_PARALLEL */
	bool quiet, verbose;
	unsigned np;
} args_t;

/* --bw-bytes, --bw-chunk: N, NK or NM (KiB, MiB) */
static int opt_size(void *target, const char *prog, const char *arg,
		    const char *opt)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = arg[0] == '-' ? 0 : strtoull(arg, &end, 10);
	if (x && !errno && (*end == 'K' || *end == 'k'))
		x <<= 10, end++;
	else if (x && !errno && (*end == 'M' || *end == 'm'))
		x <<= 20, end++;
	if (!x || errno || *end || x > (1ull << 34))
		return ibf_cli_usage_error(prog, "%s: '%s' is not a size (N, "
					   "NK, NM)", opt, arg);
	*(size_t *)target = (size_t)x;
	return IBF_EXIT_OK;
}

static int opt_bw_bytes(void *target, const char *prog, const char *arg)
{
	return opt_size(target, prog, arg, "--bw-bytes");
}

static int opt_bw_chunk(void *target, const char *prog, const char *arg)
{
	return opt_size(target, prog, arg, "--bw-chunk");
}

static int opt_bw_alone(void *target, const char *prog, const char *arg)
{
	uint32_t *alone = target;

	if (!strcmp(arg, "all")) {
		*alone = IBF_UCX_BW_ALONE_ALL;
		return IBF_EXIT_OK;
	}
	return ibf_cli_parse_uint(prog, "--bw-alone", arg, 1, UINT32_MAX,
				  alone);
}

static const char ABOUT[] =
"Infer the network among the hosts of a job (every process a host) as a\n"
"tree from round-trip times measured over UCX, for fabrics without a\n"
"subnet manager's export (RoCE, Ethernet).  Rank 0 adds the hosts one by\n"
"one and asks for the RTTs the algorithm needs - far fewer than all\n"
"pairs - each measured by the two processes of the pair: runs of\n"
"ping-pongs until the best has not improved for UCX_IBFLOW_PROBE_STALL\n"
"exchanges (at most _PROBE_MAX), _PROBE_RUNS runs, minimum and maximum of\n"
"the runs' bests.  Prints the tree and the pairs measured.\n";

static const char NOTES[] =
"With UCX_IBFLOW_FABRIC=infer the processes infer when they meet (with\n"
"UCX_IBFLOW_INFER_TOL; --tol, --lookahead, --seed do not apply) and that\n"
"inference is reported.\n"
"Files are written by rank 0, each whole or not at all (\"-\" = stdout).\n"
"Configuration: UCX_IBFLOW_* (docs/ucx.md).\n";

/* 0: run; -1: help printed; else the exit status of a usage error. */
static int parse_args(int argc, char **argv, args_t *a)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_STR("topo", &a->topo, "FILE",
			    "the tree as a topology (ibnetdiscover format): "
			    "hosts\nkeep their names (rankN@HOSTNAME), "
			    "switches are\ninfer-sN (ibflow route --engine "
			    "minhop routes it)", .letter = 'o'),
		IBF_OPT_STR("trace", &a->trace, "FILE",
			    "every pair measured, in order (an RTT file: "
			    "`ibflow\ninfer --rtt FILE` with the same --tol, "
			    "--lookahead,\n--seed replays the run)"),
		IBF_OPT_STR("dot", &a->dot, "FILE", "the tree for Graphviz"),
		IBF_OPT_STR("json", &a->json, "FILE",
			    "tree, counts, times (ibflow infer --json's "
			    "document)"),
		IBF_OPT_REAL("tol", &a->tol, "US", 0, 1e6,
			     "coincidence radius, µs of RTT",
			     .lo_incl = true, .def_text = "UCX_IBFLOW_INFER_TOL"),
		IBF_OPT_CALL("lookahead", ibf_cli_opt_lookahead, &a->lookahead,
			     "N", "close-host search budget, 0 off, or all",
			     .def = IBF_OPT_NUM(IBF_INFER_LOOKAHEAD_DEFAULT)),
		IBF_OPT_UINT("seed", &a->seed, "N", 0, UINT32_MAX,
			     "the search's random first choice", .def = "1"),
		IBF_OPT_UINT("parallel", &a->parallel, "N", 1,
			     IBF_INFER_PARALLEL_MAX, "hosts inserted at once, "
			     "their pairs measured\nconcurrently (1: one pair "
			     "at a time; a replay\nneeds the same N)",
			     .def_text = "UCX_IBFLOW_INFER_PARALLEL"),
		IBF_OPT_STR("bw", &a->bw, "FILE",
			    "also measure a bandwidth map along the tree "
			    "(the\npaper's section 6.1: rounds of concurrent "
			    "streams\nthat share no edge) and write it "
			    "(ibflow infer\n--bw-plan's document, Mbit/s); "
			    "with\nUCX_IBFLOW_FABRIC=DIR along the fabric's "
			    "tree, no\nRTT inference"),
		IBF_OPT_CALL("bw-bytes", opt_bw_bytes, &a->bw_bytes, "N",
			     "bytes per measurement, K and M suffixes",
			     .def_text = "2M"),
		IBF_OPT_CALL("bw-chunk", opt_bw_chunk, &a->bw_chunk, "N",
			     "sent as messages of N bytes", .def_text = "64K"),
		IBF_OPT_CALL("bw-alone", opt_bw_alone, &a->bw_alone, "N|all",
			     "then measure N random pairs (or all) one at a "
			     "time\nand print predicted/measured ratios"),
		IBF_OPT_STR("bw-pairs", &a->bw_pairs, "FILE",
			    "every pair: \"A B PREDICTED ALONE\" (Mbit/s; "
			    "ALONE\n- when not measured)"),
		IBF_OPT_FLAG("bw-infer", &a->bw_infer,
			     "infer the tree from RTTs also when the fabric "
			     "is\nknown"),
		IBF_OPT_FLAG("quiet", &a->quiet, "no text report"),
		IBF_OPT_FLAG("verbose", &a->verbose,
			     "also say what each process sent on its routes' "
			     "SL\ncontexts"),
		IBF_TOOL_OPTS_JOB(a, 2),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = PROG, .opts = opts, .about = ABOUT, .notes = NOTES,
		.exit = "0 ok, 2 bad usage or configuration, 3 communication\n"
			"failure.",
	};
	int rc;

	memset(a, 0, sizeof(*a));
	a->tol = -1;
	if (!ibf_cli_parse(&spec, argc, argv, NULL, &rc))
		return rc == IBF_EXIT_OK ? -1 : rc;
	if ((rc = ibf_tool_boot_check(PROG, &a->boot, a->have_rank, a->np)))
		return rc;
	if (!a->bw && (a->bw_pairs || a->bw_bytes || a->bw_chunk ||
		       a->bw_alone || a->bw_infer))
		return ibf_cli_usage_error(PROG, "the --bw-* options go with "
					   "--bw");
	return 0;
}

static int fail(uint32_t rank, const ibf_ucx_err_t *e);

/* ---- rank 0's report ----------------------------------------------------------- */

/* The library's writers behind ibf_cli_write_file(). */
typedef struct out {
	const ibf_infer_report_t *rep;
	const ibf_ucx_bw_result_t *bw;
	const ibf_fabric_t *fabric;
} out_t;

/* "A B PREDICTED ALONE" for every pair a < b, names quoted. */
static ibf_status_t put_bw_pairs(const void *ctx, FILE *fp, ibf_err_t *e)
{
	const ibf_ucx_bw_result_t *r = ((const out_t *)ctx)->bw;
	uint32_t n = r->nhosts, a, b;
	int rc = fprintf(fp, "# A B PREDICTED ALONE (Mbit/s; - not "
			 "measured)\n") < 0;

	for (a = 0; a < n && !rc; a++)
		for (b = a + 1; b < n && !rc; b++) {
			double p = r->predicted[(size_t)a * n + b];
			double m = r->alone ? r->alone[(size_t)a * n + b] :
				   NAN;

			rc = fprintf(fp, "\"%s\" \"%s\" %.3f", r->names[a],
				     r->names[b], p) < 0;
			rc |= (isnan(m) ? fprintf(fp, " -\n") :
			       fprintf(fp, " %.3f\n", m)) < 0;
		}
	return rc ? ibf_err_set(e, IBF_ERR_IO, "cannot write the pairs") :
		    IBF_OK;
}

static ibf_status_t put_bw(const void *ctx, FILE *fp, ibf_err_t *e)
{
	const ibf_ucx_bw_result_t *bw = ((const out_t *)ctx)->bw;

	return ibf_infer_bw_write_json(&bw->tree,
				       (const char *const *)bw->names,
				       &bw->map, fp, e);
}

static ibf_status_t put_topo(const void *ctx, FILE *fp, ibf_err_t *e)
{
	return ibf_topo_write(((const out_t *)ctx)->fabric,
			      IBF_TOPO_IBNETDISCOVER, fp, e);
}

static ibf_status_t put_trace(const void *ctx, FILE *fp, ibf_err_t *e)
{
	const ibf_infer_report_t *rep = ((const out_t *)ctx)->rep;

	return ibf_infer_write_trace(rep->r, rep->names, fp, e);
}

static ibf_status_t put_dot(const void *ctx, FILE *fp, ibf_err_t *e)
{
	const ibf_infer_report_t *rep = ((const out_t *)ctx)->rep;

	return ibf_infer_tree_write_dot(&rep->r->tree, rep->names, fp, e);
}

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *e)
{
	return ibf_infer_write_json(((const out_t *)ctx)->rep, fp, e);
}

static int report(const args_t *a, const ibf_ucx_infer_result_t *res,
		  double tol)
{
	const char *paths[] = { a->topo, a->trace, a->dot, a->json };
	const ibf_cli_writer_t put[] = { put_topo, put_trace, put_dot,
					 put_json };
	const ibf_infer_report_t rep = {
		.r = &res->r, .names = (const char *const *)res->names,
		.charged_s = -1, .tol = tol, .live = true,
		.exchanges = res->exchanges, .total_s = res->measure_s,
	};
	out_t o = { .rep = &rep };
	ibf_fabric_t *f = NULL;
	ibf_err_t e;
	unsigned k;
	int rc = 0;

	if (!a->quiet)
		ibf_infer_write_text(&rep, stdout);
	fflush(stdout);
	if (a->topo && ibf_infer_tree_fabric(&res->r.tree, rep.names, 0, &f,
					     &e) != IBF_OK)
		return ibf_cli_fail(PROG, &e);
	o.fabric = f;
	for (k = 0; k < 4 && !rc; k++)
		if (paths[k])
			rc = ibf_cli_write_file(PROG, paths[k], put[k], &o);
	ibf_fabric_destroy(f);
	fflush(stdout);
	return rc;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The map: counts, the rounds with their rates, the accuracy. */
static void bw_summary(const ibf_ucx_bw_result_t *r, const char *tree,
		       FILE *fp)
{
	const ibf_infer_bwmap_t *m = &r->map;
	const ibf_infer_tree_t *t = &r->tree;
	uint64_t n = r->nhosts, all = n * (n - 1) / 2;
	uint32_t i, k, cnt = 0;
	double *q = malloc((all ? all : 1) * sizeof(*q));

	fprintf(fp, "bandwidth map (tree: %s): hosts %u, switches %u; "
		"%u stages, %u rounds, %u measurements of %llu pairs\n",
		tree ? tree : ibf_ucx_bw_tree_str(r->source), t->nhosts,
		t->nnodes - t->nhosts, m->height, m->nrounds, m->nmeas,
		(unsigned long long)all);
	for (i = 0; i < m->nrounds; i++) {
		fprintf(fp, "round %u (stage %u):", i + 1, m->round_stage[i]);
		for (k = m->round_start[i]; k < m->round_start[i + 1]; k++)
			fprintf(fp, "%s %s -> %s %.2f", k > m->round_start[i] ?
				"," : "", r->names[m->pairs[2 * k]],
				r->names[m->pairs[2 * k + 1]], m->bw[k]);
		fprintf(fp, " Mbit/s\n");
	}
	fprintf(fp, "time: tree %.3f s  map %.3f s\n", r->tree_s, r->map_s);
	for (i = 0; r->alone && q && i < n * n; i++)
		if (!isnan(r->alone[i]) && r->alone[i] > 0 &&
		    !isnan(r->predicted[i]))
			q[cnt++] = r->predicted[i] / r->alone[i];
	if (r->alone && cnt) {
		qsort(q, cnt, sizeof(*q), cmp_double);
		fprintf(fp, "alone: %u pairs in %.3f s; predicted/measured min "
			"%.3f median %.3f max %.3f\n", r->nalone, r->alone_s,
			q[0], cnt % 2 ? q[cnt / 2] :
			(q[cnt / 2 - 1] + q[cnt / 2]) / 2, q[cnt - 1]);
	}
	free(q);
}

static int bw_report(const args_t *a, const ibf_ucx_bw_result_t *r,
		     const char *tree)
{
	const out_t o = { .bw = r };
	int rc = 0;

	if (!a->quiet)
		bw_summary(r, tree, stdout);
	fflush(stdout);
	rc = ibf_cli_write_file(PROG, a->bw, put_bw, &o);
	if (!rc && a->bw_pairs)
		rc = ibf_cli_write_file(PROG, a->bw_pairs, put_bw_pairs, &o);
	fflush(stdout);
	return rc;
}

/* The bandwidth map (collective): along the tree given (whose origin
 * `what` names), or the context's. */
static int bandwidth(const args_t *a, ibf_ucx_t *u,
		     const ibf_infer_tree_t *tree, const char *what)
{
	ibf_ucx_bw_result_t r;
	ibf_ucx_bw_opts_t bo;
	ibf_ucx_err_t e;
	int rc;

	ibf_ucx_bw_opts_init(u, &bo);
	if (a->bw_bytes)
		bo.bytes = a->bw_bytes;
	if (a->bw_chunk)
		bo.chunk = a->bw_chunk;
	bo.alone = a->bw_alone;
	bo.seed = a->seed;
	bo.tree = tree;
	if (ibf_ucx_infer_bw(u, &bo, &r, &e) != IBF_UCX_OK)
		return fail(ibf_ucx_rank(u), &e);
	rc = ibf_ucx_rank(u) == 0 ? bw_report(a, &r, what) : 0;
	ibf_ucx_bw_result_free(&r);
	return rc;
}

/* ---- one process ---------------------------------------------------------------- */

/* Rank 0 reports every error; the others only their own. */
static int fail(uint32_t rank, const ibf_ucx_err_t *e)
{
	if (rank == 0 || e->status != IBF_UCX_ERR_PEER)
		fprintf(stderr, "%s: rank %u: %s\n", PROG, rank, e->msg);
	return ibf_tool_exit_for(e->status);
}

static int run(const void *args, const ibf_ucx_config_t *cfg)
{
	const args_t *a = args;
	const ibf_ucx_infer_result_t *done;
	ibf_ucx_infer_result_t res;
	ibf_ucx_infer_opts_t io;
	ibf_tool_proc_t p;
	ibf_ucx_t *u;
	ibf_ucx_err_t e;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = ibf_tool_open(PROG, &a->boot, cfg, 0, fail, &p);
	if (rc)
		return rc;
	u = p.u;
	ibf_ucx_infer_opts_init(u, &io);
	if (a->tol >= 0)
		io.tol_us = a->tol;
	io.lookahead = a->lookahead;
	io.seed = a->seed;
	if (a->parallel)
		io.parallel = a->parallel;
	/* UCX_IBFLOW_FABRIC=infer: the context has inferred already (with
	 * the configuration's options). */
	done = ibf_ucx_inferred(u);
	if (done)
		ibf_ucx_infer_opts_init(u, &io);
	/* --bw with an export: the fabric's tree, no RTTs */
	if (a->bw && !a->bw_infer && !done && ibf_ucx_topology_aware(u)) {
		rc = bandwidth(a, u, NULL, NULL);
	} else if (!done && ibf_ucx_infer(u, &io, &res, &e) != IBF_UCX_OK) {
		rc = fail(p.bp.rank, &e);
	} else {
		if (p.bp.rank == 0)
			rc = report(a, done ? done : &res, io.tol_us);
		/* every rank: rank 0's files do not stop the others */
		if (a->bw) {
			int rc2 = bandwidth(a, u, done ? &done->r.tree :
					    &res.r.tree, done ?
					    "inferred at init" : "inferred");

			rc = rc ? rc : rc2;
		}
	}
	if (rc == 0 && a->verbose)
		ibf_tool_print_sl_counts(u);
	ibf_ucx_infer_result_free(&res);
	return ibf_tool_close(&p, fail, rc);
}

int main(int argc, char **argv)
{
	args_t a;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? 0 : rc;
	return ibf_tool_run(PROG, a.np, &a.boot, false, run, &a);
}
