/* ibflow liquid: liquid schedule of a traffic, beside round robin. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/hosts.h>
#include <ibflow/liquid.h>

#include "cli.h"

static const char *const CMD = "liquid";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow liquid --topo T --lfts L (--traffic FILE | --alltoall HOSTS)\n"
"                     [--json FILE] [--time-limit SECONDS]\n"
"\n"
"Schedule a traffic of equal-size transfers into time frames of mutually\n"
"non-congesting transfers (Gabrielyan's liquid scheduling).  A transfer is\n"
"the set of directed links on its route, traced through the LFTs to the\n"
"destination's base LID.  Prints link loads, the duration (load of the\n"
"busiest links, a lower bound on frames), the bottlenecks, the liquid\n"
"throughput (transfers / duration, in link capacities), the schedule\n"
"found and the topology-unaware round-robin baseline.\n"
"\n"
"  --topo T           topology (ibnetdiscover, ibsim net, subnet.lst)\n"
"  --lfts L           forwarding tables (opensm-lfts.dump, ibroute)\n"
"  --traffic FILE     lines \"SRC DST [COUNT]\" (COUNT copies)\n"
"  --alltoall HOSTS   every ordered pair of distinct hosts of HOSTS\n"
"  --json FILE        write the schedule as JSON (\"-\" = stdout; the\n"
"                     table then goes to stderr)\n"
"  --time-limit S     seconds for the search, default 10; when it runs\n"
"                     out the best schedule found is reported\n"
"  --exact            run the exact search even when the greedy colouring\n"
"                     or round robin is already liquid\n"
"  --lmc N            LMC when the topology carries no LIDs (default 0)\n"
"  -h, --help         this text\n"
"\n"
"Exit status: 0 ok, 2 bad usage or bad input (unrouted pair included).\n");
}

struct liquid_args {
	const char *topo, *lfts, *traffic, *alltoall, *json;
	double limit;
	unsigned lmc;
	bool exact;
};

static int parse_args(int argc, char **argv, struct liquid_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "traffic", required_argument, NULL, 'f' },
		{ "alltoall", required_argument, NULL, 'a' },
		{ "json", required_argument, NULL, 'j' },
		{ "time-limit", required_argument, NULL, 'T' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "exact", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = IBF_EXIT_OK;

	memset(a, 0, sizeof(*a));
	a->limit = 10;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->topo = optarg; break;
		case 'l': a->lfts = optarg; break;
		case 'f': a->traffic = optarg; break;
		case 'a': a->alltoall = optarg; break;
		case 'j': a->json = optarg; break;
		case 'x': a->exact = true; break;
		case 'T':
			rc = ibf_cli_parse_real(CMD, "--time-limit", optarg, 0.0,
						1e6, &a->limit);
			break;
		case 'm':
			rc = ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
						IBF_LMC_MAX, &a->lmc);
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return ibf_cli_usage_error(CMD, "unknown option or "
						   "missing value: %s",
						   argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return ibf_cli_usage_error(CMD, "unexpected argument '%s'",
					   argv[optind]);
	if (!a->topo || !a->lfts)
		return ibf_cli_usage_error(CMD, "--topo and --lfts are "
					   "required");
	if (!a->traffic == !a->alltoall)
		return ibf_cli_usage_error(CMD, "give exactly one of "
					   "--traffic and --alltoall");
	return IBF_EXIT_OK;
}

static ibf_status_t load_traffic(const struct liquid_args *a,
				 const ibf_lfts_t *l,
				 ibf_liquid_traffic_t **t, ibf_err_t *err)
{
	const ibf_fabric_t *f = l->fabric;
	const char *path = a->traffic ? a->traffic : a->alltoall;
	ibf_status_t st;

	if (a->traffic) {
		ibf_traffic_t tr = { 0 };

		st = ibf_traffic_read(f, path, &tr, err);
		if (st == IBF_OK)
			st = ibf_liquid_traffic_from_flows(l, &tr, t, err);
		ibf_traffic_free(&tr);
	} else {
		ibf_hostlist_t h = { 0 };

		st = ibf_hosts_read(f, path, &h, err);
		if (st == IBF_OK)
			st = ibf_liquid_traffic_alltoall(l, &h, t, err);
		ibf_hostlist_free(&h);
	}
	if (st != IBF_OK && st != IBF_ERR_PARSE && st != IBF_ERR_IO &&
	    st != IBF_ERR_NOT_FOUND && strncmp(err->msg, path, strlen(path)))
		ibf_err_prefix(err, "%s: ", path);
	return st;
}

/* "NODE" port N -> "PEER" */
static void link_name(const ibf_fabric_t *f, ibf_port_id_t p, char *buf,
		      size_t len)
{
	const ibf_port_t *o = &f->ports[p];
	char a[64], b[64];

	snprintf(a, sizeof(a), "%s", ibf_node_desc(f, o->node));
	snprintf(b, sizeof(b), "%s", o->peer == IBF_NO_ID ? "?" :
		 ibf_node_desc(f, f->ports[o->peer].node));
	snprintf(buf, len, "\"%s\" port %u -> \"%s\"", a, o->num, b);
}

static void print_table(FILE *o, const ibf_fabric_t *f,
			const ibf_liquid_traffic_t *t,
			const ibf_liquid_result_t *r)
{
	double thr = r->nframes ? (double)r->ntransfers / r->nframes : 0;
	double rr = r->rr_frames ? (double)r->ntransfers / r->rr_frames : 0;
	double lt = r->liquid_throughput;
	uint32_t hist[8] = { 0 }, maxf = 0;
	char buf[256];

	for (uint32_t l = 0; l < t->nlinks; l++)
		hist[r->load[l] * 4 / (r->duration ? r->duration : 1) > 3 ?
		     3 : r->load[l] * 4 / (r->duration ? r->duration : 1)]++;
	for (uint32_t i = 0; i < r->nframes; i++)
		if (r->frame_off[i + 1] - r->frame_off[i] > maxf)
			maxf = r->frame_off[i + 1] - r->frame_off[i];
	fprintf(o, "transfers          %u between %u hosts\n", r->ntransfers,
		t->nhosts);
	fprintf(o, "links used         %u (load < 25%%: %u, < 50%%: %u, "
		"< 75%%: %u, >= 75%% of duration: %u)\n", t->nlinks, hist[0],
		hist[1], hist[2], hist[3]);
	fprintf(o, "duration           %u (load of the busiest links)\n",
		r->duration);
	fprintf(o, "bottlenecks        %u\n", r->nbottlenecks);
	for (uint32_t i = 0; i < r->nbottlenecks && i < 8; i++) {
		link_name(f, t->link_port[r->bottlenecks[i]], buf,
			  sizeof(buf));
		fprintf(o, "                   %s\n", buf);
	}
	if (r->nbottlenecks > 8)
		fprintf(o, "                   ... %u more\n",
			r->nbottlenecks - 8);
	fprintf(o, "liquid throughput  %.4f link capacities\n", lt);
	fprintf(o, "schedule           %u frames, %s%s (%s; depth %u, %llu "
		"categories, %.3f s%s)\n", r->nframes,
		r->liquid ? "liquid" : "not liquid",
		r->optimal_proven ? ", optimal proven" :
		r->exhausted ? ", no liquid schedule exists" : "",
		ibf_liquid_method_str(r->method), r->search_depth,
		(unsigned long long)r->categories, r->seconds,
		r->timed_out ? ", time limit reached" : "");
	fprintf(o, "  throughput       %.4f (%.1f%% of liquid), largest "
		"frame %u transfers\n", thr, lt ? 100 * thr / lt : 0, maxf);
	fprintf(o, "round robin        %u frames\n", r->rr_frames);
	fprintf(o, "  throughput       %.4f (%.1f%% of liquid)\n", rr,
		lt ? 100 * rr / lt : 0);
	fprintf(o, "gain               %.3fx over round robin\n",
		rr ? thr / rr : 0);
}

static int write_json(const char *path, const ibf_fabric_t *f,
		      const ibf_liquid_traffic_t *t,
		      const ibf_liquid_result_t *r)
{
	ibf_ofile_t o;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (ibf_liquid_write_json(f, t, r, o.fp, &err) != IBF_OK) {
		ibf_ofile_abort(&o);
		return ibf_cli_fail(CMD, &err);
	}
	if (ibf_ofile_commit(&o, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	return IBF_EXIT_OK;
}

int ibf_cmd_liquid(int argc, char **argv)
{
	struct liquid_args a;
	ibf_fabric_t *f = NULL;
	ibf_lfts_t *l = NULL;
	ibf_liquid_traffic_t *t = NULL;
	ibf_liquid_result_t r;
	ibf_liquid_opts_t o = { 0 };
	ibf_err_t err;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? IBF_EXIT_OK : rc;
	ibf_err_clear(&err);
	memset(&r, 0, sizeof(r));
	rc = ibf_cli_load_routed(CMD, a.topo, a.lfts, a.lmc, &f, &l);
	if (rc == IBF_EXIT_OK && load_traffic(&a, l, &t, &err) != IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	if (rc == IBF_EXIT_OK) {
		o.time_limit = a.limit;
		o.search_first = a.exact;
		if (ibf_liquid_schedule(t, &o, &r, &err) != IBF_OK) {
			rc = ibf_cli_fail(CMD, &err);
		} else {
			bool js = a.json && !strcmp(a.json, "-");

			print_table(js ? stderr : stdout, f, t, &r);
			if (a.json)
				rc = write_json(a.json, f, t, &r);
		}
	}
	ibf_liquid_result_free(&r);
	ibf_liquid_traffic_destroy(t);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return rc;
}
