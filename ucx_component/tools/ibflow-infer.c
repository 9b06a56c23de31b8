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
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/topo_io.h>
#include <ibflow/ucx.h>

#include "tool.h"


static const char *const PROG = "ibflow-infer";
#define usage_error(...) ibf_tool_usage_error(PROG, __VA_ARGS__)

typedef struct args {
	ibf_ucx_boot_params_t boot;
	const char *topo, *trace, *dot, *json;
	const char *bw, *bw_pairs;   /* bandwidth map outputs */
	size_t bw_bytes, bw_chunk;   /* 0: the library's defaults */
	uint32_t bw_alone;
	bool bw_infer;
	double tol;            /* µs; < 0: UCX_IBFLOW_INFER_TOL */
	unsigned lookahead;
	uint64_t seed;
	unsigned parallel;     /* 0: UCX_IBFLOW_INFER_PARALLEL */
	bool quiet;
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
"usage: ibflow-infer [options]\n"
"\n"
"Infer the network among the hosts of a job (every process a host) as a\n"
"tree from round-trip times measured over UCX, for fabrics without a\n"
"subnet manager's export (RoCE, Ethernet).  Rank 0 adds the hosts one by\n"
"one and asks for the RTTs the algorithm needs - far fewer than all\n"
"pairs - each measured by the two processes of the pair: runs of\n"
"ping-pongs until the best has not improved for UCX_IBFLOW_PROBE_STALL\n"
"exchanges (at most _PROBE_MAX), _PROBE_RUNS runs, minimum and maximum of\n"
"the runs' bests.  Prints the tree and the pairs measured.\n"
"\n"
"  -o, --topo FILE    the tree as a topology (ibnetdiscover format): hosts\n"
"                     keep their names (rankN@HOSTNAME), switches are\n"
"                     infer-sN (ibflow route --engine minhop routes it)\n"
"  --trace FILE       every pair measured, in order (an RTT file: `ibflow\n"
"                     infer --rtt FILE` with the same --tol, --lookahead,\n"
"                     --seed replays the run)\n"
"  --dot FILE         the tree for Graphviz\n"
"  --json FILE        tree, counts, times (ibflow infer --json's document)\n"
"  --tol US           coincidence radius, µs of RTT (default\n"
"                     UCX_IBFLOW_INFER_TOL)\n"
"  --lookahead N      close-host search budget (default 8, 0 off, all)\n"
"  --seed N           the search's random first choice (default 1)\n"
"  --parallel N       hosts inserted at once, their pairs measured\n"
"                     concurrently (default UCX_IBFLOW_INFER_PARALLEL; 1:\n"
"                     one pair at a time; a replay needs the same N)\n"
"  --bw FILE          also measure a bandwidth map along the tree (the\n"
"                     paper's section 6.1: rounds of concurrent streams\n"
"                     that share no edge) and write it (ibflow infer\n"
"                     --bw-plan's document, Mbit/s); with\n"
"                     UCX_IBFLOW_FABRIC=DIR along the fabric's tree, no\n"
"                     RTT inference\n"
"  --bw-bytes N       bytes per measurement (K, M suffixes; default 2M)\n"
"  --bw-chunk N       sent as messages of N bytes (default 64K)\n"
"  --bw-alone N|all   then measure N random pairs (or all) one at a time\n"
"                     and print predicted/measured ratios\n"
"  --bw-pairs FILE    every pair: \"A B PREDICTED ALONE\" (Mbit/s; ALONE\n"
"                     - when not measured)\n"
"  --bw-infer         infer the tree from RTTs also when the fabric is\n"
"                     known\n"
"  --quiet            no text report\n"
"  --np N             start N local processes (one machine; for tests)\n"
"  --boot HOST:PORT   where rank 0 listens (IBFLOW_BOOT_ADDR)\n"
"  --rank R           this process's rank (IBFLOW_BOOT_RANK; default\n"
"                     OMPI_COMM_WORLD_RANK under mpirun)\n"
"  --size N           processes (IBFLOW_BOOT_SIZE / OMPI_COMM_WORLD_SIZE)\n"
"  -h, --help         this text\n"
"\n"
"With UCX_IBFLOW_FABRIC=infer the processes infer when they meet (with\n"
"UCX_IBFLOW_INFER_TOL; --tol, --lookahead, --seed do not apply) and that\n"
"inference is reported.\n"
"Files are written by rank 0, each whole or not at all (\"-\" = stdout).\n"
"Configuration: UCX_IBFLOW_* (docs/ucx.md).  Exit status: 0 ok, 2 bad\n"
"usage or configuration, 3 communication failure.\n");
}

/* N, NK or NM (KiB, MiB) */
static bool parse_size(const char *s, size_t *v)
{
	unsigned long long x;
	char *end;

	if (!s[0] || s[0] == '-')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end == 'K' || *end == 'k')
		x <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		x <<= 20, end++;
	if (*end || !x || x > (1ull << 34))
		return false;
	*v = (size_t)x;
	return true;
}

static bool parse_us(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return s[0] && !*end && !errno && isfinite(*v) && *v >= 0 &&
	       *v <= 1e6;
}

static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 'o' },
		{ "trace", required_argument, NULL, 't' },
		{ "dot", required_argument, NULL, 'd' },
		{ "json", required_argument, NULL, 'j' },
		{ "tol", required_argument, NULL, 'T' },
		{ "lookahead", required_argument, NULL, 'L' },
		{ "seed", required_argument, NULL, 's' },
		{ "parallel", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "bw", required_argument, NULL, 'B' },
		{ "bw-bytes", required_argument, NULL, 'Y' },
		{ "bw-chunk", required_argument, NULL, 'C' },
		{ "bw-alone", required_argument, NULL, 'A' },
		{ "bw-pairs", required_argument, NULL, 'P' },
		{ "bw-infer", no_argument, NULL, 'I' },
		{ "np", required_argument, NULL, 'n' },
		{ "boot", required_argument, NULL, 'b' },
		{ "rank", required_argument, NULL, 'R' },
		{ "size", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_rank = false;
	uint32_t v;
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->tol = -1;
	a->seed = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->topo = optarg; break;
		case 't': a->trace = optarg; break;
		case 'd': a->dot = optarg; break;
		case 'j': a->json = optarg; break;
		case 'q': a->quiet = true; break;
		case 'B': a->bw = optarg; break;
		case 'P': a->bw_pairs = optarg; break;
		case 'I': a->bw_infer = true; break;
		case 'Y':
			if (!parse_size(optarg, &a->bw_bytes))
				return usage_error("--bw-bytes: '%s' is not a "
						   "size (N, NK, NM)", optarg);
			break;
		case 'C':
			if (!parse_size(optarg, &a->bw_chunk))
				return usage_error("--bw-chunk: '%s' is not a "
						   "size (N, NK, NM)", optarg);
			break;
		case 'A':
			if (!strcmp(optarg, "all"))
				a->bw_alone = IBF_UCX_BW_ALONE_ALL;
			else if (!ibf_tool_parse_u32(optarg, &a->bw_alone) ||
				 !a->bw_alone)
				return usage_error("--bw-alone: '%s' is not a "
						   "positive number or all",
						   optarg);
			break;
		case 'T':
			if (!parse_us(optarg, &a->tol))
				return usage_error("--tol: '%s' is not a number "
						   "of µs in [0, 1e6]", optarg);
			break;
		case 'L':
			if (!strcmp(optarg, "all"))
				a->lookahead = IBF_INFER_LOOKAHEAD_ALL;
			else if (!ibf_tool_parse_u32(optarg, &v) || v > 1000000)
				return usage_error("--lookahead: '%s' is not "
						   "0..1000000 or all", optarg);
			else
				a->lookahead = v ? v : IBF_INFER_LOOKAHEAD_OFF;
			break;
		case 's':
			if (!ibf_tool_parse_u32(optarg, &v))
				return usage_error("--seed: '%s' is not an "
						   "unsigned integer", optarg);
			a->seed = v;
			break;
		case 'p':
			if (!ibf_tool_parse_u32(optarg, &a->parallel) ||
			    !a->parallel || a->parallel > IBF_INFER_PARALLEL_MAX)
				return usage_error("--parallel: '%s' is not "
						   "1..4096", optarg);
			break;
		case 'n':
			if (!ibf_tool_parse_u32(optarg, &a->np) || a->np < 2 ||
			    a->np > 1024)
				return usage_error("--np: '%s' is not 2..1024",
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
	if ((rc = ibf_tool_boot_check(PROG, &a->boot, have_rank)))
		return rc;
	if (!a->bw && (a->bw_pairs || a->bw_bytes || a->bw_chunk ||
		       a->bw_alone || a->bw_infer))
		return usage_error("%s", "the --bw-* options go with --bw");
	if (a->np && a->boot.size)
		return usage_error("%s", "--np starts its own processes: no "
				   "--rank/--size");
	return 0;
}

static int fail(uint32_t rank, const ibf_ucx_err_t *e);

/* ---- rank 0's report ----------------------------------------------------------- */

/* The tree, switch by switch: each neighbour with the one-way latency
 * of the edge. */
static void print_tree(const ibf_ucx_infer_result_t *res, FILE *fp)
{
	const ibf_infer_tree_t *t = &res->r.tree;
	uint32_t s, i;

	for (s = t->nhosts; s < t->nnodes; s++) {
		fprintf(fp, "infer-s%u:", s - t->nhosts);
		for (i = 0; i < t->nedges; i++) {
			uint32_t o = t->ea[i] == s ? t->eb[i] :
				     t->eb[i] == s ? t->ea[i] : UINT32_MAX;

			if (o == UINT32_MAX)
				continue;
			if (o < t->nhosts)
				fprintf(fp, " %s", res->names[o]);
			else
				fprintf(fp, " infer-s%u", o - t->nhosts);
			fprintf(fp, " (%.2f us)", t->lat[i]);
		}
		fprintf(fp, "\n");
	}
}

static void summary(const ibf_ucx_infer_result_t *res, double tol, FILE *fp)
{
	const ibf_infer_result_t *r = &res->r;
	const ibf_infer_stats_t *s = &r->stats;
	uint64_t n = r->tree.nhosts, all = n * (n - 1) / 2;
	uint32_t p, d;

	ibf_infer_tree_shape(&r->tree, &p, &d);
	fprintf(fp, "hosts %u  switches inferred %u  largest switch %u ports  "
		"diameter %u hops\n", r->tree.nhosts,
		r->tree.nnodes - r->tree.nhosts, p, d);
	fprintf(fp, "pairs measured %llu of %llu (insertion %llu, close-host "
		"search %llu)  %.2f per host  ping-pongs %llu\n",
		(unsigned long long)s->pairs, (unsigned long long)all,
		(unsigned long long)s->add_pairs,
		(unsigned long long)s->lookahead_pairs,
		(double)s->pairs / (double)n,
		(unsigned long long)res->exchanges);
	fprintf(fp, "most pairs for one host %u (insertion alone %u; bound "
		"p(d-1)+1 = %u)\n", s->max_host_pairs, s->max_add_pairs,
		d ? p * (d - 1) + 1 : 1);
	fprintf(fp, "rounds of measurements %llu (%u hosts at once, most "
		"pairs in a round %u)\n", (unsigned long long)s->batches,
		s->parallel, s->max_batch);
	fprintf(fp, "time: total %.3f s  measuring %.3f s  inference %.3f s  "
		"tol %.3f us\n", res->measure_s, s->oracle_s, s->cpu_s, tol);
	print_tree(res, fp);
}

/* Writers behind write_file(). */
typedef struct out {
	const ibf_ucx_infer_result_t *res;
	const ibf_ucx_bw_result_t *bw;
	const ibf_fabric_t *fabric;
	double tol;
	int kind;
} out_t;

enum { OUT_TOPO, OUT_TRACE, OUT_DOT, OUT_JSON, OUT_BW, OUT_BW_PAIRS };

/* "A B PREDICTED ALONE" for every pair a < b, names quoted. */
static ibf_status_t write_bw_pairs(const ibf_ucx_bw_result_t *r, FILE *fp,
				   ibf_err_t *e)
{
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

static ibf_status_t write_one(const out_t *o, FILE *fp, ibf_err_t *e)
{
	const char *const *names = o->res ?
				   (const char *const *)o->res->names : NULL;
	ibf_infer_report_t rep;

	switch (o->kind) {
	case OUT_BW:
		return ibf_infer_bw_write_json(&o->bw->tree,
					       (const char *const *)
					       o->bw->names, &o->bw->map, fp,
					       e);
	case OUT_BW_PAIRS:
		return write_bw_pairs(o->bw, fp, e);
	case OUT_TOPO:
		return ibf_topo_write(o->fabric, IBF_TOPO_IBNETDISCOVER, fp, e);
	case OUT_TRACE:
		return ibf_infer_write_trace(&o->res->r, names, fp, e);
	case OUT_DOT:
		return ibf_infer_tree_write_dot(&o->res->r.tree, names, fp, e);
	default:
		memset(&rep, 0, sizeof(rep));
		rep.r = &o->res->r;
		rep.names = names;
		rep.charged_s = -1;
		rep.tol = o->tol;
		return ibf_infer_write_json(&rep, fp, e);
	}
}

/* Through a temporary file and rename: whole or nothing. */
static int write_file(const char *path, const out_t *o)
{
	char tmp[4096];
	ibf_err_t e;
	FILE *fp;
	bool ok;

	ibf_err_clear(&e);
	if (!strcmp(path, "-")) {
		if (write_one(o, stdout, &e) == IBF_OK)
			return 0;
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fp = fopen(tmp, "w");
	if (!fp) {
		fprintf(stderr, "%s: %s: %s\n", PROG, tmp, strerror(errno));
		return EXIT_INPUT;
	}
	ok = write_one(o, fp, &e) == IBF_OK;
	if (fclose(fp) != 0 && ok) {
		ok = false;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", tmp,
			 strerror(errno));
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path,
			 strerror(errno));
	}
	if (!ok) {
		unlink(tmp);
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	return 0;
}

static int report(const args_t *a, const ibf_ucx_infer_result_t *res,
		  double tol)
{
	const char *paths[] = { a->topo, a->trace, a->dot, a->json };
	ibf_fabric_t *f = NULL;
	ibf_err_t e;
	out_t o = { .res = res, .tol = tol };
	int rc = 0;

	if (!a->quiet)
		summary(res, tol, stdout);
	fflush(stdout);
	if (a->topo && ibf_infer_tree_fabric(&res->r.tree,
					     (const char *const *)res->names,
					     0, &f, &e) != IBF_OK) {
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	o.fabric = f;
	for (o.kind = OUT_TOPO; o.kind <= OUT_JSON && !rc; o.kind++)
		if (paths[o.kind])
			rc = write_file(paths[o.kind], &o);
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
	out_t o = { .bw = r };
	int rc = 0;

	if (!a->quiet)
		bw_summary(r, tree, stdout);
	fflush(stdout);
	o.kind = OUT_BW;
	rc = write_file(a->bw, &o);
	o.kind = OUT_BW_PAIRS;
	if (!rc && a->bw_pairs)
		rc = write_file(a->bw_pairs, &o);
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

static int run(const args_t *a, const ibf_ucx_config_t *cfg)
{
	ibf_ucx_boot_params_t bp = a->boot;
	const ibf_ucx_infer_result_t *done;
	ibf_ucx_infer_result_t res;
	ibf_ucx_infer_opts_t io;
	ibf_ucx_params_t up;
	ibf_ucx_boot_t *boot = NULL;
	ibf_ucx_t *u = NULL;
	ibf_ucx_err_t e;
	int rc = 0;

	memset(&res, 0, sizeof(res));
	if (!bp.timeout_s)
		bp.timeout_s = ibf_ucx_config_timeout(cfg);
	if (ibf_ucx_boot_params_env(&bp, &e) != IBF_UCX_OK) {
		fprintf(stderr, "%s: %s\n", PROG, e.msg);
		return EXIT_INPUT;
	}
	if (ibf_ucx_boot_open(&bp, &boot, &e) != IBF_UCX_OK)
		return fail(bp.rank, &e);
	memset(&up, 0, sizeof(up));
	up.oob = ibf_ucx_boot_oob(boot);
	up.config = cfg;
	if (ibf_ucx_init(&up, &u, &e) != IBF_UCX_OK) {
		if (e.status == IBF_UCX_ERR_OOB && ibf_ucx_boot_error(boot)[0])
			snprintf(e.msg + strlen(e.msg),
				 sizeof(e.msg) - strlen(e.msg), ": %s",
				 ibf_ucx_boot_error(boot));
		rc = fail(bp.rank, &e);
		ibf_ucx_boot_close(boot);
		return rc;
	}
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
		rc = fail(bp.rank, &e);
	} else {
		if (bp.rank == 0)
			rc = report(a, done ? done : &res, io.tol_us);
		/* every rank: rank 0's files do not stop the others */
		if (a->bw) {
			int rc2 = bandwidth(a, u, done ? &done->r.tree :
					    &res.r.tree, done ?
					    "inferred at init" : "inferred");

			rc = rc ? rc : rc2;
		}
	}
	ibf_ucx_infer_result_free(&res);
	if (ibf_ucx_finalize(u, &e) != IBF_UCX_OK && !rc)
		rc = fail(bp.rank, &e);
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
	struct job j = { a, cfg };

	rc = ibf_tool_run(PROG, a.np, &j.a.boot,
			  ibf_ucx_config_timeout(cfg), run_job, &j);
	ibf_ucx_config_release(cfg);
	return rc;
}
