/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow convert: read a topology in one format, write it in another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "convert";

/* NODE as users write it: a 0x node or port GUID, a LID, or a unique
 * NodeDescription. */
static ibf_node_id_t find_node(const ibf_fabric_t *f, const char *name)
{
	ibf_node_id_t n;
	ibf_port_id_t p;
	bool ambiguous = false;
	char *end;
	unsigned long long v;

	if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		v = strtoull(name + 2, &end, 16);
		if (*end || end == name + 2)
			return IBF_NO_ID;
		n = ibf_fabric_node_by_guid(f, v);
		if (n == IBF_NO_ID &&
		    (p = ibf_fabric_port_by_guid(f, v)) != IBF_NO_ID)
			n = f->ports[p].node;
		return n;
	}
	v = strtoull(name, &end, 10);
	if (!*end && end != name)
		return v <= IBF_LID_UCAST_MAX &&
		       (p = ibf_fabric_lid_owner(f, (unsigned)v)) != IBF_NO_ID
			       ? f->ports[p].node : IBF_NO_ID;
	n = ibf_fabric_node_by_desc(f, name, &ambiguous);
	return ambiguous ? IBF_NO_ID : n;
}

static int write_ibsim_sm(const ibf_fabric_t *f, int to, const char *name,
			  const char *out)
{
	ibf_node_id_t n;
	ibf_ofile_t o;
	ibf_err_t err;

	if (ibf_cli_write_format(to) != IBF_TOPO_IBSIM)
		return ibf_cli_usage_error(CMD, "--sm needs --to ibsim");
	if ((n = find_node(f, name)) == IBF_NO_ID)
		return ibf_cli_usage_error(CMD, "--sm: no node \"%s\" (or "
					   "several share that description)",
					   name);
	ibf_err_clear(&err);
	if (ibf_ofile_open(&o, out, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	if (ibf_topo_write_ibsim_sm(f, n, o.fp, &err) != IBF_OK) {
		ibf_ofile_abort(&o);
		return ibf_cli_fail(CMD, &err);
	}
	if (ibf_ofile_commit(&o, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	return IBF_EXIT_OK;
}

int ibf_cmd_convert(int argc, char **argv)
{
	ibf_topo_read_opts_t ro = { .format = IBF_TOPO_AUTO, .lmc = 0 };
	const char *out = "-", *from = NULL, *sm = NULL, *in;
	int to = 0;
	const ibf_opt_t opts[] = {
		IBF_OPT_STR("from", &from, "FMT", "input format: ibnetdiscover, "
			    "ibsim, subnet-lst\n(default: detected from the "
			    "content)"),
		IBF_OPT_CHOICE("to", &to, "FMT", ibf_cli_write_formats,
			       "output format: ibnetdiscover, ibsim or dot",
			       .def = "ibnetdiscover"),
		IBF_OPT_UINT("lmc", &ro.lmc, "N", 0, IBF_LMC_MAX,
			     "LMC for CA ports when IN carries no LIDs\nor no "
			     "LMC (opensm-subnet.lst)", .def = "0"),
		IBF_OPT_STR("sm", &sm, "NODE", "with --to ibsim: the node "
			    "OpenSM runs from,\nwritten first (NodeDescription, "
			    "0x GUID or LID;\ndefault: the first CA with port 1 "
			    "cabled,\nelse the first switch)"),
		IBF_OPT_OUTPUT(&out),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.operands = "IN", .min_operands = 1, .max_operands = 1,
		.about = "Read the topology IN (\"-\" = stdin) and write it "
			 "again.\n",
		.exit = "0 ok, 2 bad usage or bad input.",
	};
	ibf_fabric_t *f = NULL;
	ibf_err_t err;
	int rc;

	if (!ibf_cli_parse(&cli, argc, argv, &in, &rc))
		return rc;
	if (from) {
		ro.format = ibf_topo_format_from_name(from);
		if (ro.format == IBF_TOPO_AUTO || ro.format == IBF_TOPO_DOT)
			return ibf_cli_usage_error(CMD, "--from: unknown input "
						   "format '%s'", from);
	}
	ibf_err_clear(&err);
	if (ibf_topo_read(in, &ro, &f, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	ibf_cli_note_lids(CMD, in, f);
	if (sm)
		rc = write_ibsim_sm(f, to, sm, out);
	else if (ibf_topo_write_file(f, ibf_cli_write_format(to), out,
				     &err) != IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	else
		rc = IBF_EXIT_OK;
	ibf_fabric_destroy(f);
	return rc;
}
