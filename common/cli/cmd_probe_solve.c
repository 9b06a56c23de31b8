/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow probe-solve: link latencies and every pair's RTT from a plan's
 * measured round-trip times. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/probe.h>
#include <ibflow/prom.h>

#include "cli.h"

static const char *const CMD = "probe-solve";

struct solve_args {
	const char *plan, *rtt, *json, *topo, *lfts, *prom;
	unsigned lmc;
	double tol;
	ibf_probe_health_opts_t health;
	int model;	/* -1: the plan's */
};

/* Indexed by ibf_probe_model_t. */
static const char *const model_names[] = { "directed", "symmetric", NULL };

static bool parse_args(int argc, char **argv, struct solve_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_STR("plan", &a->plan, "FILE", "plan JSON written by "
			    "ibflow probe-plan", .required = true),
		IBF_OPT_STR("rtt", &a->rtt, "FILE", "measured RTTs, one \"A B "
			    "RTT\" per line", .required = true),
		IBF_OPT_JSON(&a->json, "the solution and the health verdict"),
		IBF_OPT_STR("prom", &a->prom, "FILE", "latencies and verdict "
			    "as Prometheus metrics\n(node_exporter textfile "
			    "collector; RTTs in us)"),
		IBF_OPT_REAL("threshold", &a->health.threshold, "K", 0.0,
			     INFINITY, "a link is suspect above its reference "
			     "+ K x scale", .def = "5"),
		IBF_OPT_REAL("expect-link", &a->health.expected_link, "T", 0.0,
			     INFINITY, "expected one-way latency of a link: "
			     "the\nreference instead of the peers' median",
			     .def_text = "unknown"),
		IBF_OPT_STR("topo", &a->topo, "FILE", "topology instead of the "
			    "one the plan names"),
		IBF_OPT_STR("lfts", &a->lfts, "FILE", "LFTs instead of the ones "
			    "the plan names"),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_REAL("tol", &a->tol, "X", 0.0, INFINITY, "residual above "
			     "which a measurement is\ninconsistent",
			     .def_text = "1e-6 x the largest RTT"),
		IBF_OPT_CHOICE("model", &a->model, "M", model_names, "directed "
			       "or symmetric link latencies", .def_text = "the "
			       "plan's"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.about =
"Compute link and aggregated-link latencies from measured round-trip\n"
"times (lines \"A B RTT\") and predict the RTT of every host pair.  The\n"
"plan (from probe-plan --json) names the hosts, the topology, the LFTs\n"
"and the model (directed when it names none).  Measurements may be any\n"
"pairs, repeated or more than the rank: the fit is then least squares,\n"
"and measurements whose residual exceeds the tolerance are flagged as\n"
"inconsistent.  Health: each aggregated link is compared with the others\n"
"of its kind (links between the same levels) by median and MAD, or with\n"
"--expect-link; suspects are listed with their excess and the\n"
"measurements that determine them (\"A B MIN MAX\" lines give each\n"
"measurement's noise).\n",
		.exit = "0 consistent and healthy, 1 inconsistent measurements "
			"flagged\nor suspect links, 2 bad usage or input.",
	};

	memset(a, 0, sizeof(*a));
	a->model = -1;
	return ibf_cli_parse(&cli, argc, argv, NULL, rc);
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
	fprintf(fp, "model %s\nmeasurements %u  rank %u  aggregated links "
		"%u\npairs predicted %zu of %zu\nresidual max %g  "
		"inconsistent measurements %u\n",
		ibf_probe_model_name(s->model), nm, s->rank, s->nagg, nd, np,
		s->residual_max, s->nflagged);
}

/* --json, --prom: the library's documents, behind ibf_cli_write_file(). */
struct json_ctx {
	const ibf_fabric_t *f;
	const ibf_hostlist_t *h;
	const ibf_probe_meas_t *m;
	const ibf_probe_solution_t *s;
	uint32_t nm;
	const ibf_probe_health_t *hl;
};

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct json_ctx *c = ctx;

	return ibf_probe_report_write_json(c->f, c->h, c->m, c->s, c->hl, fp,
					   err);
}

static ibf_status_t put_prom(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct json_ctx *c = ctx;

	return ibf_probe_health_write_prom(c->f, c->m, c->nm, c->s, c->hl, fp,
					   err);
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
	ibf_probe_health_t hl;
	uint32_t nm = 0;
	ibf_err_t err;
	struct json_ctx jc;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	memset(&s, 0, sizeof(s));
	memset(&hl, 0, sizeof(hl));
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
	    ibf_probe_solve_model(l, &h, a.model < 0 ? p.model :
				  (ibf_probe_model_t)a.model, m, nm, a.tol,
				  &s, &err) != IBF_OK ||
	    ibf_probe_health(l, &h, m, nm, &s, &a.health, &hl, &err) !=
	    IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
		goto out;
	}
	summary(ibf_cli_text_out(a.json), &s, nm);
	ibf_probe_health_write_text(f, &h, m, &s, &hl,
				    ibf_cli_text_out(a.json));
	jc = (struct json_ctx){ f, &h, m, &s, nm, &hl };
	if (a.json &&
	    (rc = ibf_cli_write_file(CMD, a.json, put_json, &jc)) != IBF_EXIT_OK)
		goto out;
	if (a.prom &&
	    (rc = ibf_cli_write_file(CMD, a.prom, put_prom, &jc)) != IBF_EXIT_OK)
		goto out;
	rc = s.nflagged || hl.nsuspects ? IBF_EXIT_DEFECT : IBF_EXIT_OK;
out:
	ibf_probe_health_free(&hl);
	ibf_probe_solution_free(&s);
	free(m);
	free(h.ports);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	ibf_probe_plan_file_free(&p);
	return rc;
}
