/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow probe-plan: a minimal set of latency probes, in few rounds. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/probe.h>

#include "cli.h"

static const char *const CMD = "probe-plan";

struct plan_args {
	const char *topo, *lfts, *hosts, *json;
	unsigned lmc, tries;
	int model;
};

/* Indexed by ibf_probe_model_t. */
static const char *const model_names[] = { "directed", "symmetric", NULL };

static bool parse_args(int argc, char **argv, struct plan_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_STR("hosts", &a->hosts, "FILE", "hosts to probe among, "
			    "one per line", .required = true),
		IBF_OPT_JSON(&a->json, "the plan"),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_UINT("tries", &a->tries, "N", 1, 1u << 20, "partners a "
			     "host tries per pass",
			     .def = IBF_OPT_NUM(IBF_PROBE_TRIES_DEFAULT)),
		IBF_OPT_CHOICE("model", &a->model, "M", model_names, "directed "
			       "links, or links with one\nlatency both ways "
			       "(symmetric)", .def = "directed"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.about =
"Choose host pairs whose round-trip times determine every measurable link\n"
"latency (a maximal linearly independent set, rank decided exactly) and\n"
"pack them into rounds in which no two probes share a host or a directed\n"
"link.  Prints rank, pairs, rounds and the lower bound\n"
"ceil(pairs / floor(hosts / 2)).  probe-solve reads the plan --json writes\n"
"(it records the model).  --model symmetric takes a link's latency to be\n"
"the same both ways (fewer probes; wrong where the two directions differ).\n",
		.exit = "0 ok, 2 bad usage or input (e.g. a broken route).",
	};

	memset(a, 0, sizeof(*a));
	return ibf_cli_parse(&cli, argc, argv, NULL, rc);
}

/* The plan names its inputs so probe-solve can trace every pair again. */
static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);

	return r ? r : strdup(p);
}

/* --json: the library's document, behind ibf_cli_write_file(). */
struct json_ctx {
	const ibf_fabric_t *f;
	const ibf_hostlist_t *h;
	const ibf_probe_plan_t *p;
	const char *topo, *lfts;
};

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct json_ctx *c = ctx;

	return ibf_probe_plan_write_json(c->f, c->h, c->p, c->topo, c->lfts,
					 fp, err);
}

static int write_json(const struct plan_args *a, const ibf_fabric_t *f,
		      const ibf_hostlist_t *h, const ibf_probe_plan_t *p)
{
	struct json_ctx c = { f, h, p, abs_path(a->topo), abs_path(a->lfts) };
	int rc = ibf_cli_write_file(CMD, a->json, put_json, &c);

	free((char *)c.topo);
	free((char *)c.lfts);
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
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	o.tries = a.tries;
	o.model = (ibf_probe_model_t)a.model;
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
	txt = ibf_cli_text_out(a.json);
	fprintf(txt, "hosts %u  %s links %u\nrank %u  pairs %u  "
		"rounds %u  lower bound %u\nplanned in %.3f s (%llu pairs "
		"tested)\n", h.n, ibf_probe_model_name(p.model), p.nlinks,
		p.rank, p.npairs, p.nrounds, p.lower_bound, p.time_s,
		(unsigned long long)p.tested);
	if (a.json)
		rc = write_json(&a, f, &h, &p);
out:
	ibf_probe_plan_free(&p);
	ibf_hostlist_free(&h);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return rc;
}
