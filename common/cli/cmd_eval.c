/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow eval: max-min fair evaluation of routings on traffic patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <math.h>

#include <ibflow/deadlock.h>
#include <ibflow/eval.h>
#include <ibflow/hosts.h>
#include <ibflow/prom.h>

#include "cli.h"

static const char *const CMD = "eval";

#define MAX_LFTS 32u
#define MAX_PATTERNS 256u

struct eval_args {
	const char *topo, *map, *json, *flows, *plot, *prom;
	const char *lfts[MAX_LFTS];
	unsigned nlfts;
	char *specs[MAX_PATTERNS];
	unsigned nspecs;
	unsigned lmc, threads;
	int paths, algo;
	ibf_eval_opts_t o;
};

/* --patterns: split a comma-separated list into a->specs (copies). */
static int add_patterns(void *target, const char *cmd, const char *list)
{
	struct eval_args *a = target;
	const char *s = list, *c;
	size_t n;

	for (;;) {
		c = strchr(s, ',');
		n = c ? (size_t)(c - s) : strlen(s);
		if (!n)
			return ibf_cli_usage_error(cmd, "--patterns: empty "
						   "pattern in '%s'", list);
		if (a->nspecs == MAX_PATTERNS)
			return ibf_cli_usage_error(cmd, "--patterns: more "
						   "than %u patterns",
						   MAX_PATTERNS);
		a->specs[a->nspecs] = strndup(s, n);
		if (!a->specs[a->nspecs])
			return ibf_cli_usage_error(cmd, "out of memory");
		a->nspecs++;
		if (!c)
			return IBF_EXIT_OK;
		s = c + 1;
	}
}

/* --lfts: repeatable. */
static int add_lfts(void *target, const char *cmd, const char *path)
{
	struct eval_args *a = target;

	if (a->nlfts == MAX_LFTS)
		return ibf_cli_usage_error(cmd, "more than %u --lfts",
					   MAX_LFTS);
	a->lfts[a->nlfts++] = path;
	return IBF_EXIT_OK;
}

/* In enum order: the index of the match is the value. */
static const char *const path_names[] = { "single", "lmc", "layers", NULL };
static const char *const algo_names[] = { "fast", "ref", NULL };

static bool parse_args(int argc, char **argv, struct eval_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_CALL("lfts", add_lfts, a, "FILE", "forwarding tables; "
			     "repeat to compare routings", .required = true),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_CALL("patterns", add_patterns, a, "LIST",
			     "comma-separated specs (repeatable):\n"
			     "perm[:K] shift[:K] bisect[:K] 2dnn[:K] "
			     "2dnndiag[:K]\n3dnn[:K] 3dnndiag[:K] randn:D[:K] "
			     "random:D[:K]\nalltoall file:PATH   (K instances, "
			     "default 1)", .required = true),
		IBF_OPT_CHOICE("paths", &a->paths, "MODE", path_names,
			       "single (base LID), lmc (even split over\nthe "
			       "2^LMC LIDs), layers (same as lmc, for\nlayered "
			       "routing: LID offset o is layer o mod n)",
			       .def = "single"),
		IBF_OPT_STR("map", &a->map, "MAP", "rank placement: direct (the "
			    "topology's host\norder), random (seeded shuffle), "
			    "or a host list\nfile giving the rank order (e.g. "
			    "route --order-out)", .def = "direct"),
		IBF_OPT_PATTERN_SEED(&a->o.seed),
		IBF_OPT_FLAG("opt", &a->o.opt, "also the MMF multi-commodity-flow "
			     "optimum (exact on\nPGFTs; elsewhere said not "
			     "computed)"),
		IBF_OPT_JSON(&a->json, "the results"),
		IBF_OPT_STR("flows", &a->flows, "FILE", "per-flow rates, CSV: "
			    "pattern,instance,src,dst,\nrate[,opt_rate] (a "
			    "routing column first with\nseveral --lfts)"),
		IBF_OPT_STR("prom", &a->prom, "FILE", "the results as Prometheus "
			    "metrics (node_exporter\ntextfile collector: a "
			    "*.prom file)"),
		IBF_OPT_STR("plot", &a->plot, "FILE", "SVG bar chart of the "
			    "indices (needs gnuplot)"),
		IBF_OPT_THREADS(&a->threads),
		IBF_OPT_CHOICE("algo", &a->algo, "A", algo_names, "fast or ref "
			       "(reference water-filling)", .def = "fast"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "--topo FILE --lfts FILE [--lfts FILE ...] --patterns "
			 "LIST\n                   [options]",
		.about =
"Max-min fair (MMF) rates of the flows of traffic patterns over the routes\n"
"of one or more routings, and the LFTI throughput index: aggregate rate\n"
"normalised to the same flows on a crossbar (1 = as good as a crossbar).\n"
"Prints a table routing x pattern: flows, index, (with --opt) the\n"
"optimum's index and index/optimum, minimum and median flow rate, the\n"
"worst link load (max_load: most flows on one directed link in any\n"
"instance; split flows count their fraction), solver seconds.\n",
		.exit = "0 ok (also a fabric of fewer than two host ports: "
			"nothing to evaluate,\nsaid on stderr), 2 bad usage "
			"or bad input (bad pattern, host not "
			"in the\ntopology, a pair the tables do not route, "
			"gnuplot not found).",
	};
	ibf_err_t err;

	if (!ibf_cli_parse(&cli, argc, argv, NULL, rc))
		return false;
	/* Before any work: a plot that cannot be drawn is bad usage. */
	ibf_err_clear(&err);
	if (a->plot && ibf_cli_plot_check(&err) != IBF_OK) {
		*rc = ibf_cli_fail(CMD, &err);
		return false;
	}
	a->o.paths = (ibf_eval_paths_t)a->paths;
	a->o.algo = (ibf_eval_algo_t)a->algo;
	a->o.nthreads = a->threads;
	a->o.keep_flows = a->flows != NULL;
	a->o.random_map = a->map && !strcmp(a->map, "random");
	return true;
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

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
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

static ibf_status_t put_json(const void *e, FILE *fp, ibf_err_t *err)
{
	return ibf_eval_write_json(e, fp, err);
}

static ibf_status_t put_flows(const void *e, FILE *fp, ibf_err_t *err)
{
	return ibf_eval_write_flows(e, fp, err);
}

/* --prom: per routing its patterns' results and the deadlock verdict of
 * its tables on one VL, as the OpenSM plugin writes them. */
struct prom_ctx {
	const ibf_eval_t *e;
	const ibf_eval_routing_t *r;
	unsigned nr;
	double seconds;
};

static ibf_status_t put_prom(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct prom_ctx *c = ctx;
	const ibf_eval_t *e = c->e;
	ibf_prom_routing_t m[MAX_LFTS];
	ibf_prom_pattern_t *pat;
	ibf_status_t st = IBF_OK;
	unsigned r, i;

	pat = calloc((size_t)c->nr * e->npatterns + 1, sizeof(*pat));
	if (!pat)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	for (r = 0; st == IBF_OK && r < c->nr; r++) {
		ibf_deadlock_report_t dr;

		ibf_prom_routing_init(&m[r]);
		m[r].engine = c->r[r].name;
		m[r].endpoints = e->fabric->nendpoints;
		m[r].switches = e->fabric->nswitches;
		m[r].eval_seconds = c->seconds;
		m[r].patterns = pat + (size_t)r * e->npatterns;
		m[r].npatterns = e->npatterns;
		for (i = 0; i < e->npatterns; i++) {
			const ibf_eval_result_t *x = ibf_eval_result(e, r, i);
			ibf_prom_pattern_t *p = &pat[(size_t)r *
						     e->npatterns + i];

			p->name = e->pattern_name[i];
			p->index = x->index;
			p->ratio = x->has_opt ? x->ratio : NAN;
			p->max_link_load = x->max_link_load;
		}
		if ((st = ibf_deadlock_check(c->r[r].lfts, NULL, NULL, &dr,
					     err)) == IBF_OK) {
			m[r].deadlock_free = !ibf_deadlock_found(&dr);
			m[r].vls = dr.nvls;
			ibf_deadlock_report_free(&dr);
		}
	}
	if (st == IBF_OK)
		st = ibf_prom_routing_write(m, c->nr, fp, err);
	free(pat);
	return st;
}

static int write_outputs(const struct eval_args *a, const ibf_eval_t *e,
			 const ibf_eval_routing_t *r, double seconds)
{
	const struct prom_ctx pc = { e, r, a->nlfts, seconds };
	ibf_err_t err;
	int rc = IBF_EXIT_OK;

	if (e->opt_asked && !e->opt_done)
		fprintf(stderr, "ibflow %s: %s\n", CMD, e->opt_note);
	ibf_cli_eval_table(e, ibf_cli_text_out(a->json));
	if (a->json)
		rc = ibf_cli_write_file(CMD, a->json, put_json, e);
	if (rc == IBF_EXIT_OK && a->flows)
		rc = ibf_cli_write_file(CMD, a->flows, put_flows, e);
	if (rc == IBF_EXIT_OK && a->prom)
		rc = ibf_cli_write_file(CMD, a->prom, put_prom, &pc);
	ibf_err_clear(&err);
	if (rc == IBF_EXIT_OK && a->plot &&
	    ibf_cli_eval_plot(e, a->plot, &err) != IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	return rc;
}

static int run(struct eval_args *a)
{
	ibf_eval_routing_t r[MAX_LFTS];
	ibf_lfts_t *l[MAX_LFTS] = { NULL };
	ibf_hostlist_t hl = { NULL, 0 };
	ibf_eval_t *e = NULL;
	double last = 0.0, t0;
	ibf_fabric_t *f;
	ibf_err_t err;
	unsigned i;
	int rc;

	f = ibf_cli_load_topo(CMD, a->topo, a->lmc);
	if (!f)
		return IBF_EXIT_INPUT;
	if (f->nendpoints < 2) {
		/* every pattern needs a sender and a receiver */
		fprintf(stderr, "ibflow %s: nothing to evaluate: %s has %u "
			"host port%s, traffic needs two\n", CMD, a->topo,
			f->nendpoints, f->nendpoints == 1 ? "" : "s");
		ibf_fabric_destroy(f);
		return IBF_EXIT_OK;
	}
	rc = load_lfts(a, f, l, r);
	if (rc == IBF_EXIT_OK)
		rc = load_order(a, f, &hl);
	if (rc == IBF_EXIT_OK) {
		if (isatty(2)) {
			a->o.progress = progress;
			a->o.progress_arg = &last;
		}
		ibf_err_clear(&err);
		t0 = now_seconds();
		if (ibf_eval_run(f, r, a->nlfts,
				 (const char *const *)a->specs, a->nspecs,
				 &a->o, &e, &err) != IBF_OK)
			rc = ibf_cli_fail(CMD, &err);
		else
			rc = write_outputs(a, e, r, now_seconds() - t0);
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
	if (parse_args(argc, argv, &a, &rc))
		rc = run(&a);
	for (i = 0; i < a.nspecs; i++)
		free(a.specs[i]);
	return rc;
}
