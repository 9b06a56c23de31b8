/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow route: run a routing engine offline and write its tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/labels_io.h>
#include <ibflow/pgft.h>
#include <ibflow/sl_io.h>

#include "cli.h"

static const char *const CMD = "route";

struct route_args {
	const char *topo, *engine, *out, *order, *sl, *report;
	const char *labels_in, *labels_out;
	unsigned lmc;
	bool lmc_given;
	int method;
	ibf_route_opts_t o;
};

/* In ibf_layer_method_t order: the index of the match is the value. */
static const char *const method_names[] = { "random", "overlap", NULL };

/* The engine lists of help and messages, from the engine table. */
struct engine_lists {
	char all[128];          /* "minhop, dmodk, ... or swisst1" */
	char labels[128];       /* "dmodk and uapr" */
	char labels_from[256], labels_out[256];
};

static void engine_lists(struct engine_lists *l)
{
	char pgft[64];

	ibf_route_engine_names(0, ", ", " or ", l->all, sizeof(l->all));
	ibf_route_engine_names(IBF_ROUTE_PGFT_LABELS, ", ", " and ",
			       l->labels, sizeof(l->labels));
	ibf_route_engine_names(IBF_ROUTE_PGFT_LABELS, ", ", ", ", pgft,
			       sizeof(pgft));
	snprintf(l->labels_from, sizeof(l->labels_from), "%s: keep the PGFT "
		 "labels of FILE\n(a labels file, docs/formats.md) where they "
		 "still fit", pgft);
	snprintf(l->labels_out, sizeof(l->labels_out), "%s: write the PGFT "
		 "labels to keep\n(merged with --labels-from: a node down "
		 "keeps its slot)", pgft);
}

/* The engine named and what it can do, after the options are read. */
static bool check_engine(const struct route_args *a,
			 const struct engine_lists *l, int *rc)
{
	if ((a->labels_in || a->labels_out) &&
	    !ibf_route_engine_can(a->engine, IBF_ROUTE_PGFT_LABELS)) {
		*rc = ibf_cli_usage_error(CMD, "--labels-from/--labels-out: "
					  "only %s label a PGFT", l->labels);
		return false;
	}
	if (!ibf_route_engine_find(a->engine)) {
		*rc = ibf_cli_usage_error(CMD, "--engine: unknown engine '%s' "
					  "(one of %s)", a->engine, l->all);
		return false;
	}
	return true;
}

static bool parse_args(int argc, char **argv, struct route_args *a, int *rc)
{
	struct engine_lists l;
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_STR("engine", &a->engine, "NAME", l.all,
			    .required = true),
		IBF_OPT_STR("output", &a->out, "FILE", "forwarding tables to "
			    "write (\"-\" = stdout)", .letter = 'o',
			    .required = true),
		IBF_OPT_UINT("lmc", &a->lmc, "N", 0, IBF_LMC_MAX, "LMC when the "
			     "topology carries no LIDs; a topology\nwith LIDs "
			     "keeps them and its LMC", .def = "0",
			     .seen = &a->lmc_given),
		IBF_OPT_STR("order-out", &a->order, "FILE", "host order the "
			    "engine wants ranks launched in"),
		IBF_OPT_STR("sl-out", &a->sl, "FILE", "SL of every route "
			    "(\"* DLID SL\" / \"SLID DLID SL\")"),
		IBF_OPT_STR("report", &a->report, "FILE", "JSON report: fabric, "
			    "engine, time, engine findings"),
		IBF_OPT_STR("labels-from", &a->labels_in, "FILE",
			    l.labels_from),
		IBF_OPT_STR("labels-out", &a->labels_out, "FILE",
			    l.labels_out),
		IBF_OPT_THREADS(&a->o.nthreads),
		IBF_OPT_UINT("layers", &a->o.layers, "N", 1, IBF_LAYERS_MAX,
			     "layers; needs 2^LMC >= N", .def_text = "2^LMC",
			     .section = "layered:"),
		IBF_OPT_REAL("density", &a->o.density, "R", 0.0, 1.0,
			     "edge density of layers 1..N-1"),
		IBF_OPT_CHOICE("method", &a->method, "M", method_names,
			       "random (uniform sampling) or overlap",
			       .def = "random"),
		IBF_OPT_U64("seed", &a->o.seed, "S", "random seed",
			    .def = "0"),
		IBF_OPT_UINT("vls", &a->o.vls, "V", 1, IBF_VLS_MAX,
			     "VLs the traffic may rely on: 1 = every "
			     "packet on one\nSL (MPI over UCX: UCX_IB_SL); "
			     "more only when the\napplications take each "
			     "route's SL (PathRecord)",
			     .def = IBF_OPT_NUM(IBF_ROUTE_VLS_DEFAULT)),
		IBF_OPT_UINT("max-vls", &a->o.vls, "V", 1, IBF_VLS_MAX,
			     "older name of --vls"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t spec = {
		.name = CMD,
		.about = "Compute forwarding tables for every switch: every LID "
			 "of every host (all\n2^LMC of them) and every switch "
			 "LID, in the opensm-lfts.dump format.\n",
		.exit = "0 routed, 2 bad usage, bad input or the engine "
			"refused.",
		.opts = opts,
	};

	engine_lists(&l);
	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&spec, argc, argv, NULL, rc))
		return false;
	a->o.method = (ibf_layer_method_t)a->method;
	return check_engine(a, &l, rc);
}

/* --report: the library's document, behind ibf_cli_write_file(). */
struct report_ctx {
	const ibf_routing_t *r;
	double secs;
};

static ibf_status_t put_report(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct report_ctx *c = ctx;

	return ibf_routing_write_report(c->r, c->secs, fp, err);
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
	if (a->labels_out && (!r->pgft_memory ||
			      ibf_labels_write_file(a->labels_out,
						    r->pgft_memory, &err) != IBF_OK))
		return r->pgft_memory ? ibf_cli_fail(CMD, &err) :
		       ibf_cli_usage_error(CMD, "--labels-out: out of memory");
	if (a->report) {
		struct report_ctx c = { r, secs };

		return ibf_cli_write_file(CMD, a->report, put_report, &c);
	}
	return IBF_EXIT_OK;
}

/* Labels that no longer fit are not an error: the routing is found
 * afresh, as the plugin does; say so. */
static void warn_labels_ignored(const struct route_args *a,
				const ibf_routing_t *r)
{
	const char *why = ibf_routing_report_str(r, "labels_ignored");

	if (a->labels_in && why)
		fprintf(stderr, "ibflow %s: warning: %s no longer fits the "
			"fabric (%s): labels found afresh\n", CMD,
			a->labels_in, why);
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
	ibf_pgft_memory_t *mem = NULL;
	ibf_routing_t *r = NULL;
	ibf_fabric_t *f;
	ibf_err_t err;
	double t0, secs;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
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
	if (a.labels_in &&
	    ibf_labels_read(a.labels_in, &mem, &err) != IBF_OK) {
		ibf_fabric_destroy(f);
		return ibf_cli_fail(CMD, &err);
	}
	a.o.pgft_memory = mem;
	t0 = now();
	if (ibf_route(f, a.engine, &a.o, &r, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
	} else {
		warn_labels_ignored(&a, r);
		secs = now() - t0;
		rc = write_outputs(&a, r, secs);
		if (rc == IBF_EXIT_OK && strcmp(a.out, "-"))
			printf("%s: %u switches, %u endpoints, LMC %u, %u SL%s, "
			       "%.3f s\n", r->engine, f->nswitches,
			       f->nendpoints, f->lmc, r->nsls,
			       r->nsls == 1 ? "" : "s", secs);
	}
	ibf_routing_destroy(r);
	ibf_pgft_memory_destroy(mem);
	ibf_fabric_destroy(f);
	return rc;
}
