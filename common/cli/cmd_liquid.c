/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow liquid: liquid schedule of a traffic, beside round robin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibflow/hosts.h>
#include <ibflow/liquid.h>
#include <ibflow/liquid_hosts.h>

#include "cli.h"

static const char *const CMD = "liquid";

struct liquid_args {
	const char *topo, *lfts, *traffic, *alltoall, *json;
	double limit;
	uint64_t work, search_work;
	unsigned lmc, ppn;
	bool exact;
};

static bool parse_args(int argc, char **argv, struct liquid_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_STR("traffic", &a->traffic, "FILE", "lines \"SRC DST "
			    "[COUNT]\" (COUNT copies)"),
		IBF_OPT_STR("alltoall", &a->alltoall, "HOSTS", "every ordered "
			    "pair of distinct hosts of HOSTS;\nwith --ppn K "
			    "or a host listed again,\nranks sharing hosts: "
			    "the node-aware plan\nof host pairs"),
		IBF_OPT_PPN(&a->ppn),
		IBF_OPT_JSON(&a->json, "the schedule"),
		IBF_OPT_REAL("time-limit", &a->limit, "S", 0.0,
			     IBF_TIME_LIMIT_MAX, "seconds for everything after "
			     "reading the inputs\n(tracing, baseline, greedy, "
			     "search); when it runs out\nthe best schedule found "
			     "so far is reported (round\nrobin at worst, always "
			     "valid)",
			     .def = "10"),
		IBF_OPT_U64("work-limit", &a->work, "N", "the same in work "
			    "units (0.6-1.7 x 10^9 a\nsecond), 0: none; "
			    "the same input then gets\nthe same schedule "
			    "whatever the load"),
		IBF_OPT_U64("search-work", &a->search_work, "N", "work units "
			    "for the exact search alone\n(0: what the limits "
			    "leave)"),
		IBF_OPT_FLAG("exact", &a->exact, "run the exact search even when "
			     "the greedy\ncolouring or round robin is already "
			     "liquid"),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "--topo FILE --lfts FILE\n"
			 "                     (--traffic FILE | --alltoall "
			 "HOSTS) [options]",
		.about =
"Schedule a traffic of equal-size transfers into time frames of mutually\n"
"non-congesting transfers (Gabrielyan's liquid scheduling).  A transfer is\n"
"the set of directed links on its route, traced through the LFTs to the\n"
"destination's base LID.  Prints link loads, the duration (load of the\n"
"busiest links, a lower bound on frames), the bottlenecks, the liquid\n"
"throughput (transfers / duration, in link capacities), the schedule\n"
"found and the topology-unaware round-robin baseline.\n",
		.exit = "0 ok, 2 bad usage or bad input (unrouted pair "
			"included).",
	};

	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&cli, argc, argv, NULL, rc))
		return false;
	if (a->ppn > 1 && !a->alltoall) {
		*rc = ibf_cli_usage_error(CMD, "--ppn needs --alltoall");
		return false;
	}
	if (!a->traffic == !a->alltoall) {
		*rc = ibf_cli_usage_error(CMD, "give exactly one of --traffic "
					  "and --alltoall");
		return false;
	}
	return true;
}

/* Errors from the library name no file: say which one. */
static void prefix_path(const char *path, ibf_status_t st, ibf_err_t *err)
{
	if (st != IBF_ERR_PARSE && st != IBF_ERR_IO &&
	    st != IBF_ERR_NOT_FOUND && strncmp(err->msg, path, strlen(path)))
		ibf_err_prefix(err, "%s: ", path);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "NODE" port N -> "PEER" */
static void link_name(const ibf_fabric_t *f, ibf_port_id_t p, char *buf,
		      size_t len)
{
	const ibf_port_t *o = &f->ports[p];
	char a[104], b[104];

	ibf_node_name(f, o->node, a, sizeof(a));
	if (o->peer == IBF_NO_ID)
		snprintf(b, sizeof(b), "?");
	else
		ibf_node_name(f, f->ports[o->peer].node, b, sizeof(b));
	snprintf(buf, len, "\"%s\" port %u -> \"%s\"", a, o->num, b);
}

/* What the table shows, from a traffic's result or an all-to-all plan. */
struct report {
	uint64_t transfers;
	uint32_t nhosts, nlinks, duration, nbottlenecks, nframes, rr_frames;
	uint32_t search_depth, largest;
	const uint32_t *load;
	const ibf_port_id_t *link_port;
	double lt, seconds;
	bool liquid, optimal_proven, exhausted, timed_out;
	ibf_liquid_method_t method;
	uint64_t categories;
};

static void print_table(FILE *o, const ibf_fabric_t *f,
			const struct report *r)
{
	double thr = r->nframes ? (double)r->transfers / r->nframes : 0;
	double rr = r->rr_frames ? (double)r->transfers / r->rr_frames : 0;
	uint32_t hist[4] = { 0 }, shown = 0, d = r->duration ? r->duration : 1;
	char buf[256];

	for (uint32_t l = 0; l < r->nlinks; l++)
		hist[r->load[l] * 4 / d > 3 ? 3 : r->load[l] * 4 / d]++;
	fprintf(o, "transfers          %llu between %u hosts\n",
		(unsigned long long)r->transfers, r->nhosts);
	fprintf(o, "links used         %u (load < 25%%: %u, < 50%%: %u, "
		"< 75%%: %u, >= 75%% of duration: %u)\n", r->nlinks, hist[0],
		hist[1], hist[2], hist[3]);
	fprintf(o, "duration           %u (load of the busiest links)\n",
		r->duration);
	fprintf(o, "bottlenecks        %u\n", r->nbottlenecks);
	for (uint32_t l = 0; l < r->nlinks && shown < 8; l++)
		if (r->duration && r->load[l] == r->duration) {
			link_name(f, r->link_port[l], buf, sizeof(buf));
			fprintf(o, "                   %s\n", buf);
			shown++;
		}
	if (r->nbottlenecks > 8)
		fprintf(o, "                   ... %u more\n",
			r->nbottlenecks - 8);
	fprintf(o, "liquid throughput  %.4f link capacities\n", r->lt);
	fprintf(o, "schedule           %u frames, %s%s (%s; depth %u, %llu "
		"categories, %.3f s%s)\n", r->nframes,
		r->liquid ? "liquid" : "not liquid",
		r->optimal_proven ? ", optimal proven" :
		r->exhausted ? ", no liquid schedule exists" : "",
		ibf_liquid_method_str(r->method), r->search_depth,
		(unsigned long long)r->categories, r->seconds,
		r->timed_out ? ", time limit reached" : "");
	fprintf(o, "  throughput       %.4f (%.1f%% of liquid), largest "
		"frame %u transfers\n", thr, r->lt ? 100 * thr / r->lt : 0,
		r->largest);
	fprintf(o, "round robin        %u frames\n", r->rr_frames);
	fprintf(o, "  throughput       %.4f (%.1f%% of liquid)\n", rr,
		r->lt ? 100 * rr / r->lt : 0);
	fprintf(o, "gain               %.3fx over round robin\n",
		rr ? thr / rr : 0);
}

static void report_result(const ibf_liquid_traffic_t *t,
			  const ibf_liquid_result_t *r, struct report *p)
{
	memset(p, 0, sizeof(*p));
	p->transfers = r->ntransfers;
	p->nhosts = t->nhosts;
	p->nlinks = t->nlinks;
	p->load = r->load;
	p->link_port = t->link_port;
	p->duration = r->duration;
	p->nbottlenecks = r->nbottlenecks;
	p->lt = r->liquid_throughput;
	p->nframes = r->nframes;
	p->rr_frames = r->rr_frames;
	p->search_depth = r->search_depth;
	p->categories = r->categories;
	p->seconds = r->seconds;
	p->liquid = r->liquid;
	p->optimal_proven = r->optimal_proven;
	p->exhausted = r->exhausted;
	p->timed_out = r->timed_out;
	p->method = r->method;
	for (uint32_t i = 0; i < r->nframes; i++)
		if (r->frame_off[i + 1] - r->frame_off[i] > p->largest)
			p->largest = r->frame_off[i + 1] - r->frame_off[i];
}

static void report_plan(const ibf_liquid_plan_t *pl, struct report *p)
{
	const ibf_liquid_plan_info_t *in = ibf_liquid_plan_info(pl);

	memset(p, 0, sizeof(*p));
	p->nlinks = ibf_liquid_plan_links(pl, &p->link_port, &p->load);
	p->transfers = in->ntransfers;
	p->nhosts = in->nranks;
	p->duration = in->duration;
	p->nbottlenecks = in->nbottlenecks;
	p->lt = in->liquid_throughput;
	p->nframes = in->nframes;
	p->rr_frames = in->rr_frames;
	p->search_depth = in->search_depth;
	p->categories = in->categories;
	p->seconds = in->seconds;
	p->liquid = in->liquid;
	p->optimal_proven = in->optimal_proven;
	p->exhausted = in->exhausted;
	p->timed_out = in->timed_out;
	p->method = in->method;
	p->largest = in->largest_frame;
}

/* --json: the library's document (a traffic's schedule or an all-to-all
 * plan), behind ibf_cli_write_file(). */
struct json_ctx {
	const ibf_fabric_t *f;
	const ibf_liquid_traffic_t *t;
	const ibf_liquid_result_t *r;
	const ibf_liquid_plan_t *pl;
};

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct json_ctx *c = ctx;

	return c->pl ? ibf_liquid_plan_write_json(c->f, c->pl, fp, err)
		     : ibf_liquid_write_json(c->f, c->t, c->r, fp, err);
}

/* --traffic: trace the flows (linear in the file), then schedule within
 * what is left of the limit. */
static int run_traffic(const struct liquid_args *a, const ibf_lfts_t *l,
		       struct report *rep, ibf_liquid_traffic_t **t,
		       ibf_liquid_result_t *r)
{
	ibf_liquid_opts_t o = { 0 };
	ibf_traffic_t tr = { 0 };
	ibf_err_t err;
	ibf_status_t st;
	double t0;

	ibf_err_clear(&err);
	st = ibf_traffic_read(l->fabric, a->traffic, &tr, &err);
	t0 = now_s();
	if (st == IBF_OK)
		st = ibf_liquid_traffic_from_flows(l, &tr, t, &err);
	ibf_traffic_free(&tr);
	if (st != IBF_OK) {
		prefix_path(a->traffic, st, &err);
		return ibf_cli_fail(CMD, &err);
	}
	o.time_limit = a->limit - (now_s() - t0);
	if (o.time_limit < 1e-3)
		o.time_limit = 1e-3;
	o.search_first = a->exact;
	o.work_limit = a->work;
	o.search_work = a->search_work;
	if (ibf_liquid_schedule(*t, &o, r, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	r->seconds = now_s() - t0;
	report_result(*t, r, rep);
	return IBF_EXIT_OK;
}

/* --alltoall: the plan (tracing included in its limit). */
static int run_alltoall(const struct liquid_args *a, const ibf_lfts_t *l,
			struct report *rep, ibf_liquid_plan_t **pl)
{
	ibf_liquid_opts_t o = { 0 };
	ibf_hostlist_t h = { 0 };
	ibf_err_t err;
	ibf_status_t st;

	ibf_err_clear(&err);
	st = ibf_hosts_read(l->fabric, a->alltoall, &h, &err);
	if (st == IBF_OK) {
		o.time_limit = a->limit;
		o.search_first = a->exact;
		o.work_limit = a->work;
		o.search_work = a->search_work;
		st = ibf_liquid_plan_alltoall(l, h.ports, h.n, &o, pl, &err);
	}
	ibf_hostlist_free(&h);
	if (st != IBF_OK) {
		prefix_path(a->alltoall, st, &err);
		return ibf_cli_fail(CMD, &err);
	}
	report_plan(*pl, rep);
	return IBF_EXIT_OK;
}

/* Ranks sharing hosts: the node-aware plan of unit pairs. */
static void print_units(FILE *o, const ibf_liquid_hplan_t *p)
{
	const ibf_liquid_hplan_info_t *in = ibf_liquid_hplan_info(p);
	double over = in->bound_blocks ? 100.0 * ((double)in->plan_blocks /
			(double)in->bound_blocks - 1) : 0;
	size_t words = 0;

	for (uint32_t r = 0; r < in->nranks; r++) {
		size_t w = ibf_liquid_hslice_words(p, r);

		if (w > words)
			words = w;
	}
	fprintf(o, "ranks              %u on %u hosts (ports), at most %u "
		"per host\n", in->nranks, in->nunits, in->max_ranks);
	fprintf(o, "blocks             %llu over the network, %llu within "
		"hosts (shared memory)\n",
		(unsigned long long)in->net_blocks,
		(unsigned long long)in->local_blocks);
	fprintf(o, "host pairs         %llu\n",
		(unsigned long long)in->npairs);
	fprintf(o, "duration           %u host pairs on the busiest link\n",
		in->duration);
	fprintf(o, "bound              %llu blocks on the busiest link\n",
		(unsigned long long)in->bound_blocks);
	fprintf(o, "schedule           %u frames of host pairs, %llu blocks "
		"(+%.2f%% over the bound), %s (%s, %.3f s%s)\n", in->nframes,
		(unsigned long long)in->plan_blocks, over,
		in->liquid ? "liquid" : "not liquid",
		ibf_liquid_method_str(in->method), in->seconds,
		in->timed_out ? ", time limit reached" : "");
	fprintf(o, "round robin        %u frames of host pairs\n",
		in->rr_frames);
	fprintf(o, "releases           %llu host-pair predecessors, at most "
		"%u per pair\n", (unsigned long long)in->ndeps, in->max_pred);
	fprintf(o, "slices             at most %zu words (%zu bytes) per "
		"rank\n", words, 4 * words);
}

static ibf_status_t put_units_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const ibf_lfts_t *l = ((const void *const *)ctx)[0];
	const ibf_liquid_hplan_t *p = ((const void *const *)ctx)[1];

	return ibf_liquid_hplan_write_json(l->fabric, p, fp, err);
}

static int run_units(const struct liquid_args *a, const ibf_lfts_t *l,
		     const ibf_hostlist_t *h)
{
	ibf_liquid_opts_t o = { .time_limit = a->limit,
				.search_first = a->exact,
				.work_limit = a->work,
				.search_work = a->search_work };
	ibf_liquid_hplan_t *p;
	const void *ctx[2];
	ibf_err_t err;
	int rc = IBF_EXIT_OK;

	ibf_err_clear(&err);
	if (ibf_liquid_hplan_create(l, h->ports, h->n, &o, &p, &err) !=
	    IBF_OK || ibf_liquid_hplan_unit_lists(p, &err) != IBF_OK) {
		ibf_liquid_hplan_destroy(p);
		prefix_path(a->alltoall, err.status, &err);
		return ibf_cli_fail(CMD, &err);
	}
	print_units(ibf_cli_text_out(a->json), p);
	ctx[0] = l;
	ctx[1] = p;
	if (a->json)
		rc = ibf_cli_write_file(CMD, a->json, put_units_json, ctx);
	ibf_liquid_hplan_destroy(p);
	return rc;
}

/* A rank list in which some host has more than one rank. */
static bool shared(const ibf_hostlist_t *h)
{
	for (uint32_t i = 1; i < h->n; i++)
		for (uint32_t j = 0; j < i; j++)
			if (h->ports[i] == h->ports[j])
				return true;
	return false;
}

static int units_routed(const ibf_lfts_t *l, const struct liquid_args *a,
			bool *done)
{
	ibf_hostlist_t h = { 0 };
	ibf_err_t err;
	int rc;

	*done = false;
	ibf_err_clear(&err);
	if (ibf_hosts_read_ranks(l->fabric, a->alltoall, a->ppn, &h, &err) !=
	    IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (a->ppn == 1 && !shared(&h)) {
		ibf_hostlist_free(&h);
		return IBF_EXIT_OK;
	}
	*done = true;
	rc = run_units(a, l, &h);
	ibf_hostlist_free(&h);
	return rc;
}

static int liquid_routed(const ibf_lfts_t *l, void *arg)
{
	const struct liquid_args *a = arg;
	ibf_liquid_traffic_t *t = NULL;
	ibf_liquid_plan_t *pl = NULL;
	ibf_liquid_result_t r;
	struct report rep;
	int rc;
	bool done = false;

	if (a->alltoall) {
		rc = units_routed(l, a, &done);
		if (done || rc != IBF_EXIT_OK)
			return rc;
	}
	memset(&r, 0, sizeof(r));
	rc = a->traffic ? run_traffic(a, l, &rep, &t, &r)
			: run_alltoall(a, l, &rep, &pl);
	if (rc == IBF_EXIT_OK) {
		struct json_ctx jc = { l->fabric, t, &r, pl };

		print_table(ibf_cli_text_out(a->json), l->fabric, &rep);
		if (a->json)
			rc = ibf_cli_write_file(CMD, a->json, put_json, &jc);
	}
	ibf_liquid_plan_destroy(pl);
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
	return rc;
}

int ibf_cmd_liquid(int argc, char **argv)
{
	struct liquid_args a;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	return ibf_cli_run_routed(CMD, a.topo, a.lfts, a.lmc, liquid_routed,
				  &a);
}
