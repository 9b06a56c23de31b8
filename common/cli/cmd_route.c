/* ibflow route: run a routing engine offline and write its tables. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/sl.h>

#include "cli.h"

static const char *const CMD = "route";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow route --topo FILE --engine NAME -o LFTS [options]\n"
"\n"
"Compute forwarding tables for every switch: every LID of every host (all\n"
"2^LMC of them) and every switch LID, in the opensm-lfts.dump format.\n"
"\n"
"  --topo FILE        topology (ibnetdiscover, ibsim net, opensm-subnet.lst)\n"
"  --engine NAME      minhop, dmodk, uapr or layered\n"
"  -o, --out FILE     forwarding tables to write (\"-\" = stdout)\n"
"  --lmc N            LMC when the topology carries no LIDs (default 0);\n"
"                     a topology with LIDs keeps them and its LMC\n"
"  --order-out FILE   host order the engine wants ranks launched in\n"
"  --sl-out FILE      SL of every route (\"* DLID SL\" / \"SLID DLID SL\")\n"
"  --report FILE      JSON report: fabric, engine, time, engine findings\n"
"  --threads N        worker threads (default 1)\n"
"layered:\n"
"  --layers N         layers (default 2^LMC; needs 2^LMC >= N)\n"
"  --density R        edge density of layers 1..N-1, in (0, 1]\n"
"  --method M         random (uniform sampling) or overlap\n"
"  --seed S           random seed (default 0)\n"
"  --max-vls V        VLs available for deadlock freedom (default 8)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 routed, 2 bad usage, bad input or the engine refused.\n");
}

struct route_args {
	const char *topo, *engine, *out, *order, *sl, *report;
	unsigned lmc, threads;
	bool lmc_given;
	ibf_route_opts_t o;
};

/* In ibf_layer_method_t order: the index of the match is the value. */
static const char *const method_names[] = { "random", "overlap", NULL };

static int parse_opt(int c, struct route_args *a)
{
	int rc, v;

	switch (c) {
	case 't': a->topo = optarg; return IBF_EXIT_OK;
	case 'e': a->engine = optarg; return IBF_EXIT_OK;
	case 'o': a->out = optarg; return IBF_EXIT_OK;
	case 'O': a->order = optarg; return IBF_EXIT_OK;
	case 'S': a->sl = optarg; return IBF_EXIT_OK;
	case 'R': a->report = optarg; return IBF_EXIT_OK;
	case 'm':
		a->lmc_given = true;
		return ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
					  IBF_LMC_MAX, &a->lmc);
	case 'T':
		return ibf_cli_parse_uint(CMD, "--threads", optarg, 1, 64,
					  &a->o.nthreads);
	case 'L':
		return ibf_cli_parse_uint(CMD, "--layers", optarg, 1, 128,
					  &a->o.layers);
	case 'd':
		return ibf_cli_parse_real(CMD, "--density", optarg, 0.0, 1.0,
					  &a->o.density);
	case 'M':
		rc = ibf_cli_parse_choice(CMD, "--method", optarg, method_names,
					  &v);
		if (rc == IBF_EXIT_OK)
			a->o.method = (ibf_layer_method_t)v;
		return rc;
	case 's':
		return ibf_cli_parse_u64(CMD, "--seed", optarg, &a->o.seed);
	case 'V':
		return ibf_cli_parse_uint(CMD, "--max-vls", optarg, 1, 15,
					  &a->o.max_vls);
	}
	return ibf_cli_usage_error(CMD, "unknown option or missing value");
}

static int parse_args(int argc, char **argv, struct route_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "engine", required_argument, NULL, 'e' },
		{ "out", required_argument, NULL, 'o' },
		{ "order-out", required_argument, NULL, 'O' },
		{ "sl-out", required_argument, NULL, 'S' },
		{ "report", required_argument, NULL, 'R' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 'T' },
		{ "layers", required_argument, NULL, 'L' },
		{ "density", required_argument, NULL, 'd' },
		{ "method", required_argument, NULL, 'M' },
		{ "seed", required_argument, NULL, 's' },
		{ "max-vls", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
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
	if (optind < argc)
		return ibf_cli_usage_error(CMD, "unexpected argument '%s'",
					   argv[optind]);
	if (!a->topo || !a->engine || !a->out)
		return ibf_cli_usage_error(CMD, "--topo, --engine and -o are "
					   "required");
	if (!ibf_route_engine_find(a->engine))
		return ibf_cli_usage_error(CMD, "--engine: unknown engine '%s' "
					   "(minhop, dmodk, uapr, layered)",
					   a->engine);
	return IBF_EXIT_OK;
}

static int write_report(const struct route_args *a, ibf_routing_t *r,
			double secs)
{
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_routing_write_report(r, secs, a->report, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	return IBF_EXIT_OK;
}

static int write_outputs(const struct route_args *a, ibf_routing_t *r,
			 double secs)
{
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_lfts_write_file(r->lfts, a->out, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->order && ibf_routing_write_order(r, a->order, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->sl && ibf_routing_write_sl(r, a->sl, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->report)
		return write_report(a, r, secs);
	return IBF_EXIT_OK;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ibf_cmd_route(int argc, char **argv)
{
	struct route_args a;
	ibf_routing_t *r = NULL;
	ibf_fabric_t *f;
	ibf_err_t err;
	double t0, secs;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? IBF_EXIT_OK : rc;
	f = ibf_cli_load_topo(CMD, a.topo, a.lmc);
	if (!f)
		return IBF_EXIT_INPUT;
	/* Only a file without LIDs takes --lmc; silently routing another
	 * LMC than asked would give tables for LIDs nobody expects. */
	if (a.lmc_given && f->nlid_ports && f->lmc != a.lmc) {
		fprintf(stderr, "ibflow %s: %s carries LIDs with LMC %u; "
			"--lmc %u cannot change them (drop --lmc, or use a "
			"topology without LIDs)\n", CMD, a.topo, f->lmc,
			a.lmc);
		ibf_fabric_destroy(f);
		return IBF_EXIT_INPUT;
	}
	ibf_err_clear(&err);
	t0 = now();
	if (ibf_route(f, a.engine, &a.o, &r, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
	} else {
		secs = now() - t0;
		rc = write_outputs(&a, r, secs);
		if (rc == IBF_EXIT_OK && strcmp(a.out, "-"))
			printf("%s: %u switches, %u endpoints, LMC %u, %u SL%s, "
			       "%.3f s\n", r->engine, f->nswitches,
			       f->nendpoints, f->lmc, r->nsls,
			       r->nsls == 1 ? "" : "s", secs);
	}
	ibf_routing_destroy(r);
	ibf_fabric_destroy(f);
	return rc;
}
