/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow netplan: the fabric and its LFTs as a line-based plan for
 * emulating it (scripts/netns-fabric turns each line into namespaces, veth
 * pairs, addresses and routes).  Format: docs/formats-routing.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "netplan";

struct netplan_args {
	const char *topo, *lfts, *out;
	unsigned lmc;
};

static bool parse_args(int argc, char **argv, struct netplan_args *a,
		       int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_OUTPUT(&a->out),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.about =
"Print the fabric and its forwarding tables as one record per line:\n"
"  lmc N\n"
"  node ID ca|switch|router NODE_GUID NPORTS LID DESCRIPTION\n"
"  port NODE PORT PORT_GUID LID LMC        (every connected CA port)\n"
"  link NODE_A PORT_A NODE_B PORT_B WIDTH SPEED\n"
"  route SWITCH DLID PORT                  (every LFT entry of a LID in use)\n"
"NODE ids are node numbers in file order; LID is \"-\" on CAs.\n"
"scripts/netns-fabric builds an emulated fabric from it\n"
"(docs/formats-netns.md).\n",
		.exit = "0 ok, 2 bad usage or bad input.",
	};

	memset(a, 0, sizeof(*a));
	a->out = "-";
	return ibf_cli_parse(&cli, argc, argv, NULL, rc);
}

/* The description is the rest of its line: control characters would
 * break the line structure, so they are printed as '?'. */
static void print_desc(FILE *fp, const char *d)
{
	for (; *d; d++)
		fputc((unsigned char)*d < 0x20 || *d == 0x7f ? '?' : *d, fp);
	fputc('\n', fp);
}

static const char *type_name(const ibf_node_t *n)
{
	switch (n->type) {
	case IBF_NODE_SWITCH: return "switch";
	case IBF_NODE_ROUTER: return "router";
	default: return "ca";
	}
}

static void print_nodes(FILE *fp, const ibf_fabric_t *f)
{
	ibf_node_id_t n;

	for (n = 0; n < f->nnodes; n++) {
		const ibf_node_t *nd = ibf_node(f, n);

		fprintf(fp, "node %u %s 0x%016" PRIx64 " %u ", n,
			type_name(nd), nd->guid, nd->nports);
		if (nd->type == IBF_NODE_SWITCH)
			fprintf(fp, "%u ", ibf_node_port(f, n, 0)->lid);
		else
			fprintf(fp, "- ");
		print_desc(fp, ibf_node_desc(f, n));
	}
}

static void print_ports_links(FILE *fp, const ibf_fabric_t *f)
{
	ibf_port_id_t p;
	uint32_t i;

	for (i = 0; i < f->nendpoints; i++) {
		const ibf_port_t *pt = ibf_port(f, f->endpoints[i]);

		fprintf(fp, "port %u %u 0x%016" PRIx64 " %u %u\n", pt->node,
			pt->num, pt->guid, pt->lid, pt->lmc);
	}
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *a = ibf_port(f, p), *b;

		if (a->peer == IBF_NO_ID || a->peer < p)
			continue;
		b = ibf_port(f, a->peer);
		fprintf(fp, "link %u %u %u %u ", a->node, a->num, b->node,
			b->num);
		if (a->width)
			fprintf(fp, "%u ", a->width);
		else
			fprintf(fp, "- ");
		fprintf(fp, "%s\n", a->speed ?
			ibf_speed_name((ibf_speed_t)a->speed) : "-");
	}
}

/* Only LIDs somebody owns: entries for unused LIDs forward nothing. */
static void print_routes(FILE *fp, const ibf_lfts_t *l)
{
	const ibf_fabric_t *f = l->fabric;
	unsigned lid;
	uint32_t s;
	uint8_t port;

	for (s = 0; s < f->nswitches; s++) {
		if (!l->has_table[s])
			continue;
		for (lid = 1; lid <= f->lid_top; lid++) {
			if (ibf_fabric_lid_owner(f, lid) == IBF_NO_ID)
				continue;
			port = ibf_lfts_get(l, s, lid);
			if (port != IBF_LFT_NO_PORT)
				fprintf(fp, "route %u %u %u\n",
					f->switches[s], lid, port);
		}
	}
}

struct plan_ctx {
	const struct netplan_args *a;
	const ibf_lfts_t *l;
};

static ibf_status_t write_plan(const void *ctx, FILE *fp, ibf_err_t *err)
{
	const struct plan_ctx *c = ctx;

	(void)err;
	fprintf(fp, "# ibflow netplan 1\n# topology %s, tables %s\n",
		c->a->topo, c->a->lfts);
	fprintf(fp, "lmc %u\n", c->l->fabric->lmc);
	print_nodes(fp, c->l->fabric);
	print_ports_links(fp, c->l->fabric);
	print_routes(fp, c->l);
	return IBF_OK;
}

static int netplan_routed(const ibf_lfts_t *l, void *arg)
{
	const struct netplan_args *a = arg;
	struct plan_ctx ctx = { a, l };

	return ibf_cli_write_file(CMD, a->out, write_plan, &ctx);
}

int ibf_cmd_netplan(int argc, char **argv)
{
	struct netplan_args a;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	return ibf_cli_run_routed(CMD, a.topo, a.lfts, a.lmc, netplan_routed,
				  &a);
}
