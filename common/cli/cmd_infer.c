/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow infer: a tree topology inferred from RTTs (docs/infer.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ibflow/gen.h>
#include <ibflow/infer.h>

#include "cli.h"

static const char *const CMD = "infer";

struct args {
	const char *rtt, *synth, *out, *dot, *json, *trace, *truth, *bw;
	double tol;
	bool has_tol;
	int model;
	unsigned lmc;
	ibf_infer_opts_t io;
	ibf_infer_synth_opts_t so;
};

/* A real >= 0 (tol, jitter, noise, overhead). */
static int nonneg(void *target, const char *cmd, const char *v)
{
	double *out = target;
	int rc = ibf_cli_parse_real(cmd, "value", v, -INFINITY, INFINITY,
				    out);

	if (rc == IBF_EXIT_OK && *out < 0)
		return ibf_cli_usage_error(cmd, "'%s' is negative", v);
	return rc;
}

/* --overhead 0 means none (0 in the options means the default). */
static int overhead(void *target, const char *cmd, const char *v)
{
	double *out = target;
	int rc = nonneg(target, cmd, v);

	if (rc == IBF_EXIT_OK && *out == 0)
		*out = -1;
	return rc;
}

/* --latency L1,L2,.. */
static int latency(void *target, const char *cmd, const char *arg)
{
	ibf_infer_synth_opts_t *so = target;
	const char *s = arg;

	so->nlatency = 0;
	while (*s) {
		char *e;
		double v = strtod(s, &e);

		if (e == s || !(v > 0) || !isfinite(v) ||
		    so->nlatency == IBF_INFER_SYNTH_LEVELS ||
		    (*e && *e != ','))
			return ibf_cli_usage_error(cmd, "--latency '%s': up to "
						   "%d positive numbers, "
						   "comma-separated", arg,
						   IBF_INFER_SYNTH_LEVELS);
		so->latency[so->nlatency++] = v;
		s = *e ? e + 1 : e;
	}
	return so->nlatency ? IBF_EXIT_OK :
	       ibf_cli_usage_error(cmd, "--latency is empty");
}

static const char *const model_names[] = { "uniform", "pingpong", NULL };

static bool parse_args(int argc, char **argv, struct args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_STR("rtt", &a->rtt, "FILE", "measured RTTs, lines \"A B "
			    "RTT\" or \"A B MIN MAX\""),
		IBF_OPT_STR("synth", &a->synth, "TOPO", "measure a topology (file "
			    "or generator spec) with\nthe synthetic oracle "
			    "below instead"),
		IBF_OPT_STR("output", &a->out, "FILE", "inferred topology, "
			    "ibnetdiscover format", .letter = 'o'),
		IBF_OPT_STR("dot", &a->dot, "FILE", "inferred tree, Graphviz, "
			    "one-way latencies"),
		IBF_OPT_JSON(&a->json, "tree, counts, times and accuracy"),
		IBF_OPT_STR("trace", &a->trace, "FILE", "the pairs measured: an "
			    "RTT file that replays\nthe run"),
		IBF_OPT_CALL("tol", nonneg, &a->tol, "X", "coincidence radius in "
			     "RTT units: half the RTT\nof the smallest hop; 0 = "
			     "the measured intervals\nalone (the paper)",
			     .def_text = "estimated with --rtt, the truth's "
					 "with --synth",
			     .seen = &a->has_tol),
		IBF_OPT_CALL("lookahead", ibf_cli_opt_lookahead, &a->io.lookahead, "N",
			     "close-host search budget per host: 0 = none,\n"
			     "\"all\" = the paper's unbounded search",
			     .def = IBF_OPT_NUM(IBF_INFER_LOOKAHEAD_DEFAULT)),
		IBF_OPT_UINT("parallel", &a->io.parallel, "N", 1,
			     IBF_INFER_PARALLEL_MAX, "hosts inserted at once, "
			     "a pair starting\nwhen it shares no host and no "
			     "tree link\nwith those in flight; 1 = one pair at "
			     "a time",
			     .def = IBF_OPT_NUM(IBF_INFER_PARALLEL_DEFAULT)),
		IBF_OPT_UINT("in-flight", &a->io.max_in_flight, "N", 0,
			     IBF_INFER_PARALLEL_MAX, "at most N pairs in flight "
			     "at once (hosts\nthat share a few CPUs); 0 = no "
			     "limit", .def = "0"),
		IBF_OPT_UINT("lmc", &a->lmc, "N", 0, IBF_LMC_MAX, "LMC of the "
			     "inferred topology's LIDs, and\nof topologies read "
			     "without LIDs", .def = "0"),
		IBF_OPT_FLAG("raw", &a->io.raw_lengths, "no least-squares refits "
			     "of the latencies"),
		IBF_OPT_STR("truth", &a->truth, "TOPO", "true topology of the "
			    "--rtt hosts: report false\nrates"),
		IBF_OPT_STR("bw-plan", &a->bw, "FILE", "bandwidth map plan "
			    "(JSON): stages of measurements\nsharing no link; "
			    "measured and checked where the\ntruth is known"),
		IBF_OPT_U64("seed", &a->io.seed, "N", "seed of the search and of "
			    "the synthetic\noracle", .def = "0"),
		IBF_OPT_CALL("latency", latency, &a->so, "L,..", "one-way "
			     "latency of links at level 1 (hosts),\n2, ...; the "
			     "last repeats upwards", .def = "1,0.25",
			     .section = "synthetic oracle (--synth; "
					"microseconds):"),
		IBF_OPT_CALL("jitter", nonneg, &a->so.jitter, "J", "latencies "
			     "times 1 + J*U[0,1)", .def = "0"),
		IBF_OPT_CALL("noise", nonneg, &a->so.noise, "E", "RTT error: "
			     "uniform in [-E, E], or the scale\nof the "
			     "ping-pong model's delays", .def = "0"),
		IBF_OPT_CHOICE("model", &a->model, "M", model_names, "uniform, or "
			       "pingpong (3 rounds, best and worst)",
			       .def = "uniform"),
		IBF_OPT_CALL("overhead", overhead, &a->so.overhead, "US",
			     "time charged per measurement besides its\nround "
			     "trips", .def = "20"),
		IBF_OPT_FLAG("sleep", &a->so.sleep, "really wait the charged "
			     "time"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "--rtt FILE | --synth TOPO [options]",
		.about =
"Infer the tree of switches among hosts from round-trip times (Shirai,\n"
"Saito, Taura, HPDC'07): hosts are inserted one by one, each placed by\n"
"the branching points of (A, B, H).  Hosts keep their names, inferred\n"
"switches are named infer-sN.  Prints the pairs measured per host\n"
"against the paper's bound p(d-1)+1 and, when the truth is known, the\n"
"false rates of \"do A-B and C-D share a link?\".\n",
		.exit = "0 ok, 2 bad usage or input.",
	};

	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&cli, argc, argv, NULL, rc))
		return false;
	a->so.model = (ibf_infer_noise_t)a->model;
	a->so.seed = a->io.seed;
	if (!a->rtt == !a->synth) {
		*rc = ibf_cli_usage_error(CMD, "one of --rtt and --synth is "
					  "required");
		return false;
	}
	if (a->synth && a->truth) {
		*rc = ibf_cli_usage_error(CMD, "--truth goes with --rtt "
					  "(--synth knows its truth)");
		return false;
	}
	return true;
}

/* The hosts, their oracle, and what the truth is where known. */
struct source {
	ibf_rtt_set_t set;
	ibf_infer_table_t *table;
	ibf_infer_synth_t *synth;
	ibf_fabric_t *truth;
	ibf_infer_oracle_t o;
	const char *const *names;
	uint32_t *hops;     /* true hop metric, or NULL */
	ibf_port_id_t *ports; /* the hosts' ports in the truth */
	double *measured;   /* RTTs for the ratios */
};

static ibf_fabric_t *load_fabric(const char *arg, unsigned lmc)
{
	ibf_gen_opts_t go = { .lmc = lmc };
	ibf_fabric_t *f = NULL;
	ibf_err_t err;

	/* A generator spec when no such file exists. */
	if (access(arg, F_OK) == 0 || !strchr(arg, ':'))
		return ibf_cli_load_topo(CMD, arg, lmc);
	ibf_err_clear(&err);
	if (ibf_gen(arg, &go, &f, &err) != IBF_OK)
		ibf_cli_fail(CMD, &err);
	return f;
}

static int truth_of_rtt(struct source *s, const char *path, unsigned lmc,
			ibf_err_t *err)
{
	uint32_t n = s->o.nhosts, i;
	ibf_port_id_t *ports;
	int rc = IBF_EXIT_OK;

	if (!(s->truth = ibf_cli_load_topo(CMD, path, lmc)))
		return IBF_EXIT_INPUT;
	ports = s->ports = malloc(n * sizeof(*ports));
	s->hops = malloc((size_t)n * n * sizeof(*s->hops));
	if (!ports || !s->hops) {
		ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		return ibf_cli_fail(CMD, err);
	}
	for (i = 0; i < n && rc == IBF_EXIT_OK; i++)
		if (ibf_fabric_resolve_host(s->truth, s->names[i], &ports[i],
					    err) != IBF_OK) {
			ibf_err_prefix(err, "%s: host '%s' of the RTT file: ",
				       path, s->names[i]);
			rc = ibf_cli_fail(CMD, err);
		}
	if (rc == IBF_EXIT_OK &&
	    ibf_infer_truth_hops(s->truth, ports, n, s->hops, err) != IBF_OK)
		rc = ibf_cli_fail(CMD, err);
	return rc;
}

/* --rtt without --tol: the radius estimated from the table (its
 * minimum RTTs), said on stderr in one line, since it decides the
 * tree and a user should see it and be able to override it. */
static int estimate_tol(struct args *a, const struct source *s,
			ibf_err_t *err)
{
	ibf_infer_radius_t r;

	if (ibf_infer_radius_estimate(s->measured, s->o.nhosts, a->io.seed,
				      &r, err) != IBF_OK)
		return ibf_cli_fail(CMD, err);
	a->tol = r.tol;
	if (r.found)
		fprintf(stderr, "%s: --tol %.4g estimated: %s, (%.4g + "
			"%.4g) / 2 over %u paths; --tol 0 for the measured "
			"intervals alone\n", CMD, r.tol, r.why, r.hop, r.noise,
			r.paths);
	else
		fprintf(stderr, "%s: --tol 0: no estimate, %s; give --tol\n",
			CMD, r.why);
	return IBF_EXIT_OK;
}

static int open_source(struct args *a, struct source *s, ibf_err_t *err)
{
	uint32_t n, i, j;
	int rc;

	if (a->rtt) {
		if (ibf_rtt_read(a->rtt, NULL, NULL, &s->set, err) != IBF_OK ||
		    ibf_infer_table_create(&s->set, s->set.nnames, &s->table,
					   err) != IBF_OK)
			return ibf_cli_fail(CMD, err);
		s->o = ibf_infer_table_oracle(s->table);
		s->names = (const char *const *)s->set.names;
	} else {
		ibf_fabric_t *f = load_fabric(a->synth, a->lmc);

		if (!f)
			return IBF_EXIT_INPUT;
		s->truth = f;
		s->ports = malloc(f->nendpoints * sizeof(*s->ports));
		if (s->ports)
			memcpy(s->ports, f->endpoints,
			       f->nendpoints * sizeof(*s->ports));
		if (ibf_infer_synth_create(f, &a->so, &s->synth, err) != IBF_OK)
			return ibf_cli_fail(CMD, err);
		s->o = ibf_infer_synth_oracle(s->synth);
		s->names = ibf_infer_synth_names(s->synth);
		if (!a->has_tol)
			a->tol = ibf_infer_synth_min_hop_rtt(s->synth) / 2;
	}
	n = s->o.nhosts;
	s->measured = malloc((size_t)n * n * sizeof(*s->measured));
	if (s->synth)
		s->hops = malloc((size_t)n * n * sizeof(*s->hops));
	if (!s->measured || (s->synth && !s->hops)) {
		ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
		return ibf_cli_fail(CMD, err);
	}
	if (s->synth) {
		if (ibf_infer_truth_hops(s->truth, s->truth->endpoints, n,
					 s->hops, err) != IBF_OK)
			return ibf_cli_fail(CMD, err);
	} else {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				double mn, mx;

				s->measured[(size_t)i * n + j] =
					s->o.measure(s->o.ctx, i, j, &mn,
							     &mx, NULL)
					== IBF_OK ? mn : NAN;
			}
		if (!a->has_tol && (rc = estimate_tol(a, s, err)))
			return rc;
		if (a->truth)
			return truth_of_rtt(s, a->truth, a->lmc, err);
	}
	return IBF_EXIT_OK;
}

static void close_source(struct source *s)
{
	ibf_rtt_set_free(&s->set);
	ibf_infer_table_destroy(s->table);
	ibf_infer_synth_destroy(s->synth);
	ibf_fabric_destroy(s->truth);
	free(s->hops);
	free(s->ports);
	free(s->measured);
}

/* ---- reports ----------------------------------------------------------- */

/* The library's writers behind ibf_cli_write_file(). */
struct out_ctx {
	const ibf_infer_report_t *rep;
	const ibf_fabric_t *f;
	const ibf_infer_bwmap_t *bw;
};

static ibf_status_t put_topo(const void *ctx, FILE *fp, ibf_err_t *err)
{
	return ibf_topo_write(((const struct out_ctx *)ctx)->f,
			      IBF_TOPO_IBNETDISCOVER, fp, err);
}

static ibf_status_t put_dot(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const ibf_infer_report_t *rep = ((const struct out_ctx *)ctx)->rep;

	return ibf_infer_tree_write_dot(&rep->r->tree, rep->names, fp, err);
}

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	return ibf_infer_write_json(((const struct out_ctx *)ctx)->rep, fp,
				    err);
}

static ibf_status_t put_trace(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const ibf_infer_report_t *rep = ((const struct out_ctx *)ctx)->rep;

	return ibf_infer_write_trace(rep->r, rep->names, fp, err);
}

static ibf_status_t put_bw(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct out_ctx *c = ctx;

	return ibf_infer_bw_write_json(&c->rep->r->tree, c->rep->names, c->bw,
				       fp, err);
}

static int write_outputs(const struct args *a, const ibf_infer_report_t *rep,
			 ibf_err_t *err)
{
	struct out_ctx c = { rep, NULL, NULL };
	int rc = IBF_EXIT_OK;

	if (a->out) {
		ibf_fabric_t *f = NULL;

		if (ibf_infer_tree_fabric(&rep->r->tree, rep->names, a->lmc,
					  &f, err) != IBF_OK)
			return ibf_cli_fail(CMD, err);
		c.f = f;
		rc = ibf_cli_write_file(CMD, a->out, put_topo, &c);
		ibf_fabric_destroy(f);
	}
	if (rc == IBF_EXIT_OK && a->dot)
		rc = ibf_cli_write_file(CMD, a->dot, put_dot, &c);
	if (rc == IBF_EXIT_OK && a->json)
		rc = ibf_cli_write_file(CMD, a->json, put_json, &c);
	if (rc == IBF_EXIT_OK && a->trace)
		rc = ibf_cli_write_file(CMD, a->trace, put_trace, &c);
	return rc;
}

/* The bandwidth map plan; measured with the synthetic bandwidth oracle
 * where the truth is known, and the predictions compared with every
 * pair's bandwidth alone. */
static int bw_plan(const struct args *a, const struct source *s,
		   const ibf_infer_report_t *rep, FILE *text, ibf_err_t *err)
{
	const ibf_infer_tree_t *t = &rep->r->tree;
	uint32_t n = t->nhosts, i, cnt = 0;
	ibf_infer_bw_synth_t *bs = NULL;
	ibf_infer_bw_oracle_t o;
	ibf_infer_bwmap_t m;
	struct out_ctx c = { rep, NULL, &m };
	double *pred = NULL, *alone = NULL, lo = INFINITY, hi = 0;
	ibf_status_t st;
	int rc;

	memset(&m, 0, sizeof(m));
	if (s->truth && s->ports &&
	    ibf_infer_bw_synth_create(s->truth, s->ports, n, &bs, err) !=
	    IBF_OK)
		return ibf_cli_fail(CMD, err);
	o = (ibf_infer_bw_oracle_t){ ibf_infer_bw_synth_measure, bs };
	st = ibf_infer_bw_run(t, bs ? &o : NULL, &m, err);
	if (st == IBF_OK && bs) {
		pred = malloc((size_t)n * n * sizeof(*pred));
		alone = malloc((size_t)n * n * sizeof(*alone));
		st = pred && alone ? ibf_infer_bw_predict(t, &m, pred, err) :
		     ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	}
	if (st == IBF_OK && bs) {
		ibf_infer_bw_synth_alone(bs, alone);
		for (i = 0; i < n * n; i++)
			if (alone[i] > 0 && pred[i] > 0) {
				double r = pred[i] / alone[i];

				lo = r < lo ? r : lo;
				hi = r > hi ? r : hi;
				cnt++;
			}
	}
	if (st == IBF_OK) {
		fprintf(text, "bandwidth plan: %u stages, %u rounds, %u "
			"measurements", m.height, m.nrounds, m.nmeas);
		if (cnt)
			fprintf(text, "; predicted/alone over %u pairs: %.4f "
				"to %.4f", cnt, lo, hi);
		fprintf(text, "\n");
		rc = ibf_cli_write_file(CMD, a->bw, put_bw, &c);
	} else {
		rc = ibf_cli_fail(CMD, err);
	}
	free(pred);
	free(alone);
	ibf_infer_bwmap_free(&m);
	ibf_infer_bw_synth_destroy(bs);
	return rc;
}

/* Where the text goes: stderr when any output goes to stdout. */
static FILE *text_out(const struct args *a)
{
	const char *o[] = { a->out, a->dot, a->json, a->trace, a->bw };
	size_t i;

	for (i = 0; i < 5; i++)
		if (o[i] && !strcmp(o[i], "-"))
			return stderr;
	return stdout;
}

int ibf_cmd_infer(int argc, char **argv)
{
	struct source s;
	ibf_infer_result_t r;
	ibf_infer_accuracy_t acc;
	ibf_infer_report_t rep;
	struct args a;
	ibf_err_t err;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	ibf_err_clear(&err);
	if ((rc = open_source(&a, &s, &err)) != IBF_EXIT_OK)
		goto out;
	a.io.tol = a.tol;
	if (ibf_infer_run(&s.o, &a.io, &r, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
		goto out;
	}
	rep = (ibf_infer_report_t){ .r = &r, .names = s.names, .acc = &acc,
		.has_truth = s.hops != NULL,
		.charged_s = s.synth ? ibf_infer_synth_charged(s.synth) * 1e-6 :
			     -1, .tol = a.tol };
	/* The ratios of a synthetic run come from fresh measurements of
	 * every pair, taken after the run (outside its count and time). */
	if (s.synth)
		ibf_infer_synth_measure_all(s.synth, s.measured);
	if (ibf_infer_accuracy(&r.tree, s.hops, s.measured, 0, a.io.seed,
			       &acc, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
		goto out;
	}
	ibf_infer_write_text(&rep, text_out(&a));
	rc = write_outputs(&a, &rep, &err);
	if (rc == IBF_EXIT_OK && a.bw)
		rc = bw_plan(&a, &s, &rep, text_out(&a), &err);
out:
	ibf_infer_result_free(&r);
	close_source(&s);
	return rc;
}
