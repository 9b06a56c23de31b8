/* ibflow probe-solve: link latencies and every pair's RTT from a plan's
 * measured round-trip times. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/probe.h>

#include "cli.h"

static const char *const CMD = "probe-solve";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow probe-solve --plan PLAN.json --rtt RTTFILE [options]\n"
"\n"
"Compute link and aggregated-link latencies from measured round-trip\n"
"times (lines \"A B RTT\") and predict the RTT of every host pair.  The\n"
"plan (from probe-plan --json) names the hosts, the topology and the\n"
"LFTs.  Measurements may be any pairs, repeated or more than the rank:\n"
"the fit is then least squares, and measurements whose residual exceeds\n"
"the tolerance are flagged as inconsistent.\n"
"\n"
"  --plan FILE   plan JSON written by ibflow probe-plan\n"
"  --rtt FILE    measured RTTs, one \"A B RTT\" per line\n"
"  --json FILE   write the solution as JSON (\"-\" = stdout)\n"
"  --topo T      topology instead of the one the plan names\n"
"  --lfts L      LFTs instead of the ones the plan names\n"
"  --lmc N       LMC when the topology carries no LIDs (default 0)\n"
"  --tol X       residual above which a measurement is inconsistent\n"
"                (default 1e-6 x the largest RTT)\n"
"  -h, --help    this text\n"
"\n"
"Exit status: 0 consistent, 1 inconsistent measurements flagged, 2 bad\n"
"usage or input.\n");
}

struct solve_args {
	const char *plan, *rtt, *json, *topo, *lfts;
	unsigned lmc;
	double tol;
};

static int parse_args(int argc, char **argv, struct solve_args *a)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "rtt", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "tol", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': a->plan = optarg; break;
		case 'r': a->rtt = optarg; break;
		case 'j': a->json = optarg; break;
		case 't': a->topo = optarg; break;
		case 'l': a->lfts = optarg; break;
		case 'm':
			rc = ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
						IBF_LMC_MAX, &a->lmc);
			break;
		case 'T':
			rc = ibf_cli_parse_real(CMD, "--tol", optarg, 0.0,
						INFINITY, &a->tol);
			if (rc != IBF_EXIT_OK)
				return rc;
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
	if (!a->plan || !a->rtt)
		return ibf_cli_usage_error(CMD, "--plan and --rtt are "
					   "required");
	return IBF_EXIT_OK;
}

static int plan_hosts(const ibf_fabric_t *f, const ibf_probe_plan_file_t *p,
		      const char *path, ibf_hostlist_t *h)
{
	uint32_t i;
	ibf_err_t err;

	h->ports = malloc(p->nhosts * sizeof(*h->ports));
	h->n = 0;
	if (!h->ports)
		return IBF_EXIT_INPUT;
	for (i = 0; i < p->nhosts; i++) {
		ibf_err_clear(&err);
		if (ibf_fabric_resolve_host(f, p->hosts[i], &h->ports[h->n],
					    &err) != IBF_OK) {
			fprintf(stderr, "ibflow %s: %s: host %u: %s\n", CMD,
				path, i + 1, err.msg);
			return IBF_EXIT_INPUT;
		}
		h->n++;
	}
	return IBF_EXIT_OK;
}

static void summary(FILE *fp, const ibf_probe_solution_t *s, uint32_t nm)
{
	size_t i, np = (size_t)s->nhosts * (s->nhosts - 1) / 2, nd = 0;

	for (i = 0; i < np; i++)
		nd += isfinite(s->pair_rtt[i]);
	fprintf(fp, "measurements %u  rank %u  aggregated links %u\n"
		"pairs predicted %zu of %zu\nresidual max %g  inconsistent "
		"measurements %u\n", nm, s->rank, s->nagg, nd, np,
		s->residual_max, s->nflagged);
}

static int write_json(const char *path, const ibf_fabric_t *f,
		      const ibf_hostlist_t *h, const ibf_probe_meas_t *m,
		      const ibf_probe_solution_t *s)
{
	ibf_ofile_t o;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (ibf_probe_solution_write_json(f, h, m, s, o.fp, &err) != IBF_OK) {
		ibf_ofile_abort(&o);
		return ibf_cli_fail(CMD, &err);
	}
	if (ibf_ofile_commit(&o, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	return IBF_EXIT_OK;
}

int ibf_cmd_probe_solve(int argc, char **argv)
{
	struct solve_args a;
	ibf_probe_plan_file_t p;
	ibf_fabric_t *f = NULL;
	ibf_lfts_t *l = NULL;
	ibf_hostlist_t h = { NULL, 0 };
	ibf_probe_meas_t *m = NULL;
	ibf_probe_solution_t s;
	uint32_t nm = 0;
	ibf_err_t err;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? IBF_EXIT_OK : rc;
	memset(&s, 0, sizeof(s));
	ibf_err_clear(&err);
	if (ibf_probe_plan_file_read(a.plan, &p, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (!a.topo)
		a.topo = p.topo;
	if (!a.lfts)
		a.lfts = p.lfts;
	if (!a.topo || !a.lfts) {
		rc = ibf_cli_usage_error(CMD, "the plan names no topology or "
					 "LFTs: give --topo and --lfts");
		goto out;
	}
	if (!(f = ibf_cli_load_topo(CMD, a.topo, a.lmc)) ||
	    !(l = ibf_cli_load_lfts(CMD, f, a.lfts)) ||
	    (rc = plan_hosts(f, &p, a.plan, &h)) != IBF_EXIT_OK) {
		rc = IBF_EXIT_INPUT;
		goto out;
	}
	if (ibf_probe_rtt_read(f, &h, a.rtt, &m, &nm, &err) != IBF_OK ||
	    ibf_probe_solve(l, &h, m, nm, a.tol, &s, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
		goto out;
	}
	summary(a.json && !strcmp(a.json, "-") ? stderr : stdout, &s, nm);
	if (a.json && (rc = write_json(a.json, f, &h, m, &s)) != IBF_EXIT_OK)
		goto out;
	rc = s.nflagged ? IBF_EXIT_DEFECT : IBF_EXIT_OK;
out:
	ibf_probe_solution_free(&s);
	free(m);
	free(h.ports);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	ibf_probe_plan_file_free(&p);
	return rc;
}
