/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibflow info: summarize a topology. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const CMD = "info";

static void print_summary(const ibf_fabric_t *f, const char *path,
			  ibf_topo_format_t fmt)
{
	/* rate histogram: [width index][speed] */
	static const unsigned widths[] = { 0, 1, 2, 4, 8, 12 };
	unsigned hist[6][IBF_SPEED_COUNT] = { { 0 } };
	unsigned ncas = 0, nrouters = 0, links = 0, lids = 0, lo = 0, i, s;
	ibf_node_id_t n;
	ibf_port_id_t p;

	for (n = 0; n < f->nnodes; n++) {
		ncas += ibf_node(f, n)->type == IBF_NODE_CA;
		nrouters += ibf_node(f, n)->type == IBF_NODE_ROUTER;
	}
	for (p = 0; p < f->nports; p++) {
		const ibf_port_t *pt = ibf_port(f, p);

		if (pt->peer == IBF_NO_ID || pt->peer < p)
			continue;
		links++;
		for (i = 0; i < 6 && widths[i] != pt->width; i++)
			;
		if (i < 6 && pt->speed < IBF_SPEED_COUNT)
			hist[i][pt->speed]++;
	}
	for (i = 1; i <= f->lid_top; i++) {
		if (f->lid_port[i] == IBF_NO_ID)
			continue;
		lo = lo ? lo : i;
		lids++;
	}
	printf("topology:  %s (%s)\n", path, ibf_topo_format_name(fmt));
	printf("nodes:     %u\n", f->nnodes);
	printf("switches:  %u\n", f->nswitches);
	printf("CAs:       %u\n", ncas);
	if (nrouters)
		printf("routers:   %u\n", nrouters);
	printf("endpoints: %u\n", f->nendpoints);
	printf("links:     %u\n", links);
	printf("LMC:       %u\n", f->lmc);
	printf("LIDs:      %u..%u (%u in use)\n", lo, f->lid_top, lids);
	printf("link rates:\n");
	for (i = 0; i < 6; i++)
		for (s = 0; s < IBF_SPEED_COUNT; s++)
			if (hist[i][s])
				printf("  %2ux%-6s %u\n", widths[i],
				       ibf_speed_name((ibf_speed_t)s),
				       hist[i][s]);
}

int ibf_cmd_info(int argc, char **argv)
{
	ibf_topo_read_opts_t ro = { .format = IBF_TOPO_AUTO, .lmc = 0 };
	const char *path = NULL, *operand;
	const ibf_opt_t opts[] = {
		IBF_OPT_STR("topo", &path, "FILE", "topology file (\"-\" = "
			    "stdin); may also be given alone"),
		IBF_OPT_UINT("lmc", &ro.lmc, "N", 0, IBF_LMC_MAX,
			     "LMC for CA ports when the file carries no\nLIDs "
			     "or no LMC", .def = "0"),
		IBF_OPT_END
	};
	const ibf_cli_spec_t cli = {
		.name = CMD, .opts = opts,
		.usage = "--topo FILE [--lmc N]",
		.operands = "FILE", .max_operands = 1,
		.about = "Summarize a topology (ibnetdiscover, ibsim or "
			 "opensm-subnet.lst, detected\nfrom the content): "
			 "nodes, switches, CAs, endpoints, links, LMC, LID\n"
			 "range and a histogram of link rates.\n",
		.exit = "0 ok, 2 bad usage or bad input.",
	};
	ibf_fabric_t *f = NULL;
	ibf_topo_format_t fmt;
	ibf_text_t t;
	ibf_err_t err;
	int rc;

	if (!ibf_cli_parse(&cli, argc, argv, &operand, &rc))
		return rc;
	if (!path == !operand)
		return ibf_cli_usage_error(CMD, "expected --topo FILE");
	path = path ? path : operand;
	ibf_err_clear(&err);
	if (ibf_text_load(&t, path, &err) != IBF_OK)
		return ibf_cli_fail(CMD, &err);
	fmt = ibf_topo_detect(&t);
	if (ibf_topo_read_text(&t, &ro, &f, &err) != IBF_OK) {
		ibf_text_free(&t);
		return ibf_cli_fail(CMD, &err);
	}
	ibf_cli_note_lids(CMD, t.name, f);
	print_summary(f, t.name, fmt);
	ibf_text_free(&t);
	ibf_fabric_destroy(f);
	return IBF_EXIT_OK;
}
