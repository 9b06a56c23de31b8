/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow slurm-topology: Slurm's topology.conf (topology/tree) of the
 * fabric as it is, from the OpenSM plugin's export or a topology file. */
#include <stdio.h>
#include <string.h>

#include <ibflow/export.h>
#include <ibflow/slurm_topo.h>

#include "cli.h"

static const char *const CMD = "slurm-topology";

struct slurm_args {
	const char *fabric, *topo, *node_name_map, *host_map, *out;
};

static bool parse_args(int argc, char **argv, struct slurm_args *a, int *rc)
{
	const ibf_opt_t opts[] = {
		IBF_OPT_FABRIC(&a->fabric, "the\nfabric as OpenSM last "
			       "routed it"),
		IBF_OPT_TOPO_OR_FABRIC(&a->topo, ""),
		IBF_OPT_STR("node-name-map", &a->node_name_map, "FILE",
			    "switch names: ibnetdiscover's\n--node-name-map "
			    "file (NodeGUID \"name\" lines)",
			    .def_text = "S-<NodeGUID>"),
		IBF_OPT_STR("host-map", &a->host_map, "FILE", "Slurm node "
			    "names: \"HOST NAME\" lines,\nHOST as `ibflow "
			    "order` names it or a CA's\n0x NodeGUID (default: "
			    "the first word of\nthe NodeDescription)"),
		IBF_OPT_OUTPUT(&a->out),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "(--fabric DIR | --topo FILE) [options]",
		.about =
"Write Slurm's topology.conf for TopologyPlugin=topology/tree: a line\n"
"per leaf switch with its hosts (SwitchName=S Nodes=h[0000-0007,0010])\n"
"and per switch above with the switches one level down (Switches=A,B),\n"
"levels from the PGFT (else hop distance from the hosts), the fabric as\n"
"it is: a switch with no host below it and a host on no switch are left\n"
"out (named in comments).  Host names as `ibflow order` reads them (the\n"
"first word of the NodeDescription).  See docs/order.md.\n",
		.exit = "0 written, 2 bad usage or bad input (FILE:LINE of a "
			"map, or the\nnode whose name Slurm would not read back; "
			"nothing is written).",
	};

	memset(a, 0, sizeof(*a));
	a->out = "-";
	if (!ibf_cli_parse(&cli, argc, argv, NULL, rc))
		return false;
	if (!a->fabric == !a->topo) {
		*rc = ibf_cli_usage_error(CMD, "give one of --fabric DIR and "
					  "--topo FILE");
		return false;
	}
	return true;
}

/* The names the maps give. */
static int load_names(const struct slurm_args *a, const ibf_fabric_t *f,
		      ibf_slurm_names_t *names)
{
	ibf_err_t err;
	ibf_status_t st;

	ibf_err_clear(&err);
	st = ibf_slurm_names_init(f, names, &err);
	if (st == IBF_OK && a->node_name_map)
		st = ibf_slurm_read_node_name_map(f, a->node_name_map, names,
						  &err);
	if (st == IBF_OK && a->host_map)
		st = ibf_slurm_read_host_map(f, a->host_map, names, &err);
	return st == IBF_OK ? IBF_EXIT_OK : ibf_cli_fail(CMD, &err);
}

static ibf_status_t put_topo(const void *ctx, FILE *fp, ibf_err_t *err)
{
	return ibf_slurm_topo_write(ctx, fp, err);
}

static int write_topo(const struct slurm_args *a, const ibf_fabric_t *f)
{
	ibf_slurm_names_t names = { NULL, 0 };
	ibf_slurm_topo_t t;
	ibf_err_t err;
	int rc = load_names(a, f, &names);

	ibf_err_clear(&err);
	if (rc == IBF_EXIT_OK &&
	    ibf_slurm_topo_build(f, &names, &t, &err) != IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	ibf_slurm_names_free(&names);
	if (rc != IBF_EXIT_OK)
		return rc;
	rc = ibf_cli_write_file(CMD, a->out, put_topo, &t);
	if (rc == IBF_EXIT_OK)
		fprintf(stderr, "ibflow %s: %u switches on %u level%s (%s), %u "
			"hosts; left out: %u hosts on no switch, %u switches "
			"without hosts, %u links within a level\n", CMD, t.nsw,
			t.levels, t.levels == 1 ? "" : "s", t.pgft ? "the PGFT's" : "hop distance from "
			"the hosts", t.hosts, t.noff_switch, t.hostless,
			t.level_links);
	if (rc == IBF_EXIT_OK && t.level_links)
		fprintf(stderr, "ibflow %s: note: not a tree with hosts only "
			"on its leaves; Slurm places a job across the links "
			"left out only through a switch above both ends\n",
			CMD);
	ibf_slurm_topo_free(&t);
	return rc;
}

int ibf_cmd_slurm_topology(int argc, char **argv)
{
	struct slurm_args a;
	ibf_export_t *e = NULL;
	ibf_fabric_t *f = NULL;
	int rc;

	if (!parse_args(argc, argv, &a, &rc))
		return rc;
	if (a.fabric) {
		rc = ibf_cli_load_export(CMD, a.fabric, &e);
	} else {
		f = ibf_cli_load_topo(CMD, a.topo, 0);
		rc = f ? IBF_EXIT_OK : IBF_EXIT_INPUT;
	}
	if (rc == IBF_EXIT_OK)
		rc = write_topo(&a, e ? e->fabric : f);
	ibf_fabric_destroy(f);
	ibf_export_free(e);
	return rc;
}
