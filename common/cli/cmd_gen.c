/* ibflow gen: generate a topology from a spec and write it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <ibflow/gen.h>

#include "cli.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: ibflow gen SPEC [--lmc N] [--format FMT] [-o FILE]\n\n"
		"Generate the topology SPEC (docs/generators.md) and write "
		"it.\n\n"
		"  pgft:H:M1,..,MH:W1,..,WH:P1,..,PH  parallel-ports "
		"generalized fat tree\n"
		"  xgft:H:M1,..,MH:W1,..,WH           PGFT with all P = 1\n"
		"  kary:K,N                           k-ary n-tree\n"
		"  slimfly:Q[:P]                      MMS graph, Q an odd "
		"prime\n"
		"  dragonfly:A,P,H                    A routers/group, P "
		"hosts/router,\n"
		"                                     H global links/router, "
		"A*H+1 groups\n"
		"  hyperx:L:S:K[:P]                   L dims of S routers, K "
		"links per pair\n"
		"  jellyfish:NR,K,P[:SEED]            random K-regular graph "
		"of NR routers\n"
		"  torus:X,Y,Z[:P]                    3D torus of switches\n"
		"  e.g. pgft:3:6,6,12:1,6,6:1,1,1   slimfly:5   "
		"dragonfly:4,2,2\n\n"
		"  --lmc N       LMC of the CA ports, 0..7, default 0\n"
		"  --format FMT  ibnetdiscover (default), ibsim, dot\n"
		"  -o FILE       output file, written atomically (default: "
		"stdout)\n\n"
		"Exit status: 0 ok, 2 bad usage or bad spec.\n");
}

int ibf_cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lmc", required_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ibf_topo_format_t fmt = IBF_TOPO_IBNETDISCOVER;
	ibf_gen_opts_t go = { .lmc = 0 };
	const char *out = "-";
	ibf_fabric_t *f = NULL;
	ibf_err_t err;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			rc = ibf_cli_parse_uint("gen", "--lmc", optarg, 0,
						IBF_LMC_MAX, &go.lmc);
			if (rc != IBF_EXIT_OK)
				return rc;
			break;
		case 'f':
			rc = ibf_cli_parse_write_format("gen", "--format",
							optarg, &fmt);
			if (rc != IBF_EXIT_OK)
				return rc;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return IBF_EXIT_OK;
		default:
			return ibf_cli_usage_error("gen", "bad option");
		}
	}
	if (optind != argc - 1)
		return ibf_cli_usage_error("gen", "expected one SPEC");
	ibf_err_clear(&err);
	if (ibf_gen(argv[optind], &go, &f, &err) != IBF_OK)
		return ibf_cli_fail("gen", &err);
	rc = IBF_EXIT_OK;
	if (ibf_topo_write_file(f, fmt, out, &err) != IBF_OK)
		rc = ibf_cli_fail("gen", &err);
	ibf_fabric_destroy(f);
	return rc;
}
