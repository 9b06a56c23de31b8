/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow gen: generate a topology from a spec and write it. */
#include <stdio.h>
#include <string.h>

#include <ibflow/gen.h>

#include "cli.h"

static const char *const CMD = "gen";

int ibf_cmd_gen(int argc, char **argv)
{
	ibf_gen_opts_t go = { .lmc = 0 };
	const char *out = "-", *spec;
	int format = 0;
	const ibf_opt_t opts[] = {
		IBF_OPT_UINT("lmc", &go.lmc, "N", 0, IBF_LMC_MAX,
			     "LMC of the CA ports", .def = "0"),
		IBF_OPT_CHOICE("format", &format, "FMT", ibf_cli_write_formats,
			       "ibnetdiscover, ibsim or dot",
			       .def = "ibnetdiscover"),
		IBF_OPT_OUTPUT(&out),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.operands = "SPEC", .min_operands = 1, .max_operands = 1,
		.about =
"Generate the topology SPEC (docs/generators.md) and write it.\n"
"\n"
"  pgft:H:M1,..,MH:W1,..,WH:P1,..,PH  parallel-ports generalized fat tree\n"
"  xgft:H:M1,..,MH:W1,..,WH           PGFT with all P = 1\n"
"  kary:K,N                           k-ary n-tree\n"
"  slimfly:Q[:P]                      MMS graph, Q an odd prime\n"
"  dragonfly:A,P,H                    A routers/group, P hosts/router,\n"
"                                     H global links/router, A*H+1 groups\n"
"  hyperx:L:S:K[:P]                   L dims of S routers, K links per pair\n"
"  jellyfish:NR,K,P[:SEED]            random K-regular graph of NR routers\n"
"  torus:X,Y,Z[:P]                    3D torus of switches\n"
"  tree:S,H,P[:SEED]                  random tree: S switches of P ports,\n"
"                                     H hosts\n"
"  swisst1                            the Swiss-T1 of the liquid scheduling\n"
"                                     paper: 8 switches in a K-ring, 64\n"
"                                     processors (route with swisst1)\n"
"  e.g. pgft:3:6,6,12:1,6,6:1,1,1   slimfly:5   dragonfly:4,2,2\n",
		.exit = "0 ok, 2 bad usage or bad spec.",
	};
	ibf_fabric_t *f = NULL;
	ibf_err_t err;
	int rc;

	if (!ibf_cli_parse(&cli, argc, argv, &spec, &rc))
		return rc;
	ibf_err_clear(&err);
	if (ibf_gen(spec, &go, &f, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	rc = IBF_EXIT_OK;
	if (ibf_topo_write_file(f, ibf_cli_write_format(format), out, &err) !=
	    IBF_OK)
		rc = ibf_cli_fail(CMD, &err);
	ibf_fabric_destroy(f);
	return rc;
}
