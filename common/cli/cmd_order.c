/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow order: a job's nodes in the routing's host order, as an Open MPI
 * hostfile or rankfile or a Slurm arbitrary-distribution host list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ibflow/export.h>
#include <ibflow/nodelist.h>
#include <ibflow/pgft.h>

#include "cli.h"

static const char *const CMD = "order";

/* In enum order: the index of the match is the value. */
enum { FMT_HOSTFILE, FMT_RANKFILE, FMT_SLURM };
static const char *const format_names[] = {
	"hostfile", "rankfile", "slurm", NULL
};

#define MAX_SLOTS 4096u

struct order_args {
	const char *fabric, *topo, *lfts, *out, *nodes;
	unsigned lmc, slots;
	int format;
};

static bool check_sources(const struct order_args *a, int *rc)
{
	if (a->fabric && (a->topo || a->lfts))
		*rc = ibf_cli_usage_error(CMD, "--fabric excludes --topo and "
					  "--lfts");
	else if (!a->fabric && !(a->topo && a->lfts))
		*rc = ibf_cli_usage_error(CMD, "give --fabric DIR, or --topo "
					  "FILE and --lfts FILE");
	else
		return true;
	return false;
}

static bool parse_args(int argc, char **argv, struct order_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_FABRIC(&a->fabric, "its\ntopology and host order"),
		IBF_OPT_TOPO_OR_FABRIC(&a->topo, ", with --lfts"),
		IBF_OPT_STR("lfts", &a->lfts, "FILE", "its forwarding tables "
			    "(checked against it)"),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_CHOICE("format", &a->format, "F", format_names,
			       "hostfile (NAME slots=N), rankfile\n(rank R=NAME "
			       "slot=S), slurm (a name per rank)",
			       .def = "hostfile"),
		IBF_OPT_UINT("slots", &a->slots, "N", 1, MAX_SLOTS, "ranks per "
			     "node", .def = "1"),
		IBF_OPT_OUTPUT(&a->out),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "(--fabric DIR | --topo FILE --lfts FILE) [options] "
			 "NODES",
		.operands = "NODES", .min_operands = 1, .max_operands = 1,
		.about =
"Write a job's nodes in the routing's host order, the order in which\n"
"D-mod-K's shift patterns are contention-free: ranks 0..N-1 of node 1,\n"
"then node 2, ...  NODES is a Slurm hostlist (h[0001-0004,0009],\n"
"r[1-2]n[1-8]), a file of names and hostlists, or - for stdin.  A node's\n"
"name is the first word of its NodeDescription (\"h0001 HCA-1\").\n"
"The order: --fabric, the export's (the engine's rank order); --topo, the\n"
"PGFT's topological order (dmodk's and uapr's), the topology's endpoint\n"
"order on other fabrics; in both, hosts grouped by leaf switch (which\n"
"leaves a PGFT's order as it is).  See docs/order.md.\n",
		.exit = "0 written, 2 bad usage or bad input (an unknown node "
			"is named;\nnothing is written).",
	};

	memset(a, 0, sizeof(*a));
	a->out = "-";
	if (!ibf_cli_parse(&cli, argc, argv, &a->nodes, rc))
		return false;
	return check_sources(a, rc);
}

/* NODES: "-" stdin, a file when one exists by that name (or the name has
 * a '/', which no host name has), else a hostlist expression. */
static int load_nodes(const char *arg, ibf_nodelist_t *nl)
{
	struct stat sb;
	ibf_err_t err;
	ibf_status_t st;

	ibf_err_clear(&err);
	if (!strcmp(arg, "-") || strchr(arg, '/') ||
	    (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode)))
		st = ibf_nodelist_read(nl, arg, &err);
	else
		st = ibf_nodelist_expand(nl, arg, strlen(arg), "<NODES>", 1,
					 &err);
	if (st != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (!nl->n)
		return ibf_cli_usage_error(CMD, "NODES: no node names in '%s'",
					   arg);
	return IBF_EXIT_OK;
}

/* The routing's order of the job's nodes, from --fabric or --topo. */
static int order_nodes(const struct order_args *a, ibf_nodelist_t *nl)
{
	ibf_export_t *e = NULL;
	ibf_fabric_t *f = NULL;
	ibf_lfts_t *l = NULL;
	ibf_pgft_t *pg = NULL;
	const ibf_port_id_t *order;
	uint32_t norder;
	ibf_err_t err;
	int rc;

	if (a->fabric) {
		rc = ibf_cli_load_export(CMD, a->fabric, &e);
		order = e ? e->order.ports : NULL;
		norder = e ? e->order.n : 0;
	} else {
		rc = ibf_cli_load_routed(CMD, a->topo, a->lfts, a->lmc, &f, &l);
		/* What dmodk/uapr write as their order; not a PGFT: the
		 * endpoint order (what the other engines write). */
		ibf_err_clear(&err);
		if (rc == IBF_EXIT_OK &&
		    ibf_pgft_recognize(f, &pg, &err) != IBF_OK)
			pg = NULL;
		order = pg ? pg->host_order : f ? f->endpoints : NULL;
		norder = pg ? pg->nhosts : f ? f->nendpoints : 0;
	}
	ibf_err_clear(&err);
	if (rc == IBF_EXIT_OK &&
	    ibf_nodelist_order(e ? e->fabric : f, order, norder, nl, &err) !=
	    IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	ibf_pgft_destroy(pg);
	ibf_lfts_destroy(l);
	ibf_fabric_destroy(f);
	ibf_export_free(e);
	return rc;
}

struct out_ctx {
	const ibf_nodelist_t *nl;
	int format;
	unsigned slots;
};

/* Ranks in blocks: node i holds ranks i*slots .. i*slots+slots-1. */
static ibf_status_t put_order(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct out_ctx *c = ctx;
	uint64_t rank = 0;
	uint32_t i;
	unsigned s;

	for (i = 0; i < c->nl->n; i++) {
		const char *name = c->nl->names[i];

		if (c->format == FMT_HOSTFILE) {
			fprintf(fp, "%s slots=%u\n", name, c->slots);
			continue;
		}
		for (s = 0; s < c->slots; s++, rank++)
			if (c->format == FMT_RANKFILE)
				fprintf(fp, "rank %llu=%s slot=%u\n",
					(unsigned long long)rank, name, s);
			else
				fprintf(fp, "%s\n", name);
	}
	if (ferror(fp))
		return ibf_err_set(err, IBF_ERR_IO, "write error");
	return IBF_OK;
}

int ibf_cmd_order(int argc, char **argv)
{
	struct order_args a;
	ibf_nodelist_t nl = { NULL, 0, 0 };
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	rc = load_nodes(a.nodes, &nl);
	if (rc == IBF_EXIT_OK)
		rc = order_nodes(&a, &nl);
	if (rc == IBF_EXIT_OK) {
		struct out_ctx c = { &nl, a.format, a.slots };

		rc = ibf_cli_write_file(CMD, a.out, put_order, &c);
	}
	ibf_nodelist_free(&nl);
	return rc;
}
