/* ibflow convert: read a topology in one format, write it in another. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: ibflow convert IN [--from FMT] [--to FMT] [--lmc N] "
		"[-o FILE]\n\n"
		"Read the topology IN (\"-\" = stdin) and write it again.\n\n"
		"  --from FMT  input format: ibnetdiscover, ibsim, subnet-lst "
		"(default:\n"
		"              detected from the content)\n"
		"  --to FMT    output format: ibnetdiscover (default), ibsim, "
		"dot\n"
		"  --lmc N     LMC for CA ports when IN carries no LIDs or no "
		"LMC\n"
		"              (opensm-subnet.lst), 0..7, default 0\n"
		"  -o FILE     output file, written atomically (default: "
		"stdout)\n\n"
		"Exit status: 0 ok, 2 bad usage or bad input.\n");
}

int ibf_cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "lmc", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	ibf_topo_read_opts_t ro = { .format = IBF_TOPO_AUTO, .lmc = 0 };
	ibf_topo_format_t to = IBF_TOPO_IBNETDISCOVER;
	const char *out = "-";
	ibf_fabric_t *f = NULL;
	ibf_err_t err;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			ro.format = ibf_topo_format_from_name(optarg);
			if (ro.format == IBF_TOPO_AUTO ||
			    ro.format == IBF_TOPO_DOT)
				return ibf_cli_usage_error("convert",
					"--from: unknown input format '%s'",
					optarg);
			break;
		case 't':
			rc = ibf_cli_parse_write_format("convert", "--to",
							optarg, &to);
			if (rc != IBF_EXIT_OK)
				return rc;
			break;
		case 'l':
			rc = ibf_cli_parse_uint("convert", "--lmc", optarg, 0,
						IBF_LMC_MAX, &ro.lmc);
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
			return ibf_cli_usage_error("convert", "bad option");
		}
	}
	if (optind != argc - 1)
		return ibf_cli_usage_error("convert",
					   "expected one input topology");
	ibf_err_clear(&err);
	if (ibf_topo_read(argv[optind], &ro, &f, &err) != IBF_OK)
		return ibf_cli_fail("convert", &err);
	if (ibf_topo_write_file(f, to, out, &err) != IBF_OK) {
		ibf_fabric_destroy(f);
		return ibf_cli_fail("convert", &err);
	}
	ibf_fabric_destroy(f);
	return IBF_EXIT_OK;
}
