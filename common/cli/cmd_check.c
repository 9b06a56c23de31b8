/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow check: trace all routes through LFTs and report defects. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ibflow/deadlock.h>
#include <ibflow/sl_io.h>
#include <ibflow/check.h>
#include <ibflow/trace.h>

#include "cli.h"

static const char *const CMD = "check";

struct check_args {
	const char *topo, *lfts, *json, *sl;
	unsigned lmc, max_report, threads;
	bool switches, naive, deadlock;
};

static bool parse_args(int argc, char **argv, struct check_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_FLAG("switches", &a->switches, "also trace routes to "
			     "every switch LID"),
		IBF_OPT_UINT("max-report", &a->max_report, "N", 0, 100000,
			     "defects listed per kind", .def = "10"),
		IBF_OPT_JSON(&a->json, "the report"),
		IBF_OPT_THREADS(&a->threads),
		IBF_OPT_FLAG("naive", &a->naive, "trace pair by pair (reference "
			     "algorithm; slower)"),
		IBF_OPT_STR("sl", &a->sl, "FILE", "SL of every route, from "
			    "ibflow route --sl-out", .def_text = "SL 0"),
		IBF_OPT_FLAG("deadlock", &a->deadlock, "check that each VL's "
			     "channel dependency graph is\nacyclic (SL->VL "
			     "identity); a cycle is printed and\ncounts as a "
			     "defect.  With --sl also the verdict\nwith "
			     "every packet on SL 0 (MPI over UCX)"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.about =
"Trace the route of every (source host, destination LID) pair through the\n"
"switches' linear forwarding tables: every LID of every other host (all\n"
"2^LMC of them) and, with --switches, every switch LID.  Prints counts of\n"
"delivered routes and of each defect, the hop-count histogram, per LID\n"
"offset figures when LMC > 0, and the first defects of each kind with the\n"
"switch and port where the route went wrong.\n",
		.notes =
"Hops are links: host-leaf-host is 2.  Defects: no route (LFT entry 255),\n"
"loop (a switch visited twice), dead end (an entry naming a port without a\n"
"link or beyond the switch's ports), misdelivered (arrived at a host or\n"
"switch that does not own the LID), no switch table (a switch on the way\n"
"has no LFT).\n",
		.exit = "0 no defect, 1 defects found, 2 bad usage or input.",
	};

	memset(a, 0, sizeof(*a));
	return ibf_cli_parse(&cli, argc, argv, NULL, rc);
}

/* ---- the text report ----------------------------------------------------- */

static double mean_hops(const ibf_check_stats_t *s)
{
	return s->count[IBF_TRACE_OK] ?
	       (double)s->hop_sum / (double)s->count[IBF_TRACE_OK] : 0.0;
}

static void print_stats_line(FILE *o, const char *label, const ibf_check_stats_t *s)
{
	fprintf(o, "  %-12s %12" PRIu64 " pairs %12" PRIu64 " ok %10" PRIu64
	       " defects   hops %u/%.3f/%u\n", label, s->pairs,
	       s->count[IBF_TRACE_OK], s->pairs - s->count[IBF_TRACE_OK],
	       s->hop_min, mean_hops(s), s->hop_max);
}

static void print_counts(FILE *o, const ibf_check_report_t *r)
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
		fprintf(o, "  %-16s %12" PRIu64, rows[i].label,
		       r->all.count[rows[i].res]);
		if (rows[i].res == IBF_TRACE_NO_SWITCH_TABLE)
			fprintf(o, "   (switches without a table: %u)",
			       r->switches_without_table);
		fprintf(o, "\n");
	}
}

static void print_hops(FILE *o, const ibf_check_report_t *r)
{
	uint64_t ok = r->all.count[IBF_TRACE_OK];
	unsigned h;

	if (!ok) {
		fprintf(o, "hops: no route delivered\n");
		return;
	}
	fprintf(o, "hops (links): min %u  mean %.3f  max %u\n", r->all.hop_min,
	       mean_hops(&r->all), r->all.hop_max);
	for (h = 0; h < r->hop_hist_len; h++)
		if (r->hop_hist[h])
			fprintf(o, "  %3u hops %12" PRIu64 "  %6.2f%%\n", h,
			       r->hop_hist[h], 100.0 * r->hop_hist[h] / ok);
}

static void print_where(FILE *o, const ibf_fabric_t *f, const ibf_check_example_t *e)
{
	const ibf_trace_info_t *in = &e->info;
	const char *d = ibf_node_desc(f, in->node);
	uint64_t guid = f->nodes[in->node].guid;
	char buf[128];

	switch (in->result) {
	case IBF_TRACE_NO_ROUTE:
		fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") has no entry for "
		       "the LID", d, guid);
		break;
	case IBF_TRACE_NO_SWITCH_TABLE:
		fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") has no LFT", d, guid);
		break;
	case IBF_TRACE_DEAD_END:
		if (in->port > f->nodes[in->node].nports)
			fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") sends it to "
			       "port %u, beyond its %u ports", d, guid,
			       in->port, f->nodes[in->node].nports);
		else
			fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") sends it to "
			       "port %u, which has no link", d, guid, in->port);
		break;
	case IBF_TRACE_LOOP:
		fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") is reached twice "
		       "(out port %u)", d, guid, in->port);
		break;
	case IBF_TRACE_MISDELIVERED:
		if (ibf_node_is_switch(f, in->node))
			fprintf(o, "switch \"%s\" (0x%016" PRIx64 ") keeps it "
			       "(port 0)", d, guid);
		else
			fprintf(o, "delivered to %s port %u instead",
			       ibf_port_host_name(f, ibf_node_port_id(f,
					in->node, in->port), buf, sizeof(buf)),
			       in->port);
		break;
	case IBF_TRACE_OK:
		break;
	}
	fprintf(o, " after %u hop%s\n", in->nhops, in->nhops == 1 ? "" : "s");
}

static void print_examples(FILE *o, const ibf_fabric_t *f, const ibf_check_report_t *r,
			   unsigned max)
{
	char sb[128], db[160];
	unsigned i, k;

	if (!ibf_check_defects(r) || !max)
		return;
	fprintf(o, "defects (first %u of each kind):\n", max);
	for (i = 1; i < IBF_TRACE_NRESULTS; i++)
		for (k = 0; k < r->nexamples[i]; k++) {
			const ibf_check_example_t *e = &r->examples[i][k];

			fprintf(o, "  %-15s %s -> %s (LID %u): ",
			       ibf_trace_result_str((ibf_trace_result_t)i),
			       ibf_port_host_name(f, e->src, sb, sizeof(sb)),
			       ibf_cli_dest_name(f, e->dst, db, sizeof(db)), e->dlid);
			print_where(o, f, e);
		}
}

static void print_report(FILE *o, const ibf_fabric_t *f, const ibf_check_report_t *r,
			 const struct check_args *a)
{
	unsigned i;

	fprintf(o, "fabric: %u endpoints, %u switches, LMC %u\n", f->nendpoints,
	       f->nswitches, f->lmc);
	fprintf(o, "pairs traced: %" PRIu64 " (%u sources, %u destination LIDs%s)"
	       "\n", r->all.pairs, r->nsources, r->ndlids,
	       a->switches ? " incl. switches" : "");
	print_counts(o, r);
	print_hops(o, r);
	if (r->noffsets > 1) {
		fprintf(o, "by LID offset (to hosts):\n");
		for (i = 0; i < r->noffsets; i++) {
			char label[32];

			snprintf(label, sizeof(label), "offset %u", i);
			print_stats_line(o, label, &r->by_offset[i]);
		}
	}
	if (a->switches)
		print_stats_line(o, "to switches", &r->to_switches);
	print_examples(o, f, r, a->max_report);
	fprintf(o, "%s\n", ibf_check_defects(r) ? "DEFECTS FOUND" :
	       "all routes delivered");
}

/* --json: the library's document, behind ibf_cli_write_file(). */
struct json_ctx {
	const ibf_lfts_t *l;
	const ibf_check_report_t *r;
};

static ibf_status_t put_json(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct json_ctx *c = ctx;

	return ibf_check_report_write_json(c->l, c->r, fp, err);
}

/* The cycle of a VL: one channel a line, "  "SWITCH"/PORT -> "PEER"/PORT". */
static void print_cycle(const ibf_fabric_t *f,
			const ibf_deadlock_report_t *rep, unsigned vl,
			FILE *fp)
{
	for (unsigned i = 0; i < rep->cycle_len[vl]; i++) {
		const ibf_port_t *a = &f->ports[rep->cycle[vl][i]];
		const ibf_port_t *b = &f->ports[a->peer];

		fprintf(fp, "  \"%s\"/%u -> \"%s\"/%u\n",
			ibf_node_desc(f, a->node), a->num,
			ibf_node_desc(f, b->node), b->num);
	}
}

/* One deadlock verdict: the CDG of every VL, with sls (NULL: every packet
 * on SL 0); IBF_EXIT_DEFECT on a cycle, IBF_EXIT_INPUT on a failure. */
static int deadlock_verdict(const ibf_lfts_t *l, const struct check_args *a,
			    const ibf_sls_t *sls, const char *what, FILE *out)
{
	ibf_deadlock_opts_t o = { .switches = a->switches };
	ibf_deadlock_report_t rep;
	ibf_err_t err;
	unsigned vl;
	int rc = IBF_EXIT_OK;

	ibf_err_clear(&err);
	if (ibf_deadlock_check(l, sls, &o, &rep, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	fprintf(out, "deadlock check %s, SL->VL identity, %u VL%s in use:\n",
		what, rep.nvls, rep.nvls == 1 ? "" : "s");
	for (vl = 0; vl < IBF_NSLS; vl++) {
		if (!rep.routes[vl])
			continue;
		fprintf(out, "  VL %2u %12" PRIu64 " routes %10" PRIu64
		       " dependencies  %s\n", vl, rep.routes[vl],
		       rep.deps[vl], rep.cyclic[vl] ? "CYCLE" : "acyclic");
		if (rep.cyclic[vl]) {
			fprintf(out, "  cycle on VL %u (%u channels, each waits for "
			       "the next):\n", vl, rep.cycle_len[vl]);
			print_cycle(l->fabric, &rep, vl, out);
			rc = IBF_EXIT_DEFECT;
		}
	}
	fprintf(out, "%s %s\n", rc ? "DEADLOCK POSSIBLE" : "deadlock-free",
		what);
	ibf_deadlock_report_free(&rep);
	return rc;
}

/* --sl / --deadlock: with --sl two verdicts, the routing's SLs and every
 * packet on one SL (how MPI over UCX sends: UCX_IB_SL), the exit status
 * from the first; IBF_EXIT_DEFECT on a cycle. */
static int check_deadlock(const ibf_lfts_t *l, const struct check_args *a)
{
	ibf_sls_t sls = { 0 };
	ibf_err_t err;
	int rc;
	FILE *out = ibf_cli_text_out(a->json);

	ibf_err_clear(&err);
	if (a->sl && ibf_sls_read(l->fabric, a->sl, &sls, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (!a->deadlock) {
		ibf_sls_free(&sls);
		return IBF_EXIT_OK;
	}
	if (!a->sl)
		return deadlock_verdict(l, a, NULL, "on one SL (SL 0)", out);
	rc = deadlock_verdict(l, a, &sls, "with the routing's SLs", out);
	if (rc != IBF_EXIT_INPUT) {
		int one = deadlock_verdict(l, a, NULL, "on one SL (every packet "
					   "on SL 0, as MPI over UCX sends)", out);

		rc = one == IBF_EXIT_INPUT ? one : rc;
	}
	ibf_sls_free(&sls);
	return rc;
}

static int check_routed(const ibf_lfts_t *l, void *arg)
{
	const struct check_args *a = arg;
	ibf_check_opts_t o = IBF_CHECK_OPTS_DEFAULT;
	ibf_check_report_t r;
	ibf_err_t err;
	int rc;

	o.switches = a->switches;
	o.max_examples = a->max_report;
	o.nthreads = a->threads;
	o.naive = a->naive;
	ibf_err_clear(&err);
	if (ibf_check_run(l, &o, &r, &err) != IBF_OK) {
		rc = ibf_cli_fail(CMD, &err);
	} else {
		struct json_ctx jc = { l, &r };

		print_report(ibf_cli_text_out(a->json), l->fabric, &r, a);
		rc = a->json ? ibf_cli_write_file(CMD, a->json, put_json, &jc) :
		     IBF_EXIT_OK;
		if (rc == IBF_EXIT_OK && ibf_check_defects(&r))
			rc = IBF_EXIT_DEFECT;
		if (rc != IBF_EXIT_INPUT && (a->sl || a->deadlock)) {
			int drc = check_deadlock(l, a);

			rc = drc != IBF_EXIT_OK ? drc : rc;
		}
		ibf_check_report_free(&r);
	}
	return rc;
}

int ibf_cmd_check(int argc, char **argv)
{
	struct check_args a;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	return ibf_cli_run_routed(CMD, a.topo, a.lfts, a.lmc, check_routed, &a);
}
