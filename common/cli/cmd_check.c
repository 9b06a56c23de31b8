/* ibflow check: trace all routes through LFTs and report defects. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ibflow/sl.h>
#include <ibflow/trace.h>

#include "cli.h"

static const char *const CMD = "check";

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: ibflow check --topo FILE --lfts FILE [options]\n"
"\n"
"Trace the route of every (source host, destination LID) pair through the\n"
"switches' linear forwarding tables: every LID of every other host (all\n"
"2^LMC of them) and, with --switches, every switch LID.  Prints counts of\n"
"delivered routes and of each defect, the hop-count histogram, per LID\n"
"offset figures when LMC > 0, and the first defects of each kind with the\n"
"switch and port where the route went wrong.\n"
"\n"
"  --topo FILE        topology (ibnetdiscover, ibsim net, opensm-subnet.lst)\n"
"  --lfts FILE        forwarding tables (opensm-lfts.dump, ibroute output)\n"
"  --lmc N            LMC when the topology carries no LIDs (default 0)\n"
"  --switches         also trace routes to every switch LID\n"
"  --max-report N     defects listed per kind (default 10)\n"
"  --json FILE        also write the report as JSON (\"-\" = stdout)\n"
"  --threads N        worker threads (default 1)\n"
"  --naive            trace pair by pair (reference algorithm; slower)\n"
"  --sl FILE          SL of every route (ibflow route --sl-out); default 0\n"
"  --deadlock         check that each VL's channel dependency graph is\n"
"                     acyclic (SL->VL identity); a cycle is printed and\n"
"                     counts as a defect\n"
"  -h, --help         this text\n"
"\n"
"Hops are links: host-leaf-host is 2.  Defects: no route (LFT entry 255),\n"
"loop (a switch visited twice), dead end (an entry naming a port without a\n"
"link or beyond the switch's ports), misdelivered (arrived at a host or\n"
"switch that does not own the LID), no switch table (a switch on the way\n"
"has no LFT).\n"
"Exit status: 0 no defect, 1 defects found, 2 bad usage or input.\n");
}

struct check_args {
	const char *topo, *lfts, *json, *sl;
	unsigned lmc, max_report, threads;
	bool switches, naive, deadlock;
};

static int parse_args(int argc, char **argv, struct check_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "switches", no_argument, NULL, 's' },
		{ "max-report", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 'T' },
		{ "naive", no_argument, NULL, 'n' },
		{ "sl", required_argument, NULL, 'S' },
		{ "deadlock", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->max_report = 10;
	a->threads = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		rc = IBF_EXIT_OK;
		switch (c) {
		case 't': a->topo = optarg; break;
		case 'l': a->lfts = optarg; break;
		case 'j': a->json = optarg; break;
		case 's': a->switches = true; break;
		case 'n': a->naive = true; break;
		case 'S': a->sl = optarg; break;
		case 'D': a->deadlock = true; break;
		case 'm':
			rc = ibf_cli_parse_uint(CMD, "--lmc", optarg, 0,
						IBF_LMC_MAX, &a->lmc);
			break;
		case 'r':
			rc = ibf_cli_parse_uint(CMD, "--max-report", optarg, 0,
						100000, &a->max_report);
			break;
		case 'T':
			rc = ibf_cli_parse_uint(CMD, "--threads", optarg, 1, 64,
						&a->threads);
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return ibf_cli_usage_error(CMD, "unknown option or "
						   "missing value: %s",
						   argv[optind - 1]);
		}
		if (rc != IBF_EXIT_OK)
			return rc;
	}
	if (optind < argc)
		return ibf_cli_usage_error(CMD, "unexpected argument '%s'",
					   argv[optind]);
	if (!a->topo || !a->lfts)
		return ibf_cli_usage_error(CMD, "--topo and --lfts are "
					   "required");
	return IBF_EXIT_OK;
}

/* ---- the text report ----------------------------------------------------- */

static double mean_hops(const ibf_check_stats_t *s)
{
	return s->count[IBF_TRACE_OK] ?
	       (double)s->hop_sum / (double)s->count[IBF_TRACE_OK] : 0.0;
}

static void print_stats_line(const char *label, const ibf_check_stats_t *s)
{
	printf("  %-12s %12" PRIu64 " pairs %12" PRIu64 " ok %10" PRIu64
	       " defects   hops %u/%.3f/%u\n", label, s->pairs,
	       s->count[IBF_TRACE_OK], s->pairs - s->count[IBF_TRACE_OK],
	       s->hop_min, mean_hops(s), s->hop_max);
}

static void print_counts(const ibf_check_report_t *r)
{
	static const struct {
		ibf_trace_result_t res;
		const char *label;
	} rows[] = {
		{ IBF_TRACE_OK, "ok" },
		{ IBF_TRACE_NO_ROUTE, "no route" },
		{ IBF_TRACE_LOOP, "loops" },
		{ IBF_TRACE_DEAD_END, "dead ends" },
		{ IBF_TRACE_MISDELIVERED, "misdelivered" },
		{ IBF_TRACE_NO_SWITCH_TABLE, "no switch table" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		printf("  %-16s %12" PRIu64, rows[i].label,
		       r->all.count[rows[i].res]);
		if (rows[i].res == IBF_TRACE_NO_SWITCH_TABLE)
			printf("   (switches without a table: %u)",
			       r->switches_without_table);
		printf("\n");
	}
}

static void print_hops(const ibf_check_report_t *r)
{
	uint64_t ok = r->all.count[IBF_TRACE_OK];
	unsigned h;

	if (!ok) {
		printf("hops: no route delivered\n");
		return;
	}
	printf("hops (links): min %u  mean %.3f  max %u\n", r->all.hop_min,
	       mean_hops(&r->all), r->all.hop_max);
	for (h = 0; h < r->hop_hist_len; h++)
		if (r->hop_hist[h])
			printf("  %3u hops %12" PRIu64 "  %6.2f%%\n", h,
			       r->hop_hist[h], 100.0 * r->hop_hist[h] / ok);
}

static const char *dest_name(const ibf_fabric_t *f, ibf_port_id_t p,
			     char *buf, size_t len)
{
	if (ibf_node_is_switch(f, f->ports[p].node)) {
		snprintf(buf, len, "switch \"%s\"",
			 ibf_node_desc(f, f->ports[p].node));
		return buf;
	}
	return ibf_port_host_name(f, p, buf, len);
}

static void print_where(const ibf_fabric_t *f, const ibf_check_example_t *e)
{
	const ibf_trace_info_t *in = &e->info;
	const char *d = ibf_node_desc(f, in->node);
	uint64_t guid = f->nodes[in->node].guid;
	char buf[128];

	switch (in->result) {
	case IBF_TRACE_NO_ROUTE:
		printf("switch \"%s\" (0x%016" PRIx64 ") has no entry for "
		       "the LID", d, guid);
		break;
	case IBF_TRACE_NO_SWITCH_TABLE:
		printf("switch \"%s\" (0x%016" PRIx64 ") has no LFT", d, guid);
		break;
	case IBF_TRACE_DEAD_END:
		if (in->port > f->nodes[in->node].nports)
			printf("switch \"%s\" (0x%016" PRIx64 ") sends it to "
			       "port %u, beyond its %u ports", d, guid,
			       in->port, f->nodes[in->node].nports);
		else
			printf("switch \"%s\" (0x%016" PRIx64 ") sends it to "
			       "port %u, which has no link", d, guid, in->port);
		break;
	case IBF_TRACE_LOOP:
		printf("switch \"%s\" (0x%016" PRIx64 ") is reached twice "
		       "(out port %u)", d, guid, in->port);
		break;
	case IBF_TRACE_MISDELIVERED:
		if (ibf_node_is_switch(f, in->node))
			printf("switch \"%s\" (0x%016" PRIx64 ") keeps it "
			       "(port 0)", d, guid);
		else
			printf("delivered to %s port %u instead",
			       ibf_port_host_name(f, ibf_node_port_id(f,
					in->node, in->port), buf, sizeof(buf)),
			       in->port);
		break;
	case IBF_TRACE_OK:
		break;
	}
	printf(" after %u hop%s\n", in->nhops, in->nhops == 1 ? "" : "s");
}

static void print_examples(const ibf_fabric_t *f, const ibf_check_report_t *r,
			   unsigned max)
{
	char sb[128], db[160];
	unsigned i, k;

	if (!ibf_check_defects(r) || !max)
		return;
	printf("defects (first %u of each kind):\n", max);
	for (i = 1; i < IBF_TRACE_NRESULTS; i++)
		for (k = 0; k < r->nexamples[i]; k++) {
			const ibf_check_example_t *e = &r->examples[i][k];

			printf("  %-15s %s -> %s (LID %u): ",
			       ibf_trace_result_str((ibf_trace_result_t)i),
			       ibf_port_host_name(f, e->src, sb, sizeof(sb)),
			       dest_name(f, e->dst, db, sizeof(db)), e->dlid);
			print_where(f, e);
		}
}

static void print_report(const ibf_fabric_t *f, const ibf_check_report_t *r,
			 const struct check_args *a)
{
	unsigned i;

	printf("fabric: %u endpoints, %u switches, LMC %u\n", f->nendpoints,
	       f->nswitches, f->lmc);
	printf("pairs traced: %" PRIu64 " (%u sources, %u destination LIDs%s)"
	       "\n", r->all.pairs, r->nsources, r->ndlids,
	       a->switches ? " incl. switches" : "");
	print_counts(r);
	print_hops(r);
	if (r->noffsets > 1) {
		printf("by LID offset (to hosts):\n");
		for (i = 0; i < r->noffsets; i++) {
			char label[32];

			snprintf(label, sizeof(label), "offset %u", i);
			print_stats_line(label, &r->by_offset[i]);
		}
	}
	if (a->switches)
		print_stats_line("to switches", &r->to_switches);
	print_examples(f, r, a->max_report);
	printf("%s\n", ibf_check_defects(r) ? "DEFECTS FOUND" :
	       "all routes delivered");
}

static int write_json(const char *cmd, const ibf_lfts_t *l,
		      const ibf_check_report_t *r, const char *path)
{
	ibf_ofile_t o;
	ibf_err_t err;

	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, path, &err) != IBF_OK)
		return ibf_cli_fail(cmd, &err);
	if (ibf_check_report_write_json(l, r, o.fp, &err) != IBF_OK) {
		ibf_ofile_abort(&o);
		return ibf_cli_fail(cmd, &err);
	}
	if (ibf_ofile_commit(&o, &err) != IBF_OK)
		return ibf_cli_fail(cmd, &err);
	return IBF_EXIT_OK;
}

/* --sl / --deadlock: returns IBF_EXIT_DEFECT on a cycle. */
static int check_deadlock(const ibf_lfts_t *l, const struct check_args *a)
{
	ibf_deadlock_opts_t o = { .switches = a->switches };
	ibf_deadlock_report_t rep;
	ibf_sls_t sls = { 0 };
	ibf_err_t err;
	unsigned vl;
	int rc = IBF_EXIT_OK;
	/* JSON on stdout stays parseable: the text goes to stderr then. */
	FILE *out = a->json && !strcmp(a->json, "-") ? stderr : stdout;

	ibf_err_clear(&err);
	if (a->sl && ibf_sl_read(l->fabric, a->sl, &sls, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (!a->deadlock) {
		ibf_sls_free(&sls);
		return IBF_EXIT_OK;
	}
	if (ibf_deadlock_check(l, a->sl ? &sls : NULL, &o, &rep, &err) !=
	    IBF_OK) {
		ibf_sls_free(&sls);
		return ibf_cli_fail(CMD, &err);
	}
	fprintf(out, "deadlock check (SL->VL identity, %u VL%s in use):\n",
	       rep.nvls, rep.nvls == 1 ? "" : "s");
	for (vl = 0; vl < IBF_NSLS; vl++) {
		if (!rep.routes[vl])
			continue;
		fprintf(out, "  VL %2u %12" PRIu64 " routes %10" PRIu64
		       " dependencies  %s\n", vl, rep.routes[vl],
		       rep.deps[vl], rep.cyclic[vl] ? "CYCLE" : "acyclic");
		if (rep.cyclic[vl]) {
			fprintf(out, "  cycle on VL %u (%u channels, each waits for "
			       "the next):\n", vl, rep.cycle_len[vl]);
			ibf_deadlock_print_cycle(l->fabric, &rep, vl, out);
			rc = IBF_EXIT_DEFECT;
		}
	}
	fprintf(out, "%s\n", rc ? "DEADLOCK POSSIBLE" : "deadlock-free");
	ibf_deadlock_report_free(&rep);
	ibf_sls_free(&sls);
	return rc;
}

int ibf_cmd_check(int argc, char **argv)
{
	ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t r;
	struct check_args a;
	ibf_fabric_t *f;
	ibf_lfts_t *l;
	ibf_err_t err;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? IBF_EXIT_OK : rc;
	rc = ibf_cli_load_routed(CMD, a.topo, a.lfts, a.lmc, &f, &l);
	if (rc != IBF_EXIT_OK)
		return rc;
	o.switches = a.switches;
	o.max_examples = a.max_report;
	o.nthreads = a.threads;
	o.naive = a.naive;
	ibf_err_clear(&err);
	if (ibf_check_run(l, &o, &r, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
	} else {
		/* JSON on stdout replaces the text report. */
		if (!a.json || strcmp(a.json, "-"))
			print_report(f, &r, &a);
		rc = a.json ? write_json(CMD, l, &r, a.json) : IBF_EXIT_OK;
		if (rc == IBF_EXIT_OK && ibf_check_defects(&r))
			rc = IBF_EXIT_DEFECT;
		if (rc != IBF_EXIT_INPUT && (a.sl || a.deadlock)) {
			int drc = check_deadlock(l, &a);

			rc = drc != IBF_EXIT_OK ? drc : rc;
		}
		ibf_check_report_free(&r);
	}
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	return rc;
}
