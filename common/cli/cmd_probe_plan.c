/* ibflow probe-plan: a minimal set of latency probes, in few rounds. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/probe.h>

#include "cli.h"

static const char *const CMD = "probe-plan";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow probe-plan --topo T --lfts L --hosts HOSTFILE [options]\n"
"\n"
"Choose host pairs whose round-trip times determine every measurable link\n"
"latency (a maximal linearly independent set, rank decided exactly) and\n"
"pack them into rounds in which no two probes share a host or a directed\n"
"link.  Prints rank, pairs, rounds and the lower bound\n"
"ceil(pairs / floor(hosts / 2)).\n"
"\n"
"  --topo T        topology (ibnetdiscover, ibsim net, opensm-subnet.lst)\n"
"  --lfts L        forwarding tables (opensm-lfts.dump, ibroute output)\n"
"  --hosts FILE    hosts to probe among, one per line\n"
"  --json FILE     write the plan as JSON (\"-\" = stdout); probe-solve\n"
"                  reads it\n"
"  --lmc N         LMC when the topology carries no LIDs (default 0)\n"
"  --tries N       partners a host tries per pass (default 64)\n"
"  -h, --help      this text\n"
"\n"
"Exit status: 0 ok, 2 bad usage or input (e.g. a broken route).\n");
}

struct plan_args {
	const char *topo, *lfts, *hosts, *json;
	unsigned lmc, tries;
};

static int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "json", required_argument, NULL, 'j' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "tries", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->topo = optarg; break;
		case 'l': a->lfts = optarg; break;
		case 'H': a->hosts = optarg; break;
		case 'j': a->json = optarg; break;
		case 'm':
			rc = ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
						IBF_LMC_MAX, &a->lmc);
			break;
		case 'T':
			rc = ibf_cli_parse_uint(CMD, "--tries", optarg, 1,
						1u << 20, &a->tries);
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return ibf_cli_usage_error(CMD, "unknown option or "
						   "missing value: %s",
						   argv[optind - 1]);
		}
		if (rc)
			return rc;
	}
	if (optind != argc)
		return ibf_cli_usage_error(CMD, "unexpected argument '%s'",
					   argv[optind]);
	if (!a->topo || !a->lfts || !a->hosts)
		return ibf_cli_usage_error(CMD, "--topo, --lfts and --hosts "
					   "are required");
	return IBF_EXIT_OK;
}

/* The plan names its inputs so probe-solve can trace every pair again. */
static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	return r ? r : strdup(p);
}

static int write_json(const struct plan_args *a, const ibf_fabric_t *f,
		      const ibf_hostlist_t *h, const ibf_probe_plan_t *p)
{
	char *topo = abs_path(a->topo), *lfts = abs_path(a->lfts);
	ibf_ofile_t o;
	ibf_err_t err;
	int rc = IBF_EXIT_OK;

	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, a->json, &err) != IBF_OK ||
	    ibf_probe_plan_write_json(f, h, p, topo, lfts, o.fp, &err) !=
	    IBF_OK) {
		if (o.fp)
			ibf_ofile_abort(&o);
		rc = ibf_cli_fail(CMD, &err);
	} else if (ibf_ofile_commit(&o, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
	}
	free(topo);
	free(lfts);
	return rc;
}

int ibf_cmd_probe_plan(int argc, char **argv)
{
	struct plan_args a;
	ibf_fabric_t *f = NULL;
	ibf_lfts_t *l = NULL;
	ibf_hostlist_t h = { NULL, 0 };
	ibf_probe_plan_t p;
	ibf_probe_opts_t o = { 0 };
	ibf_err_t err;
	FILE *txt;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? IBF_EXIT_OK : rc;
	o.tries = a.tries;
	ibf_err_clear(&err);
	memset(&p, 0, sizeof(p));
	if (!(f = ibf_cli_load_topo(CMD, a.topo, a.lmc)) ||
	    !(l = ibf_cli_load_lfts(CMD, f, a.lfts))) {
		rc = IBF_EXIT_INPUT;
		goto out;
	}
	if (ibf_hosts_read(f, a.hosts, &h, &err) != IBF_OK ||
	    ibf_probe_plan(l, &h, &o, &p, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
		goto out;
	}
	txt = a.json && !strcmp(a.json, "-") ? stderr : stdout;
	fprintf(txt, "hosts %u  directed links %u\nrank %u  pairs %u  "
		"rounds %u  lower bound %u\nplanned in %.3f s (%llu pairs "
		"tested)\n", h.n, p.nlinks, p.rank, p.npairs, p.nrounds,
		p.lower_bound, p.time_s, (unsigned long long)p.tested);
	if (a.json)
		rc = write_json(&a, f, &h, &p);
out:
	ibf_probe_plan_free(&p);
	ibf_hostlist_free(&h);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return rc;
}
