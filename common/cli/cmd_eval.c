/* ibflow eval: max-min fair evaluation of routings on traffic patterns. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ibflow/eval.h>
#include <ibflow/hosts.h>

#include "cli.h"

static const char *const CMD = "eval";

#define MAX_LFTS 32u
#define MAX_PATTERNS 256u

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow eval --topo T --lfts L [--lfts L2 ...] --patterns LIST\n"
"                   [options]\n"
"\n"
"Max-min fair (MMF) rates of the flows of traffic patterns over the routes\n"
"of one or more routings, and the LFTI throughput index: aggregate rate\n"
"normalised to the same flows on a crossbar (1 = as good as a crossbar).\n"
"Prints a table routing x pattern: flows, index, (with --opt) the\n"
"optimum's index and index/optimum, minimum and median flow rate, the\n"
"worst link load (max_load: most flows on one directed link in any\n"
"instance; split flows count their fraction), solver seconds.\n"
"\n"
"  --topo FILE        topology (ibnetdiscover, ibsim net, opensm-subnet.lst)\n"
"  --lfts FILE        forwarding tables; repeat to compare routings\n"
"  --lmc N            LMC when the topology carries no LIDs (default 0)\n"
"  --patterns LIST    comma-separated specs (repeatable):\n"
"                     perm[:K] shift[:K] bisect[:K] 2dnn[:K] 2dnndiag[:K]\n"
"                     3dnn[:K] 3dnndiag[:K] randn:D[:K] random:D[:K]\n"
"                     alltoall file:PATH   (K instances, default 1)\n"
"  --paths MODE       single (base LID, default), lmc (even split over the\n"
"                     2^LMC LIDs), layers (same as lmc, for layered routing:\n"
"                     LID offset o is layer o mod n)\n"
"  --map MAP          rank placement: direct (default: the topology's host\n"
"                     order), random (seeded shuffle), or a host list file\n"
"                     giving the rank order (e.g. route --order-out)\n"
"  --seed S           seed of patterns and random map (default 0)\n"
"  --opt              also the MMF multi-commodity-flow optimum (exact on\n"
"                     PGFTs; elsewhere said not computed)\n"
"  --json FILE        results as JSON (\"-\" = stdout, table to stderr)\n"
"  --flows FILE       per-flow rates, CSV: pattern,instance,src,dst,rate\n"
"                     [,opt_rate] (a routing column first with several\n"
"                     --lfts)\n"
"  --plot FILE        SVG bar chart of the indices (needs gnuplot)\n"
"  --threads N        worker threads (default 1)\n"
"  --algo A           fast (default) or ref (reference water-filling)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 ok, 2 bad usage or bad input (bad pattern, host not in the\n"
"topology, a pair the tables do not route, gnuplot not found).\n");
}

struct eval_args {
	const char *topo, *map, *json, *flows, *plot;
	const char *lfts[MAX_LFTS];
	unsigned nlfts;
	char *specs[MAX_PATTERNS];
	unsigned nspecs;
	unsigned lmc, threads;
	ibf_eval_opts_t o;
};

/* Split a comma-separated list into a->specs (copies). */
static int add_patterns(struct eval_args *a, const char *list)
{
	const char *s = list, *c;
	size_t n;

	for (;;) {
		c = strchr(s, ',');
		n = c ? (size_t)(c - s) : strlen(s);
		if (!n)
			return ibf_cli_usage_error(CMD, "--patterns: empty "
						   "pattern in '%s'", list);
		if (a->nspecs == MAX_PATTERNS)
			return ibf_cli_usage_error(CMD, "--patterns: more "
						   "than %u patterns",
						   MAX_PATTERNS);
		a->specs[a->nspecs] = strndup(s, n);
		if (!a->specs[a->nspecs])
			return ibf_cli_usage_error(CMD, "out of memory");
		a->nspecs++;
		if (!c)
			return IBF_EXIT_OK;
		s = c + 1;
	}
}

/* In enum order: the index of the match is the value. */
static const char *const path_names[] = { "single", "lmc", "layers", NULL };
static const char *const algo_names[] = { "fast", "ref", NULL };

static int parse_opt(int c, struct eval_args *a)
{
	int rc, v;

	switch (c) {
	case 't': a->topo = optarg; return IBF_EXIT_OK;
	case 'l':
		if (a->nlfts == MAX_LFTS)
			return ibf_cli_usage_error(CMD, "more than %u --lfts",
						   MAX_LFTS);
		a->lfts[a->nlfts++] = optarg;
		return IBF_EXIT_OK;
	case 'P': return add_patterns(a, optarg);
	case 'p':
		rc = ibf_cli_parse_choice(CMD, "--paths", optarg, path_names,
					  &v);
		if (rc == IBF_EXIT_OK)
			a->o.paths = (ibf_eval_paths_t)v;
		return rc;
	case 'M': a->map = optarg; return IBF_EXIT_OK;
	case 's':
		return ibf_cli_parse_u64(CMD, "--seed", optarg, &a->o.seed);
	case 'O': a->o.opt = true; return IBF_EXIT_OK;
	case 'j': a->json = optarg; return IBF_EXIT_OK;
	case 'f': a->flows = optarg; return IBF_EXIT_OK;
	case 'g': a->plot = optarg; return IBF_EXIT_OK;
	case 'a':
		rc = ibf_cli_parse_choice(CMD, "--algo", optarg, algo_names, &v);
		if (rc == IBF_EXIT_OK)
			a->o.algo = (ibf_eval_algo_t)v;
		return rc;
	case 'm':
		return ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
					  IBF_LMC_MAX, &a->lmc);
	case 'T':
		return ibf_cli_parse_uint(CMD, "--threads", optarg, 1, 64,
					  &a->threads);
	}
	return ibf_cli_usage_error(CMD, "unknown option or missing value");
}

static int check_args(struct eval_args *a, int argc, char **argv)
{
	ibf_err_t err;

	if (optind < argc)
		return ibf_cli_usage_error(CMD, "unexpected argument '%s'",
					   argv[optind]);
	if (!a->topo || !a->nlfts || !a->nspecs)
		return ibf_cli_usage_error(CMD, "--topo, --lfts and "
					   "--patterns are required");
	/* Before any work: a plot that cannot be drawn is bad usage. */
	ibf_err_clear(&err);
	if (a->plot && ibf_eval_plot_check(&err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	a->o.nthreads = a->threads;
	a->o.keep_flows = a->flows != NULL;
	a->o.random_map = a->map && !strcmp(a->map, "random");
	return IBF_EXIT_OK;
}

static int parse_args(int argc, char **argv, struct eval_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "patterns", required_argument, NULL, 'P' },
		{ "paths", required_argument, NULL, 'p' },
		{ "map", required_argument, NULL, 'M' },
		{ "seed", required_argument, NULL, 's' },
		{ "opt", no_argument, NULL, 'O' },
		{ "json", required_argument, NULL, 'j' },
		{ "flows", required_argument, NULL, 'f' },
		{ "plot", required_argument, NULL, 'g' },
		{ "algo", required_argument, NULL, 'a' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return -1;
		}
		if (c == '?' || c == ':')
			return ibf_cli_usage_error(CMD, "unknown option or "
						   "missing value: %s",
						   argv[optind - 1]);
		rc = parse_opt(c, a);
		if (rc != IBF_EXIT_OK)
			return rc;
	}
	return check_args(a, argc, argv);
}

/* At most five updates a second: shift on 11,664 hosts has 11,663
 * instances of a few milliseconds each. */
static void progress(void *arg, uint64_t done, uint64_t total)
{
	struct timespec ts;
	double *last = arg, t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	if (done < total && t - *last < 0.2)
		return;
	*last = t;
	fprintf(stderr, "\ribflow eval: %llu/%llu instances",
		(unsigned long long)done, (unsigned long long)total);
	if (done == total)
		fprintf(stderr, "\n");
	fflush(stderr);
}

/* --map FILE: the host list is the rank order. */
static int load_order(struct eval_args *a, const ibf_fabric_t *f,
		      ibf_hostlist_t *hl)
{
	ibf_err_t err;

	if (!a->map || !strcmp(a->map, "direct") ||
	    !strcmp(a->map, "random"))
		return IBF_EXIT_OK;
	ibf_err_clear(&err);
	if (ibf_hosts_read(f, a->map, hl, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	a->o.order = hl->ports;
	a->o.norder = hl->n;
	return IBF_EXIT_OK;
}

static int load_lfts(const struct eval_args *a, const ibf_fabric_t *f,
		     ibf_lfts_t **l, ibf_eval_routing_t *r)
{
	unsigned i;

	for (i = 0; i < a->nlfts; i++) {
		l[i] = ibf_cli_load_lfts(CMD, f, a->lfts[i]);
		if (!l[i])
			return IBF_EXIT_INPUT;
		r[i].name = a->lfts[i];
		r[i].lfts = l[i];
	}
	return IBF_EXIT_OK;
}

static int write_outputs(const struct eval_args *a, const ibf_eval_t *e)
{
	ibf_err_t err;

	ibf_err_clear(&err);
	if (e->opt_asked && !e->opt_done)
		fprintf(stderr, "ibflow %s: %s\n", CMD, e->opt_note);
	ibf_eval_print(e, a->json && !strcmp(a->json, "-") ? stderr : stdout);
	if (a->json && ibf_eval_write_json(e, a->json, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->flows && ibf_eval_write_flows(e, a->flows, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->plot && ibf_eval_plot(e, a->plot, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	return IBF_EXIT_OK;
}

static int run(struct eval_args *a)
{
	ibf_eval_routing_t r[MAX_LFTS];
	ibf_lfts_t *l[MAX_LFTS] = { NULL };
	ibf_hostlist_t hl = { NULL, 0 };
	ibf_eval_t *e = NULL;
	double last = 0.0;
	ibf_fabric_t *f;
	ibf_err_t err;
	unsigned i;
	int rc;

	f = ibf_cli_load_topo(CMD, a->topo, a->lmc);
	if (!f)
		return IBF_EXIT_INPUT;
	rc = load_lfts(a, f, l, r);
	if (rc == IBF_EXIT_OK)
		rc = load_order(a, f, &hl);
	if (rc == IBF_EXIT_OK) {
		if (isatty(2)) {
			a->o.progress = progress;
			a->o.progress_arg = &last;
		}
		ibf_err_clear(&err);
		if (ibf_eval_run(f, r, a->nlfts,
				 (const char *const *)a->specs, a->nspecs,
				 &a->o, &e, &err) != IBF_OK)
			rc = ibf_cli_fail(CMD, &err);
		else
			rc = write_outputs(a, e);
	}
	ibf_eval_destroy(e);
	ibf_hostlist_free(&hl);
	for (i = 0; i < a->nlfts; i++)
		ibf_lfts_destroy(l[i]);
	ibf_fabric_destroy(f);
	return rc;
}

int ibf_cmd_eval(int argc, char **argv)
{
	struct eval_args a;
	unsigned i;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = parse_args(argc, argv, &a);
	if (!rc)
		rc = run(&a);
	for (i = 0; i < a.nspecs; i++)
		free(a.specs[i]);
	return rc < 0 ? IBF_EXIT_OK : rc;
}
