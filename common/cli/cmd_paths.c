/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow paths: print the hops of the route from one host to another. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibflow/trace.h>

#include "cli.h"

static const char *const CMD = "paths";

struct paths_args {
	const char *topo, *lfts, *src, *dst;
	unsigned lmc;
	bool all_lids;
};

static bool parse_args(int argc, char **argv, struct paths_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_TOPO(&a->topo),
		IBF_OPT_LFTS(&a->lfts),
		IBF_OPT_LMC(&a->lmc),
		IBF_OPT_FLAG("all-lids", &a->all_lids, "one route per LID of DST "
			     "(all 2^LMC offsets)"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.operands = "SRC DST", .min_operands = 2, .max_operands = 2,
		.about =
"Print the route from host SRC to DST through the switches' LFTs, hop by\n"
"hop: node, GUID, in port -> out port, link width and speed, and how the\n"
"route ends.  SRC and DST are NodeDescriptions (quote names with spaces),\n"
"0x port or node GUIDs, or LIDs.  A LID as DST selects that LID (one LID\n"
"offset of a host, or a switch); a host name selects its base LID.\n"
"SRC and DST must differ: a port reaches its own LIDs without the network.\n",
		.exit = "0 route(s) delivered, 1 a route is broken, 2 bad "
			"input.",
	};
	const char *ends[2];

	memset(a, 0, sizeof(*a));
	if (!ibf_cli_parse(&cli, argc, argv, ends, rc))
		return false;
	a->src = ends[0];
	a->dst = ends[1];
	return true;
}

static void print_hop(const ibf_fabric_t *f, const ibf_port_id_t *hops,
		      unsigned i)
{
	const ibf_port_t *out = &f->ports[hops[i]];
	const ibf_node_t *n = &f->nodes[out->node];
	char io[32], link[32];

	if (i == 0)
		snprintf(io, sizeof(io), "out %u", out->num);
	else
		snprintf(io, sizeof(io), "in %u -> out %u",
			 f->ports[f->ports[hops[i - 1]].peer].num, out->num);
	if (out->width)
		snprintf(link, sizeof(link), "%ux %s", out->width,
			 ibf_speed_name((ibf_speed_t)out->speed));
	else
		snprintf(link, sizeof(link), "-");
	printf("  %3u  %-28s 0x%016" PRIx64 "  %-16s %s\n", i + 1,
	       ibf_node_desc(f, out->node), n->guid, io, link);
}

static void print_end(const ibf_fabric_t *f, const ibf_port_id_t *hops,
		      const ibf_trace_info_t *in)
{
	const char *d = ibf_node_desc(f, in->node);
	unsigned inport = 0;

	if (in->nhops)
		inport = f->ports[f->ports[hops[in->nhops - 1]].peer].num;
	switch (in->result) {
	case IBF_TRACE_OK:
		printf("  delivered to \"%s\" port %u after %u hop%s\n", d,
		       in->port, in->nhops, in->nhops == 1 ? "" : "s");
		break;
	case IBF_TRACE_MISDELIVERED:
		printf("  MISDELIVERED: arrived at \"%s\" port %u, which does "
		       "not own the LID (after %u hop%s)\n", d, in->port,
		       in->nhops, in->nhops == 1 ? "" : "s");
		break;
	case IBF_TRACE_NO_ROUTE:
		printf("  NO ROUTE: switch \"%s\" (in %u) has no LFT entry for "
		       "the LID\n", d, inport);
		break;
	case IBF_TRACE_NO_SWITCH_TABLE:
		printf("  NO SWITCH TABLE: switch \"%s\" (in %u) has no LFT\n",
		       d, inport);
		break;
	case IBF_TRACE_DEAD_END:
		printf("  DEAD END: switch \"%s\" (in %u) sends it to port %u,"
		       " %s\n", d, inport, in->port,
		       in->port > f->nodes[in->node].nports ?
		       "beyond its ports" : "which has no link");
		break;
	case IBF_TRACE_LOOP:
		printf("  LOOP: switch \"%s\" is reached a second time (out "
		       "port %u)\n", d, in->port);
		break;
	}
}

/* Trace and print one route; returns true when delivered. */
static bool show_route(const ibf_lfts_t *l, ibf_port_id_t src,
		       unsigned dlid, ibf_port_id_t *hops, unsigned max)
{
	const ibf_fabric_t *f = l->fabric;
	ibf_port_id_t owner = ibf_fabric_lid_owner(f, dlid);
	ibf_trace_info_t info;
	char sb[128], db[128];
	unsigned i;

	ibf_trace_info(l, src, dlid, hops, max, &info);
	printf("%s -> %s, DLID %u", ibf_port_host_name(f, src, sb, sizeof(sb)),
	       ibf_cli_dest_name(f, owner, db, sizeof(db)), dlid);
	if (!ibf_node_is_switch(f, f->ports[owner].node) && f->lmc)
		printf(" (offset %u)", dlid - f->ports[owner].lid);
	printf(": %s\n", ibf_trace_result_str(info.result));
	for (i = 0; i < info.nhops && i < max; i++)
		print_hop(f, hops, i);
	print_end(f, hops, &info);
	return info.result == IBF_TRACE_OK;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* DST: a LID names itself; a host name its base LID (all LIDs with
 * --all-lids). */
static int resolve_dst(const ibf_fabric_t *f, const struct paths_args *a,
		       unsigned *first, unsigned *count)
{
	ibf_port_id_t p;
	ibf_err_t err;

	if (all_digits(a->dst)) {
		unsigned long v = strtoul(a->dst, NULL, 10);

		if (v == 0 || v > IBF_LID_UCAST_MAX ||
		    ibf_fabric_lid_owner(f, (unsigned)v) == IBF_NO_ID)
			return ibf_cli_usage_error(CMD, "LID %s is not in use "
						   "in the topology", a->dst);
		*first = (unsigned)v;
		*count = 1;
		return IBF_EXIT_OK;
	}
	ibf_err_clear(&err);
	if (ibf_fabric_resolve_host(f, a->dst, &p, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	*first = f->ports[p].lid;
	*count = a->all_lids ? 1u << f->ports[p].lmc : 1;
	return IBF_EXIT_OK;
}

static int paths_routed(const ibf_lfts_t *l, void *arg)
{
	const struct paths_args *a = arg;
	const ibf_fabric_t *f = l->fabric;
	unsigned first = 0, count = 0, i, max;
	ibf_port_id_t src, *hops;
	bool ok = true;
	ibf_err_t err;
	int rc;

	ibf_err_clear(&err);
	if (ibf_fabric_resolve_host(f, a->src, &src, &err) != IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	else
		rc = resolve_dst(f, a, &first, &count);
	if (!rc && ibf_fabric_lid_owner(f, first) == src)
		rc = ibf_cli_usage_error(CMD, "SRC and DST are the same port "
					 "(LID %u): a port reaches its own "
					 "LIDs without the network", first);
	/* the longest walk: every switch, then once more round a loop */
	max = 2 * f->nswitches + 2;
	hops = rc ? NULL : malloc(max * sizeof(*hops));
	if (!rc && !hops)
		rc = ibf_cli_usage_error(CMD, "out of memory");
	for (i = 0; !rc && i < count; i++) {
		if (i)
			printf("\n");
		ok &= show_route(l, src, first + i, hops, max);
	}
	if (!rc && !ok)
		rc = IBF_EXIT_DEFECT;
	free(hops);
	return rc;
}

int ibf_cmd_paths(int argc, char **argv)
{
	struct paths_args a;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	return ibf_cli_run_routed(CMD, a.topo, a.lfts, a.lmc, paths_routed, &a);
}
