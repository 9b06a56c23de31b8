/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow convert: read a topology in one format, write it in another. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "convert";

int ibf_cmd_convert(int argc, char **argv)
{
	ibf_topo_read_opts_t ro = { .format = IBF_TOPO_AUTO, .lmc = 0 };
	const char *out = "-", *from = NULL, *in;
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
	rc = IBF_EXIT_OK;
	if (ibf_topo_write_file(f, ibf_cli_write_format(to), out, &err) !=
	    IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	ibf_fabric_destroy(f);
	return rc;
}
