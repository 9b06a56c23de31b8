/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow sim: packet-level simulation with credit-based flow control. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/hosts.h>
#include <ibflow/liquid.h>
#include <ibflow/patterns.h>
#include <ibflow/sim.h>

#include "cli.h"

static const char *const CMD = "sim";

struct sim_args {
	const char *topo, *lfts, *sl, *pattern, *map, *alltoall, *algorithm;
	const char *trace, *json, *receivers;
	uint64_t seed, bytes;
	unsigned lmc, mtu, buffer, window, max_vls, ctrl_bytes, top, ppn;
	unsigned vl_spread;
	double rate, latency, liquid_limit;
	int paths, ctrl_lane;
	uint16_t vl_high;
};

/* Everything the run holds, released in one place. */
struct sim_run {
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_sls_t sls;
	bool have_sls;
	ibf_sim_t *sim;
	ibf_sim_result_t res;
	double bound_s;
	double *mmf;
};

static const char *const path_names[] = { "single", "lmc", NULL };
static const char *const yes_no[] = { "yes", "no", NULL };

/* --vl-high LIST: comma-separated VLs arbitrated first. */
static int parse_vl_high(void *target, const char *cmd, const char *list)
{
	uint16_t *mask = target;
	const char *p = list;
	char *end;
	unsigned long v;

	for (;;) {
		v = strtoul(p, &end, 10);
		if (end == p || v >= IBF_SIM_MAX_VLS || (*end && *end != ','))
			return ibf_cli_usage_error(cmd, "--vl-high: '%s': "
						   "expected VLs 0..%u "
						   "separated by commas", list,
						   IBF_SIM_MAX_VLS - 1);
		*mask |= (uint16_t)(1u << v);
		if (!*end)
			return IBF_EXIT_OK;
		p = end + 1;
	}
}

static bool parse_args(int argc, char **argv, struct sim_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_STR("sl", &a->sl, "FILE", "SL of every route (route "
			    "--sl-out); VL = SL"),
		IBF_OPT_STR("pattern", &a->pattern, "SPEC", "traffic pattern "
			    "as in eval (instance 0)", .section = "traffic "
			    "(one of):"),
		IBF_OPT_STR("alltoall", &a->alltoall, "HOSTS", "all-to-all "
			    "among the ranks of this list\n(a line per host; "
			    "a host listed again\nhas more ranks)"),
		IBF_OPT_PPN(&a->ppn),
		IBF_OPT_STR("receivers", &a->receivers, "HOSTS", "all-to-all "
			    "between two lists: rank i\nsends from the i-th "
			    "host of --alltoall and\nreceives at the i-th of "
			    "HOSTS; every pair,\ni to itself included (the "
			    "Swiss-T1's\nprocessor pairs)"),
		IBF_OPT_STR("trace", &a->trace, "FILE", "timed sends: lines "
			    "\"TIME_US BYTES SRC DST\""),
		IBF_OPT_STR("algorithm", &a->algorithm, "A", "all-to-all: "
			    "liquid, liquid:BYTES (release\nwindow), "
			    "liquid-barrier, pairwise,\nlinear, "
			    "linear-sync:K, bruck", .def = "liquid"),
		IBF_OPT_U64("bytes", &a->bytes, "N", "bytes per flow (pattern) "
			    "or block (all-to-all)", .def = "1048576"),
		IBF_OPT_STR("map", &a->map, "MAP", "pattern rank placement: "
			    "direct, random or a host list", .def = "direct"),
		IBF_OPT_PATTERN_SEED(&a->seed),
		IBF_OPT_UINT("mtu", &a->mtu, "BYTES", 256, 4096, "payload per "
			     "packet: the path MTU (no\ntopology format "
			     "carries one; ibsim's\nports have 2048)",
			     .def = IBF_OPT_NUM(IBF_SIM_MTU_DEFAULT),
			     .section = "model:"),
		IBF_OPT_UINT("buffer", &a->buffer, "BYTES", 320, 1u << 24,
			     "receive buffer per input port and VL",
			     .def = IBF_OPT_NUM(IBF_SIM_BUFFER_DEFAULT)),
		IBF_OPT_REAL("rate", &a->rate, "GBPS", 0.0, 1e6, "data rate of "
			     "every link (0: width x speed\nafter line "
			     "encoding)", .def = "0", .lo_incl = true),
		IBF_OPT_REAL("latency", &a->latency, "NS", 0.0, 1e9, "per hop "
			     "(wire + switch), also for credits",
			     .def = IBF_OPT_NUM(IBF_SIM_LATENCY_NS_DEFAULT),
			     .lo_incl = true),
		IBF_OPT_UINT("window", &a->window, "N", 0, 1u << 30, "messages "
			     "in flight per host (0: no limit)", .def = "0"),
		IBF_OPT_UINT("max-vls", &a->max_vls, "N", 1, IBF_SIM_MAX_VLS,
			     "data VLs (VL = SL mod N)",
			     .def = IBF_OPT_NUM(IBF_SIM_MAX_VLS_DEFAULT)),
		IBF_OPT_UINT("vl-spread", &a->vl_spread, "V", 0,
			     IBF_SIM_MAX_VLS, "data on VL (input port + "
			     "output port) mod V\nat every switch, VL 0 from "
			     "the HCA, SLs\nignored (2..--max-vls; 0: VL = SL "
			     "along\nthe path)", .def = "0"),
		IBF_OPT_CALL("vl-high", parse_vl_high, &a->vl_high, "LIST",
			     "VLs arbitrated before the others\n(high "
			     "priority), e.g. 1 or 0,2"),
		IBF_OPT_CHOICE("paths", &a->paths, "MODE", path_names, "single "
			       "(base LID) or lmc (packets spread\nover the "
			       "2^LMC LIDs)", .def = "single"),
		IBF_OPT_UINT("ctrl-bytes", &a->ctrl_bytes, "N", 0, 256,
			     "payload of control messages",
			     .def = IBF_OPT_NUM(IBF_SIM_CTRL_BYTES_DEFAULT)),
		IBF_OPT_CHOICE("ctrl-lane", &a->ctrl_lane, "Y", yes_no,
			       "control messages on a VL of their own,\n"
			       "arbitrated first (the UCX runtime's\ncontrol "
			       "lane); no: on the route's SL", .def = "yes"),
		IBF_OPT_REAL("liquid-time", &a->liquid_limit, "S", 0.0, 3600.0,
			     "time limit of the liquid schedule", .def = "10"),
		IBF_OPT_JSON(&a->json, "the results"),
		IBF_OPT_UINT("top", &a->top, "N", 0, 1u << 20, "busiest links "
			     "listed", .def = "10"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "--topo FILE --lfts FILE (--pattern SPEC | --alltoall "
			 "HOSTS |\n                  --trace FILE) [options]",
		.about =
"Simulate the routed fabric packet by packet with InfiniBand's credit-based\n"
"flow control (64-byte credits per input port and VL, virtual cut-through,\n"
"round-robin output arbitration, head-of-line blocking) and report the\n"
"completion time against the liquid bound of the same transfers, per-flow\n"
"rates (against max-min fair rates for patterns and traces), and the\n"
"busiest links with the time they were blocked.  A credit loop is reported\n"
"with the links of the cycle.  See docs/sim.md.\n",
		.exit = "0 completed, 1 deadlocked (credit loop) or stalled, 2 "
			"bad usage or\nbad input.",
	};

	if (!ibf_cli_parse(&cli, argc, argv, NULL, rc))
		return false;
	if (!!a->pattern + !!a->alltoall + !!a->trace != 1) {
		*rc = ibf_cli_usage_error(CMD, "give one of --pattern, "
					  "--alltoall, --trace");
		return false;
	}
	if (a->receivers && !a->alltoall) {
		*rc = ibf_cli_usage_error(CMD, "--receivers needs --alltoall");
		return false;
	}
	if (a->ppn > 1 && (!a->alltoall || a->receivers)) {
		*rc = ibf_cli_usage_error(CMD, "--ppn needs --alltoall without "
					  "--receivers");
		return false;
	}
	if (a->bytes > (1ull << 40)) {
		*rc = ibf_cli_usage_error(CMD, "--bytes: at most 2^40");
		return false;
	}
	return true;
}

static void fill_opts(const struct sim_args *a, struct sim_run *r,
		      ibf_sim_opts_t *o)
{
	ibf_sim_opts_default(o);
	o->mtu = a->mtu;
	o->buffer = a->buffer;
	o->rate_gbps = a->rate;
	o->latency_ns = a->latency;
	o->window = a->window;
	o->max_vls = a->max_vls;
	o->vl_high = a->vl_high;
	o->vl_spread = a->vl_spread;
	o->lmc_spread = a->paths == 1;
	o->ctrl_bytes = a->ctrl_bytes;
	o->ctrl_lane = a->ctrl_lane == 0;
	o->sls = r->have_sls ? &r->sls : NULL;
}

static int load(const struct sim_args *a, struct sim_run *r)
{
	ibf_err_t err;
	int rc;

	rc = ibf_cli_load_routed(CMD, a->topo, a->lfts, a->lmc, &r->f, &r->l);
	if (rc != IBF_EXIT_OK || !a->sl)
		return rc;
	ibf_err_clear(&err);
	if (ibf_sls_read(r->f, a->sl, &r->sls, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	r->have_sls = true;
	return IBF_EXIT_OK;
}

/* The pattern's instance 0 over the rank map, as data messages. */
static ibf_status_t add_pattern(const struct sim_args *a, struct sim_run *r,
				ibf_err_t *err)
{
	ibf_hostlist_t hl = { NULL, 0 };
	ibf_pattern_t p;
	ibf_traffic_t tr = { NULL, 0 };
	ibf_port_id_t *map = NULL;
	uint32_t n;
	bool random = a->map && !strcmp(a->map, "random");
	ibf_status_t st = IBF_OK;

	if (a->map && strcmp(a->map, "direct") && !random)
		st = ibf_hosts_read(r->f, a->map, &hl, err);
	if (st == IBF_OK)
		st = ibf_pattern_parse(a->pattern, &p, err);
	if (st != IBF_OK) {
		ibf_hostlist_free(&hl);
		return st;
	}
	st = ibf_rankmap(r->f, hl.ports, hl.n, random, a->seed, &map, &n, err);
	if (st == IBF_OK)
		st = ibf_pattern_traffic(&p, r->f, map, n, 0, a->seed, &tr, err);
	if (st == IBF_OK)
		st = ibf_sim_add_traffic(r->sim, &tr, a->bytes, err);
	ibf_traffic_free(&tr);
	free(map);
	ibf_pattern_free(&p);
	ibf_hostlist_free(&hl);
	return st;
}

/* The all-to-all's bound: the same blocks sent all at once (bruck's
 * messages are not the all-to-all's transfers). */
static ibf_status_t a2a_bound(struct sim_run *r, const ibf_sim_opts_t *o,
			      const ibf_hostlist_t *h, const ibf_port_id_t *rcv,
			      uint64_t bytes, ibf_err_t *err)
{
	ibf_sim_t *s;
	ibf_status_t st = ibf_sim_create(r->l, o, &s, err);

	if (st == IBF_OK)
		st = ibf_sim_add_alltoall(s, h->ports, rcv, h->n, bytes,
					  IBF_SIM_A2A_LINEAR, 0, NULL, NULL,
					  err);
	if (st == IBF_OK)
		st = ibf_sim_bound(s, &r->bound_s, err);
	ibf_sim_destroy(s);
	return st;
}

/* --receivers: as many hosts as --alltoall has. */
static ibf_status_t read_receivers(const struct sim_args *a,
				   const struct sim_run *r,
				   const ibf_hostlist_t *h, ibf_hostlist_t *rcv,
				   ibf_err_t *err)
{
	ibf_status_t st;

	if (!a->receivers)
		return IBF_OK;
	st = ibf_hosts_read(r->f, a->receivers, rcv, err);
	if (st == IBF_OK && rcv->n != h->n)
		st = ibf_err_set(err, IBF_ERR_INVALID, "%s: %u hosts, but %s "
				 "has %u", a->receivers, rcv->n, a->alltoall,
				 h->n);
	return st;
}

static ibf_status_t add_alltoall(const struct sim_args *a, struct sim_run *r,
				 const ibf_sim_opts_t *o, ibf_err_t *err)
{
	ibf_hostlist_t h = { NULL, 0 }, rcv = { NULL, 0 };
	ibf_liquid_opts_t lo = { .time_limit = a->liquid_limit };
	ibf_sim_a2a_t alg;
	unsigned k;
	uint32_t frames;
	ibf_status_t st;

	st = ibf_sim_a2a_parse(a->algorithm, &alg,
			       &k, err);
	if (st == IBF_OK)
		st = a->receivers ? ibf_hosts_read(r->f, a->alltoall, &h, err)
		     : ibf_hosts_read_ranks(r->f, a->alltoall, a->ppn, &h, err);
	if (st == IBF_OK)
		st = read_receivers(a, r, &h, &rcv, err);
	if (st == IBF_OK)
		st = ibf_sim_add_alltoall(r->sim, h.ports, rcv.ports, h.n,
					  a->bytes, alg, k, &lo, &frames, err);
	if (st == IBF_OK)
		st = a2a_bound(r, o, &h, rcv.ports, a->bytes, err);
	if (st == IBF_OK && frames)
		fprintf(ibf_cli_text_out(a->json), "liquid schedule: %u "
			"frames\n", frames);
	ibf_hostlist_free(&rcv);
	ibf_hostlist_free(&h);
	return st;
}

static ibf_status_t build(const struct sim_args *a, struct sim_run *r,
			  ibf_err_t *err)
{
	ibf_sim_opts_t o;
	ibf_status_t st;

	fill_opts(a, r, &o);
	st = ibf_sim_create(r->l, &o, &r->sim, err);
	if (st != IBF_OK)
		return st;
	if (a->alltoall)
		return add_alltoall(a, r, &o, err);
	st = a->pattern ? add_pattern(a, r, err) :
	     ibf_sim_add_trace(r->sim, a->trace, err);
	if (st == IBF_OK)
		st = ibf_sim_bound(r->sim, &r->bound_s, err);
	if (st != IBF_OK)
		return st;
	r->mmf = calloc(ibf_sim_nmsgs(r->sim) + 1, sizeof(double));
	if (!r->mmf)
		return ibf_err_set(err, IBF_ERR_NOMEM, "out of memory");
	return ibf_sim_mmf(r->sim, r->mmf, err);
}

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct sim_run *r = ctx;

	return ibf_sim_write_json(r->sim, &r->res, r->bound_s, r->mmf, fp,
				  err);
}

static int run(const struct sim_args *a)
{
	struct sim_run r;
	ibf_err_t err;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = load(a, &r);
	ibf_err_clear(&err);
	if (rc == IBF_EXIT_OK && (build(a, &r, &err) != IBF_OK ||
				  ibf_sim_run(r.sim, &r.res, &err) != IBF_OK))
		rc = ibf_cli_fail(CMD, &err);
	if (rc == IBF_EXIT_OK) {
		ibf_sim_write_text(r.sim, &r.res, r.bound_s, r.mmf, a->top,
				   ibf_cli_text_out(a->json));
		if (a->json)
			rc = ibf_cli_write_file(CMD, a->json, put_json, &r);
		if (rc == IBF_EXIT_OK && (r.res.deadlocked || r.res.stalled))
			rc = IBF_EXIT_DEFECT;
	}
	ibf_sim_result_free(&r.res);
	ibf_sim_destroy(r.sim);
	free(r.mmf);
	if (r.have_sls)
		ibf_sls_free(&r.sls);
	ibf_lfts_destroy(r.l);
	ibf_fabric_destroy(r.f);
	return rc;
}

int ibf_cmd_sim(int argc, char **argv)
{
	struct sim_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	if (parse_args(argc, argv, &a, &rc))
		rc = run(&a);
	return rc;
}
